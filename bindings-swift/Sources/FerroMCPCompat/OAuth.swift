// OAuth: the official swift-sdk's client authorization types (`OAuthConfiguration`,
// `OAuthAuthorizer`, `OAuthAuthorizationDelegate`, `TokenStorage`, `OAuthAccessToken`) for
// `HTTPClientTransport(endpoint:authorizer:)`, on the engine's OAuth 2.1 client (FerroMCP's
// `OAuth`). The engine runs the flow the swift-sdk runs (Protected Resource Metadata and
// authorization server discovery, dynamic registration, PKCE, `resource`, refresh, step-up);
// these types say which grant, which client and where the token lives.
//
// Not here: `privateKeyJWT`, `EndpointOverrides`, `accessTokenProvider` and
// `additionalTokenRequestParameters` (the engine discovers its endpoints and authenticates with
// a client secret or none); the token endpoint authentication is the engine's choice from the
// authorization server's metadata (`client_secret_basic` unless it supports only `_post`).

import FerroMCP
import Foundation

/// How an `OAuthAuthorizer` gets a token.
public struct OAuthConfiguration: Sendable {
    /// The OAuth grant.
    public enum GrantType: Sendable {
        /// A user signs in through a browser (PKCE); needs an `authorizationDelegate`.
        case authorizationCode
        /// Machine to machine, with the client's own secret.
        case clientCredentials
    }

    /// Who the client is at the token endpoint.
    public enum TokenEndpointAuthentication: Sendable, Equatable {
        /// A client secret (sent with HTTP Basic where the server supports it).
        case clientSecretBasic(clientID: String, clientSecret: String)
        /// A client secret (sent as the engine chooses from the server's metadata).
        case clientSecretPost(clientID: String, clientSecret: String)
        /// A public client. With an authorization server that registers clients, the client is
        /// registered dynamically (RFC 7591) as the swift-sdk does; an `https` URL with a path
        /// is used as a Client ID Metadata Document's URL.
        case none(clientID: String)

        /// The client id.
        var clientID: String {
            switch self {
            case .clientSecretBasic(let id, _), .clientSecretPost(let id, _), .none(let id): id
            }
        }
    }

    /// How many times a request is authorized before giving up.
    public struct RetryPolicy: Sendable {
        public let maxAuthorizationAttempts: Int
        public let maxScopeUpgradeAttempts: Int

        public init(maxAuthorizationAttempts: Int = 3, maxScopeUpgradeAttempts: Int = 2) {
            self.maxAuthorizationAttempts = max(1, maxAuthorizationAttempts)
            self.maxScopeUpgradeAttempts = max(1, maxScopeUpgradeAttempts)
        }

        public static let `default` = RetryPolicy()
    }

    public let grantType: GrantType
    public var authentication: TokenEndpointAuthentication
    public let retryPolicy: RetryPolicy
    /// Where the authorization server sends the browser back (default: a random loopback port's
    /// `/callback`, as in the swift-sdk).
    public let authorizationRedirectURI: URL
    /// `client_name` for dynamic registration.
    public let clientName: String
    /// Shows the authorization URL to the user (authorization code grant).
    public let authorizationDelegate: (any OAuthAuthorizationDelegate)?
    /// Kept for source compatibility: the engine refreshes a token that expires within its own
    /// margin.
    public let proactiveRefreshWindowSeconds: TimeInterval

    public init(
        grantType: GrantType = .clientCredentials,
        authentication: TokenEndpointAuthentication,
        retryPolicy: RetryPolicy = .default,
        authorizationRedirectURI: URL? = nil,
        clientName: String = "mcp-swift-sdk",
        authorizationDelegate: (any OAuthAuthorizationDelegate)? = nil,
        proactiveRefreshWindowSeconds: TimeInterval = 60
    ) {
        self.grantType = grantType
        self.authentication = authentication
        self.retryPolicy = retryPolicy
        self.authorizationRedirectURI = authorizationRedirectURI
            ?? URL(string: "http://127.0.0.1:\(Int.random(in: 49152...65535))/callback")!
        self.clientName = clientName
        self.authorizationDelegate = authorizationDelegate
        self.proactiveRefreshWindowSeconds = proactiveRefreshWindowSeconds
    }
}

/// Shows the authorization URL to the user and returns the URL the authorization server
/// redirected back to (with `code` and `state`).
public protocol OAuthAuthorizationDelegate: Sendable {
    func presentAuthorizationURL(_ url: URL) async throws -> URL
}

/// An access token as the swift-sdk stores it.
public struct OAuthAccessToken: Sendable {
    public let value: String
    public let tokenType: String
    public let expiresAt: Date?
    public let scopes: Set<String>
    /// The authorization server (issuer) that issued it.
    public let authorizationServer: URL?
    public let refreshToken: String?

    public init(value: String, tokenType: String, expiresAt: Date?, scopes: Set<String>,
                authorizationServer: URL?, refreshToken: String?) {
        self.value = value
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.authorizationServer = authorizationServer
        self.refreshToken = refreshToken
    }
}

