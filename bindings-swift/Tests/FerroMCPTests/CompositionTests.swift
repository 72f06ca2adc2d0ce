// CompositionTests: authorization, composition and tool transforms (issue 37 points 3-5) from
// Swift: `Authorization` as a middleware layer, `Server.mount` / `importServer`,
// `Server.transformTool` with `ArgTransform` and `addTransformedTool` with a transform's JSON
// form. Scenario names as in bindings-python/tests/test_composition.py (and
// core/tests/integration/authorization.rs, composition.rs, tool_transform.rs), in camelCase after `test`: the engine does the work; these prove the
// Swift surface reaches it, Swift handlers included. The mount scenarios no other binding had
// (nested mounts, resource updates, advertised capabilities, own items winning, pages, the
// mounted server's middleware, ...) are core/tests/integration/composition.rs's of those names.

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

private let toolNames = ["admin_reset", "echo", "admin_delete", "search", "admin_grant", "time"]

private func authzServer(_ layer: (Server) throws -> Void) throws -> Server {
    let server = try Server(name: "authz", version: "1", options: .init(pageSize: 2))
    try layer(server)
    for name in toolNames {
        try server.registerTool(name, description: name) { _, _ in .text("ran \(name)") }
    }
    try server.registerResource("secret://keys", name: "keys") { _, _ in "k" }
    try server.registerResource("public://readme", name: "readme") { _, _ in "r" }
    try server.registerPrompt("admin_report") { _, _ in "report" }
    return server
}

private let admin = Authorization([(.tool, "admin_*", ["admin"]), (.resource, "secret://*", ["secrets"])])
    .requiringScopes(.prompt, "admin_*", ["admin"])

private func allTools(_ client: Client) async throws -> [String] {
    try await client.listAllTools().map(\.name)
}

private func weather() throws -> Server {
    let wx = try Server(name: "weather", version: "1")
    try wx.registerTool(
        "forecast", description: "Forecast.",
        inputSchema: ["type": "object", "properties": ["city": ["type": "string"], "days": ["type": "integer"]],
                      "required": ["city"]]
    ) { args, _ in
        await Task.yield()
        let days = args["days"]?.intValue ?? 1
        return .text("\(args["city"]?.stringValue ?? "") for \(days) days")
    }
    try wx.registerResource("data://stations", name: "stations") { _, _ in "Oslo, Lima" }
    try wx.registerResourceTemplate("weather://{city}/now", name: "now") { _, vars, _ in
        .text("sunny in \(vars["city"] ?? "")")
    }
    try wx.registerPrompt("report", arguments: [PromptArgument("city", required: true)]) { args, _ in
        PromptResult(messages: [.user("report for \(args["city"] ?? "")")])
    }
    return wx
}

private func mainServer() throws -> Server {
    let main = try Server(name: "main", version: "1")
    try main.registerTool("status", description: "Status.") { _, _ in .text("ok") }
    return main
}

private func searchServer() throws -> Server {
    let s = try Server(name: "t", version: "1")
    try s.registerTool(
        "search", description: "Search an index.",
        inputSchema: ["type": "object",
                      "properties": ["q": ["type": "string"], "index": ["type": "string"], "limit": ["type": "integer"]],
                      "required": ["q", "index"]]
    ) { args, _ in
        let limit = args["limit"]?.intValue ?? 2
        let structured: Value = [
            "args": ["q": args["q"] ?? .null, "index": args["index"] ?? .null, "limit": .int(limit)],
            "hits": .array((0..<limit).map { .string("hit \($0)") }),
        ]
        return ToolResult(structuredContent: structured)
    }
    return s
}

/// Every tool name of `authzServer`, in order.
private let everyTool = toolNames

/// A port nothing listens on now (a server bound to port 0, closed).
private func freePort() async throws -> Int {
    let probe = try await Server(name: "probe", version: "1").startHTTP()
    let port = probe.port
    try await probe.close()
    return port
}

/// The next notification of `method` on `client`, within 10 s.
private func nextNotification(_ client: Client, _ method: String) async throws -> ServerNotification {
    let notifications = client.notifications
    return try await T.deadline(10, method) {
        for await n in notifications where n.method == method { return n }
        throw T.TimedOut(what: method)
    }
}

