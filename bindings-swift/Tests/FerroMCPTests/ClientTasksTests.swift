// The client's task calls against a ferromcp server over Streamable HTTP, the same code in both
// eras: `.handshake` (2025-11-25 tasks) and `.perRequest` (2026-07-28, the tasks extension
// io.modelcontextprotocol/tasks): a task made, polled and awaited, input asked inside a task
// answered by the client's elicitation handler, a failed task throwing its error, a cancel that
// stops the tool; and a plain callTool the extension server made a task of returning its result.

import FerroMCP
import XCTest

private actor Stops {
    var names: [String] = []
    func add(_ n: String) { names.append(n) }
}

final class ClientTasksTests: XCTestCase {
    private func server(_ stops: Stops) throws -> Server {
        let s = try Server(name: "client-tasks", version: "1.0.0", options: .init(tasksExtension: true))
        try s.registerTool("slow", taskSupport: .optional) { _, _ in
            try await Task.sleep(for: .milliseconds(400))
            return .text("slept 400 ms")
        }
        try s.registerTool("forever", taskSupport: .optional) { _, _ in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                await stops.add("forever")
                throw error
            }
            return .text("never")
        }
        try s.registerTool("confirm", taskSupport: .optional) { _, ctx in
            try await Task.sleep(for: .milliseconds(50))
            let a = try await ctx.elicit(message: "Name?", requestedSchema: [
                "type": "object", "properties": ["name": ["type": "string"]],
            ])
            return .text("\(a.action.rawValue) \(a.content?["name"]?.stringValue ?? "?")")
        }
        try s.registerTool("broken", taskSupport: .optional) { _, _ in
            try await Task.sleep(for: .milliseconds(50))
            throw McpError(.internalError, "the backend is down")
        }
        return s
    }

    private func client(_ url: String, _ mode: ProtocolMode) async throws -> Client {
        var options = ClientOptions(name: "client-tasks", elicitation: { _, _ in
            ElicitResult(action: .accept, content: ["name": "Ada"])
        })
        options.protocolMode = mode
        if mode == .perRequest { options.protocolVersion = "2026-07-28" }
        return try await Client.http(url: url, options: options)
    }

    func testTaskCallsInBothEras() async throws {
        for mode in [ProtocolMode.handshake, .perRequest] {
            let stops = Stops()
            let http = try await server(stops).startHTTP()
            let c = try await client(http.url, mode)
            XCTAssertEqual(c.protocolVersion, mode == .perRequest ? "2026-07-28" : "2025-11-25")
            let task = try await c.callToolAsTask("slow", ttl: .seconds(60))
            XCTAssertEqual(task.status, .working, "\(mode)")
            XCTAssertNotNil(task.ttl, "\(task.raw)")
            XCTAssertNotNil(task.pollInterval, "\(task.raw)")
            XCTAssertNil(task.raw["ttlMs"], "\(task.raw)")
            let polled = try await c.getTask(task.taskId)
            XCTAssertEqual(polled.status, .working, "\(mode)")
            let r = try await c.getTaskResult(task.taskId)
            XCTAssertEqual(r.raw["content"]?[0]?["text"]?.stringValue, "slept 400 ms", "\(mode)")
            let done = try await c.getTask(task.taskId)
            XCTAssertEqual(done.status, .completed, "\(mode)")

            let asked = try await c.callToolAsTask("confirm")
            let answered = try await c.getTaskResult(asked.taskId)
            XCTAssertEqual(answered.raw["content"]?[0]?["text"]?.stringValue, "accept Ada", "\(mode)")

            // A thrown McpError: with the extension the task ends failed and getTaskResult throws
            // it; a 2025-11-25 task keeps the ordinary call's isError result.
            let broken = try await c.callToolAsTask("broken")
            if mode == .perRequest {
                do {
                    _ = try await c.getTaskResult(broken.taskId)
                    XCTFail("a failed task throws")
                } catch let e as McpError {
                    XCTAssertEqual(e.code, McpError.Code.internalError.rawValue, "\(mode)")
                    XCTAssertTrue(e.message.contains("the backend is down"), "\(e)")
                }
            } else {
                let failed = try await c.getTaskResult(broken.taskId)
                XCTAssertTrue(failed.isError, "\(failed.raw)")
                XCTAssertTrue(failed.raw["content"]?[0]?["text"]?.stringValue?.contains("the backend is down") == true,
                              "\(failed.raw)")
            }

            let long = try await c.callToolAsTask("forever")
            try await Task.sleep(for: .milliseconds(100))
            let cancelled = try await c.cancelTask(long.taskId)
            XCTAssertEqual(cancelled.status, .cancelled, "\(mode)")
            do {
                _ = try await c.getTaskResult(long.taskId)
                XCTFail("a cancelled task has no result")
            } catch let e as McpError {
                XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue, "\(mode)")
            }
            for _ in 0..<100 {
                if await !stops.names.isEmpty { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let stopped = await stops.names
            XCTAssertEqual(stopped, ["forever"], "\(mode)")
            await c.close()
            try await http.close()
        }
    }

    func testAPlainCallFollowsTheTaskTheServerMade() async throws {
        let http = try await server(Stops()).startHTTP()
        let c = try await client(http.url, .perRequest)
        let r = try await c.callTool("slow")
        XCTAssertEqual(r.raw["content"]?[0]?["text"]?.stringValue, "slept 400 ms")
        let a = try await c.callTool("confirm")
        XCTAssertEqual(a.raw["content"]?[0]?["text"]?.stringValue, "accept Ada")
        await c.close()
        try await http.close()
    }
}
