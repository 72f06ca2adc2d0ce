// RequestContext: what a handler gets besides its arguments (the request's identity, `_meta`,
// the peer, HTTP headers, cancellation) and what it can do while it runs (progress, logging,
// requests and notifications to the peer). A thin wrapper over the engine's NativeContext; the
// small types those calls answer with (ElicitResult, Root, HTTPHeader) live here too.

import FerroMCPNative
import Foundation

/// The context of one incoming request, handed to every handler (server handlers, and a
/// client's sampling / elicitation handlers).
///
/// Cancellation: when the peer cancels the request (or the session ends), the engine drops the
/// call and the Swift task running the handler is cancelled, so `Task.isCancelled`,
/// `Task.checkCancellation()` and cancellable awaits such as `Task.sleep` see it. Whatever the
/// handler answers after that is discarded.
public struct RequestContext: Sendable {
    let native: NativeContext

    /// Wraps the engine's context of a request.
    init(_ native: NativeContext) {
        self.native = native
    }

    /// The request's JSON-RPC id (a number or a string).
    public var requestId: Value { Self.json(native.requestId()) }

    /// The request's `_meta` object, if it had one.
    public var meta: Value? {
        // Most requests have none: the engine's `null` is not parsed.
        let text = native.meta()
        return text == "null" ? nil : Self.json(text).nonNull
    }

    /// The request's progress token, if the requester asked for progress.
    public var progressToken: Value? { Self.json(native.progressToken()).nonNull }

    /// The negotiated protocol revision, e.g. `"2025-11-25"`.
    public var protocolVersion: String? { native.protocolVersion() }

    /// The header fields of the HTTP request that carried this request (names in lowercase, in
    /// order); nil on other transports.
    public var httpHeaders: [HTTPHeader]? {
        native.httpHeaders()?.map { HTTPHeader(name: $0.name, value: $0.value) }
    }

    /// The value of the first HTTP header field named `name` (case-insensitive); nil when
    /// absent or not on HTTP.
    public func httpHeader(_ name: String) -> String? {
        let lower = name.lowercased()
        return native.httpHeaders()?.first { $0.name == lower }?.value
    }

    /// The peer's `clientInfo` (in a client's handler: the server's `serverInfo`); nil before
    /// the session is initialized.
    public var clientInfo: Value? { Self.json(native.peerInfo()).nonNull }

    /// The peer's capabilities (in a client's handler: the server's); nil before the session is
    /// initialized.
    public var clientCapabilities: Value? { Self.json(native.peerCapabilities()).nonNull }

    /// Whether the request was cancelled (by the peer or by the session ending).
    public var isCancelled: Bool { native.isCancelled() }

    /// Returns when the request is cancelled, or when the calling task is cancelled.
    ///
    /// The engine cancels the handler's task when it cancels the request, so call this from the
    /// handler's task or a child task of it (`async let`, a task group): an unstructured `Task`
    /// the handler starts is not cancelled with it.
    public func cancelled() async {
        if native.isCancelled() { return }
        let waiter = CancellationWaiter()
        await withTaskCancellationHandler {
            await waiter.wait()
        } onCancel: {
            waiter.fire()
        }
    }

    /// Reports progress (`notifications/progress`) if the requester asked for it (a request
    /// without a progress token sends nothing). The engine throttles frequent reports.
    public func reportProgress(_ progress: Double, total: Double? = nil,
                               message: String? = nil) async throws {
        try await bridged { try await native.progress(progress: progress, total: total, message: message) }
    }

    /// Sends a log message (`notifications/message`) to the peer, if its logging level lets
    /// `level` through.
    public func log(_ level: LogLevel, _ data: Value, logger: String? = nil) async throws {
        try await bridged { try await native.log(level: level.rawValue, logger: logger, data: data.jsonText) }
    }

    /// Asks the client to sample its model (`sampling/createMessage`): `params` is the
    /// `CreateMessageRequest` params (`messages`, `maxTokens`, ...); returns the
    /// `CreateMessageResult`.
    public func sample(_ params: Value) async throws -> Value {
        try await sendRequest(method: "sampling/createMessage", params: params)
    }

    /// Asks the user for input through the client (`elicitation/create`, form mode).
    /// `requestedSchema` is a flat object schema of primitive properties.
    public func elicit(message: String, requestedSchema: Value) async throws -> ElicitResult {
        try await elicit(["message": .string(message), "requestedSchema": requestedSchema])
    }

    /// `elicitation/create` with raw params (URL mode: `mode: "url"`, `url`, `elicitationId`).
    public func elicit(_ params: Value) async throws -> ElicitResult {
        try ElicitResult(try await sendRequest(method: "elicitation/create", params: params))
    }

    /// The client's roots (`roots/list`).
    public func listRoots() async throws -> [Root] {
        let result = try await sendRequest(method: "roots/list")
        guard let roots = result["roots"]?.arrayValue else {
            throw McpError(.internalError, "roots/list answered without roots: \(result)")
        }
        return try roots.map(Root.init)
    }

