// ClientTypes: what a `Client` is configured with (ClientOptions, RequestOptions) and the typed
// results of its requests (Tool, CallToolResult, Resource, Prompt, ...), each read from the MCP
// JSON the engine hands over. Every result keeps the JSON it was read from (`raw`), so fields
// newer than this facade are not lost.

import FerroMCPNative
import Foundation

// MARK: - Options

/// Answers the server's `sampling/createMessage`: gets the `CreateMessageRequest` params
/// (`messages`, `maxTokens`, `systemPrompt`, `tools`, ...) and returns a `CreateMessageResult`
/// (`role`, `content`, `model`, `stopReason`).
public typealias SamplingHandler = @Sendable (_ params: Value, _ context: RequestContext) async throws -> Value

/// Answers the server's `elicitation/create`: gets the `ElicitRequest` params (`message` and
/// `requestedSchema`, or in URL mode `mode: "url"`, `url`, `elicitationId`).
public typealias ElicitationHandler = @Sendable (_ params: Value, _ context: RequestContext) async throws -> ElicitResult

/// Answers the server's `roots/list`.
public typealias RootsHandler = @Sendable () async throws -> [Root]

/// How a `Client` introduces itself and what it offers the server.
///
/// A capability is advertised only when its handler is set: `sampling`, `elicitation`,
/// `roots`. A handler that throws `McpError` answers the server with that JSON-RPC error; any
/// other error answers `internalError` with the error's description.
public struct ClientOptions: Sendable {
    /// `clientInfo.name`.
    public var name: String
    /// `clientInfo.version` (default: the FerroMCP engine's version).
    public var version: String
    /// The protocol revision to ask for (e.g. `"2025-06-18"`); nil: the newest handshake revision.
    /// `"2026-07-28"` speaks the per-request era: no `initialize`, the client's `_meta` on every
    /// request, and `input_required` results answered with `sampling`, `elicitation` and `roots`.
    public var protocolVersion: String?
    /// The default timeout of every request; nil keeps the engine's default (60 s).
    public var requestTimeout: Duration?
    /// Answers `sampling/createMessage` (advertises the `sampling` capability).
    public var sampling: SamplingHandler?
    /// Also advertise tool use inside sampling (`sampling.tools`, 2025-11-25). Needs `sampling`.
    public var samplingTools: Bool
    /// Answers `elicitation/create` (advertises the `elicitation` capability, form mode).
    public var elicitation: ElicitationHandler?
    /// Also advertise URL-mode elicitation (2025-11-25). Needs `elicitation`.
    public var elicitationURL: Bool
    /// Answers `roots/list` (advertises `roots` with `listChanged`; tell the server about changes
    /// with `Client.notifyRootsListChanged()`).
    public var roots: RootsHandler?
    /// How many notifications `Client.notifications` keeps while nobody reads them: the newest
    /// ones are kept, older ones dropped, so a client that never reads the stream does not grow
    /// without bound. nil keeps every notification.
    public var notificationBufferSize: Int?
    /// Largest incoming message in bytes (engine default 4 MiB): a response over it fails that
    /// one call with an error saying so.
    public var maxMessageSize: Int?
    /// Whether per-request-era (2026-07-28) requests declare the tasks extension
    /// `io.modelcontextprotocol/tasks` (default true). Off, the server answers every
    /// `tools/call` itself, never with a task (`Client.callToolAsTask` then holds its answer as
    /// an already completed task whose id starts `ferromcp-local-`), and refuses a listen naming
    /// `ListenFilter.taskIds` with -32021 (`.missingRequiredClientCapability`), as the extension
    /// requires. The handshake era is unaffected.
    public var tasksExtension: Bool
    /// Run a server's task-augmented `sampling/createMessage` and `elicitation/create`
    /// (`params.task`, 2025-11-25, handshake era) as tasks of this client (default false): it
    /// declares `tasks.requests` for the handlers given, answers such a request at once with a
    /// `CreateTaskResult` while the handler runs (its params keep `task`), and answers the
    /// server's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
    public var tasks: Bool
    /// More capabilities to declare, deep-merged over the ones the handlers above imply: chiefly
    /// `extensions` (2026-07-28) or `experimental`, e.g. `McpApps.clientCapability` for a host
    /// that renders MCP Apps. Must be an object (connecting throws otherwise).
    public var capabilities: Value?