private struct CannotCount: Error, CustomStringConvertible {
    var description: String { "cannot count" }
}

final class CompositionTests: XCTestCase {
    func testHiddenToolsAreAbsentFromToolsList() async throws {
        let client = try await Client.connect(to: authzServer { try $0.use(admin) })
        let names = try await allTools(client)
        await client.close()
        XCTAssertEqual(names, ["echo", "search", "time"])
    }

    func testPagesStayFullAndCursorsValidWhenItemsAreHidden() async throws {
        let client = try await Client.connect(to: authzServer { try $0.use(admin) })
        let first = try await client.listTools()
        XCTAssertEqual(first.tools.map(\.name), ["echo", "search"])
        let second = try await client.listTools(cursor: first.nextCursor)
        await client.close()
        XCTAssertEqual(second.tools.map(\.name), ["time"])
        XCTAssertNil(second.nextCursor)
    }

    func testAHiddenToolIsRefusedAsAnUnknownOne() async throws {
        let client = try await Client.connect(to: authzServer { try $0.use(admin) })
        let hidden = await T.mcpError { _ = try await client.callTool("admin_delete") }
        let missing = await T.mcpError { _ = try await client.callTool("admin_nothing") }
        let echo = try await client.callTool("echo")
        await client.close()
        XCTAssertEqual(hidden?.code, -32602)
        XCTAssertEqual(hidden?.message, "Unknown tool: admin_delete")
        XCTAssertEqual(missing?.message, "Unknown tool: admin_nothing")
        XCTAssertEqual(hidden?.data, ["tool": "admin_delete"])
        XCTAssertEqual(echo.text, "ran echo")
    }

    func testHiddenResourcesTemplatesAndPromptsAreAbsentAndRefused() async throws {
        let client = try await Client.connect(to: authzServer { try $0.use(admin) })
        let resources = try await client.listAllResources()
        let read = await T.mcpError { _ = try await client.readResource("secret://keys") }
        let prompts = try await client.listAllPrompts()
        let prompt = await T.mcpError { _ = try await client.getPrompt("admin_report") }
        await client.close()
        XCTAssertEqual(resources.map(\.uri), ["public://readme"])
        XCTAssertEqual(read?.code, -32002)
        XCTAssertEqual(prompts.count, 0)
        XCTAssertEqual(prompt?.code, -32602)
    }

    func testDenyUnmatchedHidesItemsNoRuleNames() async throws {
        // One rule, needing no scope, names echo; everything else matches no rule and is hidden.
        let policy = Authorization([(.tool, "echo", [])], denyUnmatched: true)
        let client = try await Client.connect(to: authzServer { try $0.use(policy) })
        let names = try await allTools(client)
        let prompts = try await client.listAllPrompts()
        let resources = try await client.listAllResources()
        let echo = try await client.callTool("echo")
        let hidden = await T.mcpError { _ = try await client.callTool("search") }
        await client.close()
        XCTAssertEqual(names, ["echo"])
        XCTAssertEqual(prompts.count, 0)
        XCTAssertEqual(resources.count, 0)
        XCTAssertEqual(echo.text, "ran echo")
        XCTAssertEqual(hidden?.code, -32602)
        XCTAssertEqual(hidden?.message, "Unknown tool: search")
    }

    func testTheLayerIsConfiguredByNameFromJSON() async throws {
        let anyE = Authorization([(.tool, "*e*", ["x"])])
        XCTAssertEqual(anyE.config["name"], "authorization")
        XCTAssertEqual(anyE.config["rules"]?[0]?["pattern"], "*e*")
        let client = try await Client.connect(to: authzServer { try $0.use(.authorization(anyE)) })
        let names = try await allTools(client)
        await client.close()
        // Every tool whose name holds an "e" needs scope x, which an anonymous caller lacks.
        XCTAssertEqual(names, toolNames.filter { !$0.contains("e") })
        XCTAssertEqual(admin.rules.count, 3)
        XCTAssertFalse(admin.denyUnmatched)
        XCTAssertEqual(Authorization(denyUnmatched: true).config["denyUnmatched"], true)
    }

