// Middleware: Swift layers around every request a Server handles (`server.use { request, next
// in ... }` or a `Middleware` type), shown the client's notifications too, and the engine's
// built-in layers by name (`.rateLimit`, `.requestLog`, `.maskErrors`, `.timing`). The chain
// itself is the engine's; this file turns a Swift layer into the engine's foreign layer
// (request, result, changed request and notifications cross as JSON text) and the built-ins
// into their JSON configuration.

import FerroMCPNative
import Foundation

/// One request as a middleware layer sees it. `method` and `params` may be changed before the
/// request is handed on (`next(request)`); the rest describes the request.
public struct MiddlewareRequest: Sendable {
    /// The JSON-RPC method, e.g. `"tools/call"`. Changing it routes the request elsewhere.
    public var method: String
    /// The request's params (an object), nil when it had none. Changing them changes what the
    /// rest of the chain (and the handler) gets.
    public var params: Value?
    /// The JSON-RPC id.
    public let id: Value
    /// The tool's name, for `tools/call`.
    public let tool: String?
    /// The HTTP session (`Mcp-Session-Id`), nil on other transports and stateless HTTP.
    public let sessionId: String?
    /// The key the rate limiter counts this request's session under (set on every transport).
    public let sessionKey: String?
    /// The verified bearer token's identity on a protected HTTP server (`subject`, `clientId`,
    /// `scopes`, `audience`, `expiresAt`, `claims`); nil when the server is not protected.
    public let principal: Value?
    /// The protocol revision the request is served under, e.g. `"2025-11-25"`.
    public let protocolVersion: String?
    /// The header fields of the HTTP request that carried it (names in lowercase); nil on other
    /// transports.
    public let httpHeaders: [HTTPHeader]?
    /// The request's context (cancellation, logging, requests to the client), as handlers get it.
    public let context: RequestContext

    /// The value of the first HTTP header field named `name` (case-insensitive).
    public func httpHeader(_ name: String) -> String? {
        let lower = name.lowercased()
        return httpHeaders?.first { $0.name == lower }?.value
    }

    /// `params["arguments"]` of a `tools/call`.
    public var arguments: Value? { params?["arguments"] }

    init(_ json: Value, context: RequestContext) {
        method = json["method"]?.stringValue ?? ""
        params = json["params"]?.nonNull
        id = json["id"] ?? .null
        tool = json["tool"]?.stringValue
        sessionId = json["sessionId"]?.stringValue
        sessionKey = json["sessionKey"]?.stringValue
        principal = json["principal"]?.nonNull
        protocolVersion = json["protocolVersion"]?.stringValue
        // The engine gives them as `[name, value]` pairs.
        httpHeaders = json["httpHeaders"]?.arrayValue?.compactMap { pair in
            guard let name = pair[0]?.stringValue, let value = pair[1]?.stringValue else { return nil }
            return HTTPHeader(name: name, value: value)
        }
        self.context = context
    }
}

/// The rest of the chain after a layer, for one request: call it at most once, with the
/// request as it came or changed, to get the result the handler (and the layers after this
/// one) answered. A JSON-RPC error from them is thrown as `McpError`.
public struct MiddlewareNext: Sendable {
    let native: NativeNext
    let original: (method: String, params: Value?)

    /// Hands `request` on and returns the result object (e.g. a `CallToolResult` as JSON).
    /// Only `method` and `params` of `request` are read. A second call throws an internal error.
    public func callAsFunction(_ request: MiddlewareRequest) async throws -> Value {
        var changed: String?
        if request.method != original.method || request.params != original.params {
            changed = Value.object(["method": .string(request.method),
                                    "params": request.params ?? .null]).jsonText
        }
        let text = try await bridged { try await native.run(request: changed) }
        return try Value(json: text)
    }
}

