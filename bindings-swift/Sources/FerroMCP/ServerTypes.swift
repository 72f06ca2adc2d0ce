// ServerTypes: the values a server is configured with (ServerOptions, HTTPOptions) and the
// values its handlers answer with (ToolResult, ResourceResult, PromptResult) or are handed
// (CompletionRequest), each with the plain JSON the engine reads. The engine's
// `embed::ServerConfig` / `HttpConfig` define the configuration keys and `embed::shape` what a
// handler's answer means; nothing here re-implements either.

import Foundation

// MARK: - Configuration

/// A server's optional identity fields, paging and limits (the engine's `ServerConfig`).
public struct ServerOptions: Sendable {
    /// `serverInfo.websiteUrl`.
    public var websiteUrl: String?
    /// `serverInfo.icons` (MCP `Icon` objects: `src`, `mimeType`, `sizes`, `theme`).
    public var icons: [Value]?
    /// Items per page of the list methods (engine default 100).
    public var pageSize: Int?
    /// Default timeout of the requests the server sends to clients (sampling, elicitation,
    /// roots); nil keeps the engine's default.
    public var requestTimeout: Duration?
    /// Advertise tools even with none registered yet, so they can be added later.
    public var enableTools: Bool
    /// Advertise resources even with none registered yet.
    public var enableResources: Bool
    /// Advertise prompts even with none registered yet.
    public var enablePrompts: Bool
    /// Advertise logging (the engine's default is on).
    public var enableLogging: Bool?
    /// Largest incoming message in bytes (engine default 4 MiB): a request over it is answered
    /// with an invalid request error (-32600) carrying its id, and the session goes on.
    public var maxMessageSize: Int?
    /// `ttlMs` of cacheable 2026-07-28 results (`server/discover`, the list methods,
    /// `resources/read`); engine default 0 (immediately stale).
    public var cacheTtlMs: Int?
    /// `cacheScope` of cacheable results (engine default `.private`).
    public var cacheScope: CacheScope?
    /// Per method overrides of the two above, e.g. `["tools/list": CacheHint(ttlMs: 60_000,
    /// cacheScope: .public)]`; only cacheable methods may be named.
    public var cacheHints: [String: CacheHint]?
    /// Most `subscriptions/listen` streams open at once (engine default 1024).
    public var maxListenStreams: Int?
    /// The key ring sealing 2026-07-28 `requestState` (replicas share it): the first key seals,
    /// every key opens. Engine default: one random key of this process.
    public var requestStateKeys: [RequestStateKey]?
    /// Opened `requestState` tokens remembered for single use (engine default 131072).
    public var requestStateReplayCapacity: Int?
    /// Declare and serve the tasks extension `io.modelcontextprotocol/tasks` (SEP-2663) to
    /// 2026-07-28 clients (default false): a call of a tool registered with `taskSupport`
    /// `.optional` or `.required`, from a request whose client capabilities declare the
    /// extension, is answered with a task the client polls (`tasks/get`), answers input for
    /// (`tasks/update`) and may cancel (`tasks/cancel`). The handler is the same closure: what it
    /// asks with `context.elicit`/`context.input` while it runs waits in the task's
    /// `inputRequests`. A tool that throws `McpError` ends its task `failed` with that error;
    /// any other error, like an `isError` result, ends it `completed` with `isError`.
    public var tasksExtension: Bool
    /// The protocol revisions this server speaks, as their date strings (nil: all of them).
    /// `["2026-07-28"]` serves only per-request clients (`initialize` is answered -32022, HTTP
    /// 400, naming the supported revisions); leaving `"2026-07-28"` out serves only handshake
    /// clients (a 2026-07-28 request is answered -32022). An empty list or an unknown revision
    /// makes `Server.init` throw invalid params naming the known ones.
    public var supportedVersions: [String]?
    /// Configuration keys this type does not name (newer engine keys), passed through as they
    /// are. The engine rejects unknown keys: `Server.init` then throws invalid params.
    public var extra: [String: Value]