    func testCallsReadsAndGetsReachTheMountedServer() async throws {
        let main = try mainServer()
        try main.mount("wx", weather())
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let call = try await client.callTool("wx_forecast", arguments: ["city": "Oslo", "days": 3])
        let resources = try await client.listAllResources()
        let templates = try await client.listAllResourceTemplates()
        let read = try await client.readResource("weather://wx/Lima/now")
        let prompt = try await client.getPrompt("wx_report", arguments: ["city": "Bergen"])
        let unprefixed = await T.mcpError { _ = try await client.callTool("forecast", arguments: ["city": "Oslo"]) }
        await client.close()
        XCTAssertEqual(names, ["status", "wx_forecast"])
        XCTAssertEqual(call.text, "Oslo for 3 days")
        XCTAssertEqual(resources.map(\.uri), ["data://wx/stations"])
        XCTAssertEqual(templates.map(\.uriTemplate), ["weather://wx/{city}/now"])
        XCTAssertEqual(read.first?.text, "sunny in Lima")
        XCTAssertEqual(prompt.messages, [.user("report for Bergen")])
        XCTAssertEqual(unprefixed?.code, -32602)
    }

    func testToolsAddedToAMountedServerLaterShowUp() async throws {
        let main = try mainServer()
        let wx = try weather()
        try main.mount("wx", wx)
        let client = try await Client.connect(to: main)
        _ = try await client.listTools()
        try wx.registerTool("radar", description: "Radar.") { _, _ in .text("radar") }
        let notifications = client.notifications
        _ = try await T.deadline(10, "notifications/tools/list_changed") {
            for await n in notifications where n.method == "notifications/tools/list_changed" { return true }
            return false
        }
        let names = try await allTools(client)
        let radar = try await client.callTool("wx_radar")
        await client.close()
        XCTAssertEqual(names, ["status", "wx_forecast", "wx_radar"])
        XCTAssertEqual(radar.text, "radar")
    }

    func testScopesOfTheBearerTokenDecideOverHttp() async throws {
        let port = try await freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        // Token "alice" holds the admin scope, "bob" none.
        let auth = ProtectedResource(resource: resource, authorizationServers: ["http://as.example"]) { token in
            AuthInfo(subject: token, scopes: token == "alice" ? ["admin"] : [], audience: [resource])
        }
        let http = try await authzServer { try $0.use(admin) }.startHTTP(port: port, auth: auth)
        for (token, expected) in [("alice", everyTool), ("bob", ["echo", "search", "time"])] {
            let client = try await Client.http(url: http.url, headers: ["Authorization": "Bearer \(token)"])
            let names = try await allTools(client)
            XCTAssertEqual(names, expected, token)
            if token == "alice" {
                let r = try await client.callTool("admin_delete")
                XCTAssertEqual(r.text, "ran admin_delete")
            } else {
                let e = await T.mcpError { _ = try await client.callTool("admin_delete") }
                XCTAssertEqual(e?.code, -32602)
                XCTAssertEqual(e?.message, "Unknown tool: admin_delete")
            }
            await client.close()
        }
        try await http.close()
    }

    func testMountedResourcesAndTemplatesAreListedWithNamespacedUris() async throws {
        let main = try mainServer()
        try main.mount("wx", weather())
        let client = try await Client.connect(to: main)
        let resources = try await client.listResources()
        let templates = try await client.listResourceTemplates()
        await client.close()
        XCTAssertEqual(resources.resources.map(\.uri), ["data://wx/stations"])
        XCTAssertNil(resources.nextCursor)
        XCTAssertEqual(templates.resourceTemplates.map(\.uriTemplate), ["weather://wx/{city}/now"])
        XCTAssertNil(templates.nextCursor)
    }

    func testCompletionsAreRoutedToTheMountedServer() async throws {
        let wx = try weather()
        try wx.registerCompletion(resourceTemplate: "weather://{city}/now", argument: "city") { _, _ in ["Oslo", "Lima"] }
        try wx.registerCompletion(prompt: "report", argument: "city") { _, _ in ["Bergen"] }
        let main = try mainServer()
        try main.mount("wx", wx)
        let client = try await Client.connect(to: main)
        let cities = try await client.complete(resourceTemplate: "weather://wx/{city}/now", argument: "city", value: "")
        let reports = try await client.complete(prompt: "wx_report", argument: "city", value: "")
        await client.close()
        XCTAssertEqual(cities.values, ["Oslo", "Lima"])
        XCTAssertEqual(reports.values, ["Bergen"])
    }

