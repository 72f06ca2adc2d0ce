// OAuthTests: a protected server (startHTTP(auth:)) refusing missing, unknown, expired,
// wrong-audience and under-scoped tokens and handing the identity to handlers as ctx.auth; and
// a client (Client.http(url:auth:)) authorizing end to end against a small authorization
// server written here (POSIX sockets), with a Swift token store reused by a second client.

@testable import FerroMCP
import Foundation
import XCTest
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

private typealias T = ServerTesting

/// A token store in memory, shared between clients.
private final class MemoryStore: TokenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var data: [String: Value] = [:]
    func load(key: String) throws -> Value? { lock.withLock { data[key] } }
    func save(key: String, value: Value) throws { lock.withLock { data[key] = value } }
    func remove(key: String) throws { _ = lock.withLock { data.removeValue(forKey: key) } }
    subscript(key: String) -> Value? { lock.withLock { data[key] } }
}

/// A tiny authorization server on a loopback port: metadata, registration and a token endpoint
/// issuing `tok-N` (the authorization step itself is the test's redirect closure, which
/// approves at once). Counts the requests per path.
private final class MiniAS: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var bodies: [String: String] = [:]

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
        guard ok else { throw McpError(.internalError, "cannot listen") }
        port = UInt16(bigEndian: addr.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }
    func count(_ path: String) -> Int { lock.withLock { counts[path] ?? 0 } }
    func lastBody(_ path: String) -> String { lock.withLock { bodies[path] ?? "" } }

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
        func text() -> String { String(decoding: data, as: UTF8.self) }
        while true {
            let n = read(c, &buf, buf.count)
            if n <= 0 { return }
            data += buf[0..<n]
            guard let end = text().range(of: "\r\n\r\n") else { continue }
            let head = String(text()[..<end.lowerBound])
            let length = head.split(separator: "\r\n").compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 && parts[0].lowercased() == "content-length"
                    ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
            }.first ?? 0
            let bodyStart = text().utf8.distance(from: text().startIndex, to: end.upperBound)
            if data.count - bodyStart < length { continue }
            let body = String(decoding: data[bodyStart..<(bodyStart + length)], as: UTF8.self)
            let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
            let path = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            respond(c, path: path, body: body)
            return
        }
    }

    private func respond(_ c: Int32, path: String, body: String) {
        let n = lock.withLock { () -> Int in
            counts[path, default: 0] += 1
            bodies[path] = body
            return counts[path]!
        }
        let (status, json): (String, Value)
        switch path {
        case "/.well-known/oauth-authorization-server":
            (status, json) = ("200 OK", [
                "issuer": .string(url),
                "authorization_endpoint": .string("\(url)/authorize"),
                "token_endpoint": .string("\(url)/token"),
                "registration_endpoint": .string("\(url)/register"),
                "code_challenge_methods_supported": ["S256"],
            ])
        case "/register":
            (status, json) = ("201 Created", ["client_id": "swift-client"])
        case "/token":
            (status, json) = ("200 OK", [
                "access_token": .string("tok-\(n)"), "token_type": "Bearer", "expires_in": 3600,
                "refresh_token": .string("r\(n)"),
            ])
        default:
            (status, json) = ("404 Not Found", [:])
        }
        let payload = json.jsonText
        let response = "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\ncontent-length: \(payload.utf8.count)\r\nconnection: close\r\n\r\n\(payload)"
        _ = response.withCString { write(c, $0, strlen($0)) }
    }
}

/// The query parameters of a URL.
private func query(_ url: String) -> [String: String] {
    var out: [String: String] = [:]
    for item in URLComponents(string: url)?.queryItems ?? [] { out[item.name] = item.value }
    return out
}

final class OAuthTests: XCTestCase {
    private func whoamiServer() throws -> Server {
        let server = try Server(name: "protected", version: "1.0.0")
        try server.registerTool("whoami") { _, ctx in
            guard let a = ctx.auth else { return .text("anonymous") }
            return .text("\(a.subject ?? "-")|\(a.scopes.joined(separator: " "))|\(a.claims?["tenant"]?.stringValue ?? "-")")
        }
        return server
    }

    private func freePort() async throws -> Int {
        let probe = try await Server(name: "probe", version: "1").startHTTP()
        let port = probe.port
        try await probe.close()
        return port
    }

