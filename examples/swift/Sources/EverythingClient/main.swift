// The "everything" client on FerroMCP's Swift API.
//
//   MCP_CONFORMANCE_SCENARIO=NAME EverythingClient URL
//       the client the official conformance suite drives in client mode (`core` suite), like
//       examples/node/everything_client.mjs; unknown scenario: lists the known ones, exit 1.
//   EverythingClient --interop --stdio CMD ARGS... | --interop --http URL
//       checks a server exposing tests/interop/SURFACE.md and prints a JSON report
//       {ok, checks: [{name, ok, detail}], error?}, like examples/python/interop_client.py.
//   EverythingClient --both-eras URL
//       one running server under both protocol eras: the interop checks with a handshake client
//       (2025-11-25, `initialize`), then a per-request client (`.auto`, which must settle on
//       2026-07-28: `server/discover`, `_meta` on every request), then both side by side; every
//       check's name starts with its client's revision. Same JSON report; exit 1 on any failure.

import ExampleSupport
import FerroMCP
import Foundation

/// The alpha's 2026-07-28 scenarios run by `exercise`.
let exercised = ["request-metadata", "sep-2322-client-request-state", "http-standard-headers",
                 "http-custom-headers", "http-invalid-tool-headers"]
/// The 0.1.16 core suite and the alpha's 2026-07-28 client scenarios (every scenario runs with
/// `protocolMode: .auto`: server/discover first, the initialize handshake where it is not offered).
let scenarios = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]
    + exercised + ["json-schema-ref-no-deref", "json-schema-2020-12-preservation"]
/// Every `auth/*` scenario runs the OAuth client too (`conformanceAuth`).
/// The Client ID Metadata Document URL the suite expects (auth/basic-cimd).
let clientMetadataURL = "https://conformance-test.local/client-metadata.json"
let redirectURI = "http://localhost:3000/callback"

/// A value several tasks (and synchronous callbacks) append to.
final class Collected<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
}

/// Fills every field the user left out with the schema's `default` (SEP-1034).
func applyDefaults(_ schema: Value, to content: [String: Value]) -> [String: Value] {
    var out = content
    for (name, property) in schema["properties"]?.objectValue ?? [:] {
        if let value = property["default"], out[name] == nil { out[name] = value }
    }
    return out
}

/// Closes the client, giving up after `seconds` (the process exits next anyway).
func close(_ client: Client, within seconds: Int) async {
    let done = AsyncStream<Void> { c in
        Task { await client.close(); c.finish() }
        Task { try? await Task.sleep(for: .seconds(seconds)); c.finish() }
    }
    for await _ in done {}
}

// ---- conformance client mode ----------------------------------------------------------------

#if canImport(Glibc)
import Glibc
let streamSocket = Int32(SOCK_STREAM.rawValue)
func closeSocket(_ fd: Int32) { Glibc.close(fd) }
#else
import Darwin
let streamSocket = SOCK_STREAM
func closeSocket(_ fd: Int32) { Darwin.close(fd) }
#endif

/// The redirect step against the suite's mock authorization server, which approves at once:
/// request the authorization URL (a plain-HTTP GET over a socket) and return the `Location` it
/// redirects to. A real host would show the URL to the user instead.
func approve(_ authorizationURL: String) throws -> String {
    guard let url = URLComponents(string: authorizationURL), url.scheme == "http", let host = url.host else {
        throw McpError(.invalidParams, "not a plain-HTTP authorization URL: \(authorizationURL)")
    }
    let target = url.percentEncodedPath + (url.percentEncodedQuery.map { "?\($0)" } ?? "")
    var hints = addrinfo()
    hints.ai_socktype = streamSocket
    var info: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(url.port ?? 80), &hints, &info) == 0, let first = info else {
        throw McpError(.internalError, "cannot resolve \(host)")
    }
    defer { freeaddrinfo(info) }
    var fd: Int32 = -1
    var candidate: UnsafeMutablePointer<addrinfo>? = first
    while let a = candidate {
        fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
        if fd >= 0 && connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { break }
        if fd >= 0 { closeSocket(fd); fd = -1 }
        candidate = a.pointee.ai_next
    }
    guard fd >= 0 else { throw McpError(.internalError, "cannot connect to \(host)") }
    defer { closeSocket(fd) }
    let request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"
    _ = request.withCString { write(fd, $0, strlen($0)) }
    var response = [UInt8]()
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        response += buf[0..<n]
    }
    let head = String(decoding: response, as: UTF8.self).components(separatedBy: "\r\n\r\n").first ?? ""
    let lines = head.components(separatedBy: "\r\n")
    let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    let location = lines.dropFirst().first { $0.lowercased().hasPrefix("location:") }
        .map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) }
    guard status / 100 == 3, let location else {
        throw McpError(.internalError, "authorization endpoint answered HTTP \(status), no redirect")
    }
    return location
}