/// Where an `OAuthAuthorizer` keeps its token (one per authorizer).
public protocol TokenStorage: AnyObject, Sendable {
    func save(_ token: OAuthAccessToken)
    func load() -> OAuthAccessToken?
    func clear()
}

/// The default `TokenStorage`: in memory, lost when the process exits.
public final class InMemoryTokenStorage: TokenStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var token: OAuthAccessToken?

    public init() {}

    public func save(_ token: OAuthAccessToken) { lock.withLock { self.token = token } }
    public func load() -> OAuthAccessToken? { lock.withLock { token } }
    public func clear() { lock.withLock { token = nil } }
}

/// Authorizes an `HTTPClientTransport`'s requests with OAuth 2.1 (see the file comment).
public final class OAuthAuthorizer: Sendable {
    public let configuration: OAuthConfiguration
    private let storage: StorageBridge

    public init(configuration: OAuthConfiguration, tokenStorage: TokenStorage = InMemoryTokenStorage()) {
        self.configuration = configuration
        storage = StorageBridge(tokenStorage)
    }

    /// How many times a request is authorized before giving up.
    public var maxAuthorizationAttempts: Int { configuration.retryPolicy.maxAuthorizationAttempts }

    /// The engine's settings for this authorizer. Throws `MCPError.invalidParams` for what
    /// cannot run (the authorization code grant without a delegate).
    func engineOAuth() throws -> OAuth {
        let c = configuration
        var oauth = OAuth(clientName: c.clientName, tokenStore: .custom(storage),
                          maxAttempts: c.retryPolicy.maxAuthorizationAttempts)
        switch c.authentication {
        case .clientSecretBasic(let id, let secret), .clientSecretPost(let id, let secret):
            oauth.clientId = id
            oauth.clientSecret = secret
        case .none(let id):
            if let url = URL(string: id), url.scheme == "https", !url.path.isEmpty, url.path != "/" {
                oauth.clientMetadataURL = id
            } else if c.grantType == .clientCredentials {
                oauth.clientId = id
            }
        }
        switch c.grantType {
        case .clientCredentials:
            oauth.clientCredentials = true
        case .authorizationCode:
            guard let delegate = c.authorizationDelegate else {
                throw MCPError.invalidParams("the authorization code grant needs an authorizationDelegate")
            }
            oauth.redirectURI = c.authorizationRedirectURI.absoluteString
            oauth.onRedirect = { url in
                guard let authorize = URL(string: url) else {
                    throw MCPError.internalError("the engine made an authorization URL that is not a URL: \(url)")
                }
                return try await delegate.presentAuthorizationURL(authorize).absoluteString
            }
        }
        return oauth
    }
}

/// The engine's token store (what it keeps per server: tokens, the registered client, the
/// issuer) over a swift-sdk `TokenStorage`, which holds the token only: the rest is kept here,
/// for the life of the authorizer.
final class StorageBridge: TokenStore, @unchecked Sendable {
    private let storage: TokenStorage
    private let lock = NSLock()
    private var rest: [String: [String: FerroMCP.Value]] = [:]

    init(_ storage: TokenStorage) {
        self.storage = storage
    }

    func load(key: String) throws -> FerroMCP.Value? {
        var entry = lock.withLock { rest[key] } ?? [:]
        if let token = storage.load() {
            var tokens: [String: FerroMCP.Value] = ["access_token": .string(token.value)]
            if let r = token.refreshToken { tokens["refresh_token"] = .string(r) }
            if let at = token.expiresAt { tokens["expires_at"] = .int(Int(at.timeIntervalSince1970)) }
            if !token.scopes.isEmpty { tokens["scope"] = .string(token.scopes.sorted().joined(separator: " ")) }
            entry["tokens"] = .object(tokens)
            if entry["issuer"] == nil, let issuer = token.authorizationServer {
                entry["issuer"] = .string(issuer.absoluteString)
            }
        } else {
            entry["tokens"] = nil
        }
        return entry.isEmpty ? nil : .object(entry)
    }

    func save(key: String, value: FerroMCP.Value) throws {
        var entry = value.objectValue ?? [:]
        if let tokens = entry.removeValue(forKey: "tokens"), let access = tokens["access_token"]?.stringValue {
            let issuer = entry["issuer"]?.stringValue.flatMap(URL.init(string:))
            storage.save(OAuthAccessToken(
                value: access, tokenType: "Bearer",
                expiresAt: tokens["expires_at"]?.doubleValue.map(Date.init(timeIntervalSince1970:)),
                scopes: Set((tokens["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)),
                authorizationServer: issuer, refreshToken: tokens["refresh_token"]?.stringValue))
        } else {
            storage.clear()
        }
        lock.withLock { rest[key] = entry }
    }

    func remove(key: String) throws {
        storage.clear()
        _ = lock.withLock { rest.removeValue(forKey: key) }
    }
}
