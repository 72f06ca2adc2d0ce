// How FerroMCPCompat's errors cross: a tool's thrown MCPError is an isError result (SEP-1303),
// except URL elicitation (-32042, with its elicitations), which the client gets as that error;
// a resource or prompt handler's MCPError is that JSON-RPC error; a transport failure is
// MCPError.transportError.

import FerroMCPCompat
import Foundation
import XCTest

final class CompatErrorsTests: XCTestCase {
    private func connectedPair() async throws -> (Server, Client) {
        let server = Server(name: "errors", version: "1.0.0",
                            capabilities: .init(resources: .init(), tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [Tool(name: "fails", description: nil, inputSchema: ["type": "object"]),
                          Tool(name: "needs-login", description: nil, inputSchema: ["type": "object"])])
        }
        await server.withMethodHandler(CallTool.self) { params in
            if params.name == "needs-login" {
                throw MCPError.urlElicitationRequired(message: "Sign in first", elicitations: [
                    URLElicitationInfo(elicitationId: "e1", url: "https://login.example/x", message: "Sign in"),
                ])
            }
            throw MCPError.invalidParams("the backend refused")
        }
        await server.withMethodHandler(ListResources.self) { _ in
            .init(resources: [Resource(name: "secret", uri: "mem://secret")])
        }
        await server.withMethodHandler(ReadResource.self) { params in
            throw MCPError.invalidParams("Unknown resource URI: \(params.uri)")
        }
        let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverEnd)
        let client = Client(name: "tests", version: "1.0.0")
        try await client.connect(transport: clientEnd)
        return (server, client)
    }

    func testAToolsMCPErrorIsAToolResultButURLElicitationStaysAnError() async throws {
        let (_, client) = try await connectedPair()
        let (content, isError) = try await client.callTool(name: "fails")
        XCTAssertEqual(isError, true)
        XCTAssertEqual(content, [.text("the backend refused")])
        do {
            _ = try await client.callTool(name: "needs-login")
            XCTFail("a URL elicitation error was answered as a result")
        } catch let e as MCPError {
            XCTAssertEqual(e, .urlElicitationRequired(message: "Sign in first", elicitations: [
                URLElicitationInfo(elicitationId: "e1", url: "https://login.example/x", message: "Sign in"),
            ]))
            XCTAssertEqual(e.code, -32042)
        }
        await client.disconnect()
    }

    func testAResourceHandlersMCPErrorIsThatJSONRPCError() async throws {
        let (_, client) = try await connectedPair()
        do {
            _ = try await client.readResource(uri: "mem://secret")
            XCTFail("the read succeeded")
        } catch let e as MCPError {
            XCTAssertEqual(e, .invalidParams("Unknown resource URI: mem://secret"))
        }
        await client.disconnect()
    }

    func testAClientOverItsOwnStdioIsRefusedClearly() async throws {
        do {
            try await Client(name: "c", version: "1").connect(transport: StdioTransport())
            XCTFail("a client over its own stdio was accepted")
        } catch let e as MCPError {
            XCTAssertTrue(e.localizedDescription.contains("Client.stdio(command:)"), e.localizedDescription)
        }
    }
}
