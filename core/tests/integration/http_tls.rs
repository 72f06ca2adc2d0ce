//! `serve_http` over TLS ([`HttpServerOptions::tls`]): a test CA and certificates are made at
//! test time with the `openssl` command in a temporary directory. The engine's own HTTP client
//! trusting that CA initializes and calls a tool over `https://` (ALPN `http/1.1`); a plain-HTTP
//! client and a silent connection are closed without disturbing the server; a certificate
//! swapped on disk is served to the next connection (the served leaf is compared byte for byte
//! with the file's), while a broken file keeps the previous one; files that do not load are an
//! error at start naming the file. TLS 1.2 and 1.3 are served with ALPN `http/1.1` only; a
//! client certificate is the principal handlers and the per-tool authorization see.

#![cfg(feature = "http")]

use crate::common_http;
use common_http::*;
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::transport::http::{
    HttpClientOptions, HttpServerHandle, HttpServerOptions, PemSource, TlsOptions,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A fresh temporary directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Self {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("ferromcp-tls-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn openssl(dir: &Dir, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(&dir.0)
        .output()
        .expect("the openssl command runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes `<name>.pem` and `<name>.key`: a self-signed CA.
fn make_ca(dir: &Dir, name: &str, cn: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.pem"),
            "-days",
            "2",
            "-subj",
            &format!("/CN={cn}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
}

/// Makes `<name>.pem` and `<name>.key`: a leaf for `cn` signed by the CA `ca`, with this
/// serial; `usage` is `serverAuth` (then named `localhost` and 127.0.0.1) or `clientAuth`.
fn make_leaf(dir: &Dir, ca: &str, name: &str, cn: &str, serial: u32, usage: &str) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
            "-subj",
            &format!("/CN={cn}"),
        ],
    );
    let san = if usage == "serverAuth" {
        "DNS:localhost,IP:127.0.0.1".to_string()
    } else {
        format!("DNS:{cn}")
    };
    std::fs::write(
        dir.path(&format!("{name}.ext")),
        format!(
            "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n\
             extendedKeyUsage={usage}\nsubjectAltName={san}\n"
        ),
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            &format!("{ca}.pem"),
            "-CAkey",
            &format!("{ca}.key"),
            "-set_serial",
            &serial.to_string(),
            "-out",
            &format!("{name}.pem"),
            "-days",
            "2",
            "-extfile",
            &format!("{name}.ext"),
        ],
    );
}

fn leaf_der(path: &Path) -> Vec<u8> {
    CertificateDer::pem_file_iter(path)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .to_vec()
}

/// Makes `<name>.pem` and `<name>.key`: a client certificate signed by the CA `ca` that was
/// valid only on 1 January 2020 (`openssl ca`, which can set the dates).
fn make_expired_client(dir: &Dir, ca: &str, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
            "-subj",
            &format!("/CN={name}"),
        ],
    );
    std::fs::write(dir.path("index.txt"), "").unwrap();
    std::fs::write(dir.path("serial"), "0A\n").unwrap();
    std::fs::write(
        dir.path("ca.cnf"),
        "[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n\
         default_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n",
    )
    .unwrap();
    std::fs::write(
        dir.path(&format!("{name}.ext")),
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n\
         extendedKeyUsage=clientAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "ca",
            "-config",
            "ca.cnf",
            "-batch",
            "-notext",
            "-cert",
            &format!("{ca}.pem"),
            "-keyfile",
            &format!("{ca}.key"),
            "-in",
            &format!("{name}.csr"),
            "-out",
            &format!("{name}.pem"),
            "-startdate",
            "20200101000000Z",
            "-enddate",
            "20200102000000Z",
            "-extfile",
            &format!("{name}.ext"),
        ],
    );
}

/// A CA and a server certificate (`server.pem`, `server.key`, serial 1) in a fresh directory.
fn pki(tag: &str) -> Dir {
    let dir = Dir::new(tag);
    make_ca(&dir, "ca", "ferromcp test CA");
    make_leaf(
        &dir,
        "ca",
        "server",
        "ferromcp test server one",
        1,
        "serverAuth",
    );
    dir
}

