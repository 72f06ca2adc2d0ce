// ClientTaskReceiverTests: tasks the client runs for its server (2025-11-25, handshake era).
// `ClientOptions(tasks: true)` declares tasks.requests.sampling.createMessage /
// tasks.requests.elicitation.create for the handlers it has, and a server's task-augmented request
// (params.task) is answered at once with a CreateTaskResult while the handler runs as the task;
// the server reads it with tasks/get and waits for the handler's answer with tasks/result.
// Without the option the client answers in the request. The server is a Swift one whose `ask`
// tool does the server's part. Same scenarios as
// bindings-python/tests/test_client_task_receiver.py and
// bindings-node/test/client_task_receiver.test.mjs.

import FerroMCP
import Foundation
import XCTest

private let relatedTask = "io.modelcontextprotocol/related-task"

private let requests: [String: Value] = [
    "sampling/createMessage": [
        "messages": [["role": "user", "content": ["type": "text", "text": "Hello?"]]],
        "maxTokens": 10,
    ],
    "elicitation/create": [
        "message": "Who?",
        "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"]]],
    ],
]

/// Lets the client's handler answer, and records the `task` of the params each handler got.
private actor Gate {
    var open = false
    var seen: [Value] = []
    func release() { open = true }
    func saw(_ task: Value) { seen.append(task) }
    func wait() async throws {
        while !open { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// A server whose `ask` tool sends `method` to its client as a task (ttl 60 s), reads the task's
/// state while the client's handler waits, lets the handler answer, and reports what it saw; a
/// client that made no task has its answer reported as it came.
private func askingServer(_ gate: Gate) throws -> Server {
    let s = try Server(name: "task-asker", version: "1.0.0")
    try s.registerTool("ask", inputSchema: [
        "type": "object", "properties": ["method": ["type": "string"]], "required": ["method"],
    ]) { args, ctx in
        let method = args["method"]?.stringValue ?? ""
        var params = requests[method]?.objectValue ?? [:]
        params["task"] = ["ttl": 60000]
        let created = try await ctx.sendRequest(method: method, params: .object(params))
        let declared = ctx.clientCapabilities?["tasks"] ?? .null
        guard let taskId = created["task"]?["taskId"]?.stringValue else {
            return .text(Value.object(["answered": created, "declared": declared]).jsonText)
        }
        let whileRunning = try await ctx.sendRequest(method: "tasks/get", params: ["taskId": .string(taskId)])
        await gate.release()
        let result = try await ctx.sendRequest(method: "tasks/result", params: ["taskId": .string(taskId)])
        let after = try await ctx.sendRequest(method: "tasks/get", params: ["taskId": .string(taskId)])
        return .text(Value.object([
            "created": created["task"]?["status"] ?? .null,
            "while": whileRunning["status"] ?? .null,
            "result": result,
            "related": .bool(result["_meta"]?[relatedTask]?["taskId"]?.stringValue == taskId),
            "after": after["status"] ?? .null,
            "declared": declared,
        ]).jsonText)
    }
    return s
}

/// Sampling and elicitation handlers that record the `task` of their params and answer once the
/// server lets them.
private func options(_ gate: Gate, tasks: Bool) -> ClientOptions {
    ClientOptions(
        sampling: { params, _ in
            await gate.saw(params["task"] ?? .null)
            try await gate.wait()
            return ["role": "assistant", "content": ["type": "text", "text": "sampled"], "model": "m"]
        },
        elicitation: { params, _ in
            await gate.saw(params["task"] ?? .null)
            try await gate.wait()
            return ElicitResult(action: .accept, content: ["name": "Ada"])
        },
        tasks: tasks)
}

final class ClientTaskReceiverTests: XCTestCase {
    private func ask(_ method: String, gate: Gate, tasks: Bool) async throws -> Value {
        let client = try await Client.connect(to: askingServer(gate), options: options(gate, tasks: tasks))
        do {
            let text = try await client.callTool("ask", arguments: ["method": .string(method)]).content.first?.text
            await client.close()
            return try Value(json: text ?? "null")
        } catch {
            await client.close()
            throw error
        }
    }

    func testAServersTaskAugmentedRequestRunsAsATaskOfTheClient() async throws {
        for method in ["sampling/createMessage", "elicitation/create"] {
            let gate = Gate()
            let r = try await ask(method, gate: gate, tasks: true)
            XCTAssertEqual(r["created"], "working", method)
            // The handler was still waiting: the task was working when the server looked.
            XCTAssertEqual(r["while"], "working", method)
            if method == "sampling/createMessage" {
                XCTAssertEqual(r["result"]?["content"], ["type": "text", "text": "sampled"])
            } else {
                XCTAssertEqual(r["result"]?["action"], "accept")
                XCTAssertEqual(r["result"]?["content"], ["name": "Ada"])
            }
            XCTAssertEqual(r["related"], true, "\(r["result"] ?? .null)")
            XCTAssertEqual(r["after"], "completed", method)
            XCTAssertEqual(r["declared"]?["requests"],
                           ["sampling": ["createMessage": [:]], "elicitation": ["create": [:]]])
            // The handler ran once, its params keeping the server's task.
            let seen = await gate.seen
            XCTAssertEqual(seen, [["ttl": 60000]], method)
        }
    }

    func testWithoutTasksTheClientAnswersInTheRequest() async throws {
        let gate = Gate()
        await gate.release() // answered in the request: nothing to wait for
        let r = try await ask("sampling/createMessage", gate: gate, tasks: false)
        XCTAssertEqual(r["answered"]?["content"], ["type": "text", "text": "sampled"])
        XCTAssertEqual(r["declared"], Value.null)
        let seen = await gate.seen
        XCTAssertEqual(seen, [["ttl": 60000]])
    }
}
