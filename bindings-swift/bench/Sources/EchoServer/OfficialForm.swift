// The bench's `echo` tool in the official swift-sdk's form (its README's "Tools" example:
// a `ListTools` handler returning the tools, a `CallTool` handler switching on the name and
// returning `.init(content: [.text(...)], isError: false)`), on FerroMCPCompat, the facade a
// swift-sdk server ports to by changing `import MCP`. Stdio is the swift-sdk's
// `start(transport: StdioTransport())` then `waitUntilCompleted()`; HTTP, which the swift-sdk
// serves through an HTTP framework, is FerroMCPCompat's `ListenerTransport` (the engine's own
// listener, as the other ferromcp rows use).

import FerroMCP
import FerroMCPCompat
import Foundation

/// Serves the official-form echo server with the bench's command line
/// (`stdio | http PORT [stateful|stateless|json]`); returns when serving ended.
func serveOfficialForm(_ args: [String]) async throws {
    let server = FerroMCPCompat.Server(
        name: "bench-ferromcp-swift-official", version: "1.0.0", capabilities: .init(tools: .init()))
    await server.withMethodHandler(ListTools.self) { _ in
        .init(tools: [
            FerroMCPCompat.Tool(
                name: "echo",
                description: "Echoes the text back",
                inputSchema: .object([
                    "type": .string("object"),
                    "properties": .object(["text": .object(["type": .string("string")])]),
                    "required": .array([.string("text")]),
                ])
            ),
        ])
    }
    await server.withMethodHandler(CallTool.self) { params in
        switch params.name {
        case "echo":
            let text = params.arguments?["text"]?.stringValue ?? ""
            return .init(content: [.text(text)], isError: false)
        default:
            return .init(content: [.text("Unknown tool")], isError: true)
        }
    }
    switch args.first ?? "stdio" {
    case "stdio":
        try await server.start(transport: StdioTransport())
        await server.waitUntilCompleted()
    case "http":
        guard args.count >= 2, let port = Int(args[1]), (0...65535).contains(port) else { fail("http needs a PORT") }
        let mode = args.count > 2 ? args[2] : "stateful"
        guard ["stateful", "stateless", "json"].contains(mode) else { fail("unknown mode \(mode)") }
        // As the Rust handler's echo server: the session cap and idle timeout set explicitly.
        let transport = ListenerTransport(
            host: "127.0.0.1", port: port,
            options: HTTPOptions(
                jsonResponse: mode == "json", stateless: mode != "stateful",
                maxSessions: 20_000, sessionIdleTimeout: .seconds(30 * 60)))
        try await server.start(transport: transport)
        FileHandle.standardError.write(Data("EchoServer listening on \(await transport.url ?? "?")\n".utf8))
        await transport.wait()
    default:
        fail("unknown transport \(args[0])")
    }
}
