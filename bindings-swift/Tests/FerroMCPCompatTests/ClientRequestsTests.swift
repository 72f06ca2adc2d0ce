// Requests from a FerroMCPCompat server to the client, inside a tool call (requestSampling,
// requestElicitation in form and URL mode, listRoots) and outside one (the only session's),
// answered by a FerroMCPCompat client's
// handlers (withSamplingHandler, withElicitationHandler, withRootsHandler) through the engine.

import FerroMCPCompat
import Foundation
import XCTest

final class ClientRequestsTests: XCTestCase {
    func testAToolCallAsksTheClientsModelUserAndRoots() async throws {
        let server = Server(name: "asker", version: "1.0.0", capabilities: .init(tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [Tool(name: "ask", description: "Asks around", inputSchema: ["type": "object"])])
        }
        await server.withMethodHandler(CallTool.self) { [server] _ in
            let sampled = try await server.requestSampling(
                messages: [.user(.text("What is 6 * 7?"))], systemPrompt: "Be exact", maxTokens: 10)
            let form = try await server.requestElicitation(
                message: "Your name?",
                requestedSchema: .init(properties: ["name": ["type": "string"]], required: ["name"]))
            let url = try await server.requestElicitation(message: "Sign in", url: "https://login.example/a",
                                                          elicitationId: "e-1")
            let roots = try await server.listRoots()
            guard case .single(.text(let answer)) = sampled.content else { throw MCPError.internalError("not text") }
            return .init(content: [.text(
                "\(sampled.model): \(answer); \(form.action.rawValue) \(form.content?["name"]?.stringValue ?? "-"); "
                    + "\(url.action.rawValue); \(roots.map(\.uri).joined(separator: ","))")])
        }

        let client = Client(name: "answerer", version: "1.0.0")
        await client.withSamplingHandler { params in
            let asked = params.messages.first.map { $0.content.asArray }
            guard case .text(let question)? = asked?.first, params.systemPrompt == "Be exact" else {
                throw MCPError.invalidParams("unexpected sampling request")
            }
            return CreateSamplingMessage.Result(model: "m1", stopReason: .endTurn, role: .assistant,
                                                content: .text(question == "What is 6 * 7?" ? "42" : "?"))
        }
        await client.withElicitationHandler { params in
            switch params {
            case .form(let form):
                XCTAssertEqual(form.requestedSchema.required, ["name"])
                return .init(action: .accept, content: ["name": "Ada"])
            case .url(let url):
                return .init(action: url.url == "https://login.example/a" && url.elicitationId == "e-1" ? .accept : .decline)
            }
        }
        await client.withRootsHandler { [Root(uri: "file:///work", name: "work")] }
        let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverEnd)
        try await client.connect(transport: clientEnd)

        let (content, isError) = try await client.callTool(name: "ask")
        XCTAssertNotEqual(isError, true)
        XCTAssertEqual(content, [.text("m1: 42; accept Ada; accept; file:///work")])

        // Outside a handler they go to the server's only session; with two there is no telling
        // which is meant.
        let roots = try await server.listRoots()
        XCTAssertEqual(roots, [Root(uri: "file:///work", name: "work")])
        let second = Client(name: "second", version: "1")
        await second.withRootsHandler { [] }
        let (secondEnd, secondServerEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: secondServerEnd)
        try await second.connect(transport: secondEnd)
        _ = try await second.send(Ping.request()).value
        do {
            _ = try await server.listRoots()
            XCTFail("listRoots outside a handler with two sessions succeeded")
        } catch let e as MCPError {
            XCTAssertEqual(e.code, -32600)
            XCTAssertTrue(e.localizedDescription.contains("2 live sessions"), e.localizedDescription)
        }
        await second.disconnect()
        await client.disconnect()
    }
}
