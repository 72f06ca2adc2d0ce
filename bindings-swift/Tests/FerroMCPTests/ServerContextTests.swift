// ServerContextTests: what a handler does through its RequestContext, against the real engine:
// the request's identity and `_meta`, progress and logging reaching the client, requests back
// to the client (sampling, elicitation, roots), and MCP cancellation reaching the Swift task.

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

final class ServerContextTests: XCTestCase {
    func testContextDescribesTheRequest() async throws {
        let server = try Server(name: "ctx", version: "1.0.0")
        try server.registerTool("whoami") { _, ctx in
            ToolResult(content: [.text("ok")], structuredContent: [
                "requestId": ctx.requestId,
                "meta": ctx.meta ?? .null,
                "progressToken": ctx.progressToken ?? .null,
                "protocolVersion": ctx.protocolVersion.map(Value.string) ?? .null,
                "clientName": ctx.clientInfo?["name"] ?? .null,
                "clientCapabilities": ctx.clientCapabilities ?? .null,
                "onHTTP": .bool(ctx.httpHeaders != nil),
                "cancelled": .bool(ctx.isCancelled),
                "absent": .array([ctx.meta, ctx.progressToken].map { .bool($0 == nil) }),
            ])
        }
        let client = try await Client.connect(to: server, options: ClientOptions(name: "context-test"))

        let first = try await client.callTool("whoami")
        let plain = try XCTUnwrap(first.structuredContent)
        XCTAssertTrue(plain["requestId"]?.intValue != nil || plain["requestId"]?.stringValue != nil,
                      "\(plain)")
        XCTAssertEqual(plain["progressToken"], .null)
        XCTAssertEqual(plain["protocolVersion"], .string(client.protocolVersion))
        XCTAssertEqual(plain["clientName"], "context-test")
        XCTAssertNotNil(plain["clientCapabilities"]?.objectValue)
        XCTAssertEqual(plain["onHTTP"], false)
        XCTAssertEqual(plain["cancelled"], false)
        XCTAssertEqual(plain["absent"], [true, true], "no _meta: meta and progressToken are nil, not .null")

        let raw = try await client.sendRequest(
            method: "tools/call",
            params: ["name": "whoami", "arguments": [:], "_meta": ["progressToken": "tok-1", "trace": "abc"]])
        let seen = try XCTUnwrap(raw["structuredContent"])
        XCTAssertEqual(seen["progressToken"], "tok-1")
        XCTAssertEqual(seen["meta"]?["trace"], "abc")
        XCTAssertEqual(seen["absent"], [false, false])
        XCTAssertNotEqual(seen["requestId"], plain["requestId"])
        await client.close()
    }

    func testProgressAndLoggingReachTheClient() async throws {
        let server = try Server(name: "ctx", version: "1.0.0")
        try server.registerTool("work") { _, ctx in
            for step in 1...3 {
                try await ctx.reportProgress(Double(step), total: 3, message: "step \(step)")
            }
            try await ctx.log(.info, ["step": "done"], logger: "worker")
            try await ctx.log(.debug, "below the level")
            return "worked"
        }
        let client = try await Client.connect(to: server)
        try await client.setLoggingLevel(.info)

        let progress = T.Signal<ProgressUpdate>()
        let result = try await client.callTool(
            "work", options: RequestOptions(onProgress: { progress.send($0) }))
        XCTAssertEqual(result.text, "worked")
        for step in 1...3 {
            let update = try await progress.next(within: 10, "progress \(step)")
            XCTAssertEqual(update.progress, Double(step))
            XCTAssertEqual(update.total, 3)
            XCTAssertEqual(update.message, "step \(step)")
        }

        let log = try await T.notification(client, ServerNotification.Method.logMessage)
        XCTAssertEqual(log.logMessage, LogMessage(level: .info, logger: "worker", data: ["step": "done"]))

        // Server.log goes to every session, at each session's level.
        await server.log(.debug, "filtered out")
        await server.log(.error, ["disk": "full"], logger: "server")
        let broadcast = try await T.notification(client, ServerNotification.Method.logMessage)
        XCTAssertEqual(broadcast.logMessage, LogMessage(level: .error, logger: "server", data: ["disk": "full"]))
        await client.close()
    }

