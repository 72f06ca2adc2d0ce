// ListenerTransport: Streamable HTTP on the engine's own listener, for a server that has no HTTP
// framework to hand requests to `StatefulHTTPServerTransport.handleRequest`. Not in the official
// swift-sdk (whose servers serve HTTP through a framework); the handlers are written as for the
// swift-sdk all the same (`withMethodHandler`), only `start(transport:)` gets this transport.

import FerroMCP
import Foundation

/// Serves the server's MCP endpoint on `host:port` with the engine's own HTTP listener
/// (`FerroMCP.Server.startHTTP`): `try await server.start(transport: transport)` starts it,
/// `url` then says where it listens, `wait()` returns once it stopped, `close()` stops it.
public actor ListenerTransport: Transport {
    /// The address to listen on.
    public let host: String
    /// The port to listen on (0: one the system picks; `url` says which).
    public let port: Int
    /// The endpoint's settings (path, JSON answers, stateless, session cap, ...).
    public let options: HTTPOptions
    private var server: HTTPServer?

    public init(host: String = "127.0.0.1", port: Int = 0, options: HTTPOptions = .init()) {
        self.host = host
        self.port = port
        self.options = options
    }

    /// Starts the listener for `engine`'s server.
    func attach(_ engine: FerroMCP.Server) async throws {
        guard server == nil else { throw MCPError.internalError("the listener is already serving") }
        do {
            server = try await engine.startHTTP(host: host, port: port, options: options)
        } catch {
            throw Bridge.compatError(error)
        }
    }

    /// The endpoint's URL (`http://127.0.0.1:52814/mcp`) once started, else nil.
    public var url: String? { server?.url }

    /// Returns when the listener has stopped (at once if it never started).
    public func wait() async {
        await server?.wait()
    }

    /// Stops the listener: no new connections, requests in flight are answered.
    public func close() async throws {
        guard let server else { return }
        do { try await server.close() } catch { throw Bridge.compatError(error) }
    }
}