/// A notification from the client, as a middleware layer is shown it (`Middleware.notification`,
/// or the `onNotification` closure of `Server.use(_:onNotification:)`): to observe only, it is
/// handed on whatever the layer does. The client's `notifications/roots/list_changed` and custom
/// notifications reach layers; those the engine consumes itself (`notifications/initialized`,
/// `notifications/cancelled`, `notifications/progress`) do not.
public struct MiddlewareNotification: Sendable {
    /// The notification's method, e.g. `"notifications/roots/list_changed"`.
    public let method: String
    /// Its params (an object), nil when it had none.
    public let params: Value?
    /// The HTTP session (`Mcp-Session-Id`), nil on other transports and stateless HTTP.
    public let sessionId: String?
    /// A key naming the session: `sid-` and the `Mcp-Session-Id`, else `conn-` and the
    /// connection's number (the rate limiter's session key; `MiddlewareRequest.sessionKey`).
    public let sessionKey: String

    init(_ json: Value) {
        method = json["method"]?.stringValue ?? ""
        params = json["params"]?.nonNull
        sessionId = json["sessionId"]?.stringValue
        sessionKey = json["sessionKey"]?.stringValue ?? ""
    }
}

/// A middleware layer as a type: handle a request by answering it, throwing (an `McpError`
/// reaches the client with its code, message and data; any other error as an internal error),
/// or calling `next` and returning its result, changed or not. `notification(_:)` sees the
/// client's notifications (the default ignores them).
public protocol Middleware: Sendable {
    /// Handles one request.
    func handle(_ request: MiddlewareRequest, next: MiddlewareNext) async throws -> Value

    /// Sees one notification from the client, to observe: it is handed on whatever this does
    /// (there is no `next` to call). A layer's notifications are delivered one at a time, in
    /// the order the client sent them, each after the previous call returned; a slow call
    /// delays only this layer's later notifications, never the server.
    func notification(_ notification: MiddlewareNotification) async
}

extension Middleware {
    /// Ignores the notification (it is handed on all the same).
    public func notification(_ notification: MiddlewareNotification) async {}
}

/// A middleware layer as a closure (see `Server.use(_:)`).
public typealias MiddlewareFunction = @Sendable (MiddlewareRequest, MiddlewareNext) async throws -> Value

/// A layer's view of the client's notifications as a closure (see `Server.use(_:onNotification:)`).
public typealias MiddlewareNotificationFunction = @Sendable (MiddlewareNotification) async -> Void

/// What a request cost, as the timing layer reports it.
public struct TimingEvent: Sendable, Hashable {
    /// How the request ended.
    public enum Outcome: String, Sendable, Hashable {
        /// Answered with a result.
        case ok
        /// Answered with a JSON-RPC error (`code`).
        case error
        /// Cancelled before it was answered.
        case cancelled
    }
    /// The method.
    public let method: String
    /// The tool, for `tools/call`.
    public let tool: String?
    /// From the request entering the timing layer to its answer leaving it.
    public let duration: Duration
    /// How it ended.
    public let outcome: Outcome
    /// The JSON-RPC error code, when `outcome` is `.error`.
    public let code: Int?

    init?(_ json: Value) {
        guard let method = json["method"]?.stringValue,
              let ms = json["durationMs"]?.doubleValue,
              let outcome = json["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)) else { return nil }
        self.method = method
        tool = json["tool"]?.stringValue
        duration = .nanoseconds(Int64((ms * 1_000_000).rounded()))
        self.outcome = outcome
        code = json["code"]?.intValue
    }
}

/// One of the engine's built-in layers, by name and options (they run in Rust: no Swift call
/// per request, except the timing hook's).
public struct BuiltinMiddleware: Sendable {
    enum Kind: Sendable {
        case config(Value)
        case timing(@Sendable (TimingEvent) -> Void)
    }
    let kind: Kind

