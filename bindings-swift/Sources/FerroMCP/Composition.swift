// Authorization per tool, resource and prompt, server composition and tool transforms: the
// engine's (core/src/server/authorization.rs, compose.rs, transform.rs, through
// embed/src/compose.rs; see docs/composition.md) from Swift, with the names of the Python
// binding's `ferromcp.composition` in Swift's conventions. Nothing is decided here: this file
// builds the engine's JSON configurations and hands a `transformOutput` closure across.

import FerroMCPNative
import Foundation

/// Which tools, resources and prompts a caller may list and use, from the scopes of its token
/// (`RequestContext.auth`: a protected HTTP server's bearer token or client certificate). An item
/// every matching rule of which the caller's scopes meet is shown; others are hidden: absent from
/// the lists (pages stay full) and refused as unknown ones (-32602 `Unknown tool: name` /
/// `Unknown prompt: name`, -32002 `Resource not found`). The engine's layer: add it with
/// `server.use(authorization)`.
///
/// ```swift
/// try server.use(Authorization([(.tool, "admin_*", ["admin"]), (.resource, "secret://*", ["secrets"])]))
/// ```
public struct Authorization: Sendable, Hashable {
    /// What a rule is about.
    public enum ItemKind: String, Sendable, Hashable {
        case tool, resource, prompt
    }

    /// Items of `kind` whose name (a resource's URI, a template's URI template) matches
    /// `pattern` (`*` stands for any run of characters) need every one of `scopes`.
    public struct Rule: Sendable, Hashable {
        public var kind: ItemKind
        public var pattern: String
        public var scopes: [String]

        public init(kind: ItemKind, pattern: String, scopes: [String]) {
            self.kind = kind
            self.pattern = pattern
            self.scopes = scopes
        }
    }

    /// The rules, in the order added.
    public private(set) var rules: [Rule]
    /// Hide the items no rule matches (default: they are shown).
    public var denyUnmatched: Bool

    /// An authorization layer with `rules` as `(kind, pattern, scopes)`.
    public init(_ rules: [(ItemKind, String, [String])] = [], denyUnmatched: Bool = false) {
        self.rules = rules.map { Rule(kind: $0.0, pattern: $0.1, scopes: $0.2) }
        self.denyUnmatched = denyUnmatched
    }

    /// This layer with one more rule: items of `kind` matching `pattern` need all of `scopes`.
    public func requiringScopes(_ kind: ItemKind, _ pattern: String, _ scopes: [String]) -> Authorization {
        var copy = self
        copy.rules.append(Rule(kind: kind, pattern: pattern, scopes: scopes))
        return copy
    }

    /// The engine's configuration of this layer (`{"name": "authorization", ...}`).
    public var config: Value {
        .object([
            "name": "authorization",
            "denyUnmatched": .bool(denyUnmatched),
            "rules": .array(rules.map {
                ["kind": .string($0.kind.rawValue), "pattern": .string($0.pattern),
                 "scopes": .array($0.scopes.map(Value.string))]
            }),
        ])
    }
}

extension BuiltinMiddleware {
    /// The engine's authorization layer (see `Authorization`).
    public static func authorization(_ authorization: Authorization) -> BuiltinMiddleware {
        BuiltinMiddleware(kind: .config(authorization.config))
    }
}

/// What `Server.transformTool` changes of one argument of the original tool.
public struct ArgTransform: Sendable, Hashable {
    /// Its name in the new tool (clients send this; the original gets its own name).
    public var name: String?
    /// Its description in the new tool.
    public var description: String?
    /// The value when left out (the argument becomes optional); with `hide`, always.
    public var `default`: Value?
    /// Gone from the new tool's schema, always `default` (which is then required).
    public var hide: Bool
    /// JSON Schema keywords merged into its schema (`["maximum": 20]`, `["enum": [...]]`),
    /// enforced before the original runs.
    public var constraints: [String: Value]?

    public init(name: String? = nil, description: String? = nil, default: Value? = nil,
                hide: Bool = false, constraints: [String: Value]? = nil) {
        self.name = name
        self.description = description
        self.default = `default`
        self.hide = hide
        self.constraints = constraints
    }

    var config: Value {
        var o: [String: Value] = [:]
        o.set("name", name.map(Value.string))
        o.set("description", description.map(Value.string))
        o.set("default", self.default)
        if hide { o["hide"] = true }
        o.set("constraints", constraints.map(Value.object))
        return .object(o)
    }
}