    /// Options; every argument is optional.
    public init(websiteUrl: String? = nil, icons: [Value]? = nil, pageSize: Int? = nil,
                requestTimeout: Duration? = nil, enableTools: Bool = false,
                enableResources: Bool = false, enablePrompts: Bool = false,
                enableLogging: Bool? = nil, maxMessageSize: Int? = nil,
                cacheTtlMs: Int? = nil, cacheScope: CacheScope? = nil,
                cacheHints: [String: CacheHint]? = nil, maxListenStreams: Int? = nil,
                requestStateKeys: [RequestStateKey]? = nil,
                requestStateReplayCapacity: Int? = nil, tasksExtension: Bool = false,
                supportedVersions: [String]? = nil, extra: [String: Value] = [:]) {
        self.tasksExtension = tasksExtension
        self.supportedVersions = supportedVersions
        self.websiteUrl = websiteUrl
        self.icons = icons
        self.pageSize = pageSize
        self.requestTimeout = requestTimeout
        self.enableTools = enableTools
        self.enableResources = enableResources
        self.enablePrompts = enablePrompts
        self.enableLogging = enableLogging
        self.maxMessageSize = maxMessageSize
        self.cacheTtlMs = cacheTtlMs
        self.cacheScope = cacheScope
        self.cacheHints = cacheHints
        self.maxListenStreams = maxListenStreams
        self.requestStateKeys = requestStateKeys
        self.requestStateReplayCapacity = requestStateReplayCapacity
        self.extra = extra
    }
}

/// Who may cache a result (`cacheScope`): one authorization context, or anyone.
public enum CacheScope: String, Sendable {
    case `private`
    case `public`
}

/// A method's caching hints (`ttlMs`, `cacheScope`); nil keeps the server-wide value.
public struct CacheHint: Sendable {
    /// `ttlMs`.
    public var ttlMs: Int?
    /// `cacheScope`.
    public var cacheScope: CacheScope?

    public init(ttlMs: Int? = nil, cacheScope: CacheScope? = nil) {
        self.ttlMs = ttlMs
        self.cacheScope = cacheScope
    }

    var value: Value {
        var o: [String: Value] = [:]
        o.set("ttlMs", ttlMs.map(Value.int))
        o.set("cacheScope", cacheScope.map { .string($0.rawValue) })
        return .object(o)
    }
}

/// One key of the `requestState` key ring: an id (ASCII letters and digits) and a 32-byte
/// secret as 64 hex digits.
public struct RequestStateKey: Sendable {
    public var id: String
    public var secret: String

    public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }
}

/// The Streamable HTTP endpoint's options (the engine's `HttpConfig`). Only the options set
/// here are sent; the others keep the engine's defaults.
public struct HTTPOptions: Sendable {
    /// Path of the endpoint.
    public var path: String
    /// Answer each POST with one JSON body instead of an SSE stream.
    public var jsonResponse: Bool?
    /// No sessions: every POST is served by a fresh, initialized session.
    public var stateless: Bool?
    /// Offer the standalone GET stream (405 when off).
    public var enableGetStream: Bool?
    /// Most sessions alive at once.
    public var maxSessions: Int?
    /// Idle sessions are removed after this long.
    public var sessionIdleTimeout: Duration?
    /// Largest request body accepted, in bytes (413 beyond).
    public var maxBodySize: Int?
    /// Force the `Host` / `Origin` checks on or off (nil: decided from the bound address).
    public var dnsRebindingProtection: Bool?
    /// Allowed `Host` values.
    public var allowedHosts: [String]?
    /// Allowed `Origin` values.
    public var allowedOrigins: [String]?
    /// Frames each SSE stream may hold waiting for its reader.
    public var streamQueueCapacity: Int?
    /// Polling mode: close request streams after this long (clients resume them).
    public var closeStreamsAfter: Duration?
    /// The SSE `retry:` hint (nil keeps the engine's default, 1 s).
    public var retryInterval: Duration?
    /// Send no SSE `retry:` hint at all (overrides `retryInterval`).
    public var omitRetryHint: Bool
    /// An open SSE stream (GET or a POST's) that has carried nothing this long gets a
    /// `: keep-alive` comment, so proxies that cut idle connections leave it open (nil keeps the
    /// engine's default, 15 s). Clients ignore comments.
    public var sseKeepAlive: Duration?
    /// Send no keep-alive comments at all (overrides `sseKeepAlive`).
    public var omitSSEKeepAlive: Bool
    /// Also serve the 2024-11-05 HTTP+SSE endpoints.
    public var legacySSE: Bool?
    /// Path of the legacy SSE endpoint.
    public var legacySSEPath: String?
    /// Path of the legacy message endpoint.
    public var legacyMessagesPath: String?
    /// Most connections served at once (engine default 1024; more wait to be accepted).
    public var maxConnections: Int?
    /// Largest request head in bytes (engine default 64 KiB; 431 beyond).
    public var maxHeadSize: Int?
    /// Time a new connection has to send its first request head (engine default 10 s).
    public var headerReadTimeout: Duration?
    /// Time a request may take to arrive once begun (engine default 30 s; 408 beyond).
    public var requestTimeout: Duration?
    /// Time a kept-alive connection may sit idle between requests (engine default 300 s).
    public var keepAliveTimeout: Duration?
    /// Time a write may go without progress before the connection closes (engine default 30 s).
    public var writeTimeout: Duration?
    /// Bytes all connections may buffer together (engine default 256 MiB; 503 beyond).
    public var maxBufferedBytes: Int?
    /// Keep sessions, SSE events and the replicas' bus on this Redis/Valkey
    /// (`redis://[user:password@]host:port[/db]`), so that several servers (processes or
    /// machines) behind one load balancer serve the same sessions. The server connects before
    /// it listens: a URL that is not a Redis URL throws `McpError(.invalidParams)`, a Redis that
    /// cannot be reached `McpError(.internalError)`.
    public var redisURL: String?
    /// Serve `https://` (see `TLSOptions`; `startHTTP` / `serveHTTP` only).
    public var tls: TLSOptions?
    /// `Content-Encoding` of answers and request bodies (see `CompressionOptions`; nil keeps
    /// the engine's default: on).
    public var compression: CompressionOptions?
    /// Be the OAuth authorization server of this endpoint, in front of an identity provider
    /// without dynamic client registration (see `OAuthProxyOptions`; `startHTTP` / `serveHTTP`
    /// only: `HTTPHandler` refuses it). The MCP endpoint then accepts the proxy's tokens.
    public var oauthProxy: OAuthProxyOptions?
    /// Configuration keys this type does not name (newer engine keys), passed through as they
    /// are. The engine rejects unknown keys: starting the server then throws invalid params.
    public var extra: [String: Value]

