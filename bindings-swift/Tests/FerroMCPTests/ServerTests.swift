// ServerTests: the Server facade against the real engine, through an in-memory Client: tools
// (every kind of answer, Decodable arguments, structured output, the error rules in both eras,
// which the engine decides), resources, templates, prompts, completions, and configuration errors.

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

private struct Add: Codable, Sendable {
    let a: Int
    let b: Int
}

private struct Point: Decodable, Sendable {
    let x: Int
    let y: Int
}

private struct Forecast: Codable, Sendable, Equatable {
    let city: String
    let celsius: Double
    let tags: [String]
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "the widget exploded" }
}

/// An output whose encoding fails.
private struct Unencodable: Encodable, Sendable {
    func encode(to encoder: Encoder) throws { throw Boom() }
}

private let addSchema: Value = [
    "type": "object",
    "properties": ["a": ["type": "integer"], "b": ["type": "integer"]],
    "required": ["a", "b"],
]

final class ServerTests: XCTestCase {
    private func connect(_ server: Server) async throws -> Client {
        try await Client.connect(to: server)
    }

    // MARK: Tools

    func testToolAnswersTextAndIsListedWithItsDefinition() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool(
            "echo", title: "Echo", description: "Says it back",
            inputSchema: ["type": "object", "properties": ["text": ["type": "string"]]],
            annotations: ToolAnnotations(readOnlyHint: true, openWorldHint: false),
            meta: ["team": "core"]
        ) { args, _ in
            .text("echo: \(args["text"]?.stringValue ?? "")")
        }
        try server.registerTool("literal") { _, _ in "from a literal" }
        let client = try await connect(server)

        let result = try await client.callTool("echo", arguments: ["text": "hi"])
        XCTAssertFalse(result.isError)
        XCTAssertEqual(result.content, [.text("echo: hi")])
        let literal = try await client.callTool("literal")
        XCTAssertEqual(literal.text, "from a literal")

