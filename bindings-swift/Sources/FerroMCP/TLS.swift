// TLS for `startHTTP` / `serveHTTP` (`HTTPOptions(tls: TLSOptions(...))`): the server itself
// serves `https://` (rustls in the engine), optionally asking clients for a certificate
// verified against a CA bundle (mutual TLS); the certificate's identity is then `ctx.auth`.
// The keys are the engine's `tls` object (docs/tls.md), the same as Python's `TLS` and Node's
// `listen({ tls })`.

/// Where a PEM comes from: a file (read at start; the certificate and key files are read again
/// when they change) or the PEM text itself.
public enum PEMSource: Sendable, Equatable {
    /// A PEM file's path.
    case file(String)
    /// PEM text.
    case pem(String)

    fileprivate func put(_ key: String, into o: inout [String: Value]) {
        switch self {
        case .file(let path): o["\(key)Path"] = .string(path)
        case .pem(let text): o["\(key)Pem"] = .string(text)
        }
    }
}

/// Serve `https://` with this certificate chain (leaf first) and key (PKCS#8, PKCS#1 or SEC1).
/// A chain or key that does not load, or a key that is not the certificate's, makes
/// `startHTTP` throw `McpError(.internalError)` naming the file, before it listens.
public struct TLSOptions: Sendable, Equatable {
    /// The certificate chain.
    public var certificate: PEMSource
    /// Its private key.
    public var privateKey: PEMSource
    /// Ask clients for a certificate verified against this CA bundle. Its identity is then the
    /// request's `ctx.auth`: `subject` (the common name, else the first SAN) and
    /// `claims["clientCertificate"]` (`subject`, `commonName`, `dnsNames`, `emails`, `uris`,
    /// `ipAddresses`, `serialNumber`).
    public var clientCA: PEMSource?
    /// With `clientCA`: `true` (the engine's default) refuses a client without a valid
    /// certificate at the handshake; `false` serves it without identity. Without `clientCA`
    /// the engine refuses it (invalid params).
    public var clientCertificateRequired: Bool?
    /// How often the certificate files are checked for changes (engine default 5 s).
    public var reloadInterval: Duration?

    /// TLS options; every argument is described on its property.
    public init(certificate: PEMSource, privateKey: PEMSource, clientCA: PEMSource? = nil,
                clientCertificateRequired: Bool? = nil, reloadInterval: Duration? = nil) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.clientCA = clientCA
        self.clientCertificateRequired = clientCertificateRequired
        self.reloadInterval = reloadInterval
    }

    /// The engine's `tls` object.
    var value: Value {
        var o: [String: Value] = [:]
        certificate.put("cert", into: &o)
        privateKey.put("key", into: &o)
        clientCA?.put("clientCa", into: &o)
        o.set("clientCertRequired", clientCertificateRequired.map(Value.bool))
        o.set("reloadIntervalMs", reloadInterval.map { .int($0.wholeMilliseconds) })
        return .object(o)
    }
}

extension HTTPOptions {
    /// The engine's configuration for an `HTTPHandler` mounted in an app: that app's server owns
    /// the connections, so `tls` there is refused (invalid params) rather than ignored.
    func handlerValue() throws -> Value {
        if tls != nil {
            throw McpError(.invalidParams, "httpHandler: tls belongs to the server that owns the connections; see startHTTP")
        }
        return value
    }
}