    /// Options; every argument is optional.
    public init(name: String = "ferromcp-swift", version: String? = nil,
                protocolVersion: String? = nil, requestTimeout: Duration? = nil,
                sampling: SamplingHandler? = nil, samplingTools: Bool = false,
                elicitation: ElicitationHandler? = nil, elicitationURL: Bool = false,
                roots: RootsHandler? = nil,
                notificationBufferSize: Int? = 1024, maxMessageSize: Int? = nil,
                tasksExtension: Bool = true, tasks: Bool = false, capabilities: Value? = nil) {
        self.name = name
        self.version = version ?? engineVersion()
        self.protocolVersion = protocolVersion
        self.requestTimeout = requestTimeout
        self.sampling = sampling
        self.samplingTools = samplingTools
        self.elicitation = elicitation
        self.elicitationURL = elicitationURL
        self.roots = roots
        self.notificationBufferSize = notificationBufferSize
        self.maxMessageSize = maxMessageSize
        self.tasksExtension = tasksExtension
        self.tasks = tasks
        self.capabilities = capabilities
    }

    /// Which protocol era to speak: the `initialize` handshake (nil or `.handshake`, the
    /// default), `.auto` (probe 2026-07-28's `server/discover`, fall back to the handshake) or
    /// `.perRequest` (2026-07-28 only; set `protocolVersion` to it).
    public var protocolMode: ProtocolMode?

    /// OpenTelemetry for this client's requests, exported by the engine: each request gets a
    /// `CLIENT` span whose parent is the `traceparent` the caller put in `params._meta` (a span
    /// of its own, by its OpenTelemetry SDK), and whose context goes to the server in `_meta`.
    /// `Client.close()` flushes the exports. See docs/observability.md.
    public var openTelemetry: ClientOpenTelemetry?

    /// The engine's `ClientConfig` JSON: capability flags only for the handlers given.
    var configJSON: String {
        var o: [String: Value] = ["name": .string(name), "version": .string(version)]
        o.set("protocolVersion", protocolVersion.map(Value.string))
        o.set("requestTimeoutMs", requestTimeout.map { .int($0.wholeMilliseconds) })
        o.set("maxMessageSize", maxMessageSize.map(Value.int))
        o.set("protocolMode", protocolMode.map { .string($0.rawValue) })
        if !tasksExtension { o["tasksExtension"] = false }
        if tasks { o["tasks"] = true }
        o.set("capabilities", capabilities)
        o.set("openTelemetry", openTelemetry?.value)
        if sampling != nil {
            o["sampling"] = true
            if samplingTools { o["samplingTools"] = true }
        }
        if elicitation != nil {
            o["elicitation"] = true
            if elicitationURL { o["elicitationUrl"] = true }
        }
        if roots != nil { o["roots"] = true }
        return Value.object(o).jsonText
    }
}

/// OpenTelemetry for a `Client` (`ClientOptions.openTelemetry`): the options of the server's
/// `.openTelemetry(...)` layer but `prometheus`; each one left `nil` comes from the standard
/// `OTEL_*` variable (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_METRIC_EXPORT_INTERVAL`).
public struct ClientOpenTelemetry: Sendable, Equatable {
    /// `service.name`.
    public var serviceName: String?
    /// The OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`.
    public var otlpEndpoint: String?
    /// Header fields sent with every export (an API key).
    public var otlpHeaders: [String: String]?
    /// The share of new traces sampled, 0 to 1 (parent-based: a caller's decision is kept).
    public var samplingRatio: Double?
    /// How often the client's metrics (`mcp.client.operation.duration`) are exported.
    public var metricExportInterval: Duration?

    /// Options; every argument is optional.
    public init(serviceName: String? = nil, otlpEndpoint: String? = nil,
                otlpHeaders: [String: String]? = nil, samplingRatio: Double? = nil,
                metricExportInterval: Duration? = nil) {
        self.serviceName = serviceName
        self.otlpEndpoint = otlpEndpoint
        self.otlpHeaders = otlpHeaders
        self.samplingRatio = samplingRatio
        self.metricExportInterval = metricExportInterval
    }

    /// The engine's `openTelemetry` client config.
    var value: Value {
        var o: [String: Value] = [:]
        o.set("serviceName", serviceName.map(Value.string))
        o.set("otlpEndpoint", otlpEndpoint.map(Value.string))
        o.set("otlpHeaders", otlpHeaders.map { .object($0.mapValues(Value.string)) })
        o.set("samplingRatio", samplingRatio.map(Value.double))
        o.set("metricExportIntervalMs", metricExportInterval.map { .int($0.wholeMilliseconds) })
        return .object(o)
    }
}

