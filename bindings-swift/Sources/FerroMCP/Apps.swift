// Apps: MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) from Swift. A tool names
// an HTML user interface, a `ui://` resource of MIME type `text/html;profile=mcp-app`, that a
// host renders in a sandboxed frame. The same helpers as Rust's `ferromcp::server::apps`, built
// on `registerResource` and `registerTool` with `meta`: no engine change. Every check happens at
// registration and throws `McpError(.invalidParams)` naming the member and the rule.

import Foundation

/// MCP Apps: identifiers, checks and the client-capability test.
public enum McpApps {
    /// The extension's identifier, the key under `capabilities.extensions`.
    public static let extensionId = "io.modelcontextprotocol/ui"
    /// The MIME type of an MCP App's HTML.
    public static let mimeType = "text/html;profile=mcp-app"
    /// The deprecated flat `_meta` key older hosts read a tool's UI from.
    public static let legacyResourceUriKey = "ui/resourceUri"

    static let cspKeys = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"]

    /// Throws unless `uri` is `ui://` followed by something, without whitespace.
    public static func checkUri(_ uri: String) throws {
        guard uri.hasPrefix("ui://") else {
            throw McpError(.invalidParams, "UI resource URI \"\(uri)\" must use the ui:// scheme (MCP Apps)")
        }
        let rest = uri.dropFirst("ui://".count)
        if rest.isEmpty || rest.contains(where: \.isWhitespace) {
            throw McpError(.invalidParams, "UI resource URI \"\(uri)\" has nothing after ui:// or contains whitespace")
        }
    }

    /// Checks a resource's `_meta.ui` against the extension's `UIResourceMeta` (as Rust's
    /// `check_ui_resource_meta`).
    public static func checkResourceMeta(_ ui: Value) throws {
        func bad(_ m: String) -> McpError { McpError(.invalidParams, m) }
        guard let ui = ui.objectValue else { throw bad("_meta.ui must be an object") }
        if let csp = ui["csp"] {
            guard let csp = csp.objectValue else { throw bad("_meta.ui.csp must be an object") }
            for (key, list) in csp.sorted(by: { $0.key < $1.key }) {
                guard cspKeys.contains(key) else {
                    throw bad("_meta.ui.csp.\(key) is not a CSP member of MCP Apps (\(cspKeys.joined(separator: ", ")))")
                }
                let ok = list.arrayValue?.allSatisfy { ($0.stringValue ?? "").isEmpty == false } ?? false
                if !ok { throw bad("_meta.ui.csp.\(key) must be a list of non-empty strings") }
            }
        }
        if let perms = ui["permissions"] {
            guard let perms = perms.objectValue else { throw bad("_meta.ui.permissions must be an object") }
            let known = UiPermission.allCases.map(\.rawValue)
            for (key, v) in perms.sorted(by: { $0.key < $1.key }) {
                guard known.contains(key) else {
                    throw bad("_meta.ui.permissions.\(key) is not a permission of MCP Apps (\(known.joined(separator: ", ")))")
                }
                if v.objectValue == nil { throw bad("_meta.ui.permissions.\(key) must be an object ({})") }
            }
        }
        if let d = ui["domain"], d.stringValue == nil { throw bad("_meta.ui.domain must be a string") }
        if let b = ui["prefersBorder"], b.boolValue == nil { throw bad("_meta.ui.prefersBorder must be a boolean") }
    }

    /// Whether a client's capabilities list `text/html;profile=mcp-app` under
    /// `extensions["io.modelcontextprotocol/ui"].mimeTypes`.
    public static func supportsUI(_ capabilities: Value?) -> Bool {
        let types = capabilities?["extensions"]?[extensionId]?["mimeTypes"]?.arrayValue ?? []
        return types.contains(.string(mimeType))
    }

    /// The capabilities a client (host) declares to say it renders MCP Apps.
    public static var clientCapability: Value {
        ["extensions": .object([extensionId: ["mimeTypes": .array([.string(mimeType)])]])]
    }

    /// The UI resources registered on each server (so a tool naming another URI is refused).
    final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var byServer: [ObjectIdentifier: (server: WeakServer, uris: Set<String>)] = [:]

        func add(_ uri: String, on server: Server) {
            lock.lock()
            defer { lock.unlock() }
            let key = ObjectIdentifier(server)
            var uris: Set<String> = []
            if let entry = byServer[key], entry.server.value === server { uris = entry.uris }
            uris.insert(uri)
            byServer[key] = (server: WeakServer(server), uris: uris)
        }

        func has(_ uri: String, on server: Server) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard let entry = byServer[ObjectIdentifier(server)], entry.server.value === server else { return false }
            return entry.uris.contains(uri)
        }
    }

    final class WeakServer: @unchecked Sendable {
        weak var value: Server?
        init(_ value: Server) { self.value = value }
    }

    static let registry = Registry()
}

