// OAuth 2.1: `OAuth` authorizes a client with a protected server
// (`Client.http(url:auth:)`), `ProtectedResource` protects a server with bearer tokens
// (`startHTTP(..., auth:)` / `serveHTTP(..., auth:)`; with the built-in `JWTVerifier` or
// `IntrospectionVerifier`, or your own `verify`), and handlers read the verified identity
// as `ctx.auth`. The engine runs the flow (discovery, registration, PKCE, `resource`, the `iss`
// check, refresh, step-up) and the checks (expiry, audience, scopes, `WWW-Authenticate`, the
// Protected Resource Metadata); these types only say how to reach the user, where tokens live
// and how a token is verified.

import FerroMCPNative
import Foundation

/// Keeps tokens and dynamic registrations between runs, keyed by the server's URL. Values are
/// JSON (treat them as opaque). The methods are synchronous and run on the engine's thread:
/// keep them quick.
public protocol TokenStore: Sendable {
    /// The stored value, or nil for an unknown key.
    func load(key: String) throws -> Value?
    /// Stores `value` under `key`.
    func save(key: String, value: Value) throws
    /// Forgets `key`.
    func remove(key: String) throws
}

/// How a client authorizes with a protected MCP server (`Client.http(url:auth:)`).
public struct OAuth: Sendable {
    /// Where tokens live.
    public enum Storage: Sendable {
        /// In memory, for this connection (the default).
        case memory
        /// A JSON file (owner-only, written atomically).
        case file(String)
        /// Your own store.
        case custom(any TokenStore)
    }

    /// The redirect step: show the authorization URL to the user and return the full URL the
    /// authorization server redirected back to (with `code` and `state`). Needs `redirectURI`.
    /// Without it, a loopback listener on `127.0.0.1:loopbackPort` receives the browser's
    /// redirect and `openBrowser` shows the URL (default: printed to stderr).
    public var onRedirect: (@Sendable (String) async throws -> String)?
    /// The redirect URI registered for `onRedirect`.
    public var redirectURI: String?
    /// The loopback listener's port (0: any free port).
    public var loopbackPort: Int
    /// Shows the authorization URL in the loopback flow.
    public var openBrowser: (@Sendable (String) -> Void)?
    /// `client_name` for dynamic registration.
    public var clientName: String?
    /// A pre-registered client's id.
    public var clientId: String?
    /// A pre-registered client's secret (nil for a public client).
    public var clientSecret: String?
    /// The HTTPS URL of this client's Client ID Metadata Document, used where the server
    /// accepts it.
    public var clientMetadataURL: String?
    /// Use the client credentials grant with `clientId`/`clientSecret` (no user, no redirect).
    public var clientCredentials: Bool
    /// Where tokens live.
    public var tokenStore: Storage
    /// Scopes requested when neither the server's challenge nor its metadata names any.
    public var scopes: [String]?
    /// Authorizations per request before giving up (401 and 403 together; default 3).
    public var maxAttempts: Int?

    /// An OAuth configuration; every field is described on its property.
    public init(onRedirect: (@Sendable (String) async throws -> String)? = nil, redirectURI: String? = nil,
                loopbackPort: Int = 0, openBrowser: (@Sendable (String) -> Void)? = nil,
                clientName: String? = nil, clientId: String? = nil, clientSecret: String? = nil,
                clientMetadataURL: String? = nil, clientCredentials: Bool = false,
                tokenStore: Storage = .memory, scopes: [String]? = nil, maxAttempts: Int? = nil) {
        self.onRedirect = onRedirect
        self.redirectURI = redirectURI
        self.loopbackPort = loopbackPort
        self.openBrowser = openBrowser
        self.clientName = clientName
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.clientMetadataURL = clientMetadataURL
        self.clientCredentials = clientCredentials
        self.tokenStore = tokenStore
        self.scopes = scopes
        self.maxAttempts = maxAttempts
    }

    /// The engine's OAuth client for one connection (a loopback listener binds now). Throws
    /// `invalidParams` for inconsistent settings.
    func native() throws -> NativeOAuth {
        guard let port = UInt16(exactly: loopbackPort) else {
            throw McpError(.invalidParams, "loopbackPort \(loopbackPort) is not in 0...65535")
        }
        var s: [String: Value] = ["clientCredentials": .bool(clientCredentials), "loopbackPort": .int(Int(port))]
        s.set("redirectUri", redirectURI.map(Value.string))
        s.set("clientName", clientName.map(Value.string))
        s.set("clientId", clientId.map(Value.string))
        s.set("clientSecret", clientSecret.map(Value.string))
        s.set("clientMetadataUrl", clientMetadataURL.map(Value.string))
        s.set("scopes", scopes.map { .array($0.map(Value.string)) })
        s.set("maxAttempts", maxAttempts.map(Value.int))
        var store: TokenStorage?
        switch tokenStore {
        case .memory: break
        case .file(let path): s["tokenFile"] = .string(path)
        case .custom(let custom): store = StoreBridge(custom)
        }
        let settings = Value.object(s).jsonText
        let redirect = onRedirect.map(RedirectBridge.init)
        let opener = openBrowser.map(OpenerBridge.init)
        return try bridged { try NativeOAuth(settings: settings, redirect: redirect, opener: opener, store: store) }
    }
}

