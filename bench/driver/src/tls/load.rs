//! The TLS load: clients on one thread (a current-thread tokio runtime), each sending
//! `tools/call` of `echo` as a raw HTTP/1.1 POST and checking the answer. Either each client
//! keeps one connection (keep-alive) or each call opens a new connection (`Connection: close`)
//! with a resumed TLS session (rustls's in-memory client cache, shared by the clients) or a
//! full handshake every time (resumption off). A closed connection is reset (`SO_LINGER` 0) so
//! that the client's ports do not pile up in TIME_WAIT.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::client::Resumption;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// How connections are used.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// One connection per client, kept for every call.
    KeepAlive,
    /// A new connection per call; TLS sessions resumed.
    Resumed,
    /// A new connection per call; a full TLS handshake each time.
    Full,
}

/// What one load phase measured.
pub struct Outcome {
    /// Calls answered and checked.
    pub calls: u64,
    /// Wall time of the phase.
    pub elapsed: Duration,
    /// Median call latency (connect and handshake included for the per-call rows).
    pub p50: Duration,
    /// Handshakes that resumed a TLS session.
    pub resumed: u64,
    /// Handshakes made.
    pub handshakes: u64,
}

/// A TLS client configuration trusting `ca_pem`'s CA; `resume` keeps rustls's default session
/// cache (256 sessions, in memory), otherwise resumption is off.
pub fn connector(
    ca_pem: &std::path::Path,
    resume: bool,
) -> Result<tokio_rustls::TlsConnector, String> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca_pem).map_err(|e| format!("{ca_pem:?}: {e}"))? {
        roots
            .add(cert.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    if !resume {
        config.resumption = Resumption::disabled();
    }
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

fn request(port: u16, id: u64, close: bool) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}}}}}}"#
    );
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\n{}\r\n{body}",
        body.len(),
        if close { "Connection: close\r\n" } else { "" }
    )
    .into_bytes()
}

/// Sends one call on `io` and reads its answer (status 200, a Content-Length body holding the
/// echoed text and the call's id).
async fn call<S: AsyncRead + AsyncWrite + Unpin>(
    io: &mut S,
    buf: &mut Vec<u8>,
    port: u16,
    id: u64,
    close: bool,
) -> Result<(), String> {
    io.write_all(&request(port, id, close))
        .await
        .map_err(|e| format!("write: {e}"))?;
    buf.clear();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..end]).map_err(|e| e.to_string())?;
            if !head.starts_with("HTTP/1.1 200") {
                return Err(format!("answer: {}", head.lines().next().unwrap_or("")));
            }
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().ok())?
                })
                .ok_or("answer without Content-Length")?;
            while buf.len() < end + 4 + length {
                let n = io
                    .read(&mut chunk)
                    .await
                    .map_err(|e| format!("read: {e}"))?;
                if n == 0 {
                    return Err("closed mid-body".into());
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            let body = &buf[end + 4..end + 4 + length];
            let text = std::str::from_utf8(body).map_err(|e| e.to_string())?;
            if !text.contains("\"hello\"") || !text.contains(&format!("\"id\":{id}")) {
                return Err(format!("unexpected answer {text}"));
            }
            return Ok(());
        }
        let n = io
            .read(&mut chunk)
            .await
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("closed before the answer".into());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

struct Tally {
    resumed: AtomicU64,
    handshakes: AtomicU64,
}

/// One client: calls until `deadline`, returning each call's latency.
async fn client(
    port: u16,
    tls: Option<tokio_rustls::TlsConnector>,
    reuse: Reuse,
    deadline: Instant,
    tally: Arc<Tally>,
) -> Result<Vec<Duration>, String> {
    let name = ServerName::try_from("localhost").expect("a DNS name");
    let mut lat = Vec::new();
    let mut buf = Vec::with_capacity(4096);
    let connect = move || async move {
        let tcp = TcpStream::connect(("127.0.0.1", port))
            .await
            .map_err(|e| format!("connect: {e}"))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        Ok::<_, String>(tcp)
    };
    let mut id = 0u64;
    match (reuse, &tls) {
        (Reuse::KeepAlive, Some(tls)) => {
            let mut io = tls
                .connect(name.clone(), connect().await?)
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            while Instant::now() < deadline {
                id += 1;
                let t = Instant::now();
                call(&mut io, &mut buf, port, id, false).await?;
                lat.push(t.elapsed());
            }
        }
        (Reuse::KeepAlive, None) => {
            let mut io = connect().await?;
            while Instant::now() < deadline {
                id += 1;
                let t = Instant::now();
                call(&mut io, &mut buf, port, id, false).await?;
                lat.push(t.elapsed());
            }
        }
        (_, tls) => {
            while Instant::now() < deadline {
                id += 1;
                let t = Instant::now();
                let tcp = connect().await?;
                let _ = tcp.set_zero_linger();
                match tls {
                    Some(tls) => {
                        let mut io = tls
                            .connect(name.clone(), tcp)
                            .await
                            .map_err(|e| format!("handshake: {e}"))?;
                        call(&mut io, &mut buf, port, id, true).await?;
                        tally.handshakes.fetch_add(1, Ordering::Relaxed);
                        if io.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed) {
                            tally.resumed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    None => {
                        let mut io = tcp;
                        call(&mut io, &mut buf, port, id, true).await?;
                    }
                }
                lat.push(t.elapsed());
            }
        }
    }
    Ok(lat)
}

/// Runs `clients` clients against `port` for `secs` and reports what they measured.
pub fn run(
    port: u16,
    tls: Option<tokio_rustls::TlsConnector>,
    reuse: Reuse,
    clients: usize,
    secs: f64,
) -> Result<Outcome, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let tally = Arc::new(Tally {
            resumed: AtomicU64::new(0),
            handshakes: AtomicU64::new(0),
        });
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(secs);
        let tasks: Vec<_> = (0..clients)
            .map(|_| tokio::spawn(client(port, tls.clone(), reuse, deadline, tally.clone())))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.map_err(|e| e.to_string())??);
        }
        let elapsed = start.elapsed();
        all.sort();
        let p50 = all.get(all.len() / 2).copied().unwrap_or_default();
        Ok(Outcome {
            calls: all.len() as u64,
            elapsed,
            p50,
            resumed: tally.resumed.load(Ordering::Relaxed),
            handshakes: tally.handshakes.load(Ordering::Relaxed),
        })
    })
}