    func testHandlersCanAskTheClient() async throws {
        let server = try Server(name: "ctx", version: "1.0.0")
        try server.registerTool("ask") { _, ctx in
            let sampled = try await ctx.sample([
                "messages": [["role": "user", "content": ["type": "text", "text": "2+2?"]]],
                "maxTokens": 10,
            ])
            let answer = try await ctx.elicit(
                message: "Your name?",
                requestedSchema: ["type": "object", "properties": ["name": ["type": "string"]]])
            let roots = try await ctx.listRoots()
            let pong = try await ctx.sendRequest(method: "ping")
            return ToolResult(content: [.text("asked")], structuredContent: [
                "sampled": sampled["content"]?["text"] ?? .null,
                "action": .string(answer.action.rawValue),
                "name": answer.content?["name"] ?? .null,
                "roots": .array(roots.map(\.value)),
                "pong": pong,
            ])
        }
        let questions = T.Box<[String]>([])
        let options = ClientOptions(
            sampling: { params, _ in
                questions.update { $0.append(params["messages"]?[0]?["content"]?["text"]?.stringValue ?? "") }
                return ["role": "assistant", "content": ["type": "text", "text": "4"], "model": "test"]
            },
            elicitation: { params, _ in
                questions.update { $0.append(params["message"]?.stringValue ?? "") }
                return ElicitResult(action: .accept, content: ["name": "Ada"])
            },
            roots: { [Root(uri: "file:///work", name: "work"), Root(uri: "file:///tmp", meta: ["scratch": true])] })
        let client = try await Client.connect(to: server, options: options)

        let asked = try await client.callTool("ask")
        let result = try XCTUnwrap(asked.structuredContent)
        XCTAssertEqual(result["sampled"], "4")
        XCTAssertEqual(result["action"], "accept")
        XCTAssertEqual(result["name"], "Ada")
        XCTAssertEqual(result["roots"], [["uri": "file:///work", "name": "work"],
                                         ["uri": "file:///tmp", "_meta": ["scratch": true]]])
        XCTAssertEqual(result["pong"], [:])
        XCTAssertEqual(questions.value, ["2+2?", "Your name?"])
        await client.close()
    }

    func testAskingAClientWithoutTheCapabilityFails() async throws {
        let server = try Server(name: "ctx", version: "1.0.0")
        try server.registerTool("ask") { _, ctx in
            _ = try await ctx.listRoots()
            return "unreachable"
        }
        let client = try await Client.connect(to: server)
        let result = try await client.callTool("ask")
        XCTAssertTrue(result.isError, "a client without roots cannot be asked for them")
        await client.close()
    }

    // MARK: Cancellation

    func testCancellingTheCallCancelsTheSwiftTask() async throws {
        let server = try Server(name: "ctx", version: "1.0.0")
        let started = T.Signal<Void>()
        let observed = T.Signal<(taskCancelled: Bool, contextCancelled: Bool, sleepThrew: Bool)>()
        try server.registerTool("slow") { _, ctx in
            started.send(())
            var threw = false
            do {
                try await Task.sleep(for: .seconds(120))
            } catch {
                threw = error is CancellationError
            }
            observed.send((Task.isCancelled, ctx.isCancelled, threw))
            return "too late"
        }
        try server.registerTool("quick") { _, _ in "still serving" }
        let client = try await Client.connect(to: server)

        let call = Task { try await client.callTool("slow") }
        try await started.next(within: 10, "the tool to start")
        call.cancel()

        let seen = try await observed.next(within: 10, "the handler to see the cancellation")
        XCTAssertTrue(seen.taskCancelled)
        XCTAssertTrue(seen.contextCancelled)
        XCTAssertTrue(seen.sleepThrew)
        do {
            let r = try await call.value
            XCTFail("the cancelled call answered \(r)")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        let after = try await client.callTool("quick")
        XCTAssertEqual(after.text, "still serving")
        await client.close()
    }

    func testCancelledReturnsWhenTheRequestIsCancelled() async throws {
        let server = try Server(name: "ctx", version: "1.0.0")
        let started = T.Signal<Void>()
        let observed = T.Signal<Bool>()
        try server.registerTool("waits") { _, ctx in
            started.send(())
            // A child task waits for the request's cancellation while the handler waits for it.
            async let cancelled: Void = ctx.cancelled()
            await cancelled
            observed.send(ctx.isCancelled)
            return "cancelled"
        }
        let client = try await Client.connect(to: server)

        let call = Task { try await client.callTool("waits") }
        try await started.next(within: 10, "the tool to start")
        call.cancel()
        let contextCancelled = try await observed.next(within: 10, "ctx.cancelled() to return")
        XCTAssertTrue(contextCancelled)
        _ = try? await call.value
        await client.close()
    }
}
