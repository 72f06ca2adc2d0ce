// MiddlewareTests: Swift middleware layers (closures and `Middleware` types) and the engine's
// built-ins by name, against the real engine through an in-memory Client (and HTTP for the
// headers). Scenario names are those of core/tests/integration/middleware.rs,
// embed/tests/integration/middleware.rs and bindings-python/tests/test_middleware.py where the
// scenario is the same (in camelCase, after `test`).

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

/// A server with an `echo` tool answering its `text` argument (or "echoed"), failing (a tool
/// error) when `fail` is true, and a resource `mem://a`.
private func echoServer(options: ServerOptions = .init()) throws -> Server {
    let server = try Server(name: "mw", version: "1.0.0", options: options)
    try server.registerTool("echo") { args, _ in
        if args["fail"]?.boolValue == true { return .error("it failed") }
        return .text(args["text"]?.stringValue ?? "echoed")
    }
    try server.registerResource("mem://a", name: "a") { _, _ in "A" }
    return server
}

/// A layer that records `<tag>:<method>` on the way in and `<tag>:done` on the way out, and
/// keeps every request it saw.
private func recording(_ tag: String, _ log: T.Box<[String]>,
                       _ seen: T.Box<[MiddlewareRequest]> = .init([])) -> MiddlewareFunction {
    { request, next in
        log.update { $0.append("\(tag):\(request.method)") }
        seen.update { $0.append(request) }
        let result = try await next(request)
        log.update { $0.append("\(tag):done") }
        return result
    }
}

/// A `Middleware` type: stamps every tool result's first text with its prefix.
private struct Stamp: Middleware {
    let prefix: String

    func handle(_ request: MiddlewareRequest, next: MiddlewareNext) async throws -> Value {
        var result = try await next(request)
        guard request.method == "tools/call", case .array(var content)? = result["content"],
              let text = content.first?["text"]?.stringValue else { return result }
        content[0] = ["type": "text", "text": .string(prefix + text)]
        if case .object(var o) = result {
            o["content"] = .array(content)
            result = .object(o)
        }
        return result
    }
}

/// A `Middleware` type that hands every request on and records the client's notifications,
/// signalling each one's method.
private struct Notes: Middleware {
    let seen: T.Box<[MiddlewareNotification]>
    let got: T.Signal<String>

    func handle(_ request: MiddlewareRequest, next: MiddlewareNext) async throws -> Value {
        try await next(request)
    }

    func notification(_ notification: MiddlewareNotification) async {
        seen.update { $0.append(notification) }
        got.send(notification.method)
    }
}

private struct Broken: Error, CustomStringConvertible {
    var description: String { "the layer broke" }
}

final class MiddlewareTests: XCTestCase {
    func testMiddlewareSeesEveryMethod() async throws {
        let server = try echoServer()
        let log = T.Box<[String]>([])
        let seen = T.Box<[MiddlewareRequest]>([])
        try server.registerPrompt("greet") { _, _ in "hello" }
        try server.registerCompletion { _, _ in ["one"] }
        try server.use(recording("a", log, seen))
        let client = try await Client.connect(to: server)
        _ = try await client.listTools()
        _ = try await client.callTool("echo")
        _ = try await client.readResource("mem://a")
        _ = try await client.getPrompt("greet")
        let completion = try await client.complete(prompt: "greet", argument: "name", value: "o")
        XCTAssertEqual(completion.values, ["one"])
        // A method no handler serves reaches the chain too (and is refused by the dispatch).
        let unknown = await T.mcpError { _ = try await client.sendRequest(method: "example.com/nope") }
        XCTAssertEqual(unknown?.code, McpError.Code.methodNotFound.rawValue)
        await client.close()
        XCTAssertEqual(seen.value.map(\.method), [
            "initialize", "tools/list", "tools/call", "resources/read", "prompts/get",
            "completion/complete", "example.com/nope",
        ])
        let call = seen.value[2]
        XCTAssertEqual(call.tool, "echo")
        XCTAssertEqual(call.params?["name"], "echo")
        XCTAssertNotNil(call.sessionKey)
        XCTAssertNil(call.principal)
        XCTAssertNil(call.httpHeaders)
        XCTAssertEqual(call.protocolVersion, client.protocolVersion)
        XCTAssertNotEqual(call.id, .null)
    }

