// ClientTests: the Client facade against a Server facade in the same process (in-memory
// transport, the whole engine in between): every typed request, paging, progress, outgoing
// cancellation and timeouts, the client's sampling / elicitation / roots handlers, the
// notification stream and closing. The shared helpers of the Client*Tests files are at the end.

import Foundation
import XCTest
@testable import FerroMCP

final class ClientTests: XCTestCase {
    // MARK: Session

    func testInitializeResultAndPing() async throws {
        let server = try Server(name: "mem", version: "1.2.3", title: "Memory", instructions: "be nice")
        try server.registerTool("noop") { _, _ in "ok" }
        let client = try await Client.connect(to: server, options: .init(name: "tester", version: "9.9"))
        defer { Task { await client.close() } }

        XCTAssertEqual(client.serverInfo?["name"], "mem")
        XCTAssertEqual(client.serverInfo?["version"], "1.2.3")
        XCTAssertEqual(client.serverInfo?["title"], "Memory")
        XCTAssertEqual(client.instructions, "be nice")
        XCTAssertEqual(client.protocolVersion, "2025-11-25")
        XCTAssertEqual(client.initializeResult["protocolVersion"]?.stringValue, client.protocolVersion)
        XCTAssertNotNil(client.serverCapabilities?["tools"])
        try await client.ping()
    }

