// AllowIf: authorization by a predicate of your own, in Swift, as Rust's
// `Authorization::allow_if` and the Python and Node layers of the same name: items the predicate
// refuses are absent from tools/list, resources/list, resources/templates/list and prompts/list
// and refused exactly as unknown ones (-32602 `Unknown tool: name` / `Unknown prompt: name`,
// -32002 `Resource not found: uri`, completion of a hidden template with no values). It is a
// Swift middleware layer: it filters each page the engine answers, so a page may come back
// shorter than the page size (the engine's `Authorization` scope rules keep pages full).

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
public struct AllowIf: Middleware {
    let predicate: @Sendable (Access) -> Bool

    /// The layer; `predicate` runs once per listed item and once per call: keep it cheap.
    public init(_ predicate: @escaping @Sendable (Access) -> Bool) {
        self.predicate = predicate
    }

    private static let lists: [String: (field: String, kind: Access.Kind, key: String)] = [
        "tools/list": ("tools", .tool, "name"),
        "prompts/list": ("prompts", .prompt, "name"),
        "resources/list": ("resources", .resource, "uri"),
        "resources/templates/list": ("resourceTemplates", .resource, "uriTemplate"),
    ]

    private func allows(_ request: MiddlewareRequest, _ kind: Access.Kind, _ name: String) -> Bool {
        predicate(Access(kind: kind, name: name, request: request))
    }

    public func handle(_ request: MiddlewareRequest, next: MiddlewareNext) async throws -> Value {
        if let (field, kind, key) = Self.lists[request.method] {
            let result = try await next(request)
            guard var object = result.objectValue, let items = object[field]?.arrayValue else { return result }
            object[field] = .array(items.filter { item in
                guard let name = item[key]?.stringValue else { return true }
                return allows(request, kind, name)
            })
            return .object(object)
        }
        let name = request.params?["name"]?.stringValue
        let uri = request.params?["uri"]?.stringValue
        switch request.method {
        case "tools/call":
            if let name, !allows(request, .tool, name) {
                throw McpError(code: -32602, message: "Unknown tool: \(name)", data: ["tool": .string(name)])
            }
        case "prompts/get":
            if let name, !allows(request, .prompt, name) {
                throw McpError(code: -32602, message: "Unknown prompt: \(name)", data: ["prompt": .string(name)])
            }
        case "resources/read", "resources/subscribe":
            if let uri, !allows(request, .resource, uri) {
                throw McpError(code: -32002, message: "Resource not found: \(uri)", data: ["uri": .string(uri)])
            }
        case "completion/complete":
            let ref = request.params?["ref"]
            if ref?["type"] == "ref/prompt", let prompt = ref?["name"]?.stringValue, !allows(request, .prompt, prompt) {
                throw McpError(code: -32602, message: "Unknown prompt: \(prompt)", data: ["prompt": .string(prompt)])
            }
            if ref?["type"] == "ref/resource", let template = ref?["uri"]?.stringValue,
               !allows(request, .resource, template) {
                return ["completion": ["values": []]]
            }
        default:
            break
        }
        return try await next(request)
    }
}