    /// Asks the client for several things at once: `requests` maps keys of your choosing to
    /// `["method": ..., "params": ...]` (`elicitation/create`, `sampling/createMessage`,
    /// `roots/list`); returns the client's results under the same keys. Before 2026-07-28 each
    /// is sent as a request; in the 2026-07-28 era this throws `McpError` with code
    /// `inputRequired` (let it propagate), the engine answers `input_required`, and when the
    /// client retries with the answers the handler runs again and this call returns them.
    public func input(_ requests: [String: Value]) async throws -> [String: Value] {
        let text = try await bridged { try await native.input(requests: Value.object(requests).jsonText) }
        return try Value(json: text).objectValue ?? [:]
    }

    /// 2026-07-28: the client's answer to input request `key` of an earlier
    /// `McpError.inputRequired(_:state:)` (nil when this request carries none).
    public func inputResponse(_ key: String) -> Value? {
        Self.json(native.inputResponse(key: key)).nonNull
    }

    /// 2026-07-28: the `state` given to `McpError.inputRequired(_:state:)` in the previous
    /// round, verified by the engine (nil on a first round and before 2026-07-28).
    public var requestState: Value? { Self.json(native.requestState()).nonNull }

    /// Sends any request to the peer, related to this one, and returns its result. Throws
    /// `McpError` with the peer's error, or `requestCancelled` when this request is cancelled
    /// meanwhile.
    public func sendRequest(method: String, params: Value? = nil) async throws -> Value {
        let text = try await bridged { try await native.request(method: method, params: params?.jsonText) }
        return try Value(json: text)
    }

    /// Sends a notification to the peer, related to this request.
    public func sendNotification(method: String, params: Value? = nil) async throws {
        try await bridged { try await native.notify(method: method, params: params?.jsonText) }
    }

    /// Closes the SSE stream carrying this request (Streamable HTTP): the client reconnects
    /// with `Last-Event-ID` and gets the answer on the resumed stream. False where there is no
    /// such stream (stdio, in-memory, JSON-response mode).
    @discardableResult
    public func closeSSEStream() -> Bool {
        native.closeSseStream()
    }

    /// Parses JSON the engine produced (null if it somehow is not JSON).
    private static func json(_ text: String) -> Value {
        (try? Value(json: text)) ?? .null
    }
}

extension Value {
    /// Self, or nil for `null`.
    var nonNull: Value? {
        if isNull { return nil }
        return self
    }
}

/// One HTTP header field of the request that carried an MCP request.
public struct HTTPHeader: Sendable, Hashable {
    /// The name, in lowercase.
    public var name: String
    /// The value.
    public var value: String

    /// A header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The user's answer to an elicitation (MCP `ElicitResult`).
public struct ElicitResult: Sendable, Hashable {
    /// What the user did.
    public enum Action: String, Sendable, Hashable, Codable {
        /// Submitted the form (or, in URL mode, agreed to open the URL).
        case accept
        /// Explicitly declined.
        case decline
        /// Dismissed without choosing.
        case cancel
    }

    /// What the user did.
    public var action: Action
    /// The submitted values (with `accept` in form mode).
    public var content: Value?
    /// `_meta`.
    public var meta: Value?

    /// An answer.
    public init(action: Action, content: Value? = nil, meta: Value? = nil) {
        self.action = action
        self.content = content
        self.meta = meta
    }

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let a = value["action"]?.stringValue, let action = Action(rawValue: a) else {
            throw McpError(.invalidParams, "elicitation result without a valid action: \(value)")
        }
        self.init(action: action, content: value["content"]?.nonNull, meta: value["_meta"])
    }

    /// The MCP JSON form.
    public var value: Value {
        var o: [String: Value] = ["action": .string(action.rawValue)]
        o.set("content", content)
        o.set("_meta", meta)
        return .object(o)
    }
}

/// A root the client exposes (MCP `Root`): a `file://` URI and an optional name.
public struct Root: Sendable, Hashable, Codable {
    /// The root's URI.
    public var uri: String
    /// A human-readable name.
    public var name: String?
    /// `_meta`.
    public var meta: Value?

    /// A root.
    public init(uri: String, name: String? = nil, meta: Value? = nil) {
        self.uri = uri
        self.name = name
        self.meta = meta
    }

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let uri = value["uri"]?.stringValue else {
            throw McpError(.invalidParams, "root without a uri: \(value)")
        }
        self.init(uri: uri, name: value["name"]?.stringValue, meta: value["_meta"])
    }

    /// The MCP JSON form.
    public var value: Value {
        var o: [String: Value] = ["uri": .string(uri)]
        o.set("name", name.map(Value.string))
        o.set("_meta", meta)
        return .object(o)
    }

    /// The Codable keys: the MCP names (`meta` is `_meta`).
    private enum CodingKeys: String, CodingKey {
        case uri, name
        case meta = "_meta"
    }
}

/// A one-shot signal (for waiting on a task's cancellation): `wait()` returns once `fire()`
/// was called, before or after.
final class CancellationWaiter: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case fired
    }

    private let state = LockedState(State.idle)

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if case .fired = s { return true }
                s = .waiting(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    func fire() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s = .fired }
            if case .waiting(let c) = s { return c }
            return nil
        }
        waiter?.resume()
    }
}

/// A value behind a lock.
private final class LockedState<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