/// Options of one request.
public struct RequestOptions: Sendable {
    /// This request's timeout; nil: the client's `requestTimeout` (engine default 60 s). A
    /// request that times out throws `McpError` with code `.requestTimeout` (and the engine
    /// sends `notifications/cancelled`).
    public var timeout: Duration?
    /// Whether each progress notification restarts the timeout.
    public var resetTimeoutOnProgress: Bool
    /// Receives the server's progress notifications for this request. Setting it sends a
    /// progress token with the request. Called on an engine thread: return quickly.
    public var onProgress: (@Sendable (ProgressUpdate) -> Void)?

    /// Options; every argument is optional.
    public init(timeout: Duration? = nil, resetTimeoutOnProgress: Bool = false,
                onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil) {
        self.timeout = timeout
        self.resetTimeoutOnProgress = resetTimeoutOnProgress
        self.onProgress = onProgress
    }
}

/// One progress notification (`notifications/progress`) for a request this client sent.
///
/// (Named `ProgressUpdate` rather than `Progress` so it does not clash with
/// `Foundation.Progress` in files importing both modules.)
public struct ProgressUpdate: Sendable, Hashable {
    /// Progress so far (increases with each notification).
    public var progress: Double
    /// The total, if known.
    public var total: Double?
    /// A human-readable message.
    public var message: String?
    /// The params' `_meta`.
    public var meta: Value?
    /// The notification's params as sent.
    public var raw: Value

    /// Reads `notifications/progress` params.
    public init(_ params: Value) {
        progress = params["progress"]?.doubleValue ?? 0
        total = params["total"]?.doubleValue
        message = params["message"]?.stringValue
        meta = params.member("_meta")
        raw = params
    }
}

/// A notification from the server (`notifications/tools/list_changed`,
/// `notifications/message`, `notifications/resources/updated`, ...).
public struct ServerNotification: Sendable, Hashable {
    /// The method, e.g. `"notifications/message"`.
    public var method: String
    /// The params, if any.
    public var params: Value?

    /// A notification.
    public init(method: String, params: Value? = nil) {
        self.method = method
        self.params = params
    }

    /// Method names of the notifications servers send.
    public enum Method {
        /// `notifications/message`: a log message (params `level`, `logger`, `data`).
        public static let logMessage = "notifications/message"
        /// `notifications/tools/list_changed`.
        public static let toolListChanged = "notifications/tools/list_changed"
        /// `notifications/resources/list_changed`.
        public static let resourceListChanged = "notifications/resources/list_changed"
        /// `notifications/resources/updated`: a subscribed resource changed (params `uri`).
        public static let resourceUpdated = "notifications/resources/updated"
        /// `notifications/prompts/list_changed`.
        public static let promptListChanged = "notifications/prompts/list_changed"
    }

    /// For `notifications/message`: the log message; nil for other notifications.
    public var logMessage: LogMessage? {
        guard method == Method.logMessage, let params,
              let level = params.string("level").flatMap(LogLevel.init(rawValue:))
        else { return nil }
        return LogMessage(level: level, logger: params.string("logger"), data: params["data"] ?? .null,
                          meta: params.member("_meta"))
    }
}

/// A log message the server sent (`notifications/message`).
public struct LogMessage: Sendable, Hashable {
    /// Its severity.
    public var level: LogLevel
    /// The logger's name, if given.
    public var logger: String?
    /// The message (any JSON value, often a string).
    public var data: Value
    /// The params' `_meta`.
    public var meta: Value?

    /// A log message.
    public init(level: LogLevel, logger: String? = nil, data: Value, meta: Value? = nil) {
        self.level = level
        self.logger = logger
        self.data = data
        self.meta = meta
    }
}

// MARK: - Reading results

/// The error for a result that does not have the shape MCP requires.
func malformed(_ what: String, _ value: Value) -> McpError {
    McpError(.internalError, "the server answered a malformed \(what): \(value)")
}

extension Value {
    /// The member `key` as a string, nil when absent or not a string.
    func string(_ key: String) -> String? { self[key]?.stringValue }
    /// The member `key`, nil when absent or null.
    func member(_ key: String) -> Value? {
        guard let v = self[key], !v.isNull else { return nil }
        return v
    }
}

/// Reads a list result's items: `key` must be an array of objects each `item` reads.
func items<T>(_ result: Value, _ key: String, _ what: String, _ item: (Value) throws -> T) throws -> [T] {
    guard let array = result[key]?.arrayValue else { throw malformed(what, result) }
    return try array.map(item)
}

// MARK: - Tools

