// Apps: MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) from Swift. A tool names
// an HTML user interface, a `ui://` resource of MIME type `text/html;profile=mcp-app`, that a
// host renders in a sandboxed frame. The helpers of Rust's `ferromcp::server::apps`; every check
// is the engine's (through `ferromcp-embed`'s `apps` seam, as in Python and Node), made at
// registration: a refusal throws `McpError(.invalidParams)` with the engine's message naming the
// member and the rule.

import Foundation
import FerroMCPNative

/// MCP Apps: identifiers, checks and the client-capability test.
public enum McpApps {
    static let names: Value = (try? Value(json: FerroMCPNative.uiConstants())) ?? .null
    /// The extension's identifier, the key under `capabilities.extensions`.
    public static let extensionId: String = names["extension"]?.stringValue ?? ""
    /// The MIME type of an MCP App's HTML.
    public static let mimeType: String = names["mimeType"]?.stringValue ?? ""
    /// The deprecated flat `_meta` key older hosts read a tool's UI from.
    public static let legacyResourceUriKey: String = names["legacyResourceUriKey"]?.stringValue ?? ""

    /// Throws unless `uri` is `ui://` followed by something, without whitespace.
    public static func checkUri(_ uri: String) throws {
        try bridged { try FerroMCPNative.uiCheckUri(uri: uri) }
    }

    /// Checks a resource's `_meta.ui` against the extension's `UIResourceMeta` (Rust's
    /// `check_ui_resource_meta`).
    public static func checkResourceMeta(_ ui: Value) throws {
        try bridged { try FerroMCPNative.uiCheckResourceMeta(ui: ui.jsonText) }
    }

    /// Whether a client's capabilities list `text/html;profile=mcp-app` under
    /// `extensions["io.modelcontextprotocol/ui"].mimeTypes`.
    public static func supportsUI(_ capabilities: Value?) -> Bool {
        FerroMCPNative.uiCapabilitiesSupport(capabilities: capabilities?.jsonText)
    }

    /// The capabilities a client (host) declares to say it renders MCP Apps.
    public static var clientCapability: Value {
        (try? Value(json: FerroMCPNative.uiClientCapability())) ?? .null
    }
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
        let lists = [("connectDomains", connectDomains), ("resourceDomains", resourceDomains),
                     ("frameDomains", frameDomains), ("baseUriDomains", baseUriDomains)]
        for (k, list) in lists where !list.isEmpty {
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
        var ui: [String: Value] = [:]
        if let csp { ui["csp"] = csp.value }
        if !permissions.isEmpty {
            ui["permissions"] = .object(Dictionary(uniqueKeysWithValues: permissions.map { ($0.rawValue, Value.object([:])) }))
        }
        if let domain { ui["domain"] = .string(domain) }
        if let prefersBorder { ui["prefersBorder"] = .bool(prefersBorder) }
        var d: [String: Value] = ["uri": .string(uri), "name": .string(name), "html": .string(html)]
        d.set("title", title.map(Value.string))
        d.set("description", description.map(Value.string))
        if !ui.isEmpty { d["_meta"] = ["ui": .object(ui)] }
        let definition = Value.object(d).jsonText
        try bridged { try FerroMCPNative.uiAddResource(server: native, definition: definition) }
    }

    /// Registers a tool rendered by the UI at `resourceUri` (registered before on this server as
    /// a UI resource, e.g. with `registerUIResource`): its `_meta.ui` gets `resourceUri` and
    /// `visibility`, and `_meta` the deprecated flat `ui/resourceUri`. The rest is
    /// `registerTool`'s.
    public func registerUITool(
        _ name: String, resourceUri: String, visibility: [UiVisibility]? = nil,
        title: String? = nil, description: String? = nil,
        inputSchema: Value = ["type": "object"], meta: Value? = nil,
        handler: @escaping @Sendable (Value, RequestContext) async throws -> ToolResult
    ) throws {
        var ui: [String: Value] = ["resourceUri": .string(resourceUri)]
        if let visibility { ui["visibility"] = .array(visibility.map { .string($0.rawValue) }) }
        var m = meta?.objectValue ?? [:]
        m["ui"] = .object(ui)
        let wanted = Value.object(m).jsonText
        let checked = try bridged { try FerroMCPNative.uiToolMeta(server: native, toolName: name, meta: wanted) }
        try registerTool(name, title: title, description: description, inputSchema: inputSchema,
                         meta: try Value(json: checked), handler: handler)
    }
}

extension RequestContext {
    /// Whether the client behind this request renders MCP Apps (it declared
    /// `text/html;profile=mcp-app` under `extensions["io.modelcontextprotocol/ui"]`; both eras).
    public var clientSupportsUI: Bool { McpApps.supportsUI(clientCapabilities) }
}