/// A browser permission a UI asks for (`_meta.ui.permissions`).
public enum UiPermission: String, Sendable, CaseIterable {
    case camera, microphone, geolocation, clipboardWrite
}

/// Who may call a tool with a UI (`_meta.ui.visibility`).
public enum UiVisibility: String, Sendable {
    /// The model (the agent's tool list).
    case model
    /// The tool's UI, from the same server connection.
    case app
}

/// The origins a UI may reach (`_meta.ui.csp`); empty lists are left out.
public struct UiCsp: Sendable, Hashable {
    public var connectDomains: [String]
    public var resourceDomains: [String]
    public var frameDomains: [String]
    public var baseUriDomains: [String]

    public init(connectDomains: [String] = [], resourceDomains: [String] = [],
                frameDomains: [String] = [], baseUriDomains: [String] = []) {
        self.connectDomains = connectDomains
        self.resourceDomains = resourceDomains
        self.frameDomains = frameDomains
        self.baseUriDomains = baseUriDomains
    }

    /// The `csp` object.
    public var value: Value {
        var o: [String: Value] = [:]
        for (k, list) in zip(McpApps.cspKeys, [connectDomains, resourceDomains, frameDomains, baseUriDomains])
        where !list.isEmpty {
            o[k] = .array(list.map(Value.string))
        }
        return .object(o)
    }
}

extension Server {
    /// Registers an MCP App's UI: `uri` (`ui://...`) serves `html` with the MIME type
    /// `text/html;profile=mcp-app` and `_meta.ui` (also on its `resources/list` entry).
    public func registerUIResource(
        _ uri: String, name: String, html: String, title: String? = nil, description: String? = nil,
        csp: UiCsp? = nil, permissions: Set<UiPermission> = [], domain: String? = nil,
        prefersBorder: Bool? = nil
    ) throws {
        try McpApps.checkUri(uri)
        var ui: [String: Value] = [:]
        if let csp { ui["csp"] = csp.value }
        if !permissions.isEmpty {
            ui["permissions"] = .object(Dictionary(uniqueKeysWithValues: permissions.map { ($0.rawValue, Value.object([:])) }))
        }
        if let domain { ui["domain"] = .string(domain) }
        if let prefersBorder { ui["prefersBorder"] = .bool(prefersBorder) }
        try McpApps.checkResourceMeta(.object(ui))
        let meta: Value? = ui.isEmpty ? nil : ["ui": .object(ui)]
        var contents = ResourceContents.text(html, uri: uri, mimeType: McpApps.mimeType)
        contents.meta = meta
        let answer = ResourceResult.contents([contents])
        try registerResource(uri, name: name, title: title, description: description,
                             mimeType: McpApps.mimeType, meta: meta) { _, _ in answer }
        McpApps.registry.add(uri, on: self)
    }

    /// Registers a tool rendered by the UI at `resourceUri` (registered before with
    /// `registerUIResource`): its `_meta.ui` gets `resourceUri` and `visibility`, and `_meta`
    /// the deprecated flat `ui/resourceUri`. The rest is `registerTool`'s.
    public func registerUITool(
        _ name: String, resourceUri: String, visibility: [UiVisibility]? = nil,
        title: String? = nil, description: String? = nil,
        inputSchema: Value = ["type": "object"], meta: Value? = nil,
        handler: @escaping @Sendable (Value, RequestContext) async throws -> ToolResult
    ) throws {
        do {
            try McpApps.checkUri(resourceUri)
        } catch let e as McpError {
            throw McpError(.invalidParams, "tool \"\(name)\": \(e.message)")
        }
        if let visibility, visibility.isEmpty {
            throw McpError(.invalidParams, "tool \"\(name)\": _meta.ui.visibility must be a non-empty list of \"model\" and \"app\"")
        }
        guard McpApps.registry.has(resourceUri, on: self) else {
            throw McpError(.invalidParams,
                           "tool \"\(name)\" names UI resource \"\(resourceUri)\", which is not registered on this "
                               + "server as a UI resource: register it first (registerUIResource)")
        }
        var ui: [String: Value] = ["resourceUri": .string(resourceUri)]
        if let visibility { ui["visibility"] = .array(visibility.map { .string($0.rawValue) }) }
        var m = meta?.objectValue ?? [:]
        m["ui"] = .object(ui)
        m[McpApps.legacyResourceUriKey] = .string(resourceUri)
        try registerTool(name, title: title, description: description, inputSchema: inputSchema,
                         meta: .object(m), handler: handler)
    }
}

extension RequestContext {
    /// Whether the client behind this request renders MCP Apps (it declared
    /// `text/html;profile=mcp-app` under `extensions["io.modelcontextprotocol/ui"]`; both eras).
    public var clientSupportsUI: Bool { McpApps.supportsUI(clientCapabilities) }
}