/// Connects with OAuth (pre-registered or client credentials from MCP_CONFORMANCE_CONTEXT),
/// lists the tools and calls each one.
func conformanceAuth(url: String) async throws {
    let text = ProcessInfo.processInfo.environment["MCP_CONFORMANCE_CONTEXT"] ?? "{}"
    let context = (try? Value(json: text.isEmpty ? "{}" : text)) ?? [:]
    let clientId = context["client_id"]?.stringValue
    let secret = context["client_secret"]?.stringValue
    let credentials = (context["name"]?.stringValue ?? "").hasPrefix("auth/client-credentials")
        && clientId != nil && secret != nil
    let auth = OAuth(onRedirect: { try approve($0) }, redirectURI: redirectURI,
                     clientName: "ferromcp-everything-client", clientId: clientId, clientSecret: secret,
                     clientMetadataURL: clientMetadataURL, clientCredentials: credentials)
    // The revision the suite runs at: 2026-07-28 speaks the per-request era (server/discover,
    // MCP-Protocol-Version on every request), falling back to the handshake on older servers.
    var options = ClientOptions(name: "ferromcp-everything-client", version: "0.1.0")
    if let revision = ProcessInfo.processInfo.environment["MCP_CONFORMANCE_PROTOCOL_VERSION"],
       revision >= "2026-07-28" {
        options.protocolVersion = revision
        options.protocolMode = .auto
    }
    let client = try await Client.http(url: url, legacyFallback: false, auth: auth, options: options)
    do {
        for tool in try await client.listAllTools() {
            _ = try await client.callTool(tool.name)
        }
    } catch {
        await close(client, within: 5)
        throw error
    }
    await close(client, within: 5)
}

struct AddNumbers: Encodable { var a: Double; var b: Double }

/// The 2026-07-28 scenarios' common run: the tool calls MCP_CONFORMANCE_CONTEXT names
/// (`toolCalls: [{name, arguments}]`), or else every listed tool called with `{}`, then every
/// resource read and every prompt got where the server offers them.
func exercise(_ client: Client) async throws {
    let tools = try await client.listAllTools()
    let context = try Value(json: ProcessInfo.processInfo.environment["MCP_CONFORMANCE_CONTEXT"] ?? "{}")
    let calls: [(String, Value)] = context["toolCalls"]?.arrayValue.map { list in
        list.compactMap { c in c["name"]?.stringValue.map { ($0, c["arguments"] ?? [:]) } }
    } ?? tools.map { ($0.name, [:]) }
    for (name, arguments) in calls { _ = try await client.callTool(name, arguments: arguments) }
    let caps = client.serverCapabilities
    if caps?["resources"] != nil {
        for r in try await client.listResources().resources { _ = try await client.readResource(r.uri) }
    }
    if caps?["prompts"] != nil {
        for p in try await client.listPrompts().prompts { _ = try await client.getPrompt(p.name) }
    }
}

func conformance(_ scenario: String, url: String) async throws {
    var options = ClientOptions(
        name: "ferromcp-everything-client", version: "0.1.0",
        sampling: { _, _ in
            ["role": "assistant", "content": ["type": "text", "text": "This is a test response from the client"],
             "model": "test-model", "stopReason": "endTurn"]
        },
        elicitation: { params, _ in
            ElicitResult(action: .accept, content: .object(applyDefaults(params["requestedSchema"] ?? [:], to: [:])))
        })
    options.protocolMode = .auto
    let client = try await Client.http(url: url, options: options)
    do {
        switch scenario {
        case _ where exercised.contains(scenario):
            try await exercise(client)
        case "json-schema-ref-no-deref":
            _ = try await client.listAllTools() // listing is the scenario: no network $ref fetched
        case "json-schema-2020-12-preservation":
            let tool = try await client.listAllTools().first { $0.name == "json_schema_2020_12_tool" }
            _ = try await client.callTool("json_schema_echo", arguments: ["schema": tool?.inputSchema ?? [:]])
        case "initialize":
            do {
                _ = try await client.listTools()
            } catch let e as McpError where e.code == McpError.Code.methodNotFound.rawValue {
                // the mock server advertises no tools
            }
        case "tools_call":
            logLine("tools: \(try await client.listAllTools().map(\.name))")
            logLine("add_numbers -> \(try await client.callTool("add_numbers", arguments: AddNumbers(a: 5, b: 3)).text)")
        case "elicitation-sep1034-client-defaults":
            _ = try await client.listAllTools()
            logLine("result -> \(try await client.callTool("test_client_elicitation_defaults").text)")
        case "sse-retry":
            _ = try await client.listAllTools()
            logLine("result -> \(try await client.callTool("test_reconnection").text)")
        default:
            break
        }
    } catch {
        await close(client, within: 5)
        throw error
    }
    await close(client, within: 5)
}

