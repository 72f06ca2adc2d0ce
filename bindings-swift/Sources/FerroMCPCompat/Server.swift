// Server: the official swift-sdk's server (`Server(name:version:capabilities:)`,
// `withMethodHandler(ListTools.self) { ... }`, `start(transport:)`, `notify`, `log`) on the
// ferromcp engine, so a swift-sdk server ports by changing `import MCP` to
// `import FerroMCPCompat`.
//
// How it maps onto the engine (as ferromcp's Python low-level `Server` does): each time a list
// handler (`ListTools`, `ListResources`, `ListResourceTemplates`, `ListPrompts`) is set, or its
// list-changed notification is sent with `notify`, the list is read (following `nextCursor`) and
// every item is registered with the engine, its calls going to the `CallTool` / `ReadResource` /
// `GetPrompt` handler. The engine then answers the list methods itself (paged, with its own
// cursors), validates tool arguments against the listed `inputSchema`, tracks subscriptions and
// logging levels, and sends list-changed notifications. So a list is read when it is set or
// announced as changed, not per request; a URI or name it did not list is unknown.

import FerroMCP
import Foundation

/// An MCP server in the official swift-sdk's shape (see the file comment for how it serves).
public actor Server {
    /// `serverInfo`.
    public struct Info: Hashable, Codable, Sendable {
        public let name: String
        public let title: String?
        public let version: String
        public let description: String?
        public let websiteUrl: String?
        public let icons: [Icon]?

        public init(name: String, version: String, title: String? = nil, description: String? = nil,
                    icons: [Icon]? = nil, websiteUrl: String? = nil) {
            self.name = name
            self.version = version
            self.title = title
            self.description = description
            self.icons = icons
            self.websiteUrl = websiteUrl
        }
    }

    /// What the server declares it supports.
    public struct Capabilities: Hashable, Codable, Sendable {
        public struct Resources: Hashable, Codable, Sendable {
            public var subscribe: Bool?
            public var listChanged: Bool?
            public init(subscribe: Bool? = nil, listChanged: Bool? = nil) {
                self.subscribe = subscribe
                self.listChanged = listChanged
            }
        }

        public struct Tools: Hashable, Codable, Sendable {
            public var listChanged: Bool?
            public init(listChanged: Bool? = nil) { self.listChanged = listChanged }
        }

        public struct Prompts: Hashable, Codable, Sendable {
            public var listChanged: Bool?
            public init(listChanged: Bool? = nil) { self.listChanged = listChanged }
        }

        public struct Logging: Hashable, Codable, Sendable {
            public init() {}
        }

        public struct Completions: Hashable, Codable, Sendable {
            public init() {}
        }

        public var completions: Completions?
        public var logging: Logging?
        public var prompts: Prompts?
        public var resources: Resources?
        public var tools: Tools?

        public init(completions: Completions? = nil, logging: Logging? = nil, prompts: Prompts? = nil,
                    resources: Resources? = nil, tools: Tools? = nil) {
            self.completions = completions
            self.logging = logging
            self.prompts = prompts
            self.resources = resources
            self.tools = tools
        }
    }

    /// Strictness (kept for source compatibility: the engine always checks what the protocol
    /// requires).
    public struct Configuration: Hashable, Codable, Sendable {
        public static let `default` = Configuration(strict: false)
        public static let strict = Configuration(strict: true)
        public var strict: Bool
        public init(strict: Bool) { self.strict = strict }
    }

    public nonisolated let name: String
    public nonisolated let version: String
    public nonisolated let title: String?
    public nonisolated let instructions: String?
    public var capabilities: Capabilities
    public var configuration: Configuration

    /// A request handler on the engine's JSON.
    typealias Handler = @Sendable (EngineValue) async throws -> EngineValue
    /// A `CallTool` handler as written, for the calls `HandlerTable.callToolDirect` takes.
    typealias CallToolHandler = @Sendable (CallTool.Parameters) async throws -> CallTool.Result

    /// The engine's server; nil when it refused the configuration (`setupError` says why,
    /// thrown by `start`), as the swift-sdk's initializer cannot throw.
    private nonisolated let engine: FerroMCP.Server?
    private var setupError: Error?
    /// The handlers, shared with the closures registered with the engine (which hold the table,
    /// not the server: the engine keeps serving what was registered if the app drops the
    /// `Server`, and nothing forms a cycle back to the engine).
    private nonisolated let handlers = HandlerTable()
    private var listedTools: Set<String> = []
    private var listedResources: Set<String> = []
    private var listedPrompts: Set<String> = []
    private var completionsRegistered = false
    private var serving: Task<Void, Never>?
    private var stdioPending = false
    private var started = false
    private var grace: Task<Void, Never>?
    /// The client's notifications and the initialize hook, shared with the engine's observer.
    private nonisolated let observers = ObserverTable()
    private var observing = false

    /// The request a handler is running for (so `notify` and `log` reach its session).
    @TaskLocal static var current: FerroMCP.RequestContext?
    /// The session whose notification an `onNotification` handler is running for (so a request
    /// it sends, such as `listRoots()`, goes back to that session).
    @TaskLocal static var notifyingSession: String?

    public init(name: String, version: String, title: String? = nil, instructions: String? = nil,
                capabilities: Server.Capabilities = .init(), configuration: Configuration = .default) {
        self.name = name
        self.version = version
        self.title = title
        self.instructions = instructions
        self.capabilities = capabilities
        self.configuration = configuration
        let options = ServerOptions(
            enableTools: capabilities.tools != nil, enableResources: capabilities.resources != nil,
            enablePrompts: capabilities.prompts != nil, enableLogging: capabilities.logging != nil)
        do {
            engine = try FerroMCP.Server(name: name, version: version, title: title, instructions: instructions,
                                         options: options)
        } catch {
            engine = nil
            setupError = Bridge.compatError(error)
        }
    }

    // MARK: Handlers

    /// Sets the handler of requests of method `M` (replacing an earlier one). The list handlers
    /// are called now (see the file comment), `CallTool`, `ReadResource`, `GetPrompt` and
    /// `Complete` for each request. `SetLoggingLevel`, `ResourceSubscribe`,
    /// `ResourceUnsubscribe`, `Initialize` and `Ping` are the engine's: a handler set for them is
    /// not called. A problem the engine finds in a listed item (a schema that does not compile)
    /// is thrown by `start`, or printed to stderr once the server is running.
    @discardableResult
    public func withMethodHandler<M: Method>(
        _ type: M.Type, handler: @escaping @Sendable (M.Parameters) async throws -> M.Result
    ) async -> Self {
        handlers.set(M.name, { params in
            let decoded = try Bridge.compat(params, as: M.Parameters.self)
            return try Bridge.engine(try await handler(decoded))
        }, callTool: handler as? CallToolHandler)
        await sync(M.name)
        if stdioPending && serving == nil { scheduleStdio() }
        return self
    }

    /// Sets the `CallTool` handler, as the generic `withMethodHandler(_:handler:)` does. This
    /// overload is the one `withMethodHandler(CallTool.self) { ... }` picks: it takes the
    /// closure at its own type, so a call reaches it without the two reabstraction thunks a
    /// closure passed through the generic `M.Parameters -> M.Result` signature and cast back to
    /// `CallToolHandler` goes through (each an async frame and an executor check per call).
    /// Pinned to the generic one by `DirectToolCallTests`
    /// (`testTheCallToolOverloadActsAsTheGenericWithMethodHandler`); what it and the other cuts
    /// of bench/results/swift-sdk-form-handler.md's 2026-12-01 section save is measured there.
    @discardableResult
    public func withMethodHandler(
        _ type: CallTool.Type, handler: @escaping @Sendable (CallTool.Parameters) async throws -> CallTool.Result
    ) async -> Self {
        handlers.set(CallTool.name, { params in
            let decoded = try Bridge.compat(params, as: CallTool.Parameters.self)
            return try Bridge.engine(try await handler(decoded))
        }, callTool: handler)
        await sync(CallTool.name)
        if stdioPending && serving == nil { scheduleStdio() }
        return self
    }

    /// Adds a handler of the client's notifications of type `N` (after those already added;
    /// all are called, in order). Notifications are handled one at a time, in the order they
    /// came, once the server is started (`start`); a request the handler sends to the client
    /// (`listRoots()`, ...) goes to the session the notification came from. The engine's own
    /// (`initialized`, `cancelled`, progress) reach handlers too; what a handler throws is
    /// printed to stderr (a notification has no answer).
    @discardableResult
    public func onNotification<N: Notification>(
        _ type: N.Type, handler: @escaping @Sendable (Message<N>) async throws -> Void
    ) -> Self {
        observers.add(N.name) { params in
            let decoded = try Bridge.compat(params, as: N.Parameters.self)
            try await handler(Message(method: N.name, params: decoded))
        }
        return self
    }

    // MARK: Serving

    /// Starts serving on `transport` and returns. Stdio is served in the background until stdin
    /// closes or `stop()`, reading stdin once the handlers set right after `start` are in (at
    /// `waitUntilCompleted()`, or 100 ms after the last `start` or `withMethodHandler` call,
    /// whichever comes first), so a client's first `tools/list` sees them. An in-memory
    /// transport waits for its client; the HTTP server transports answer what their framework
    /// hands them. `initializeHook` is called with each client's `clientInfo` and capabilities
    /// before the engine answers its `initialize` (the latest hook given to `start` counts); an
    /// error it throws refuses that handshake (an `MCPError` with its code and message, another
    /// error as an internal error with its description).
    public func start(
        transport: any Transport,
        initializeHook: (@Sendable (Client.Info, Client.Capabilities) async throws -> Void)? = nil
    ) async throws {
        if let setupError { throw setupError }
        guard let engine else { throw MCPError.internalError("the server could not be created") }
        if let initializeHook { observers.initializeHook = initializeHook }
        try observe(engine)
        switch transport {
        case is StdioTransport:
            guard !stdioPending else { throw MCPError.internalError("the server is already serving stdio") }
            stdioPending = true
            scheduleStdio()
        case let memory as InMemoryTransport:
            await memory.attach(engine)
        case let http as StatefulHTTPServerTransport:
            try await http.attach(engine)
        case let http as StatelessHTTPServerTransport:
            try await http.inner.attach(engine)
        case let listener as ListenerTransport:
            try await listener.attach(engine)
        default:
            throw MCPError.internalError(
                "FerroMCPCompat serves on its own transports (StdioTransport, InMemoryTransport, StatefulHTTPServerTransport, StatelessHTTPServerTransport, ListenerTransport), not \(type(of: transport))")
        }
        started = true
    }

    /// Starts reading stdin once the handlers set right after `start` are in (see `start`):
    /// 100 ms after the last `start` or `withMethodHandler`, or at `waitUntilCompleted()`.
    private func scheduleStdio() {
        grace?.cancel()
        grace = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(100))
            if !Task.isCancelled { await self?.serveStdioNow() }
        }
    }

    private func serveStdioNow() {
        guard stdioPending, serving == nil, let engine else { return }
        grace?.cancel()
        serving = Task { [weak self] in
            do { try await engine.serveStdio() } catch { await self?.stdioFailed(error) }
        }
    }

    /// Serving stdio failed (it could not start, or the transport broke): said on stderr, as
    /// `waitUntilCompleted()` returns nothing.
    private func stdioFailed(_ error: Error) {
        let e = Bridge.compatError(error)
        FileHandle.standardError.write(Data("FerroMCPCompat: serving stdio failed: \(e.localizedDescription)\n".utf8))
    }

    /// Puts the observer of handshakes and client notifications in the engine's chain, once
    /// (before the first request, as the engine requires of a layer).
    private func observe(_ engine: FerroMCP.Server) throws {
        guard !observing else { return }
        let observers = observers
        do {
            try engine.observeSessions(initialize: { params, _ in
                try await observers.initialize(params)
            }, notification: { method, params, sessionId in
                observers.received(method, params, sessionId)
            })
        } catch {
            throw Bridge.compatError(error)
        }
        observing = true
    }

    /// Stops serving stdio gracefully (requests being served are answered); final.
    public func stop() async {
        engine?.stop()
        await serving?.value
    }

    /// Returns when serving stdio has ended (stdin closed or `stop()`).
    public func waitUntilCompleted() async {
        serveStdioNow()
        await serving?.value
    }

    // MARK: Sending

    /// Sends a notification. Inside a handler it goes to that request's session. Outside one:
    /// a log message goes to every session (as `log`), a resource update to the sessions
    /// subscribed to it, a list-changed notification re-reads that list (the engine then
    /// announces the changes), and any other notification goes to every live session.
    public func notify<N: Notification>(_ notification: Message<N>) async throws {
        let params = try Bridge.engine(notification.params)
        if let ctx = Self.current {
            try await Bridge.calling { try await ctx.sendNotification(method: notification.method, params: params) }
            return
        }
        guard let engine else { throw setupError ?? MCPError.internalError("the server could not be created") }
        switch notification.method {
        case LogMessageNotification.name:
            let p = try Bridge.compat(params, as: LogMessageNotification.Parameters.self)
            try await log(level: p.level, logger: p.logger, data: p.data)
        case ResourceUpdatedNotification.name:
            engine.notifyResourceUpdated(params["uri"]?.stringValue ?? "")
        case ToolListChangedNotification.name:
            await sync(ListTools.name)
        case ResourceListChangedNotification.name:
            await sync(ListResources.name)
            await sync(ListResourceTemplates.name)
        case PromptListChangedNotification.name:
            await sync(ListPrompts.name)
        default:
            _ = try await Bridge.calling {
                try await engine.notifySessions(notification.method, params: params, sessionId: Self.notifyingSession)
            }
        }
    }

    /// Sends a log message: inside a handler to its session, else to every session whose
    /// logging level lets it through.
    public func log(level: LogLevel, logger: String? = nil, data: Value) async throws {
        let engineLevel = FerroMCP.LogLevel(rawValue: level.rawValue) ?? .info
        let value = try Bridge.engine(data)
        if let ctx = Self.current {
            try await Bridge.calling { try await ctx.log(engineLevel, value, logger: logger) }
        } else {
            await engine?.log(engineLevel, value, logger: logger)
        }
    }

    /// Sends a log message whose data is `data` encoded.
    public func log<T: Codable>(level: LogLevel, logger: String? = nil, data: T) async throws {
        try await log(level: level, logger: logger, data: try Value(data))
    }

    // MARK: Requests to the client

    // Inside a request handler these go to that request's client; inside an `onNotification`
    // handler to the session the notification came from; elsewhere to the server's only live
    // session (with several, or none, they throw `MCPError.invalidRequest` saying so).

    /// Lists the client's roots (`roots/list`).
    public func listRoots() async throws -> [Root] {
        let value = try await request("roots/list", nil)
        return try Bridge.compat(value["roots"] ?? .array([]), as: [Root].self)
    }

    /// Asks the client's model (`sampling/createMessage`).
    public func requestSampling(
        messages: [Sampling.Message], modelPreferences: Sampling.ModelPreferences? = nil, systemPrompt: String? = nil,
        includeContext: Sampling.ContextInclusion? = nil, temperature: Double? = nil, maxTokens: Int,
        stopSequences: [String]? = nil, _meta: Metadata? = nil
    ) async throws -> CreateSamplingMessage.Result {
        let params = CreateSamplingMessage.Parameters(
            messages: messages, modelPreferences: modelPreferences, systemPrompt: systemPrompt,
            includeContext: includeContext, temperature: temperature, maxTokens: maxTokens,
            stopSequences: stopSequences, _meta: _meta)
        return try Bridge.compat(try await request(CreateSamplingMessage.name, try Bridge.engine(params)))
    }

    /// Asks the user to fill in a form through the client (`elicitation/create`).
    public func requestElicitation(
        message: String, requestedSchema: Elicitation.RequestSchema, mode: Elicitation.Mode? = nil,
        _meta: Metadata? = nil
    ) async throws -> CreateElicitation.Result {
        let params = CreateElicitation.Parameters.form(
            .init(message: message, mode: mode, requestedSchema: requestedSchema, _meta: _meta))
        return try Bridge.compat(try await request(CreateElicitation.name, try Bridge.engine(params)))
    }

    /// Sends the user to `url` through the client (`elicitation/create` in URL mode).
    public func requestElicitation(message: String, url: String, elicitationId: String, _meta: Metadata? = nil)
        async throws -> CreateElicitation.Result
    {
        let params = CreateElicitation.Parameters.url(
            .init(message: message, url: url, elicitationId: elicitationId, _meta: _meta))
        return try Bridge.compat(try await request(CreateElicitation.name, try Bridge.engine(params)))
    }

    private func request(_ method: String, _ params: EngineValue?) async throws -> EngineValue {
        if let ctx = Self.current {
            return try await Bridge.calling { try await ctx.sendRequest(method: method, params: params) }
        }
        guard let engine else { throw setupError ?? MCPError.internalError("the server could not be created") }
        return try await Bridge.calling {
            try await engine.requestSession(method, params: params, sessionId: Self.notifyingSession)
        }
    }

    // MARK: Mapping onto the engine

    /// Registers with the engine what the handlers of `method` make available.
    private func sync(_ method: String) async {
        guard let engine else { return }
        do {
            switch method {
            case ListTools.name, CallTool.name: try await syncTools(engine)
            case ListResources.name, ReadResource.name:
                try await syncResources(engine)
                try await syncTemplates(engine)
            case ListResourceTemplates.name: try await syncTemplates(engine)
            case ListPrompts.name, GetPrompt.name: try await syncPrompts(engine)
            case Complete.name: try syncCompletions(engine)
            default: break
            }
        } catch {
            let e = Bridge.compatError(error)
            if started {
                FileHandle.standardError.write(Data("FerroMCPCompat: \(e.localizedDescription)\n".utf8))
            } else if setupError == nil {
                setupError = e
            }
        }
    }

    /// Every item of a list handler's pages.
    private func listAll<T: Decodable>(_ method: String, _ key: String, as: T.Type) async throws -> [T]? {
        guard let list = handlers[method] else { return nil }
        var items: [T] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await list(cursor.map { ["cursor": .string($0)] } ?? [:])
            items += try Bridge.compat(page[key] ?? .array([]), as: [T].self)
            cursor = page["nextCursor"]?.stringValue
            pages += 1
        } while cursor != nil && pages < 10_000
        return items
    }

    private func syncTools(_ engine: FerroMCP.Server) async throws {
        guard let tools = try await listAll(ListTools.name, "tools", as: Tool.self) else { return }
        let names = Set(tools.map(\.name))
        for gone in listedTools.subtracting(names) { engine.removeTool(gone) }
        listedTools = names
        for tool in tools {
            let name = tool.name
            let a = tool.annotations
            let handlers = handlers
            let register = { (schema: EngineValue) in
                try engine.registerTool(
                    name, title: tool.title, description: tool.description, inputSchema: schema,
                    outputSchema: try tool.outputSchema.map(Bridge.engine),
                    annotations: a.isEmpty ? nil : ToolAnnotations(
                        title: a.title, readOnlyHint: a.readOnlyHint, destructiveHint: a.destructiveHint,
                        idempotentHint: a.idempotentHint, openWorldHint: a.openWorldHint),
                    icons: try tool.icons.map { try $0.map(Bridge.engine) }, meta: try tool._meta.map(Bridge.engine)
                ) { [handlers] arguments, ctx in
                    if let direct = try await handlers.callToolDirect(name, arguments, ctx) {
                        return direct
                    }
                    var params: [String: EngineValue] = ["name": .string(name), "arguments": arguments]
                    if let meta = ctx.meta { params["_meta"] = meta }
                    return try Self.toolResult(try await handlers.call(CallTool.name, .object(params), ctx))
                }
            }
            let schema = try Bridge.engine(tool.inputSchema)
            do {
                try register(schema)
            } catch let refused as McpError {
                // The swift-sdk lists schemas as given; its README writes a property's description
                // as the property's schema (`"location": .string("City name")`), which is not a
                // JSON Schema. Such a property is listed as `{"description": ...}`.
                guard let lenient = Self.describedProperties(schema) else { throw refused }
                try register(lenient)
            }
        }
    }

    private func syncResources(_ engine: FerroMCP.Server) async throws {
        guard let resources = try await listAll(ListResources.name, "resources", as: Resource.self) else { return }
        let uris = Set(resources.map(\.uri))
        for gone in listedResources.subtracting(uris) { engine.removeResource(gone) }
        listedResources = uris
        for r in resources {
            try engine.registerResource(
                r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType,
                icons: try r.icons.map { try $0.map(Bridge.engine) }, meta: try r._meta.map(Bridge.engine)
            ) { [handlers] uri, ctx in
                try Self.resourceResult(try await handlers.call(ReadResource.name, ["uri": .string(uri)], ctx))
            }
        }
    }

    private func syncTemplates(_ engine: FerroMCP.Server) async throws {
        guard let templates = try await listAll(ListResourceTemplates.name, "resourceTemplates", as: Resource.Template.self)
        else { return }
        for t in templates {
            try engine.registerResourceTemplate(
                t.uriTemplate, name: t.name, title: t.title, description: t.description, mimeType: t.mimeType,
                icons: try t.icons.map { try $0.map(Bridge.engine) }, meta: try t._meta.map(Bridge.engine)
            ) { [handlers] uri, _, ctx in
                try Self.resourceResult(try await handlers.call(ReadResource.name, ["uri": .string(uri)], ctx))
            }
        }
    }

    private func syncPrompts(_ engine: FerroMCP.Server) async throws {
        guard let prompts = try await listAll(ListPrompts.name, "prompts", as: Prompt.self) else { return }
        let names = Set(prompts.map(\.name))
        for gone in listedPrompts.subtracting(names) { engine.removePrompt(gone) }
        listedPrompts = names
        for p in prompts {
            let name = p.name
            let arguments = (p.arguments ?? []).map {
                PromptArgument($0.name, title: $0.title, description: $0.description, required: $0.required)
            }
            try engine.registerPrompt(
                name, title: p.title, description: p.description, arguments: arguments,
                icons: try p.icons.map { try $0.map(Bridge.engine) }, meta: try p._meta.map(Bridge.engine)
            ) { [handlers] args, ctx in
                let params: EngineValue = ["name": .string(name), "arguments": .object(args.mapValues(EngineValue.string))]
                return try Self.promptResult(try await handlers.call(GetPrompt.name, params, ctx))
            }
        }
    }

    private func syncCompletions(_ engine: FerroMCP.Server) throws {
        guard !completionsRegistered else { return }
        try engine.registerCompletion { [handlers] request, ctx in
            let result = try await handlers.call(Complete.name, request.raw, ctx)
            return result["completion"]?["values"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        completionsRegistered = true
    }

    // MARK: Results

    static func toolResult(_ v: EngineValue) throws -> ToolResult {
        ToolResult(content: try (v["content"]?.arrayValue ?? []).map(FerroMCP.Content.init),
                   structuredContent: v["structuredContent"], isError: v["isError"]?.boolValue ?? false,
                   meta: v["_meta"])
    }

    static func resourceResult(_ v: EngineValue) throws -> ResourceResult {
        .contents(try (v["contents"]?.arrayValue ?? []).map(ResourceContents.init))
    }

    static func promptResult(_ v: EngineValue) throws -> PromptResult {
        let messages = try (v["messages"]?.arrayValue ?? []).map { m in
            PromptMessage(role: PromptMessage.Role(rawValue: m["role"]?.stringValue ?? "") ?? .user,
                          content: try FerroMCP.Content(m["content"] ?? .null))
        }
        return PromptResult(description: v["description"]?.stringValue, messages: messages)
    }

    /// `schema` with each property whose schema is a string listed as `{"description": ...}`;
    /// nil when it has none.
    static func describedProperties(_ schema: EngineValue) -> EngineValue? {
        guard var o = schema.objectValue, let properties = o["properties"]?.objectValue,
              properties.values.contains(where: { $0.stringValue != nil })
        else { return nil }
        o["properties"] = .object(properties.mapValues { p in
            p.stringValue.map { ["description": .string($0)] } ?? p
        })
        return .object(o)
    }
}

/// A server's request handlers by method, read by the engine's calls on any thread.
final class HandlerTable: @unchecked Sendable {
    private let lock = NSLock()
    private var byMethod: [String: Server.Handler] = [:]
    /// The `CallTool` handler as written (set with its `byMethod` entry, under the same lock).
    private var callTool: Server.CallToolHandler?

    subscript(method: String) -> Server.Handler? {
        lock.withLock { byMethod[method] }
    }

    /// Sets the handler of `method`; `callTool` is the same handler, typed, when `method` is
    /// `tools/call`.
    func set(_ method: String, _ handler: @escaping Server.Handler, callTool: Server.CallToolHandler?) {
        lock.withLock {
            byMethod[method] = handler
            if method == CallTool.name { self.callTool = callTool }
        }
    }

    /// The `CallTool` handler as written. `lock()`/`unlock()`, not `withLock`: a closure
    /// returned through `withLock`'s generic result comes back wrapped in a reabstraction thunk,
    /// which costs the call an async frame.
    private var typedCallTool: Server.CallToolHandler? {
        lock.lock()
        defer { lock.unlock() }
        return callTool
    }

    /// Runs the `CallTool` handler for a call of tool `name` without the JSON text round trips
    /// (DirectToolCall.swift), with `ctx` as the current request; nil when the arguments, the
    /// request's `_meta` or the result need the round trip (`call` then does it; for a result,
    /// here).
    @inline(__always)  // one async frame (and executor check) less per call
    func callToolDirect(_ name: String, _ arguments: EngineValue, _ ctx: FerroMCP.RequestContext) async throws
        -> ToolResult?
    {
        guard let handler = typedCallTool, let args = Bridge.compatArguments(arguments),
              let meta = Bridge.compatMeta(ctx.meta)
        else {
            return nil
        }
        let result: CallTool.Result
        do {
            result = try await Server.$current.withValue(ctx) {
                try await handler(CallTool.Parameters(name: name, arguments: args, meta: meta))
            }
        } catch {
            throw Bridge.engineError(error)
        }
        if let direct = Bridge.directToolResult(result) { return direct }
        return try Server.toolResult(try Bridge.engine(result))
    }

    /// Runs the handler of `method` for one request, with `ctx` as the current request.
    func call(_ method: String, _ params: EngineValue, _ ctx: FerroMCP.RequestContext) async throws -> EngineValue {
        guard let handler = self[method] else {
            throw McpError(.methodNotFound, "no handler for \(method)")
        }
        do {
            return try await Server.$current.withValue(ctx) { try await handler(params) }
        } catch {
            throw Bridge.engineError(error)
        }
    }
}

/// What a server hears outside its request handlers: the `initializeHook` of `start`, and the
/// `onNotification` handlers with the one ordered inbox that runs them.
final class ObserverTable: @unchecked Sendable {
    typealias NotificationHandler = @Sendable (EngineValue) async throws -> Void
    typealias InitializeHook = @Sendable (Client.Info, Client.Capabilities) async throws -> Void

    /// The handlers by method (shared with the inbox's task, which must not hold the table).
    private final class Handlers: @unchecked Sendable {
        let lock = NSLock()
        var byMethod: [String: [NotificationHandler]] = [:]
        subscript(method: String) -> [NotificationHandler] { lock.withLock { byMethod[method] ?? [] } }
    }

    private let lock = NSLock()
    private var hook: InitializeHook?
    private let handlers = Handlers()
    private let inbox: AsyncStream<(String, EngineValue, String?)>.Continuation

    init() {
        let (stream, inbox) = AsyncStream.makeStream(of: (String, EngineValue, String?).self)
        self.inbox = inbox
        let handlers = handlers
        Task {
            for await (method, params, sessionId) in stream {
                for handler in handlers[method] {
                    do {
                        try await Server.$notifyingSession.withValue(sessionId) { try await handler(params) }
                    } catch {
                        FileHandle.standardError.write(Data(
                            "FerroMCPCompat: the \(method) handler failed: \(Bridge.compatError(error).localizedDescription)\n".utf8))
                    }
                }
            }
        }
    }

    deinit { inbox.finish() }

    /// The hook `start(transport:initializeHook:)` was given last.
    var initializeHook: InitializeHook? {
        get { lock.withLock { hook } }
        set { lock.withLock { hook = newValue } }
    }

    func add(_ method: String, _ handler: @escaping NotificationHandler) {
        handlers.lock.withLock { handlers.byMethod[method, default: []].append(handler) }
    }

    /// A notification from a client, handed to the inbox (in the order they came).
    func received(_ method: String, _ params: EngineValue, _ sessionId: String?) {
        guard !handlers[method].isEmpty else { return }
        inbox.yield((method, params, sessionId))
    }

    /// Runs the hook (if any) for an `initialize` request's params; what it throws is the
    /// engine's error to answer, as the swift-sdk answers it.
    func initialize(_ params: EngineValue) async throws {
        guard let hook = initializeHook else { return }
        do {
            let info = try Bridge.compat(params["clientInfo"] ?? .null, as: Client.Info.self)
            var capabilities = params["capabilities"] ?? .object([:])
            // `experimental` is `[String: String]` in the swift-sdk's type; a client declaring
            // objects there (as the protocol allows) still reaches the hook, without them.
            if (try? Bridge.compat(capabilities, as: Client.Capabilities.self)) == nil, var o = capabilities.objectValue {
                o["experimental"] = nil
                capabilities = .object(o)
            }
            try await hook(info, try Bridge.compat(capabilities, as: Client.Capabilities.self))
        } catch let e as MCPError {
            throw Bridge.engineError(e)
        } catch {
            throw McpError(.internalError, error.localizedDescription)
        }
    }
}