    /// What a rate limit's bucket key is made of.
    public enum RateKey: String, Sendable {
        /// The verified token's subject (or client id); unauthenticated requests share one key.
        case principal
        /// The session (every transport has one key per connection or HTTP session).
        case session
        /// The client's address: the connection's peer, or, with `addressHeader` and the peer
        /// one of `trustedProxies`, the rightmost address of that header that is not a trusted
        /// proxy.
        case clientAddress
        /// The tool called (other methods count under their method name).
        case tool
        /// One bucket for everything.
        case global
    }

    /// Token buckets: `limit` requests per `window` and key; over it the request is refused with
    /// JSON-RPC error -32004 "Rate limited", `data: {retryAfter (seconds), limit, window
    /// (seconds)}`. `tools` gives tools limits (and buckets) of their own; `methods` limits the
    /// methods counted (default: every request); `redisURL` shares the buckets between
    /// replicas (engine built with its `redis` feature). `addressHeader` (e.g.
    /// `"x-forwarded-for"`) is read only on connections from `trustedProxies` (IP addresses and
    /// CIDR ranges such as `"10.0.0.0/8"`; `nil`: loopback only).
    public static func rateLimit(
        limit: Int, window: Duration, by: [RateKey] = [.session],
        tools: [String: (limit: Int, window: Duration)] = [:], methods: [String]? = nil,
        addressHeader: String? = nil, trustedProxies: [String]? = nil, redisURL: String? = nil
    ) -> BuiltinMiddleware {
        var o: [String: Value] = [
            "name": "rateLimit", "limit": .int(limit), "windowMs": .int(window.wholeMilliseconds),
            "by": .array(by.map { .string($0.rawValue) }),
        ]
        if !tools.isEmpty {
            o["tools"] = .object(tools.mapValues {
                ["limit": .int($0.limit), "windowMs": .int($0.window.wholeMilliseconds)]
            })
        }
        o.set("methods", methods.map { .array($0.map(Value.string)) })
        o.set("addressHeader", addressHeader.map(Value.string))
        o.set("trustedProxies", trustedProxies.map { .array($0.map(Value.string)) })
        o.set("redisUrl", redisURL.map(Value.string))
        return BuiltinMiddleware(kind: .config(.object(o)))
    }

    /// One structured `tracing` event per request (method, tool, duration, outcome, principal)
    /// on target `ferromcp::request`, at INFO (errors at WARN at least).
    public static var requestLog: BuiltinMiddleware { requestLog(level: nil) }

    /// `requestLog` at another level for answered requests (`"trace"`, `"debug"`, `"info"`, `"warn"`).
    public static func requestLog(level: String?) -> BuiltinMiddleware {
        var o: [String: Value] = ["name": "requestLog"]
        o.set("level", level.map(Value.string))
        return BuiltinMiddleware(kind: .config(.object(o)))
    }

    /// Internal errors (-32603, which a handler's unexpected error or a panic becomes) reach the
    /// client as `"Internal error"` without data; the original is logged server-side (`tracing`
    /// target `ferromcp::masked`). Add it first to mask what every other layer returns.
    public static var maskErrors: BuiltinMiddleware { maskErrors(message: nil, codes: nil) }

    /// `maskErrors` with another message, or other codes to mask (default `[-32603]`).
    public static func maskErrors(message: String?, codes: [Int]? = nil) -> BuiltinMiddleware {
        var o: [String: Value] = ["name": "maskErrors"]
        o.set("message", message.map(Value.string))
        o.set("codes", codes.map { .array($0.map(Value.int)) })
        return BuiltinMiddleware(kind: .config(.object(o)))
    }

