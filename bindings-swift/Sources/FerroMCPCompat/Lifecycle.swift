// Lifecycle: the official swift-sdk's `Initialize`, `Server.Capabilities`, `Client.Capabilities`,
// `Server.Info`/`Client.Info`, `LogLevel`, the logging method and notification and `MCPError`.
// The nested types live in extensions of Server and Client (Server.swift, Client.swift).

import Foundation

/// `initialize`: what a client gets back from `connect(transport:)`.
public enum Initialize: Method {
    public static let name = "initialize"

    public struct Parameters: Hashable, Codable, Sendable {
        public let protocolVersion: String
        public let capabilities: Client.Capabilities
        public let clientInfo: Client.Info

        public init(protocolVersion: String, capabilities: Client.Capabilities, clientInfo: Client.Info) {
            self.protocolVersion = protocolVersion
            self.capabilities = capabilities
            self.clientInfo = clientInfo
        }
    }

    public struct Result: Hashable, Codable, Sendable {
        public let protocolVersion: String
        public let capabilities: Server.Capabilities
        public let serverInfo: Server.Info
        public let instructions: String?
        public var _meta: Metadata?

        public init(protocolVersion: String, capabilities: Server.Capabilities, serverInfo: Server.Info,
                    instructions: String? = nil, _meta: Metadata? = nil) {
            self.protocolVersion = protocolVersion
            self.capabilities = capabilities
            self.serverInfo = serverInfo
            self.instructions = instructions
            self._meta = _meta
        }
    }
}

/// Log severities (RFC 5424), lowest first.
public enum LogLevel: String, Hashable, Codable, Sendable, CaseIterable {
    case debug, info, notice, warning, error, critical, alert, emergency
}

/// `logging/setLevel`.
public enum SetLoggingLevel: Method {
    public static let name = "logging/setLevel"

    public struct Parameters: Hashable, Codable, Sendable {
        public let level: LogLevel
        public init(level: LogLevel) { self.level = level }
    }

    public typealias Result = Empty
}

/// `notifications/message`: a log message from the server.
public struct LogMessageNotification: Notification {
    public static let name = "notifications/message"

    public struct Parameters: Hashable, Codable, Sendable {
        public let level: LogLevel
        public let logger: String?
        public let data: Value

        public init(level: LogLevel, logger: String? = nil, data: Value) {
            self.level = level
            self.logger = logger
            self.data = data
        }
    }
}

/// `notifications/roots/list_changed`.
public struct RootsListChangedNotification: Notification {
    public static let name = "notifications/roots/list_changed"
    public typealias Parameters = Empty
}

/// One URL the user is sent to (the data of a -32042 error).
public struct URLElicitationInfo: Codable, Hashable, Sendable {
    public var mode: String
    public var elicitationId: String
    public var url: String
    public var message: String

    public init(mode: String = "url", elicitationId: String, url: String, message: String) {
        self.mode = mode
        self.elicitationId = elicitationId
        self.url = url
        self.message = message
    }
}

/// An MCP error, as the official swift-sdk's `MCPError`: thrown by handlers to answer a JSON-RPC
/// error, and by the client for an error answer or a transport failure.
public enum MCPError: Swift.Error, Sendable, LocalizedError {
    case parseError(String?)
    case invalidRequest(String?)
    case methodNotFound(String?)
    case invalidParams(String?)
    case internalError(String?)
    case serverError(code: Int, message: String)
    /// The user must visit the URLs first (-32042); a tool that throws it answers this error.
    case urlElicitationRequired(message: String, elicitations: [URLElicitationInfo])
    case connectionClosed
    case transportError(Swift.Error)

    /// The JSON-RPC code.
    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .methodNotFound: -32601
        case .invalidParams: -32602
        case .internalError: -32603
        case .serverError(let code, _): code
        case .urlElicitationRequired: -32042
        case .connectionClosed: -32000
        case .transportError: -32001
        }
    }

    public var errorDescription: String? {
        switch self {
        case .parseError(let d): "Parse error: Invalid JSON" + (d.map { ": \($0)" } ?? "")
        case .invalidRequest(let d): "Invalid Request" + (d.map { ": \($0)" } ?? "")
        case .methodNotFound(let d): "Method not found" + (d.map { ": \($0)" } ?? "")
        case .invalidParams(let d): "Invalid params" + (d.map { ": \($0)" } ?? "")
        case .internalError(let d): "Internal error" + (d.map { ": \($0)" } ?? "")
        case .serverError(_, let message): "Server error: \(message)"
        case .urlElicitationRequired(let message, _): "URL elicitation required: \(message)"
        case .connectionClosed: "Connection closed"
        case .transportError(let e): "Transport error: \(e.localizedDescription)"
        }
    }

    /// The message sent on the wire: the detail given, else the code's name.
    var wireMessage: String {
        switch self {
        case .parseError(let d): d ?? "Parse error"
        case .invalidRequest(let d): d ?? "Invalid Request"
        case .methodNotFound(let d): d ?? "Method not found"
        case .invalidParams(let d): d ?? "Invalid params"
        case .internalError(let d): d ?? "Internal error"
        case .serverError(_, let message), .urlElicitationRequired(let message, _): message
        case .connectionClosed: "Connection closed"
        case .transportError(let e): e.localizedDescription
        }
    }

    /// The error for a JSON-RPC code, message and data (`data.elicitations` of a -32042).
    public init(code: Int, message: String, data: Value? = nil) {
        switch code {
        case -32700: self = .parseError(message)
        case -32600: self = .invalidRequest(message)
        case -32601: self = .methodNotFound(message)
        case -32602: self = .invalidParams(message)
        case -32603: self = .internalError(message)
        case -32042:
            let infos = (try? JSONDecoder().decode([URLElicitationInfo].self,
                                                   from: JSONEncoder().encode(data?.objectValue?["elicitations"] ?? .array([]))))
            self = .urlElicitationRequired(message: message, elicitations: infos ?? [])
        default: self = .serverError(code: code, message: message)
        }
    }
}

extension MCPError: Hashable {
    public static func == (lhs: MCPError, rhs: MCPError) -> Bool {
        switch (lhs, rhs) {
        case (.parseError(let a), .parseError(let b)), (.invalidRequest(let a), .invalidRequest(let b)),
             (.methodNotFound(let a), .methodNotFound(let b)), (.invalidParams(let a), .invalidParams(let b)),
             (.internalError(let a), .internalError(let b)):
            a == b
        case (.serverError(let c1, let m1), .serverError(let c2, let m2)): c1 == c2 && m1 == m2
        case (.urlElicitationRequired(let m1, let e1), .urlElicitationRequired(let m2, let e2)): m1 == m2 && e1 == e2
        case (.connectionClosed, .connectionClosed): true
        case (.transportError(let a), .transportError(let b)): a.localizedDescription == b.localizedDescription
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(wireMessage)
    }
}

/// A transport failure the engine reported, by its message.
struct TransportFailure: LocalizedError {
    let message: String
    var errorDescription: String? { message }
}

/// A root the client exposes (`roots/list`).
public struct Root: Hashable, Codable, Sendable {
    public let uri: String
    public let name: String?
    public var _meta: Metadata?

    public init(uri: String, name: String? = nil, _meta: Metadata? = nil) {
        self.uri = uri
        self.name = name
        self._meta = _meta
    }
}
