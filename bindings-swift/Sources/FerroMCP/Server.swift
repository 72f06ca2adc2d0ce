// Server: an MCP server whose tools, resources, prompts and completions are Swift closures,
// served over stdio or Streamable HTTP (or connected in memory to a Client). The protocol,
// validation, paging and result shaping are the engine's; this file turns Swift registrations
// into the engine's JSON definitions and Swift closures into its handlers (ServerHandlers.swift).

import FerroMCPNative
import Foundation

/// An MCP server. Register features (they can be added and removed while serving), then serve
/// it over stdio (`serveStdio()`), Streamable HTTP (`serveHTTP(...)` / `startHTTP(...)`), or
/// connect a client to it in memory (`Client.connect(to:)`).
///
/// ```swift
/// let server = try Server(name: "demo", version: "1.0.0")
/// try server.registerTool("add", inputSchema: schema, arguments: Add.self) { args, _ in
///     .text("\(args.a + args.b)")
/// }
/// try await server.serveStdio()
/// ```
///
/// Handlers are `@Sendable` closures, run concurrently, each in its own task; `RequestContext`
/// describes the request. A handler's task starts on the engine's thread and runs there until
/// it first suspends (an `await` that waits), then continues on Swift's global executor: a
/// handler that answers without waiting costs no thread hop. Long synchronous work holds up
/// the engine meanwhile; run it elsewhere (`await Task.detached { ... }.value`). A tool that throws answers an `isError` result with the error's
/// message (the model sees it), `McpError` of any code included, except the errors the client
/// must act on, which are that JSON-RPC error: `urlElicitationRequired`, a 2026-07-28 input
/// round (`McpError.inputRequired`) and, under 2026-07-28, `missingRequiredClientCapability`.
/// The engine decides this for every language's tools. A resource, prompt or completion
/// handler that throws `McpError` answers that JSON-RPC error; any other error answers an
/// internal error with its description.
public final class Server: Sendable {
    /// The engine's server (`Client.connect(to:)` connects to it).
    let native: NativeServer

    /// A server named `name` (its `serverInfo`). Throws `McpError` (invalid params) when the
    /// engine rejects the configuration: an empty name, an unknown key in `options.extra`.
    public init(name: String, version: String, title: String? = nil, instructions: String? = nil,
                options: ServerOptions = .init()) throws {
        let config = Self.configValue(name: name, version: version, title: title, instructions: instructions,
                                      options: options).jsonText
        native = try bridged { try NativeServer(config: config) }
    }

    /// The engine's `ServerConfig` JSON for `init`'s arguments (only the keys set).
    static func configValue(name: String, version: String, title: String?, instructions: String?,
                            options: ServerOptions) -> Value {
        var o = options.extra
        o["name"] = .string(name)
        o["version"] = .string(version)
        o.set("title", title.map(Value.string))
        o.set("instructions", instructions.map(Value.string))
        o.set("websiteUrl", options.websiteUrl.map(Value.string))
        o.set("icons", options.icons.map(Value.array))
        o.set("pageSize", options.pageSize.map(Value.int))
        o.set("requestTimeoutMs", options.requestTimeout.map { .int($0.wholeMilliseconds) })
        o.set("maxMessageSize", options.maxMessageSize.map(Value.int))
        o.set("cacheTtlMs", options.cacheTtlMs.map(Value.int))
        o.set("cacheScope", options.cacheScope.map { .string($0.rawValue) })
        o.set("cacheHints", options.cacheHints.map { .object($0.mapValues(\.value)) })
        o.set("maxListenStreams", options.maxListenStreams.map(Value.int))
        o.set("requestStateKeys", options.requestStateKeys.map { keys in
            .array(keys.map { .object(["id": .string($0.id), "secret": .string($0.secret)]) })
        })
        o.set("requestStateReplayCapacity", options.requestStateReplayCapacity.map(Value.int))
        if options.enableTools { o["enableTools"] = true }
        if options.enableResources { o["enableResources"] = true }
        if options.enablePrompts { o["enablePrompts"] = true }
        o.set("enableLogging", options.enableLogging.map(Value.bool))
        if options.tasksExtension { o["tasksExtension"] = true }
        o.set("supportedVersions", options.supportedVersions.map { .array($0.map(Value.string)) })
        return .object(o)
    }

