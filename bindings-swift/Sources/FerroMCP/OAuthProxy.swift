// The OAuth proxy for `startHTTP` / `serveHTTP` (`HTTPOptions(oauthProxy: OAuthProxyOptions(...))`):
// the server is the OAuth authorization server its MCP clients register with (dynamic client
// registration, Client ID Metadata Documents) and sign in through, in front of an identity
// provider that has no dynamic registration (GitHub, Google, Entra ID, Auth0, any OpenID
// provider). Every rule of the endpoints is the engine's (`ferromcp::auth::OAuthProxy`,
// docs/oauth-proxy.md); these types only spell its `oauthProxy` options, the same keys as
// Node's `listen({ oauthProxy })` and Python's `serve_http(oauth_proxy=OAuthProxyConfig(...))`.

/// The upstream identity provider: a preset (`.github`, `.google`, `.entraID`, `.auth0`,
/// `.oidc`) or explicit endpoints (`.endpoints`), with the proxy's one pre-registered client.
/// Register `<issuer>/oauth/callback` as that client's redirect URI at the upstream.
public struct OAuthProxyUpstream: Sendable, Equatable {
    /// The engine's preset name (`github`, `google`, `entra`, `auth0`, `oidc`); nil: the
    /// endpoints are given.
    public var preset: String?
    /// The proxy's client id at the upstream.
    public var clientID: String
    /// The proxy's client secret at the upstream (required by the presets but `oidc`).
    public var clientSecret: String?
    /// The upstream authorization endpoint (without a preset, or replacing the preset's).
    public var authorizationEndpoint: String?
    /// The upstream token endpoint (without a preset, or replacing the preset's).
    public var tokenEndpoint: String?
    /// The upstream revocation endpoint, told when a client revokes its tokens.
    public var revocationEndpoint: String?
    /// `client_secret_post` (the engine's default) or `client_secret_basic`.
    public var authMethod: String?
    /// Scopes always asked of the upstream (replace the preset's).
    public var scopes: [String]?
    /// Extra parameters of the upstream authorization request.
    public var authorizeParams: [String: String]
    /// Entra ID tenant (`entra`).
    public var tenant: String?
    /// Auth0 domain (`auth0`).
    public var domain: String?
    /// OpenID issuer (`oidc`): the endpoints come from its discovery document, read when the
    /// server starts.
    public var issuer: String?
    /// Extra CA certificates (PEM text each) trusted for the upstream.
    public var rootCertificates: [String]

    /// An upstream described field by field (prefer the presets below).
    public init(preset: String? = nil, clientID: String, clientSecret: String? = nil,
                authorizationEndpoint: String? = nil, tokenEndpoint: String? = nil,
                revocationEndpoint: String? = nil, authMethod: String? = nil,
                scopes: [String]? = nil, authorizeParams: [String: String] = [:],
                tenant: String? = nil, domain: String? = nil, issuer: String? = nil,
                rootCertificates: [String] = []) {
        self.preset = preset
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.authMethod = authMethod
        self.scopes = scopes
        self.authorizeParams = authorizeParams
        self.tenant = tenant
        self.domain = domain
        self.issuer = issuer
        self.rootCertificates = rootCertificates
    }

    /// GitHub (an OAuth app or a GitHub App).
    public static func github(clientID: String, clientSecret: String) -> Self {
        .init(preset: "github", clientID: clientID, clientSecret: clientSecret)
    }

    /// Google (asks for offline access, so the proxy can refresh).
    public static func google(clientID: String, clientSecret: String) -> Self {
        .init(preset: "google", clientID: clientID, clientSecret: clientSecret)
    }

    /// Microsoft Entra ID, for a tenant (`common`, `organizations`, a tenant id or domain).
    public static func entraID(tenant: String, clientID: String, clientSecret: String) -> Self {
        .init(preset: "entra", clientID: clientID, clientSecret: clientSecret, tenant: tenant)
    }

    /// Auth0, for a domain (`example.eu.auth0.com`).
    public static func auth0(domain: String, clientID: String, clientSecret: String) -> Self {
        .init(preset: "auth0", clientID: clientID, clientSecret: clientSecret, domain: domain)
    }

    /// Any OpenID provider, by its issuer URL (discovery; the document's `issuer` must match).
    public static func oidc(issuer: String, clientID: String, clientSecret: String? = nil) -> Self {
        .init(preset: "oidc", clientID: clientID, clientSecret: clientSecret, issuer: issuer)
    }