    func testClientInfoAndProtocolVersionReachTheServer() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("who") { _, ctx in
            .init(content: [], structuredContent: ["info": ctx.clientInfo ?? .null, "version": .string(ctx.protocolVersion ?? "")])
        }
        let client = try await Client.connect(
            to: server, options: .init(name: "tester", version: "9.9", protocolVersion: "2025-06-18"))
        defer { Task { await client.close() } }
        XCTAssertEqual(client.protocolVersion, "2025-06-18")
        let r = try await client.callTool("who")
        XCTAssertEqual(r.structuredContent?["info"]?["name"], "tester")
        XCTAssertEqual(r.structuredContent?["info"]?["version"], "9.9")
        XCTAssertEqual(r.structuredContent?["version"], "2025-06-18")
    }

    func testBadOptionsAreInvalidParams() async throws {
        let server = try Server(name: "mem", version: "1")
        do {
            _ = try await Client.connect(to: server, options: .init(protocolVersion: "1999-01-01"))
            XCTFail("an unknown protocol version must be refused")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue, "\(e)")
            XCTAssertFalse(e.isTransportError)
        }
    }

    // MARK: Tools

    func testToolsListCallAndPaging() async throws {
        let server = try Server(name: "mem", version: "1", options: .init(pageSize: 2))
        for i in 1...5 {
            try server.registerTool("t\(i)", title: "Tool \(i)", description: "number \(i)",
                                    annotations: .init(readOnlyHint: true)) { _, _ in .text("\(i)") }
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let first = try await client.listTools()
        XCTAssertEqual(first.tools.count, 2)
        let cursor = try XCTUnwrap(first.nextCursor)
        let second = try await client.listTools(cursor: cursor)
        XCTAssertEqual(second.tools.count, 2)
        XCTAssertNotEqual(first.tools.map(\.name), second.tools.map(\.name))

        let all = try await client.listAllTools()
        XCTAssertEqual(all.map(\.name).sorted(), ["t1", "t2", "t3", "t4", "t5"])
        let t3 = try XCTUnwrap(all.first { $0.name == "t3" })
        XCTAssertEqual(t3.title, "Tool 3")
        XCTAssertEqual(t3.description, "number 3")
        XCTAssertEqual(t3.inputSchema["type"], "object")
        XCTAssertEqual(t3.annotations?.readOnlyHint, true)
        XCTAssertEqual(t3.raw["name"], "t3")

        let r = try await client.callTool("t4")
        XCTAssertEqual(r.text, "4")
        XCTAssertFalse(r.isError)
    }

    func testCallToolArgumentsStructuredOutputAndErrors() async throws {
        struct Add: Codable, Sendable { var a: Int; var b: Int }
        struct Sum: Codable, Sendable, Equatable { var sum: Int }
        let schema: Value = ["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "integer"]],
                             "required": ["a", "b"]]
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("add", inputSchema: schema, arguments: Add.self,
                                outputSchema: ["type": "object", "properties": ["sum": ["type": "integer"]]]) { args, _ in
            Sum(sum: args.a + args.b)
        }
        try server.registerTool("echo") { args, _ in .init(content: [.text(args.jsonText)]) }
        try server.registerTool("fails") { _, _ in throw McpError(.internalError, "it broke") }
        try server.registerTool("mixed") { _, _ in
            .init(content: [.text("a"), .image(data: Data([1, 2, 3]), mimeType: "image/png"), .text("b")],
                  meta: ["k": "v"])
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let sum = try await client.callTool("add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(sum.structuredContent, ["sum": 5])
        XCTAssertEqual(try sum.decode(Sum.self), Sum(sum: 5))

        let typed = try await client.callTool("add", arguments: Add(a: 40, b: 2))
        XCTAssertEqual(try typed.decode(Sum.self).sum, 42)

        let echo = try await client.callTool("echo", arguments: ["x": [1, "two", .null, true]])
        XCTAssertEqual(try Value(json: echo.text), ["x": [1, "two", .null, true]])

        let failed = try await client.callTool("fails")
        XCTAssertTrue(failed.isError)
        XCTAssertTrue(failed.text.contains("it broke"), failed.text)
        XCTAssertThrowsError(try failed.decode(Sum.self))

        let mixed = try await client.callTool("mixed")
        XCTAssertEqual(mixed.content.count, 3)
        XCTAssertEqual(mixed.content[1], .image(data: Data([1, 2, 3]), mimeType: "image/png"))
        XCTAssertEqual(mixed.text, "a\nb")
        XCTAssertEqual(mixed.meta, ["k": "v"])

        // Schema-refused arguments are a tool error (SEP-1303); an unknown tool is -32602.
        let refused = try await client.callTool("add", arguments: ["a": "x"])
        XCTAssertTrue(refused.isError)
        XCTAssertTrue(refused.text.hasPrefix("Invalid arguments of tool \"add\":"), refused.text)
        await assertMcpError(.invalidParams) { _ = try await client.callTool("nope") }
    }

    // MARK: Resources

    func testResourcesTemplatesReadAndPaging() async throws {
        let server = try Server(name: "mem", version: "1", options: .init(pageSize: 2))
        for i in 1...3 {
            try server.registerResource("mem://r\(i)", name: "r\(i)", description: "resource \(i)",
                                        mimeType: "text/plain") { uri, _ in .text("contents of \(uri)") }
        }
        try server.registerResource("mem://bin", name: "bin", mimeType: "application/octet-stream") { _, _ in
            .data(Data([0, 1, 2, 255]))
        }
        try server.registerResourceTemplate("mem://items/{id}", name: "item", title: "An item",
                                            mimeType: "application/json") { uri, vars, _ in
            .contents([.text("{\"id\":\"\(vars["id"] ?? "")\"}", uri: uri)])
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let page = try await client.listResources()
        XCTAssertEqual(page.resources.count, 2)
        XCTAssertNotNil(page.nextCursor)
        let all = try await client.listAllResources()
        XCTAssertEqual(all.map(\.uri).sorted(), ["mem://bin", "mem://r1", "mem://r2", "mem://r3"])
        let r2 = try XCTUnwrap(all.first { $0.uri == "mem://r2" })
        XCTAssertEqual(r2.name, "r2")
        XCTAssertEqual(r2.description, "resource 2")
        XCTAssertEqual(r2.mimeType, "text/plain")

        let templates = try await client.listResourceTemplates()
        XCTAssertEqual(templates.resourceTemplates.map(\.uriTemplate), ["mem://items/{id}"])
        XCTAssertEqual(templates.resourceTemplates.first?.title, "An item")
        let allTemplates = try await client.listAllResourceTemplates()
        XCTAssertEqual(allTemplates.map(\.name), ["item"])

        let text = try await client.readResource("mem://r1")
        XCTAssertEqual(text, [.text("contents of mem://r1", uri: "mem://r1", mimeType: "text/plain")])
        let bin = try await client.readResource("mem://bin")
        XCTAssertEqual(bin.first?.blob, Data([0, 1, 2, 255]))
        let item = try await client.readResource("mem://items/42")
        XCTAssertEqual(item.first?.text, "{\"id\":\"42\"}")
        XCTAssertEqual(item.first?.mimeType, "application/json")

        await assertMcpError(.resourceNotFound) { _ = try await client.readResource("mem://missing") }
    }

    func testSubscribeUnsubscribeAndUpdates() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerResource("mem://a", name: "a") { _, _ in "a" }
        try server.registerResource("mem://b", name: "b") { _, _ in "b" }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }
        let seen = NotificationLog(client)

        try await client.subscribe("mem://a")
        server.notifyResourceUpdated("mem://a")
        let first = try await seen.wait(for: ServerNotification.Method.resourceUpdated)
        XCTAssertEqual(first.params?["uri"], "mem://a")

        try await client.unsubscribe("mem://a")
        server.notifyResourceUpdated("mem://a")      // not subscribed any more: nothing
        try await client.subscribe("mem://b")
        server.notifyResourceUpdated("mem://b")
        try await seen.wait { $0.method == ServerNotification.Method.resourceUpdated && $0.params?["uri"] == "mem://b" }
        let updates = seen.all.filter { $0.method == ServerNotification.Method.resourceUpdated }
        XCTAssertEqual(updates.compactMap { $0.params?["uri"]?.stringValue }, ["mem://a", "mem://b"])
    }

    // MARK: Prompts and completion

    func testPromptsListGetAndPaging() async throws {
        let server = try Server(name: "mem", version: "1", options: .init(pageSize: 1))
        try server.registerPrompt("greet", title: "Greeting", description: "says hello",
                                  arguments: [PromptArgument("name", description: "who", required: true)]) { args, _ in
            PromptResult(description: "a greeting", messages: [.user("Hello, \(args["name"] ?? "?")!"),
                                                               .assistant("Hi.")])
        }
        try server.registerPrompt("plain") { _, _ in "just text" }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let page = try await client.listPrompts()
        XCTAssertEqual(page.prompts.count, 1)
        XCTAssertNotNil(page.nextCursor)
        let all = try await client.listAllPrompts()
        XCTAssertEqual(all.map(\.name).sorted(), ["greet", "plain"])
        let greet = try XCTUnwrap(all.first { $0.name == "greet" })
        XCTAssertEqual(greet.title, "Greeting")
        XCTAssertEqual(greet.description, "says hello")
        XCTAssertEqual(greet.arguments, [PromptArgument("name", description: "who", required: true)])

        let got = try await client.getPrompt("greet", arguments: ["name": "Ada"])
        XCTAssertEqual(got.description, "a greeting")
        XCTAssertEqual(got.messages, [.user("Hello, Ada!"), .assistant("Hi.")])
        let plain = try await client.getPrompt("plain")
        XCTAssertEqual(plain.messages, [.user("just text")])

        await assertMcpError(.invalidParams) { _ = try await client.getPrompt("greet") }   // required argument
        await assertMcpError(.invalidParams) { _ = try await client.getPrompt("missing") }
    }

    func testCompletionForPromptsAndTemplates() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerPrompt("lang", arguments: [PromptArgument("language"), PromptArgument("framework")]) { _, _ in "x" }
        try server.registerCompletion(prompt: "lang", argument: "language") { req, _ in
            ["swift", "rust", "python"].filter { $0.hasPrefix(req.value) }
        }
        try server.registerCompletion(prompt: "lang", argument: "framework") { req, _ in
            req.context["language"] == "swift" ? ["vapor", "hummingbird"] : ["other"]
        }
        try server.registerResourceTemplate("mem://n/{n}", name: "numbers") { _, _, _ in "n" }
        try server.registerCompletion(resourceTemplate: "mem://n/{n}", argument: "n") { _, _ in
            (0..<150).map(String.init)
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let langs = try await client.complete(prompt: "lang", argument: "language", value: "r")
        XCTAssertEqual(langs.values, ["rust"])
        let frameworks = try await client.complete(prompt: "lang", argument: "framework", value: "",
                                                   context: ["language": "swift"])
        XCTAssertEqual(frameworks.values, ["vapor", "hummingbird"])
        let numbers = try await client.complete(resourceTemplate: "mem://n/{n}", argument: "n", value: "")
        XCTAssertEqual(numbers.values.count, 100)
        XCTAssertEqual(numbers.total, 150)
        XCTAssertEqual(numbers.hasMore, true)
        XCTAssertEqual(numbers.raw["completion"]?["total"], 150)
    }

    // MARK: Logging and notifications

    func testLoggingLevelAndLogMessages() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("chatty") { _, ctx in
            try await ctx.log(.debug, "too quiet", logger: "tool")
            try await ctx.log(.warning, ["step": 1], logger: "tool")
            return "done"
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }
        let seen = NotificationLog(client)

        try await client.setLoggingLevel(.warning)
        await server.log(.info, "filtered out")
        await server.log(.error, "broadcast", logger: "srv")
        let broadcast = try await seen.wait { $0.logMessage?.logger == "srv" }
        XCTAssertEqual(broadcast.logMessage, LogMessage(level: .error, logger: "srv", data: "broadcast"))

        _ = try await client.callTool("chatty")
        let fromTool = try await seen.wait { $0.logMessage?.logger == "tool" }
        XCTAssertEqual(fromTool.logMessage?.level, .warning)
        XCTAssertEqual(fromTool.logMessage?.data, ["step": 1])
        let levels = seen.all.compactMap(\.logMessage).map(\.level)
        XCTAssertFalse(levels.contains(.info) || levels.contains(.debug), "\(levels)")
    }

    func testListChangedNotifications() async throws {
        let server = try Server(name: "mem", version: "1",
                                options: .init(enableTools: true, enableResources: true, enablePrompts: true))
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }
        let seen = NotificationLog(client)
        let none = try await client.listAllTools()
        XCTAssertEqual(none.count, 0)

        try server.registerTool("late") { _, _ in "here" }
        let changed = try await seen.wait(for: ServerNotification.Method.toolListChanged)
        XCTAssertTrue(changed.params == nil || changed.params == [:], "\(String(describing: changed.params))")
        let late = try await client.listAllTools()
        XCTAssertEqual(late.map(\.name), ["late"])
        let here = try await client.callTool("late")
        XCTAssertEqual(here.text, "here")

        try server.registerPrompt("p") { _, _ in "p" }
        _ = try await seen.wait(for: ServerNotification.Method.promptListChanged)
        try server.registerResource("mem://late", name: "late") { _, _ in "r" }
        _ = try await seen.wait(for: ServerNotification.Method.resourceListChanged)

        XCTAssertTrue(server.removeTool("late"))
        try await seen.wait(count: 2, of: ServerNotification.Method.toolListChanged)
        let gone = try await client.listAllTools()
        XCTAssertEqual(gone.count, 0)
    }

    func testRawRequestAndNotification() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("echo") { args, _ in .text(args["v"]?.stringValue ?? "") }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let result = try await client.sendRequest(method: "tools/call", params: ["name": "echo", "arguments": ["v": "raw"]])
        XCTAssertEqual(result["content"]?[0]?["text"], "raw")
        let pong = try await client.sendRequest(method: "ping")
        XCTAssertEqual(pong, [:])
        await assertMcpError(.methodNotFound) { _ = try await client.sendRequest(method: "no/such/method") }
        try await client.sendNotification(method: "notifications/custom", params: ["x": 1])
        try await client.ping()   // the session survived the unknown notification
    }

    // MARK: Progress, cancellation, timeouts

    func testProgressCallback() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("work") { _, ctx in
            XCTAssertNotNil(ctx.progressToken)
            for i in 1...3 {
                try await ctx.reportProgress(Double(i), total: 3, message: "step \(i)")
                try await Task.sleep(for: .milliseconds(20))
            }
            return "worked"
        }
        try server.registerTool("token") { _, ctx in .text((ctx.progressToken ?? .null).isNull ? "none" : "some") }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let updates = Locked<[ProgressUpdate]>([])
        let r = try await client.callTool("work", options: .init(onProgress: { p in updates.withLock { $0.append(p) } }))
        XCTAssertEqual(r.text, "worked")
        try await eventually { updates.value.count == 3 }
        XCTAssertEqual(updates.value.map(\.progress), [1, 2, 3])
        XCTAssertEqual(updates.value.map(\.total), [3, 3, 3])
        XCTAssertEqual(updates.value.last?.message, "step 3")

        let without = try await client.callTool("token")
        XCTAssertEqual(without.text, "none")
        let with = try await client.callTool("token", options: .init(onProgress: { _ in }))
        XCTAssertEqual(with.text, "some")
    }

    func testTaskCancellationCancelsTheRequest() async throws {
        let server = try Server(name: "mem", version: "1")
        let started = Locked(false)
        let serverSawCancel = Locked(false)
        try server.registerTool("hang") { _, ctx in
            started.set(true)
            await ctx.cancelled()
            serverSawCancel.set(ctx.isCancelled)
            return "too late"
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let call = Task { try await client.callTool("hang") }
        try await eventually { started.value }
        call.cancel()
        do {
            _ = try await call.value
            XCTFail("a cancelled call must throw")
        } catch is CancellationError {
        } catch {
            XCTFail("expected CancellationError, got \(error)")
        }
        try await eventually { serverSawCancel.value }
        try await client.ping()   // the session goes on
    }

    func testAlreadyCancelledTaskSendsNothing() async throws {
        let server = try Server(name: "mem", version: "1")
        let calls = Locked(0)
        try server.registerTool("count") { _, _ in calls.withLock { $0 += 1 }; return "counted" }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let gate = Locked(false)
        let call = Task {
            while !gate.value { await Task.yield() }
            return try await client.callTool("count")
        }
        call.cancel()
        gate.set(true)
        await XCTAssertThrowsCancellation { _ = try await call.value }
        let counted = try await client.callTool("count")
        XCTAssertEqual(counted.text, "counted")
        XCTAssertEqual(calls.value, 1)
    }

    func testTimeoutIsRequestTimeoutAndCancelsOnTheServer() async throws {
        let server = try Server(name: "mem", version: "1")
        let cancelled = Locked(0)
        try server.registerTool("hang") { _, ctx in
            await ctx.cancelled()
            cancelled.withLock { $0 += 1 }
            return "never"
        }
        try server.registerTool("slowProgress") { _, ctx in
            for i in 1...6 {
                try await Task.sleep(for: .milliseconds(60))
                try await ctx.reportProgress(Double(i))
            }
            return "finished"
        }
        let client = try await Client.connect(to: server)
        defer { Task { await client.close() } }

        let start = ContinuousClock.now
        await assertMcpError(.requestTimeout) {
            _ = try await client.callTool("hang", options: .init(timeout: .milliseconds(200)))
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(3))
        try await eventually { cancelled.value == 1 }

        // Progress restarts the timeout when asked to.
        let r = try await client.callTool("slowProgress", options: .init(timeout: .milliseconds(200),
                                                                          resetTimeoutOnProgress: true,
                                                                          onProgress: { _ in }))
        XCTAssertEqual(r.text, "finished")
        await assertMcpError(.requestTimeout) {
            _ = try await client.callTool("slowProgress", options: .init(timeout: .milliseconds(200), onProgress: { _ in }))
        }

        // The client's default timeout.
        let impatient = try await Client.connect(to: server, options: .init(requestTimeout: .milliseconds(150)))
        await assertMcpError(.requestTimeout) { _ = try await impatient.callTool("hang") }
        await impatient.close()
        try await eventually { cancelled.value == 2 }
    }

    // MARK: Requests from the server

    func testSamplingElicitationAndRootsRoundTrips() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("ask") { args, ctx in
            let result = try await ctx.sample([
                "messages": [["role": "user", "content": ["type": "text", "text": args["q"] ?? ""]]],
                "maxTokens": 50,
            ])
            return .text("\(result["model"]?.stringValue ?? "?"): \(result["content"]?["text"]?.stringValue ?? "?")")
        }
        try server.registerTool("form") { _, ctx in
            let answer = try await ctx.elicit(message: "Your name?", requestedSchema: [
                "type": "object", "properties": ["name": ["type": "string"]], "required": ["name"],
            ])
            return .text("\(answer.action.rawValue) \(answer.content?["name"]?.stringValue ?? "-")")
        }
        try server.registerTool("roots") { _, ctx in
            .text(try await ctx.listRoots().map { "\($0.name ?? "") \($0.uri)" }.joined(separator: ","))
        }
        try server.registerTool("caps") { _, ctx in .init(structuredContent: ctx.clientCapabilities ?? .null) }

        let samplingParams = Locked<Value>(.null)
        let serverName = Locked<Value>(.null)
        let rootsAsked = Locked(0)
        let options = ClientOptions(
            sampling: { params, ctx in
                samplingParams.set(params)
                serverName.set(ctx.clientInfo?["name"] ?? .null)
                let q = params["messages"]?[0]?["content"]?["text"]?.stringValue ?? ""
                return ["role": "assistant", "content": ["type": "text", "text": .string(q.uppercased())],
                        "model": "echo-1", "stopReason": "endTurn"]
            },
            samplingTools: true,
            elicitation: { params, _ in
                XCTAssertEqual(params["message"], "Your name?")
                return ElicitResult(action: .accept, content: ["name": "Ada"])
            },
            elicitationURL: true,
            roots: {
                rootsAsked.withLock { $0 += 1 }
                return [Root(uri: "file:///work", name: "work"), Root(uri: "file:///tmp")]
            })
        let client = try await Client.connect(to: server, options: options)
        defer { Task { await client.close() } }

        let asked = try await client.callTool("ask", arguments: ["q": "hello"])
        XCTAssertEqual(asked.text, "echo-1: HELLO")
        XCTAssertEqual(samplingParams.value["maxTokens"], 50)
        XCTAssertEqual(serverName.value, "mem")
        let form = try await client.callTool("form")
        XCTAssertEqual(form.text, "accept Ada")
        let roots = try await client.callTool("roots")
        XCTAssertEqual(roots.text, "work file:///work, file:///tmp")
        XCTAssertGreaterThanOrEqual(rootsAsked.value, 1)
        try await client.notifyRootsListChanged()

        let capsResult = try await client.callTool("caps")
        let caps = try XCTUnwrap(capsResult.structuredContent)
        XCTAssertNotNil(caps["sampling"])
        XCTAssertNotNil(caps["sampling"]?["tools"])
        XCTAssertNotNil(caps["elicitation"]?["form"] ?? caps["elicitation"])
        XCTAssertNotNil(caps["elicitation"]?["url"])
        XCTAssertNotNil(caps["roots"])
    }

    func testCapabilitiesOnlyForGivenHandlers() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("caps") { _, ctx in .init(structuredContent: ctx.clientCapabilities ?? [:]) }
        try server.registerTool("ask") { _, ctx in
            do {
                _ = try await ctx.sample(["messages": [], "maxTokens": 1])
                return "sampled"
            } catch let e as McpError {
                return .text("refused \(e.code)")
            }
        }
        let bare = try await Client.connect(to: server)
        let caps = try await bare.callTool("caps").structuredContent ?? [:]
        XCTAssertNil(caps["sampling"])
        XCTAssertNil(caps["elicitation"])
        XCTAssertNil(caps["roots"])
        let refused = try await bare.callTool("ask")
        XCTAssertTrue(refused.text.hasPrefix("refused"), refused.text)
        await bare.close()

        let onlyRoots = try await Client.connect(to: server, options: .init(roots: { [] }))
        let caps2 = try await onlyRoots.callTool("caps").structuredContent ?? [:]
        XCTAssertNil(caps2["sampling"])
        XCTAssertNil(caps2["elicitation"])
        XCTAssertNotNil(caps2["roots"])
        await onlyRoots.close()
    }

    func testHandlerErrorsGoBackToTheServer() async throws {
        struct Oops: Error, CustomStringConvertible { var description: String { "oops happened" } }
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("ask") { args, ctx in
            do {
                _ = try await ctx.sample(["messages": [["role": "user", "content": ["type": "text", "text": args["q"] ?? ""]]],
                                          "maxTokens": 5])
                return "answered"
            } catch let e as McpError {
                return .text("\(e.code) \(e.message)")
            }
        }
        try server.registerTool("form") { _, ctx in
            do {
                _ = try await ctx.elicit(message: "?", requestedSchema: ["type": "object", "properties": [:]])
                return "answered"
            } catch let e as McpError {
                return .text("\(e.code) \(e.message)")
            }
        }
        let client = try await Client.connect(to: server, options: .init(
            sampling: { params, _ in
                if params["messages"]?[0]?["content"]?["text"] == "mcp" {
                    throw McpError(code: -32042, message: "user said no", data: ["why": "tired"])
                }
                throw Oops()
            },
            elicitation: { _, _ in throw McpError(.invalidParams, "bad form") }))
        defer { Task { await client.close() } }

        let no = try await client.callTool("ask", arguments: ["q": "mcp"])
        XCTAssertEqual(no.text, "-32042 user said no")
        let other = try await client.callTool("ask", arguments: ["q": "other"]).text
        XCTAssertTrue(other.hasPrefix("\(McpError.Code.internalError.rawValue) "), other)
        XCTAssertTrue(other.contains("oops happened"), other)
        let form = try await client.callTool("form")
        XCTAssertEqual(form.text, "\(McpError.Code.invalidParams.rawValue) bad form")
    }

    // MARK: Closing

    func testCloseFinishesNotificationsAndFailsLaterRequests() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerTool("noop") { _, _ in "ok" }
        let client = try await Client.connect(to: server)
        let seen = NotificationLog(client)
        await client.close()
        try await eventually { seen.finished }
        do {
            _ = try await client.callTool("noop")
            XCTFail("a closed client must not answer")
        } catch let e as McpError {
            XCTAssertTrue(e.isTransportError, "\(e)")
        }
        await client.close()   // idempotent
    }

    func testCloseFailsPendingRequests() async throws {
        let server = try Server(name: "mem", version: "1")
        let started = Locked(false)
        try server.registerTool("hang") { _, ctx in
            started.set(true)
            await ctx.cancelled()
            return "never"
        }
        let client = try await Client.connect(to: server)
        let call = Task { try await client.callTool("hang") }
        try await eventually { started.value }
        await client.close()
        do {
            _ = try await call.value
            XCTFail("closing must end pending calls")
        } catch let e as McpError {
            XCTAssertTrue(e.isTransportError, "\(e)")
        }
    }
}

