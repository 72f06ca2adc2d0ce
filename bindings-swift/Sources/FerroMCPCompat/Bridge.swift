// Bridge: moves values between this module's swift-sdk shapes and the FerroMCP facade's
// (both are MCP's wire JSON, so each crossing is an encode and a decode), and maps errors both
// ways: a handler's `MCPError` to the engine's `McpError`, the engine's to `MCPError`.

import FerroMCP
import Foundation

/// The FerroMCP facade's JSON value (the engine side of every crossing).
typealias EngineValue = FerroMCP.Value

enum Bridge {
    /// `value` as the engine's JSON.
    static func engine<T: Encodable>(_ value: T) throws -> EngineValue {
        try EngineValue(json: JSONEncoder().encode(value))
    }

    /// The engine's JSON decoded as `T`.
    static func compat<T: Decodable>(_ value: EngineValue, as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(value.jsonText.utf8))
    }

    /// What a compat handler threw, as the engine answers it: an `MCPError` keeps its code and
    /// message; anything else is left to the engine's policy (a tool's failure is an `isError`
    /// result, another handler's an internal error).
    static func engineError(_ error: Error) -> Error {
        guard let e = error as? MCPError else { return error }
        if case .urlElicitationRequired(_, let elicitations) = e, let list = try? engine(elicitations) {
            return McpError(code: e.code, message: e.wireMessage, data: ["elicitations": list])
        }
        return McpError(code: e.code, message: e.wireMessage)
    }

    /// What the engine threw, as this module's `MCPError`.
    static func compatError(_ error: Error) -> Error {
        guard let e = error as? McpError else { return error }
        if e.isTransportError {
            if e.code == -32000 { return MCPError.connectionClosed }
            let prefix = "Transport error: "
            let message = e.message.hasPrefix(prefix) ? String(e.message.dropFirst(prefix.count)) : e.message
            return MCPError.transportError(TransportFailure(message: message))
        }
        return MCPError(code: e.code, message: e.message, data: try? compat(e.data ?? .null, as: Value.self))
    }

    /// Runs `body`, rethrowing the engine's errors as `MCPError`.
    static func calling<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw compatError(error) }
    }
}
