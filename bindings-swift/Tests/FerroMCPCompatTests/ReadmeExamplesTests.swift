// The swift-sdk README's examples with `import FerroMCPCompat`: its client examples against a
// ferromcp server (FerroMCP's own API, over Streamable HTTP), its in-process server examples
// against the engine's client (through this module's Client on an InMemoryTransport), checked
// by what they print and answer.

import FerroMCPCompat
import Foundation
import XCTest

final class ReadmeExamplesTests: XCTestCase {
    override func setUp() {
        _ = printed.take()
    }

    func testReadmeClientExamplesRunAgainstAFerromcpServer() async throws {
        let server = try await ClientExamplesServer.start()
        // Example 3's client, connected with example 5's transport (at this server's URL).
        let client = Client(name: "MyApp", version: "1.0.0")
        let transport = HTTPClientTransport(endpoint: URL(string: server.url)!, streaming: true)
        let result = try await client.connect(transport: transport)
        XCTAssertEqual(result.serverInfo.name, "examples")
        XCTAssertNotNil(result.capabilities.tools)

        // Example 6's call (its content switch does not compile against the swift-sdk either).
        let (content, isError) = try await client.callTool(
            name: "image-generator",
            arguments: ["prompt": "A serene mountain landscape at sunset", "style": "photorealistic",
                        "width": 1024, "height": 768])
        XCTAssertEqual(isError, nil)
        XCTAssertEqual(content, [.text(text: "Generated 1024px: A serene mountain landscape at sunset",
                                       annotations: nil, _meta: nil)])

        try await readmeClientExample7(client: client, result: result)
        XCTAssertEqual(printed.all.first, "Available resources: resource://example")
        XCTAssertEqual(printed.all.dropFirst().first?.hasPrefix("Resource content: "), true)
        XCTAssertEqual(result.capabilities.resources?.subscribe, true)
        server.touchExample()
        let updated = await printed.waitFor { $0 == "Updated resource content received" }
        XCTAssertTrue(updated, "\(printed.all)")
        XCTAssertTrue(printed.all.contains("Resource resource://example updated with new content"))
        _ = printed.take()

        try await readmeClientExample8(client: client)
        XCTAssertEqual(printed.take(), [
            "Available prompts: customer-service, code_review",
            "Prompt description: Optional(\"Customer service for Alice\")",
            "user: ORD-12345: delivery delay",
        ])

        try await readmeClientExample9(client: client)
        XCTAssertEqual(printed.take(), ["Suggestion: python"])
        try await readmeClientExample11(client: client)
        let paths = try await client.complete(resourceURI: "file:///{path}", argumentName: "path", argumentValue: "/usr/")
        XCTAssertEqual(paths.values, ["/usr/bin", "/usr/lib", "/usr/local"])

        // Example 15: at warning, an info message is not sent, a warning is.
        try await readmeClientExample15(client: client)
        await server.log("info", "quiet")
        await server.log("warning", "loud")
        let loud = await printed.waitFor { $0.hasPrefix("⚠️ [examples] ") && $0.contains("loud") }
        XCTAssertTrue(loud, "\(printed.all)")
        XCTAssertFalse(printed.all.contains { $0.contains("quiet") }, "\(printed.all)")
        _ = printed.take()

        // Example 19: the server's progress reaches the handler with the caller's token.
        try await readmeClientExample19(client: client)
        let done = await printed.waitFor { $0 == "Status: all" }
        XCTAssertTrue(done, "\(printed.all)")
        XCTAssertEqual(printed.take(), ["Progress: 1.0/2.0", "Status: half", "Progress: 2.0/2.0", "Status: all"])

        // Example 16: a connection that fails is an MCPError.
        let unreachable = HTTPClientTransport(endpoint: URL(string: "http://127.0.0.1:9/mcp")!)
        await readmeClientExample16(client: Client(name: "MyApp", version: "1.0.0"), transport: unreachable)
        XCTAssertEqual(printed.all.count, 1)
        XCTAssertEqual(printed.take().first?.hasPrefix("MCP Error: Transport error: "), true)

        // Example 20: clients that are not connected throw MCPError, strict or not.
        try await readmeClientExample20()
        XCTAssertEqual(printed.take(), [
            "Capability not available: Internal error: Client connection not initialized",
            "Server rejected request: Internal error: Client connection not initialized",
        ])

        await client.disconnect()
        await server.close()
    }

