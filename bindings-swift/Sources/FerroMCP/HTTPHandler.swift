// HTTPHandler: the engine's Streamable HTTP endpoint for an HTTP framework that owns the
// listener (Vapor, Hummingbird, SwiftNIO, an app's own server): one request's method, target,
// headers and body in; status, headers and the body as a stream of chunks out, an SSE stream
// included. It is framework-neutral on purpose: a route of any framework calls `handle` and
// copies the answer into its own response type (README: "Mounting in Vapor or Hummingbird").

import FerroMCPNative
import Foundation

/// Answers the requests of one MCP endpoint, from `Server.httpHandler(...)`. Thread-safe; one
/// handler serves every session of the server. The endpoint's path is `HTTPOptions.path`
/// (default `/mcp`): mount the route there, or hand over the target the handler expects.
public final class HTTPHandler: Sendable {
    private let native: NativeHttpHandler

    init(_ native: NativeHttpHandler) {
        self.native = native
    }

    /// Answers one request. `target` is the path and query (`/mcp?x=1`); `headers` as received,
    /// in order (repeated names allowed; `Host` and `Origin` included, which the DNS-rebinding
    /// protection checks: 403 without an allowed `Host`); `body` the whole request body (bounded by
    /// `HTTPOptions.maxBodySize`: 413 beyond). Whatever the endpoint decides (404 for another
    /// path, 405, 406, 413, a JSON-RPC error) is in the response; throws `McpError`
    /// (`.invalidParams`) only for a method, target or header that is not valid HTTP.
    public func handle(method: String, target: String, headers: [HTTPHeader], body: Data) async throws
        -> HTTPResponse
    {
        let fields = headers.map { NameValue(name: $0.name, value: $0.value) }
        let response = try await bridged {
            try await native.handle(method: method, uri: target, headers: fields, body: body)
        }
        return HTTPResponse(response)
    }
}

/// The answer to one request: `status` and `headers` at once, then `body`, read chunk by chunk
/// (an SSE stream stays open until the engine ends it or `cancel()` is called). Read the body
/// once.
public final class HTTPResponse: Sendable {
    private let native: NativeHttpResponse

    /// The status code.
    public let status: Int

    /// The header fields, in order (`Content-Type`, `Mcp-Session-Id`, ...).
    public let headers: [HTTPHeader]

    init(_ native: NativeHttpResponse) {
        self.native = native
        status = Int(native.status())
        headers = native.headers().map { HTTPHeader(name: $0.name, value: $0.value) }
    }

    /// The first header field named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the body is an SSE stream (`Content-Type: text/event-stream`).
    public var isEventStream: Bool {
        header("content-type")?.lowercased().hasPrefix("text/event-stream") ?? false
    }

    /// The next chunk of the body; nil at its end (or after `cancel()`).
    public func nextChunk() async throws -> Data? {
        try await bridged { try await native.nextChunk() }
    }

    /// The body as an async sequence of chunks; ending the iteration early (a `break`, the task
    /// cancelled) does not close the stream: call `cancel()` when the client went away.
    public var body: AsyncThrowingStream<Data, Error> {
        AsyncThrowingStream(unfolding: { [self] in try await nextChunk() })
    }

    /// The whole body (for a JSON answer; an SSE stream ends only when the engine ends it).
    public func collect() async throws -> Data {
        var all = Data()
        while let chunk = try await nextChunk() { all.append(chunk) }
        return all
    }

    /// Drops the rest of the body (the framework's client disconnected): an SSE stream is
    /// closed as if its connection had ended, so the engine stops writing to it.
    public func cancel() {
        native.cancel()
    }
}

extension Server {
    /// A handler for this server's Streamable HTTP endpoint, served by a framework that owns the
    /// listener (see `HTTPHandler`). The same `options` as `startHTTP` (the listener's own
    /// limits, such as `maxConnections` or `headerReadTimeout`, are the framework's then).
    /// Host and Origin checks apply as configured; with no bound address known, the automatic
    /// choice accepts loopback names with any port, so an app served under another name lists
    /// it in `HTTPOptions.allowedHosts`.
    public func httpHandler(options: HTTPOptions = .init()) throws -> HTTPHandler {
        let config = try options.handlerValue().jsonText
        return HTTPHandler(try bridged { try native.httpHandler(config: config) })
    }

    /// The metrics of the `.openTelemetry(...)` layer in the Prometheus text exposition format
    /// (0.0.4; serve it as `text/plain; version=0.0.4`), for an app that serves `httpHandler()`:
    /// that handler owns no listener to serve the layer's `prometheus` path on, so the app
    /// serves this text on a route of its own. nil without the layer or its `prometheus` option
    /// (or `OTEL_METRICS_EXPORTER=prometheus`). The listener's gauges (sessions, connections,
    /// SSE streams) are `startHTTP`/`serveHTTP`'s only.
    public func prometheusText() -> String? {
        native.prometheusText()
    }

    /// `httpHandler(options:)` protected by bearer tokens (see `ProtectedResource`); it also
    /// answers the Protected Resource Metadata at its well-known path, so route that path to it
    /// as well.
    public func httpHandler(options: HTTPOptions = .init(), auth: ProtectedResource) throws -> HTTPHandler {
        let config = try options.handlerValue().jsonText
        let protection = try auth.native()
        return HTTPHandler(try bridged { try native.httpHandlerAuth(config: config, protection: protection) })
    }
}