    func testAMiddlewareClassObservesClientNotifications() async throws {
        let server = try echoServer()
        // An outer closure layer with a notification hook, then a `Middleware` type: the inner
        // one sees what the outer one was shown, so the notification was handed on.
        let outer = T.Box<[String]>([])
        try server.use({ request, next in try await next(request) }, onNotification: { note in
            outer.update { $0.append(note.method) }
        })
        let seen = T.Box<[MiddlewareNotification]>([])
        let got = T.Signal<String>()
        try server.use(Notes(seen: seen, got: got))
        let client = try await Client.connect(to: server)
        try await client.sendNotification(method: "notifications/roots/list_changed")
        try await client.sendNotification(method: "example.com/custom", params: ["x": 1])
        let first = try await got.next(within: 5, "the first notification")
        let second = try await got.next(within: 5, "the second notification")
        let echo = try await client.callTool("echo")
        await client.close()
        XCTAssertEqual([first, second], ["notifications/roots/list_changed", "example.com/custom"])
        XCTAssertEqual(echo.text, "echoed")
        XCTAssertEqual(seen.value.map(\.method), ["notifications/roots/list_changed", "example.com/custom"])
        XCTAssertNil(seen.value[0].params)
        XCTAssertEqual(seen.value[1].params, ["x": 1])
        XCTAssertNil(seen.value[1].sessionId)
        XCTAssertTrue(seen.value[1].sessionKey.hasPrefix("conn-"), seen.value[1].sessionKey)
        XCTAssertEqual(outer.value, ["notifications/roots/list_changed", "example.com/custom"])
    }

    func testANotificationHookSeesThemInOrderAndHoldsUpNoRequest() async throws {
        let server = try echoServer()
        let seen = T.Box<[Int]>([])
        let release = T.Signal<Void>()
        let done = T.Signal<Void>()
        try server.use({ request, next in try await next(request) }, onNotification: { note in
            let n = note.params?["n"]?.intValue ?? -1
            // The first one waits until the test has had a request answered.
            if n == 0 { _ = try? await release.next(within: 10, "release") }
            seen.update { $0.append(n) }
            if n == 19 { done.send(()) }
        })
        let client = try await Client.connect(to: server)
        for n in 0..<20 {
            try await client.sendNotification(method: "example.com/n", params: ["n": .int(n)])
        }
        let echo = try await client.callTool("echo", arguments: ["text": "while the hook waits"])
        XCTAssertEqual(seen.value, [], "the hook ran ahead of the first notification")
        release.send(())
        try await done.next(within: 10, "the last notification")
        await client.close()
        XCTAssertEqual(echo.text, "while the hook waits")
        XCTAssertEqual(seen.value, Array(0..<20))
    }

    func testLayersRunInOrderTheFirstOutermost() async throws {
        let server = try echoServer()
        let log = T.Box<[String]>([])
        try server.use(recording("a", log))
        try server.use(recording("b", log))
        let client = try await Client.connect(to: server)
        log.update { $0.removeAll() }
        _ = try await client.callTool("echo")
        await client.close()
        XCTAssertEqual(log.value, ["a:tools/call", "b:tools/call", "b:done", "a:done"])
    }

