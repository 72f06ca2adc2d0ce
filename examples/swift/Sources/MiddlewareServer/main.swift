// A stdio MCP server with middleware: the engine's built-in layers (error masking, timing lines
// on stderr, a rate limit of 3 tools/call per 10 s and session) and a Swift layer of its own that
// refuses `admin_*` tools to clients not named `admin` and stamps every tool result. The same
// scenario as examples/rust/src/middleware_server.rs, examples/python/middleware_server.py and
// bindings-node/examples/middleware_server.mts; tests/examples/check.mjs runs all four with the
// official TypeScript SDK client and checks each answer (tests/run-examples.sh).
//
//   MiddlewareServer [--transport stdio|http] [--port N]

import ExampleSupport
import FerroMCP
import Foundation

let command = ServerCommand.parse("MiddlewareServer")

/// A failure whose details a client must not see (`.maskErrors` answers "Internal error").
struct DatabaseDown: Error, CustomStringConvertible {
    var description: String { "db at 10.0.0.7 refused user admin" }
}

do {
    let server = try Server(name: "middleware-server", version: "1.0.0")
    // Outermost first: masking sees what every later layer and handler answers, timing the time
    // of all inner layers.
    try server.use(.maskErrors)
    try server.use(.timing { e in
        let (seconds, attoseconds) = e.duration.components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        logLine("\(e.method) \(e.tool ?? "-") \(e.outcome.rawValue) \(String(format: "%.2f", ms)) ms")
    })
    try server.use(.rateLimit(limit: 3, window: .seconds(10), methods: ["tools/call"]))
    // admin_ tools only for a client that calls itself `admin`; every tool result says who
    // served it.
    try server.use { request, next in
        if let tool = request.tool, tool.hasPrefix("admin_"),
           request.context.clientInfo?["name"]?.stringValue != "admin" {
            throw McpError(code: -32003, message: "Permission denied", data: ["tool": .string(tool)])
        }
        var result = try await next(request)
        if request.method == "tools/call", case .object(var fields) = result {
            var meta = fields["_meta"]?.objectValue ?? [:]
            meta["example.com/served-by"] = "middleware-server"
            fields["_meta"] = .object(meta)
            result = .object(fields)
        }
        return result
    }

    try server.registerTool("echo", description: "Returns the text unchanged.", inputSchema: [
        "type": "object", "properties": ["text": ["type": "string"]], "required": ["text"],
    ]) { args, _ in .text(args["text"]?.stringValue ?? "") }
    try server.registerTool("admin_reset", description: "Resets everything (admins only).") { _, _ in
        .text("reset done")
    }
    try server.registerResource("mem://secrets", name: "secrets") { _, _ in throw DatabaseDown() }
    try await command.serve(server, label: "middleware-server (swift)")
} catch {
    logLine("MiddlewareServer: \(message(of: error))")
    exit(1)
}
