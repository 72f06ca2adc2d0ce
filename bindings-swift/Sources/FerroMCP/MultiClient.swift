// MultiClient: one client object over every server of an `mcpServers` configuration (the JSON
// Claude Desktop, Cursor and VS Code read), their tools, resources and prompts namespaced by
// server name as `ferromcp proxy` does (docs/gateway.md), with the same shape as Python's
// `MultiClient.from_config` and Node's `MultiClient.fromConfig`. The configuration is read by
// the engine (`ferromcp::client::mcp_servers`, through `resolveMcpServers`): entries, errors and
// name prefixes come from there; this file connects each entry with a `Client` and routes calls.

import FerroMCPNative
import Foundation

/// A wrong `mcpServers` configuration: `path` names the key at fault (`mcpServers.a.args[1]`;
/// empty for the document as a whole), `message` what is wrong with it.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the document.
    public let path: String
    /// What is wrong.
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// One server of a configuration, as the engine read it: started (`command`) or reached (`url`).
public struct ServerEntry: Sendable, Hashable {
    /// How a server is reached.
    public enum Transport: String, Sendable, Hashable {
        /// A child process over stdin/stdout.
        case stdio
        /// Streamable HTTP (falling back to legacy HTTP+SSE when the server refuses it).
        case http
        /// The legacy HTTP+SSE transport (2024-11-05).
        case sse
    }

    /// The server's name (its key in `mcpServers`).
    public var name: String
    /// How it is reached.
    public var transport: Transport
    /// The program (stdio).
    public var command: String?
    /// Its arguments (stdio).
    public var arguments: [String]
    /// Variables added to this process's environment for the child (stdio).
    public var environment: [String: String]
    /// The child's working directory (stdio; nil: this process's).
    public var currentDirectory: String?
    /// The endpoint (http, sse).
    public var url: String?
    /// Header fields sent with every request (http, sse).
    public var headers: [String: String]
    /// In front of the server's tool and prompt names (`"files_"`; empty with one server).
    public var namePrefix: String
    /// In front of the server's resource URIs (`"files+"`; empty with one server).
    public var uriPrefix: String