extension Server {
    /// Mounts `server` under `prefix`, live: its tools and prompts are served here as
    /// `prefix_name`, its resources as `scheme://prefix/path` (templates likewise), with its own
    /// handlers and middleware; tools added to it later show (clients get `list_changed`).
    /// Throws `McpError` (invalid params) for a prefix with `/ : { }` or white space, a prefix
    /// already mounted, or a cycle.
    public func mount(_ prefix: String, _ server: Server) throws {
        try bridged { try FerroMCPNative.mountServer(parent: native, prefix: prefix, child: server.native) }
    }

    /// Copies the tools, resources, templates, prompts and completions of `server` into this one
    /// once, namespaced as `mount` does (later changes to `server` do not show; its middleware
    /// does not run for the copies).
    public func importServer(_ prefix: String, _ server: Server) throws {
        try bridged { try FerroMCPNative.importServer(parent: native, prefix: prefix, child: server.native) }
    }

    /// Adds the engine's authorization layer (see `Authorization`, and `use(_:)` for the order).
    public func use(_ authorization: Authorization) throws {
        try use(.authorization(authorization))
    }

    /// Registers `name`, a tool made from this server's tool `original` (which stays; remove it
    /// to offer only the new one): another title or description, arguments renamed, described,
    /// hidden behind a value, defaulted or constrained (`arguments: ["q": ArgTransform(name:
    /// "query")]`), the structured output reshaped by `transformOutput` (it gets the original's
    /// `structuredContent`, else its first text read as JSON, else that text; called
    /// synchronously on an engine thread: keep it short; what it throws answers the call with
    /// an internal error naming the tool) and checked against `outputSchema`. Throws `McpError`
    /// (invalid params, naming the reason) for a tool this server lacks, an argument the
    /// original lacks, two arguments with one name, a bad constraint, a hidden argument without
    /// a default, or an `outputSchema` without `transformOutput`.
    public func transformTool(
        _ original: String, name: String, title: String? = nil, description: String? = nil,
        arguments: [String: ArgTransform] = [:],
        transformOutput: (@Sendable (Value) throws -> Value)? = nil, outputSchema: Value? = nil
    ) throws {
        var o: [String: Value] = ["name": .string(name)]
        o.set("title", title.map(Value.string))
        o.set("description", description.map(Value.string))
        if !arguments.isEmpty { o["arguments"] = .object(arguments.mapValues(\.config)) }
        let config = Value.object(o).jsonText
        let reshape = transformOutput.map(ReshapeBridge.init)
        try bridged {
            try FerroMCPNative.addTransformedTool(server: native, original: original, transform: config,
                                                  reshape: reshape, outputSchema: outputSchema?.jsonText)
        }
    }
}

extension Server {
    /// Registers the tool that `transform`, a transform in its JSON form (as a configuration
    /// file holds it), makes from this server's tool `original`: `["name": "find",
    /// "description": "...", "arguments": ["q": ["name": "query"], "index": ["hide": true,
    /// "default": "docs"], "limit": ["default": 5, "constraints": ["maximum": 20]]]]`, what
    /// `transformTool` takes as arguments (an output reshape is a closure, which has no JSON
    /// form: use `transformTool` for one). Throws `McpError` (invalid params, naming the reason)
    /// for a member the form does not have, a hidden argument without a default, and whatever
    /// `transformTool` refuses.
    public func addTransformedTool(_ original: String, transform: Value) throws {
        try bridged {
            try FerroMCPNative.addTransformedTool(server: native, original: original, transform: transform.jsonText,
                                                  reshape: nil, outputSchema: nil)
        }
    }
}

/// The engine's view of a `transformOutput` closure (JSON text each way).
private final class ReshapeBridge: OutputReshape {
    private let f: @Sendable (Value) throws -> Value

    init(_ f: @escaping @Sendable (Value) throws -> Value) {
        self.f = f
    }

    /// An `McpError` the closure throws keeps its code (the call fails with it as it is); any
    /// other error is an exception the engine words as -32603 naming the tool.
    func reshape(structured: String) throws -> ReshapeAnswer {
        do {
            return .value(json: try f(try Value(json: structured)).jsonText)
        } catch let error as McpError {
            throw error.native
        } catch {
            return .exception(message: "\(error)")
        }
    }
}