/// A tool the server offers (MCP `Tool`).
public struct Tool: Sendable, Hashable {
    /// The name to call it by.
    public var name: String
    /// A human-readable title.
    public var title: String?
    /// What it does.
    public var description: String?
    /// The JSON Schema of its arguments.
    public var inputSchema: Value
    /// The JSON Schema of its `structuredContent`, if it declares one.
    public var outputSchema: Value?
    /// Hints about its behaviour (untrusted).
    public var annotations: ToolAnnotations?
    /// Icons (MCP `Icon` objects).
    public var icons: [Value]?
    /// Its task support (2025-11-25's `execution`, e.g. `{"taskSupport": "optional"}`); nil when
    /// not given (2026-07-28 moved tasks to an extension).
    public var execution: Value?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let name = value.string("name") else { throw malformed("tool", value) }
        self.name = name
        title = value.string("title")
        description = value.string("description")
        inputSchema = value.member("inputSchema") ?? ["type": "object"]
        outputSchema = value.member("outputSchema")
        annotations = value.member("annotations").map(ToolAnnotations.init(reading:))
        icons = value["icons"]?.arrayValue
        execution = value.member("execution")
        meta = value.member("_meta")
        raw = value
    }
}

extension ToolAnnotations {
    /// Reads the MCP JSON form (unknown members are ignored; `Tool.raw` keeps them).
    init(reading value: Value) {
        self.init(title: value.string("title"), readOnlyHint: value["readOnlyHint"]?.boolValue,
                  destructiveHint: value["destructiveHint"]?.boolValue,
                  idempotentHint: value["idempotentHint"]?.boolValue,
                  openWorldHint: value["openWorldHint"]?.boolValue)
    }
}

/// One page of `tools/list`.
public struct ListToolsResult: Sendable, Hashable {
    /// The tools on this page.
    public var tools: [Tool]
    /// The cursor of the next page; nil on the last page.
    public var nextCursor: String?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        tools = try items(value, "tools", "tools/list result", Tool.init)
        nextCursor = value.string("nextCursor")
        meta = value.member("_meta")
        raw = value
    }
}

/// What a tool call answered (MCP `CallToolResult`). A tool's own failure is a result with
/// `isError == true`, not a thrown error.
public struct CallToolResult: Sendable, Hashable {
    /// The content blocks. Blocks of a type this facade does not know are left out (`raw` keeps
    /// them).
    public var content: [Content]
    /// The structured result (tools with an `outputSchema`).
    public var structuredContent: Value?
    /// Whether the tool failed; `content` then describes the failure.
    public var isError: Bool
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard value.objectValue != nil else { throw malformed("tools/call result", value) }
        content = (value["content"]?.arrayValue ?? []).compactMap { try? Content($0) }
        structuredContent = value.member("structuredContent")
        isError = value["isError"]?.boolValue ?? false
        meta = value.member("_meta")
        raw = value
    }

    /// The text blocks joined with newlines ("" when there are none).
    public var text: String {
        content.compactMap(\.text).joined(separator: "\n")
    }

    /// Decodes `structuredContent` as `T`. Throws `McpError(.internalError)` when there is
    /// none, or the decoding error.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        guard let structuredContent else {
            throw McpError(.internalError, "the tool result has no structuredContent")
        }
        return try structuredContent.decode(type)
    }
}

// MARK: - Resources

/// A resource the server offers (MCP `Resource`).
public struct Resource: Sendable, Hashable {
    /// Its URI.
    public var uri: String
    /// Its name.
    public var name: String
    /// A human-readable title.
    public var title: String?
    /// What it is.
    public var description: String?
    /// Its MIME type.
    public var mimeType: String?
    /// Its size in bytes, if known.
    public var size: Int?
    /// MCP `Annotations` (`audience`, `priority`, `lastModified`).
    public var annotations: Value?
    /// Icons (MCP `Icon` objects).
    public var icons: [Value]?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let uri = value.string("uri") else { throw malformed("resource", value) }
        self.uri = uri
        name = value.string("name") ?? uri
        title = value.string("title")
        description = value.string("description")
        mimeType = value.string("mimeType")
        size = value["size"]?.intValue
        annotations = value.member("annotations")
        icons = value["icons"]?.arrayValue
        meta = value.member("_meta")
        raw = value
    }
}

/// A resource template the server offers (MCP `ResourceTemplate`).
public struct ResourceTemplate: Sendable, Hashable {
    /// The RFC 6570 URI template.
    public var uriTemplate: String
    /// Its name.
    public var name: String
    /// A human-readable title.
    public var title: String?
    /// What its resources are.
    public var description: String?
    /// The MIME type of its resources.
    public var mimeType: String?
    /// MCP `Annotations`.
    public var annotations: Value?
    /// Icons (MCP `Icon` objects).
    public var icons: [Value]?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let t = value.string("uriTemplate") else { throw malformed("resource template", value) }
        uriTemplate = t
        name = value.string("name") ?? t
        title = value.string("title")
        description = value.string("description")
        mimeType = value.string("mimeType")
        annotations = value.member("annotations")
        icons = value["icons"]?.arrayValue
        meta = value.member("_meta")
        raw = value
    }
}

