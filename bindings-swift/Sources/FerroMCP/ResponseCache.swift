// ResponseCache: the engine's response cache as a built-in middleware layer from Swift
// (`try server.use(.responseCache(ttl: .seconds(30)))`), by name and options like the others;
// the caching runs in Rust (docs/middleware.md, "Response caching"). `server.invalidateCache(...)`
// forgets entries explicitly (Rust's `invalidate_all`, `invalidate`, `invalidate_resource`).

import FerroMCPNative

extension BuiltinMiddleware {
    /// Who shares a cache entry.
    public enum CacheScope: String, Sendable {
        /// The verified token's subject, client id and scopes; the session without a token.
        case principal
        /// Always the session.
        case session
        /// Everyone (answers that depend on neither).
        case shared
    }

    /// `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list` and
    /// `resources/read` (or `methods`) answered from memory for `ttl`, and `tools/call` of the
    /// tools named in `tools` by arguments. Entries are keyed by method, params (without
    /// `_meta`), protocol revision and `scope`, so one principal's or session's answer never
    /// reaches another; the server's `list_changed` and `resources/updated` forget them.
    public static func responseCache(
        ttl: Duration, tools: [String] = [], methods: [String]? = nil,
        scope: CacheScope = .principal, maxEntries: Int? = nil
    ) -> BuiltinMiddleware {
        var o: [String: Value] = [
            "name": "responseCache", "ttlMs": .int(ttl.wholeMilliseconds), "scope": .string(scope.rawValue),
        ]
        if !tools.isEmpty { o["tools"] = .array(tools.map(Value.string)) }
        o.set("methods", methods.map { .array($0.map(Value.string)) })
        o.set("maxEntries", maxEntries.map(Value.int))
        return BuiltinMiddleware(kind: .config(.object(o)))
    }
}

extension Server {
    /// Forgets entries of the response caches configured on this server (`.responseCache` added
    /// with `use`): all of them with no argument, one method's with `method` (`"tools/list"`,
    /// `"resources/read"`, `"tools/call"`, ...), the cached reads of one resource with `uri`.
    /// The next such request runs its handler again. Throws `McpError(.invalidParams)` when this
    /// server has no response cache, or when both are given.
    public func invalidateCache(method: String? = nil, uri: String? = nil) throws {
        try bridged { try FerroMCPNative.invalidateCache(server: native, method: method, uri: uri) }
    }
}