async fn start_tls(dir: &Dir, tweak: impl FnOnce(&mut HttpServerOptions)) -> HttpServerHandle {
    let mut options = HttpServerOptions::default().with_tls(Some(TlsOptions::from_files(
        dir.path("server.pem"),
        dir.path("server.key"),
    )));
    tweak(&mut options);
    let (_server, handle, _) = start(options).await;
    handle
}

fn https_url(handle: &HttpServerHandle) -> String {
    format!("https://localhost:{}/mcp", handle.local_addr().port())
}

async fn https_client(url: &str, ca_pem: String) -> ferromcp::client::Client {
    tokio::time::timeout(
        Duration::from_secs(20),
        connect(
            url,
            ClientOptions::new("tls-test", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default().root_certificate(ca_pem),
        ),
    )
    .await
    .expect("connect within 20 s")
    .expect("connects over https")
}

async fn count_to_2(client: &ferromcp::client::Client) {
    let r = client
        .call_tool("count", json!({"steps": 2}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "counted to 2"
    );
}

/// Handshakes with the server trusting `ca`, and returns the leaf certificate it served and
/// the ALPN protocol agreed.
async fn served_leaf(port: u16, ca: &Path) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let conn = tls.get_ref().1;
    (
        conn.peer_certificates().unwrap()[0].to_vec(),
        conn.alpn_protocol().map(<[u8]>::to_vec),
    )
}

#[tokio::test]
async fn an_https_client_trusting_the_test_ca_calls_a_tool() {
    let dir = pki("call");
    let handle = start_tls(&dir, |_| {}).await;
    assert!(handle.url("/mcp").starts_with("https://127.0.0.1:"));
    let ca = std::fs::read_to_string(dir.path("ca.pem")).unwrap();
    let client = https_client(&https_url(&handle), ca).await;
    assert!(client.session().negotiated().is_some());
    count_to_2(&client).await;
    client.close().await;
    let (leaf, alpn) = served_leaf(handle.local_addr().port(), &dir.path("ca.pem")).await;
    assert_eq!(leaf, leaf_der(&dir.path("server.pem")));
    assert_eq!(alpn.as_deref(), Some(&b"http/1.1"[..]));
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn pem_bytes_serve_as_well_as_files() {
    let dir = pki("bytes");
    let cert = std::fs::read(dir.path("server.pem")).unwrap();
    let key = std::fs::read(dir.path("server.key")).unwrap();
    let options = HttpServerOptions::default().with_tls(Some(TlsOptions::from_pem(cert, key)));
    let (_server, handle, _) = start(options).await;
    let ca = std::fs::read_to_string(dir.path("ca.pem")).unwrap();
    let client = https_client(&https_url(&handle), ca).await;
    count_to_2(&client).await;
    client.close().await;
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_plain_http_client_is_closed_and_the_server_keeps_serving() {
    let dir = pki("plain");
    let handle = start_tls(&dir, |o| o.header_read_timeout = Duration::from_millis(500)).await;
    let port = handle.local_addr().port();
    // A plain HTTP request: the handshake fails on its first byte; the connection closes at
    // once with at most a TLS alert, never an HTTP answer.
    let mut tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-length: 2\r\n\r\n{}")
        .await
        .unwrap();
    let started = Instant::now();
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut got))
        .await
        .expect("closed within 5 s")
        .ok();
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !got.starts_with(b"HTTP/"),
        "{:?}",
        String::from_utf8_lossy(&got)
    );
    // The engine's plain-HTTP client gets a clear error too.
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        connect(
            &format!("http://localhost:{port}/mcp"),
            ClientOptions::new("plain", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        ),
    )
    .await
    .expect("fails within 20 s");
    assert!(r.is_err());
    // A connection that says nothing is closed after the handshake's time.
    let mut silent = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let started = Instant::now();
    let n = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut [0u8; 64]))
        .await
        .expect("closed within 5 s")
        .unwrap_or(0);
    assert_eq!(n, 0);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(450) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    // Meanwhile and after, https clients are served.
    let ca = std::fs::read_to_string(dir.path("ca.pem")).unwrap();
    let client = https_client(&https_url(&handle), ca).await;
    count_to_2(&client).await;
    client.close().await;
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_certificate_swapped_on_disk_is_served_to_the_next_connection() {
    let dir = pki("swap");
    let handle = start_tls(&dir, |o| {
        o.tls.as_mut().unwrap().reload_interval = Duration::from_millis(100);
    })
    .await;
    let port = handle.local_addr().port();
    let ca_path = dir.path("ca.pem");
    let ca = std::fs::read_to_string(&ca_path).unwrap();
    let one = leaf_der(&dir.path("server.pem"));
    assert_eq!(served_leaf(port, &ca_path).await.0, one);
    // A client connected before the swap.
    let before = https_client(&https_url(&handle), ca.clone()).await;

    // A new pair written beside, then moved over the old files (as certbot and friends do).
    make_leaf(
        &dir,
        "ca",
        "next",
        "ferromcp test server two",
        2,
        "serverAuth",
    );
    let two = leaf_der(&dir.path("next.pem"));
    assert_ne!(one, two);
    std::fs::rename(dir.path("next.key"), dir.path("server.key")).unwrap();
    std::fs::rename(dir.path("next.pem"), dir.path("server.pem")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if served_leaf(port, &ca_path).await.0 == two {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new certificate was not served within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The connection opened before still works; new clients work.
    count_to_2(&before).await;
    before.close().await;
    let after = https_client(&https_url(&handle), ca.clone()).await;
    count_to_2(&after).await;
    after.close().await;

    // A broken file is not served: the previous certificate stays.
    std::fs::write(
        dir.path("server.pem"),
        b"-----BEGIN CERTIFICATE-----\nbroken\n",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(served_leaf(port, &ca_path).await.0, two);
    // Nor a certificate with another pair's key.
    make_leaf(
        &dir,
        "ca",
        "third",
        "ferromcp test server three",
        3,
        "serverAuth",
    );
    std::fs::copy(dir.path("third.pem"), dir.path("server.pem")).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(served_leaf(port, &ca_path).await.0, two);
    // Its own key completes it.
    std::fs::copy(dir.path("third.key"), dir.path("server.key")).unwrap();
    let three = leaf_der(&dir.path("third.pem"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while served_leaf(port, &ca_path).await.0 != three {
        assert!(
            Instant::now() < deadline,
            "the third certificate was not served within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn files_that_do_not_load_are_an_error_at_start_naming_them() {
    let dir = pki("bad");
    let server = demo_server();
    let missing = HttpServerOptions::default().with_tls(Some(TlsOptions::from_files(
        dir.path("nope.pem"),
        dir.path("server.key"),
    )));
    let err = ferromcp::transport::http::serve_http(server.clone(), "127.0.0.1:0", missing)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("nope.pem"), "{err}");
    make_leaf(&dir, "ca", "other", "other", 9, "serverAuth");
    let mismatched = HttpServerOptions::default().with_tls(Some(
        TlsOptions::from_files(dir.path("server.pem"), dir.path("server.key"))
            .with_private_key(PemSource::File(dir.path("other.key"))),
    ));
    let err = ferromcp::transport::http::serve_http(server, "127.0.0.1:0", mismatched)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("other.key") && err.to_string().contains("key"),
        "{err}"
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// A stateless JSON server whose `whoami` tool answers with the identity handlers see.
async fn whoami_server(dir: &Dir, required: bool) -> HttpServerHandle {
    whoami_server_at(dir, required, 0, |_| {}).await
}

/// [`whoami_server`] on `port`, its options changed by `tweak`.
async fn whoami_server_at(
    dir: &Dir,
    required: bool,
    port: u16,
    tweak: impl FnOnce(&mut HttpServerOptions),
) -> HttpServerHandle {
    let server = ferromcp::server::Server::builder("mtls", "1.0")
        .tool("whoami", "Identity", |_: NoArgs, ctx| async move {
            match ctx.auth() {
                Some(a) => json!({"subject": a.subject, "claims": a.claims}).to_string(),
                None => "anonymous".to_string(),
            }
        })
        .build()
        .unwrap();
    let mut options = HttpServerOptions::default()
        .with_stateless(true)
        .with_json_response(true)
        .with_tls(Some(
            TlsOptions::from_files(dir.path("server.pem"), dir.path("server.key"))
                .client_certificates(PemSource::File(dir.path("clients.pem")), required),
        ));
    tweak(&mut options);
    ferromcp::transport::http::serve_http(server, ("127.0.0.1", port), options)
        .await
        .unwrap()
}

/// A CA and server certificate, a clients' CA with `alice` (and a SAN), and a rogue CA with
/// `mallory`.
fn mtls_pki(tag: &str) -> Dir {
    let dir = pki(tag);
    make_ca(&dir, "clients", "ferromcp test clients CA");
    make_leaf(&dir, "clients", "alice", "alice", 7, "clientAuth");
    make_ca(&dir, "rogue", "ferromcp rogue CA");
    make_leaf(&dir, "rogue", "mallory", "mallory", 8, "clientAuth");
    make_expired_client(&dir, "clients", "old");
    dir
}

/// Calls `whoami` over TLS presenting `client` (`<name>.pem`/`.key`) or no certificate; the
/// HTTP answer's body, or the error that ended the exchange.
async fn whoami_as(port: u16, dir: &Dir, client: Option<&str>) -> Result<String, String> {
    whoami_with(port, dir, client, "").await
}

/// [`whoami_as`] with `extra` header lines (each ending in CRLF).
async fn whoami_with(
    port: u16,
    dir: &Dir,
    client: Option<&str>,
    extra: &str,
) -> Result<String, String> {
    let v = call_with(port, dir, client, extra, "whoami").await?;
    Ok(v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// Calls `tool` over TLS presenting `client` or no certificate, with `extra` header lines;
/// the JSON-RPC answer, or the error that ended the exchange.
async fn call_with(
    port: u16,
    dir: &Dir,
    client: Option<&str>,
    extra: &str,
    tool: &str,
) -> Result<serde_json::Value, String> {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(dir.path("ca.pem")).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match client {
        None => builder.with_no_client_auth(),
        Some(name) => {
            let chain = CertificateDer::pem_file_iter(dir.path(&format!("{name}.pem")))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            let key =
                rustls::pki_types::PrivateKeyDer::from_pem_file(dir.path(&format!("{name}.key")))
                    .unwrap();
            builder.with_client_auth_cert(chain, key).unwrap()
        }
    };
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .map_err(|e| e.to_string())?;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost:{port}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n\
         {extra}connection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    // With TLS 1.3 the server judges the client's certificate after the client's handshake
    // ends: a refusal shows as the first write or read failing.
    tls.write_all(format!("{head}{body}").as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut got))
        .await
        .expect("answered within 10 s")
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8(got).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let body = text
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
}

#[tokio::test]
async fn a_client_certificate_is_the_principal_handlers_see() {
    let dir = mtls_pki("mtls-id");
    let handle = whoami_server(&dir, true).await;
    let port = handle.local_addr().port();
    let text = whoami_as(port, &dir, Some("alice")).await.unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["subject"], "alice", "{v}");
    let cert = &v["claims"]["clientCertificate"];
    assert_eq!(cert["subject"], "CN=alice", "{v}");
    assert_eq!(cert["dnsNames"], json!(["alice"]), "{v}");
    assert_eq!(cert["serialNumber"], "07", "{v}");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn required_client_certificates_refuse_none_expired_and_other_cas_at_the_handshake() {
    let dir = mtls_pki("mtls-req");
    let handle = whoami_server(&dir, true).await;
    let port = handle.local_addr().port();
    let none = whoami_as(port, &dir, None).await.unwrap_err();
    assert!(
        none.contains("CertificateRequired") || none.contains("alert"),
        "{none}"
    );
    let rogue = whoami_as(port, &dir, Some("mallory")).await.unwrap_err();
    assert!(
        rogue.contains("UnknownCA") || rogue.contains("BadCertificate"),
        "{rogue}"
    );
    let expired = whoami_as(port, &dir, Some("old")).await.unwrap_err();
    assert!(expired.contains("CertificateExpired"), "{expired}");
    // Still serving the holder of a good certificate.
    assert!(whoami_as(port, &dir, Some("alice"))
        .await
        .unwrap()
        .contains("alice"));
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn optional_client_certificates_serve_clients_without_one_anonymously() {
    let dir = mtls_pki("mtls-opt");
    let handle = whoami_server(&dir, false).await;
    let port = handle.local_addr().port();
    assert_eq!(whoami_as(port, &dir, None).await.unwrap(), "anonymous");
    assert!(whoami_as(port, &dir, Some("alice"))
        .await
        .unwrap()
        .contains("CN=alice"));
    // A certificate presented must still verify.
    let rogue = whoami_as(port, &dir, Some("mallory")).await.unwrap_err();
    assert!(
        rogue.contains("UnknownCA") || rogue.contains("BadCertificate"),
        "{rogue}"
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn with_oauth_the_token_stays_the_principal_and_the_certificate_is_beside_it() {
    use ferromcp::auth::{AuthInfo, ResourceAuth};
    let dir = mtls_pki("mtls-oauth");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let resource = format!("https://localhost:{port}/mcp");
    let aud = resource.clone();
    let verifier =
        move |token: &str| -> futures_util::future::BoxFuture<'static, Result<AuthInfo, String>> {
            let (token, aud) = (token.to_string(), aud.clone());
            Box::pin(async move {
                if token != "good" {
                    return Err("unknown token".into());
                }
                Ok({
                    let mut lit = AuthInfo::default();
                    lit.subject = Some("token-user".into());
                    lit.audience = vec![aud];
                    lit.claims = json!({"tenant": "t1"});
                    lit
                })
            })
        };
    let auth = ResourceAuth::new(
        &resource,
        vec!["https://as.example".into()],
        Arc::new(verifier),
    );
    let handle = whoami_server_at(&dir, true, port, |o| o.auth = Some(Arc::new(auth))).await;
    let text = whoami_with(port, &dir, Some("alice"), "authorization: Bearer good\r\n")
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["subject"], "token-user", "{v}");
    assert_eq!(v["claims"]["tenant"], "t1", "{v}");
    assert_eq!(
        v["claims"]["clientCertificate"]["subject"], "CN=alice",
        "{v}"
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_certificate_principal_drives_per_tool_authorization() {
    use ferromcp::server::authorization::{Authorization, ItemKind};
    let dir = mtls_pki("mtls-authz");
    // Only alice's certificate may see and call `admin`; everyone may call `whoami`.
    let policy = Authorization::new().allow_if(|a| {
        a.kind != ItemKind::Tool
            || a.name != "admin"
            || a.principal
                .and_then(|p| p.subject.as_deref())
                .is_some_and(|s| s == "alice")
    });
    let server = ferromcp::server::Server::builder("mtls-authz", "1.0")
        .tool("whoami", "Identity", |_: NoArgs, ctx| async move {
            ctx.auth()
                .and_then(|a| a.subject.clone())
                .unwrap_or_else(|| "anonymous".into())
        })
        .tool("admin", "Alice only", |_: NoArgs, _ctx| async move {
            "admin ran".to_string()
        })
        .middleware(policy)
        .build()
        .unwrap();
    let options = HttpServerOptions::default()
        .with_stateless(true)
        .with_json_response(true)
        .with_tls(Some(
            TlsOptions::from_files(dir.path("server.pem"), dir.path("server.key"))
                .client_certificates(PemSource::File(dir.path("clients.pem")), false),
        ));
    let handle = ferromcp::transport::http::serve_http(server, ("127.0.0.1", 0), options)
        .await
        .unwrap();
    let port = handle.local_addr().port();
    let text = |v: &serde_json::Value| v["result"]["content"][0]["text"].clone();
    let alice = call_with(port, &dir, Some("alice"), "", "admin")
        .await
        .unwrap();
    assert_eq!(text(&alice), "admin ran", "{alice}");
    // Without a certificate (allowed: optional) the tool is hidden, answered as a missing one.
    let anonymous = call_with(port, &dir, None, "", "admin").await.unwrap();
    assert_eq!(anonymous["error"]["code"], -32602, "{anonymous}");
    assert!(
        anonymous["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("admin")),
        "{anonymous}"
    );
    let whoami = call_with(port, &dir, None, "", "whoami").await.unwrap();
    assert_eq!(text(&whoami), "anonymous", "{whoami}");
    handle.shutdown().await.unwrap();
}

/// Handshakes trusting the test CA with only `versions` and offering `alpn`; the version and
/// ALPN protocol agreed, or the handshake's error.
async fn handshake(
    port: u16,
    ca: &Path,
    versions: &[&'static rustls::SupportedProtocolVersion],
    alpn: &[&[u8]],
) -> Result<(rustls::ProtocolVersion, Option<Vec<u8>>), String> {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .map_err(|e| e.to_string())?;
    // With TLS 1.3 a refusal after the client's handshake shows on the first read.
    let head =
        format!("GET /healthz HTTP/1.1\r\nhost: localhost:{port}\r\nconnection: close\r\n\r\n");
    tls.write_all(head.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut got = Vec::new();
    tls.read_to_end(&mut got).await.map_err(|e| e.to_string())?;
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    let conn = tls.get_ref().1;
    Ok((
        conn.protocol_version().unwrap(),
        conn.alpn_protocol().map(<[u8]>::to_vec),
    ))
}

#[tokio::test]
async fn tls_1_2_and_1_3_are_served_with_alpn_http_1_1_only() {
    let dir = pki("versions");
    let handle = start_tls(&dir, |_| {}).await;
    let port = handle.local_addr().port();
    let ca = dir.path("ca.pem");
    let h1: &[&[u8]] = &[b"http/1.1"];
    let v12 = handshake(port, &ca, &[&rustls::version::TLS12], h1).await;
    assert_eq!(
        v12,
        Ok((rustls::ProtocolVersion::TLSv1_2, Some(b"http/1.1".to_vec())))
    );
    let v13 = handshake(port, &ca, &[&rustls::version::TLS13], h1).await;
    assert_eq!(
        v13,
        Ok((rustls::ProtocolVersion::TLSv1_3, Some(b"http/1.1".to_vec())))
    );
    // A client offering h2 and http/1.1 gets http/1.1; one without ALPN is served.
    let both = handshake(port, &ca, &[&rustls::version::TLS13], &[b"h2", b"http/1.1"]).await;
    assert_eq!(both.map(|(_, a)| a), Ok(Some(b"http/1.1".to_vec())));
    let none = handshake(port, &ca, &[&rustls::version::TLS13], &[]).await;
    assert_eq!(none.map(|(_, a)| a), Ok(None));
    // A client offering only h2 is refused at the handshake.
    let h2 = handshake(port, &ca, &[&rustls::version::TLS13], &[b"h2"]).await;
    assert!(
        h2.as_ref()
            .is_err_and(|e| e.contains("NoApplicationProtocol")),
        "{h2:?}"
    );
    // The server keeps serving.
    assert!(handshake(port, &ca, &[&rustls::version::TLS13], h1)
        .await
        .is_ok());
    handle.shutdown().await.unwrap();
}