    func testALayerAnswersRefusesAndChangesRequestAndResult() async throws {
        let server = try echoServer()
        try server.use { request, next in
            switch request.tool {
            case "answered":
                return ["content": [["type": "text", "text": "from the layer"]]]
            case "refused":
                throw McpError(code: -32003, message: "Permission denied", data: ["tool": "refused"])
            case "renamed":
                var changed = request
                changed.params = ["name": "echo", "arguments": ["text": "changed"]]
                let result = try await next(changed)
                let text = result["content"]?[0]?["text"]?.stringValue ?? ""
                return ["content": [["type": "text", "text": .string("\(text) and reshaped")]]]
            default:
                return try await next(request)
            }
        }
        let client = try await Client.connect(to: server)
        let answered = try await client.callTool("answered")
        XCTAssertEqual(answered.text, "from the layer")
        let refused = await T.mcpError { _ = try await client.callTool("refused") }
        XCTAssertEqual(refused?.code, -32003)
        XCTAssertEqual(refused?.message, "Permission denied")
        XCTAssertEqual(refused?.data, ["tool": "refused"])
        let renamed = try await client.callTool("renamed")
        XCTAssertEqual(renamed.text, "changed and reshaped")
        let echo = try await client.callTool("echo")
        XCTAssertEqual(echo.text, "echoed")
        await client.close()
    }

    func testAMiddlewareTypeChangesTheResult() async throws {
        let server = try echoServer()
        try server.use(Stamp(prefix: "[stamped] "))
        let client = try await Client.connect(to: server)
        let result = try await client.callTool("echo", arguments: ["text": "hi"])
        XCTAssertEqual(result.text, "[stamped] hi")
        await client.close()
    }

    func testALayerThrowingAnotherErrorIsAnInternalErrorNamingIt() async throws {
        let server = try echoServer()
        try server.use { request, next in
            if request.method == "tools/call" { throw Broken() }
            return try await next(request)
        }
        let client = try await Client.connect(to: server)
        let failed = await T.mcpError { _ = try await client.callTool("echo") }
        XCTAssertEqual(failed?.code, McpError.Code.internalError.rawValue)
        XCTAssertTrue(failed?.message.contains("the layer broke") == true, "\(String(describing: failed))")
        await client.close()
    }

    func testPerRequestEraCallsGoThroughTheChain() async throws {
        // A 2026-07-28 client (no handshake; every request carries its revision in _meta): the
        // layers see each request with that revision, and a change of the result reaches it.
        let server = try echoServer()
        let seen = T.Box<[MiddlewareRequest]>([])
        try server.use(recording("a", T.Box([]), seen))
        try server.use(Stamp(prefix: "stamped "))
        let client = try await Client.connect(to: server, options: ClientOptions(protocolVersion: "2026-07-28"))
        XCTAssertEqual(client.protocolVersion, "2026-07-28")
        let r = try await client.callTool("echo", arguments: ["text": "hi"])
        XCTAssertEqual(r.text, "stamped hi")
        _ = try await client.listTools()
        await client.close()
        let methods = seen.value.map { "\($0.method) \($0.protocolVersion ?? "-")" }
        XCTAssertTrue(methods.contains("tools/call 2026-07-28"), "\(methods)")
        XCTAssertTrue(methods.contains("tools/list 2026-07-28"), "\(methods)")
        XCTAssertFalse(seen.value.contains { $0.method == "initialize" }, "\(methods)")
    }

    func testInputRequiredRoundsWorkThroughTheChain() async throws {
        // 2026-07-28: a handler's ctx.input round passes the layer twice: first next() throws
        // the input round (the layer hands it on), then the client's retry, carrying
        // inputResponses, reaches the handler. (Cancellation through the chain:
        // testACancelledRequestCancelsTheLayersTask.)
        let server = try echoServer()
        try server.registerTool("ask") { _, ctx in
            let schema: Value = ["type": "object", "properties": ["name": ["type": "string"]]]
            let answers = try await ctx.input([
                "who": ["method": "elicitation/create", "params": ["message": "name?", "requestedSchema": schema]],
            ])
            return .text("Hello, \(answers["who"]?["content"]?["name"]?.stringValue ?? "?")!")
        }
        let rounds = T.Box<[String]>([])
        try server.use { request, next in
            guard request.method == "tools/call" else { return try await next(request) }
            let answered = request.params?["inputResponses"] != nil
            do {
                let result = try await next(request)
                rounds.update { $0.append("\(answered) \(result["content"]?[0]?["text"]?.stringValue ?? "-")") }
                return result
            } catch let e as McpError {
                let what = e.code == McpError.Code.inputRequired.rawValue ? "InputRequired" : "\(e)"
                rounds.update { $0.append("\(answered) \(what)") }
                throw e
            }
        }
        let options = ClientOptions(protocolVersion: "2026-07-28", elicitation: { _, _ in
            ElicitResult(action: .accept, content: ["name": "Di"])
        })
        let client = try await Client.connect(to: server, options: options)
        let r = try await client.callTool("ask")
        XCTAssertEqual(r.text, "Hello, Di!")
        await client.close()
        XCTAssertEqual(rounds.value, ["false InputRequired", "true Hello, Di!"])
    }

