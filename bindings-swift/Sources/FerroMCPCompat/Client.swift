// Client: the official swift-sdk's client (`Client(name:version:)`, `connect(transport:)`,
// `listTools()`, `callTool(name:arguments:)`, ...) on the engine's client, so swift-sdk client
// code ports by changing `import MCP` to `import FerroMCPCompat`. Each request crosses as the
// wire JSON of the swift-sdk's `Method` types (`request(_:_:)`).

import FerroMCP
import Foundation

/// An MCP client in the official swift-sdk's shape.
public actor Client {
    /// `clientInfo`.
    public struct Info: Hashable, Codable, Sendable {
        public var name: String
        public var title: String?
        public var version: String
        public var description: String?
        public var websiteUrl: String?
        public var icons: [Icon]?

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

    /// What a client declares (a server's `initializeHook` gets it). This client declares
    /// sampling, elicitation and roots from the handlers set before `connect`, not from this
    /// value (see the README); `tasks` turns on the engine's client tasks (see `Tasks`).
    public struct Capabilities: Hashable, Codable, Sendable {
        public struct Roots: Hashable, Codable, Sendable {
            public var listChanged: Bool?
            public init(listChanged: Bool? = nil) { self.listChanged = listChanged }
        }

        /// `sampling`: its `tools` and `context` sub-capabilities.
        public struct Sampling: Hashable, Codable, Sendable {
            public struct Tools: Hashable, Codable, Sendable { public init() {} }
            public struct Context: Hashable, Codable, Sendable { public init() {} }
            public var tools: Tools?
            public var context: Context?
            public init(tools: Tools? = nil, context: Context? = nil) {
                self.tools = tools
                self.context = context
            }
        }

        /// `elicitation`: form and URL modes.
        public struct Elicitation: Hashable, Codable, Sendable {
            public struct Form: Hashable, Codable, Sendable { public init() {} }
            public struct URL: Hashable, Codable, Sendable { public init() {} }
            public var form: Form?
            public var url: URL?
            public init(form: Form? = Form(), url: URL? = nil) {
                self.form = form
                self.url = url
            }
        }

        /// `tasks` (2025-11-25): the client runs a server's task-augmented
        /// `sampling/createMessage` and `elicitation/create` as tasks, as the swift-sdk's
        /// experimental tasks declare it (`Tasks.full()`, or `list`, `cancel` and
        /// `requests.sampling.createMessage` / `requests.elicitation.create`). Any value turns on
        /// the engine's client tasks (`ClientOptions.tasks`): such a request is answered at once
        /// with a `CreateTaskResult` while the handler runs as the task and returns its plain
        /// result, and the server's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`
        /// are answered from the engine's store. What is declared under `tasks.requests` follows
        /// the handlers set, with `list` and `cancel`.
        public struct Tasks: Hashable, Codable, Sendable {
            public struct List: Hashable, Codable, Sendable { public init() {} }
            public struct Cancel: Hashable, Codable, Sendable { public init() {} }
            public struct Requests: Hashable, Codable, Sendable {
                public struct Sampling: Hashable, Codable, Sendable {
                    public struct CreateMessage: Hashable, Codable, Sendable { public init() {} }
                    public var createMessage: CreateMessage?
                    public init(createMessage: CreateMessage? = nil) { self.createMessage = createMessage }
                }
                public struct Elicitation: Hashable, Codable, Sendable {
                    public struct Create: Hashable, Codable, Sendable { public init() {} }
                    public var create: Create?
                    public init(create: Create? = nil) { self.create = create }
                }
                public var sampling: Sampling?
                public var elicitation: Elicitation?
                public init(sampling: Sampling? = nil, elicitation: Elicitation? = nil) {
                    self.sampling = sampling
                    self.elicitation = elicitation
                }
            }
            public var list: List?
            public var cancel: Cancel?
            public var requests: Requests?
            public init(list: List? = nil, cancel: Cancel? = nil, requests: Requests? = nil) {
                self.list = list
                self.cancel = cancel
                self.requests = requests
            }
            /// `list`, `cancel` and both task-augmented requests.
            public static func full() -> Tasks {
                Tasks(list: List(), cancel: Cancel(),
                      requests: Requests(sampling: .init(createMessage: .init()), elicitation: .init(create: .init())))
            }
        }

        public var sampling: Sampling?
        public var elicitation: Elicitation?
        public var experimental: [String: String]?
        public var roots: Roots?
        public var tasks: Tasks?

        public init(sampling: Sampling? = nil, elicitation: Elicitation? = nil,
                    experimental: [String: String]? = nil, roots: Roots? = nil, tasks: Tasks? = nil) {
            self.sampling = sampling
            self.elicitation = elicitation
            self.experimental = experimental
            self.roots = roots
            self.tasks = tasks
        }
    }

    /// Whether to refuse requests the server did not declare a capability for before sending.
    public struct Configuration: Hashable, Codable, Sendable {
        public static let `default` = Configuration(strict: false)
        public static let strict = Configuration(strict: true)
        public var strict: Bool
        public init(strict: Bool = false) { self.strict = strict }
    }

    public var capabilities: Client.Capabilities
    public var configuration: Configuration
    private let info: Info
    private var engine: FerroMCP.Client?
    private var serverCapabilities: Server.Capabilities?
    private var notificationHandlers: [String: [@Sendable (EngineValue) async throws -> Void]] = [:]
    private var pump: Task<Void, Never>?
    private var feed: AsyncStream<ServerNotification>.Continuation?
    private var samplingHandler: (@Sendable (CreateSamplingMessage.Parameters) async throws -> CreateSamplingMessage.Result)?
    private var rootsHandler: (@Sendable () async throws -> [Root])?
    private var cancellers: [ID: @Sendable () -> Void] = [:]
    private var elicitationHandler: (@Sendable (CreateElicitation.Parameters) async throws -> CreateElicitation.Result)?

    public init(name: String, version: String, title: String? = nil, description: String? = nil,
                websiteUrl: String? = nil, icons: [Icon]? = nil, capabilities: Capabilities = Capabilities(),
                configuration: Configuration = .default) {
        info = Info(name: name, version: version, title: title, description: description, icons: icons,
                    websiteUrl: websiteUrl)
        self.capabilities = capabilities
        self.configuration = configuration
    }

    // MARK: Connecting

    /// Connects and initializes the session; returns the server's answer (its capabilities,
    /// `serverInfo`, instructions). `HTTPClientTransport` connects over Streamable HTTP,
    /// `InMemoryTransport` to a `Server` started on the other end of the pair.
    @discardableResult
    public func connect(transport: any Transport) async throws -> Initialize.Result {
        if engine != nil { throw MCPError.internalError("already connected") }
        var options = ClientOptions(name: info.name, version: info.version)
        // The swift-sdk's client `tasks` capability: the engine runs the tasks (see `Tasks`).
        options.tasks = capabilities.tasks != nil
        if let sampling = samplingHandler {
            options.sampling = { params, _ in
                let request = try Bridge.compat(params, as: CreateSamplingMessage.Parameters.self)
                do { return try Bridge.engine(try await sampling(request)) } catch { throw Bridge.engineError(error) }
            }
        }
        if let elicitation = elicitationHandler {
            options.elicitation = { params, _ in
                let request = try Bridge.compat(params, as: CreateElicitation.Parameters.self)
                do {
                    return try ElicitResult(try Bridge.engine(try await elicitation(request)))
                } catch { throw Bridge.engineError(error) }
            }
            options.elicitationURL = true
        }
        if let roots = rootsHandler {
            options.roots = {
                do {
                    return try await roots().map { FerroMCP.Root(uri: $0.uri, name: $0.name) }
                } catch { throw Bridge.engineError(error) }
            }
        }
        let client: FerroMCP.Client = try await Bridge.calling {
            switch transport {
            case let http as HTTPClientTransport:
                if let authorizer = http.authorizer {
                    return try await FerroMCP.Client.http(url: http.endpoint.absoluteString, headers: http.headers,
                                                          auth: try authorizer.engineOAuth(), options: options)
                }
                return try await FerroMCP.Client.http(url: http.endpoint.absoluteString, headers: http.headers,
                                                      options: options)
            case let memory as InMemoryTransport:
                return try await FerroMCP.Client.connect(to: await memory.server(), options: options)
            case is StdioTransport:
                throw MCPError.internalError(
                    "a client cannot speak over this process's own stdio here: start the server with FerroMCP's Client.stdio(command:)")
            default:
                throw MCPError.internalError("FerroMCPCompat connects over its own transports, not \(type(of: transport))")
            }
        }
        let result = try Bridge.compat(client.initializeResult, as: Initialize.Result.self)
        engine = client
        serverCapabilities = result.capabilities
        // One ordered inbox for the server's notifications and the progress of requests sent
        // with a progress token (which the engine reports per request).
        let (inbox, feed) = AsyncStream.makeStream(of: ServerNotification.self)
        self.feed = feed
        let forward = Task {
            for await n in client.notifications { feed.yield(n) }
            feed.finish()
        }
        pump = Task { [weak self] in
            await withTaskCancellationHandler {
                for await n in inbox { await self?.deliver(n) }
            } onCancel: {
                forward.cancel()
            }
        }
        return result
    }

    /// Ends the session (and a server process the engine started).
    public func disconnect() async {
        await engine?.close()
        engine = nil
        feed?.finish()
        feed = nil
        pump?.cancel()
        pump = nil
    }

    // MARK: Requests

    /// Sends a request of method `M` and waits for its result.
    public func request<M: Method>(_ type: M.Type, _ params: M.Parameters) async throws -> M.Result {
        guard let engine else { throw MCPError.internalError("Client connection not initialized") }
        let p = try Bridge.engine(params)
        var options = RequestOptions()
        if let token = p["_meta"]?["progressToken"], let feed {
            // The engine hands a request's progress to its own callback (with a token of its
            // own): delivered here as `ProgressNotification`s carrying the caller's token.
            options.onProgress = { update in
                var params: [String: EngineValue] = ["progressToken": token, "progress": .double(update.progress)]
                if let total = update.total { params["total"] = .double(total) }
                if let message = update.message { params["message"] = .string(message) }
                feed.yield(ServerNotification(method: ProgressNotification.name, params: .object(params)))
            }
        }
        let v = try await Bridge.calling { [options] in
            try await engine.sendRequest(method: M.name, params: p, options: options)
        }
        return try Bridge.compat(v, as: M.Result.self)
    }

    /// Sends `request` and returns at once; `value` of the context waits for the result and
    /// `cancelRequest(context.requestID)` cancels it (the engine sends `notifications/cancelled`).
    public func send<M: Method>(_ request: Request<M>) throws -> RequestContext<M.Result> {
        guard engine != nil else { throw MCPError.internalError("Client connection not initialized") }
        let id = request.id
        let task = Task { () async throws -> M.Result in
            do {
                let result = try await self.request(M.self, request.params)
                self.finished(id)
                return result
            } catch {
                self.finished(id)
                throw error
            }
        }
        cancellers[id] = { task.cancel() }
        return RequestContext(requestID: id, requestTask: task)
    }

    /// Cancels a request sent with `send(_:)` (its `value` throws `CancellationError`); the
    /// engine sends `notifications/cancelled` with its own reason. Throws for an id not in flight.
    public func cancelRequest(_ requestID: ID, reason: String? = nil) async throws {
        guard let cancel = cancellers.removeValue(forKey: requestID) else {
            throw MCPError.invalidParams("no request \(requestID) in flight")
        }
        cancel()
    }

    private func finished(_ id: ID) {
        cancellers[id] = nil
    }

    /// Sends the requests `body` adds; each `addRequest` returns the task of its result. The
    /// requests are sent one by one as they are added (JSON-RPC batches left the protocol in
    /// 2025-06-18, and the engine sends none).
    public func withBatch(body: @escaping @Sendable (Batch) async throws -> Void) async throws {
        guard engine != nil else { throw MCPError.internalError("Client connection not initialized") }
        try await body(Batch(client: self))
    }

    /// Collects the requests of `withBatch`.
    public actor Batch {
        private let client: Client

        init(client: Client) {
            self.client = client
        }

        /// Sends `request`; the task's value is its result.
        public func addRequest<M: Method>(_ request: Request<M>) async throws -> Task<M.Result, Swift.Error> {
            let client = client
            return Task { try await client.request(M.self, request.params) }
        }
    }

    /// Checks the server is alive.
    public func ping() async throws {
        _ = try await request(Ping.self, Empty())
    }

    public func listTools(cursor: String? = nil) async throws -> (tools: [Tool], nextCursor: String?) {
        try check(\.tools, "Tools")
        let r = try await request(ListTools.self, cursor.map(ListParameters.init(cursor:)) ?? .init())
        return (r.tools, r.nextCursor)
    }

    public func callTool(name: String, arguments: [String: Value]? = nil, meta: Metadata? = nil) async throws
        -> (content: [Tool.Content], isError: Bool?)
    {
        try check(\.tools, "Tools")
        let r = try await request(CallTool.self, .init(name: name, arguments: arguments, meta: meta))
        return (r.content, r.isError)
    }

    /// The swift-sdk's other `callTool`, chosen by its type (`let context:
    /// RequestContext<CallTool.Result> = try await client.callTool(...)`): the call in flight, as
    /// `send(_:)` gives it: `requestID` for `cancelRequest`, `value` the whole `CallTool.Result`
    /// (with the `structuredContent` and `_meta` the tuple form leaves out).
    public func callTool(name: String, arguments: [String: Value]? = nil, meta: Metadata? = nil) throws
        -> RequestContext<CallTool.Result>
    {
        try check(\.tools, "Tools")
        return try send(CallTool.request(.init(name: name, arguments: arguments, meta: meta)))
    }

    public func listResources(cursor: String? = nil) async throws -> (resources: [Resource], nextCursor: String?) {
        try check(\.resources, "Resources")
        let r = try await request(ListResources.self, cursor.map(ListParameters.init(cursor:)) ?? .init())
        return (r.resources, r.nextCursor)
    }

    public func listResourceTemplates(cursor: String? = nil) async throws
        -> (templates: [Resource.Template], nextCursor: String?)
    {
        try check(\.resources, "Resources")
        let r = try await request(ListResourceTemplates.self, cursor.map(ListParameters.init(cursor:)) ?? .init())
        return (r.templates, r.nextCursor)
    }

    public func readResource(uri: String) async throws -> [Resource.Content] {
        try check(\.resources, "Resources")
        return try await request(ReadResource.self, .init(uri: uri)).contents
    }

    public func subscribeToResource(uri: String) async throws {
        try check(\.resources, "Resources")
        _ = try await request(ResourceSubscribe.self, .init(uri: uri))
    }

    public func unsubscribeFromResource(uri: String) async throws {
        try check(\.resources, "Resources")
        _ = try await request(ResourceUnsubscribe.self, .init(uri: uri))
    }

    public func listPrompts(cursor: String? = nil) async throws -> (prompts: [Prompt], nextCursor: String?) {
        try check(\.prompts, "Prompts")
        let r = try await request(ListPrompts.self, cursor.map(ListParameters.init(cursor:)) ?? .init())
        return (r.prompts, r.nextCursor)
    }

    public func getPrompt(name: String, arguments: [String: String]? = nil) async throws
        -> (description: String?, messages: [Prompt.Message])
    {
        try check(\.prompts, "Prompts")
        let r = try await request(GetPrompt.self, .init(name: name, arguments: arguments))
        return (r.description, r.messages)
    }

    public func complete(promptName: String, argumentName: String, argumentValue: String,
                         context: [String: String]? = nil) async throws -> Complete.Result.Completion {
        try check(\.completions, "Completions")
        return try await request(Complete.self, .init(
            ref: .prompt(.init(name: promptName)), argument: .init(name: argumentName, value: argumentValue),
            context: context.map(Complete.Parameters.Context.init(arguments:)))).completion
    }

    public func complete(resourceURI: String, argumentName: String, argumentValue: String,
                         context: [String: String]? = nil) async throws -> Complete.Result.Completion {
        try check(\.completions, "Completions")
        return try await request(Complete.self, .init(
            ref: .resource(.init(uri: resourceURI)), argument: .init(name: argumentName, value: argumentValue),
            context: context.map(Complete.Parameters.Context.init(arguments:)))).completion
    }

    public func setLoggingLevel(_ level: LogLevel) async throws {
        try check(\.logging, "Logging")
        _ = try await request(SetLoggingLevel.self, .init(level: level))
    }

    // MARK: What the client offers

    /// Answers the server's sampling requests (`sampling/createMessage`). Set it before
    /// `connect`: the client declares the capability then.
    @discardableResult
    public func withSamplingHandler(
        _ handler: @escaping @Sendable (CreateSamplingMessage.Parameters) async throws -> CreateSamplingMessage.Result
    ) -> Self {
        samplingHandler = handler
        return self
    }

    /// Answers the server's `elicitation/create` (form and URL mode). Set it before `connect`:
    /// the client declares the capability then.
    @discardableResult
    public func withElicitationHandler(
        _ handler: @escaping @Sendable (CreateElicitation.Parameters) async throws -> CreateElicitation.Result
    ) -> Self {
        elicitationHandler = handler
        return self
    }

    /// Answers the server's `roots/list`. Set it before `connect`: the client declares the
    /// `roots` capability (with `listChanged`) then.
    @discardableResult
    public func withRootsHandler(_ handler: @escaping @Sendable () async throws -> [Root]) -> Self {
        rootsHandler = handler
        return self
    }

    /// Tells the server the roots changed (`notifications/roots/list_changed`).
    public func notifyRootsChanged() async throws {
        try await notify(RootsListChangedNotification.message())
    }

    // MARK: Notifications

    /// Calls `handler` for every notification of type `N` the server sends.
    @discardableResult
    public func onNotification<N: Notification>(
        _ type: N.Type, handler: @escaping @Sendable (Message<N>) async throws -> Void
    ) async -> Self {
        notificationHandlers[N.name, default: []].append { params in
            try await handler(Message(method: N.name, params: try Bridge.compat(params, as: N.Parameters.self)))
        }
        return self
    }

    /// Sends a notification to the server.
    public func notify<N: Notification>(_ notification: Message<N>) async throws {
        guard let engine else { throw MCPError.internalError("Client connection not initialized") }
        let p = try Bridge.engine(notification.params)
        try await Bridge.calling { try await engine.sendNotification(method: notification.method, params: p) }
    }

    private func deliver(_ n: ServerNotification) async {
        for handler in notificationHandlers[n.method] ?? [] {
            // A handler's failure concerns that handler only, as in the swift-sdk.
            try? await handler(n.params ?? .object([:]))
        }
    }

    /// With `.strict`, refuses a request for a capability the server did not declare.
    private func check<T>(_ capability: KeyPath<Server.Capabilities, T?>, _ name: String) throws {
        guard configuration.strict else { return }
        guard let caps = serverCapabilities else { throw MCPError.internalError("Client connection not initialized") }
        if caps[keyPath: capability] == nil {
            throw MCPError.methodNotFound("\(name) is not supported by the server")
        }
    }
}
