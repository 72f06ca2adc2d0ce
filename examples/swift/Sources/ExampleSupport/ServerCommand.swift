// The command line every example server shares (`--transport stdio|http [--port N]`, as the Node
// and Python example servers take it) and the serving loop behind it: stdio until stdin closes,
// or Streamable HTTP on 127.0.0.1 until SIGTERM/SIGINT, which closes the endpoint and exits 0.

import FerroMCP
import Foundation

/// Writes one line to stderr (stdout belongs to the protocol over stdio).
public func logLine(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// The message of an error as a user reads it: an `McpError`'s message, otherwise its description.
public func message(of error: any Error) -> String {
    (error as? McpError)?.message ?? String(describing: error)
}

/// The transport options of an example server.
public struct ServerCommand: Sendable {
    /// `stdio` or `http`.
    public var transport = "stdio"
    /// The HTTP port (127.0.0.1).
    public var port = 3000

    /// Reads `--transport stdio|http` and `--port N` (also in `--name=value` form); exits 2 on
    /// anything else.
    public static func parse(_ program: String, _ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> ServerCommand {
        var command = ServerCommand()
        var args = arguments[...]
        func usage(_ problem: String) -> Never {
            logLine("\(program): \(problem)\nusage: \(program) [--transport stdio|http] [--port N]")
            exit(2)
        }
        while let arg = args.popFirst() {
            var name = arg
            var value: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                value = String(arg[arg.index(after: eq)...])
            }
            guard name == "--transport" || name == "--port" else { usage("unknown argument \(arg)") }
            guard let v = value ?? args.popFirst() else { usage("\(name) needs a value") }
            if name == "--transport" {
                command.transport = v
            } else if let port = Int(v), (0...65535).contains(port) {
                command.port = port
            } else {
                usage("bad port \(v)")
            }
        }
        guard ["stdio", "http"].contains(command.transport) else {
            usage("unknown transport \(command.transport) (use stdio or http)")
        }
        return command
    }

    /// Serves `server` on the chosen transport: over stdio until stdin closes; over HTTP on
    /// 127.0.0.1 until SIGTERM or SIGINT, then closes the endpoint and exits 0. `label` names the
    /// server in the log line (e.g. `everything-server (swift)`).
    public func serve(_ server: Server, label: String, options: HTTPOptions = .init()) async throws {
        if transport == "stdio" {
            try await server.serveStdio()
            return
        }
        let http = try await server.startHTTP(host: "127.0.0.1", port: port, options: options)
        logLine("\(label): serving MCP at \(http.url)")
        await terminationSignal()
        try? await http.close()
        exit(0)
    }
}

/// The pipe the signal handler writes to: (read end, write end).
nonisolated(unsafe) private var signalPipe: (read: Int32, write: Int32) = (-1, -1)

/// Returns when the process receives SIGTERM or SIGINT. A C signal handler writes a byte to a
/// pipe (async-signal-safe) and a thread of its own reads it. (Blocking the signals and
/// `sigwait` does not work here: libdispatch parks the main thread in `sigsuspend` with an
/// empty mask, where a blocked signal still takes its default action on Linux.)
private func terminationSignal() async {
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0, "pipe() failed: errno \(errno)")
    signalPipe = (fds[0], fds[1])
    for sig in [SIGTERM, SIGINT] {
        signal(sig) { _ in
            var byte: UInt8 = 1
            _ = write(signalPipe.write, &byte, 1)
        }
    }
    let readEnd = fds[0]
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
            done.resume()
        }
    }
}
