//! Client ID metadata documents: a client signs in with a document instead of registering; the
//! documents are fetched safely (https, no private addresses unless allowed, bounded) and checked.

use super::*;

/// What a client's document server answers at a path.
#[derive(Clone)]
enum Doc {
    /// Status, extra header lines and body; `{self}` in the body is replaced by the
    /// document's own URL.
    Answer(u16, &'static str, String),
    /// Never answers.
    Hang,
}

/// An `https://localhost` server (the test CA's certificate) answering documents by path; its
/// port and the number of requests it read.
async fn document_server(docs: HashMap<&'static str, Doc>) -> (u16, Arc<Mutex<u32>>) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let pem = fixture("tls-test-localhost.pem");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(pem.as_bytes()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(Mutex::new(0));
    let seen = hits.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, docs, seen) = (acceptor.clone(), docs.clone(), seen.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                *seen.lock().unwrap() += 1;
                let head = String::from_utf8_lossy(&head).to_string();
                let path = head.split(' ').nth(1).unwrap_or("").to_string();
                match docs.get(path.as_str()) {
                    Some(Doc::Hang) => {
                        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                    }
                    Some(Doc::Answer(status, headers, body)) => {
                        let body =
                            body.replace("{self}", &format!("https://localhost:{port}{path}"));
                        let answer = format!(
                            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{headers}\
                             content-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = tls.write_all(answer.as_bytes()).await;
                    }
                    None => {
                        let _ = tls
                            .write_all(
                                b"HTTP/1.1 404 X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                            )
                            .await;
                    }
                }
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, hits)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A proxy (with consent) trusting the test CA for documents, which may fetch them from this
/// machine when `allow_private` (the default policy refuses loopback addresses).
async fn document_harness(allow_private: bool) -> Harness {
    let h = harness(true).await;
    let mut config = h.proxy.config().clone();
    config.client_id_documents.allow_private_addresses = allow_private;
    config.client_id_documents.root_certificates = vec![fixture("tls-test-ca.pem")];
    config.client_id_documents.timeout = std::time::Duration::from_millis(500);
    Harness {
        proxy: OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap(),
        idp: h.idp,
    }
}

/// A client's metadata document naming itself, with `changes` applied (null: member removed).
fn document(changes: Value) -> String {
    let mut d = json!({
        "client_id": "{self}",
        "client_name": "Test <App>",
        "redirect_uris": [CLIENT_REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    });
    for (k, v) in changes.as_object().unwrap() {
        if v.is_null() {
            d.as_object_mut().unwrap().remove(k);
        } else {
            d[k] = v.clone();
        }
    }
    d.to_string()
}

/// A client named by its metadata document (MCP 2025-11-25, draft-ietf-oauth-client-id-
/// metadata-document): no registration; the proxy fetches the document once and reuses it as
/// its Cache-Control allows, shows its name and host with a warning for a loopback redirect,
/// checks redirect URIs against it, and the code is redeemed by the URL client id without a
/// secret.
#[tokio::test]
async fn a_client_id_metadata_document_signs_a_client_in_without_registration() {
    let docs = HashMap::from([(
        "/oauth/client.json",
        Doc::Answer(200, "cache-control: max-age=60\r\n", document(json!({}))),
    )]);
    let (port, hits) = document_server(docs).await;
    let client_id = format!("https://localhost:{port}/oauth/client.json");
    let h = document_harness(true).await;
    let m = body(&get(&h, "/.well-known/oauth-authorization-server").await);
    assert_eq!(m["client_id_metadata_document_supported"], true);

    let page = consent_page(&h, &client_id).await;
    assert!(
        page.html.contains(&format!(
            "describes itself at <b>https://localhost:{port}</b>"
        )),
        "{}",
        page.html
    );
    assert!(
        page.html.contains("<b>Warning:</b>"),
        "a loopback redirect is warned of"
    );
    let back = authorize(Legs::one(&h), &client_id).await;
    assert_eq!(back["state"], "client-state");
    let r = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &back["code"]),
            ("code_verifier", VERIFIER),
            ("redirect_uri", CLIENT_REDIRECT),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let access = body(&r)["access_token"].as_str().unwrap().to_string();
    let info = h.proxy.verify_token(&access).await.unwrap();
    assert_eq!(info.client_id.as_deref(), Some(client_id.as_str()));
    assert_eq!(
        *hits.lock().unwrap(),
        1,
        "fetched once, then reused from the store"
    );

    // A redirect URI the document does not list goes nowhere.
    let elsewhere = call(
        &h,
        request(
            "GET",
            &authorize_query(&client_id, &[("redirect_uri", "https://evil.example/cb")]),
            &[],
            "",
        ),
    )
    .await;
    assert_eq!(
        (elsewhere.status, body(&elsewhere)["error"].clone()),
        (400, json!("invalid_request"))
    );
}

/// Every document that is not a safe, valid client description is refused with
/// `invalid_client` naming why, and loopback or private addresses are not even connected to
/// unless the policy allows them.
#[tokio::test]
async fn client_id_metadata_documents_are_fetched_safely_and_checked() {
    let big = document(json!({"client_uri": "x".repeat(6000)}));
    let docs = HashMap::from([
        ("/ok.json", Doc::Answer(200, "", document(json!({})))),
        (
            "/other.json",
            Doc::Answer(
                200,
                "",
                document(json!({"client_id": "https://app.example/c.json"})),
            ),
        ),
        ("/big.json", Doc::Answer(200, "", big)),
        (
            "/moved.json",
            Doc::Answer(
                302,
                "location: https://localhost/ok.json\r\n",
                String::new(),
            ),
        ),
        ("/gone.json", Doc::Answer(404, "", String::new())),
        ("/notjson.json", Doc::Answer(200, "", "<html>".into())),
        (
            "/noname.json",
            Doc::Answer(200, "", document(json!({"client_name": null}))),
        ),
        (
            "/secret.json",
            Doc::Answer(200, "", document(json!({"client_secret": "s"}))),
        ),
        (
            "/basic.json",
            Doc::Answer(
                200,
                "",
                document(json!({"token_endpoint_auth_method": "client_secret_basic"})),
            ),
        ),
        (
            "/badredirect.json",
            Doc::Answer(
                200,
                "",
                document(json!({"redirect_uris": ["http://example.com/cb"]})),
            ),
        ),
        (
            "/scope.json",
            Doc::Answer(200, "", document(json!({"scope": "admin"}))),
        ),
        ("/slow.json", Doc::Hang),
    ]);
    let (port, hits) = document_server(docs).await;
    let url = |p: &str| format!("https://localhost:{port}{p}");
    let refusal = |h: &Harness, id: String| {
        let proxy = h.proxy.clone();
        async move {
            let r = proxy
                .handle(&request("GET", &authorize_query(&id, &[]), &[], ""))
                .await
                .unwrap();
            let b = body(&r);
            assert_eq!(
                (r.status, b["error"].as_str()),
                (400, Some("invalid_client")),
                "{id}: {b}"
            );
            b["error_description"].as_str().unwrap().to_string()
        }
    };

    // The default policy: loopback is not fetched from (no connection made).
    let strict = document_harness(false).await;
    let why = refusal(&strict, url("/ok.json")).await;
    assert!(why.contains("not a public address"), "{why}");
    for (id, expected) in [
        (
            "https://127.0.0.1/c.json".to_string(),
            "not a public address",
        ),
        (
            "https://169.254.169.254/latest.json".into(),
            "not a public address",
        ),
        ("https://[::1]/c.json".into(), "not a public address"),
        (format!("http://localhost:{port}/ok.json"), "must be https"),
        ("https://app.example/".into(), "has a path"),
        ("https://app.example/a/../c.json".into(), ". or .."),
    ] {
        let why = refusal(&strict, id.clone()).await;
        assert!(why.contains(expected), "{id}: {why}");
    }
    assert_eq!(*hits.lock().unwrap(), 0, "nothing was fetched");

    let h = document_harness(true).await;
    for (path, expected) in [
        ("/other.json", "is not its URL"),
        ("/big.json", "larger than 5120 bytes"),
        ("/moved.json", "redirects are not followed"),
        ("/gone.json", "404"),
        ("/notjson.json", "not JSON"),
        ("/noname.json", "no client_name"),
        ("/secret.json", "client_secret"),
        (
            "/basic.json",
            "token_endpoint_auth_method client_secret_basic",
        ),
        (
            "/badredirect.json",
            "http is allowed on loopback hosts only",
        ),
        ("/scope.json", "scope admin is not offered"),
        ("/slow.json", "no answer within 500ms"),
    ] {
        let why = refusal(&h, url(path)).await;
        assert!(why.contains(expected), "{path}: {why}");
    }
    // A refused document is not cached: each try fetches again.
    let before = *hits.lock().unwrap();
    refusal(&h, url("/other.json")).await;
    assert_eq!(*hits.lock().unwrap(), before + 1);

    // Documents switched off: a URL is an unknown client id, and not advertised.
    let mut config = h.proxy.config().clone();
    config.client_id_documents.enabled = false;
    let off = Harness {
        proxy: OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap(),
        idp: h.idp.clone(),
    };
    assert!(refusal(&off, url("/ok.json"))
        .await
        .contains("unknown client_id"));
    assert!(off
        .proxy
        .metadata()
        .get("client_id_metadata_document_supported")
        .is_none());
}