    /// Examples 12 and 14: the server's sampling and roots requests reach the handlers.
    func testReadmeSamplingAndRootsClientExamplesAnswerTheServer() async throws {
        let server = try await ClientExamplesServer.start()
        let transport = HTTPClientTransport(endpoint: URL(string: server.url)!)

        let client = Client(name: "MyApp", version: "1.0.0")
        await readmeClientExample12(client: client)
        try await client.connect(transport: transport)
        let (asked, _) = try await client.callTool(name: "ask-model", arguments: ["question": "Summarize the data"])
        XCTAssertEqual(asked, [.text(text: "your-model-name said: Summarize the data (max 50, temperature 0.5)",
                                     annotations: nil, _meta: nil)])
        XCTAssertTrue(printed.all.contains("System prompt: Be brief"), "\(printed.all)")
        XCTAssertTrue(printed.all.contains("LLM generated: Summarize the data (max 50, temperature 0.5)"), "\(printed.all)")
        await client.disconnect()

        let rooted = await readmeClientExample14Setup()
        try await rooted.connect(transport: HTTPClientTransport(endpoint: URL(string: server.url)!))
        try await readmeClientExample14Notify(client: rooted)
        let (roots, _) = try await rooted.callTool(name: "list-roots")
        XCTAssertEqual(roots, [.text(text: "Projects=file:///Users/user/projects, Documents=file:///Users/user/documents",
                                     annotations: nil, _meta: nil)])
        await rooted.disconnect()
        await server.close()
    }

