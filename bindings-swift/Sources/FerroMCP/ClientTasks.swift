// The client's task calls: a tool called as a task, polled, its result awaited, cancelled. The
// same calls in both protocol eras: the engine picks 2025-11-25 tasks or the tasks extension
// `io.modelcontextprotocol/tasks` (2026-07-28) by the negotiated revision and answers in one
// shape (a task's `ttl` and `pollInterval` in milliseconds).

import FerroMCPNative

/// Where a task is in its life.
public enum McpTaskStatus: String, Sendable, Hashable {
    /// Running.
    case working
    /// Waiting for input from the client (its handlers answer it).
    case inputRequired = "input_required"
    /// Finished; its result is available.
    case completed
    /// Ended with a JSON-RPC error.
    case failed
    /// Cancelled before it finished.
    case cancelled
}

/// A task (MCP `Task`; named so beside Swift's own `Task`).
public struct McpTask: Sendable, Hashable {
    /// The task's id.
    public var taskId: String
    /// Its status.
    public var status: McpTaskStatus
    /// A human-readable word on the status.
    public var statusMessage: String?
    /// ISO 8601 times.
    public var createdAt: String
    /// ISO 8601 time of the last change.
    public var lastUpdatedAt: String
    /// Retention from creation in milliseconds; nil means unlimited.
    public var ttl: Int?
    /// Suggested polling interval in milliseconds.
    public var pollInterval: Int?
    /// The JSON it was read from (with the tasks extension, `result` / `error` once it ended).
    public var raw: Value

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let id = value.string("taskId"), let s = value.string("status"),
              let status = McpTaskStatus(rawValue: s) else {
            throw McpError(.internalError, "a task without a valid taskId and status: \(value)")
        }
        taskId = id
        self.status = status
        statusMessage = value.string("statusMessage")
        createdAt = value.string("createdAt") ?? ""
        lastUpdatedAt = value.string("lastUpdatedAt") ?? ""
        ttl = value.member("ttl")?.intValue
        pollInterval = value.member("pollInterval")?.intValue
        raw = value
    }
}

extension Client {
    /// Calls a tool as a task: returns the created task at once; poll with ``getTask(_:)``,
    /// wait with ``getTaskResult(_:timeout:)``, stop with ``cancelTask(_:)``. The same calls
    /// serve both eras, by the negotiated revision: 2025-11-25 tasks (`ttl` asks for a
    /// retention), or the tasks extension `io.modelcontextprotocol/tasks` of 2026-07-28 (the
    /// server picks the TTL; a result it answers at once comes back as a completed task the
    /// client holds, its id starting `ferromcp-local-`). In that era a plain ``callTool(_:arguments:options:)``
    /// the server makes a task of is followed to its end.
    public func callToolAsTask(_ name: String, arguments: Value = [:], ttl: Duration? = nil) async throws -> McpTask {
        let ttlMs = ttl.map { UInt64($0.wholeMilliseconds) }
        let text = try await bridged {
            try await native.callToolAsTask(name: name, arguments: arguments.jsonText, ttlMs: ttlMs)
        }
        let created = try Value(json: text)
        return try McpTask(created["task"] ?? .null)
    }

    /// The task's current state. With the tasks extension, input the task waits for is
    /// answered with this client's handlers first (as a 2025-11-25 server asks them itself).
    public func getTask(_ taskId: String) async throws -> McpTask {
        try McpTask(try Value(json: try await bridged { try await native.getTask(taskId: taskId) }))
    }

    /// Waits for the task to end and returns its result; a failed task throws its error, a
    /// cancelled one `McpError(.invalidParams)`. 2025-11-25: `tasks/result`; the tasks
    /// extension: `tasks/get` polled, input answered with this client's handlers. `timeout`
    /// and cancelling the calling Swift task stop the wait, not the task.
    public func getTaskResult(_ taskId: String, timeout: Duration? = nil) async throws -> CallToolResult {
        try Task.checkCancellation()
        let cancel = NativeCancelHandle()
        let timeoutMs = timeout.map { UInt64($0.wholeMilliseconds) }
        let text = try await bridged {
            try await withTaskCancellationHandler {
                try await native.getTaskResult(taskId: taskId, timeoutMs: timeoutMs, cancel: cancel)
            } onCancel: {
                cancel.cancel()
            }
        }
        return try CallToolResult(try Value(json: text))
    }

    /// Cancels the task; returns its state after the cancellation. 2025-11-25: a task that
    /// already ended throws `McpError(.invalidParams)`; the tasks extension acknowledges that.
    public func cancelTask(_ taskId: String) async throws -> McpTask {
        try McpTask(try Value(json: try await bridged { try await native.cancelTask(taskId: taskId) }))
    }
}
