// Client: an MCP client session (a child process over stdio, a Streamable HTTP URL, or a
// `Server` in this process) with a typed async method per MCP request. Sessions, transports,
// timeouts and cancellation run in the engine (`NativeClient`); this file turns Swift calls into
// raw JSON requests, Swift task cancellation into the engine's cancel handle, and the server's
// requests and notifications into the handlers of `ClientOptions` and `Client.notifications`.

import FerroMCPNative
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected, initialized MCP client.
///
/// ```swift
/// let client = try await Client.stdio(command: "/usr/local/bin/my-server")
/// let tools = try await client.listAllTools()
/// let result = try await client.callTool("add", arguments: ["a": 1, "b": 2])
/// print(result.text)
/// await client.close()
/// ```
///
/// Every request method throws `McpError`: the server's error answer, or a local failure
/// (`.requestTimeout`; `.connectionClosed` / `.transportError`, for which `isTransportError` is
/// true). Cancelling the calling Swift task cancels the request: the engine sends
/// `notifications/cancelled` to the server and the method throws `CancellationError`.
///
/// Call `close()` when done: it ends the session and, for `stdio`, the server's process tree.
/// A client that is released without `close()` is closed in the background.
public final class Client: Sendable {
    let native: NativeClient
    private let bridge: ClientBridge

    /// The server's `initialize` result (`serverInfo`, `capabilities`, `instructions`, ...).
    public let initializeResult: Value
    /// The negotiated protocol revision, e.g. `"2025-11-25"`.
    public let protocolVersion: String

    /// Server notifications (`notifications/message`, `.../list_changed`,
    /// `notifications/resources/updated`, ...), in the order they arrived, from the start of the
    /// session; finished by `close()` (or when the client is released). A session that ends by
    /// itself (the server exited) does not finish it: the next request throws a transport error.
    ///
    /// One stream per client: iterate it from one task. Notifications nobody has read yet are
    /// buffered as `ClientOptions.notificationBufferSize` says (by default the newest 1024).
    /// Progress notifications of this client's own requests go to their
    /// `RequestOptions.onProgress` instead.
    public let notifications: AsyncStream<ServerNotification>

    private init(native: NativeClient, bridge: ClientBridge, notifications: AsyncStream<ServerNotification>) {
        self.native = native
        self.bridge = bridge
        self.notifications = notifications
        protocolVersion = native.protocolVersion()
        initializeResult = (try? Value(json: native.initializeResult())) ?? .null
    }

    deinit {
        bridge.finish()
        let native = self.native
        Task { await native.close() }
    }

    // MARK: Connecting

