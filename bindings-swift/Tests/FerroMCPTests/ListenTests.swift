// ListenTests: Client.listen (subscriptions/listen, 2026-07-28) against real servers: a Swift
// Server over Streamable HTTP and over the in-memory message stream (the path stdio takes), and
// the Rust everything-server spawned over stdio (FERROMCP_TEST_SERVER). The subscription gets
// exactly the notifications it asked for, tagged with its id, and nothing reaches
// Client.notifications; cancelling it makes the server let go (the Swift server allows one
// listen stream, so a new listen succeeds only once the old one is gone); a handshake-era
// session gets -32600.

import Foundation
import XCTest
@testable import FerroMCP

final class ListenTests: XCTestCase {
    /// One listen stream at a time, and a `change` tool that makes changes a listener asked for
    /// and changes it did not ask for.
    private func listenServer() throws -> Server {
        let server = try Server(name: "listen-test", version: "1.0", options: .init(maxListenStreams: 1))
        try server.registerResource("mem://a", name: "a") { _, _ in "a" }
        let changes = Locked(0)
        try server.registerTool("change") { [weak server] _, _ in
            guard let server else { return "gone" }
            let n = changes.withLock { $0 += 1; return $0 }
            try server.registerPrompt("late_prompt_\(n)") { _, _ in "p" }
            server.notifyResourceUpdated("mem://other")
            try server.registerTool("late_tool_\(n)") { _, _ in "t" }
            server.notifyResourceUpdated("mem://a")
            return "changed"
        }
        return server
    }

    private func options(_ mode: ProtocolMode) -> ClientOptions {
        var o = ClientOptions()
        o.protocolMode = mode
        return o
    }