    init(_ v: Value) throws {
        guard let name = v.string("name"), let t = v.string("transport"), let transport = Transport(rawValue: t),
              let namePrefix = v.string("namePrefix"), let uriPrefix = v.string("uriPrefix") else {
            throw McpError(.internalError, "the engine's mcpServers entry is incomplete: \(v)")
        }
        self.name = name
        self.transport = transport
        self.namePrefix = namePrefix
        self.uriPrefix = uriPrefix
        command = v.string("command")
        arguments = v["args"]?.arrayValue?.compactMap(\.stringValue) ?? []
        environment = (v["env"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        currentDirectory = v.string("cwd")
        url = v.string("url")
        headers = (v["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// Connects a `Client` to this server.
    public func connect(options: ClientOptions = .init()) async throws -> Client {
        if transport == .stdio, let command {
            return try await Client.stdio(command: command, arguments: arguments, environment: environment,
                                          currentDirectory: currentDirectory, options: options)
        }
        // A legacy HTTP+SSE server refuses the Streamable HTTP attempt; the client falls back.
        return try await Client.http(url: url ?? "", headers: headers, legacyFallback: true, options: options)
    }
}

/// Clients of several MCP servers as one: `listTools`, `callTool`, `listResources`,
/// `readResource`, `listPrompts` and `getPrompt` over all of them, names namespaced by server
/// (with several servers, tool or prompt `read_file` of server `files` is `files_read_file` and
/// resource `file:///a.txt` is `files+file:///a.txt`; with one, nothing is renamed).
///
/// ```swift
/// let multi = try await MultiClient.fromConfig(path: "mcp.json")
/// let tools = try await multi.listTools()
/// let result = try await multi.callTool("files_read_file", arguments: ["path": "/tmp/a"])
/// await multi.close()
/// ```
public final class MultiClient: Sendable {
    /// The servers, sorted by name.
    public let entries: [ServerEntry]
    private let clients: [String: Client]
    /// Longest name first: a prefix match finds the most specific server.
    private let byLength: [ServerEntry]

    private init(entries: [ServerEntry], clients: [String: Client]) {
        self.entries = entries
        self.clients = clients
        byLength = entries.sorted { $0.name.count > $1.name.count }
    }

    // MARK: Reading a configuration

    /// The enabled servers of an `mcpServers` (or VS Code `servers`) document given as its JSON
    /// text, or as the path of a file holding it, sorted by name. Throws `ConfigError`.
    public static func parseConfig(_ source: String) throws -> [ServerEntry] {
        let answer = try Value(json: resolveMcpServers(source: source))
        if let error = answer["error"] {
            throw ConfigError(path: error.string("path") ?? "", message: error.string("message") ?? "\(error)")
        }
        return try (answer["servers"]?.arrayValue ?? []).map(ServerEntry.init)
    }

    /// The enabled servers of an `mcpServers` document given as a `Value`.
    public static func parseConfig(_ config: Value) throws -> [ServerEntry] {
        guard config.objectValue != nil else {
            throw ConfigError(path: "", message: "the configuration must be a JSON object with an \"mcpServers\" object")
        }
        return try parseConfig(config.jsonText)
    }

    // MARK: Connecting

    /// Connects to every server of `config` (an `mcpServers` document) at once; `options` go
    /// to each server's `Client`. A wrong entry throws `ConfigError` before anything starts; if
    /// a server cannot be connected, the others are closed and the error (an `McpError` with
    /// the original code) names it.
    public static func fromConfig(_ config: Value, options: ClientOptions = .init()) async throws -> MultiClient {
        try await connect(try parseConfig(config), options: options)
    }

    /// `fromConfig` with the document as JSON text.
    public static func fromConfig(json text: String, options: ClientOptions = .init()) async throws -> MultiClient {
        guard text.drop(while: \.isWhitespace).first == "{" else {
            throw ConfigError(path: "", message: "the configuration must be a JSON object with an \"mcpServers\" object")
        }
        return try await connect(try parseConfig(text), options: options)
    }

    /// `fromConfig` with the path of a file holding the document.
    public static func fromConfig(path: String, options: ClientOptions = .init()) async throws -> MultiClient {
        // The engine reads the file; a path that looks like JSON text is made explicit.
        let source = path.drop(while: \.isWhitespace).first.map { "{[".contains($0) } == true ? "./" + path : path
        return try await connect(try parseConfig(source), options: options)
    }

    private static func connect(_ entries: [ServerEntry], options: ClientOptions) async throws -> MultiClient {
        let results = await withTaskGroup(of: (String, Result<Client, Error>).self) { group in
            for entry in entries {
                group.addTask {
                    do { return (entry.name, .success(try await entry.connect(options: options))) } catch {
                        return (entry.name, .failure(error))
                    }
                }
            }
            var out: [String: Result<Client, Error>] = [:]
            for await (name, result) in group { out[name] = result }
            return out
        }
        var clients: [String: Client] = [:]
        for (name, result) in results { if case .success(let c) = result { clients[name] = c } }
        // The first failure in name order, so the error does not depend on timing.
        if let name = entries.map(\.name).first(where: { clients[$0] == nil }),
           case .failure(let error) = results[name] {
            for c in clients.values { await c.close() }
            guard let mcp = error as? McpError else { throw error }
            throw McpError(code: mcp.code, message: "server \"\(name)\" could not be connected: \(mcp.message)", data: mcp.data,
                           kind: mcp.kind)
        }
        return MultiClient(entries: entries, clients: clients)
    }

    // MARK: The servers

    /// The servers' names, sorted.
    public var names: [String] { entries.map(\.name) }

    /// The client of server `name`; throws `McpError(.invalidParams)` naming the servers.
    public func client(_ name: String) throws -> Client {
        guard let c = clients[name] else {
            throw McpError(.invalidParams, "no server \"\(name)\"; servers: \(names.joined(separator: ", "))")
        }
        return c
    }

    /// The server a namespaced name or URI belongs to, and the server's own name for it.
    private func split(_ value: String, uri: Bool) throws -> (Client, String, String) {
        for e in byLength {
            let prefix = uri ? e.uriPrefix : e.namePrefix
            if value.hasPrefix(prefix) && (prefix.isEmpty || value.count > prefix.count) {
                return (try client(e.name), String(value.dropFirst(prefix.count)), prefix)
            }
        }
        let (what, sep) = uri ? ("URIs", "+") : ("names", "_")
        throw McpError(.invalidParams, """
            "\(value)" names no server: namespaced \(what) start with one of \
            \(names.joined(separator: ", ")) and '\(sep)'
            """)
    }

    /// `fetch` on every server at once, the results in server order.
    private func each<T: Sendable>(_ fetch: @escaping @Sendable (ServerEntry, Client) async throws -> [T]) async throws -> [T] {
        let parts = try await withThrowingTaskGroup(of: (Int, [T]).self) { group in
            for (i, e) in entries.enumerated() {
                let c = try client(e.name)
                group.addTask { (i, try await fetch(e, c)) }
            }
            var out: [Int: [T]] = [:]
            for try await (i, items) in group { out[i] = items }
            return out
        }
        return parts.keys.sorted().flatMap { parts[$0] ?? [] }
    }

    // MARK: Calls

    /// Every tool of every server, namespaced.
    public func listTools(options: RequestOptions = .init()) async throws -> [Tool] {
        try await each { e, c in
            try await c.listAllTools(options: options).map { t in
                var t = t
                t.name = e.namePrefix + t.name
                t.raw["name"] = .string(t.name)
                return t
            }
        }
    }

    /// Calls the namespaced tool `name` on its server.
    public func callTool(_ name: String, arguments: Value = [:],
                         options: RequestOptions = .init()) async throws -> CallToolResult {
        let (c, tool, _) = try split(name, uri: false)
        return try await c.callTool(tool, arguments: arguments, options: options)
    }

    /// Every listed resource of every server, URIs namespaced.
    public func listResources(options: RequestOptions = .init()) async throws -> [Resource] {
        try await each { e, c in
            try await c.listAllResources(options: options).map { r in
                var r = r
                r.uri = e.uriPrefix + r.uri
                r.raw["uri"] = .string(r.uri)
                return r
            }
        }
    }

    /// Reads the namespaced resource `uri` from its server; the contents' URIs are namespaced.
    public func readResource(_ uri: String, options: RequestOptions = .init()) async throws -> [ResourceContents] {
        let (c, original, prefix) = try split(uri, uri: true)
        return try await c.readResource(original, options: options).map { contents in
            var contents = contents
            contents.uri = prefix + contents.uri
            return contents
        }
    }

    /// Every prompt of every server, namespaced.
    public func listPrompts(options: RequestOptions = .init()) async throws -> [Prompt] {
        try await each { e, c in
            try await c.listAllPrompts(options: options).map { p in
                var p = p
                p.name = e.namePrefix + p.name
                p.raw["name"] = .string(p.name)
                return p
            }
        }
    }

    /// Gets the namespaced prompt `name` from its server.
    public func getPrompt(_ name: String, arguments: [String: String] = [:],
                          options: RequestOptions = .init()) async throws -> GetPromptResult {
        let (c, prompt, _) = try split(name, uri: false)
        return try await c.getPrompt(prompt, arguments: arguments, options: options)
    }

    /// Closes every connection.
    public func close() async {
        for c in clients.values { await c.close() }
    }
}