    func testRateLimitAnswers32004WithRetryAfter() async throws {
        let server = try echoServer()
        try server.use(.rateLimit(limit: 2, window: .milliseconds(400), methods: ["tools/call"]))
        let client = try await Client.connect(to: server)
        _ = try await client.callTool("echo")
        _ = try await client.callTool("echo")
        let limited = await T.mcpError { _ = try await client.callTool("echo") }
        XCTAssertEqual(limited?.code, McpError.Code.rateLimited.rawValue)
        XCTAssertEqual(McpError.Code.rateLimited.rawValue, -32004)
        XCTAssertEqual(limited?.message, "Rate limited")
        XCTAssertEqual(limited?.data?["limit"], 2)
        XCTAssertEqual(limited?.data?["window"]?.doubleValue, 0.4)
        let retry = try XCTUnwrap(limited?.data?["retryAfter"]?.doubleValue)
        XCTAssertTrue(retry > 0 && retry <= 0.2, "one token comes back in 0.2 s: \(retry)")
        try await Task.sleep(for: .milliseconds(Int(retry * 1000) + 5))
        _ = try await client.callTool("echo")
        await client.close()
    }

    func testAToolWithItsOwnLimitHasItsOwnBucket() async throws {
        let server = try echoServer()
        try server.registerTool("slow") { _, _ in .text("slow done") }
        try server.use(.rateLimit(limit: 100, window: .seconds(60),
                                  tools: ["slow": (limit: 1, window: .seconds(60))]))
        let client = try await Client.connect(to: server)
        _ = try await client.callTool("slow")
        let limited = await T.mcpError { _ = try await client.callTool("slow") }
        XCTAssertEqual(limited?.code, McpError.Code.rateLimited.rawValue)
        XCTAssertEqual(limited?.data?["limit"], 1)
        XCTAssertEqual(limited?.data?["window"]?.doubleValue, 60)
        // The other tools count against the layer's own limit, not the spent one of `slow`.
        for _ in 0..<3 {
            let r = try await client.callTool("echo")
            XCTAssertFalse(r.isError)
        }
        await client.close()
    }

    func testMaskErrorsHidesInternalDetailsOnly() async throws {
        let server = try echoServer()
        try server.use(.maskErrors(message: "Something went wrong"))
        // A Swift layer's internal error is masked; its -32003 is not.
        try server.use { request, next in
            switch request.tool {
            case "broken": throw McpError(.internalError, "stack trace: at db.swift:12")
            case "refused": throw McpError(code: -32003, message: "Permission denied")
            default: return try await next(request)
            }
        }
        let client = try await Client.connect(to: server)
        let masked = await T.mcpError { _ = try await client.callTool("broken") }
        XCTAssertEqual(masked?.code, McpError.Code.internalError.rawValue)
        XCTAssertEqual(masked?.message, "Something went wrong")
        XCTAssertNil(masked?.data)
        let refused = await T.mcpError { _ = try await client.callTool("refused") }
        XCTAssertEqual(refused?.code, -32003)
        XCTAssertEqual(refused?.message, "Permission denied")
        // A tool's failure is a tool result (isError), not a JSON-RPC error: nothing to mask.
        let failed = try await client.callTool("echo", arguments: ["fail": true])
        XCTAssertTrue(failed.isError)
        await client.close()
    }