    /// A new listen, retried while the server still holds the old one (its only slot).
    private func openAgain(_ client: Client) async throws -> Subscription {
        for _ in 0..<100 {
            do {
                return try await client.listen(ListenFilter(toolsListChanged: true))
            } catch let e as McpError {
                XCTAssertEqual(e.data?["reason"]?.stringValue, "tooManyListenStreams", "\(e)")
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        throw TimedOut(what: "the server letting the cancelled listen go")
    }

    /// The next notification within `seconds`, or nil.
    private func next(_ sub: Subscription, within seconds: Double) async -> ServerNotification? {
        await withTaskGroup(of: ServerNotification?.self) { group in
            let task = Task { await sub.next() }
            group.addTask { await task.value }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if first == nil { task.cancel() }  // ends the subscription
            return first
        }
    }

    private func exercise(_ client: Client) async throws {
        let seen = NotificationLog(client)
        XCTAssertEqual(client.protocolVersion, "2026-07-28")
        let sub = try await client.listen(ListenFilter(toolsListChanged: true, resourceSubscriptions: ["mem://a"]))
        XCTAssertTrue(sub.id.intValue != nil || sub.id.stringValue != nil, "\(sub.id)")
        XCTAssertEqual(sub.filter, ListenFilter(toolsListChanged: true, resourceSubscriptions: ["mem://a"]))
        XCTAssertFalse(sub.isEnded)
        XCTAssertNil(sub.result)
        XCTAssertNil(sub.error)
        // The server's only listen slot is taken.
        do {
            _ = try await client.listen(ListenFilter(promptsListChanged: true))
            XCTFail("a second listen was accepted")
        } catch let e as McpError {
            XCTAssertEqual(e.data?["reason"]?.stringValue, "tooManyListenStreams", "\(e)")
        }

        let changed = try await client.callTool("change")
        XCTAssertEqual(changed.text, "changed")
        let n1 = await next(sub, within: 5)
        var it = sub.makeAsyncIterator()
        let n2 = await it.next()
        XCTAssertEqual(n1?.method, ServerNotification.Method.toolListChanged)
        XCTAssertEqual(n2?.method, ServerNotification.Method.resourceUpdated)
        XCTAssertEqual(n2?.params?["uri"]?.stringValue, "mem://a")
        for n in [n1, n2] {
            XCTAssertEqual(n?.params?["_meta"]?["io.modelcontextprotocol/subscriptionId"], sub.id)
        }
        // Neither the prompt change nor the other resource's update, nor a copy elsewhere.
        let waiting = Task { await sub.next() }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertTrue(seen.all.isEmpty, "\(seen.all)")

        sub.cancel()
        let extra = await waiting.value
        XCTAssertNil(extra, "unexpected: \(String(describing: extra))")
        XCTAssertTrue(sub.isEnded)
        XCTAssertEqual(sub.error?.code, McpError.Code.requestCancelled.rawValue)
        let again = try await openAgain(client)
        // Cancelling the task waiting on it cancels it too.
        let none = await next(again, within: 0.2)
        XCTAssertNil(none)
        XCTAssertTrue(again.isEnded)
        let third = try await openAgain(client)
        third.cancel()
    }

    func testListenOverStreamableHTTP() async throws {
        let server = try listenServer()  // the `change` tool holds it weakly
        let http = try await server.startHTTP()
        addTeardownBlock { try? await http.close() }
        let client = try await Client.http(url: http.url, options: options(.auto))
        try await exercise(client)
        await client.close()
        _ = server
    }

    func testListenOverAMessageStream() async throws {
        let server = try listenServer()
        let client = try await Client.connect(to: server, options: options(.auto))
        try await exercise(client)
        await client.close()
        _ = server
    }

    /// The package's ListenStdioServer executable, which SwiftPM builds next to the tests.
    private func listenStdioServer() throws -> String {
        let dirs = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle(for: ListenTests.self).bundleURL.deletingLastPathComponent(),
        ]
        for dir in dirs {
            let path = dir.appendingPathComponent("ListenStdioServer").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw McpError(.internalError, "ListenStdioServer not found in \(dirs.map(\.path))")
    }

    /// A Swift server serving stdio, stopped by one of its tools (`Server.stop()`, or its
    /// `serveStdio()` task cancelled), answers the open listen with its completion result, and
    /// the stopping call itself is answered.
    func testStdioServerStopEndsTheSubscriptionGracefully() async throws {
        let path = try listenStdioServer()
        for mode in ["--stop-tool", "--cancel-tool"] {
            let client = try await Client.stdio(command: path, arguments: [mode], options: options(.auto))
            XCTAssertEqual(client.protocolVersion, "2026-07-28", mode)
            let sub = try await client.listen(ListenFilter(toolsListChanged: true))
            let stopped = try await client.callTool("stop")
            XCTAssertEqual(stopped.text, "stopping", mode)
            // Not ended within 10 s: `next` cancels the subscription, and `error` says so.
            let last = await next(sub, within: 10)
            XCTAssertNil(last, mode)
            XCTAssertTrue(sub.isEnded, mode)
            XCTAssertNil(sub.error, "\(mode): \(String(describing: sub.error))")
            XCTAssertEqual(sub.result?["resultType"]?.stringValue, "complete", mode)
            XCTAssertEqual(sub.result?["_meta"]?["io.modelcontextprotocol/subscriptionId"], sub.id, mode)
            await client.close()
        }
    }

    /// The HTTP server shutting down answers the open listen with its completion result: the
    /// iteration ends and `result` (not `error`) says so.
    func testServerShutdownEndsTheSubscriptionGracefully() async throws {
        let server = try listenServer()
        let http = try await server.startHTTP()
        let client = try await Client.http(url: http.url, options: options(.auto))
        let sub = try await client.listen(ListenFilter(toolsListChanged: true))
        let pending = Task { await sub.next() }
        try await http.close()
        let last = await pending.value
        XCTAssertNil(last)
        XCTAssertTrue(sub.isEnded)
        XCTAssertNil(sub.error)
        XCTAssertEqual(sub.result?["resultType"]?.stringValue, "complete")
        XCTAssertEqual(sub.result?["_meta"]?["io.modelcontextprotocol/subscriptionId"], sub.id)
        await client.close()
        _ = server
    }

    func testHandshakeEraPointsToSubscribe() async throws {
        let client = try await Client.connect(to: try listenServer(), options: options(.handshake))
        do {
            _ = try await client.listen(ListenFilter(toolsListChanged: true))
            XCTFail("listen succeeded in the handshake era")
        } catch let e as McpError {
            XCTAssertEqual(e.code, -32600)
            XCTAssertTrue(e.message.contains("subscribe()"), e.message)
        }
        let tools = try await client.listAllTools()
        XCTAssertEqual(tools.count, 1)
        await client.close()
    }

    /// The Rust everything-server over stdio: a tools list change and the watched resource's
    /// update (every 3 s) arrive, a prompts list change (not asked for) does not; cancel ends it.
    func testListenOverStdio() async throws {
        guard let path = ProcessInfo.processInfo.environment["FERROMCP_TEST_SERVER"], !path.isEmpty else {
            throw XCTSkip("FERROMCP_TEST_SERVER is not set (see ClientStdioTests)")
        }
        let client = try await Client.stdio(command: path, options: options(.auto))
        XCTAssertEqual(client.protocolVersion, "2026-07-28")
        let sub = try await client.listen(ListenFilter(toolsListChanged: true,
                                                       resourceSubscriptions: ["test://watched-resource"]))
        _ = try await client.callTool("test_trigger_prompt_change")
        _ = try await client.callTool("test_trigger_tool_change")
        var got: [String] = []
        while got.count < 2, let n = await next(sub, within: 8) {
            XCTAssertEqual(n.params?["_meta"]?["io.modelcontextprotocol/subscriptionId"], sub.id)
            if n.method == ServerNotification.Method.resourceUpdated {
                XCTAssertEqual(n.params?["uri"]?.stringValue, "test://watched-resource")
            }
            if !got.contains(n.method) { got.append(n.method) }
        }
        XCTAssertEqual(Set(got), [ServerNotification.Method.toolListChanged, ServerNotification.Method.resourceUpdated])
        sub.cancel()
        let after = await sub.next()
        XCTAssertNil(after)
        XCTAssertEqual(sub.error?.code, McpError.Code.requestCancelled.rawValue)
        await client.close()
    }
}