    /// Example 18 (with the `await` it needs): the cancelled request's value throws
    /// CancellationError and the server's handler is cancelled; batches send each request.
    func testSendCancelRequestAndBatchesReachTheServer() async throws {
        let server = try await ClientExamplesServer.start()
        let client = Client(name: "MyApp", version: "1.0.0")
        try await client.connect(transport: HTTPClientTransport(endpoint: URL(string: server.url)!))
        let started = Date()
        do {
            try await readmeClientExample18(client: client, largeDataset: "rows")
            XCTFail("the cancelled request answered")
        } catch is CancellationError {
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the request was not cancelled")
        }
        var seen = 0
        for _ in 0..<500 where seen == 0 {
            seen = server.cancelledCalls()
            if seen == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        XCTAssertEqual(seen, 1, "the server's handler saw the cancellation")
        do {
            try await client.cancelRequest("never-sent")
            XCTFail("cancelling an unknown id succeeded")
        } catch let e as MCPError {
            XCTAssertEqual(e.code, -32602)
        }

        // A batch in the swift-sdk's shape (its README's batch examples mutate a captured var in
        // the @Sendable closure, which Swift 6 refuses; this one collects through an actor).
        let tasks = TaskList()
        try await client.withBatch { batch in
            await tasks.add(try await batch.addRequest(CallTool.request(.init(name: "image-generator",
                                                                              arguments: ["prompt": "a", "width": 1]))))
            await tasks.add(try await batch.addRequest(CallTool.request(.init(name: "image-generator",
                                                                              arguments: ["prompt": "b", "width": 2]))))
        }
        var texts: [String] = []
        for task in await tasks.all {
            let result = try await task.value
            if case .text(let text, _, _)? = result.content.first { texts.append(text) }
        }
        XCTAssertEqual(texts, ["Generated 1px: a", "Generated 2px: b"])
        let ping = try await client.send(Ping.request())
        _ = try await ping.value
        await client.disconnect()
        await server.close()
    }

    /// The swift-sdk's `callTool` overload that returns a `RequestContext` (example 17 uses it):
    /// its value is the whole result, structured content and `_meta` included, and its
    /// `requestID` cancels the call; the tuple overload stays the one chosen without a type.
    func testCallToolReturningARequestContextGivesTheWholeResultAndCancels() async throws {
        let server = try await ClientExamplesServer.start()
        let client = Client(name: "MyApp", version: "1.0.0")
        try await client.connect(transport: HTTPClientTransport(endpoint: URL(string: server.url)!))

        let context: RequestContext<CallTool.Result> = try await client.callTool(
            name: "weather", arguments: ["city": "Rome"])
        let result = try await context.value
        XCTAssertEqual(result.content, [.text(text: "Rome: 21.5", annotations: nil, _meta: nil)])
        XCTAssertEqual(result.structuredContent, ["city": "Rome", "temperature": 21.5])
        XCTAssertEqual(result._meta?.fields["source"], "test")
        let (content, isError) = try await client.callTool(name: "weather", arguments: ["city": "Oslo"])
        XCTAssertEqual(content, [.text(text: "Oslo: 21.5", annotations: nil, _meta: nil)])
        XCTAssertNil(isError)

        let started = Date()
        let slow: RequestContext<CallTool.Result> = try await client.callTool(name: "long-running-analysis")
        try await client.cancelRequest(slow.requestID, reason: "Timeout")
        do {
            _ = try await slow.value
            XCTFail("the cancelled call answered")
        } catch is CancellationError {
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the call was not cancelled")
        }
        await client.disconnect()
        await server.close()
    }

    /// Example 27's completion handler answers for the prompts and templates the server lists
    /// (the engine refuses a reference to one it does not know before any handler runs).
    func testReadmeCompletionServerExampleAnswersTheEnginesClient() async throws {
        let server = try await readmeServerExample27()
        await server.withMethodHandler(ListPrompts.self) { _ in
            .init(prompts: [Prompt(name: "code_review", arguments: [.init(name: "language")])])
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            .init(templates: [Resource.Template(uriTemplate: "file:///{path}", name: "files")])
        }
        await server.withMethodHandler(ReadResource.self) { params in
            .init(contents: [.text("a file", uri: params.uri)])
        }
        let client = try await connect(server)
        let languages = try await client.complete(promptName: "code_review", argumentName: "language", argumentValue: "p")
        XCTAssertEqual(languages.values, ["python", "perl", "php"])
        let paths = try await client.complete(resourceURI: "file:///{path}", argumentName: "path", argumentValue: "/usr/l")
        XCTAssertEqual(paths.values, ["/usr/lib", "/usr/local"])
        let none = try await client.complete(promptName: "code_review", argumentName: "style", argumentValue: "")
        XCTAssertEqual(none.values, [])
        do {
            _ = try await client.complete(promptName: "other", argumentName: "x", argumentValue: "")
            XCTFail("completing an unknown prompt's argument succeeded")
        } catch let e as MCPError {
            XCTAssertEqual(e, .invalidParams("Unknown prompt: other"))
        }
        await client.disconnect()
    }

    /// Examples 33 and 34: log messages reach a connected client at its level.
    func testReadmeLoggingServerExamplesSendLogMessages() async throws {
        let server = try await readmeServerExample33()   // logs before any client: sent to no one
        await readmeServerExample34(server: server)
        let client = try await connect(server)
        let received = PrintLog()
        await client.onNotification(LogMessageNotification.self) { message in
            received.record("\(message.params.level.rawValue) \(message.params.logger ?? "-") \(message.params.data)")
        }
        try await client.setLoggingLevel(.error)
        try await server.log(level: .warning, logger: "database", data: ["message": "not sent"])
        try await server.log(level: .error, logger: "api", data: ["message": "sent"])
        let got = await received.waitFor { $0.hasPrefix("error api") }
        XCTAssertTrue(got, "\(received.all)")
        XCTAssertEqual(received.all, [#"error api {"message":"sent"}"#])
        // Example 34's SetLoggingLevel handler is not called: the engine keeps each session's level.
        XCTAssertEqual(storedLogLevels.all, [])
        await client.disconnect()
    }

    /// Example 35: progress sent with `server.notify` inside the tool call reaches the caller.
    func testReadmeProgressServerExampleReportsProgress() async throws {
        let server = Server(name: "progress", version: "1.0.0", capabilities: .init(tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [Tool(name: "long-running-tool", description: "Reports progress", inputSchema: .object([:]))])
        }
        await readmeServerExample35(server: server)
        let client = try await connect(server)
        let progress = PrintLog()
        let token = ProgressToken.unique()
        await client.onNotification(ProgressNotification.self) { message in
            let p = message.params
            progress.record("\(p.progressToken == token) \(p.progress)/\(p.total ?? -1) \(p.message ?? "-")")
        }
        let (content, isError) = try await client.callTool(name: "long-running-tool", arguments: [:],
                                                           meta: Metadata(progressToken: token))
        XCTAssertEqual(content, [.text("Done")])
        XCTAssertNotEqual(isError, true)   // the engine leaves out `isError: false`
        let all = await progress.waitFor { $0.contains("Complete") }
        XCTAssertTrue(all, "\(progress.all)")
        XCTAssertEqual(progress.all, ["true 0.0/100.0 -", "true 50.0/100.0 Halfway there", "true 100.0/100.0 Complete"])
        // Without a token the example answers at once.
        let quick = try await client.callTool(name: "long-running-tool")
        XCTAssertEqual(quick.content, [.text("Done")])
        await client.disconnect()
    }

    private func connect(_ server: Server) async throws -> Client {
        let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverEnd)
        let client = Client(name: "tests", version: "1.0.0")
        try await client.connect(transport: clientEnd)
        return client
    }
}

/// Tasks collected from a @Sendable closure.
actor TaskList {
    private(set) var all: [Task<CallTool.Result, Swift.Error>] = []
    func add(_ task: Task<CallTool.Result, Swift.Error>) { all.append(task) }
}