    func testTimingHookGetsMethodToolDurationAndOutcome() async throws {
        let server = try echoServer()
        let events = T.Box<[TimingEvent]>([])
        try server.use(.timing { event in events.update { $0.append(event) } })
        try server.use { request, next in
            if request.tool == "slow" {
                try await Task.sleep(for: .milliseconds(30))
                throw McpError(code: -32003, message: "no")
            }
            return try await next(request)
        }
        let client = try await Client.connect(to: server)
        _ = try await client.callTool("echo")
        _ = await T.mcpError { _ = try await client.callTool("slow") }
        await client.close()
        let calls = events.value.filter { $0.method == "tools/call" }
        XCTAssertEqual(calls.map(\.tool), ["echo", "slow"])
        XCTAssertEqual(calls.map(\.outcome), [.ok, .error])
        XCTAssertEqual(calls.map(\.code), [nil, -32003])
        XCTAssertGreaterThanOrEqual(calls[1].duration, .milliseconds(30))
        XCTAssertEqual(events.value.first?.method, "initialize")
    }

    func testCallNextTwiceOrWithABadRequestIsAnInternalErrorSayingSo() async throws {
        let server = try echoServer()
        try server.use { request, next in
            switch request.tool {
            case "twice":
                _ = try? await next(request)  // the unknown tool's error, then the second call
                return try await next(request)
            case "badMethod":
                var changed = request
                changed.method = ""
                return try await next(changed)
            default:
                return try await next(request)
            }
        }
        let client = try await Client.connect(to: server)
        let twice = await T.mcpError { _ = try await client.callTool("twice") }
        XCTAssertEqual(twice?.code, McpError.Code.internalError.rawValue)
        XCTAssertTrue(twice?.message.contains("at most once") == true, "\(String(describing: twice))")
        let bad = await T.mcpError { _ = try await client.callTool("badMethod") }
        XCTAssertEqual(bad?.code, McpError.Code.internalError.rawValue)
        XCTAssertTrue(bad?.message.contains("non-empty string") == true, "\(String(describing: bad))")
        await client.close()
    }

    func testALayerChangesTheMethod() async throws {
        let server = try echoServer()
        try server.use { request, next in
            guard request.method == "x/tools" else { return try await next(request) }
            var changed = request
            changed.method = "tools/list"
            return try await next(changed)
        }
        let client = try await Client.connect(to: server)
        let result = try await client.sendRequest(method: "x/tools")
        XCTAssertEqual(result["tools"]?[0]?["name"], "echo")
        await client.close()
    }

    func testMiddlewareIsRefusedOnceTheServerHandledARequest() async throws {
        let server = try echoServer()
        let client = try await Client.connect(to: server)
        XCTAssertThrowsError(try server.use { request, next in try await next(request) }) { error in
            XCTAssertEqual((error as? McpError)?.code, McpError.Code.invalidRequest.rawValue, "\(error)")
            XCTAssertTrue((error as? McpError)?.message.contains("before the server handles its first request") == true)
        }
        XCTAssertThrowsError(try server.use(.requestLog)) { error in
            XCTAssertEqual((error as? McpError)?.code, McpError.Code.invalidRequest.rawValue, "\(error)")
        }
        await client.close()
    }

    func testUnknownMiddlewareNamesAndOptionsAreRefused() async throws {
        let server = try echoServer()
        XCTAssertThrowsError(try server.use(.rateLimit(limit: 0, window: .seconds(1)))) { error in
            XCTAssertEqual((error as? McpError)?.code, McpError.Code.invalidParams.rawValue, "\(error)")
        }
        XCTAssertThrowsError(try server.use(.requestLog(level: "loud"))) { error in
            XCTAssertEqual((error as? McpError)?.code, McpError.Code.invalidParams.rawValue, "\(error)")
        }
        // By configuration (ServerOptions.extra["middleware"]), names are the engine's.
        XCTAssertThrowsError(try echoServer(options: .init(extra: ["middleware": [["name": "caching"]]]))) { error in
            XCTAssertEqual((error as? McpError)?.code, McpError.Code.invalidParams.rawValue, "\(error)")
        }
        let configured = try echoServer(options: .init(extra: [
            "middleware": [["name": "rateLimit", "limit": 1, "windowMs": 60_000, "methods": ["tools/call"]]],
        ]))
        let client = try await Client.connect(to: configured)
        _ = try await client.callTool("echo")
        let limited = await T.mcpError { _ = try await client.callTool("echo") }
        XCTAssertEqual(limited?.code, -32004)
        await client.close()
    }