    func testProtectedServerChecksTokensAndPassesTheIdentity() async throws {
        let port = try await freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let now = Date().timeIntervalSince1970
        let tokens: [String: AuthInfo] = [
            "good": AuthInfo(subject: "alice", scopes: ["mcp", "extra"], audience: [resource], expiresAt: now + 600,
                             claims: ["tenant": "t1"]),
            "narrow": AuthInfo(subject: "bob", scopes: ["other"], audience: [resource]),
            "elsewhere": AuthInfo(subject: "eve", scopes: ["mcp"], audience: ["http://other.example/mcp"]),
            "expired": AuthInfo(subject: "old", scopes: ["mcp"], audience: [resource], expiresAt: now - 10),
        ]
        let auth = ProtectedResource(resource: resource, authorizationServers: ["http://as.example"],
                                     requiredScopes: ["mcp"]) { token in
            if token == "boom" { throw McpError(.internalError, "verifier exploded") }
            return tokens[token]
        }
        XCTAssertEqual(try auth.metadataPath, "/.well-known/oauth-protected-resource/mcp")
        let http = try await whoamiServer().startHTTP(port: port, auth: auth)
        XCTAssertEqual(http.url, resource)

        let client = try await Client.http(url: resource, headers: ["Authorization": "Bearer good"])
        let r = try await client.callTool("whoami")
        XCTAssertEqual(r.text, "alice|mcp extra|t1")
        await client.close()

        for (token, status) in [(nil, 401), ("nope", 401), ("elsewhere", 401), ("expired", 401), ("boom", 401), ("narrow", 403)] {
            let headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
            let e = await T.mcpError { try await Client.http(url: resource, headers: headers, legacyFallback: false) }
            XCTAssertEqual(e?.data?["httpStatus"]?.doubleValue, Double(status), "token \(String(describing: token)): \(String(describing: e))")
        }
        try await http.close()
    }

    func testBadProtectionSettingsAreRefused() async throws {
        let auth = ProtectedResource(resource: "http://127.0.0.1:1/mcp", authorizationServers: []) { _ in nil }
        let e = await T.mcpError { try await Server(name: "x", version: "1").startHTTP(auth: auth) }
        XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue)
        let o = await T.mcpError {
            try await Client.http(url: "http://127.0.0.1:1/mcp", auth: OAuth(onRedirect: { $0 }))
        }
        XCTAssertTrue(o?.message.contains("redirectUri") == true, "\(String(describing: o))")
    }

    func testClientAuthorizesAgainstAnAuthorizationServerAndReusesTheStore() async throws {
        let server = try MiniAS()
        defer { server.close() }
        let port = try await freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(resource: resource, authorizationServers: [server.url]) { token in
            token.hasPrefix("tok-") ? AuthInfo(subject: token, scopes: ["mcp"], audience: [resource]) : nil
        }
        let http = try await whoamiServer().startHTTP(port: port, auth: auth)
        let store = MemoryStore()
        let seen = Seen()
        for _ in 0..<2 {
            let oauth = OAuth(onRedirect: { url in
                // The user approves at once: the authorization server sends them back with a code.
                seen.add(url)
                let q = query(url)
                return "\(q["redirect_uri"] ?? "")?code=c1&state=\(q["state"] ?? "")"
            }, redirectURI: "http://127.0.0.1:1/cb", clientName: "swift test", tokenStore: .custom(store))
            let client = try await Client.http(url: resource, legacyFallback: false, auth: oauth)
            let r = try await client.callTool("whoami")
            XCTAssertEqual(r.text, "tok-1|mcp|-")
            await client.close()
        }
        try await http.close()
        // One authorization in all: the second client reused the stored token and registration.
        XCTAssertEqual([server.count("/register"), server.count("/token")], [1, 1])
        XCTAssertEqual(seen.urls.count, 1)
        let q = query(seen.urls.first ?? "")
        XCTAssertEqual(q["code_challenge_method"], "S256")
        XCTAssertEqual(q["resource"], resource)
        XCTAssertEqual(q["client_id"], "swift-client")
        XCTAssertTrue(server.lastBody("/token").contains("code_verifier="), server.lastBody("/token"))
        XCTAssertEqual(store[resource]?["tokens"]?["access_token"], "tok-1")
        XCTAssertEqual(store[resource]?["client"]?["client_id"], "swift-client")
    }

    func testAFailingRedirectStepFailsTheConnection() async throws {
        let server = try MiniAS()
        defer { server.close() }
        let port = try await freePort()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(resource: resource, authorizationServers: [server.url]) { _ in nil }
        let http = try await whoamiServer().startHTTP(port: port, auth: auth)
        let oauth = OAuth(onRedirect: { _ in throw McpError(.internalError, "user said no") },
                          redirectURI: "http://127.0.0.1:1/cb")
        let e = await T.mcpError { try await Client.http(url: resource, legacyFallback: false, auth: oauth) }
        XCTAssertTrue(e?.message.contains("user said no") == true, "\(String(describing: e))")
        try await http.close()
    }
}

/// Authorization URLs the redirect closure saw.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ url: String) { lock.withLock { list.append(url) } }
    var urls: [String] { lock.withLock { list } }
}
