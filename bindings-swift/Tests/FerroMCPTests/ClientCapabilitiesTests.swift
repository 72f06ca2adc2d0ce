// ClientCapabilitiesTests: a client declares capabilities beyond what its handlers imply
// (`ClientOptions(capabilities:)`, deep-merged over them: `experimental`, or 2026-07-28's
// `extensions`), e.g. a host that renders MCP Apps. Same scenarios as
// bindings-node/test/client_capabilities.test.mjs and bindings-python/tests/test_client_capabilities.py.

import FerroMCP
import Foundation
import XCTest

private func capsServer() throws -> Server {
    let s = try Server(name: "caps", version: "1")
    try s.registerTool("renders_ui") { _, ctx in .text(ctx.clientSupportsUI ? "true" : "false") }
    try s.registerTool("declared") { _, ctx in .text((ctx.clientCapabilities ?? .null).jsonText) }
    return s
}

private func options(_ mode: ProtocolMode, capabilities: Value? = nil) -> ClientOptions {
    var o = ClientOptions(capabilities: capabilities)
    o.protocolMode = mode
    if mode == .perRequest { o.protocolVersion = "2026-07-28" }
    return o
}

final class ClientCapabilitiesTests: XCTestCase {
    func testAnMcpAppsHostDeclaresTheUiExtensionAndTheServerSeesIt() async throws {
        for mode in [ProtocolMode.handshake, .perRequest] {
            let http = try await capsServer().startHTTP(port: 0)
            let host = try await Client.http(url: http.url, options: options(mode, capabilities: McpApps.clientCapability))
            let plain = try await Client.http(url: http.url, options: options(mode))
            let seenByHost = try await host.callTool("renders_ui").content.first?.text
            let seenByPlain = try await plain.callTool("renders_ui").content.first?.text
            await host.close()
            await plain.close()
            try await http.close()
            XCTAssertEqual(seenByHost, "true", "\(mode)")
            XCTAssertEqual(seenByPlain, "false", "\(mode)")
        }
    }

    func testDeclaredCapabilitiesAreMergedOverTheOnesTheHandlersImply() async throws {
        var o = ClientOptions(capabilities: ["experimental": ["acme/trace": ["level": 2]], "roots": ["extra": true]])
        o.roots = { [Root(uri: "file:///w", name: "w")] }
        let client = try await Client.connect(to: capsServer(), options: o)
        let text = try await client.callTool("declared").content.first?.text ?? ""
        await client.close()
        let declared = try Value(json: text)
        XCTAssertEqual(declared["experimental"], ["acme/trace": ["level": 2]])
        // Merged, not replaced: roots keeps listChanged from the handler and gains the extra key.
        XCTAssertEqual(declared["roots"], ["listChanged": true, "extra": true])
    }

    func testCapabilitiesThatAreNotAnObjectAreRefusedWhenConnecting() async throws {
        do {
            let c = try await Client.connect(to: capsServer(), options: ClientOptions(capabilities: ["ui"]))
            await c.close()
            XCTFail("connected with capabilities that are not an object")
        } catch {
            XCTAssertTrue("\(error)".contains("capabilities must be an object"), "\(error)")
        }
    }
}