    func testRateLimitByToolOrGlobalKeysBucketsAcrossSessions() async throws {
        // By tool: one bucket per tool, shared by every session.
        var server = try echoServer()
        try server.registerTool("other") { _, _ in .text("other") }
        try server.use(.rateLimit(limit: 1, window: .seconds(60), by: [.tool], methods: ["tools/call"]))
        var a = try await Client.connect(to: server), b = try await Client.connect(to: server)
        _ = try await a.callTool("echo")
        var limited = await T.mcpError { [b] in _ = try await b.callTool("echo") }
        XCTAssertEqual(limited?.code, McpError.Code.rateLimited.rawValue)
        _ = try await b.callTool("other")
        limited = await T.mcpError { [a] in _ = try await a.callTool("other") }
        XCTAssertEqual(limited?.code, McpError.Code.rateLimited.rawValue)
        await a.close()
        await b.close()
        // Global: one bucket for everything, whatever the session or tool.
        server = try echoServer()
        try server.registerTool("other") { _, _ in .text("other") }
        try server.use(.rateLimit(limit: 2, window: .seconds(60), by: [.global], methods: ["tools/call"]))
        a = try await Client.connect(to: server)
        b = try await Client.connect(to: server)
        _ = try await a.callTool("echo")
        _ = try await b.callTool("other")
        for c in [a, b] {
            let refused = await T.mcpError { _ = try await c.callTool("echo") }
            XCTAssertEqual(refused?.code, McpError.Code.rateLimited.rawValue)
            XCTAssertEqual(refused?.data?["limit"], 2)
        }
        await a.close()
        await b.close()
    }

    func testRateLimitByPrincipalSpansSessionsOnAProtectedServer() async throws {
        // Over HTTP with a verified bearer token: a layer sees the principal and the request's
        // headers, and the principal's bucket is shared by its sessions.
        let probe = try await Server(name: "probe", version: "1").startHTTP()
        let port = probe.port
        try await probe.close()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(resource: resource, authorizationServers: ["http://127.0.0.1:1"]) { token in
            token.hasPrefix("tok-") ? AuthInfo(subject: String(token.dropFirst(4)), scopes: ["mcp"], audience: [resource]) : nil
        }
        let server = try echoServer()
        try server.use(.rateLimit(limit: 2, window: .seconds(60), by: [.principal], methods: ["tools/call"]))
        let seen = T.Box<[MiddlewareRequest]>([])
        try server.use(recording("p", T.Box([]), seen))
        let http = try await server.startHTTP(port: port, auth: auth)
        let url = http.url
        let connect = { (who: String) in
            try await Client.http(url: url, headers: ["Authorization": "Bearer tok-\(who)"])
        }
        let a1 = try await connect("alice"), a2 = try await connect("alice"), b = try await connect("bob")
        _ = try await a1.callTool("echo")
        _ = try await a2.callTool("echo")
        // Alice's third call, in either session, is over her limit; Bob has his own bucket.
        for c in [a1, a2] {
            let limited = await T.mcpError { _ = try await c.callTool("echo") }
            XCTAssertEqual(limited?.code, McpError.Code.rateLimited.rawValue)
            XCTAssertEqual(limited?.data?["limit"], 2)
        }
        let r = try await b.callTool("echo")
        XCTAssertEqual(r.text, "echoed")
        for c in [a1, a2, b] { await c.close() }
        try await http.close()
        let calls = seen.value.filter { $0.method == "tools/call" }
        XCTAssertEqual(calls.map { $0.principal?["subject"]?.stringValue }, ["alice", "alice", "bob"])
        XCTAssertEqual(calls.map { $0.principal?["scopes"]?.arrayValue?.compactMap(\.stringValue) },
                       [["mcp"], ["mcp"], ["mcp"]])
        XCTAssertEqual(calls.map { $0.httpHeader("Authorization") },
                       ["Bearer tok-alice", "Bearer tok-alice", "Bearer tok-bob"])
    }

