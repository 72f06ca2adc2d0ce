// SessionSend: what a server sends to its sessions from outside any handler (a timer, an app
// route, work a handler left running) and what it hears from them outside a request (the
// handshake, the client's notifications). Inside a handler, `RequestContext` reaches that
// request's client; here there is no request to follow, so the session is named by its
// `Mcp-Session-Id` or is the server's only live one. Which session, and the refusals, are the
// engine's (`embed::EmbeddedServer::notify_sessions` / `request_session`), as in Node.

import FerroMCPNative
import Foundation

extension Server {
    /// Sends the notification `method` with `params` to the live session whose
    /// `Mcp-Session-Id` is `sessionId`, or without one to every live session. Returns how many
    /// sessions it was sent to (0: none was live).
    @discardableResult
    public func notifySessions(_ method: String, params: Value? = nil, sessionId: String? = nil) async throws -> Int {
        let text = params?.jsonText
        let native = native
        let sent = try await bridged {
            try await native.notifySessions(method: method, params: text, sessionId: sessionId)
        }
        return Int(sent)
    }

    /// Sends the request `method` with `params` to the live session whose `Mcp-Session-Id` is
    /// `sessionId`, or without one to this server's only live session, and returns the client's
    /// result. Throws the client's error, or `McpError` (invalid request) when no such session is
    /// live or, without `sessionId`, when there are several (call it from a handler then, whose
    /// `RequestContext` names its client).
    public func requestSession(_ method: String, params: Value? = nil, sessionId: String? = nil) async throws -> Value {
        let text = params?.jsonText
        let native = native
        let answer = try await bridged {
            try await native.requestSession(method: method, params: text, sessionId: sessionId)
        }
        return try Value(json: answer)
    }

    /// Shows this server's handshakes and the client's notifications to Swift: `initialize`
    /// (when given) gets each `initialize` request's params and session id before the engine
    /// answers it, and refuses the handshake by throwing (an `McpError` reaches the client with
    /// its code and message, any other error as an internal error); `notification` gets each
    /// notification from a client (method, params, session id) on the engine's task: keep it
    /// short. It is a middleware layer (see `use(_:)`): added before the server handles its
    /// first request, else this throws `McpError`. Requests other than `initialize` are handed on
    /// without reaching Swift.
    public func observeSessions(
        initialize: (@Sendable (_ params: Value, _ sessionId: String?) async throws -> Void)? = nil,
        notification: @escaping @Sendable (_ method: String, _ params: Value, _ sessionId: String?) -> Void
    ) throws {
        let observer = SessionObserverBridge(initialize: initialize, notification: notification)
        try bridged { try native.addSessionObserver(observer: observer, initialize: initialize != nil) }
    }
}

/// The engine's view of `observeSessions`' closures.
private final class SessionObserverBridge: SessionObserver {
    private let onInitialize: (@Sendable (Value, String?) async throws -> Void)?
    private let onNotification: @Sendable (String, Value, String?) -> Void

    init(initialize: (@Sendable (Value, String?) async throws -> Void)?,
         notification: @escaping @Sendable (String, Value, String?) -> Void) {
        onInitialize = initialize
        onNotification = notification
    }

    func initialize(request: String) async throws {
        guard let onInitialize else { return }
        do {
            let json = try Value(json: request)
            try await onInitialize(json["params"] ?? .null, json["sessionId"]?.stringValue)
        } catch let error as McpError {
            throw error.native
        } catch {
            throw McpError(.internalError, "initialize refused: \(error)").native
        }
    }

    func notification(notification: String) {
        guard let json = try? Value(json: notification), let method = json["method"]?.stringValue else { return }
        onNotification(method, json["params"] ?? .null, json["sessionId"]?.stringValue)
    }
}
