// ListenTasksTests: the tasks extension from the client's options and its listen (2026-07-28),
// against a Swift Server over Streamable HTTP: `listen(ListenFilter(taskIds:))` gets the
// `notifications/tasks` of a task started with `callToolAsTask` up to its terminal state (an id
// the server does not run is left out of the acknowledgement), and
// `ClientOptions(tasksExtension: false)` does not declare the extension: the server answers the
// call itself instead of making a task of it, and refuses a listen naming `taskIds` with -32021.

import FerroMCP
import XCTest

final class ListenTasksTests: XCTestCase {
    private static let subscriptionIdMeta = "io.modelcontextprotocol/subscriptionId"

    private func server() throws -> Server {
        let s = try Server(name: "listen-tasks", version: "1.0.0", options: .init(tasksExtension: true))
        try s.registerTool("slow", inputSchema: ["type": "object", "properties": ["ms": ["type": "integer"]]],
                           taskSupport: .optional) { args, _ in
            let ms = args["ms"]?.intValue ?? 50
            try await Task.sleep(for: .milliseconds(ms))
            return .text("slept \(ms) ms")
        }
        return s
    }

    private func client(_ url: String, tasksExtension: Bool = true) async throws -> Client {
        var options = ClientOptions(name: "listen-tasks", protocolVersion: "2026-07-28",
                                    tasksExtension: tasksExtension)
        options.protocolMode = .perRequest
        return try await Client.http(url: url, options: options)
    }

    /// The next notification within 5 s, or nil.
    private func next(_ sub: Subscription) async -> ServerNotification? {
        await withTaskGroup(of: ServerNotification?.self) { group in
            let task = Task { await sub.next() }
            group.addTask { await task.value }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if first == nil { task.cancel() }
            return first
        }
    }

    func testListenWithTaskIdsGetsTheTaskStatusNotifications() async throws {
        let http = try await server().startHTTP()
        let c = try await client(http.url)
        let task = try await c.callToolAsTask("slow", arguments: ["ms": 600])
        XCTAssertFalse(task.taskId.hasPrefix("ferromcp-local-"), task.taskId)
        let sub = try await c.listen(ListenFilter(taskIds: [task.taskId, "no-such-task"]))
        // The server agrees to the task it runs only.
        XCTAssertEqual(sub.filter, ListenFilter(taskIds: [task.taskId]))
        var statuses: [String] = []
        while true {
            guard let n = await next(sub) else {
                XCTFail("no status notification within 5 s after \(statuses)")
                break
            }
            XCTAssertEqual(n.method, "notifications/tasks")
            XCTAssertEqual(n.params?["taskId"]?.stringValue, task.taskId, "\(n)")
            XCTAssertEqual(n.params?["_meta"]?[Self.subscriptionIdMeta], sub.id, "\(n)")
            let status = n.params?["status"]?.stringValue ?? "?"
            statuses.append(status)
            if status == "completed" {
                XCTAssertEqual(n.params?["result"]?["content"]?[0]?["text"]?.stringValue, "slept 600 ms")
                break
            }
            XCTAssertEqual(status, "working", "\(n)")
        }
        // The current state first, then the change to the terminal state.
        XCTAssertEqual(statuses.first, "working")
        XCTAssertLessThanOrEqual(statuses.count, 3, "\(statuses)")
        sub.cancel()
        let done = try await c.getTask(task.taskId)
        XCTAssertEqual(done.status, .completed)
        await c.close()
        try await http.close()
    }

    func testTasksExtensionOffIsNotDeclared() async throws {
        let http = try await server().startHTTP()
        let on = try await client(http.url)
        let off = try await client(http.url, tasksExtension: false)
        // Declared (the default): a slow call becomes a task of the server's.
        let made = try await on.callToolAsTask("slow", arguments: ["ms": 400])
        XCTAssertFalse(made.taskId.hasPrefix("ferromcp-local-"), made.taskId)
        XCTAssertEqual(made.status, .working)

        // Not declared: the server answers the call itself; the client holds that answer as a
        // completed task of its own.
        let held = try await off.callToolAsTask("slow", arguments: ["ms": 400])
        XCTAssertTrue(held.taskId.hasPrefix("ferromcp-local-"), held.taskId)
        XCTAssertEqual(held.status, .completed)
        let result = try await off.getTaskResult(held.taskId)
        XCTAssertEqual(result.raw["content"]?[0]?["text"]?.stringValue, "slept 400 ms")
        let plain = try await off.callTool("slow", arguments: ["ms": 300])
        XCTAssertEqual(plain.raw["content"]?[0]?["text"]?.stringValue, "slept 300 ms")

        // A listen naming task ids needs the extension declared (-32021), even for a task the
        // server runs; one without task ids is served as ever.
        do {
            _ = try await off.listen(ListenFilter(toolsListChanged: true, taskIds: [made.taskId]))
            XCTFail("a listen naming task ids was accepted without the extension")
        } catch let e as McpError {
            XCTAssertEqual(e.code, -32021, "\(e)")
        }
        let offSub = try await off.listen(ListenFilter(toolsListChanged: true))
        XCTAssertEqual(offSub.filter, ListenFilter(toolsListChanged: true))
        offSub.cancel()
        let onSub = try await on.listen(ListenFilter(taskIds: [made.taskId]))
        XCTAssertEqual(onSub.filter.taskIds, [made.taskId])
        onSub.cancel()
        await on.close()
        await off.close()
        try await http.close()
    }
}