    // MARK: Tools

    /// Registers (or replaces) a tool whose handler gets the arguments as a `Value`.
    ///
    /// The engine validates the arguments against `inputSchema` (JSON Schema) before the
    /// handler runs; invalid arguments are answered with a tool error the model can read
    /// (`isError: true`, the problems in its text; SEP-1303), not a JSON-RPC error. With an `outputSchema` the handler must answer `structuredContent`
    /// matching it. Throws `McpError` when a schema does not compile.
    public func registerTool(
        _ name: String, title: String? = nil, description: String? = nil,
        inputSchema: Value = ["type": "object"], outputSchema: Value? = nil,
        annotations: ToolAnnotations? = nil, icons: [Value]? = nil, meta: Value? = nil,
        taskSupport: TaskSupport? = nil,
        handler: @escaping @Sendable (Value, RequestContext) async throws -> ToolResult
    ) throws {
        let definition = Self.toolDefinition(
            name, title, description, inputSchema, outputSchema, annotations, icons, meta, taskSupport)
        try addTool(definition) { text, ctx in try await handler(try Value(json: text), ctx).answer }
    }

    /// Registers (or replaces) a tool whose handler gets its arguments decoded into
    /// `Arguments` (as `JSONDecoder` with its default options decodes them, after the engine
    /// validated them against `inputSchema`).
    /// Arguments that fail `inputSchema` are a tool error (`isError: true`), as above, and so
    /// are arguments that pass it but do not decode into `Arguments`: the result's text names
    /// the problem (`Invalid arguments of tool "name":` and a line per problem, as the engine
    /// words its schema failures; SEP-1303), not a JSON-RPC error, in a task of the tasks
    /// extension too (the task completes with that result); the handler does not run.
    public func registerTool<Arguments: Decodable & Sendable>(
        _ name: String, title: String? = nil, description: String? = nil,
        inputSchema: Value = ["type": "object"], outputSchema: Value? = nil,
        annotations: ToolAnnotations? = nil, icons: [Value]? = nil, meta: Value? = nil,
        taskSupport: TaskSupport? = nil,
        arguments: Arguments.Type,
        handler: @escaping @Sendable (Arguments, RequestContext) async throws -> ToolResult
    ) throws {
        let definition = Self.toolDefinition(
            name, title, description, inputSchema, outputSchema, annotations, icons, meta, taskSupport)
        try addTool(definition) { text, ctx in
            let decoded = try Self.decodeArguments(text, as: Arguments.self, tool: name)
            return try await handler(decoded, ctx).answer
        }
    }