/// One page of `resources/list`.
public struct ListResourcesResult: Sendable, Hashable {
    /// The resources on this page.
    public var resources: [Resource]
    /// The cursor of the next page; nil on the last page.
    public var nextCursor: String?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        resources = try items(value, "resources", "resources/list result", Resource.init)
        nextCursor = value.string("nextCursor")
        meta = value.member("_meta")
        raw = value
    }
}

/// One page of `resources/templates/list`.
public struct ListResourceTemplatesResult: Sendable, Hashable {
    /// The templates on this page.
    public var resourceTemplates: [ResourceTemplate]
    /// The cursor of the next page; nil on the last page.
    public var nextCursor: String?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        resourceTemplates = try items(value, "resourceTemplates", "resources/templates/list result",
                                      ResourceTemplate.init)
        nextCursor = value.string("nextCursor")
        meta = value.member("_meta")
        raw = value
    }
}

// MARK: - Prompts

/// A prompt the server offers (MCP `Prompt`).
public struct Prompt: Sendable, Hashable {
    /// The name to get it by.
    public var name: String
    /// A human-readable title.
    public var title: String?
    /// What it is for.
    public var description: String?
    /// The arguments it accepts.
    public var arguments: [PromptArgument]
    /// Icons (MCP `Icon` objects).
    public var icons: [Value]?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let name = value.string("name") else { throw malformed("prompt", value) }
        self.name = name
        title = value.string("title")
        description = value.string("description")
        arguments = try (value["arguments"]?.arrayValue ?? []).map { a in
            guard let n = a.string("name") else { throw malformed("prompt argument", a) }
            return PromptArgument(n, title: a.string("title"), description: a.string("description"),
                                  required: a["required"]?.boolValue)
        }
        icons = value["icons"]?.arrayValue
        meta = value.member("_meta")
        raw = value
    }
}

/// One page of `prompts/list`.
public struct ListPromptsResult: Sendable, Hashable {
    /// The prompts on this page.
    public var prompts: [Prompt]
    /// The cursor of the next page; nil on the last page.
    public var nextCursor: String?
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        prompts = try items(value, "prompts", "prompts/list result", Prompt.init)
        nextCursor = value.string("nextCursor")
        meta = value.member("_meta")
        raw = value
    }
}

/// A rendered prompt (MCP `GetPromptResult`).
public struct GetPromptResult: Sendable, Hashable {
    /// A description of the rendered prompt.
    public var description: String?
    /// The messages.
    public var messages: [PromptMessage]
    /// `_meta`.
    public var meta: Value?
    /// The JSON it was read from.
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        description = value.string("description")
        messages = try items(value, "messages", "prompts/get result") { m in
            guard let r = m.string("role"), let role = PromptMessage.Role(rawValue: r),
                  let content = m["content"]
            else { throw malformed("prompt message", m) }
            return PromptMessage(role: role, content: try Content(content))
        }
        meta = value.member("_meta")
        raw = value
    }
}

// MARK: - Completion

/// Completion values for an argument (MCP `CompleteResult.completion`).
public struct Completion: Sendable, Hashable {
    /// The suggestions (at most 100).
    public var values: [String]
    /// How many suggestions there are in all, if known.
    public var total: Int?
    /// Whether there are more suggestions than `values`.
    public var hasMore: Bool?
    /// The result's `_meta`.
    public var meta: Value?
    /// The whole `completion/complete` result as sent.
    public var raw: Value

    /// Reads a `CompleteResult`.
    public init(_ value: Value) throws {
        guard let c = value["completion"], let values = c["values"]?.arrayValue else {
            throw malformed("completion/complete result", value)
        }
        self.values = values.compactMap(\.stringValue)
        total = c["total"]?.intValue
        hasMore = c["hasMore"]?.boolValue
        meta = value.member("_meta")
        raw = value
    }
}

/// The protocol era a client speaks (`ClientOptions.protocolMode`).
public enum ProtocolMode: String, Sendable {
    /// The `initialize` handshake (revisions up to 2025-11-25).
    case handshake
    /// `server/discover` first (2026-07-28), the handshake where it is not offered.
    case auto
    /// The 2026-07-28 per-request era only.
    case perRequest
}
