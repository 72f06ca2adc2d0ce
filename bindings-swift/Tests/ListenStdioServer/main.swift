// ListenStdioServer: the stdio server ListenTests spawns to see a Swift server stop serving
// stdio gracefully while a client listens. A `stop` tool stops serving while it answers: with
// `--stop-tool` by calling `Server.stop()`, with `--cancel-tool` by cancelling the task that
// runs `serveStdio()`; with `--error-tool` it stops as `--stop-tool`, and a middleware answers
// the open listen with the server's own -32000 instead of its completion result. Built by
// `swift test` with the tests (an executable target of the package, not a product).

import FerroMCP
import Foundation

/// The serving task, for the `--cancel-tool` stop tool.
final class ServingTask: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Error>?

    func set(_ task: Task<Void, Error>) {
        lock.lock()
        self.task = task
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        let task = task
        lock.unlock()
        task?.cancel()
    }
}

let server = try Server(name: "listen-stdio", version: "1.0")
let serving = ServingTask()
switch CommandLine.arguments.dropFirst().first {
case "--stop-tool":
    try server.registerTool("stop") { _, _ in
        server.stop()
        return "stopping"
    }
case "--error-tool":
    // Stopping ends the open listen with its completion result, which this layer replaces
    // with the server's own JSON-RPC error -32000 (ListenErrorKindTests).
    try server.use { request, next in
        let result = try await next(request)
        if request.method == "subscriptions/listen" {
            throw McpError(code: -32000, message: "the server ends this subscription itself",
                           data: ["why": "maintenance"])
        }
        return result
    }
    try server.registerTool("stop") { _, _ in
        server.stop()
        return "stopping"
    }
case "--cancel-tool":
    try server.registerTool("stop") { _, _ in
        serving.cancel()
        return "stopping"
    }
default:
    FileHandle.standardError.write(Data("usage: ListenStdioServer --stop-tool|--cancel-tool|--error-tool\n".utf8))
    exit(2)
}
let task = Task { try await server.serveStdio() }
serving.set(task)
try await task.value
