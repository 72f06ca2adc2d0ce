// The swift-sdk client's `tasks` capability (`Client.Capabilities(tasks: .full())`, 2025-11-25)
// turns on the engine's client tasks (ClientOptions(tasks: true)): a server's task-augmented
// sampling/createMessage or elicitation/create is answered at once with a CreateTaskResult while
// the client's handler runs as the task, and the server reads it with tasks/get and waits for the
// handler's answer with tasks/result. Without the capability the client answers in the request.
// The server is a FerroMCP one over Streamable HTTP whose `ask` tool does the server's part, as
// in FerroMCPTests/ClientTaskReceiverTests.swift.

import FerroMCP
import FerroMCPCompat
import Foundation
import XCTest

/// Lets the client's handlers answer (at the latest after 10 s: a client that made no task is
/// waited on in the request, where the server never opens the gate), and counts their calls.
private actor Gate {
    var open = false
    var calls = 0
    func release() { open = true }
    func reset(open: Bool) { self.open = open }
    func wait() async throws {
        calls += 1
        let end = Date().addingTimeInterval(10)
        while !open, Date() < end { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// A server whose `ask` tool sends `method` to its client as a task (ttl 60 s), reads the task's
/// state while the client's handler waits, lets the handler answer, and reports what it saw.
private func askingServer(_ gate: Gate) throws -> FerroMCP.Server {
    let requests: [String: FerroMCP.Value] = [
        "sampling/createMessage": [
            "messages": [["role": "user", "content": ["type": "text", "text": "Hello?"]]], "maxTokens": 10,
        ],
        "elicitation/create": [
            "message": "Who?", "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"]]],
        ],
    ]
    let s = try FerroMCP.Server(name: "task-asker", version: "1.0.0")
    try s.registerTool("ask", inputSchema: [
        "type": "object", "properties": ["method": ["type": "string"]], "required": ["method"],
    ]) { args, ctx in
        let method = args["method"]?.stringValue ?? ""
        var params = requests[method]?.objectValue ?? [:]
        params["task"] = ["ttl": 60000]
        let created = try await ctx.sendRequest(method: method, params: .object(params))
        let declared = ctx.clientCapabilities?["tasks"] ?? .null
        guard let taskId = created["task"]?["taskId"]?.stringValue else {
            return .text(FerroMCP.Value.object(["answered": created, "declared": declared]).jsonText)
        }
        let whileRunning = try await ctx.sendRequest(method: "tasks/get", params: ["taskId": .string(taskId)])
        await gate.release()
        let result = try await ctx.sendRequest(method: "tasks/result", params: ["taskId": .string(taskId)])
        let after = try await ctx.sendRequest(method: "tasks/get", params: ["taskId": .string(taskId)])
        return .text(FerroMCP.Value.object([
            "created": created["task"]?["status"] ?? .null,
            "while": whileRunning["status"] ?? .null,
            "result": result,
            "after": after["status"] ?? .null,
            "declared": declared,
        ]).jsonText)
    }
    return s
}

final class ClientTaskCapabilityTests: XCTestCase {
    /// What the `ask` tool reported for each method, from a swift-sdk-shaped client declaring
    /// `capabilities`.
    private func ask(declaring capabilities: FerroMCPCompat.Client.Capabilities, gateOpen: Bool)
        async throws -> (reports: [FerroMCP.Value], handlerCalls: Int)
    {
        let gate = Gate()
        let server = try askingServer(gate)
        let http = try await server.startHTTP()
        let client = FerroMCPCompat.Client(name: "sdk-shaped", version: "1.0.0", capabilities: capabilities)
        await client.withSamplingHandler { _ in
            try await gate.wait()
            return CreateSamplingMessage.Result(model: "m", stopReason: .endTurn, role: .assistant, content: .text("sampled"))
        }
        await client.withElicitationHandler { _ in
            try await gate.wait()
            return .init(action: .accept, content: ["name": "Ada"])
        }
        var reports: [FerroMCP.Value] = []
        do {
            try await client.connect(transport: HTTPClientTransport(endpoint: URL(string: http.url)!))
            for method in ["sampling/createMessage", "elicitation/create"] {
                await gate.reset(open: gateOpen)
                let (content, isError) = try await client.callTool(name: "ask", arguments: ["method": .string(method)])
                XCTAssertNotEqual(isError, true)
                guard case .text(let text, _, _)? = content.first else { throw MCPError.internalError("no text") }
                reports.append(try FerroMCP.Value(json: text))
            }
        } catch {
            await client.disconnect()
            try await http.close()
            throw error
        }
        await client.disconnect()
        try await http.close()
        return (reports, await gate.calls)
    }

    func testTheTasksCapabilityRunsTheServersTaskAugmentedRequestsAsTasks() async throws {
        let (reports, calls) = try await ask(declaring: .init(sampling: .init(), elicitation: .init(), tasks: .full()),
                                             gateOpen: false)
        for r in reports {
            XCTAssertEqual(r["created"], "working", r.jsonText)
            // The handler was still waiting: the task was working when the server looked.
            XCTAssertEqual(r["while"], "working", r.jsonText)
            XCTAssertEqual(r["after"], "completed", r.jsonText)
            XCTAssertEqual(r["declared"]?["requests"], [
                "sampling": ["createMessage": [:]], "elicitation": ["create": [:]],
            ])
        }
        XCTAssertEqual(reports[0]["result"]?["content"], ["type": "text", "text": "sampled"])
        XCTAssertEqual(reports[1]["result"]?["content"], ["name": "Ada"])
        XCTAssertEqual(calls, 2)
    }

    func testWithoutTheTasksCapabilityTheClientAnswersInTheRequest() async throws {
        let (reports, calls) = try await ask(declaring: .init(sampling: .init(), elicitation: .init()), gateOpen: true)
        XCTAssertEqual(reports[0]["answered"]?["content"], ["type": "text", "text": "sampled"])
        XCTAssertEqual(reports[1]["answered"]?["content"], ["name": "Ada"])
        XCTAssertEqual(reports[0]["declared"], .null)
        XCTAssertEqual(calls, 2)
    }

    func testTheTasksCapabilityCodesAsTheSpecNamesIt() throws {
        let data = try JSONEncoder().encode(FerroMCPCompat.Client.Capabilities(tasks: .full()))
        let value = try FerroMCP.Value(json: data)
        XCTAssertEqual(value["tasks"], [
            "list": [:], "cancel": [:],
            "requests": ["sampling": ["createMessage": [:]], "elicitation": ["create": [:]]],
        ])
    }
}