    /// Options; every argument is optional.
    public init(path: String = "/mcp", jsonResponse: Bool? = nil, stateless: Bool? = nil,
                enableGetStream: Bool? = nil, maxSessions: Int? = nil,
                sessionIdleTimeout: Duration? = nil, maxBodySize: Int? = nil,
                dnsRebindingProtection: Bool? = nil, allowedHosts: [String]? = nil,
                allowedOrigins: [String]? = nil, streamQueueCapacity: Int? = nil,
                closeStreamsAfter: Duration? = nil, retryInterval: Duration? = nil,
                omitRetryHint: Bool = false, sseKeepAlive: Duration? = nil,
                omitSSEKeepAlive: Bool = false, legacySSE: Bool? = nil, legacySSEPath: String? = nil,
                legacyMessagesPath: String? = nil, maxConnections: Int? = nil,
                maxHeadSize: Int? = nil, headerReadTimeout: Duration? = nil,
                requestTimeout: Duration? = nil, keepAliveTimeout: Duration? = nil,
                writeTimeout: Duration? = nil, maxBufferedBytes: Int? = nil,
                redisURL: String? = nil, tls: TLSOptions? = nil,
                compression: CompressionOptions? = nil,
                oauthProxy: OAuthProxyOptions? = nil, extra: [String: Value] = [:]) {
        self.path = path
        self.jsonResponse = jsonResponse
        self.stateless = stateless
        self.enableGetStream = enableGetStream
        self.maxSessions = maxSessions
        self.sessionIdleTimeout = sessionIdleTimeout
        self.maxBodySize = maxBodySize
        self.dnsRebindingProtection = dnsRebindingProtection
        self.allowedHosts = allowedHosts
        self.allowedOrigins = allowedOrigins
        self.streamQueueCapacity = streamQueueCapacity
        self.closeStreamsAfter = closeStreamsAfter
        self.retryInterval = retryInterval
        self.omitRetryHint = omitRetryHint
        self.sseKeepAlive = sseKeepAlive
        self.omitSSEKeepAlive = omitSSEKeepAlive
        self.legacySSE = legacySSE
        self.legacySSEPath = legacySSEPath
        self.legacyMessagesPath = legacyMessagesPath
        self.maxConnections = maxConnections
        self.maxHeadSize = maxHeadSize
        self.headerReadTimeout = headerReadTimeout
        self.requestTimeout = requestTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.writeTimeout = writeTimeout
        self.maxBufferedBytes = maxBufferedBytes
        self.redisURL = redisURL
        self.tls = tls
        self.compression = compression
        self.oauthProxy = oauthProxy
        self.extra = extra
    }