// ---- interop client mode --------------------------------------------------------------------

/// The checks of tests/interop/SURFACE.md, in order.
final class InteropChecks: @unchecked Sendable {
    private let lock = NSLock()
    private var checks: [Value] = []
    func add(_ name: String, _ ok: Bool, _ detail: Value) {
        lock.withLock { checks.append(["name": .string(name), "ok": .bool(ok), "detail": detail]) }
    }
    var all: [Value] { lock.withLock { checks } }
}

func interop(_ argv: [String], _ checks: InteropChecks) async throws {
    let options = ClientOptions(name: "interop-swift-ferromcp-client", version: "1.0.0")
    let client: Client
    if argv.first == "--stdio", argv.count >= 2 {
        client = try await Client.stdio(command: argv[1], arguments: Array(argv.dropFirst(2)), options: options)
    } else if argv.first == "--http", argv.count == 2 {
        client = try await Client.http(url: argv[1], options: options)
    } else {
        throw McpError(.invalidParams, "usage: EverythingClient --interop --stdio CMD ARGS... | --interop --http URL")
    }
    let logs = Collected<Value>()
    let listener = Task {
        for await n in client.notifications where n.method == ServerNotification.Method.logMessage {
            logs.append(n.params ?? .null)
        }
    }
    defer { listener.cancel() }
    do {
        try await interopChecks(client, ScopedChecks(checks), logs)
    } catch {
        await client.close()
        throw error
    }
    await client.close()
}

/// Runs the interop checks against `url` with one client speaking `mode`, first checking that it
/// settled on revision `expected`; every check's name starts with that revision.
func eraChecks(url: String, mode: ProtocolMode, expected: String, _ checks: InteropChecks) async throws {
    var options = ClientOptions(name: "both-eras-swift-ferromcp-client", version: "1.0.0")
    options.protocolMode = mode
    let client = try await Client.http(url: url, legacyFallback: false, options: options)
    let era = ScopedChecks(checks, prefix: "\(expected) ")
    era.add("protocolVersion", client.protocolVersion == expected,
            ["mode": .string(mode.rawValue), "protocolVersion": .string(client.protocolVersion)])
    let logs = Collected<Value>()
    let listener = Task {
        for await n in client.notifications where n.method == ServerNotification.Method.logMessage {
            logs.append(n.params ?? .null)
        }
    }
    defer { listener.cancel() }
    do {
        try await interopChecks(client, era, logs)
        // The client's log level filters (a session's setting in the handshake era, every
        // request's `_meta` in the per-request era): below it nothing arrives, at it one message.
        try await client.setLoggingLevel(.warning)
        let before = logs.all.count
        _ = try await client.callTool("log", arguments: ["message": "below the level", "level": "info"])
        _ = try await client.callTool("log", arguments: ["message": "at the level", "level": "warning"])
        for _ in 0..<40 where logs.all.count == before { try await Task.sleep(for: .milliseconds(25)) }
        try await Task.sleep(for: .milliseconds(50))  // room for a message that should not come
        let seen = Array(logs.all.dropFirst(before))
        era.add("log level", seen.count == 1 && seen[0]["level"] == "warning" && seen[0]["data"] == "at the level",
                ["messages": .array(seen)])
    } catch {
        await client.close()
        throw error
    }
    await client.close()
}

/// Both eras against one running server: one after the other, then side by side.
func bothEras(url: String, _ checks: InteropChecks) async throws {
    let eras: [(ProtocolMode, String)] = [(.handshake, "2025-11-25"), (.auto, "2026-07-28")]
    for (mode, expected) in eras {
        try await eraChecks(url: url, mode: mode, expected: expected, checks)
    }
    let sideBySide = InteropChecks()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (mode, expected) in eras {
            group.addTask { try await eraChecks(url: url, mode: mode, expected: expected, sideBySide) }
        }
        try await group.waitForAll()
    }
    for check in sideBySide.all {
        checks.add("side by side: \(check["name"]?.stringValue ?? "")", check["ok"] == true, check["detail"] ?? .null)
    }
}

/// Adds checks under a name prefix (the revision of the client that ran them).
struct ScopedChecks: Sendable {
    let checks: InteropChecks
    let prefix: String
    init(_ checks: InteropChecks, prefix: String = "") {
        self.checks = checks
        self.prefix = prefix
    }
    func add(_ name: String, _ ok: Bool, _ detail: Value) { checks.add(prefix + name, ok, detail) }
}