    /// Starts `command` with `arguments` and connects to it over its stdin/stdout (MCP stdio).
    ///
    /// - Parameters:
    ///   - command: the program: a path, or a name looked up in `PATH`.
    ///   - environment: variables added to this process's environment for the child.
    ///   - currentDirectory: the child's working directory (default: this process's).
    /// - Throws: `McpError` with `isTransportError` when the program cannot be started or exits
    ///   before the session is initialized; the server's error if `initialize` fails.
    public static func stdio(command: String, arguments: [String] = [],
                             environment: [String: String] = [:], currentDirectory: String? = nil,
                             options: ClientOptions = .init()) async throws -> Client {
        let env = environment.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) }
        ignoreSIGPIPE
        return try await connect(options) { config, handler in
            try await NativeClient.stdio(program: command, arguments: arguments, env: env,
                                         cwd: currentDirectory, config: config, handler: handler)
        }
    }

    /// Connects to a Streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`.
    ///
    /// - Parameters:
    ///   - headers: header fields sent with every request (e.g. `Authorization`).
    ///   - legacyFallback: when the server refuses Streamable HTTP at `initialize` (a 4xx),
    ///     retry with the 2024-11-05 HTTP+SSE transport.
    /// - Throws: `McpError` with `isTransportError` when the server cannot be reached.
    public static func http(url: String, headers: [String: String] = [:], legacyFallback: Bool = true,
                            options: ClientOptions = .init()) async throws -> Client {
        let fields = headers.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) }
        return try await connect(options) { config, handler in
            try await NativeClient.http(url: url, headers: fields, legacyFallback: legacyFallback,
                                        config: config, handler: handler)
        }
    }

    /// Connects to a `Server` in this process over an in-memory transport (no I/O: for tests,
    /// and for embedding a server in an app).
    public static func connect(to server: Server, options: ClientOptions = .init()) async throws -> Client {
        try await connect(to: server.native, options: options)
    }

    /// Connects to the engine's server in this process over an in-memory transport.
    static func connect(to server: NativeServer, options: ClientOptions = .init()) async throws -> Client {
        try await connect(options) { config, handler in
            try await NativeClient.memory(server: server, config: config, handler: handler)
        }
    }

    /// Makes the notification stream and the handler, then connects with `open`.
    static func connect(
        _ options: ClientOptions,
        _ open: (String, ClientHandler) async throws -> NativeClient
    ) async throws -> Client {
        let (stream, continuation) = AsyncStream<ServerNotification>.makeStream(
            bufferingPolicy: options.notificationBufferSize.map { .bufferingNewest(max($0, 1)) } ?? .unbounded)
        let bridge = ClientBridge(options: options, notifications: continuation)
        do {
            let native = try await bridged { try await open(options.configJSON, bridge) }
            return Client(native: native, bridge: bridge, notifications: stream)
        } catch {
            continuation.finish()
            throw error
        }
    }

    // MARK: The server

    /// The server's `serverInfo` (`name`, `version`, `title`, ...).
    public var serverInfo: Value? { initializeResult.member("serverInfo") }
    /// The server's capabilities (`tools`, `resources`, `prompts`, `logging`, `completions`, ...).
    public var serverCapabilities: Value? { initializeResult.member("capabilities") }
    /// The server's `instructions`, if it gave any.
    public var instructions: String? { initializeResult.string("instructions") }

    // MARK: Raw requests

    /// Sends any request and returns its result.
    ///
    /// Cancelling the calling task cancels the request: the engine sends
    /// `notifications/cancelled` and this throws `CancellationError` (at once, sending nothing,
    /// when the task is already cancelled).
    ///
    /// - Throws: `McpError` (the server's error answer; `.requestTimeout`; a transport error),
    ///   or `CancellationError`.
    public func sendRequest(method: String, params: Value? = nil,
                            options: RequestOptions = .init()) async throws -> Value {
        try Task.checkCancellation()
        let cancel = NativeCancelHandle()
        let progress = options.onProgress.map(ProgressRelay.init)
        let timeoutMs = options.timeout.map { UInt64($0.wholeMilliseconds) }
        let text: String
        do {
            text = try await withTaskCancellationHandler {
                try await native.request(method: method, params: params?.jsonText, timeoutMs: timeoutMs,
                                         resetTimeoutOnProgress: options.resetTimeoutOnProgress,
                                         progress: progress, cancel: cancel)
            } onCancel: {
                cancel.cancel()
            }
        } catch let e as FfiError {
            let error = McpError(e)
            if error.code == McpError.Code.requestCancelled.rawValue && Task.isCancelled {
                throw CancellationError()
            }
            throw error
        }
        do {
            return try Value(json: text)
        } catch {
            throw McpError(.internalError, "the engine answered invalid JSON: \(error)")
        }
    }

    /// Sends any notification.
    public func sendNotification(method: String, params: Value? = nil) async throws {
        try await bridged { try await native.notify(method: method, params: params?.jsonText) }
    }

    // MARK: Requests

    /// `ping`: checks that the server answers.
    public func ping(options: RequestOptions = .init()) async throws {
        _ = try await sendRequest(method: "ping", options: options)
    }

    /// `tools/list`: one page of the server's tools.
    public func listTools(cursor: String? = nil, options: RequestOptions = .init()) async throws -> ListToolsResult {
        try ListToolsResult(try await sendRequest(method: "tools/list", params: Self.page(cursor), options: options))
    }

    /// Every tool, following `nextCursor` through all pages.
    public func listAllTools(options: RequestOptions = .init()) async throws -> [Tool] {
        try await Self.all { try await self.listTools(cursor: $0, options: options) } page: { ($0.tools, $0.nextCursor) }
    }

    /// `tools/call`: calls a tool. A tool's own failure is a result with `isError == true`;
    /// arguments that do not match the tool's schema, or an unknown tool, throw
    /// `McpError(.invalidParams)`.
    public func callTool(_ name: String, arguments: Value = [:],
                         options: RequestOptions = .init()) async throws -> CallToolResult {
        let params: Value = ["name": .string(name), "arguments": arguments]
        return try CallToolResult(try await sendRequest(method: "tools/call", params: params, options: options))
    }

    /// `tools/call` with arguments encoded from an `Encodable` value (e.g. a `Codable` struct).
    public func callTool<Arguments: Encodable>(_ name: String, arguments: Arguments,
                                               options: RequestOptions = .init()) async throws -> CallToolResult {
        try await callTool(name, arguments: try Value(encoding: arguments), options: options)
    }

    /// `resources/list`: one page of the server's resources.
    public func listResources(cursor: String? = nil, options: RequestOptions = .init()) async throws -> ListResourcesResult {
        try ListResourcesResult(try await sendRequest(method: "resources/list", params: Self.page(cursor), options: options))
    }

    /// Every resource, following `nextCursor` through all pages.
    public func listAllResources(options: RequestOptions = .init()) async throws -> [Resource] {
        try await Self.all { try await self.listResources(cursor: $0, options: options) } page: { ($0.resources, $0.nextCursor) }
    }

    /// `resources/templates/list`: one page of the server's resource templates.
    public func listResourceTemplates(cursor: String? = nil,
                                      options: RequestOptions = .init()) async throws -> ListResourceTemplatesResult {
        try ListResourceTemplatesResult(
            try await sendRequest(method: "resources/templates/list", params: Self.page(cursor), options: options))
    }

    /// Every resource template, following `nextCursor` through all pages.
    public func listAllResourceTemplates(options: RequestOptions = .init()) async throws -> [ResourceTemplate] {
        try await Self.all { try await self.listResourceTemplates(cursor: $0, options: options) } page: {
            ($0.resourceTemplates, $0.nextCursor)
        }
    }

    /// `resources/read`: the contents of a resource. An unknown URI throws
    /// `McpError(.resourceNotFound)`.
    public func readResource(_ uri: String, options: RequestOptions = .init()) async throws -> [ResourceContents] {
        let result = try await sendRequest(method: "resources/read", params: ["uri": .string(uri)], options: options)
        return try items(result, "contents", "resources/read result", ResourceContents.init)
    }

    /// `resources/subscribe`: the server then sends `notifications/resources/updated` (see
    /// `notifications`) when the resource changes.
    public func subscribe(_ uri: String, options: RequestOptions = .init()) async throws {
        _ = try await sendRequest(method: "resources/subscribe", params: ["uri": .string(uri)], options: options)
    }

    /// `resources/unsubscribe`.
    public func unsubscribe(_ uri: String, options: RequestOptions = .init()) async throws {
        _ = try await sendRequest(method: "resources/unsubscribe", params: ["uri": .string(uri)], options: options)
    }

    /// `prompts/list`: one page of the server's prompts.
    public func listPrompts(cursor: String? = nil, options: RequestOptions = .init()) async throws -> ListPromptsResult {
        try ListPromptsResult(try await sendRequest(method: "prompts/list", params: Self.page(cursor), options: options))
    }

    /// Every prompt, following `nextCursor` through all pages.
    public func listAllPrompts(options: RequestOptions = .init()) async throws -> [Prompt] {
        try await Self.all { try await self.listPrompts(cursor: $0, options: options) } page: { ($0.prompts, $0.nextCursor) }
    }

    /// `prompts/get`: renders a prompt with its arguments.
    public func getPrompt(_ name: String, arguments: [String: String] = [:],
                          options: RequestOptions = .init()) async throws -> GetPromptResult {
        let params: Value = ["name": .string(name), "arguments": .object(arguments.mapValues(Value.string))]
        return try GetPromptResult(try await sendRequest(method: "prompts/get", params: params, options: options))
    }

    /// `completion/complete` for an argument of a prompt.
    ///
    /// - Parameters:
    ///   - value: what the user typed so far.
    ///   - context: arguments already resolved (`context.arguments`).
    public func complete(prompt: String, argument: String, value: String, context: [String: String] = [:],
                         options: RequestOptions = .init()) async throws -> Completion {
        try await complete(["type": "ref/prompt", "name": .string(prompt)], argument, value, context, options)
    }

    /// `completion/complete` for a variable of a resource template (`resourceTemplate` is its
    /// URI template).
    public func complete(resourceTemplate: String, argument: String, value: String,
                         context: [String: String] = [:], options: RequestOptions = .init()) async throws -> Completion {
        try await complete(["type": "ref/resource", "uri": .string(resourceTemplate)], argument, value, context, options)
    }

    private func complete(_ ref: Value, _ argument: String, _ value: String, _ context: [String: String],
                          _ options: RequestOptions) async throws -> Completion {
        var params: Value = ["ref": ref, "argument": ["name": .string(argument), "value": .string(value)]]
        if !context.isEmpty { params["context"] = ["arguments": .object(context.mapValues(Value.string))] }
        return try Completion(try await sendRequest(method: "completion/complete", params: params, options: options))
    }

    /// `logging/setLevel`: the least severe level of the log messages the server should send.
    public func setLoggingLevel(_ level: LogLevel, options: RequestOptions = .init()) async throws {
        _ = try await sendRequest(method: "logging/setLevel", params: ["level": .string(level.rawValue)], options: options)
    }

    /// Tells the server the roots changed (`notifications/roots/list_changed`); it then asks
    /// `ClientOptions.roots` again.
    public func notifyRootsListChanged() async throws {
        try await sendNotification(method: "notifications/roots/list_changed")
    }

    // MARK: Closing

    /// Ends the session: pending requests fail with a transport error, `notifications`
    /// finishes, and a server started by `stdio` is shut down with its process tree (stdin
    /// closed, then SIGTERM, then SIGKILL). Idempotent.
    public func close() async {
        await native.close()
        bridge.finish()
    }

    // MARK: Helpers

    private static func page(_ cursor: String?) -> Value? {
        cursor.map { ["cursor": .string($0)] }
    }

    /// Collects the items of every page, starting with no cursor.
    private static func all<Page, Item>(
        _ fetch: (String?) async throws -> Page,
        page: (Page) -> ([Item], String?)
    ) async throws -> [Item] {
        var out: [Item] = []
        var cursor: String?
        var seen = Set<String>()
        repeat {
            let (items, next) = page(try await fetch(cursor))
            out += items
            cursor = next
            if let next, !seen.insert(next).inserted {
                throw McpError(.internalError, "the server repeated the page cursor \(next)")
            }
        } while cursor != nil
        return out
    }
}