        let tools = try await client.listAllTools()
        let echo = try XCTUnwrap(tools.first { $0.name == "echo" })
        XCTAssertEqual(echo.title, "Echo")
        XCTAssertEqual(echo.description, "Says it back")
        XCTAssertEqual(echo.inputSchema["properties"]?["text"]?["type"], "string")
        XCTAssertEqual(echo.annotations?.readOnlyHint, true)
        XCTAssertEqual(echo.annotations?.openWorldHint, false)
        XCTAssertNil(echo.annotations?.destructiveHint)
        XCTAssertEqual(echo.meta, ["team": "core"])
        XCTAssertEqual(tools.first { $0.name == "literal" }?.inputSchema, ["type": "object"])
        await client.close()
    }

    func testToolAnswersContentBlocksImageAndMeta() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        try server.registerTool("blocks") { _, _ in
            ToolResult(content: [
                .text("a picture:"),
                .image(data: png, mimeType: "image/png"),
                .resource(.text("inside", uri: "mem://inside", mimeType: "text/plain")),
                .resourceLink(uri: "mem://elsewhere", name: "elsewhere", mimeType: "text/plain"),
            ], meta: ["elapsed": 3])
        }
        try server.registerTool("image") { _, _ in ToolResult(.image(data: png, mimeType: "image/png")) }
        let client = try await connect(server)

        let result = try await client.callTool("blocks")
        XCTAssertEqual(result.content.count, 4)
        XCTAssertEqual(result.content[0], .text("a picture:"))
        XCTAssertEqual(result.content[1], .image(data: png, mimeType: "image/png"))
        XCTAssertEqual(result.content[2], .resource(.text("inside", uri: "mem://inside", mimeType: "text/plain")))
        XCTAssertEqual(result.content[3], .resourceLink(uri: "mem://elsewhere", name: "elsewhere", mimeType: "text/plain"))
        XCTAssertEqual(result.meta, ["elapsed": 3])
        XCTAssertEqual(result.raw["content"]?[1]?["data"], .string(png.base64EncodedString()))

        let image = try await client.callTool("image")
        XCTAssertEqual(image.content, [.image(data: png, mimeType: "image/png")])
        await client.close()
    }

    /// Each block's `_meta` and a prompt result's `_meta` reach the client (also for one plain
    /// text block, which the engine is otherwise handed without JSON).
    func testBlockAndPromptMetaReachTheClient() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        try server.registerTool("one") { _, _ in ToolResult(.text("hi", meta: ["k": 1])) }
        try server.registerTool("blocks") { _, _ in
            ToolResult(content: [
                .image(data: png, mimeType: "image/png", meta: ["k": 2]),
                .audio(data: png, mimeType: "audio/wav", annotations: ["priority": 0.5], meta: ["k": 3]),
                .resource(.text("inside", uri: "mem://inside"), meta: ["k": 4]),
            ])
        }
        try server.registerPrompt("p") { _, _ in
            PromptResult(messages: [.user(.text("hello", meta: ["k": 5]))], meta: ["k": 6])
        }
        let client = try await connect(server)

        let one = try await client.callTool("one")
        XCTAssertEqual(one.content, [.text("hi", meta: ["k": 1])])
        XCTAssertEqual(one.raw["content"]?[0]?["_meta"], ["k": 1])
        let blocks = try await client.callTool("blocks")
        XCTAssertEqual(blocks.content, [
            .image(data: png, mimeType: "image/png", meta: ["k": 2]),
            .audio(data: png, mimeType: "audio/wav", annotations: ["priority": 0.5], meta: ["k": 3]),
            .resource(.text("inside", uri: "mem://inside"), meta: ["k": 4]),
        ])
        let prompt = try await client.getPrompt("p")
        XCTAssertEqual(prompt.messages.first?.content, .text("hello", meta: ["k": 5]))
        XCTAssertEqual(prompt.meta, ["k": 6])
        await client.close()
    }

    func testCodableArgumentsAreDecoded() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool("add", inputSchema: addSchema, arguments: Add.self) { args, _ in
            .text("\(args.a + args.b)")
        }
        let client = try await connect(server)
        let fromValue = try await client.callTool("add", arguments: ["a": 2, "b": 40])
        XCTAssertEqual(fromValue.text, "42")
        let fromEncodable = try await client.callTool("add", arguments: Add(a: -1, b: 1))
        XCTAssertEqual(fromEncodable.text, "0")
        await client.close()
    }

    func testArgumentsThatDoNotDecodeAreToolErrorsNamingTheProblem() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        let ran = T.Box(false)
        // The schema lets anything through: decoding is what fails.
        try server.registerTool("point", arguments: Point.self) { p, _ in
            ran.update { $0 = true }
            return .text("\(p.x),\(p.y)")
        }
        let client = try await connect(server)

        // Arguments that do not decode are a tool execution error (SEP-1303), worded as the
        // engine words its schema failures.
        let missing = try await client.callTool("point", arguments: ["x": 1])
        XCTAssertTrue(missing.isError)
        XCTAssertEqual(missing.text, "Invalid arguments of tool \"point\":\n- missing required property \"y\"")

        let wrongType = try await client.callTool("point", arguments: ["x": 1, "y": "two"])
        XCTAssertTrue(wrongType.isError)
        XCTAssertTrue(wrongType.text.hasPrefix("Invalid arguments of tool \"point\":\n- /y: expected Int"),
                      wrongType.text)
        XCTAssertFalse(ran.value, "the handler must not run with arguments that do not decode")
        let good = try await client.callTool("point", arguments: ["x": 1, "y": 2])
        XCTAssertEqual(good.text, "1,2")
        await client.close()
    }

    func testSchemaInvalidArgumentsAreToolErrors() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool("add", inputSchema: addSchema, arguments: Add.self) { args, _ in
            .text("\(args.a + args.b)")
        }
        let client = try await connect(server)
        // SEP-1303: the engine's schema check answers with an isError result the model can read.
        let r = try await client.callTool("add", arguments: ["a": "one", "b": 2])
        XCTAssertTrue(r.isError)
        XCTAssertTrue(r.text.hasPrefix(#"Invalid arguments of tool "add":"#), r.text)
        XCTAssertTrue(r.text.contains("\n- /a: "), r.text)
        await client.close()
    }

    func testStructuredOutputBecomesStructuredContentAndText() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        let outputSchema: Value = [
            "type": "object",
            "properties": [
                "city": ["type": "string"], "celsius": ["type": "number"],
                "tags": ["type": "array", "items": ["type": "string"]],
            ],
            "required": ["city", "celsius", "tags"],
        ]
        try server.registerTool(
            "forecast", inputSchema: ["type": "object", "properties": ["city": ["type": "string"]]],
            arguments: Value.self, outputSchema: outputSchema
        ) { args, _ -> Forecast in
            Forecast(city: args["city"]?.stringValue ?? "?", celsius: 21.5, tags: ["sunny"])
        }
        // An answer that does not match the outputSchema is the server's error, not the model's.
        try server.registerTool("broken", arguments: Value.self, outputSchema: outputSchema) { _, _ -> Add in
            Add(a: 1, b: 2)
        }
        let client = try await connect(server)

        let result = try await client.callTool("forecast", arguments: ["city": "Oslo"])
        let expected = Forecast(city: "Oslo", celsius: 21.5, tags: ["sunny"])
        XCTAssertEqual(result.structuredContent, ["city": "Oslo", "celsius": 21.5, "tags": ["sunny"]])
        XCTAssertEqual(try result.decode(Forecast.self), expected)
        XCTAssertEqual(try Value(json: result.text), result.structuredContent)
        let listed = try await client.listAllTools()
        XCTAssertEqual(listed.first { $0.name == "forecast" }?.outputSchema, outputSchema)

        let e = await T.mcpError { try await client.callTool("broken") }
        XCTAssertEqual(e?.code, McpError.Code.internalError.rawValue)

        // An output that has a `content` list of its own is still the structured content.
        let article: Value = ["title": "T", "content": ["p1", "p2"]]
        let articleSchema: Value = ["type": "object", "required": ["title", "content"]]
        try server.registerTool("article", arguments: Value.self, outputSchema: articleSchema) { _, _ in article }
        let a = try await client.callTool("article")
        XCTAssertFalse(a.isError)
        XCTAssertEqual(a.structuredContent, article)
        XCTAssertEqual(try Value(json: a.text), article)
        await client.close()
    }

    func testThrowingToolAnswersIsErrorWithTheMessage() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool("boom") { _, _ in throw Boom() }
        try server.registerTool("refuse") { _, _ in throw McpError(.invalidParams, "no such widget") }
        try server.registerTool("typed", arguments: Add.self) { _, _ in throw Boom() }
        let client = try await connect(server)

        let boom = try await client.callTool("boom")
        XCTAssertTrue(boom.isError)
        XCTAssertEqual(boom.text, "the widget exploded")
        let refuse = try await client.callTool("refuse")
        XCTAssertTrue(refuse.isError)
        XCTAssertEqual(refuse.text, "no such widget")
        let typed = try await client.callTool("typed", arguments: ["a": 1, "b": 2])
        XCTAssertTrue(typed.isError)
        XCTAssertEqual(typed.text, "the widget exploded")
        await client.close()
    }

    func testUrlElicitationRequiredStaysAJsonRpcErrorInBothEras() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        let data: Value = ["elicitations": [[
            "mode": "url", "elicitationId": "e1", "url": "https://example.com/auth", "message": "Sign in",
        ]]]
        try server.registerTool("needs-auth") { _, _ in
            throw McpError(.urlElicitationRequired, "authorization needed", data: data)
        }
        for version in [nil, "2026-07-28"] {
            let client = try await Client.connect(to: server, options: ClientOptions(protocolVersion: version))
            let e = await T.mcpError { try await client.callTool("needs-auth") }
            XCTAssertEqual(e?.code, McpError.Code.urlElicitationRequired.rawValue, "\(client.protocolVersion)")
            XCTAssertEqual(e?.message, "authorization needed")
            XCTAssertEqual(e?.data, data)
            await client.close()
        }
    }

    /// The engine, not the facade, shapes a tool's failure: an `McpError`'s `data.reason` is
    /// appended to its `isError` text, as for Node and Python tools.
    func testTheEngineShapesAToolsMcpErrorWithItsReason() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool("refuse") { _, _ in
            throw McpError(.invalidParams, "no such widget", data: ["reason": "widget 7 was removed"])
        }
        for version in [nil, "2026-07-28"] {
            let client = try await Client.connect(to: server, options: ClientOptions(protocolVersion: version))
            let r = try await client.callTool("refuse")
            XCTAssertTrue(r.isError, "\(client.protocolVersion)")
            XCTAssertEqual(r.text, "no such widget (widget 7 was removed)", "\(client.protocolVersion)")
            await client.close()
        }
    }

    /// A client without the capability a tool asks for: in the handshake era an `isError` naming
    /// it (a 2025 client knows no -32021); under 2026-07-28 the -32021 JSON-RPC error the spec
    /// asks for. The same whether the tool lets the engine's error through or throws its own.
    func testAMissingClientCapabilityIsAnIsErrorThenAJsonRpcErrorUnder2026() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool("roots") { _, ctx in
            _ = try await ctx.listRoots()
            return "unreachable"
        }
        try server.registerTool("own") { _, _ in
            throw McpError(.missingRequiredClientCapability, "this tool needs sampling",
                           data: ["requiredCapabilities": ["sampling": [:]]])
        }
        let old = try await Client.connect(to: server)
        XCTAssertNotEqual(old.protocolVersion, "2026-07-28")
        let roots = try await old.callTool("roots")
        XCTAssertTrue(roots.isError)
        XCTAssertTrue(roots.text.contains("roots"), roots.text)
        let own = try await old.callTool("own")
        XCTAssertTrue(own.isError)
        XCTAssertEqual(own.text, "this tool needs sampling")
        await old.close()

        let new = try await Client.connect(to: server, options: ClientOptions(protocolVersion: "2026-07-28"))
        XCTAssertEqual(new.protocolVersion, "2026-07-28")
        let e = await T.mcpError { try await new.callTool("roots") }
        XCTAssertEqual(e?.code, McpError.Code.missingRequiredClientCapability.rawValue)
        XCTAssertNotNil(e?.data?["requiredCapabilities"]?["roots"], "\(String(describing: e?.data))")
        let e2 = await T.mcpError { try await new.callTool("own") }
        XCTAssertEqual(e2?.code, McpError.Code.missingRequiredClientCapability.rawValue)
        XCTAssertEqual(e2?.data?["requiredCapabilities"], ["sampling": [:]])
        await new.close()
    }

    /// An output the tool cannot encode is its failure like any other: an `isError` saying so.
    func testAnOutputThatCannotBeEncodedIsAToolError() async throws {
        let server = try Server(name: "tools", version: "1.0.0")
        try server.registerTool("unencodable", arguments: Value.self, outputSchema: ["type": "object"]) { _, _ in
            Unencodable()
        }
        let client = try await connect(server)
        let r = try await client.callTool("unencodable")
        XCTAssertTrue(r.isError)
        XCTAssertTrue(r.text.hasPrefix("tool \"unencodable\": cannot encode its output"), r.text)
        await client.close()
    }

    func testToolsCanBeRemovedAndReplaced() async throws {
        let server = try Server(name: "tools", version: "1.0.0", options: ServerOptions(enableTools: true))
        let client = try await connect(server)
        let none = try await client.listAllTools()
        XCTAssertEqual(none.count, 0)
        try server.registerTool("v") { _, _ in "one" }
        let one = try await client.callTool("v")
        XCTAssertEqual(one.text, "one")
        try server.registerTool("v") { _, _ in "two" }
        let two = try await client.callTool("v")
        XCTAssertEqual(two.text, "two")
        XCTAssertTrue(server.removeTool("v"))
        XCTAssertFalse(server.removeTool("v"))
        let e = await T.mcpError { try await client.callTool("v") }
        XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue)
        await client.close()
    }

    func testABadSchemaIsRejectedAtRegistration() throws {
        let server = try Server(name: "tools", version: "1.0.0")
        XCTAssertThrowsError(try server.registerTool("bad", inputSchema: ["type": 5]) { _, _ in "" }) {
            XCTAssertEqual(($0 as? McpError)?.code, McpError.Code.invalidParams.rawValue, "\($0)")
        }
    }

    // MARK: Resources

    func testStaticResourceTemplateVariablesAndBlobs() async throws {
        let server = try Server(name: "resources", version: "1.0.0")
        try server.registerResource("mem://readme", name: "readme", title: "Read me",
                                    description: "The introduction", mimeType: "text/markdown") { uri, _ in
            .text("# \(uri)")
        }
        try server.registerResourceTemplate("mem://users/{id}/avatar", name: "avatar",
                                            mimeType: "image/png") { uri, vars, _ in
            .data(Data((vars["id"] ?? "").utf8))
        }
        try server.registerResourceTemplate("mem://raw/{name}", name: "raw") { _, vars, _ in
            .data(Data([0, 1, 2, UInt8(vars["name"]?.count ?? 0)]))
        }
        try server.registerResourceTemplate("mem://pair/{a}/{b}", name: "pair") { uri, vars, _ in
            .contents([
                .text("a=\(vars["a"] ?? "")", uri: "\(uri)#a", mimeType: "text/plain"),
                .blob(Data((vars["b"] ?? "").utf8), uri: "\(uri)#b", mimeType: "application/x-b"),
                .text("no uri"),
            ])
        }
        let client = try await connect(server)

        let readme = try await client.readResource("mem://readme")
        XCTAssertEqual(readme, [.text("# mem://readme", uri: "mem://readme", mimeType: "text/markdown")])
        let avatar = try await client.readResource("mem://users/ann/avatar")
        XCTAssertEqual(avatar, [.blob(Data("ann".utf8), uri: "mem://users/ann/avatar", mimeType: "image/png")])
        let raw = try await client.readResource("mem://raw/xyz")
        XCTAssertEqual(raw, [.blob(Data([0, 1, 2, 3]), uri: "mem://raw/xyz", mimeType: "application/octet-stream")])
        let pair = try await client.readResource("mem://pair/1/2")
        XCTAssertEqual(pair, [
            .text("a=1", uri: "mem://pair/1/2#a", mimeType: "text/plain"),
            .blob(Data("2".utf8), uri: "mem://pair/1/2#b", mimeType: "application/x-b"),
            .text("no uri", uri: "mem://pair/1/2"),
        ])

        let resources = try await client.listAllResources()
        XCTAssertEqual(resources.map(\.uri), ["mem://readme"])
        XCTAssertEqual(resources.first?.title, "Read me")
        XCTAssertEqual(resources.first?.description, "The introduction")
        let templates = try await client.listAllResourceTemplates()
        XCTAssertEqual(Set(templates.map(\.uriTemplate)), ["mem://users/{id}/avatar", "mem://raw/{name}", "mem://pair/{a}/{b}"])

        XCTAssertTrue(server.removeResource("mem://readme"))
        let gone = await T.mcpError { try await client.readResource("mem://readme") }
        XCTAssertEqual(gone?.code, McpError.Code.resourceNotFound.rawValue)
        await client.close()
    }

    func testResourceHandlerErrors() async throws {
        let server = try Server(name: "resources", version: "1.0.0")
        try server.registerResourceTemplate("mem://docs/{name}", name: "docs") { uri, vars, _ in
            if vars["name"] == "missing" {
                throw McpError(.resourceNotFound, "no document \(uri)", data: ["uri": .string(uri)])
            }
            throw Boom()
        }
        let client = try await connect(server)
        let missing = await T.mcpError { try await client.readResource("mem://docs/missing") }
        XCTAssertEqual(missing?.code, McpError.Code.resourceNotFound.rawValue)
        XCTAssertEqual(missing?.message, "no document mem://docs/missing")
        XCTAssertEqual(missing?.data, ["uri": "mem://docs/missing"])
        let boom = await T.mcpError { try await client.readResource("mem://docs/other") }
        XCTAssertEqual(boom?.code, McpError.Code.internalError.rawValue)
        XCTAssertTrue(boom?.message.contains("the widget exploded") ?? false, boom?.message ?? "")
        await client.close()
    }

    func testResourceUpdatesReachSubscribers() async throws {
        let server = try Server(name: "resources", version: "1.0.0")
        try server.registerResource("mem://counter", name: "counter") { _, _ in "1" }
        let client = try await connect(server)
        try await client.subscribe("mem://counter")
        server.notifyResourceUpdated("mem://counter")
        let n = try await T.notification(client, ServerNotification.Method.resourceUpdated)
        XCTAssertEqual(n.params?["uri"], "mem://counter")
        await client.close()
    }

    // MARK: Prompts

    func testPromptsRenderWithTheirArguments() async throws {
        let server = try Server(name: "prompts", version: "1.0.0")
        try server.registerPrompt(
            "greet", title: "Greeting", description: "Greets someone",
            arguments: [PromptArgument("name", description: "Who", required: true), PromptArgument("tone")]
        ) { args, _ in
            PromptResult(description: "A greeting", messages: [
                .user("Greet \(args["name"] ?? "?") (\(args["tone"] ?? "plain"))"),
                .assistant(.text("Hello!")),
                .user(.image(data: Data([1]), mimeType: "image/gif")),
            ])
        }
        try server.registerPrompt("short") { _, _ in "just this" }
        try server.registerPrompt("fails") { _, _ in throw McpError(.invalidParams, "tone must be polite") }
        let client = try await connect(server)

        let greet = try await client.getPrompt("greet", arguments: ["name": "Ada", "tone": "warm"])
        XCTAssertEqual(greet.description, "A greeting")
        XCTAssertEqual(greet.messages, [
            .user("Greet Ada (warm)"), .assistant("Hello!"), .user(.image(data: Data([1]), mimeType: "image/gif")),
        ])
        let short = try await client.getPrompt("short")
        XCTAssertEqual(short.messages, [.user("just this")])

        let missing = await T.mcpError { try await client.getPrompt("greet") }
        XCTAssertEqual(missing?.code, McpError.Code.invalidParams.rawValue)
        let fails = await T.mcpError { try await client.getPrompt("fails") }
        XCTAssertEqual(fails?.code, McpError.Code.invalidParams.rawValue)
        XCTAssertEqual(fails?.message, "tone must be polite")

        let prompts = try await client.listAllPrompts()
        let listed = try XCTUnwrap(prompts.first { $0.name == "greet" })
        XCTAssertEqual(listed.title, "Greeting")
        XCTAssertEqual(listed.arguments.map(\.name), ["name", "tone"])
        XCTAssertEqual(listed.arguments.first?.required, true)
        XCTAssertTrue(server.removePrompt("short"))
        XCTAssertFalse(server.removePrompt("short"))
        await client.close()
    }

    // MARK: Completions

    func testCompletionsForPromptsAndTemplates() async throws {
        let server = try Server(name: "completions", version: "1.0.0")
        try server.registerPrompt("greet", arguments: [PromptArgument("name")]) { _, _ in "hi" }
        try server.registerResourceTemplate("mem://orgs/{org}/repos/{repo}", name: "repo") { _, _, _ in "" }
        let seen = T.Box<CompletionRequest?>(nil)
        try server.registerCompletion(prompt: "greet", argument: "name") { req, _ in
            seen.update { $0 = req }
            return ["alice", "albert", "bob"].filter { $0.hasPrefix(req.value) }
        }
        try server.registerCompletion(resourceTemplate: "mem://orgs/{org}/repos/{repo}", argument: "repo") { req, _ in
            ["org:\(req.context["org"] ?? "-")"] + (0..<150).map { "\(req.value)\($0)" }
        }
        let client = try await connect(server)

        let names = try await client.complete(prompt: "greet", argument: "name", value: "al")
        XCTAssertEqual(names.values, ["alice", "albert"])
        XCTAssertEqual(seen.value?.argumentName, "name")
        XCTAssertEqual(seen.value?.raw["ref"], ["type": "ref/prompt", "name": "greet"])

        let repos = try await client.complete(resourceTemplate: "mem://orgs/{org}/repos/{repo}", argument: "repo",
                                              value: "r", context: ["org": "acme"])
        XCTAssertEqual(repos.values.count, 100)
        XCTAssertEqual(repos.values.first, "org:acme")
        XCTAssertEqual(repos.values[1], "r0")
        XCTAssertEqual(repos.total, 151)
        XCTAssertEqual(repos.hasMore, true)
        await client.close()
    }

    func testTheFallbackCompletionAnswersArgumentsWithoutTheirOwnHandler() async throws {
        let server = try Server(name: "completions", version: "1.0.0")
        try server.registerPrompt("greet", arguments: [PromptArgument("name"), PromptArgument("mood")]) { _, _ in "hi" }
        try server.registerCompletion(prompt: "greet", argument: "name") { _, _ in ["specific"] }
        try server.registerCompletion { req, _ in
            ["fallback:\(req.raw["ref"]?["name"]?.stringValue ?? "?"):\(req.argumentName)=\(req.value)"]
        }
        let client = try await connect(server)
        let specific = try await client.complete(prompt: "greet", argument: "name", value: "x")
        XCTAssertEqual(specific.values, ["specific"])
        let fallback = try await client.complete(prompt: "greet", argument: "mood", value: "ha")
        XCTAssertEqual(fallback.values, ["fallback:greet:mood=ha"])
        await client.close()
    }

    // MARK: Configuration

    func testServerInfoInstructionsAndPaging() async throws {
        let server = try Server(
            name: "demo", version: "1.2.3", title: "Demo server", instructions: "Call add.",
            options: ServerOptions(websiteUrl: "https://example.com", pageSize: 1, enableLogging: false))
        try server.registerTool("a") { _, _ in "a" }
        try server.registerTool("b") { _, _ in "b" }
        let client = try await connect(server)
        XCTAssertEqual(client.serverInfo?["name"], "demo")
        XCTAssertEqual(client.serverInfo?["version"], "1.2.3")
        XCTAssertEqual(client.serverInfo?["title"], "Demo server")
        XCTAssertEqual(client.serverInfo?["websiteUrl"], "https://example.com")
        XCTAssertEqual(client.instructions, "Call add.")
        XCTAssertNil(client.serverCapabilities?["logging"])
        let page = try await client.listTools()
        XCTAssertEqual(page.tools.count, 1)
        XCTAssertNotNil(page.nextCursor)
        let all = try await client.listAllTools()
        XCTAssertEqual(Set(all.map(\.name)), ["a", "b"])
        await client.close()
    }

    func testBadConfigurationIsInvalidParams() async throws {
        XCTAssertThrowsError(try Server(name: "", version: "1")) {
            XCTAssertEqual(($0 as? McpError)?.code, McpError.Code.invalidParams.rawValue, "\($0)")
        }
        XCTAssertThrowsError(try Server(name: "x", version: "1", options: ServerOptions(extra: ["pageSise": 3]))) {
            let e = $0 as? McpError
            XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue, "\($0)")
            XCTAssertTrue(e?.message.contains("pageSise") ?? false, "\($0)")
        }
        // Keys the facade does not name pass through to the engine.
        let server = try Server(name: "x", version: "1", options: ServerOptions(extra: ["enablePrompts": true]))
        let client = try await connect(server)
        XCTAssertNotNil(client.serverCapabilities?["prompts"])
        await client.close()

        let http = await T.mcpError { try await server.startHTTP(options: HTTPOptions(extra: ["jsonResponce": true])) }
        XCTAssertEqual(http?.code, McpError.Code.invalidParams.rawValue)
        XCTAssertTrue(http?.message.contains("jsonResponce") ?? false, http?.message ?? "")
        let port = await T.mcpError { try await server.startHTTP(port: 70000) }
        XCTAssertEqual(port?.code, McpError.Code.invalidParams.rawValue)
    }
}
