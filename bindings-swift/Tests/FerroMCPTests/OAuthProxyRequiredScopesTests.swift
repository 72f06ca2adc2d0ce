// OAuthProxyRequiredScopesTests: `OAuthProxyOptions(requiredScopes:)`: the MCP endpoint the
// listener's OAuth proxy protects requires scopes, checked in the engine as an external token's
// are (`ProtectedResource.requiredScopes`): a proxy token granted without them is refused 403
// insufficient_scope with a challenge listing them; one with them is served. The whole flow
// runs against an upstream token endpoint written here (POSIX sockets); the upstream's
// authorization page is never visited (its redirect carries the state the proxy's callback
// answers to). The same scenario as bindings-python/tests/test_oauth_proxy_listener.py and
// bindings-node/test/oauth_proxy_required_scopes.test.mjs.

import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

/// The upstream's token endpoint on a loopback port: every POST gets an upstream access token
/// (the proxy's exchange of the upstream code; PKCE upstream is the engine tests' subject).
private final class UpstreamTokenEndpoint: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32

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
        Thread { [self] in serve() }.start()
    }

    var url: String { "http://127.0.0.1:\(port)/token" }

    func close() { shutdown(fd, shutBoth); closeSocket(fd) }

    private func serve() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            answer(c)
            closeSocket(c)
        }
    }

    /// Reads the request head and body, then answers the token.
    private func answer(_ c: Int32) {
        var data = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(c, &buf, buf.count)
            if n <= 0 { return }
            data += buf[0..<n]
            let text = String(decoding: data, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let length = text[..<end.lowerBound].split(separator: "\r\n").compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 && parts[0].lowercased() == "content-length"
                    ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
            }.first ?? 0
            if text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length { break }
        }
        let payload = #"{"access_token":"up-at","token_type":"Bearer"}"#
        let response = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: \(payload.utf8.count)\r\nconnection: close\r\n\r\n\(payload)"
        _ = response.withCString { write(c, $0, strlen($0)) }
    }
}

/// Leaves redirects to the caller (the test reads each 302 itself).
private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest,
                    completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

