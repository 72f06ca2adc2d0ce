// The swift-sdk README's OAuth client examples (41: client credentials, 42: authorization code
// with a delegate, 44: a custom TokenStorage) against a ferromcp server protected by a small
// authorization server (OAuthTestServers.swift): what the authorization server was asked, and
// that the token reaches the protected server's tool.

import FerroMCPCompat
import Foundation
import XCTest

final class ReadmeOAuthExamplesTests: XCTestCase {
    private func whoami(_ client: Client) async throws -> String? {
        let (content, _) = try await client.callTool(name: "whoami")
        guard case .text(let text, _, _)? = content.first else { return nil }
        return text
    }

    /// Example 41: the client credentials grant with HTTP Basic client authentication.
    func testReadmeClientCredentialsExampleGetsATokenWithBasicAuthentication() async throws {
        let authServer = try TestAuthorizationServer()
        defer { authServer.close() }
        let server = try await ProtectedTestServer.start(authorizationServer: authServer.url)
        let client = try await readmeClientExample41(endpoint: URL(string: server.url)!)
        let subject = try await whoami(client)
        XCTAssertEqual(subject, "tok-1")
        let token = authServer.requests.filter { $0.path == "/token" }
        XCTAssertEqual(token.count, 1, "\(authServer.requests)")
        XCTAssertEqual(token.first?.authorization, "Basic " + Data("my-app:s3cr3t".utf8).base64EncodedString())
        XCTAssertTrue(token.first?.body.contains("grant_type=client_credentials") == true, token.first?.body ?? "")
        XCTAssertFalse(authServer.requests.contains { $0.path == "/register" }, "a pre-registered client registered")
        await client.disconnect()
        await server.close()
    }

    /// Example 42: the delegate is shown the authorization URL (PKCE, the resource) and its
    /// redirect's code is exchanged; the public client was registered dynamically first.
    func testReadmeAuthorizationCodeExampleShowsTheURLAndExchangesTheCode() async throws {
        _ = shownAuthorizationURLs.take()
        let authServer = try TestAuthorizationServer()
        defer { authServer.close() }
        let server = try await ProtectedTestServer.start(authorizationServer: authServer.url)
        let transport = readmeClientExample42(endpoint: URL(string: server.url)!)
        let client = Client(name: "MyClient", version: "1.0.0")
        try await client.connect(transport: transport)
        let subject = try await whoami(client)
        XCTAssertEqual(subject, "tok-1")
        let shown = shownAuthorizationURLs.take()
        XCTAssertEqual(shown.count, 1)
        let query = Dictionary(uniqueKeysWithValues: (URLComponents(string: shown.first ?? "")?.queryItems ?? [])
            .map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(query["code_challenge_method"], "S256")
        XCTAssertEqual(query["resource"], server.url)
        XCTAssertEqual(query["client_id"], "registered-client")
        XCTAssertTrue(query["redirect_uri"]?.hasPrefix("http://127.0.0.1:") == true, "\(query)")
        let paths = authServer.requests.map(\.path)
        XCTAssertTrue(paths.contains("/register"), "\(paths)")
        let exchange = authServer.requests.last { $0.path == "/token" }
        XCTAssertTrue(exchange?.body.contains("grant_type=authorization_code") == true, exchange?.body ?? "")
        XCTAssertTrue(exchange?.body.contains("code=c1") == true, exchange?.body ?? "")
        XCTAssertTrue(exchange?.body.contains("code_verifier=") == true, exchange?.body ?? "")
        await client.disconnect()
        await server.close()
    }

    /// Example 44's storage (which keeps nothing) with example 41's configuration still
    /// authorizes; a storage that keeps the token gets it with its scopes and expiry, and a
    /// second authorizer over it uses that token without asking for another.
    func testReadmeTokenStorageExampleAndAStorageThatKeepsTheToken() async throws {
        let authServer = try TestAuthorizationServer()
        defer { authServer.close() }
        let server = try await ProtectedTestServer.start(authorizationServer: authServer.url)
        let endpoint = URL(string: server.url)!
        let config = OAuthConfiguration(
            grantType: .clientCredentials,
            authentication: .clientSecretBasic(clientID: "my-app", clientSecret: "s3cr3t"))

        let forgetful = Client(name: "MyClient", version: "1.0.0")
        try await forgetful.connect(transport: HTTPClientTransport(
            endpoint: endpoint, authorizer: readmeClientExample44(config: config)))
        let first = try await whoami(forgetful)
        XCTAssertEqual(first?.hasPrefix("tok-"), true)
        await forgetful.disconnect()

        let kept = RecordingTokenStorage()
        let issuedBefore = authServer.requests.filter { $0.path == "/token" }.count
        for _ in 0..<2 {
            let client = Client(name: "MyClient", version: "1.0.0")
            try await client.connect(transport: HTTPClientTransport(
                endpoint: endpoint, authorizer: OAuthAuthorizer(configuration: config, tokenStorage: kept)))
            let subject = try await whoami(client)
            XCTAssertEqual(subject, "tok-\(issuedBefore + 1)")
            await client.disconnect()
        }
        XCTAssertEqual(authServer.requests.filter { $0.path == "/token" }.count, issuedBefore + 1)
        let token = try XCTUnwrap(kept.load())
        XCTAssertEqual(token.value, "tok-\(issuedBefore + 1)")
        XCTAssertEqual(token.scopes, ["mcp"])
        XCTAssertEqual(token.authorizationServer?.absoluteString, authServer.url)
        let expiresIn = try XCTUnwrap(token.expiresAt).timeIntervalSinceNow
        XCTAssertTrue((3500...3601).contains(expiresIn), "\(expiresIn)")
        await server.close()
    }

    /// The authorization code grant without a delegate cannot run: connecting says so.
    func testTheAuthorizationCodeGrantWithoutADelegateIsRefused() async throws {
        let config = OAuthConfiguration(grantType: .authorizationCode, authentication: .none(clientID: "my-app"))
        let transport = HTTPClientTransport(endpoint: URL(string: "http://127.0.0.1:1/mcp")!,
                                            authorizer: OAuthAuthorizer(configuration: config))
        do {
            try await Client(name: "c", version: "1").connect(transport: transport)
            XCTFail("connected without a delegate")
        } catch let e as MCPError {
            XCTAssertEqual(e, .invalidParams("the authorization code grant needs an authorizationDelegate"))
        }
    }
}

/// A TokenStorage that keeps the token in memory (as an app's Keychain would).
final class RecordingTokenStorage: TokenStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var token: OAuthAccessToken?
    func save(_ token: OAuthAccessToken) { lock.withLock { self.token = token } }
    func load() -> OAuthAccessToken? { lock.withLock { token } }
    func clear() { lock.withLock { token = nil } }
}
