// Client.http(url:rootCertificates:): ferromcp's Swift client trusting a private CA for
// https:// beside Mozilla's roots (the engine's client TLS, rustls; verification stays on). The
// counterpart of Python's `Client.http(url, root_certificates=[...])` and Node's
// `Client.http(url, { rootCertificates })`.

import FerroMCPNative
import Foundation

extension Client {
    /// Connects to a Streamable HTTP endpoint over `https://` whose certificate chains to one of
    /// `rootCertificates` (e.g. a private CA) or to Mozilla's roots, with OAuth 2.1 when `auth`
    /// is given (see `http(url:headers:legacyFallback:auth:options:)`).
    ///
    /// - Parameters:
    ///   - rootCertificates: CA certificates to trust, each a PEM file (`.file(path)`, read now)
    ///     or PEM text (`.pem(text)`); one PEM may hold several certificates.
    /// - Throws: `McpError` (invalid params) when a file cannot be read; `McpError` with
    ///   `isTransportError` when a root is not a certificate, when the server's certificate
    ///   chains to none of the trusted roots, or when the server cannot be reached.
    public static func http(url: String, headers: [String: String] = [:], legacyFallback: Bool = true,
                            rootCertificates: [PEMSource], auth: OAuth? = nil,
                            options: ClientOptions = .init()) async throws -> Client {
        let fields = headers.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) }
        let roots = try rootCertificates.map { source -> String in
            switch source {
            case .pem(let text): return text
            case .file(let path):
                do {
                    return try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    throw McpError(.invalidParams, "rootCertificates: cannot read \(path): \(error.localizedDescription)")
                }
            }
        }
        let oauth = try auth?.native()
        return try await connect(options) { config, handler in
            try await NativeClient.httpWithRoots(url: url, headers: fields, legacyFallback: legacyFallback,
                                                 rootCertificates: roots, auth: oauth, config: config,
                                                 handler: handler)
        }
    }
}