    func testTheParentAdvertisesWhatAMountedServerOffers() async throws {
        let wx = try weather()
        try wx.registerCompletion(prompt: "report", argument: "city") { _, _ in ["Bergen"] }
        let main = try Server(name: "empty", version: "1")
        try main.mount("wx", wx)
        let client = try await Client.connect(to: main)
        let caps = try XCTUnwrap(client.serverCapabilities)
        XCTAssertEqual(caps["tools"]?["listChanged"], true, "\(caps)")
        XCTAssertNotNil(caps["resources"]?.objectValue, "\(caps)")
        XCTAssertNotNil(caps["prompts"]?.objectValue, "\(caps)")
        XCTAssertNotNil(caps["completions"]?.objectValue, "\(caps)")
        let names = try await allTools(client)
        await client.close()
        XCTAssertEqual(names, ["wx_forecast"])
    }

    func testResourceUpdatesOfAMountedServerCarryTheNamespacedUri() async throws {
        let main = try mainServer()
        let wx = try weather()
        try main.mount("wx", wx)
        let client = try await Client.connect(to: main)
        try await client.subscribe("data://wx/stations")
        wx.notifyResourceUpdated("data://stations")
        let first = try await nextNotification(client, ServerNotification.Method.resourceUpdated)
        // An update of a resource nobody subscribed to is not sent: the next update the client
        // gets is the subscribed one's again (a session's notifications arrive in order).
        wx.notifyResourceUpdated("weather://Oslo/now")
        wx.notifyResourceUpdated("data://stations")
        let second = try await nextNotification(client, ServerNotification.Method.resourceUpdated)
        await client.close()
        XCTAssertEqual(first.params?["uri"], "data://wx/stations")
        XCTAssertEqual(second.params?["uri"], "data://wx/stations")
    }

    func testNestedMountsJoinTheirPrefixes() async throws {
        let inner = try Server(name: "inner", version: "1")
        try inner.registerTool("deep", description: "Deep.") { _, _ in .text("deep") }
        try inner.registerResource("data://leaf", name: "leaf") { uri, _ in .text("leaf at \(uri)") }
        let middle = try Server(name: "middle", version: "1")
        try middle.mount("in", inner)
        let main = try mainServer()
        try main.mount("mid", middle)
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let call = try await client.callTool("mid_in_deep")
        let read = try await client.readResource("data://mid/in/leaf")
        await client.close()
        XCTAssertEqual(names, ["status", "mid_in_deep"])
        XCTAssertEqual(call.text, "deep")
        // The inner server's handler is asked for its own URI.
        XCTAssertEqual(read.first?.text, "leaf at data://leaf")
    }

    func testMountedToolsAndPromptsAreListedWithThePrefix() async throws {
        let main = try mainServer()
        try main.mount("weather", weather())
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let prompts = try await client.listAllPrompts()
        await client.close()
        XCTAssertEqual(names, ["status", "weather_forecast"])
        XCTAssertEqual(prompts.map(\.name), ["weather_report"])
    }

    func testUnknownPrefixedNamesGetTheUnknownErrors() async throws {
        let main = try mainServer()
        try main.mount("wx", weather())
        let client = try await Client.connect(to: main)
        let tool = await T.mcpError { _ = try await client.callTool("wx_nothing") }
        // The mounted server's name without the prefix is not the parent's.
        let bare = await T.mcpError { _ = try await client.callTool("forecast") }
        let read = await T.mcpError { _ = try await client.readResource("data://stations") }
        let prompt = await T.mcpError { _ = try await client.getPrompt("wx_none") }
        await client.close()
        XCTAssertEqual(tool?.code, -32602)
        XCTAssertEqual(tool?.message, "Unknown tool: wx_nothing")
        XCTAssertEqual(bare?.message, "Unknown tool: forecast")
        XCTAssertEqual(read?.code, -32002)
        XCTAssertEqual(prompt?.message, "Unknown prompt: wx_none")
    }