    /// An OAuth 2 provider by its endpoints.
    public static func endpoints(authorization: String, token: String, clientID: String,
                                 clientSecret: String? = nil) -> Self {
        .init(clientID: clientID, clientSecret: clientSecret, authorizationEndpoint: authorization,
              tokenEndpoint: token)
    }

    var value: Value {
        var o: [String: Value] = ["clientId": .string(clientID)]
        o.set("preset", preset.map(Value.string))
        o.set("clientSecret", clientSecret.map(Value.string))
        o.set("authorizationEndpoint", authorizationEndpoint.map(Value.string))
        o.set("tokenEndpoint", tokenEndpoint.map(Value.string))
        o.set("revocationEndpoint", revocationEndpoint.map(Value.string))
        o.set("authMethod", authMethod.map(Value.string))
        o.set("scopes", scopes.map { .array($0.map(Value.string)) })
        if !authorizeParams.isEmpty { o["authorizeParams"] = .object(authorizeParams.mapValues(Value.string)) }
        o.set("tenant", tenant.map(Value.string))
        o.set("domain", domain.map(Value.string))
        o.set("issuer", issuer.map(Value.string))
        if !rootCertificates.isEmpty { o["rootCertificates"] = .array(rootCertificates.map(Value.string)) }
        return .object(o)
    }
}

/// How the proxy treats `https://` client ids, Client ID Metadata Documents (on by default with
/// the engine's limits; each property left nil keeps its default).
public struct ClientIDDocumentOptions: Sendable, Equatable {
    /// Accept `https://` client ids and advertise `client_id_metadata_document_supported`.
    public var enabled: Bool?
    /// Largest document read, in bytes (engine default 5120; at least 1).
    public var maxBytes: Int?
    /// Time allowed for resolving, connecting and reading a document (engine default 5 s).
    public var timeout: Duration?
    /// How long a document is reused when its answer has no `Cache-Control: max-age`
    /// (engine default 10 minutes).
    public var defaultCache: Duration?
    /// The longest a document is reused, whatever its `max-age` (engine default 24 hours).
    public var maxCache: Duration?
    /// Fetch documents from loopback and private addresses too. Tests only: a client could
    /// otherwise make the proxy reach its private network.
    public var allowPrivateAddresses: Bool?
    /// Extra CA certificates (PEM text each) trusted for the documents' servers (tests).
    public var rootCertificates: [String]?

    /// Options; every argument is optional.
    public init(enabled: Bool? = nil, maxBytes: Int? = nil, timeout: Duration? = nil,
                defaultCache: Duration? = nil, maxCache: Duration? = nil,
                allowPrivateAddresses: Bool? = nil, rootCertificates: [String]? = nil) {
        self.enabled = enabled
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.defaultCache = defaultCache
        self.maxCache = maxCache
        self.allowPrivateAddresses = allowPrivateAddresses
        self.rootCertificates = rootCertificates
    }

    var value: Value {
        var o: [String: Value] = [:]
        o.set("enabled", enabled.map(Value.bool))
        o.set("maxBytes", maxBytes.map(Value.int))
        o.set("timeoutSeconds", timeout.map { .double(Double($0.wholeMilliseconds) / 1000) })
        o.set("defaultCacheSeconds", defaultCache.map { .int($0.wholeSeconds) })
        o.set("maxCacheSeconds", maxCache.map { .int($0.wholeSeconds) })
        o.set("allowPrivateAddresses", allowPrivateAddresses.map(Value.bool))
        o.set("rootCertificates", rootCertificates.map { .array($0.map(Value.string)) })
        return .object(o)
    }
}