    /// Registers (or replaces) a tool with structured output: the handler's `Output` is
    /// encoded (with `JSONEncoder`) as the result's `structuredContent`, its JSON text as the
    /// text content. The engine checks it against `outputSchema`. Arguments are decoded as in
    /// `registerTool(_:arguments:handler:)`; pass `Value.self` to take them undecoded.
    public func registerTool<Arguments: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String, title: String? = nil, description: String? = nil,
        inputSchema: Value = ["type": "object"],
        annotations: ToolAnnotations? = nil, icons: [Value]? = nil, meta: Value? = nil,
        taskSupport: TaskSupport? = nil,
        arguments: Arguments.Type, outputSchema: Value,
        handler: @escaping @Sendable (Arguments, RequestContext) async throws -> Output
    ) throws {
        let definition = Self.toolDefinition(
            name, title, description, inputSchema, outputSchema, annotations, icons, meta, taskSupport)
        try addTool(definition) { text, ctx in
            let decoded = try Self.decodeArguments(text, as: Arguments.self, tool: name)
            let output = try await handler(decoded, ctx)
            let value: Value
            do {
                value = try Value(encoding: output)
            } catch {
                // The tool's failure like any other (the engine makes it an `isError` result).
                throw McpError(.internalError, "tool \"\(name)\": cannot encode its output: \(error)")
            }
            // An output with a `content` list would pass for a whole CallToolResult in the
            // engine's shaping: hand that one over as the result it stands for.
            if value["content"]?.arrayValue != nil {
                return ToolResult(content: [.text(value.jsonText)], structuredContent: value).answer
            }
            return .json(value.jsonText)
        }
    }

    /// Removes a tool; returns whether it existed.
    @discardableResult
    public func removeTool(_ name: String) -> Bool {
        native.removeTool(name: name)
    }

    // MARK: Resources

    /// Registers (or replaces) a static resource at `uri`. The handler gets the URI read.
    public func registerResource(
        _ uri: String, name: String, title: String? = nil, description: String? = nil,
        mimeType: String? = nil, icons: [Value]? = nil, meta: Value? = nil,
        handler: @escaping @Sendable (String, RequestContext) async throws -> ResourceResult
    ) throws {
        var d: [String: Value] = ["uri": .string(uri), "name": .string(name)]
        Self.describe(&d, title, description, mimeType, icons, meta)
        let adapter = ResourceAdapter { uri, _, ctx in try await handler(uri, ctx) }
        let definition = Value.object(d).jsonText
        try bridged { try native.addResource(definition: definition, handler: adapter) }
    }

    /// Registers (or replaces) a resource template (RFC 6570 `uriTemplate`, e.g.
    /// `"file:///{path}"`). The handler gets the URI read and the template's variables.
    public func registerResourceTemplate(
        _ uriTemplate: String, name: String, title: String? = nil, description: String? = nil,
        mimeType: String? = nil, icons: [Value]? = nil, meta: Value? = nil,
        handler: @escaping @Sendable (String, [String: String], RequestContext) async throws -> ResourceResult
    ) throws {
        var d: [String: Value] = ["uriTemplate": .string(uriTemplate), "name": .string(name)]
        Self.describe(&d, title, description, mimeType, icons, meta)
        let adapter = ResourceAdapter(handler)
        let definition = Value.object(d).jsonText
        try bridged { try native.addResourceTemplate(definition: definition, handler: adapter) }
    }

    /// Removes a static resource; returns whether it existed.
    @discardableResult
    public func removeResource(_ uri: String) -> Bool {
        native.removeResource(uri: uri)
    }

    /// Tells the sessions subscribed to `uri` that it changed (`notifications/resources/updated`).
    public func notifyResourceUpdated(_ uri: String) {
        native.notifyResourceUpdated(uri: uri)
    }

    // MARK: Prompts

    /// Registers (or replaces) a prompt. The handler gets the arguments by name; the engine
    /// checks that the required ones are there.
    public func registerPrompt(
        _ name: String, title: String? = nil, description: String? = nil,
        arguments: [PromptArgument] = [], icons: [Value]? = nil, meta: Value? = nil,
        handler: @escaping @Sendable ([String: String], RequestContext) async throws -> PromptResult
    ) throws {
        var d: [String: Value] = ["name": .string(name)]
        Self.describe(&d, title, description, nil, icons, meta)
        if !arguments.isEmpty { d["arguments"] = .array(arguments.map(\.value)) }
        let adapter = PromptAdapter(handler)
        let definition = Value.object(d).jsonText
        try bridged { try native.addPrompt(definition: definition, handler: adapter) }
    }

    /// Removes a prompt; returns whether it existed.
    @discardableResult
    public func removePrompt(_ name: String) -> Bool {
        native.removePrompt(name: name)
    }

    // MARK: Completions

    /// Registers the completion of argument `argument` of prompt `prompt`. The handler answers
    /// the suggested values (the engine sends at most 100, with `total` and `hasMore`).
    public func registerCompletion(
        prompt: String, argument: String,
        handler: @escaping @Sendable (CompletionRequest, RequestContext) async throws -> [String]
    ) throws {
        try addCompletion(["type": "ref/prompt", "name": .string(prompt)], argument, handler)
    }

    /// Registers the completion of variable `argument` of the resource template
    /// `resourceTemplate` (its `uriTemplate`).
    public func registerCompletion(
        resourceTemplate: String, argument: String,
        handler: @escaping @Sendable (CompletionRequest, RequestContext) async throws -> [String]
    ) throws {
        try addCompletion(["type": "ref/resource", "uri": .string(resourceTemplate)], argument, handler)
    }

    /// Registers the fallback completion handler: it answers every `completion/complete` for
    /// which no prompt- or template-specific handler is registered (the request's `ref` is in
    /// `CompletionRequest.raw["ref"]`).
    public func registerCompletion(
        handler: @escaping @Sendable (CompletionRequest, RequestContext) async throws -> [String]
    ) throws {
        let adapter = CompletionAdapter(handler)
        try bridged { try native.addCompletion(reference: nil, argument: nil, handler: adapter) }
    }

    // MARK: Logging

    /// Sends a log message (`notifications/message`) to every live session whose logging
    /// level lets `level` through.
    public func log(_ level: LogLevel, _ data: Value, logger: String? = nil) async {
        // Fails only for data that is not JSON, which a Value always is.
        try? await native.log(level: level.rawValue, logger: logger, data: data.jsonText)
    }

    // MARK: Serving

    /// Serves one session over this process's stdin and stdout until stdin closes, `stop()` is
    /// called or the calling task is cancelled; each winds down gracefully (see `stop()`) and
    /// then returns.
    ///
    /// Sets `SIGPIPE` to be ignored (process-wide, as Python and Node do by default): a client
    /// that goes away closes the pipe under a write, which should end the session, not the
    /// process.
    public func serveStdio() async throws {
        signal(SIGPIPE, SIG_IGN)
        let native = native
        try await withTaskCancellationHandler {
            try await bridged { try await native.serveStdio() }
        } onCancel: {
            native.stopStdio()
        }
    }

    /// Stops `serveStdio()` gracefully, as cancelling its task does: no further request is
    /// read; an open `subscriptions/listen` is answered with its completion result
    /// (`{"resultType": "complete", "_meta": {subscriptionId}}`, 2026-07-28's "Graceful
    /// Closure"); requests being served, the caller's own included, finish and are answered;
    /// then `serveStdio()` returns. Does not wait, so a handler may call it. Final: stdin is
    /// served once, so a later `serveStdio()` returns at once. (HTTP: `HTTPServer.close()`.)
    public func stop() {
        native.stopStdio()
    }

    /// Starts serving Streamable HTTP at `http://host:port` + `options.path` (port 0: any
    /// free port; `HTTPServer.url` and `.port` say which) and returns at once. Stop it with
    /// `HTTPServer.close()`.
    public func startHTTP(host: String = "127.0.0.1", port: Int = 0,
                          options: HTTPOptions = .init()) async throws -> HTTPServer {
        guard let port16 = UInt16(exactly: port) else {
            throw McpError(.invalidParams, "port \(port) is not in 0...65535")
        }
        let config = options.value.jsonText
        let http = try await bridged {
            try await native.serveHttp(host: host, port: port16, config: config)
        }
        return HTTPServer(http)
    }

    /// Serves Streamable HTTP until the calling task is cancelled, then closes the server
    /// (in-flight requests finish, sessions close) and returns.
    public func serveHTTP(host: String = "127.0.0.1", port: Int = 0,
                          options: HTTPOptions = .init()) async throws {
        let http = try await startHTTP(host: host, port: port, options: options)
        try await http.serveUntilCancelled()
    }

    // MARK: Internals

    private func addTool(
        _ definition: Value,
        _ body: @escaping @Sendable (String, RequestContext) async throws -> HandlerAnswer
    ) throws {
        let adapter = ToolAdapter(body)
        let text = definition.jsonText
        try bridged { try native.addTool(definition: text, handler: adapter) }
    }

    private func addCompletion(
        _ reference: Value, _ argument: String,
        _ handler: @escaping @Sendable (CompletionRequest, RequestContext) async throws -> [String]
    ) throws {
        let adapter = CompletionAdapter(handler)
        let ref = reference.jsonText
        try bridged { try native.addCompletion(reference: ref, argument: argument, handler: adapter) }
    }

    private static func toolDefinition(
        _ name: String, _ title: String?, _ description: String?, _ inputSchema: Value,
        _ outputSchema: Value?, _ annotations: ToolAnnotations?, _ icons: [Value]?, _ meta: Value?,
        _ taskSupport: TaskSupport?
    ) -> Value {
        var d: [String: Value] = ["name": .string(name), "inputSchema": inputSchema]
        describe(&d, title, description, nil, icons, meta)
        d.set("outputSchema", outputSchema)
        d.set("annotations", annotations?.value)
        d.set("execution", taskSupport.map { .object(["taskSupport": .string($0.rawValue)]) })
        return .object(d)
    }

    /// Sets the optional fields every kind of definition shares.
    private static func describe(
        _ d: inout [String: Value], _ title: String?, _ description: String?, _ mimeType: String?,
        _ icons: [Value]?, _ meta: Value?
    ) {
        d.set("title", title.map(Value.string))
        d.set("description", description.map(Value.string))
        d.set("mimeType", mimeType.map(Value.string))
        d.set("icons", icons.map(Value.array))
        d.set("_meta", meta)
    }

    /// One decoder for every tool call (its options never change) instead of one per call.
    private static let argumentDecoder = JSONDecoder()

    /// Decodes a tool's validated arguments' JSON text into `T`: from the parsed `Value` when
    /// `ArgumentDecoder`'s fast path can (what `JSONDecoder` would answer, at a fraction of its
    /// cost), else with `JSONDecoder`. A failure is a tool execution error (`isError`,
    /// SEP-1303) worded as the engine words its schema failures, so the model can retry with
    /// corrected arguments.
    static func decodeArguments<T: Decodable>(_ text: String, as type: T.Type, tool: String) throws -> T {
        do {
            if T.self == Value.self { return try Value(json: text) as! T }
            if let value = try? Value(json: text), let decoded = ArgumentDecoder.decode(T.self, from: value) {
                return decoded
            }
            return try argumentDecoder.decode(T.self, from: Data(text.utf8))
        } catch {
            let (path, message) = decodingProblem(error)
            let shown = path.isEmpty ? message : "\(path): \(message)"
            throw ArgumentsDidNotDecode(
                path: path, problem: message, message: "Invalid arguments of tool \"\(tool)\":\n- \(shown)")
        }
    }
}

