// AppsTests: MCP Apps (`registerUIResource`, `registerUITool`, `RequestContext.clientSupportsUI`)
// from Swift, the scenarios of core/tests/integration/mcp_apps.rs in camelCase after `test`. A
// client lists the tool with its `_meta.ui.resourceUri`, reads the `ui://` resource with the app
// MIME type and its `_meta.ui`, and a tool sees whether the client advertised UI support (a raw
// 2026-07-28 HTTP host declares it per request; the FerroMCP client does not); bad UIs are
// refused at registration.

import FerroMCP
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private let html = "<!doctype html><html><body><p id=t>weather</p></body></html>"

private func appsServer() throws -> Server {
    let s = try Server(name: "apps", version: "1.0")
    try s.registerUIResource(
        "ui://weather/dashboard", name: "dashboard", html: html, description: "Weather dashboard",
        csp: UiCsp(connectDomains: ["https://api.weather.example"]), permissions: [.geolocation],
        prefersBorder: true)
    try s.registerUITool("get_weather", resourceUri: "ui://weather/dashboard",
                         description: "Weather for a city") { _, ctx in
        .text(ctx.clientSupportsUI ? "ui" : "text only")
    }
    try s.registerUITool("refresh", resourceUri: "ui://weather/dashboard", visibility: [.app]) { _, _ in
        .text("refreshed")
    }
    return s
}

/// One 2026-07-28 `tools/call` of `get_weather` over HTTP declaring `caps`; the text answered.
private func callAsRawHost(_ url: String, caps: Value) async throws -> String {
    let params: Value = [
        "name": "get_weather", "arguments": [:],
        "_meta": [
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": ["name": "raw-host", "version": "1"],
        ],
    ]
    let body: Value = ["jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params]
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.httpBody = Data(body.jsonText.utf8)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
    request.setValue("2026-07-28", forHTTPHeaderField: "MCP-Protocol-Version")
    request.setValue("tools/call", forHTTPHeaderField: "Mcp-Method")
    request.setValue("get_weather", forHTTPHeaderField: "Mcp-Name")
    let data: Data = try await withCheckedThrowingContinuation { k in
        URLSession.shared.dataTask(with: request) { data, _, error in
            if let error { return k.resume(throwing: error) }
            k.resume(returning: data ?? Data())
        }.resume()
    }
    let text = String(decoding: data, as: UTF8.self)
    let json = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
        .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.last(where: { !$0.isEmpty }) ?? text
    return try Value(json: json)["result"]?["content"]?[0]?["text"]?.stringValue ?? "(no text: \(text))"
}

private func refusal(_ body: () throws -> Void) -> String {
    do {
        try body()
        XCTFail("expected a refusal")
    } catch let e as McpError {
        XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue)
        return e.message
    } catch {
        XCTFail("expected an McpError, got \(error)")
    }
    return ""
}

final class AppsTests: XCTestCase {
    func testClientListsTheToolWithItsUiResourceUri() async throws {
        let client = try await Client.connect(to: appsServer())
        let tools = Dictionary(uniqueKeysWithValues: try await client.listAllTools().map { ($0.name, $0) })
        XCTAssertEqual(tools["get_weather"]?.meta?["ui"], ["resourceUri": "ui://weather/dashboard"])
        XCTAssertEqual(tools["get_weather"]?.meta?["ui/resourceUri"], "ui://weather/dashboard")
        XCTAssertEqual(tools["refresh"]?.meta?["ui"]?["visibility"], ["app"])
        await client.close()
    }

    func testClientReadsTheUiResourceWithTheAppMimeType() async throws {
        let client = try await Client.connect(to: appsServer())
        let listed = try await client.listResources().resources
        XCTAssertEqual(listed.first?.uri, "ui://weather/dashboard")
        XCTAssertEqual(listed.first?.mimeType, McpApps.mimeType)
        let read = try await client.readResource("ui://weather/dashboard")
        XCTAssertEqual(read.first?.mimeType, "text/html;profile=mcp-app")
        XCTAssertEqual(read.first?.text, html)
        XCTAssertEqual(read.first?.meta, ["ui": [
            "csp": ["connectDomains": ["https://api.weather.example"]],
            "permissions": ["geolocation": [:]],
            "prefersBorder": true,
        ]])
        await client.close()
    }