/// The verified identity of a request's bearer token (`ctx.auth`; the token itself is not
/// included). Also what `ProtectedResource`'s `verify` returns for a valid token.
public struct AuthInfo: Sendable, Equatable {
    /// The subject (user) the token was issued for.
    public var subject: String?
    /// The client the token was issued to.
    public var clientId: String?
    /// The granted scopes.
    public var scopes: [String]
    /// The audiences the token is valid for.
    public var audience: [String]
    /// Expiry, Unix seconds.
    public var expiresAt: Double?
    /// Other claims the verifier passed on.
    public var claims: Value?

    /// An identity; every field is described on its property.
    public init(subject: String? = nil, clientId: String? = nil, scopes: [String] = [], audience: [String] = [],
                expiresAt: Double? = nil, claims: Value? = nil) {
        self.subject = subject
        self.clientId = clientId
        self.scopes = scopes
        self.audience = audience
        self.expiresAt = expiresAt
        self.claims = claims
    }

    init?(_ v: Value) {
        guard let o = v.objectValue else { return nil }
        let strings = { (k: String) in (o[k]?.arrayValue ?? []).compactMap(\.stringValue) }
        self.init(subject: o["subject"]?.stringValue, clientId: o["clientId"]?.stringValue,
                  scopes: strings("scopes"), audience: strings("audience"),
                  expiresAt: o["expiresAt"]?.doubleValue, claims: o["claims"].flatMap { $0 == .null ? nil : $0 })
    }

    var value: Value {
        var o: [String: Value] = ["scopes": .array(scopes.map(Value.string)), "audience": .array(audience.map(Value.string))]
        o.set("subject", subject.map(Value.string))
        o.set("clientId", clientId.map(Value.string))
        o.set("expiresAt", expiresAt.map(Value.double))
        o.set("claims", claims)
        return .object(o)
    }
}

/// The built-in verifier of JWT access tokens (`ProtectedResource(..., jwt:)`). A token passes
/// when its `alg` is one of `algorithms` and fits the key (`none` and `HS*` are always refused),
/// its signature verifies with a key of the authorization server's JWKS, `iss` is `issuer`
/// (default: any of the `authorizationServers`), `aud` holds `audience` (default: the
/// `resource`) and `exp`/`nbf` hold, give or take `leewaySeconds` (default 60). `ctx.auth` then
/// has the subject (`sub`), client id, scopes (`scope` or `scp`) and every claim.
public struct JWTVerifier: Sendable {
    /// Where the keys come from.
    public enum Keys: Sendable {
        /// The JWKS URL: fetched on first use, cached, fetched again for an unknown `kid` at
        /// most every 30 s.
        case url(String)
        /// The JWKS document itself (`{"keys": [...]}`), never fetched.
        case jwks(Value)
    }

    /// Where the keys come from.
    public var keys: Keys
    /// The accepted `iss` (nil: any of the authorization servers).
    public var issuer: String?
    /// The required `aud` (nil: the resource).
    public var audience: String?
    /// Accepted algorithms (nil: RS256/384/512, PS256/384/512, ES256, ES384, EdDSA).
    public var algorithms: [String]?
    /// Clock skew allowed on `exp`/`nbf`, seconds (nil: 60).
    public var leewaySeconds: Int?

    /// Tokens signed with a key of the JWKS at `jwksURL`; the other fields are described on
    /// their properties.
    public init(jwksURL: String, issuer: String? = nil, audience: String? = nil, algorithms: [String]? = nil,
                leewaySeconds: Int? = nil) {
        self.init(keys: .url(jwksURL), issuer: issuer, audience: audience, algorithms: algorithms,
                  leewaySeconds: leewaySeconds)
    }

    /// Tokens signed with a key of `jwks` (a JWKS document).
    public init(jwks: Value, issuer: String? = nil, audience: String? = nil, algorithms: [String]? = nil,
                leewaySeconds: Int? = nil) {
        self.init(keys: .jwks(jwks), issuer: issuer, audience: audience, algorithms: algorithms,
                  leewaySeconds: leewaySeconds)
    }

