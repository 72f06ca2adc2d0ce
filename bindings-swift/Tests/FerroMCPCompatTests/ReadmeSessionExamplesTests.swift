// The swift-sdk README's server examples that reach the client outside any request handler
// (30: a form elicitation, 31: a URL elicitation, 32: roots and their change notification) and
// its initialize hook (36), run against this module's Client over an InMemoryTransport: what
// the client was asked and what the examples print and throw.

import FerroMCPCompat
import Foundation
import XCTest

final class ReadmeSessionExamplesTests: XCTestCase {
    override func setUp() {
        _ = printed.take()
    }

    /// A started server with one connected client whose elicitation handler records what it is
    /// asked and answers `action` (with a name and a confirmation when accepting).
    private func elicitingPair(_ action: CreateElicitation.Result.Action, asked: PrintLog) async throws
        -> (Server, Client)
    {
        let server = Server(name: "MyServer", version: "1.0.0")
        let client = Client(name: "tests", version: "1.0.0")
        await client.withElicitationHandler { params in
            switch params {
            case .form(let form):
                let schema = form.requestedSchema
                asked.record("form \(form.message) | \(schema.title ?? "-") | \(schema.properties.keys.sorted()) "
                             + "| \(schema.required ?? [])")
            case .url(let url):
                asked.record("url \(url.message) | \(url.url) | \(UUID(uuidString: url.elicitationId) != nil)")
            }
            return .init(action: action, content: action == .accept ? ["name": "Ada", "confirmed": true] : nil)
        }
        try await connect(client, to: server)
        return (server, client)
    }

    func testReadmeElicitationExampleAsksTheOnlyClientOutsideAHandler() async throws {
        let asked = PrintLog()
        let (server, client) = try await elicitingPair(.accept, asked: asked)
        try await readmeServerExample30(server: server)
        XCTAssertEqual(asked.take(), [
            "form Some details are needed before proceeding | Additional Information Required | "
                + #"["confirmed", "name"] | ["name", "confirmed"]"#,
        ])
        try await readmeServerExample31(server: server)
        XCTAssertEqual(asked.take(), [
            "url Please sign in to continue | https://example.com/oauth/authorize?client_id=... | true",
        ])
        await client.disconnect()

        for (action, message) in [(CreateElicitation.Result.Action.decline, "User declined to provide information"),
                                  (.cancel, "Operation canceled by user")] {
            let (server, client) = try await elicitingPair(action, asked: asked)
            do {
                try await readmeServerExample30(server: server)
                XCTFail("example 30 went on after \(action)")
            } catch let e as MCPError {
                XCTAssertEqual(e, .invalidRequest(message))
            }
            XCTAssertEqual(asked.take().count, 1)
            await client.disconnect()
        }
    }

    func testOutsideAHandlerNoSessionOrSeveralAreRefusedWithTheReason() async throws {
        let server = Server(name: "MyServer", version: "1.0.0")
        do {
            try await readmeServerExample31(server: server)
            XCTFail("an elicitation with no client succeeded")
        } catch let e as MCPError {
            XCTAssertEqual(e.code, -32600)
            XCTAssertTrue(e.localizedDescription.contains("no live session"), e.localizedDescription)
        }
        let asked = PrintLog()
        let first = Client(name: "first", version: "1")
        let second = Client(name: "second", version: "1")
        for client in [first, second] {
            await client.withElicitationHandler { _ in
                asked.record("asked")
                return .init(action: .accept)
            }
            try await connect(client, to: server)
        }
        do {
            try await readmeServerExample31(server: server)
            XCTFail("an elicitation with two clients succeeded")
        } catch let e as MCPError {
            XCTAssertEqual(e.code, -32600)
            XCTAssertTrue(e.localizedDescription.contains("2 live sessions"), e.localizedDescription)
        }
        XCTAssertEqual(asked.all, [])
        // A notification outside a handler goes to every session.
        let got = PrintLog()
        for (name, client) in [("first", first), ("second", second)] {
            await client.onNotification(CustomNotification.self) { message in
                got.record("\(name): \(message.params.note)")
            }
        }
        try await server.notify(CustomNotification.message(.init(note: "hello")))
        let gotFirst = await got.waitFor { $0.hasPrefix("first") }
        let gotSecond = await got.waitFor { $0.hasPrefix("second") }
        XCTAssertTrue(gotFirst && gotSecond, "\(got.all)")
        XCTAssertEqual(got.all.sorted(), ["first: hello", "second: hello"])
        await first.disconnect()
        await second.disconnect()
    }

    /// Example 32 with example 14's client: the roots listed outside a handler, then the
    /// client's change notification reaches the server's handler, which lists them again from
    /// that client.
    func testReadmeRootsExampleListsRootsAndHearsTheirChange() async throws {
        let server = Server(name: "MyServer", version: "1.0.0")
        let client = await readmeClientExample14Setup()
        try await connect(client, to: server)
        try await readmeServerExample32(server: server)
        XCTAssertEqual(printed.take(), [
            "Root: Projects at file:///Users/user/projects",
            "Root: Documents at file:///Users/user/documents",
        ])
        try await readmeClientExample14Notify(client: client)
        let heard = await printed.waitFor { $0.hasPrefix("Roots updated") }
        XCTAssertTrue(heard, "\(printed.all)")
        XCTAssertEqual(printed.take(),
                       [#"Roots updated: ["file:///Users/user/projects", "file:///Users/user/documents"]"#])
        await client.disconnect()
    }

    /// Example 36: the hook sees each client's info and capabilities before the engine answers
    /// `initialize`, and a throw refuses the handshake with that error.
    func testReadmeInitializeHookSeesClientsAndRefusesTheBlockedOne() async throws {
        let server = Server(name: "MyServer", version: "1.0.0", capabilities: .init(tools: .init()))
        func connectThroughHook(_ client: Client) async throws {
            let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
            try await readmeServerExample36(server: server, transport: serverEnd)
            try await client.connect(transport: clientEnd)
        }

        let plain = Client(name: "PlainClient", version: "2.1.0")
        try await connectThroughHook(plain)
        XCTAssertEqual(printed.take(), ["Client does not support sampling", "Client PlainClient v2.1.0 connected"])
        let sampler = Client(name: "Sampler", version: "1.0.0")
        await sampler.withSamplingHandler { _ in
            CreateSamplingMessage.Result(model: "m", stopReason: .endTurn, role: .assistant, content: .text("-"))
        }
        try await connectThroughHook(sampler)
        XCTAssertEqual(printed.take(), ["Client Sampler v1.0.0 connected"])

        do {
            try await connectThroughHook(Client(name: "BlockedClient", version: "1.0.0"))
            XCTFail("the blocked client connected")
        } catch let e as MCPError {
            XCTAssertEqual(e, .invalidRequest("This client is not allowed"))
        }
        XCTAssertEqual(printed.take(), [])
        // The clients let in are served.
        _ = try await plain.listTools()
        await plain.disconnect()
        await sampler.disconnect()
    }

    /// Connects `client` to `server` in memory and waits for the handshake to finish on the
    /// server's side (its `initialized` notification is handled before the ping's answer).
    private func connect(_ client: Client, to server: Server) async throws {
        let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverEnd)
        try await client.connect(transport: clientEnd)
        _ = try await client.send(Ping.request()).value
    }
}

/// An application's own notification, sent with `notify` outside a handler.
struct CustomNotification: FerroMCPCompat.Notification {
    static let name = "notifications/example/custom"
    struct Parameters: Hashable, Codable, Sendable {
        let note: String
    }
}
