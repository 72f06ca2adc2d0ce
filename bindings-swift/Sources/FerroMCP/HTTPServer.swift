// HTTPServer: the handle of a running Streamable HTTP endpoint (Server.startHTTP), to read its
// address, stop it and wait for it; also how Server.serveHTTP ties the endpoint's life to the
// cancellation of a Swift task.

import FerroMCPNative

/// A running Streamable HTTP endpoint, from `Server.startHTTP(...)`.
public final class HTTPServer: Sendable {
    private let native: NativeHttpServer

    /// The endpoint's URL, e.g. `http://127.0.0.1:52814/mcp`.
    public let url: String

    /// The port it listens on (the one picked when started with port 0).
    public let port: Int

    init(_ native: NativeHttpServer) {
        self.native = native
        url = native.url()
        port = Int(native.port())
    }

    /// Stops serving: no new connections, in-flight requests finish, sessions close. Returns
    /// when the server has stopped. Calling it again does nothing.
    public func close() async throws {
        try await bridged { try await native.close() }
    }

    /// Returns when the server has stopped (after `close()`).
    public func wait() async {
        await native.wait()
    }

    /// Waits until the calling task is cancelled, then closes the server and returns once it
    /// has stopped.
    func serveUntilCancelled() async throws {
        let cancelled = CancellationWaiter()
        await withTaskCancellationHandler {
            await cancelled.wait()
        } onCancel: {
            cancelled.fire()
        }
        try await close()
    }
}
