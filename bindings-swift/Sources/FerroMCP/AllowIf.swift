// AllowIf: authorization by a predicate of your own, in Swift, as Rust's
// `Authorization::allow_if` and the Python and Node layers of the same name: items the predicate
// refuses are absent from tools/list, resources/list, resources/templates/list and prompts/list
// and refused exactly as unknown ones (-32602 `Unknown tool: name` / `Unknown prompt: name`,
// -32002 `Resource not found: uri`, completion of a hidden template with no values).
// The decision is the engine's: `server.use(AllowIf { ... })` adds the engine's `Authorization`
// layer at that place in the chain, which asks the predicate about every item of the whole list
// once per list request and pages what is left with the server's page size (pages stay full,
// cursors valid), and about the one item of a call, read or get.

import FerroMCPNative
import Foundation

/// What an `AllowIf` predicate is asked about: an item and the caller.
public struct Access: Sendable {
    /// What an item is.
    public enum Kind: String, Sendable { case tool, resource, prompt }

    /// The kind of item.
    public let kind: Kind
    /// The tool's or prompt's name, the resource's URI or the template's URI template.
    public let name: String
    /// The request (its `principal`, `sessionId`, `sessionKey`, `context.clientInfo`, ...).
    public let request: MiddlewareRequest

    /// The verified token's scopes (empty without one).
    public var scopes: [String] {
        request.principal?["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Whether the principal was granted `scope`.
    public func hasScope(_ scope: String) -> Bool { scopes.contains(scope) }
}

/// A middleware layer showing an item only when `predicate(access)` is true:
/// `try server.use(AllowIf { !$0.name.hasPrefix("admin_") || $0.hasScope("admin") })`.
/// The engine runs it (see the file's comment): add it with `server.use`.
public struct AllowIf: Middleware {
    let predicate: @Sendable (Access) -> Bool

    /// The layer; `predicate` runs on an engine thread, once per listed item and once per call:
    /// keep it cheap.
    public init(_ predicate: @escaping @Sendable (Access) -> Bool) {
        self.predicate = predicate
    }

    /// Not called: `server.use` hands the predicate to the engine. Throws an internal error
    /// saying so when called directly.
    public func handle(_ request: MiddlewareRequest, next: MiddlewareNext) async throws -> Value {
        throw McpError(code: -32603, message: "AllowIf runs in the engine: add it with server.use, do not call it")
    }

    /// Adds the engine's authorization layer asking this predicate to `server`.
    func install(in server: Server) throws {
        try bridged { try server.native.addAccessPredicate(predicate: AccessPredicateBridge(predicate)) }
    }
}

/// The engine's view of an `AllowIf` predicate.
private final class AccessPredicateBridge: AccessPredicate {
    private let predicate: @Sendable (Access) -> Bool

    init(_ predicate: @escaping @Sendable (Access) -> Bool) {
        self.predicate = predicate
    }

    func allowed(request: String, kind: String, names: [String], context: NativeContext) -> [Bool] {
        // The engine's request JSON and kinds are its own: anything else hides every item.
        guard let json = try? Value(json: request), let kind = Access.Kind(rawValue: kind) else {
            return names.map { _ in false }
        }
        let req = MiddlewareRequest(json, context: RequestContext(context))
        return names.map { predicate(Access(kind: kind, name: $0, request: req)) }
    }
}