    /// The engine's `HttpConfig` JSON (only the keys set).
    var value: Value {
        var o = extra
        o["path"] = .string(path)
        o.set("jsonResponse", jsonResponse.map(Value.bool))
        o.set("stateless", stateless.map(Value.bool))
        o.set("enableGetStream", enableGetStream.map(Value.bool))
        o.set("maxSessions", maxSessions.map(Value.int))
        o.set("sessionIdleTimeoutMs", sessionIdleTimeout.map { .int($0.wholeMilliseconds) })
        o.set("maxBodySize", maxBodySize.map(Value.int))
        o.set("dnsRebindingProtection", dnsRebindingProtection.map(Value.bool))
        o.set("allowedHosts", allowedHosts.map { .array($0.map(Value.string)) })
        o.set("allowedOrigins", allowedOrigins.map { .array($0.map(Value.string)) })
        o.set("streamQueueCapacity", streamQueueCapacity.map(Value.int))
        o.set("closeStreamsAfterMs", closeStreamsAfter.map { .int($0.wholeMilliseconds) })
        if omitRetryHint {
            o["retryIntervalMs"] = .null
        } else {
            o.set("retryIntervalMs", retryInterval.map { .int($0.wholeMilliseconds) })
        }
        if omitSSEKeepAlive {
            o["sseKeepAliveMs"] = .null
        } else {
            o.set("sseKeepAliveMs", sseKeepAlive.map { .int($0.wholeMilliseconds) })
        }
        o.set("legacySse", legacySSE.map(Value.bool))
        o.set("legacySsePath", legacySSEPath.map(Value.string))
        o.set("legacyMessagesPath", legacyMessagesPath.map(Value.string))
        o.set("maxConnections", maxConnections.map(Value.int))
        o.set("maxHeadSize", maxHeadSize.map(Value.int))
        o.set("headerReadTimeoutMs", headerReadTimeout.map { .int($0.wholeMilliseconds) })
        o.set("requestTimeoutMs", requestTimeout.map { .int($0.wholeMilliseconds) })
        o.set("keepAliveTimeoutMs", keepAliveTimeout.map { .int($0.wholeMilliseconds) })
        o.set("writeTimeoutMs", writeTimeout.map { .int($0.wholeMilliseconds) })
        o.set("maxBufferedBytes", maxBufferedBytes.map(Value.int))
        o.set("redisUrl", redisURL.map(Value.string))
        o.set("tls", tls?.value)
        o.set("compression", compression?.value)
        o.set("oauthProxy", oauthProxy?.value)
        return .object(o)
    }
}

/// `Content-Encoding` of answers (JSON and SSE streams) and request bodies
/// (docs/compression.md): by default the engine answers in zstd, br or gzip as the client's
/// `Accept-Encoding` allows, from 1,024 bytes. `.off` turns it off (answers as they are,
/// encoded request bodies refused with 415).
public struct CompressionOptions: Sendable, Equatable {
    /// A content coding.
    public enum Coding: String, Sendable, Equatable {
        case zstd, br, gzip
    }

    /// How hard the encoder works.
    public enum Level: String, Sendable, Equatable {
        case fastest, `default`, smallest
    }

    /// No compression at all.
    public static let off = CompressionOptions(enabled: false)

    /// Whether compression is on.
    public var enabled: Bool
    /// The codings offered, in the server's order of preference (nil: zstd, br, gzip).
    public var codings: [Coding]?
    /// Answers smaller than this many bytes are sent as they are (nil: 1,024).
    public var minSize: Int?
    /// The encoders' level (nil: `.default`).
    public var level: Level?
    /// Whether SSE streams are encoded too (nil: yes).
    public var streams: Bool?

    /// Compression on, with the engine's defaults for what is nil.
    public init(codings: [Coding]? = nil, minSize: Int? = nil, level: Level? = nil, streams: Bool? = nil) {
        self.enabled = true
        self.codings = codings
        self.minSize = minSize
        self.level = level
        self.streams = streams
    }

    private init(enabled: Bool) {
        self.enabled = enabled
    }

    /// The engine's `compression` key: `false`, or an object of the keys set.
    var value: Value {
        guard enabled else { return .bool(false) }
        var o: [String: Value] = [:]
        o.set("codings", codings.map { .array($0.map { .string($0.rawValue) }) })
        o.set("minSize", minSize.map(Value.int))
        o.set("level", level.map { .string($0.rawValue) })
        o.set("streams", streams.map(Value.bool))
        return .object(o)
    }
}

