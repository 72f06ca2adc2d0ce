// Messages: the official swift-sdk's request and notification types (`Method`, `Notification`,
// `Message`, `Empty`, `Metadata`, `ProgressToken`), the shapes `withMethodHandler`,
// `onNotification` and `notify` are written against. Their JSON is the MCP wire format.

import Foundation

/// A value a request may leave out (`Parameters` of a `Method` that takes none).
public protocol NotRequired {
    init()
}

/// An empty object (`{}`): the result of requests that answer nothing.
public struct Empty: NotRequired, Hashable, Codable, Sendable {
    public init() {}
}

extension Value: NotRequired {
    public init() { self = .object([:]) }
}

/// An MCP request method: its wire name, parameters and result.
public protocol Method: Sendable {
    associatedtype Parameters: Codable, Hashable, Sendable = Empty
    associatedtype Result: Codable, Hashable, Sendable = Empty
    /// The method name on the wire (`tools/call`).
    static var name: String { get }
}

/// An MCP notification: its wire name and parameters.
public protocol Notification: Hashable, Codable, Sendable {
    associatedtype Parameters: Codable, Hashable, Sendable = Empty
    /// The method name on the wire (`notifications/progress`).
    static var name: String { get }
}

/// A notification ready to send (`server.notify(...)`) or received (`onNotification`).
public struct Message<N: Notification>: Hashable, Codable, Sendable {
    /// The method name.
    public let method: String
    /// The parameters.
    public let params: N.Parameters

    public init(method: String, params: N.Parameters) {
        self.method = method
        self.params = params
    }
}

extension Notification where Parameters == Empty {
    /// The notification with no parameters.
    public static func message() -> Message<Self> { Message(method: name, params: Empty()) }
}

extension Notification {
    /// The notification with these parameters.
    public static func message(_ parameters: Parameters) -> Message<Self> {
        Message(method: name, params: parameters)
    }
}

/// A progress token (`_meta.progressToken`): a string or an integer.
public enum ProgressToken: Hashable, Codable, Sendable {
    case string(String)
    case integer(Int)

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let i = try? c.decode(Int.self) {
            self = .integer(i)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "Progress token must be a string or integer")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .integer(let i): try c.encode(i)
        }
    }

    /// A new token, unique to this process (a UUID).
    public static func unique() -> ProgressToken { .string(UUID().uuidString) }
}

/// A request's or result's `_meta` object.
public struct Metadata: Hashable, Codable, Sendable {
    /// Every field, `progressToken` included.
    public var fields: [String: Value]

    public subscript(_ key: String) -> Value? { fields[key] }

    /// `_meta.progressToken`.
    public var progressToken: ProgressToken? {
        get {
            switch fields["progressToken"] {
            case .string(let s)?: .string(s)
            case .int(let i)?: .integer(i)
            default: nil
            }
        }
        set {
            switch newValue {
            case .string(let s)?: fields["progressToken"] = .string(s)
            case .integer(let i)?: fields["progressToken"] = .int(i)
            case nil: fields.removeValue(forKey: "progressToken")
            }
        }
    }

    public init(progressToken: ProgressToken? = nil, additionalFields: [String: Value] = [:]) {
        fields = additionalFields
        self.progressToken = progressToken
    }

    public init(from decoder: Decoder) throws {
        fields = try decoder.singleValueContainer().decode([String: Value].self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(fields)
    }
}

/// An icon (`src`, `mimeType`, `sizes`, `theme`), as servers and tools list them.
public struct Icon: Hashable, Codable, Sendable {
    public var src: String
    public var mimeType: String?
    public var sizes: [String]?
    public var theme: String?

    public init(src: String, mimeType: String? = nil, sizes: [String]? = nil, theme: String? = nil) {
        self.src = src
        self.mimeType = mimeType
        self.sizes = sizes
        self.theme = theme
    }
}

/// Checks a connection is alive.
public enum Ping: Method {
    public static let name = "ping"
}

/// `notifications/progress`.
public struct ProgressNotification: Notification {
    public static let name = "notifications/progress"

    public struct Parameters: Hashable, Codable, Sendable {
        public let progressToken: ProgressToken
        public let progress: Double
        public let total: Double?
        public let message: String?

        public init(progressToken: ProgressToken, progress: Double, total: Double? = nil, message: String? = nil) {
            self.progressToken = progressToken
            self.progress = progress
            self.total = total
            self.message = message
        }
    }
}

/// `notifications/cancelled`.
public struct CancelledNotification: Notification {
    public static let name = "notifications/cancelled"

    public struct Parameters: Hashable, Codable, Sendable {
        public let requestId: Value?
        public let reason: String?

        public init(requestId: Value? = nil, reason: String? = nil) {
            self.requestId = requestId
            self.reason = reason
        }
    }
}
