// Transports: the official swift-sdk's transport classes, as what `Server.start(transport:)`
// and `Client.connect(transport:)` are given. Here a transport names how the engine serves or
// connects (stdio, Streamable HTTP, in memory); the engine moves the bytes, so these types hold
// settings, not streams, and a transport of one's own (the SDK's `Transport` protocol with
// `send`/`receive`) cannot be plugged in.

import FerroMCP
import Foundation

/// What `Server.start(transport:)` and `Client.connect(transport:)` accept: the transports of
/// this module (`StdioTransport`, `HTTPClientTransport`, `InMemoryTransport`,
/// `StatefulHTTPServerTransport`, `StatelessHTTPServerTransport`).
public protocol Transport: Actor {}

/// This process's stdin and stdout. A server started on it serves one session until stdin
/// closes or `stop()`. (A client cannot connect over its own stdio here: start the server as a
/// child process with FerroMCP's `Client.stdio(command:)`.)
public actor StdioTransport: Transport {
    public init() {}
}

/// A Streamable HTTP client transport to `endpoint` (`http://host:port/mcp`).
public actor HTTPClientTransport: Transport {
    /// The server's MCP endpoint.
    public let endpoint: URL
    /// Kept for source compatibility: the engine's client opens the GET stream for server
    /// messages whenever the server offers one (`sseInitializationTimeout` is likewise unused).
    public let streaming: Bool
    /// Header fields sent with every request (`Authorization`, ...).
    public let headers: [String: String]
    /// Authorizes the requests with OAuth 2.1 when the server asks (401/403); nil: none.
    public let authorizer: OAuthAuthorizer?

    public init(endpoint: URL, streaming: Bool = true, sseInitializationTimeout: TimeInterval = 10,
                authorizer: OAuthAuthorizer? = nil, headers: [String: String] = [:]) {
        self.endpoint = endpoint
        self.streaming = streaming
        self.authorizer = authorizer
        self.headers = headers
    }
}

/// One end of an in-process connection (`createConnectedPair()`): the server starts on one end,
/// the client connects on the other, with no I/O in between.
public actor InMemoryTransport: Transport {
    private let meeting: Meeting

    private init(_ meeting: Meeting) {
        self.meeting = meeting
    }

    /// Two connected ends: `client` for `Client.connect`, `server` for `Server.start`.
    public static func createConnectedPair() async -> (client: InMemoryTransport, server: InMemoryTransport) {
        let meeting = Meeting()
        return (InMemoryTransport(meeting), InMemoryTransport(meeting))
    }

    /// The server side: hands its engine to the client side.
    func attach(_ server: FerroMCP.Server) async {
        await meeting.offer(server)
    }

    /// The client side: waits for the server to start on the other end.
    func server() async -> FerroMCP.Server {
        await meeting.take()
    }

    /// Where the two ends meet.
    actor Meeting {
        private var server: FerroMCP.Server?
        private var waiting: [CheckedContinuation<FerroMCP.Server, Never>] = []

        func offer(_ s: FerroMCP.Server) {
            server = s
            for w in waiting { w.resume(returning: s) }
            waiting = []
        }

        func take() async -> FerroMCP.Server {
            if let server { return server }
            return await withCheckedContinuation { waiting.append($0) }
        }
    }
}

/// A request as an HTTP framework hands it over (the official swift-sdk's `HTTPRequest`).
public struct HTTPRequest: Sendable {
    public let method: String
    public let headers: [String: String]
    public let body: Data?
    /// The path and query (`/mcp`); nil means the endpoint's path.
    public let path: String?