/// Writing to the stdin of a server that has exited raises SIGPIPE, whose default action ends
/// the whole app (Rust programs, Node and Python ignore it at start-up; a Swift program does
/// not). So the first `Client.stdio` ignores SIGPIPE (the write then fails with EPIPE and the
/// call with a transport error), unless the app installed a handler of its own, which is put
/// back. Spawned servers start with the default disposition again (the engine resets it).
private let ignoreSIGPIPE: Void = {
    let previous = signal(SIGPIPE, SIG_IGN)
    let address = { (h: (@convention(c) (Int32) -> Void)?) in unsafeBitCast(h, to: Int.self) }
    if previous != nil && address(previous) != address(SIG_IGN) && address(previous) != address(SIG_ERR) {
        _ = signal(SIGPIPE, previous)
    }
}()

/// Answers the server's requests with the handlers of `ClientOptions` and passes its
/// notifications to `Client.notifications`.
private final class ClientBridge: ClientHandler {
    private let sampling: SamplingHandler?
    private let elicitation: ElicitationHandler?
    private let roots: RootsHandler?
    private let continuation: AsyncStream<ServerNotification>.Continuation

    init(options: ClientOptions, notifications: AsyncStream<ServerNotification>.Continuation) {
        sampling = options.sampling
        elicitation = options.elicitation
        roots = options.roots
        continuation = notifications
    }

