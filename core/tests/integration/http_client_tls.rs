//! The HTTP client over `https://`: a TLS front written here (tokio-rustls) passes decrypted
//! connections to ferromcp's own `serve_http` server (or answers a JWKS itself). A client trusting
//! the test CA completes initialize and tools/call (ALPN `http/1.1`); without that root it fails
//! with rustls's unknown-issuer reason; a host name the certificate does not name fails too; a
//! bad extra root is a clear error; the JWT verifier fetches its JWKS over `https://`.
//!
//! The fixtures (test-only, never trusted anywhere else) were made once with OpenSSL 3.0:
//! ```text
//! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
//!   -out tls-test-ca.pem -days 36500 -subj "/CN=ferromcp test CA" \
//!   -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
//! openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key \
//!   -out leaf.csr -subj "/CN=localhost"
//! printf "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n\
//! extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost\n" > leaf.ext
//! openssl x509 -req -in leaf.csr -CA tls-test-ca.pem -CAkey ca.key -CAcreateserial \
//!   -out leaf.pem -days 36500 -extfile leaf.ext
//! cat leaf.pem leaf.key > tls-test-localhost.pem   # ca.key was thrown away
//! ```

#![cfg(feature = "http")]

use crate::common_http;
use common_http::*;
use ferromcp::auth::{JwtVerifier, TokenVerifier};
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::transport::http::{HttpClientOptions, HttpServerOptions};
use ferromcp::McpError;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn test_ca() -> String {
    fixture("tls-test-ca.pem")
}

/// What the TLS front does with a decrypted connection.
#[derive(Clone)]
enum Behind {
    /// Pipes it to this plain-HTTP server.
    Proxy(SocketAddr),
    /// Answers every request with this JSON body.
    Json(String),
}

/// A TLS server for `localhost` on a random port; records the ALPN protocol of each handshake.
async fn tls_front(behind: Behind) -> (u16, Arc<Mutex<Vec<Option<Vec<u8>>>>>) {
    let pem = fixture("tls-test-localhost.pem");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(pem.as_bytes()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let alpn = Arc::new(Mutex::new(Vec::new()));
    let seen = alpn.clone();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            let behind = behind.clone();
            let seen = seen.clone();
            tokio::spawn(async move {
                // A client refusing the certificate ends the handshake: nothing to serve.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                seen.lock()
                    .unwrap()
                    .push(tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec));
                match behind {
                    Behind::Proxy(addr) => {
                        let mut plain = TcpStream::connect(addr).await.unwrap();
                        let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                    }
                    Behind::Json(body) => {
                        let mut head = Vec::new();
                        let mut buf = [0u8; 1024];
                        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                            match tls.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => head.extend_from_slice(&buf[..n]),
                            }
                        }
                        let answer = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                             content-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = tls.write_all(answer.as_bytes()).await;
                        let _ = tls.shutdown().await;
                    }
                }
            });
        }
    });
    (port, alpn)
}

/// ferromcp's demo server over plain HTTP with the TLS front before it; the front's port.
async fn https_server() -> (
    ferromcp::transport::http::HttpServerHandle,
    u16,
    Arc<Mutex<Vec<Option<Vec<u8>>>>>,
) {
    // The front's port is not the server's: allow `localhost` on any port.
    let options = HttpServerOptions::default()
        .with_allowed_hosts(vec!["localhost".into(), "127.0.0.1".into()]);
    let (_server, handle, url) = start(options).await;
    let authority = url
        .strip_prefix("http://")
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let (port, alpn) = tls_front(Behind::Proxy(authority.parse().unwrap())).await;
    (handle, port, alpn)
}

async fn try_connect(
    url: &str,
    http: HttpClientOptions,
) -> Result<ferromcp::client::Client, McpError> {
    tokio::time::timeout(
        Duration::from_secs(20),
        connect(
            url,
            ClientOptions::new("tls-test", "1"),
            ClientHandlers::default(),
            http,
        ),
    )
    .await
    .expect("connect neither succeeded nor failed within 20 s")
}

#[tokio::test]
async fn client_trusting_the_test_ca_initializes_and_calls_a_tool() {
    let (handle, port, alpn) = https_server().await;
    let http = HttpClientOptions::default().root_certificate(test_ca());
    let client = try_connect(&format!("https://localhost:{port}/mcp"), http)
        .await
        .unwrap();
    assert!(client.session().negotiated().is_some());
    let r = client
        .call_tool("count", json!({"steps": 2}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "counted to 2"
    );
    client.close().await;
    let alpn = alpn.lock().unwrap().clone();
    assert!(!alpn.is_empty());
    assert!(
        alpn.iter().all(|p| p.as_deref() == Some(&b"http/1.1"[..])),
        "ALPN: {alpn:?}"
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn client_without_the_test_ca_refuses_the_certificate() {
    let (handle, port, _) = https_server().await;
    let err = try_connect(
        &format!("https://localhost:{port}/mcp"),
        HttpClientOptions::default(),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("TLS: handshake with localhost failed")
            && text.contains("invalid peer certificate")
            && text.contains("UnknownIssuer"),
        "{text}"
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_host_name_the_certificate_does_not_name_is_refused() {
    let (handle, port, _) = https_server().await;
    // The leaf names only `localhost`, not the address 127.0.0.1.
    let http = HttpClientOptions::default().root_certificate(test_ca());
    let err = try_connect(&format!("https://127.0.0.1:{port}/mcp"), http)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("TLS: handshake with 127.0.0.1 failed")
            && text.contains("not valid for name"),
        "{text}"
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_bad_extra_root_is_a_clear_error() {
    let http = HttpClientOptions::default().root_certificate("not a certificate");
    let err = try_connect("https://localhost:9/mcp", http)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("extra root certificate #0: no PEM CERTIFICATE block found"),
        "{err}"
    );
    let err = try_connect("ftp://localhost:9/mcp", HttpClientOptions::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("unsupported URL scheme"), "{err}");
}

#[tokio::test]
async fn jwt_verifier_fetches_its_jwks_over_https() {
    let key: Value = serde_json::from_str(&fixture("jwt-rsa-test-key.json")).unwrap();
    let jwks = json!({"keys": [{"kty": "RSA", "kid": key["kid"], "n": key["n"], "e": key["e"]}]});
    let tokens: Value = serde_json::from_str(&fixture("jwt-rsa-test-tokens.json")).unwrap();
    let good = tokens["good"].as_str().unwrap();
    let (port, _) = tls_front(Behind::Json(jwks.to_string())).await;
    let url = format!("https://localhost:{port}/jwks");
    let trusting = JwtVerifier::from_jwks_url(&url, "http://as.example", "http://mcp.example/mcp")
        .unwrap()
        .root_certificates(&[test_ca()]);
    let info = trusting.verify(good).await.unwrap();
    assert_eq!(info.subject.as_deref(), Some("alice"));
    let untrusting =
        JwtVerifier::from_jwks_url(&url, "http://as.example", "http://mcp.example/mcp").unwrap();
    let err = untrusting.verify(good).await.unwrap_err();
    assert!(err.contains("UnknownIssuer"), "{err}");
}