    public init(method: String, headers: [String: String] = [:], body: Data? = nil, path: String? = nil) {
        self.method = method
        self.headers = headers
        self.body = body
        self.path = path
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// An answer for the HTTP framework to write (the official swift-sdk's `HTTPResponse`).
public enum HTTPResponse: Sendable {
    /// 202, no body.
    case accepted(headers: [String: String] = [:])
    /// 200, no body.
    case ok(headers: [String: String] = [:])
    /// 200 with a body (JSON).
    case data(Data, headers: [String: String] = [:])
    /// 200 with an SSE stream.
    case stream(AsyncThrowingStream<Data, Swift.Error>, headers: [String: String] = [:])
    /// Any other status, with its body (the engine's JSON-RPC error or plain text).
    case status(Int, Data, headers: [String: String] = [:])

    /// The status code.
    public var statusCode: Int {
        switch self {
        case .accepted: 202
        case .ok, .data, .stream: 200
        case .status(let code, _, _): code
        }
    }

    /// The header fields.
    public var headers: [String: String] {
        switch self {
        case .accepted(let h), .ok(let h), .data(_, let h), .stream(_, let h), .status(_, _, let h): h
        }
    }

    /// The body; nil for `.accepted`, `.ok` and `.stream`.
    public var bodyData: Data? {
        switch self {
        case .accepted, .ok, .stream: nil
        case .data(let d, _), .status(_, let d, _): d
        }
    }
}

/// Streamable HTTP served by an HTTP framework (Vapor, Hummingbird, ...): start the server on it,
/// then pass each request of the MCP route to `handleRequest`. Sessions are the engine's: one
/// transport serves every session of its server (an app that keeps a server and transport per
/// session, as the swift-sdk's examples do, works too).
public actor StatefulHTTPServerTransport: Transport {
    let stateless: Bool
    let options: HTTPOptions
    private var handler: HTTPHandler?

    /// - Parameter allowedHosts: the `Host` values accepted besides loopback names
    ///   (DNS-rebinding protection, `HTTPOptions.allowedHosts`).
    public init(path: String = "/mcp", allowedHosts: [String]? = nil) {
        self.init(stateless: false, path: path, allowedHosts: allowedHosts)
    }

    init(stateless: Bool, path: String, allowedHosts: [String]?) {
        self.stateless = stateless
        var o = HTTPOptions()
        o.path = path
        if stateless {
            o.stateless = true
            o.jsonResponse = true
        }
        if let allowedHosts { o.allowedHosts = allowedHosts }
        options = o
    }

    func attach(_ server: FerroMCP.Server) throws {
        handler = try server.httpHandler(options: options)
    }

    /// Answers one request of the MCP route.
    public func handleRequest(_ request: HTTPRequest) async -> HTTPResponse {
        guard let handler else {
            return .status(503, Data("the MCP server has not started on this transport".utf8),
                           headers: ["Content-Type": "text/plain"])
        }
        let headers = request.headers.map { HTTPHeader(name: $0.key, value: $0.value) }
        do {
            let response = try await handler.handle(method: request.method, target: request.path ?? options.path,
                                                    headers: headers, body: request.body ?? Data())
            var fields: [String: String] = [:]
            for h in response.headers { fields[h.name] = fields[h.name].map { "\($0), \(h.value)" } ?? h.value }
            if response.isEventStream { return .stream(response.body, headers: fields) }
            let body = try await response.collect()
            switch (response.status, body.isEmpty) {
            case (202, true): return .accepted(headers: fields)
            case (200, true): return .ok(headers: fields)
            case (200, false): return .data(body, headers: fields)
            default: return .status(response.status, body, headers: fields)
            }
        } catch {
            return .status(400, Data("\(Bridge.compatError(error).localizedDescription)".utf8),
                           headers: ["Content-Type": "text/plain"])
        }
    }
}

/// Streamable HTTP without sessions, each POST answered with one JSON body (the engine's
/// stateless mode), served by an HTTP framework as `StatefulHTTPServerTransport` is.
public actor StatelessHTTPServerTransport: Transport {
    let inner: StatefulHTTPServerTransport

    public init(path: String = "/mcp", allowedHosts: [String]? = nil) {
        inner = StatefulHTTPServerTransport(stateless: true, path: path, allowedHosts: allowedHosts)
    }

    /// Answers one request of the MCP route.
    public func handleRequest(_ request: HTTPRequest) async -> HTTPResponse {
        await inner.handleRequest(request)
    }
}