    func finish() {
        continuation.finish()
    }

    func request(method: String, params: String, context: NativeContext) async throws -> String {
        do {
            let params = (try? Value(json: params)) ?? .null
            let ctx = RequestContext(context)
            switch method {
            case "sampling/createMessage":
                if let sampling { return try await sampling(params, ctx).jsonText }
            case "elicitation/create":
                if let elicitation { return try await elicitation(params, ctx).value.jsonText }
            case "roots/list":
                if let roots { return Value.object(["roots": .array(try await roots().map(\.value))]).jsonText }
            default:
                break
            }
            throw McpError(.methodNotFound, "Method not found: \(method)")
        } catch let error as McpError {
            throw error.native
        } catch {
            throw McpError(.internalError, String(describing: error)).native
        }
    }

    func notification(method: String, params: String) {
        let value = try? Value(json: params)
        continuation.yield(ServerNotification(method: method, params: value?.isNull == false ? value : nil))
    }
}

/// Hands a request's progress notifications to `RequestOptions.onProgress`.
private final class ProgressRelay: ProgressListener {
    private let onProgress: @Sendable (ProgressUpdate) -> Void

    init(_ onProgress: @escaping @Sendable (ProgressUpdate) -> Void) {
        self.onProgress = onProgress
    }

    func progress(params: String) {
        guard let value = try? Value(json: params) else { return }
        onProgress(ProgressUpdate(value))
    }
}