    func testOwnItemsWinOverMountedOnesWithTheSameName() async throws {
        let main = try Server(name: "main", version: "1")
        try main.registerTool("wx_forecast", description: "Own.") { _, _ in .text("own forecast") }
        try main.mount("wx", weather())
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let r = try await client.callTool("wx_forecast", arguments: ["city": "Oslo"])
        await client.close()
        XCTAssertEqual(names, ["wx_forecast"])
        XCTAssertEqual(r.text, "own forecast")
    }

    func testPagesSpanOwnAndMountedItems() async throws {
        let main = try Server(name: "main", version: "1", options: .init(pageSize: 2))
        for name in ["a", "b", "c"] {
            try main.registerTool(name, description: name) { _, _ in .text(name) }
        }
        let other = try Server(name: "other", version: "1", options: .init(pageSize: 1))
        for name in ["x", "y", "z"] {
            try other.registerTool(name, description: name) { _, _ in .text(name) }
        }
        try main.mount("o", other)
        let client = try await Client.connect(to: main)
        let first = try await client.listTools()
        let names = try await allTools(client)
        let last = try await client.callTool("o_z")
        await client.close()
        XCTAssertEqual(first.tools.count, 2)
        XCTAssertNotNil(first.nextCursor)
        XCTAssertEqual(names, ["a", "b", "c", "o_x", "o_y", "o_z"])
        XCTAssertEqual(last.text, "z")
    }

    func testTheMountedServersMiddlewareRunsForItsItems() async throws {
        let wx = try Server(name: "weather", version: "1")
        try wx.use(Authorization([(.tool, "admin_*", ["admin"])]))
        try wx.registerTool("forecast", description: "Forecast.") { _, _ in .text("sunny") }
        try wx.registerTool("admin_purge", description: "Purge.") { _, _ in .text("purged") }
        let main = try mainServer()
        try main.mount("wx", wx)
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let purge = await T.mcpError { _ = try await client.callTool("wx_admin_purge") }
        await client.close()
        XCTAssertEqual(names, ["status", "wx_forecast"])
        XCTAssertEqual(purge?.message, "Unknown tool: wx_admin_purge")
    }

    func testAuthorizationAddedBeforeTheMountSeesMountedItems() async throws {
        let main = try Server(name: "main", version: "1")
        try main.use(Authorization([(.tool, "wx_*", ["weather"])]))
        try main.registerTool("status", description: "Status.") { _, _ in .text("ok") }
        try main.mount("wx", weather())
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let forecast = await T.mcpError { _ = try await client.callTool("wx_forecast", arguments: ["city": "Oslo"]) }
        await client.close()
        XCTAssertEqual(names, ["status"])
        XCTAssertEqual(forecast?.code, -32602)
    }

    func testImportedItemsAreCopiedOnce() async throws {
        let main = try mainServer()
        let wx = try weather()
        try main.importServer("wx", wx)
        try wx.registerTool("later", description: "Later.") { _, _ in .text("later") }
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let call = try await client.callTool("wx_forecast", arguments: ["city": "Lima"])
        let read = try await client.readResource("data://wx/stations")
        await client.close()
        XCTAssertEqual(names, ["status", "wx_forecast"])
        XCTAssertEqual(call.text, "Lima for 1 days")
        XCTAssertEqual(read.first?.text, "Oslo, Lima")
    }

    func testBadMountsAreRefused() async throws {
        let main = try mainServer()
        let slash = await T.mcpError { try main.mount("a/b", weather()) }
        let cycle = await T.mcpError { try main.mount("me", main) }
        XCTAssertEqual(slash?.code, -32602)
        XCTAssertEqual(cycle?.code, -32602)
    }

