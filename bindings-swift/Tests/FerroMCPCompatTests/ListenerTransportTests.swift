// ListenerTransport: a FerroMCPCompat server on the engine's own HTTP listener (no HTTP
// framework), its handlers written as for the swift-sdk, reached by the compat client.

import FerroMCP
import FerroMCPCompat
import Foundation
import XCTest

final class ListenerTransportTests: XCTestCase {
    private func greeter() async -> FerroMCPCompat.Server {
        let server = FerroMCPCompat.Server(name: "greeter", version: "1.0.0", capabilities: .init(tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [FerroMCPCompat.Tool(name: "hi", description: "Says hi", inputSchema: ["type": "object"])])
        }
        await server.withMethodHandler(CallTool.self) { params in
            .init(content: [.text("hi \(params.arguments?["name"]?.stringValue ?? "")")], isError: false)
        }
        return server
    }

    func testAServerOnAListenerTransportAnswersTheCompatClientOverHTTP() async throws {
        let server = await greeter()
        let transport = ListenerTransport(options: HTTPOptions(jsonResponse: true))
        let notStarted = await transport.url
        XCTAssertNil(notStarted)
        try await server.start(transport: transport)
        let started = await transport.url
        let url = try XCTUnwrap(started)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/mcp"), url)

        let client = FerroMCPCompat.Client(name: "probe", version: "1")
        _ = try await client.connect(transport: HTTPClientTransport(endpoint: try XCTUnwrap(URL(string: url))))
        let (tools, _) = try await client.listTools()
        XCTAssertEqual(tools.map(\.name), ["hi"])
        let (content, isError) = try await client.callTool(name: "hi", arguments: ["name": "ada"])
        XCTAssertEqual(content, [.text("hi ada")])
        XCTAssertNotEqual(isError, true)
        await client.disconnect()

        try await transport.close()
        await transport.wait()
    }

    func testAListenerTransportServesOneServerOnly() async throws {
        let transport = ListenerTransport()
        try await (await greeter()).start(transport: transport)
        do {
            try await (await greeter()).start(transport: transport)
            XCTFail("a second server started on the same listener")
        } catch let e as MCPError {
            XCTAssertTrue(e.localizedDescription.contains("already serving"), e.localizedDescription)
        }
        try await transport.close()
    }
}