    func testCapabilityCheckSeesAClientThatAdvertisesUi() async throws {
        let http = try await appsServer().startHTTP(port: 0, options: HTTPOptions(jsonResponse: true))
        let text = try await callAsRawHost(http.url, caps: McpApps.clientCapability)
        try await http.close()
        XCTAssertEqual(text, "ui")
    }

    func testCapabilityCheckSeesAClientWithoutUi() async throws {
        for mode in [ProtocolMode.handshake, .perRequest] {
            var options = ClientOptions()
            options.protocolMode = mode
            if mode == .perRequest { options.protocolVersion = "2026-07-28" }
            let client = try await Client.connect(to: appsServer(), options: options)
            let r = try await client.callTool("get_weather")
            XCTAssertEqual(r.content.first?.text, "text only", "\(mode)")
            await client.close()
        }
        let http = try await appsServer().startHTTP(port: 0, options: HTTPOptions(jsonResponse: true))
        let text = try await callAsRawHost(http.url, caps: [:])
        try await http.close()
        XCTAssertEqual(text, "text only")
    }

    func testNonUiUriIsRefusedAtRegistration() throws {
        let s = try Server(name: "x", version: "1")
        XCTAssertTrue(refusal { try s.registerUIResource("https://a.example/ui", name: "u", html: "<p>") }
            .contains("\"https://a.example/ui\" must use the ui:// scheme"))
        XCTAssertTrue(refusal { try s.registerUIResource("ui://", name: "u", html: "<p>") }
            .contains("nothing after ui://"))
    }

    func testWrongMimeTypeIsRefusedAtRegistration() throws {
        // A ui:// resource registered by hand (another MIME type) is not a UI a tool may name.
        let s = try Server(name: "x", version: "1")
        try s.registerResource("ui://a/b", name: "b", mimeType: "text/html") { _, _ in "<p>" }
        XCTAssertTrue(refusal { try s.registerUITool("t", resourceUri: "ui://a/b") { _, _ in "" } }
            .contains("not registered on this server as a UI resource"))
    }

    func testToolNamingAnUnregisteredUiIsRefusedAtRegistration() throws {
        let s = try Server(name: "x", version: "1")
        XCTAssertTrue(refusal { try s.registerUITool("t", resourceUri: "ui://missing/view") { _, _ in "" } }
            .contains("tool \"t\" names UI resource \"ui://missing/view\""))
        XCTAssertTrue(refusal { try s.registerUITool("t", resourceUri: "https://x.example") { _, _ in "" } }
            .contains("must use the ui:// scheme"))
    }

    func testMalformedUiMetaIsRefusedAtRegistration() throws {
        let s = try Server(name: "x", version: "1")
        XCTAssertTrue(refusal {
            try s.registerUIResource("ui://a/b", name: "b", html: "<p>", csp: UiCsp(connectDomains: [""]))
        }.contains("connectDomains must be a list of non-empty strings"))
        try s.registerUIResource("ui://a/d", name: "d", html: "<p>")
        XCTAssertTrue(refusal { try s.registerUITool("t", resourceUri: "ui://a/d", visibility: []) { _, _ in "" } }
            .contains("visibility must be a non-empty list"))
        XCTAssertTrue(refusal { try McpApps.checkResourceMeta(["permissions": ["usb": [:]]]) }
            .contains("permissions.usb is not a permission"))
        XCTAssertTrue(refusal { try McpApps.checkResourceMeta(["prefersBorder": "yes"]) }
            .contains("prefersBorder must be a boolean"))
    }
}