// MARK: - Helpers shared by the Client*Tests files

/// A value behind a lock, for state shared with handlers running on other threads.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T

    init(_ value: T) { stored = value }

    var value: T { lock.lock(); defer { lock.unlock() }; return stored }

    func set(_ value: T) { withLock { $0 = value } }

    @discardableResult
    func withLock<R>(_ body: (inout T) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

/// Reads a client's notification stream in the background and keeps what arrived.
final class NotificationLog: Sendable {
    private let state = Locked<(items: [ServerNotification], finished: Bool)>(([], false))

    init(_ client: Client) {
        let stream = client.notifications
        Task { [state] in
            for await n in stream { state.withLock { $0.items.append(n) } }
            state.withLock { $0.finished = true }
        }
    }

    /// Everything received so far.
    var all: [ServerNotification] { state.value.items }
    /// Whether the stream has finished.
    var finished: Bool { state.value.finished }

    /// Waits for the first notification `matching`.
    @discardableResult
    func wait(timeout: Duration = .seconds(10),
              _ matching: @escaping @Sendable (ServerNotification) -> Bool) async throws -> ServerNotification {
        try await eventually(timeout: timeout, "a notification") { self.all.contains(where: matching) }
        return all.first(where: matching)!
    }

    /// Waits for the first notification with `method`.
    @discardableResult
    func wait(for method: String, timeout: Duration = .seconds(10)) async throws -> ServerNotification {
        try await wait(timeout: timeout) { $0.method == method }
    }

    /// Waits until `count` notifications with `method` arrived.
    func wait(count: Int, of method: String, timeout: Duration = .seconds(10)) async throws {
        try await eventually(timeout: timeout, "\(count) × \(method)") {
            self.all.filter { $0.method == method }.count >= count
        }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` until it holds; throws `TimedOut` after `timeout`.
func eventually(timeout: Duration = .seconds(10), _ what: String = "a condition",
                _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        if ContinuousClock.now > deadline { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Asserts that `body` throws `McpError` with `code`.
func assertMcpError(_ code: McpError.Code, file: StaticString = #filePath, line: UInt = #line,
                    _ body: () async throws -> Void) async {
    do {
        try await body()
        XCTFail("expected McpError \(code.rawValue), got success", file: file, line: line)
    } catch let e as McpError {
        XCTAssertEqual(e.code, code.rawValue, "\(e)", file: file, line: line)
    } catch {
        XCTFail("expected McpError \(code.rawValue), got \(error)", file: file, line: line)
    }
}

/// Asserts that `body` throws `CancellationError`.
func XCTAssertThrowsCancellation(file: StaticString = #filePath, line: UInt = #line,
                                 _ body: () async throws -> Void) async {
    do {
        try await body()
        XCTFail("expected CancellationError, got success", file: file, line: line)
    } catch is CancellationError {
    } catch {
        XCTFail("expected CancellationError, got \(error)", file: file, line: line)
    }
}