    private init(keys: Keys, issuer: String?, audience: String?, algorithms: [String]?, leewaySeconds: Int?) {
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.algorithms = algorithms
        self.leewaySeconds = leewaySeconds
    }

    var settings: Value {
        var o: [String: Value] = [:]
        switch keys {
        case .url(let url): o["jwksUrl"] = .string(url)
        case .jwks(let doc): o["jwks"] = doc
        }
        o.set("issuer", issuer.map(Value.string))
        o.set("audience", audience.map(Value.string))
        o.set("algorithms", algorithms.map { .array($0.map(Value.string)) })
        o.set("leewaySeconds", leewaySeconds.map { .int($0) })
        return .object(o)
    }
}

/// The built-in RFC 7662 token introspection verifier (`ProtectedResource(..., introspection:)`):
/// each token goes to the authorization server's `endpoint`, authenticated with
/// `clientId`/`clientSecret` (HTTP Basic) when given.
public struct IntrospectionVerifier: Sendable {
    /// The introspection endpoint.
    public var endpoint: String
    /// This resource server's client id at the authorization server.
    public var clientId: String?
    /// Its client secret.
    public var clientSecret: String?

    /// A verifier; every field is described on its property.
    public init(endpoint: String, clientId: String? = nil, clientSecret: String? = nil) {
        self.endpoint = endpoint
        self.clientId = clientId
        self.clientSecret = clientSecret
    }

    var settings: Value {
        var o: [String: Value] = ["endpoint": .string(endpoint)]
        o.set("clientId", clientId.map(Value.string))
        o.set("clientSecret", clientSecret.map(Value.string))
        return .object(o)
    }
}

/// Bearer-token protection of an HTTP server. Requests without a valid token get 401 (403 for
/// missing scopes) with a `WWW-Authenticate` naming the Protected Resource Metadata, served at
/// `metadataPath`. Tokens are checked by exactly one of `verify`, `jwt` and `introspection`;
/// the engine refuses expired tokens and tokens for another audience after the verifier
/// accepted them.
public struct ProtectedResource: Sendable {
    /// This server's URL (e.g. `https://mcp.example.com/mcp`): the audience tokens must carry.
    public var resource: String
    /// The accepted authorization servers (issuer URLs), published in the metadata.
    public var authorizationServers: [String]
    /// Scopes every request needs (403 `insufficient_scope` without them).
    public var requiredScopes: [String]
    /// `scopes_supported` of the metadata (default: `requiredScopes`).
    public var scopesSupported: [String]?
    /// Refuse tokens whose audience lacks `resource` (turn off only when `verify` checks it;
    /// with `jwt` the verifier checks its `audience`).
    public var checkAudience: Bool
    /// Checks a token yourself (a lookup, a JWT library): its identity, or nil to refuse it (a
    /// thrown error's message becomes the `error_description`).
    public var verify: (@Sendable (String) async throws -> AuthInfo?)?
    /// The built-in JWT verifier.
    public var jwt: JWTVerifier?
    /// The built-in introspection verifier.
    public var introspection: IntrospectionVerifier?

    /// A protection checking tokens with `verify`; every field is described on its property.
    public init(resource: String, authorizationServers: [String], requiredScopes: [String] = [],
                scopesSupported: [String]? = nil, checkAudience: Bool = true,
                verify: @escaping @Sendable (String) async throws -> AuthInfo?) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.requiredScopes = requiredScopes
        self.scopesSupported = scopesSupported
        self.checkAudience = checkAudience
        self.verify = verify
    }

    /// A protection checking JWT access tokens with the authorization server's keys.
    public init(resource: String, authorizationServers: [String], requiredScopes: [String] = [],
                scopesSupported: [String]? = nil, jwt: JWTVerifier) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.requiredScopes = requiredScopes
        self.scopesSupported = scopesSupported
        self.checkAudience = true
        self.jwt = jwt
    }

    /// A protection checking tokens by introspection at the authorization server.
    public init(resource: String, authorizationServers: [String], requiredScopes: [String] = [],
                scopesSupported: [String]? = nil, checkAudience: Bool = true,
                introspection: IntrospectionVerifier) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.requiredScopes = requiredScopes
        self.scopesSupported = scopesSupported
        self.checkAudience = checkAudience
        self.introspection = introspection
    }

    /// The engine's protection. Throws `invalidParams` for bad settings (no authorization
    /// server, bad verifier settings, not exactly one verifier).
    func native() throws -> NativeProtection {
        var s: [String: Value] = [
            "resource": .string(resource),
            "authorizationServers": .array(authorizationServers.map(Value.string)),
            "requiredScopes": .array(requiredScopes.map(Value.string)),
            "checkAudience": .bool(checkAudience),
        ]
        s.set("scopesSupported", scopesSupported.map { .array($0.map(Value.string)) })
        s.set("jwt", jwt?.settings)
        s.set("introspection", introspection?.settings)
        let settings = Value.object(s).jsonText
        let bridge = verify.map { VerifierBridge($0) }
        return try bridged { try NativeProtection(settings: settings, verifier: bridge) }
    }

    /// The path the Protected Resource Metadata is served at
    /// (`/.well-known/oauth-protected-resource` + the resource's path).
    public var metadataPath: String {
        get throws { try native().metadataPath() }
    }
}

