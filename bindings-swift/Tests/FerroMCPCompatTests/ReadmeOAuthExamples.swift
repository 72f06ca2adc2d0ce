// The official swift-sdk README's OAuth client examples (README.md at 6132fd4, documentation
// licensed CC-BY-4.0), each unchanged inside a function that gives it what the README's earlier
// lines define, with the test server's URL where the README has https://api.example.com/mcp.
// What the README leaves to the app ("openBrowserAndWaitForCallback") is at the end.

import FerroMCPCompat
import Foundation

// README example 41 (its endpoint is the test's protected server)
func readmeClientExample41(endpoint: URL) async throws -> Client {
    let config = OAuthConfiguration(
        grantType: .clientCredentials,
        authentication: .clientSecretBasic(clientID: "my-app", clientSecret: "s3cr3t")
    )
    let authorizer = OAuthAuthorizer(configuration: config)
    let transport = HTTPClientTransport(
        endpoint: endpoint,
        authorizer: authorizer
    )
    let client = Client(name: "MyClient", version: "1.0.0")
    try await client.connect(transport: transport)
    return client
}

// README example 42, its delegate type
struct MyAuthDelegate: OAuthAuthorizationDelegate {
    func presentAuthorizationURL(_ url: URL) async throws -> URL {
        // Open the URL in a browser/webview and wait for the callback redirect URI.
        // The returned URL must include the authorization code and state parameters.
        return try await openBrowserAndWaitForCallback(url)
    }
}

// README example 42, the rest (its endpoint is the test's protected server)
func readmeClientExample42(endpoint: URL) -> HTTPClientTransport {
    let config = OAuthConfiguration(
        grantType: .authorizationCode,
        authentication: .none(clientID: "my-app"),
        authorizationDelegate: MyAuthDelegate()
    )
    let authorizer = OAuthAuthorizer(configuration: config)
    let transport = HTTPClientTransport(
        endpoint: endpoint,
        authorizer: authorizer
    )
    return transport
}

// README example 44, its storage type
final class KeychainTokenStorage: TokenStorage {
    func save(_ token: OAuthAccessToken) {
        // Encode and store token.value in the system Keychain
    }

    func load() -> OAuthAccessToken? {
        // Load and decode token from the Keychain
        return nil
    }

    func clear() {
        // Delete from the Keychain
    }
}

// README example 44, the rest (with the `config` of an earlier example)
func readmeClientExample44(config: OAuthConfiguration) -> OAuthAuthorizer {
    let authorizer = OAuthAuthorizer(
        configuration: config,
        tokenStorage: KeychainTokenStorage()
    )
    return authorizer
}

// MARK: Your implementation

/// Example 42's browser: the user approves at once, so the authorization server sends them back
/// to the redirect URI with a code and the state it was given. Records the URL it was shown.
func openBrowserAndWaitForCallback(_ url: URL) async throws -> URL {
    shownAuthorizationURLs.record(url.absoluteString)
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    let value = { (name: String) in items.first { $0.name == name }?.value ?? "" }
    return URL(string: "\(value("redirect_uri"))?code=c1&state=\(value("state"))")!
}

/// The authorization URLs example 42's browser was shown.
let shownAuthorizationURLs = PrintLog()