extension Dictionary where Key == String, Value == FerroMCP.Value {
    /// Sets `key` when `value` is present (leaves the key out otherwise).
    mutating func set(_ key: String, _ value: FerroMCP.Value?) {
        if let value { self[key] = value }
    }
}

extension Duration {
    /// Whole milliseconds for the engine's `...Ms` keys: rounded up (a short positive duration
    /// is not 0), negative as 0, clamped to what JSON carries exactly.
    var wholeMilliseconds: Int {
        let (s, attos) = components
        let ms = Double(s) * 1000 + (Double(attos) / 1e15).rounded(.up)
        return ms <= 0 ? 0 : Int(min(ms, 9.0e15))
    }
}

// MARK: - Tools

/// A tool's `execution.taskSupport`: whether its calls may run as tasks of the tasks extension
/// (`ServerOptions.tasksExtension`). `.optional`: a task when the request declares the
/// extension, a plain call otherwise; `.required`: a task, and a request that does not declare
/// the extension is refused (-32021); `.forbidden` (as no value): never a task.
public enum TaskSupport: String, Sendable {
    case forbidden, optional, required
}

/// Hints about what a tool does (MCP `ToolAnnotations`); clients must not trust them.
public struct ToolAnnotations: Sendable, Hashable {
    /// A human-readable title.
    public var title: String?
    /// The tool does not modify its environment.
    public var readOnlyHint: Bool?
    /// The tool may perform destructive updates.
    public var destructiveHint: Bool?
    /// Calling the tool again with the same arguments has no further effect.
    public var idempotentHint: Bool?
    /// The tool interacts with an open world of external entities.
    public var openWorldHint: Bool?

    /// Annotations; every argument is optional.
    public init(title: String? = nil, readOnlyHint: Bool? = nil, destructiveHint: Bool? = nil,
                idempotentHint: Bool? = nil, openWorldHint: Bool? = nil) {
        self.title = title
        self.readOnlyHint = readOnlyHint
        self.destructiveHint = destructiveHint
        self.idempotentHint = idempotentHint
        self.openWorldHint = openWorldHint
    }

    /// The MCP JSON form.
    public var value: Value {
        var o: [String: Value] = [:]
        o.set("title", title.map(Value.string))
        o.set("readOnlyHint", readOnlyHint.map(Value.bool))
        o.set("destructiveHint", destructiveHint.map(Value.bool))
        o.set("idempotentHint", idempotentHint.map(Value.bool))
        o.set("openWorldHint", openWorldHint.map(Value.bool))
        return .object(o)
    }
}

/// What a tool answers (MCP `CallToolResult`). A string literal is one text block.
public struct ToolResult: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The content blocks.
    public var content: [Content]
    /// Structured content (for a tool with an `outputSchema`; the engine checks it).
    public var structuredContent: Value?
    /// Whether the tool failed (the model sees the content as the error).
    public var isError: Bool
    /// `_meta`.
    public var meta: Value?

    /// A result with every field given.
    public init(content: [Content] = [], structuredContent: Value? = nil, isError: Bool = false,
                meta: Value? = nil) {
        self.content = content
        self.structuredContent = structuredContent
        self.isError = isError
        self.meta = meta
    }

    /// A result of these content blocks.
    public init(_ content: Content...) {
        self.init(content: content)
    }

    /// One text block.
    public init(stringLiteral value: String) {
        self.init(content: [.text(value)])
    }

    /// One text block.
    public static func text(_ text: String) -> ToolResult {
        ToolResult(content: [.text(text)])
    }

    /// A failed call: `isError` with the message as text, so the model can read it.
    public static func error(_ message: String) -> ToolResult {
        ToolResult(content: [.text(message)], isError: true)
    }

    /// The MCP JSON form (`CallToolResult`).
    public var value: Value {
        var o: [String: Value] = ["content": .array(content.map(\.value))]
        o.set("structuredContent", structuredContent)
        if isError { o["isError"] = true }
        o.set("_meta", meta)
        return .object(o)
    }
}

// MARK: - Resources

/// What a resource handler answers. The engine fills in each item's `uri` (the URI read) and
/// `mimeType` (the one registered) where the answer has none.
public enum ResourceResult: Sendable, Hashable, ExpressibleByStringLiteral {
    /// Text contents.
    case text(String)
    /// Binary contents (sent as base64 `blob`; `application/octet-stream` unless a MIME type
    /// was registered).
    case data(Data)
    /// Any number of contents, each with its own URI and MIME type if given.
    case contents([ResourceContents])

    /// Text contents.
    public init(stringLiteral value: String) {
        self = .text(value)
    }

