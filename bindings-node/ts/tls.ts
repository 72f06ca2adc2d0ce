/**
 * TLS for {@link McpServer.listen} (`listen({ tls })`): the server's certificate and key, and
 * optionally the CA that client certificates must chain to (mutual TLS). The engine serves
 * `https://` with rustls; the keys are the engine's `tls` object (docs/tls.md), the same in
 * Python (`TLS`) and Swift (`TLSOptions`). A client certificate's identity is the request's
 * `ctx.auth` (`extra.authInfo` for SDK-style handlers).
 * @module
 */

/** PEM text, as a string or the bytes of one. */
export type Pem = string | Uint8Array;

/**
 * Serve `https://`. Give the certificate chain as `certPath` (a PEM file, read again when it
 * changes so a renewed certificate is served to the next connection) or `certPem`, and its key
 * as `keyPath` or `keyPem` (PKCS#8, PKCS#1 or SEC1). Both of a pair, or neither, is refused.
 */
export interface TlsOptions {
  /** The certificate chain (leaf first) as a PEM file. */
  certPath?: string;
  /** The certificate chain as PEM text. */
  certPem?: Pem;
  /** The private key as a PEM file. */
  keyPath?: string;
  /** The private key as PEM text. */
  keyPem?: Pem;
  /**
   * Ask clients for a certificate verified against this CA bundle (a PEM file). Its identity
   * is then `ctx.auth`: `subject` (the common name, else the first SAN) and
   * `claims.clientCertificate` (`subject`, `commonName`, `dnsNames`, `emails`, `uris`,
   * `ipAddresses`, `serialNumber`).
   */
  clientCaPath?: string;
  /** The client CA bundle as PEM text. */
  clientCaPem?: Pem;
  /**
   * With a client CA: `true` (the default) refuses a client without a valid certificate at
   * the handshake; `false` serves it without identity (one it presents must still verify).
   */
  clientCertRequired?: boolean;
  /** How often the certificate files are checked for changes (ms, default 5000). */
  reloadIntervalMs?: number;
}

/** PEM text from a string or its bytes. */
function pemText(v: Pem): string {
  return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1') : v;
}

/** The engine's `tls` object: PEM bytes as text; the engine checks the rest. */
export function tlsConfig(tls: TlsOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { ...tls };
  for (const key of ['certPem', 'keyPem', 'clientCaPem'] as const) {
    const v = tls[key];
    if (v !== undefined) out[key] = pemText(v);
  }
  return out;
}

/**
 * `Client.http(url, { rootCertificates })`: the CA certificates a client trusts for `https://`
 * beside Mozilla's roots (e.g. a private CA's), as the engine takes them (PEM text each; a
 * string or the bytes of one may hold several certificates). Verification stays on: a server
 * whose chain reaches none of these nor Mozilla's roots is refused at the handshake.
 */
export function rootCertificatesConfig(roots: readonly Pem[]): string[] {
  if (!Array.isArray(roots)) throw new TypeError('rootCertificates must be an array of PEM strings or bytes');
  return roots.map((r, i) => {
    if (typeof r !== 'string' && !(r instanceof Uint8Array)) {
      throw new TypeError(`rootCertificates[${i}] must be PEM text (a string) or its bytes (Uint8Array), not ${r === null ? 'null' : typeof r}`);
    }
    return pemText(r);
  });
}
