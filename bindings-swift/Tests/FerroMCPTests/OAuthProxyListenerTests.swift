// OAuthProxyListenerTests: `startHTTP(options: HTTPOptions(oauthProxy: ...))`: the engine's own
// listener serves the OAuth proxy's endpoints beside /mcp and protects /mcp with the proxy's
// tokens. The upstream identity provider is never reached by these checks (the authorization
// request is a redirect to it), so its endpoints are URLs of a host that does not exist. The
// same scenario as bindings-python/tests/test_oauth_proxy_listener.py and
// bindings-node/test/oauth_proxy_listener.test.mjs.

import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Leaves redirects to the caller (the test reads the 302 itself).
private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest,
                    completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

final class OAuthProxyListenerTests: XCTestCase {
    private static let issuer = "https://mcp.example.com"
    private static let resource = "https://mcp.example.com/mcp"
    private static let redirect = "http://127.0.0.1:7777/cb"
    /// S256 of "v" * 50, the client's PKCE challenge.
    private static let challenge = "CrlVwe1WSHWuTQYh3iczmx3aS-faRx6C92k9_hNxl4A"
    private static let initialize = Data(#"""
    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
    """#.utf8)

    private let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    private func proxy(_ upstream: OAuthProxyUpstream = .endpoints(
        authorization: "https://idp.example.com/authorize", token: "https://idp.example.com/token",
        clientID: "proxy-app", clientSecret: "s3cret"
    )) -> OAuthProxyOptions {
        OAuthProxyOptions(issuerURL: Self.issuer, resourceURL: Self.resource, upstream: upstream,
                          requireConsent: false)
    }

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

    private func signedIn() throws -> Server {
        let server = try Server(name: "signed-in", version: "1")
        try server.registerTool("whoami") { _, ctx in .text(ctx.auth?.subject ?? "nobody") }
        return server
    }

    func testOAuthProxyServesMetadataRegistrationAndThe401Challenge() async throws {
        let http = try await signedIn().startHTTP(options: HTTPOptions(oauthProxy: proxy()))
        let base = "http://127.0.0.1:\(http.port)"

        let (status, _, body) = try await send("GET", "\(base)/.well-known/oauth-authorization-server")
        XCTAssertEqual(status, 200)
        let metadata = try json(body)
        XCTAssertEqual(metadata["issuer"] as? String, Self.issuer)
        XCTAssertEqual(metadata["token_endpoint"] as? String, "\(Self.issuer)/token")
        XCTAssertEqual(metadata["registration_endpoint"] as? String, "\(Self.issuer)/register")
        XCTAssertEqual(metadata["code_challenge_methods_supported"] as? [String], ["S256"])

        let (rs, _, rbody) = try await send("GET", "\(base)/.well-known/oauth-protected-resource/mcp")
        XCTAssertEqual(rs, 200)
        XCTAssertEqual(try json(rbody)["authorization_servers"] as? [String], [Self.issuer])

        let registration = Data(#"{"redirect_uris":["\#(Self.redirect)"],"token_endpoint_auth_method":"none"}"#.utf8)
        let (created, _, cbody) = try await send("POST", "\(base)/register", body: registration,
                                                 headers: ["Content-Type": "application/json"])
        XCTAssertEqual(created, 201)
        let clientID = try XCTUnwrap(try json(cbody)["client_id"] as? String)

        var query = URLComponents()
        query.queryItems = [
            .init(name: "response_type", value: "code"), .init(name: "client_id", value: clientID),
            .init(name: "redirect_uri", value: Self.redirect),
            .init(name: "code_challenge", value: Self.challenge),
            .init(name: "code_challenge_method", value: "S256"), .init(name: "state", value: "st"),
            .init(name: "resource", value: Self.resource),
        ]
        let (found, headers, _) = try await send("GET", "\(base)/authorize?\(query.percentEncodedQuery!)")
        XCTAssertEqual(found, 302)
        let location = try XCTUnwrap(URLComponents(string: try XCTUnwrap(headers["location"])))
        XCTAssertEqual("\(location.scheme!)://\(location.host!)\(location.path)", "https://idp.example.com/authorize")
        let upstream = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(upstream["client_id"], "proxy-app")
        XCTAssertEqual(upstream["redirect_uri"], "\(Self.issuer)/oauth/callback")
        XCTAssertEqual(upstream["code_challenge_method"], "S256")
        // The proxy's own PKCE pair, not the client's.
        XCTAssertEqual(upstream["code_challenge"]?.count, 43)
        XCTAssertNotEqual(upstream["code_challenge"], Self.challenge)

        let mcpHeaders = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
        let (bare, bareHeaders, _) = try await send("POST", "\(base)/mcp", body: Self.initialize, headers: mcpHeaders)
        XCTAssertEqual(bare, 401)
        let challenge = try XCTUnwrap(bareHeaders["www-authenticate"])
        XCTAssertTrue(challenge.hasPrefix("Bearer "), challenge)
        XCTAssertTrue(challenge.contains("resource_metadata=\""), challenge)
        XCTAssertTrue(challenge.contains("/.well-known/oauth-protected-resource/mcp"), challenge)

        // A token the proxy did not issue is refused the same way.
        var forgedHeaders = mcpHeaders
        forgedHeaders["Authorization"] = "Bearer forged"
        let (forged, fh, _) = try await send("POST", "\(base)/mcp", body: Self.initialize, headers: forgedHeaders)
        XCTAssertEqual(forged, 401)
        XCTAssertTrue(fh["www-authenticate"]?.contains("error=\"invalid_token\"") ?? false, "\(fh)")
        try await http.close()
    }

    func testEveryPresetIsSpelledAsTheEngineReadsIt() async throws {
        let presets: [(OAuthProxyUpstream, String)] = [
            (.github(clientID: "id", clientSecret: "s"), "https://github.com/login/oauth/authorize"),
            (.google(clientID: "id", clientSecret: "s"), "https://accounts.google.com/"),
            (.entraID(tenant: "contoso", clientID: "id", clientSecret: "s"),
             "https://login.microsoftonline.com/contoso/"),
            (.auth0(domain: "example.eu.auth0.com", clientID: "id", clientSecret: "s"),
             "https://example.eu.auth0.com/"),
        ]
        for (upstream, authorizeURL) in presets {
            let options = OAuthProxyOptions(
                issuerURL: Self.issuer, resourceURL: Self.resource, upstream: upstream,
                scopesSupported: ["mcp"], requireConsent: false, accessTokenTTL: .seconds(90),
                clientIDDocuments: ClientIDDocumentOptions(enabled: false, timeout: .milliseconds(500))
            )
            let http = try await signedIn().startHTTP(options: HTTPOptions(oauthProxy: options))
            let base = "http://127.0.0.1:\(http.port)"
            let (status, _, body) = try await send("GET", "\(base)/.well-known/oauth-authorization-server")
            XCTAssertEqual(status, 200)
            let metadata = try json(body)
            XCTAssertEqual(metadata["scopes_supported"] as? [String], ["mcp"])
            XCTAssertNil(metadata["client_id_metadata_document_supported"], "documents turned off")
            let registration = Data(#"{"redirect_uris":["\#(Self.redirect)"],"token_endpoint_auth_method":"none"}"#.utf8)
            let (_, _, cbody) = try await send("POST", "\(base)/register", body: registration,
                                               headers: ["Content-Type": "application/json"])
            let clientID = try XCTUnwrap(try json(cbody)["client_id"] as? String)
            var query = URLComponents()
            query.queryItems = [
                .init(name: "response_type", value: "code"), .init(name: "client_id", value: clientID),
                .init(name: "redirect_uri", value: Self.redirect),
                .init(name: "code_challenge", value: Self.challenge),
                .init(name: "code_challenge_method", value: "S256"), .init(name: "scope", value: "mcp"),
            ]
            let (found, headers, _) = try await send("GET", "\(base)/authorize?\(query.percentEncodedQuery!)")
            XCTAssertEqual(found, 302)
            let location = try XCTUnwrap(headers["location"])
            XCTAssertTrue(location.hasPrefix(authorizeURL), location)
            try await http.close()
        }
    }

    func testOAuthProxyOptionsAreCheckedBeforeListening() async throws {
        var noTenant = OAuthProxyUpstream.entraID(tenant: "t", clientID: "proxy-app", clientSecret: "s3cret")
        noTenant.tenant = nil
        do {
            _ = try await signedIn().startHTTP(options: HTTPOptions(oauthProxy: proxy(noTenant)))
            XCTFail("an entra upstream without a tenant was accepted")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue)
            XCTAssertTrue(e.message.contains("tenant"), e.message)
        }
        XCTAssertThrowsError(try signedIn().httpHandler(options: HTTPOptions(oauthProxy: proxy()))) { e in
            XCTAssertTrue("\(e)".contains("oauthProxy"), "\(e)")
        }
    }
}