/// A tool's arguments did not decode into its `Arguments` type. Not an `McpError`: the engine
/// answers it as a tool execution error (`isError` with `message`), in a task of the tasks
/// extension too, where an `McpError` would fail the task with its code instead.
struct ArgumentsDidNotDecode: Error {
    /// Where decoding failed (a JSON pointer; empty: the arguments object itself).
    let path: String
    /// Why, in words.
    let problem: String
    /// The text the model reads.
    let message: String
}

/// Where a `Decodable` failed (a JSON pointer) and why, in words.
func decodingProblem(_ error: Error) -> (path: String, message: String) {
    func pointer(_ path: [CodingKey]) -> String {
        path.map { key in
            let s = key.intValue.map(String.init) ?? key.stringValue
            return "/" + s.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }.joined()
    }
    guard let e = error as? DecodingError else { return ("", String(describing: error)) }
    switch e {
    case .keyNotFound(let key, let c):
        return (pointer(c.codingPath), "missing required property \"\(key.stringValue)\"")
    case .typeMismatch(let type, let c):
        return (pointer(c.codingPath), "expected \(type): \(c.debugDescription)")
    case .valueNotFound(let type, let c):
        return (pointer(c.codingPath), "expected \(type), found null")
    case .dataCorrupted(let c):
        return (pointer(c.codingPath), c.debugDescription)
    @unknown default:
        return ("", String(describing: e))
    }
}