    func testATransformedToolHasTheNewNameAndDescription() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "find", title: "Find", description: "Find documents.")
        let client = try await Client.connect(to: s)
        let tools = try await client.listAllTools()
        await client.close()
        let find = try XCTUnwrap(tools.first { $0.name == "find" })
        let search = try XCTUnwrap(tools.first { $0.name == "search" })
        XCTAssertEqual(find.description, "Find documents.")
        XCTAssertEqual(find.title, "Find")
        XCTAssertEqual(find.inputSchema, search.inputSchema)
        // The original stays until removed.
        XCTAssertEqual(search.description, "Search an index.")
    }

    func testADefaultMakesAnArgumentOptional() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "quick", arguments: ["index": ArgTransform(default: "main")])
        let client = try await Client.connect(to: s)
        let tools = try await client.listAllTools()
        let defaulted = try await client.callTool("quick", arguments: ["q": "x"])
        let given = try await client.callTool("quick", arguments: ["q": "x", "index": "other"])
        await client.close()
        let schema = try XCTUnwrap(tools.first { $0.name == "quick" }?.inputSchema)
        XCTAssertEqual(schema["required"], ["q"])
        XCTAssertEqual(schema["properties"]?["index"]?["default"], "main")
        XCTAssertEqual(defaulted.structuredContent?["args"]?["index"], "main")
        XCTAssertEqual(given.structuredContent?["args"]?["index"], "other")
    }

    func testRenamedArgumentsReachTheOriginalUnderTheirOldNames() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "find", description: "Find documents.",
                            arguments: ["q": ArgTransform(name: "query", description: "What to look for.")])
        let client = try await Client.connect(to: s)
        let tools = try await client.listAllTools()
        let r = try await client.callTool("find", arguments: ["query": "rust", "index": "docs"])
        await client.close()
        let find = try XCTUnwrap(tools.first { $0.name == "find" })
        XCTAssertEqual(find.description, "Find documents.")
        XCTAssertEqual(find.inputSchema["properties"]?["query"]?["description"], "What to look for.")
        XCTAssertNil(find.inputSchema["properties"]?["q"])
        XCTAssertEqual(r.structuredContent?["args"], ["q": "rust", "index": "docs", "limit": 2])
    }

    func testAHiddenArgumentIsAbsentFromTheSchemaAndAlwaysGiven() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "search_docs", arguments: ["index": ArgTransform(default: "docs", hide: true)])
        let client = try await Client.connect(to: s)
        let tools = try await client.listAllTools()
        let r = try await client.callTool("search_docs", arguments: ["q": "x"])
        await client.close()
        let docs = try XCTUnwrap(tools.first { $0.name == "search_docs" })
        XCTAssertNil(docs.inputSchema["properties"]?["index"])
        XCTAssertEqual(r.structuredContent?["args"]?["index"], "docs")
        let noDefault = await T.mcpError {
            try s.transformTool("search", name: "nodefault", arguments: ["index": ArgTransform(hide: true)])
        }
        XCTAssertEqual(noDefault?.code, -32602)
        XCTAssertTrue(noDefault?.message.contains("needs a default") ?? false, noDefault?.message ?? "")
    }

    func testAConstraintRefusesValuesTheOriginalWouldAccept() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "small_search",
                            arguments: ["limit": ArgTransform(default: 1, constraints: ["maximum": 3])])
        let client = try await Client.connect(to: s)
        let over = try await client.callTool("small_search", arguments: ["q": "x", "index": "d", "limit": 10])
        let defaulted = try await client.callTool("small_search", arguments: ["q": "x", "index": "d"])
        await client.close()
        XCTAssertEqual(over.isError, true)
        XCTAssertTrue(over.text.contains("Invalid arguments"), over.text)
        XCTAssertEqual(defaulted.structuredContent?["args"]?["limit"], 1)
    }

    func testReshapedOutputIsValidatedAgainstTheNewSchema() async throws {
        let s = try searchServer()
        let schema: Value = ["type": "object", "properties": ["count": ["type": "integer"]], "required": ["count"]]
        try s.transformTool("search", name: "count",
                            transformOutput: { ["count": .int($0["hits"]?.arrayValue?.count ?? -1)] },
                            outputSchema: schema)
        try s.transformTool("search", name: "broken", transformOutput: { _ in ["count": "many"] }, outputSchema: schema)
        try s.transformTool("search", name: "throws", transformOutput: { _ in throw CannotCount() })
        let client = try await Client.connect(to: s)
        let tools = try await client.listAllTools()
        let r = try await client.callTool("count", arguments: ["q": "x", "index": "d", "limit": 3])
        let broken = await T.mcpError { _ = try await client.callTool("broken", arguments: ["q": "x", "index": "d"]) }
        let thrown = await T.mcpError { _ = try await client.callTool("throws", arguments: ["q": "x", "index": "d"]) }
        await client.close()
        XCTAssertEqual(tools.first { $0.name == "count" }?.outputSchema, schema)
        XCTAssertEqual(r.structuredContent, ["count": 3])
        XCTAssertEqual(broken?.code, -32603)
        XCTAssertEqual(thrown?.code, -32603)
        XCTAssertEqual(thrown?.message, "transformOutput of tool \"throws\" failed: cannot count")
        let alone = await T.mcpError { try s.transformTool("search", name: "schema_only", outputSchema: schema) }
        XCTAssertEqual(alone?.code, -32602)
    }

    func testAnMcpErrorThrownByTransformOutputReachesTheClientWithItsCode() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "count", transformOutput: { _ in
            throw McpError(code: -32004, message: "too many hits to count", data: ["limit": 5])
        })
        let client = try await Client.connect(to: s)
        let e = await T.mcpError { _ = try await client.callTool("count", arguments: ["q": "x", "index": "d", "limit": 6]) }
        await client.close()
        XCTAssertEqual(e?.code, -32004)
        XCTAssertEqual(e?.message, "too many hits to count")
        XCTAssertEqual(e?.data, ["limit": 5])
    }

    func testATransformedToolOfAMountedServerIsServedThroughTheMount() async throws {
        let s = try searchServer()
        try s.transformTool("search", name: "count",
                            transformOutput: { ["count": .int($0["hits"]?.arrayValue?.count ?? -1)] })
        let main = try mainServer()
        try main.mount("docs", s)
        let client = try await Client.connect(to: main)
        let names = try await allTools(client)
        let r = try await client.callTool("docs_count", arguments: ["q": "x", "index": "d", "limit": 4])
        await client.close()
        XCTAssertEqual(names, ["status", "docs_search", "docs_count"])
        XCTAssertEqual(r.structuredContent, ["count": 4])
    }

    func testTransformsNamingMissingOrClashingArgumentsAreRefused() async throws {
        let s = try searchServer()
        let a = await T.mcpError { try s.transformTool("search", name: "a", arguments: ["nope": ArgTransform(name: "x")]) }
        let b = await T.mcpError { try s.transformTool("search", name: "b", arguments: ["q": ArgTransform(name: "index")]) }
        let c = await T.mcpError { try s.transformTool("missing", name: "c") }
        XCTAssertEqual(a?.code, -32602)
        XCTAssertTrue(a?.message.contains("no argument") ?? false, a?.message ?? "")
        XCTAssertTrue(b?.message.contains("would be called") ?? false, b?.message ?? "")
        XCTAssertTrue(c?.message.contains("no tool") ?? false, c?.message ?? "")
    }

    func testATransformIsReadFromItsJsonForm() async throws {
        let s = try searchServer()
        try s.addTransformedTool("search", transform: [
            "name": "find",
            "description": "Find documents.",
            "arguments": [
                "q": ["name": "query", "description": "What to look for."],
                "index": ["hide": true, "default": "docs"],
                "limit": ["default": 2, "constraints": ["maximum": 3]],
            ],
        ])
        let client = try await Client.connect(to: s)
        let tools = try await client.listAllTools()
        let r = try await client.callTool("find", arguments: ["query": "a"])
        await client.close()
        let find = try XCTUnwrap(tools.first { $0.name == "find" })
        XCTAssertEqual(find.description, "Find documents.")
        XCTAssertEqual(find.inputSchema["required"], ["query"])
        XCTAssertEqual(find.inputSchema["properties"]?["limit"]?["maximum"], 3)
        XCTAssertEqual(r.structuredContent?["args"], ["q": "a", "index": "docs", "limit": 2])
        let bad: [(Value, String)] = [
            (["name": "x", "arguments": ["index": ["hide": true]]], "needs a default"),
            (["name": "x", "renamed": [:]], "unknown field"),
        ]
        for (form, why) in bad {
            let e = await T.mcpError { try s.addTransformedTool("search", transform: form) }
            XCTAssertEqual(e?.code, -32602, "\(form.jsonText)")
            XCTAssertTrue(e?.message.contains(why) ?? false, e?.message ?? "no error for \(form.jsonText)")
        }
    }
}