final class OAuthProxyRequiredScopesTests: XCTestCase {
    private static let issuer = "https://mcp.example.com"
    private static let resource = "https://mcp.example.com/mcp"
    private static let redirect = "http://127.0.0.1:7777/cb"
    /// The client's PKCE verifier ("v" * 50) and its S256 challenge.
    private static let verifier = String(repeating: "v", count: 50)
    private static let challenge = "CrlVwe1WSHWuTQYh3iczmx3aS-faRx6C92k9_hNxl4A"
    private static let initialize = Data(#"""
    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
    """#.utf8)
    private static let mcpHeaders = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]

    private let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    /// Status, lowercased header fields and body of one request.
    private func send(_ method: String, _ url: String, body: Data? = nil,
                      headers: [String: String] = [:]) async throws -> (Int, [String: String], Data) {
        var req = URLRequest(url: URL(string: url)!)
        req.httpMethod = method
        for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
        req.httpBody = body
        return try await withCheckedThrowingContinuation { k in
            session.dataTask(with: req) { data, response, error in
                if let error { return k.resume(throwing: error) }
                let r = response as! HTTPURLResponse
                var fields: [String: String] = [:]
                for (name, value) in r.allHeaderFields {
                    fields[String(describing: name).lowercased()] = String(describing: value)
                }
                k.resume(returning: (r.statusCode, fields, data ?? Data()))
            }.resume()
        }
    }

    private func json(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func form(_ pairs: [(String, String)]) -> String {
        var c = URLComponents()
        c.queryItems = pairs.map { URLQueryItem(name: $0.0, value: $0.1) }
        // A form body: `+` would read as a space.
        return c.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
    }

    private func queryItems(_ location: String?) throws -> [String: String] {
        let c = try XCTUnwrap(URLComponents(string: try XCTUnwrap(location)))
        return Dictionary(uniqueKeysWithValues: (c.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    /// The flow against the listener at `base` (a public client, no consent) asking `scope`:
    /// the access token the proxy issued.
    private func signIn(_ base: String, scope: String) async throws -> String {
        let registration = Data(#"{"redirect_uris":["\#(Self.redirect)"],"token_endpoint_auth_method":"none"}"#.utf8)
        let (created, _, cbody) = try await send("POST", "\(base)/register", body: registration,
                                                 headers: ["Content-Type": "application/json"])
        XCTAssertEqual(created, 201)
        let clientID = try XCTUnwrap(try json(cbody)["client_id"] as? String)
        let query = form([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", Self.redirect),
            ("code_challenge", Self.challenge), ("code_challenge_method", "S256"), ("state", "st"),
            ("resource", Self.resource), ("scope", scope),
        ])
        let (found, headers, _) = try await send("GET", "\(base)/authorize?\(query)")
        XCTAssertEqual(found, 302)
        let upstreamState = try XCTUnwrap(try queryItems(headers["location"])["state"])
        let (back, backHeaders, backBody) = try await send(
            "GET", "\(base)/oauth/callback?\(form([("code", "up-code"), ("state", upstreamState)]))")
        XCTAssertEqual(back, 302, String(decoding: backBody, as: UTF8.self))
        let code = try XCTUnwrap(try queryItems(backHeaders["location"])["code"])
        let grant = form([
            ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code),
            ("code_verifier", Self.verifier), ("redirect_uri", Self.redirect), ("resource", Self.resource),
        ])
        let (status, _, tbody) = try await send("POST", "\(base)/token", body: Data(grant.utf8),
                                                headers: ["Content-Type": "application/x-www-form-urlencoded"])
        XCTAssertEqual(status, 200, String(decoding: tbody, as: UTF8.self))
        return try XCTUnwrap(try json(tbody)["access_token"] as? String)
    }

    func testOAuthProxyTokenWithoutTheRequiredScopeIsRefused403() async throws {
        let idp = try UpstreamTokenEndpoint()
        defer { idp.close() }
        let server = try Server(name: "scoped", version: "1")
        try server.registerTool("whoami") { _, ctx in .text(ctx.auth?.scopes.joined(separator: " ") ?? "") }
        var options = OAuthProxyOptions(
            issuerURL: Self.issuer, resourceURL: Self.resource,
            upstream: .endpoints(authorization: "https://idp.example.com/authorize", token: idp.url,
                                 clientID: "proxy-app", clientSecret: "s3cret"),
            scopesSupported: ["mcp:read", "mcp:admin"], requiredScopes: ["mcp:admin"], requireConsent: false)
        let http = try await server.startHTTP(options: HTTPOptions(oauthProxy: options))
        let base = "http://127.0.0.1:\(http.port)"

        let readOnly = try await signIn(base, scope: "mcp:read")
        var headers = Self.mcpHeaders
        headers["Authorization"] = "Bearer \(readOnly)"
        let (refused, refusedHeaders, refusedBody) = try await send("POST", "\(base)/mcp", body: Self.initialize, headers: headers)
        XCTAssertEqual(refused, 403)
        XCTAssertEqual(try json(refusedBody)["error"] as? String, "insufficient_scope")
        let challenge = try XCTUnwrap(refusedHeaders["www-authenticate"])
        XCTAssertTrue(challenge.contains("error=\"insufficient_scope\""), challenge)
        XCTAssertTrue(challenge.contains("scope=\"mcp:admin\""), challenge)

        let admin = try await signIn(base, scope: "mcp:read mcp:admin")
        let client = try await Client.http(url: "\(base)/mcp", headers: ["Authorization": "Bearer \(admin)"])
        let result = try await client.callTool("whoami")
        XCTAssertEqual(result.text, "mcp:read mcp:admin")
        try await client.close()
        try await http.close()

        options.requiredScopes = ["mcp:write"]
        do {
            _ = try await server.startHTTP(options: HTTPOptions(oauthProxy: options))
            XCTFail("a required scope the proxy does not offer was accepted")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue)
            XCTAssertTrue(e.message.contains("mcp:write"), e.message)
        }
    }
}
