// ClientHTTPTests: the Client over Streamable HTTP against a Server facade started with
// startHTTP in this process: typed calls, header fields, server-to-client requests and
// notifications on the SSE streams, cancellation, the legacy HTTP+SSE fallback, and transport
// errors (connection refused, the server going away).

import Foundation
import XCTest
@testable import FerroMCP

final class ClientHTTPTests: XCTestCase {
    private func demoServer(started: Locked<Bool>? = nil, cancelled: Locked<Bool>? = nil) throws -> Server {
        let server = try Server(name: "http-demo", version: "2.0", instructions: "over HTTP")
        try server.registerTool("echo") { args, _ in .text(args["text"]?.stringValue ?? "") }
        try server.registerTool("header") { args, ctx in
            .text(ctx.httpHeader(args["name"]?.stringValue ?? "") ?? "<none>")
        }
        try server.registerTool("ask") { _, ctx in
            let r = try await ctx.sample(["messages": [["role": "user", "content": ["type": "text", "text": "ping"]]],
                                          "maxTokens": 5])
            let roots = try await ctx.listRoots()
            return .text("\(r["content"]?["text"]?.stringValue ?? "?") \(roots.map(\.uri))")
        }
        try server.registerTool("work") { _, ctx in
            try await ctx.log(.info, "working", logger: "http")
            for i in 1...3 { try await ctx.reportProgress(Double(i), total: 3) }
            return "worked"
        }
        try server.registerTool("hang") { _, ctx in
            started?.set(true)
            await ctx.cancelled()
            cancelled?.set(true)
            return "never"
        }
        try server.registerResource("mem://doc", name: "doc", mimeType: "text/markdown") { _, _ in "# Doc" }
        try server.registerPrompt("hello") { _, _ in "Hello!" }
        return server
    }

    func testTypedCallsOverStreamableHTTP() async throws {
        let started = Locked(false)
        let cancelled = Locked(false)
        let server = try demoServer(started: started, cancelled: cancelled)
        let http = try await server.startHTTP()
        addTeardownBlock { try? await http.close() }
        XCTAssertTrue(http.url.hasPrefix("http://127.0.0.1:"), http.url)
        XCTAssertTrue(http.url.hasSuffix("/mcp"), http.url)

        let client = try await Client.http(url: http.url, headers: ["X-Test": "swift-client"], options: .init(
            sampling: { _, _ in ["role": "assistant", "content": ["type": "text", "text": "pong"], "model": "m"] },
            roots: { [Root(uri: "file:///srv", name: "srv")] }))
        let seen = NotificationLog(client)

        XCTAssertEqual(client.serverInfo?["name"], "http-demo")
        XCTAssertEqual(client.instructions, "over HTTP")
        try await client.ping()
        let tools = try await client.listAllTools()
        XCTAssertEqual(Set(tools.map(\.name)), ["echo", "header", "ask", "work", "hang"])
        let echo = try await client.callTool("echo", arguments: ["text": "über HTTP ✓"])
        XCTAssertEqual(echo.text, "über HTTP ✓")
        let header = try await client.callTool("header", arguments: ["name": "x-test"])
        XCTAssertEqual(header.text, "swift-client")

        let asked = try await client.callTool("ask")
        XCTAssertEqual(asked.text, "pong [\"file:///srv\"]")

        try await client.setLoggingLevel(.info)
        let updates = Locked<[Double]>([])
        let worked = try await client.callTool("work", options: .init(onProgress: { p in updates.withLock { $0.append(p.progress) } }))
        XCTAssertEqual(worked.text, "worked")
        try await eventually { updates.value == [1, 2, 3] }
        let log = try await seen.wait { $0.logMessage?.logger == "http" }
        XCTAssertEqual(log.logMessage?.data, "working")

        let doc = try await client.readResource("mem://doc")
        XCTAssertEqual(doc, [.text("# Doc", uri: "mem://doc", mimeType: "text/markdown")])
        let prompt = try await client.getPrompt("hello")
        XCTAssertEqual(prompt.messages, [.user("Hello!")])

        let call = Task { try await client.callTool("hang") }
        try await eventually { started.value }
        call.cancel()
        await XCTAssertThrowsCancellation { _ = try await call.value }
        try await eventually { cancelled.value }

        await client.close()
        try await eventually { seen.finished }
    }

    func testLegacySSEFallback() async throws {
        let server = try demoServer()
        let http = try await server.startHTTP(options: .init(legacySSE: true))
        addTeardownBlock { try? await http.close() }
        let sse = http.url.replacingOccurrences(of: "/mcp", with: "/sse")
        let client = try await Client.http(url: sse)
        let echo = try await client.callTool("echo", arguments: ["text": "legacy"])
        XCTAssertEqual(echo.text, "legacy")
        await client.close()
    }

    func testConnectionRefusedIsATransportError() async throws {
        let server = try demoServer()
        let http = try await server.startHTTP()
        let url = http.url
        try await http.close()
        let start = ContinuousClock.now
        await assertTransportError { _ = try await Client.http(url: url) }
        await assertTransportError { _ = try await Client.http(url: url, legacyFallback: false) }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(10))
    }

    func testServerGoingAwayIsATransportError() async throws {
        let server = try demoServer()
        let http = try await server.startHTTP()
        let client = try await Client.http(url: http.url)
        try await client.ping()
        try await http.close()
        await assertTransportError { try await client.ping() }
        await client.close()
    }
}