extension Client {
    /// Connects to a Streamable HTTP endpoint protected by OAuth 2.1: a 401 runs `auth`'s flow
    /// (discovery, registration, the redirect step, PKCE), later 401s refresh the token, a 403
    /// `insufficient_scope` steps up. Authorization failures throw `McpError` whose
    /// `data["authError"]` names the cause.
    public static func http(url: String, headers: [String: String] = [:], legacyFallback: Bool = true,
                            auth: OAuth, options: ClientOptions = .init()) async throws -> Client {
        let fields = headers.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) }
        let oauth = try auth.native()
        return try await connect(options) { config, handler in
            try await NativeClient.httpAuth(url: url, headers: fields, legacyFallback: legacyFallback,
                                            auth: oauth, config: config, handler: handler)
        }
    }
}

extension Server {
    /// `startHTTP` protected by bearer tokens (see `ProtectedResource`); handlers read the
    /// verified identity as `ctx.auth`.
    public func startHTTP(host: String = "127.0.0.1", port: Int = 0, options: HTTPOptions = .init(),
                          auth: ProtectedResource) async throws -> HTTPServer {
        guard let port16 = UInt16(exactly: port) else {
            throw McpError(.invalidParams, "port \(port) is not in 0...65535")
        }
        let config = options.value.jsonText
        let protection = try auth.native()
        let http = try await bridged {
            try await native.serveHttpAuth(host: host, port: port16, config: config, protection: protection)
        }
        return HTTPServer(http)
    }

    /// `serveHTTP` protected by bearer tokens: serves until the calling task is cancelled.
    public func serveHTTP(host: String = "127.0.0.1", port: Int = 0, options: HTTPOptions = .init(),
                          auth: ProtectedResource) async throws {
        let http = try await startHTTP(host: host, port: port, options: options, auth: auth)
        try await http.serveUntilCancelled()
    }
}

extension RequestContext {
    /// The verified bearer token's identity on a protected HTTP server; nil when the server is
    /// not protected.
    public var auth: AuthInfo? { AuthInfo((try? Value(json: native.auth())) ?? .null) }
}

/// Swift errors as the engine's: an `McpError` keeps its code, anything else is internal.
private func ffiError(_ error: any Error) -> FfiError {
    if let e = error as? McpError { return e.native }
    return McpError(.internalError, String(describing: error)).native
}

private final class RedirectBridge: RedirectStep {
    let body: @Sendable (String) async throws -> String
    init(_ body: @escaping @Sendable (String) async throws -> String) { self.body = body }
    func authorize(authorizationUrl: String) async throws -> String {
        do { return try await body(authorizationUrl) } catch { throw ffiError(error) }
    }
}

private final class OpenerBridge: BrowserOpener {
    let body: @Sendable (String) -> Void
    init(_ body: @escaping @Sendable (String) -> Void) { self.body = body }
    func show(url: String) { body(url) }
}

private final class StoreBridge: TokenStorage {
    let store: any TokenStore
    init(_ store: any TokenStore) { self.store = store }
    func load(key: String) throws -> String? {
        do { return try store.load(key: key)?.jsonText } catch { throw ffiError(error) }
    }
    func save(key: String, value: String) throws {
        do { try store.save(key: key, value: try Value(json: value)) } catch { throw ffiError(error) }
    }
    func remove(key: String) throws {
        do { try store.remove(key: key) } catch { throw ffiError(error) }
    }
}

private final class VerifierBridge: TokenVerifier {
    let body: @Sendable (String) async throws -> AuthInfo?
    init(_ body: @escaping @Sendable (String) async throws -> AuthInfo?) { self.body = body }
    func verify(token: String) async throws -> String? {
        do { return try await body(token)?.value.jsonText } catch { throw ffiError(error) }
    }
}
