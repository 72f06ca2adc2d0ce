// Echo server on ferromcp's Swift binding (a Swift handler), with the interface of the other
// bench servers (bench/servers, bindings-node/bench/echo_server.mjs,
// bindings-python/bench/echo_server.py):
//
//   EchoServer stdio | http PORT [stateful|stateless|json]
//
// The tool is registered as the facade's documentation teaches: a JSON Schema and a Decodable
// arguments type (FERROMCP_BENCH_SWIFT_VALUE=1: the arguments as a Value instead, to profile the
// Decodable path's share). HTTP runs until the process is killed (the driver sends SIGTERM); like the Rust
// handler's echo server it sets the session cap (20,000) and idle timeout (30 min) explicitly,
// because the driver holds 10,000 idle sessions while it reads RSS.
// FERROMCP_BENCH_MIDDLEWARE=swift adds one Swift middleware layer that hands every request on,
// =rust one built-in layer (`.requestLog`, its events unread), for the middleware rows (issue
// 37), as bindings-python/bench/echo_server.py does. FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1
// makes the facade run calls inline through the opt-in private runtime hooks instead of its
// default task executor, FERROMCP_SWIFT_INLINE=0 runs none inline (bindings-swift/README.md).
// FERROMCP_BENCH_HANDLER=official serves the tool as the official swift-sdk's README writes it
// instead (OfficialForm.swift): FerroMCPCompat's `Server` with `withMethodHandler(ListTools.self)`
// and `withMethodHandler(CallTool.self) { params in ... .init(content: [.text(...)], isError:
// false) }`, for the row "ferromcp (Swift handler, official-example form)" (issue 35 point 3).

import FerroMCP
import Foundation

if ProcessInfo.processInfo.environment["FERROMCP_BENCH_HANDLER"] == "official" {
    try await serveOfficialForm(Array(CommandLine.arguments.dropFirst()))
    exit(0)
}

struct EchoArguments: Decodable, Sendable {
    let text: String
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EchoServer: \(message)\nusage: EchoServer stdio | http PORT [stateful|stateless|json]\n".utf8))
    exit(2)
}

let server = try FerroMCP.Server(name: "bench-ferromcp-swift", version: "1.0.0")
let schema: Value = ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]]
if ProcessInfo.processInfo.environment["FERROMCP_BENCH_SWIFT_VALUE"] == "1" {
    // For profiling: the arguments as a Value (no JSONDecoder).
    try server.registerTool("echo", description: "Echoes the text back", inputSchema: schema) { args, _ in
        .text(args["text"]?.stringValue ?? "")
    }
} else {
    try server.registerTool(
        "echo", description: "Echoes the text back", inputSchema: schema, arguments: EchoArguments.self
    ) { args, _ in
        .text(args.text)
    }
}

switch ProcessInfo.processInfo.environment["FERROMCP_BENCH_MIDDLEWARE"] ?? "" {
case "": break
case "swift": try server.use { request, next in try await next(request) }
case "rust": try server.use(.requestLog)
case let other: fail("FERROMCP_BENCH_MIDDLEWARE must be swift or rust, not \(other)")
}

let args = Array(CommandLine.arguments.dropFirst())
switch args.first ?? "stdio" {
case "stdio":
    try await server.serveStdio()
case "http":
    guard args.count >= 2, let port = Int(args[1]), (0...65535).contains(port) else { fail("http needs a PORT") }
    let mode = args.count > 2 ? args[2] : "stateful"
    guard ["stateful", "stateless", "json"].contains(mode) else { fail("unknown mode \(mode)") }
    let http = try await server.startHTTP(
        host: "127.0.0.1", port: port,
        options: HTTPOptions(
            jsonResponse: mode == "json", stateless: mode != "stateful",
            maxSessions: 20_000, sessionIdleTimeout: .seconds(30 * 60)))
    FileHandle.standardError.write(Data("EchoServer listening on \(http.url)\n".utf8))
    await http.wait()
default:
    fail("unknown transport \(args[0])")
}