func interopChecks(_ client: Client, _ checks: ScopedChecks, _ logs: Collected<Value>) async throws {
    let tools = try await client.listAllTools().map(\.name)
    checks.add("tools/list", ["echo", "add", "progress", "log", "fail"].allSatisfy(tools.contains),
               ["tools": .array(tools.map { .string($0) }), "protocolVersion": .string(client.protocolVersion)])

    let text = "interop ✓ text"
    var got = try await client.callTool("echo", arguments: ["text": .string(text)]).text
    checks.add("echo", got == text, ["got": .string(got)])

    got = try await client.callTool("add", arguments: ["a": 2, "b": 0.5]).text
    checks.add("add", got == "2.5", ["got": .string(got)])

    let seen = Collected<ProgressUpdate>()
    got = try await client.callTool("progress", arguments: ["steps": 3],
                                    options: RequestOptions(onProgress: { seen.append($0) })).text
    let progress = seen.all
    checks.add("progress", progress.map(\.progress) == [1, 2, 3] && progress.allSatisfy { $0.total == 3 } && got == "done", [
        "notifications": .array(progress.map { p in
            ["progress": .double(p.progress), "total": p.total.map(Value.double) ?? .null,
             "message": p.message.map(Value.string) ?? .null]
        }),
        "result": .string(got),
    ])

    try await client.setLoggingLevel(.debug)
    got = try await client.callTool("log", arguments: ["message": "interop log line", "level": "info"]).text
    for _ in 0..<20 where logs.all.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
    let messages = logs.all
    checks.add("log", messages.contains { $0["level"] == "info" && $0["data"] == "interop log line" } && got == "logged",
               ["messages": .array(messages), "result": .string(got)])

    let failed = try await client.callTool("fail")
    checks.add("fail", failed.isError && failed.text.contains("intentional failure"),
               ["isError": .bool(failed.isError), "text": .string(failed.text)])

    let uris = try await client.listAllResources().map(\.uri)
    var texts = try await client.readResource("mem://greeting").compactMap(\.text)
    checks.add("resources", uris.contains("mem://greeting") && texts == ["hello"],
               ["uris": .array(uris.map { .string($0) }), "texts": .array(texts.map { .string($0) })])

    let templates = try await client.listAllResourceTemplates().map(\.uriTemplate)
    texts = try await client.readResource("mem://items/42").compactMap(\.text)
    checks.add("resource-templates", templates.contains("mem://items/{id}") && texts == ["item 42"],
               ["templates": .array(templates.map { .string($0) }), "texts": .array(texts.map { .string($0) })])

    let names = try await client.listAllPrompts().map(\.name)
    let prompt = try await client.getPrompt("greet", arguments: ["name": "Ferris"])
    checks.add("prompts", names.contains("greet") && prompt.messages.contains { $0.role == .user && ($0.content.text ?? "").contains("Ferris") },
               ["prompts": .array(names.map { .string($0) }),
                "messages": .array(prompt.messages.map { ["role": .string($0.role.rawValue), "content": $0.content.value] })])
}

/// Prints the interop report (pretty JSON, as the Node and Python clients do) and exits.
func finish(_ checks: [Value], error: String?) -> Never {
    let ok = !checks.isEmpty && checks.allSatisfy { $0["ok"] == true } && error == nil
    var report: Value = ["ok": .bool(ok), "checks": .array(checks)]
    if let error { report["error"] = .string(error) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let text = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? report.jsonText
    print(text)
    exit(ok ? 0 : 1)
}

// ---- main -----------------------------------------------------------------------------------

let argv = Array(CommandLine.arguments.dropFirst())
if argv.first == "--interop" || argv.first == "--both-eras" {
    let checks = InteropChecks()
    let limit = argv.first == "--interop" ? 30 : 60
    Task.detached {
        try? await Task.sleep(for: .seconds(limit))
        finish(checks.all, error: "timed out after \(limit) s")
    }
    do {
        if argv.first == "--interop" {
            try await interop(Array(argv.dropFirst()), checks)
        } else if argv.count == 2 {
            try await bothEras(url: argv[1], checks)
        } else {
            throw McpError(.invalidParams, "usage: EverythingClient --both-eras URL")
        }
        finish(checks.all, error: nil)
    } catch {
        finish(checks.all, error: String(describing: error))
    }
} else {
    guard argv.count == 1 else {
        logLine("usage: MCP_CONFORMANCE_SCENARIO=NAME EverythingClient URL")
        exit(2)
    }
    let scenario = ProcessInfo.processInfo.environment["MCP_CONFORMANCE_SCENARIO"] ?? ""
    guard scenarios.contains(scenario) || scenario.hasPrefix("auth/") else {
        logLine("unknown scenario '\(scenario)'; known: \(scenarios.joined(separator: ", ")), auth/*")
        exit(1)
    }
    do {
        if scenario.hasPrefix("auth/") {
            try await conformanceAuth(url: argv[0])
        } else {
            try await conformance(scenario, url: argv[0])
        }
    } catch {
        logLine("everything-client: \(scenario): \(error)")
        exit(1)
    }
}
