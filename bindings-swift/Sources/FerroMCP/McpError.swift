// McpError: every failure the facade reports, with the JSON-RPC code the engine or the peer
// gave. The named codes come from the engine's table (`errorCodes()`), not a copy.

import FerroMCPNative

/// An MCP / JSON-RPC error: a peer's error answer, a local failure (timeout, cancellation,
/// closed connection, transport), or an error a handler throws to answer with a JSON-RPC error.
public struct McpError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON-RPC error code (see `McpError.Code`).
    public let code: Int
    /// The message.
    public let message: String
    /// The error's `data`, if any.
    public let data: Value?
    /// What the engine said of an error it raised: the peer's answer (`.rpc`, whatever its
    /// code) or its own failure. `nil` for an error made in Swift, where the code decides.
    let kind: FfiErrorKind?

    /// An error with a code, a message and optional data.
    public init(code: Int, message: String, data: Value? = nil) {
        self.init(code: code, message: message, data: data, kind: nil)
    }

    init(code: Int, message: String, data: Value?, kind: FfiErrorKind?) {
        self.code = code
        self.message = message
        self.data = data
        self.kind = kind
    }

    /// An error with a named code.
    public init(_ code: Code, _ message: String, data: Value? = nil) {
        self.init(code: code.rawValue, message: message, data: data)
    }

    /// Whether a transport made this error locally (connection closed, I/O or HTTP failure),
    /// as opposed to an answer from the peer: a server's own -32000 answer is not one.
    public var isTransportError: Bool {
        switch kind {
        case .closed?, .transport?: true
        case .rpc?, .timeout?, .cancelled?: false
        case nil: Code.transportCodes.contains(code)
        }
    }

    /// The named code, if the engine knows this one.
    public var name: String? { Code.table.first { $0.code == Int32(truncatingIfNeeded: code) }?.name }

    public var description: String { "McpError(\(name ?? String(code))): \(message)" }

    /// Equal when code, message and data are (how the error came about is not compared).
    public static func == (a: McpError, b: McpError) -> Bool {
        a.code == b.code && a.message == b.message && a.data == b.data
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(data)
    }
}

extension McpError {
    /// A JSON-RPC error code. The named ones are read from the engine's table.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        static let table: [ErrorCodeEntry] = errorCodes()
        static let transportCodes: Set<Int> = Set(table.filter(\.transport).map { Int($0.code) })

        /// The code the engine's table names `name`.
        static func named(_ name: String) -> Code {
            guard let entry = table.first(where: { $0.name == name }) else {
                preconditionFailure("the engine's error table has no \(name)")
            }
            return Code(rawValue: Int(entry.code))
        }

        /// Invalid JSON was received.
        public static let parseError = named("ParseError")
        /// Not a valid JSON-RPC request.
        public static let invalidRequest = named("InvalidRequest")
        /// Unknown or not negotiated method.
        public static let methodNotFound = named("MethodNotFound")
        /// Invalid parameters (including schema validation failures).
        public static let invalidParams = named("InvalidParams")
        /// Internal error (also: a handler failed).
        public static let internalError = named("InternalError")
        /// The connection closed before an answer arrived (local).
        public static let connectionClosed = named("ConnectionClosed")
        /// A request timed out (local).
        public static let requestTimeout = named("RequestTimeout")
        /// The resource does not exist.
        public static let resourceNotFound = named("ResourceNotFound")
        /// -32004: over a rate limit (`data`: `retryAfter` and `window` in seconds, `limit`).
        public static let rateLimited = named("RateLimited")
        /// A transport failed: I/O, spawn, HTTP status (local).
        public static let transportError = named("TransportError")
        /// A protocol version one side cannot speak (`data`: `supported`, `requested`).
        public static let unsupportedProtocolVersion = named("UnsupportedProtocolVersion")
        /// 2026-07-28: HTTP headers missing, malformed or not matching the body.
        public static let headerMismatch = named("HeaderMismatch")
        /// 2026-07-28: serving the request needs a capability the client did not declare.
        public static let missingRequiredClientCapability = named("MissingRequiredClientCapability")
        /// A handler asks the client for input (2026-07-28; see `McpError.inputRequired`).
        public static let inputRequired = named("InputRequired")
        /// The server needs URL-mode elicitation to proceed.
        public static let urlElicitationRequired = named("UrlElicitationRequired")
        /// The request was cancelled by this side (local).
        public static let requestCancelled = named("RequestCancelled")
    }
}

extension McpError {
    /// The error that answers `input_required` (2026-07-28): throw it from a tool, prompt or
    /// resource handler. `requests` maps keys of your choosing to
    /// `["method": ..., "params": ...]` input requests; `state` (any JSON) comes back, sealed so
    /// the client cannot alter it, as `context.requestState` on the retry, where
    /// `context.inputResponse(key)` gives the answers.
    public static func inputRequired(_ requests: [String: Value], state: Value? = nil) -> McpError {
        McpError(.inputRequired, "input required",
                 data: ["inputRequests": .object(requests), "state": state ?? .null])
    }
}

extension McpError {
    /// The error the engine raised.
    init(_ native: FfiError) {
        switch native {
        case .Mcp(let code, let message, let data, let kind):
            self.init(code: Int(code), message: message, data: data.flatMap { try? Value(json: $0) },
                      kind: kind)
        }
    }

    /// The error to hand back to the engine.
    var native: FfiError {
        .Mcp(code: Int32(truncatingIfNeeded: code), message: message, data: data?.jsonText,
             kind: kind ?? .rpc)
    }
}

extension FfiErrorKind {
    /// The kind the engine names `name` in an error's JSON (`ferromcp_embed::kind_name`:
    /// `rpc`, `transport`, `closed`, `timeout`, `cancelled`); `nil` for a name it does not know.
    init?(name: String) {
        switch name {
        case "rpc": self = .rpc
        case "transport": self = .transport
        case "closed": self = .closed
        case "timeout": self = .timeout
        case "cancelled": self = .cancelled
        default: return nil
        }
    }
}

/// Runs `body`, turning the engine's errors into `McpError`.
@inline(__always)
func bridged<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let e as FfiError {
        throw McpError(e)
    }
}

/// Runs `body` synchronously, turning the engine's errors into `McpError`.
@inline(__always)
func bridged<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as FfiError {
        throw McpError(e)
    }
}