/// The OAuth proxy served by `startHTTP` / `serveHTTP` beside the MCP endpoint
/// (`HTTPOptions.oauthProxy`): its metadata (RFC 8414), `/register`, `/authorize` with the
/// consent page, `/oauth/callback`, `/token` and `/revoke`. The MCP endpoint then accepts the
/// proxy's tokens (checked in the engine), unless `startHTTP(auth:)` protects it otherwise;
/// handlers read the identity as `ctx.auth` (the upstream's subject, the client id, the scopes,
/// `claims["upstream_access_token"]`). Bad options make `startHTTP` throw
/// `McpError(.invalidParams)` before it listens.
public struct OAuthProxyOptions: Sendable, Equatable {
    /// The proxy's issuer (https, or http on a loopback host); its endpoints are served below
    /// it, so the server must be reachable there.
    public var issuerURL: String
    /// The MCP endpoint the issued tokens are for (their audience, RFC 8707).
    public var resourceURL: String
    /// The upstream identity provider.
    public var upstream: OAuthProxyUpstream
    /// Scopes offered (nil: any).
    public var scopesSupported: [String]?
    /// Scopes every request to the MCP endpoint needs: a proxy token without one of them is
    /// refused 403 `insufficient_scope`, the challenge listing them (checked in the engine);
    /// each must be one of `scopesSupported` when that is set.
    public var requiredScopes: [String]?
    /// Pass a client's scopes on to the upstream.
    public var forwardScopes: Bool?
    /// Show users a consent page per client (engine default true; read docs/oauth-proxy.md
    /// before turning it off).
    public var requireConsent: Bool?
    /// Offer dynamic client registration (engine default true).
    public var allowRegistration: Bool?
    /// Access token lifetime (engine default 1 hour).
    public var accessTokenTTL: Duration?
    /// Refresh token lifetime (engine default 30 days).
    public var refreshTokenTTL: Duration?
    /// Code and pending-authorization lifetime (engine default 5 minutes).
    public var codeTTL: Duration?
    /// Registration lifetime (engine default 90 days).
    public var clientTTL: Duration?
    /// Keep registrations, codes and tokens on this Redis, so that every replica given the same
    /// URL serves any leg of the flow (nil: `HTTPOptions.redisURL` when set, else memory).
    public var redisURL: String?
    /// Client ID Metadata Documents: turn them off or change their limits.
    public var clientIDDocuments: ClientIDDocumentOptions?

    /// Options; `issuerURL`, `resourceURL` and `upstream` are required.
    public init(issuerURL: String, resourceURL: String, upstream: OAuthProxyUpstream,
                scopesSupported: [String]? = nil, requiredScopes: [String]? = nil,
                forwardScopes: Bool? = nil, requireConsent: Bool? = nil, allowRegistration: Bool? = nil,
                accessTokenTTL: Duration? = nil, refreshTokenTTL: Duration? = nil,
                codeTTL: Duration? = nil, clientTTL: Duration? = nil, redisURL: String? = nil,
                clientIDDocuments: ClientIDDocumentOptions? = nil) {
        self.issuerURL = issuerURL
        self.resourceURL = resourceURL
        self.upstream = upstream
        self.scopesSupported = scopesSupported
        self.requiredScopes = requiredScopes
        self.forwardScopes = forwardScopes
        self.requireConsent = requireConsent
        self.allowRegistration = allowRegistration
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        self.codeTTL = codeTTL
        self.clientTTL = clientTTL
        self.redisURL = redisURL
        self.clientIDDocuments = clientIDDocuments
    }

    /// The engine's `OAuthProxySettings` JSON (only the keys set).
    var value: Value {
        var issuer = issuerURL
        while issuer.hasSuffix("/") { issuer.removeLast() }
        var o: [String: Value] = [
            "issuer": .string(issuer), "resource": .string(resourceURL), "upstream": upstream.value,
        ]
        o.set("scopesSupported", scopesSupported.map { .array($0.map(Value.string)) })
        o.set("requiredScopes", requiredScopes.map { .array($0.map(Value.string)) })
        o.set("forwardScopes", forwardScopes.map(Value.bool))
        o.set("requireConsent", requireConsent.map(Value.bool))
        o.set("allowRegistration", allowRegistration.map(Value.bool))
        o.set("accessTokenTtlSeconds", accessTokenTTL.map { .int($0.wholeSeconds) })
        o.set("refreshTokenTtlSeconds", refreshTokenTTL.map { .int($0.wholeSeconds) })
        o.set("codeTtlSeconds", codeTTL.map { .int($0.wholeSeconds) })
        o.set("clientTtlSeconds", clientTTL.map { .int($0.wholeSeconds) })
        o.set("redisUrl", redisURL.map(Value.string))
        o.set("clientIdDocuments", clientIDDocuments?.value)
        return .object(o)
    }
}

extension Duration {
    /// Whole seconds for the engine's `...Seconds` keys: rounded up from the milliseconds.
    var wholeSeconds: Int { (wholeMilliseconds + 999) / 1000 }
}
