// For the swift-sdk README's OAuth client examples: a small authorization server on a loopback
// port (metadata, dynamic registration, a token endpoint issuing `tok-N` for the client
// credentials and authorization code grants; it records each request's path, `Authorization`
// header and body) and a ferromcp server protected by its tokens (FerroMCP's own API), whose
// "whoami" tool answers the token it was called with.

import FerroMCP
import Foundation
#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
private let shutBoth = Int32(SHUT_RDWR)
private func closeSocket(_ fd: Int32) { Glibc.close(fd) }
#else
import Darwin
private let streamSocket = SOCK_STREAM
private let shutBoth = SHUT_RDWR
private func closeSocket(_ fd: Int32) { Darwin.close(fd) }
#endif

/// One request the authorization server got.
struct ASRequest: Sendable, Equatable {
    let path: String
    let authorization: String?
    let body: String
}

/// The authorization server (see the file comment). One connection at a time.
final class TestAuthorizationServer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var seen: [ASRequest] = []
    private var issued = 0

    init() throws {
        let sock = socket(AF_INET, streamSocket, 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(sock, sa, len) == 0 && listen(sock, 16) == 0 && getsockname(sock, sa, &len) == 0
            }
        }
        fd = sock
        guard ok else { throw McpError(.internalError, "the test authorization server cannot listen") }
        port = UInt16(bigEndian: addr.sin_port)
        Thread { [self] in serve() }.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }
    /// The requests so far, in order.
    var requests: [ASRequest] { lock.withLock { seen } }

    func close() { shutdown(fd, shutBoth); closeSocket(fd) }

    private func serve() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            handle(c)
            closeSocket(c)
        }
    }

    private func handle(_ c: Int32) {
        var data = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(c, &buf, buf.count)
            if n <= 0 { return }
            data += buf[0..<n]
            let text = String(decoding: data, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let lines = text[..<end.lowerBound].split(separator: "\r\n").map(String.init)
            func header(_ name: String) -> String? {
                lines.dropFirst().compactMap { line -> String? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return parts.count == 2 && parts[0].lowercased() == name
                        ? parts[1].trimmingCharacters(in: .whitespaces) : nil
                }.first
            }
            let length = header("content-length").flatMap(Int.init) ?? 0
            let bodyStart = text.utf8.distance(from: text.startIndex, to: end.upperBound)
            if data.count - bodyStart < length { continue }
            let body = String(decoding: data[bodyStart..<(bodyStart + length)], as: UTF8.self)
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            respond(c, ASRequest(path: path, authorization: header("authorization"), body: body))
            return
        }
    }

    private func respond(_ c: Int32, _ request: ASRequest) {
        let n = lock.withLock { () -> Int in
            seen.append(request)
            if request.path == "/token" { issued += 1 }
            return issued
        }
        let (status, json): (String, Value)
        switch request.path {
        case "/.well-known/oauth-authorization-server":
            (status, json) = ("200 OK", [
                "issuer": .string(url),
                "authorization_endpoint": .string("\(url)/authorize"),
                "token_endpoint": .string("\(url)/token"),
                "registration_endpoint": .string("\(url)/register"),
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "client_credentials", "refresh_token"],
            ])
        case "/register":
            (status, json) = ("201 Created", ["client_id": "registered-client"])
        case "/token":
            (status, json) = ("200 OK", [
                "access_token": .string("tok-\(n)"), "token_type": "Bearer", "expires_in": 3600,
                "scope": "mcp",
            ])
        default:
            (status, json) = ("404 Not Found", [:])
        }
        let payload = json.jsonText
        let response = "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\ncontent-length: \(payload.utf8.count)\r\nconnection: close\r\n\r\n\(payload)"
        _ = response.withCString { write(c, $0, strlen($0)) }
    }
}

/// A ferromcp server protected by `authorizationServer`'s tokens, on a free loopback port.
struct ProtectedTestServer: Sendable {
    let url: String
    let close: @Sendable () async -> Void

    static func start(authorizationServer: String) async throws -> ProtectedTestServer {
        let probe = try await Server(name: "probe", version: "1").startHTTP()
        let port = probe.port
        try await probe.close()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(resource: resource, authorizationServers: [authorizationServer]) { token in
            token.hasPrefix("tok-") ? AuthInfo(subject: token, scopes: ["mcp"], audience: [resource]) : nil
        }
        let server = try Server(name: "protected", version: "1.0.0")
        try server.registerTool("whoami") { _, ctx in .text(ctx.auth?.subject ?? "anonymous") }
        let http = try await server.startHTTP(port: port, auth: auth)
        return ProtectedTestServer(url: resource, close: { try? await http.close() })
    }
}