    /// The JSON the engine shapes into `ReadResourceResult.contents`.
    var value: Value {
        switch self {
        case .text(let t): .string(t)
        case .data(let d): ["blob": .string(d.base64EncodedString())]
        case .contents(let items): .array(items.map(\.value))
        }
    }
}

// MARK: - Prompts

/// An argument a prompt accepts (MCP `PromptArgument`).
public struct PromptArgument: Sendable, Hashable {
    /// The argument's name.
    public var name: String
    /// A human-readable title.
    public var title: String?
    /// What the argument is for.
    public var description: String?
    /// Whether the argument must be given (the engine checks it).
    public var required: Bool?

    /// An argument.
    public init(_ name: String, title: String? = nil, description: String? = nil,
                required: Bool? = nil) {
        self.name = name
        self.title = title
        self.description = description
        self.required = required
    }

    /// The MCP JSON form.
    public var value: Value {
        var o: [String: Value] = ["name": .string(name)]
        o.set("title", title.map(Value.string))
        o.set("description", description.map(Value.string))
        o.set("required", required.map(Value.bool))
        return .object(o)
    }
}

/// One message of a prompt (MCP `PromptMessage`).
public struct PromptMessage: Sendable, Hashable {
    /// Who says it.
    public enum Role: String, Sendable, Hashable, Codable {
        /// The user.
        case user
        /// The assistant.
        case assistant
    }

    /// Who says it.
    public var role: Role
    /// What is said.
    public var content: Content

    /// A message.
    public init(role: Role, content: Content) {
        self.role = role
        self.content = content
    }

    /// A user message.
    public static func user(_ content: Content) -> PromptMessage {
        PromptMessage(role: .user, content: content)
    }

    /// A user text message.
    public static func user(_ text: String) -> PromptMessage {
        PromptMessage(role: .user, content: .text(text))
    }

    /// An assistant message.
    public static func assistant(_ content: Content) -> PromptMessage {
        PromptMessage(role: .assistant, content: content)
    }

    /// An assistant text message.
    public static func assistant(_ text: String) -> PromptMessage {
        PromptMessage(role: .assistant, content: .text(text))
    }

    /// The MCP JSON form.
    public var value: Value {
        ["role": .string(role.rawValue), "content": content.value]
    }
}

/// What a prompt handler answers (MCP `GetPromptResult`). A string literal is one user text
/// message.
public struct PromptResult: Sendable, Hashable, ExpressibleByStringLiteral {
    /// A description of the rendered prompt.
    public var description: String?
    /// The messages.
    public var messages: [PromptMessage]
    /// The result's `_meta`.
    public var meta: Value?

    /// A result.
    public init(description: String? = nil, messages: [PromptMessage], meta: Value? = nil) {
        self.description = description
        self.messages = messages
        self.meta = meta
    }

    /// A result of these messages.
    public init(_ messages: PromptMessage...) {
        self.init(messages: messages)
    }

    /// One user text message.
    public init(stringLiteral value: String) {
        self.init(messages: [.user(value)])
    }

    /// The MCP JSON form (`GetPromptResult`).
    public var value: Value {
        var o: [String: Value] = ["messages": .array(messages.map(\.value))]
        o.set("description", description.map(Value.string))
        o.set("_meta", meta)
        return .object(o)
    }
}

// MARK: - Completions and logging

/// A `completion/complete` request for one argument, as a completion handler gets it.
public struct CompletionRequest: Sendable, Hashable {
    /// The name of the argument being completed.
    public var argumentName: String
    /// What the user typed so far.
    public var value: String
    /// Arguments already resolved (`context.arguments`).
    public var context: [String: String]
    /// The request's params as sent (`ref`, `argument`, `context`).
    public var raw: Value

    /// Reads the `completion/complete` params (`ref`, `argument`, `context`).
    public init(_ params: Value) {
        argumentName = params["argument"]?["name"]?.stringValue ?? ""
        value = params["argument"]?["value"]?.stringValue ?? ""
        context = (params["context"]?["arguments"]?.objectValue ?? [:])
            .compactMapValues(\.stringValue)
        raw = params
    }
}

/// A log message's severity (RFC 5424, as MCP `LoggingLevel`), from least to most severe.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Codable {
    /// Debugging detail.
    case debug
    /// Information.
    case info
    /// Normal but significant.
    case notice
    /// A warning.
    case warning
    /// An error.
    case error
    /// A critical condition.
    case critical
    /// Action must be taken immediately.
    case alert
    /// The system is unusable.
    case emergency
}