    /// Calls `hook` with each request's `TimingEvent`, on the engine's thread that served it:
    /// keep it short (record, or post elsewhere).
    public static func timing(_ hook: @escaping @Sendable (TimingEvent) -> Void) -> BuiltinMiddleware {
        BuiltinMiddleware(kind: .timing(hook))
    }
}

extension Server {
    /// Adds a middleware layer after those already added (the first added is outermost: it sees
    /// the request first and the result last). A layer sees every request the server handles
    /// (initialize, lists, `tools/call`, reads, prompts, completion, custom methods), and
    /// `onNotification`, when given, the client's notifications (see `MiddlewareNotification`;
    /// they are handed on whatever it does, one at a time in the order sent, as
    /// `Middleware.notification` is called). Layers are added before the server handles its
    /// first request; after that this throws `McpError`.
    ///
    /// ```swift
    /// try server.use { request, next in
    ///     guard request.principal != nil || request.method != "tools/call" else {
    ///         throw McpError(code: -32003, message: "sign in first")
    ///     }
    ///     return try await next(request)
    /// } onNotification: { note in
    ///     print("client sent \(note.method)")
    /// }
    /// ```
    public func use(_ layer: @escaping MiddlewareFunction,
                    onNotification: MiddlewareNotificationFunction? = nil) throws {
        try bridged { try native.addMiddleware(handler: MiddlewareBridge(layer, onNotification)) }
    }

    /// Adds a `Middleware` value as a layer (see `use(_:onNotification:)` with a closure); its
    /// `notification(_:)` is shown the client's notifications.
    public func use(_ layer: some Middleware) throws {
        if let allowIf = layer as? AllowIf { return try allowIf.install(in: self) }  // the engine runs it
        try use({ request, next in try await layer.handle(request, next: next) },
                onNotification: { note in await layer.notification(note) })
    }

    /// Adds one of the engine's built-in layers (see `use(_:)` with a closure for the order).
    /// Throws `McpError` (invalid params) for options the engine refuses (a zero limit, ...).
    public func use(_ builtin: BuiltinMiddleware) throws {
        switch builtin.kind {
        case .config(let config):
            try bridged { try native.addMiddlewareConfig(config: config.jsonText) }
        case .timing(let hook):
            try bridged { try native.addTimingHook(hook: TimingRelay(hook)) }
        }
    }
}

/// The engine's view of a Swift layer.
private final class MiddlewareBridge: MiddlewareHandler {
    private let layer: MiddlewareFunction
    /// Where the engine's synchronous `notification` calls queue the client's notifications for
    /// the layer's hook (nil without one); one task drains it, so they are seen in order.
    private let notes: AsyncStream<MiddlewareNotification>.Continuation?

    init(_ layer: @escaping MiddlewareFunction, _ onNotification: MiddlewareNotificationFunction?) {
        self.layer = layer
        if let onNotification {
            let (stream, continuation) = AsyncStream<MiddlewareNotification>.makeStream()
            notes = continuation
            // Ends when the bridge (the engine's layer) goes and `deinit` finishes the stream.
            Task.detached {
                for await note in stream { await onNotification(note) }
            }
        } else {
            notes = nil
        }
    }

    deinit {
        notes?.finish()
    }

    func notification(notification: String) {
        guard let notes, let json = try? Value(json: notification) else { return }
        notes.yield(MiddlewareNotification(json))
    }

    func handle(request: String, next: NativeNext, context: NativeContext) async throws -> String {
        do {
            let json = try Value(json: request)
            let req = MiddlewareRequest(json, context: RequestContext(context))
            let result = try await layer(req, MiddlewareNext(native: next, original: (req.method, req.params)))
            return result.jsonText
        } catch let error as McpError {
            throw error.native
        } catch {
            throw McpError(.internalError, "middleware failed: \(error)").native
        }
    }
}

/// Hands the engine's timing events to a `BuiltinMiddleware.timing` hook.
private final class TimingRelay: TimingHook {
    private let hook: @Sendable (TimingEvent) -> Void

    init(_ hook: @escaping @Sendable (TimingEvent) -> Void) {
        self.hook = hook
    }

    func event(event: String) {
        guard let value = try? Value(json: event), let e = TimingEvent(value) else { return }
        hook(e)
    }
}
