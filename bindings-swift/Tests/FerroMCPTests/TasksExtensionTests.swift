// TasksExtensionTests (issue 14): the tasks extension io.modelcontextprotocol/tasks (2026-07-28,
// SEP-2663) from Swift, as Python's Server(tasks_extension=True) and Node's tasksExtension:
// `ServerOptions(tasksExtension: true)` declares it in server/discover; a `taskSupport:
// .optional` tool called by a request declaring it answers a task handle, `context.input` in it
// parks the task until tasks/update answers, tasks/get inlines the result; a thrown McpError
// ends the task `failed`, any other error `completed` with isError; an immediate input_required
// keeps its multi round-trip round (no task) every time. Requests are sent raw over Streamable
// HTTP, since the Swift client does not declare the extension.

@testable import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

private let ext = "io.modelcontextprotocol/tasks"
private let caps: Value = ["elicitation": [:], "extensions": [ext: [:]]]

private struct Typed: Decodable, Sendable {
    let x: Int
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

final class TasksExtensionTests: XCTestCase {
    private func server(declare: Bool) throws -> Server {
        let s = try Server(name: "tasks-ext", version: "1.0.0", options: .init(tasksExtension: declare))
        try s.registerTool("slow", taskSupport: .optional) { _, _ in
            try await Task.sleep(for: .milliseconds(300))
            return .text("slept")
        }
        try s.registerTool("ask", taskSupport: .optional) { _, ctx in
            let answers = try await ctx.input(["who": [
                "method": "elicitation/create",
                "params": ["message": "Name?", "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"]]]],
            ]])
            return .text("Hello, \(answers["who"]?["content"]?["name"]?.stringValue ?? "?")!")
        }
        try s.registerTool("fails_mcp", taskSupport: .optional) { _, _ in
            try await Task.sleep(for: .milliseconds(50))
            throw McpError(.internalError, "the backend is down")
        }
        try s.registerTool("throws", taskSupport: .optional) { _, _ in
            try await Task.sleep(for: .milliseconds(50))
            throw Boom()
        }
        try s.registerTool("typed", taskSupport: .optional, arguments: Typed.self) { args, _ in
            .text("x is \(args.x)")
        }
        try s.registerTool("asks_first", taskSupport: .required) { _, ctx in
            guard let answer = ctx.inputResponse("user_name") else {
                throw McpError.inputRequired(["user_name": [
                    "method": "elicitation/create",
                    "params": ["message": "Name?", "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"]]]],
                ]])
            }
            return .text("Hello, \(answer["content"]?["name"]?.stringValue ?? "?")!")
        }
        return s
    }

    /// One 2026-07-28 request (routing headers included); the JSON-RPC answer.
    private func rpc(_ url: String, _ method: String, _ params: Value, caps: Value = caps) async throws -> Value {
        var p = params.objectValue ?? [:]
        p["_meta"] = [
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": ["name": "swift-test", "version": "1.0"],
        ]
        let body: Value = ["jsonrpc": "2.0", "id": 1, "method": .string(method), "params": .object(p)]
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.jsonText.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("2026-07-28", forHTTPHeaderField: "MCP-Protocol-Version")
        request.setValue(method, forHTTPHeaderField: "Mcp-Method")
        if let name = p["name"]?.stringValue ?? p["taskId"]?.stringValue {
            request.setValue(name, forHTTPHeaderField: "Mcp-Name")
        }
        let data: Data = try await withCheckedThrowingContinuation { k in
            URLSession.shared.dataTask(with: request) { data, _, error in
                if let error { return k.resume(throwing: error) }
                k.resume(returning: data ?? Data())
            }.resume()
        }
        let text = String(decoding: data, as: UTF8.self)
        let json = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.last(where: { !$0.isEmpty })
            ?? text
        return try Value(json: json)
    }

    private func call(_ url: String, _ name: String, caps: Value = caps) async throws -> Value {
        try await rpc(url, "tools/call", ["name": .string(name), "arguments": [:]], caps: caps)
    }

    /// Polls tasks/get until the task's status is `status` or terminal (5 s at most).
    private func wait(_ url: String, _ id: String, for status: String) async throws -> Value {
        for _ in 0..<250 {
            let t = try await rpc(url, "tasks/get", ["taskId": .string(id)])["result"] ?? .null
            let s = t["status"]?.stringValue ?? ""
            if s == status || ["completed", "failed", "cancelled"].contains(s) { return t }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("task \(id) never reached \(status)")
        return .null
    }

    func testDeclaredOnlyWhenAskedAndTasksRunToTheirResult() async throws {
        let off = try await server(declare: false).startHTTP()
        let plain = try await rpc(off.url, "server/discover", [:])
        XCTAssertNil(plain["result"]?["capabilities"]?["extensions"]?[ext], "\(plain)")
        try await off.close()

        let http = try await server(declare: true).startHTTP()
        let found = try await rpc(http.url, "server/discover", [:])
        XCTAssertNotNil(found["result"]?["capabilities"]?["extensions"]?[ext], "\(found)")
        let handle = try await call(http.url, "slow")["result"] ?? .null
        XCTAssertEqual(handle["resultType"]?.stringValue, "task", "\(handle)")
        XCTAssertEqual(handle["status"]?.stringValue, "working", "\(handle)")
        let done = try await wait(http.url, handle["taskId"]?.stringValue ?? "", for: "completed")
        XCTAssertEqual(done["status"]?.stringValue, "completed", "\(done)")
        XCTAssertEqual(done["result"]?["content"]?[0]?["text"]?.stringValue, "slept", "\(done)")
        // Without the extension in the request, the same tool is a plain call.
        let sync = try await call(http.url, "slow", caps: ["elicitation": [:]])["result"] ?? .null
        XCTAssertEqual(sync["resultType"]?.stringValue, "complete", "\(sync)")
        XCTAssertNil(sync["taskId"], "\(sync)")
        try await http.close()
    }

    func testInputIsParkedUntilTasksUpdate() async throws {
        let http = try await server(declare: true).startHTTP()
        let handle = try await call(http.url, "ask")["result"] ?? .null
        let id = try XCTUnwrap(handle["taskId"]?.stringValue, "\(handle)")
        let parked = try await wait(http.url, id, for: "input_required")
        XCTAssertEqual(parked["status"]?.stringValue, "input_required", "\(parked)")
        XCTAssertEqual(parked["inputRequests"]?["who"]?["method"]?.stringValue, "elicitation/create", "\(parked)")
        let ack = try await rpc(http.url, "tasks/update", [
            "taskId": .string(id),
            "inputResponses": ["who": ["action": "accept", "content": ["name": "Ada"]]],
        ])
        XCTAssertEqual(ack["result"]?["resultType"]?.stringValue, "complete", "\(ack)")
        let done = try await wait(http.url, id, for: "completed")
        XCTAssertEqual(done["result"]?["content"]?[0]?["text"]?.stringValue, "Hello, Ada!", "\(done)")
        try await http.close()
    }

    func testAnMcpErrorFailsTheTaskAndAnyOtherErrorIsAToolError() async throws {
        let http = try await server(declare: true).startHTTP()
        let a = try await call(http.url, "fails_mcp")["result"] ?? .null
        let failed = try await wait(http.url, a["taskId"]?.stringValue ?? "", for: "failed")
        XCTAssertEqual(failed["status"]?.stringValue, "failed", "\(failed)")
        XCTAssertEqual(failed["error"]?["code"]?.intValue, -32603, "\(failed)")
        XCTAssertEqual(failed["error"]?["message"]?.stringValue, "the backend is down", "\(failed)")
        XCTAssertNil(failed["result"], "\(failed)")

        let b = try await call(http.url, "throws")["result"] ?? .null
        let completed = try await wait(http.url, b["taskId"]?.stringValue ?? "", for: "completed")
        XCTAssertEqual(completed["status"]?.stringValue, "completed", "\(completed)")
        XCTAssertEqual(completed["result"]?["isError"]?.boolValue, true, "\(completed)")
        XCTAssertEqual(completed["result"]?["content"]?[0]?["text"]?.stringValue, "boom", "\(completed)")

        // In an ordinary call both are tool execution errors (isError), as in 2025-11-25.
        for name in ["fails_mcp", "throws"] {
            let r = try await call(http.url, name, caps: ["elicitation": [:]])["result"] ?? .null
            XCTAssertEqual(r["isError"]?.boolValue, true, "\(name): \(r)")
        }
        try await http.close()
    }

    /// Typed arguments that do not decode are a tool execution error in a task too (SEP-1303):
    /// the task completes with an `isError` result naming the problem, it does not fail with
    /// -32602.
    func testArgumentsThatDoNotDecodeCompleteTheTaskWithAToolError() async throws {
        let http = try await server(declare: true).startHTTP()
        let handle = try await call(http.url, "typed")["result"] ?? .null
        let done = try await wait(http.url, handle["taskId"]?.stringValue ?? "", for: "completed")
        XCTAssertEqual(done["status"]?.stringValue, "completed", "\(done)")
        XCTAssertNil(done["error"], "\(done)")
        XCTAssertEqual(done["result"]?["isError"]?.boolValue, true, "\(done)")
        XCTAssertEqual(done["result"]?["content"]?[0]?["text"]?.stringValue,
                       "Invalid arguments of tool \"typed\":\n- missing required property \"x\"", "\(done)")
        try await http.close()
    }

    func testAnImmediateInputRequiredKeepsItsRoundEveryTime() async throws {
        let http = try await server(declare: true).startHTTP()
        for round in 0..<10 {
            let first = try await call(http.url, "asks_first")["result"] ?? .null
            XCTAssertEqual(first["resultType"]?.stringValue, "input_required", "round \(round): \(first)")
            XCTAssertNil(first["taskId"], "round \(round): \(first)")
            var retry: [String: Value] = [
                "name": "asks_first", "arguments": [:],
                "inputResponses": ["user_name": ["action": "accept", "content": ["name": "Alice"]]],
            ]
            retry["requestState"] = first["requestState"]
            let second = try await rpc(http.url, "tools/call", .object(retry))["result"] ?? .null
            XCTAssertEqual(second["resultType"]?.stringValue, "task", "round \(round): \(second)")
            let done = try await wait(http.url, second["taskId"]?.stringValue ?? "", for: "completed")
            XCTAssertEqual(done["result"]?["content"]?[0]?["text"]?.stringValue, "Hello, Alice!", "\(done)")
        }
        try await http.close()
    }
}