    func testALayerSeesTheHTTPHeadersAndSession() async throws {
        let server = try echoServer()
        let seen = T.Box<[MiddlewareRequest]>([])
        try server.use(recording("h", T.Box([]), seen))
        let http = try await server.startHTTP()
        let client = try await Client.http(url: http.url, headers: ["X-Trace": "trace-42"])
        _ = try await client.callTool("echo")
        await client.close()
        try await http.close()
        let call = try XCTUnwrap(seen.value.first { $0.method == "tools/call" })
        XCTAssertEqual(call.httpHeader("X-Trace"), "trace-42")
        XCTAssertNotNil(call.sessionId)
        XCTAssertEqual(call.protocolVersion, client.protocolVersion)
    }

    /// bindings-swift/README.md, "Middleware": the snippet's layers, as written there (the
    /// timing line goes to stderr), then what a client sees through them.
    func testReadmeMiddlewareExample() async throws {
        let server = try Server(name: "demo", version: "1.0.0")
        try server.registerTool("echo") { _, _ in .text("echoed") }
        try server.registerTool("admin_reset") { _, _ in .text("reset") }
        // --- README snippet, from here
        try server.use(.maskErrors)   // outermost: internal errors reach the client as "Internal error"
        try server.use(.rateLimit(limit: 3, window: .seconds(10), methods: ["tools/call"]))
        try server.use(.timing { event in
            FileHandle.standardError.write(Data("\(event.method) \(event.tool ?? "-") \(event.duration) \(event.outcome)\n".utf8))
        })
        try server.use { request, next in          // a closure: (MiddlewareRequest, MiddlewareNext) async throws -> Value
            if request.tool?.hasPrefix("admin_") == true && request.principal == nil {
                throw McpError(code: -32003, message: "Permission denied", data: ["tool": .string(request.tool!)])
            }
            var result = try await next(request)   // the rest of the chain; call it at most once
            if case .object(var o) = result, request.method == "tools/call" {
                o["_meta"] = ["servedBy": "demo"]  // change the result
                result = .object(o)
            }
            return result
        }
        // --- to here
        let client = try await Client.connect(to: server)
        let echo = try await client.callTool("echo")
        XCTAssertEqual(echo.text, "echoed")
        XCTAssertEqual(echo.meta, ["servedBy": "demo"])
        let refused = await T.mcpError { _ = try await client.callTool("admin_reset") }
        XCTAssertEqual(refused?.code, -32003)
        XCTAssertEqual(refused?.data, ["tool": "admin_reset"])
        _ = try await client.callTool("echo")
        let limited = await T.mcpError { _ = try await client.callTool("echo") }
        XCTAssertEqual(limited?.code, -32004, "the 4th call in 10 s")
        await client.close()
    }

    /// A request the client cancels while a Swift layer awaits: the engine drops the layer's
    /// call, which cancels its task (as a handler's).
    func testACancelledRequestCancelsTheLayersTask() async throws {
        let server = try echoServer()
        let ended = T.Signal<String>()
        try server.use { request, next in
            guard request.tool == "slow" else { return try await next(request) }
            do {
                try await Task.sleep(for: .seconds(20))
                ended.send("slept")
            } catch is CancellationError {
                ended.send("cancelled")
                throw CancellationError()
            }
            return try await next(request)
        }
        let client = try await Client.connect(to: server)
        let call = Task { try await client.callTool("slow") }
        try await Task.sleep(for: .milliseconds(50))
        call.cancel()
        let outcome = try await ended.next(within: 10, "the layer's task to end")
        XCTAssertEqual(outcome, "cancelled")
        let echo = try await client.callTool("echo")
        XCTAssertEqual(echo.text, "echoed", "the session still serves")
        await client.close()
    }
}
