//! Every refusal carries its precise OAuth error: at the token endpoint, at authorize (to the
//! browser until the redirect URI is trusted), at consent, from the upstream, at registration;
//! and the issuer must be https or loopback.

use super::*;

/// A refresh token request authenticated with HTTP Basic as `id`:`secret`.
async fn refresh_with_basic(h: &Harness, id: &str, secret: &str) -> ProxyResponse {
    let basic = format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")));
    let pairs = [("grant_type", "refresh_token"), ("refresh_token", "x")];
    call(
        h,
        request(
            "POST",
            "/token",
            &[FORM, ("authorization", &basic)],
            &form(&pairs),
        ),
    )
    .await
}

/// The token request exchanging `code` of `client_id`, then the `extra` pairs.
fn code_grant<'a>(
    client_id: &'a str,
    code: &'a str,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut pairs = vec![
        ("grant_type", "authorization_code"),
        ("client_id", client_id),
        ("code", code),
    ];
    pairs.extend_from_slice(extra);
    pairs
}

#[tokio::test]
async fn token_endpoint_refusals_carry_rfc6749_error_codes() {
    let h = harness(false).await;
    let client_id = public_client(&h).await;
    let code = code_for(&h, &client_id).await;
    let err = |r: &ProxyResponse| {
        (
            r.status,
            body(r)["error"].as_str().unwrap_or("").to_string(),
        )
    };
    // Refused with 400 and `error`, the description naming `says`.
    let refused = |r: &ProxyResponse, error: &str, says: &str| {
        assert_eq!(err(r), (400, error.to_string()));
        let description = body(r)["error_description"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(description.contains(says), "{description}");
    };

    let no_verifier = token(&h, &code_grant(&client_id, &code, &[])).await;
    assert_eq!(err(&no_verifier), (400, "invalid_request".into()));
    let short = token(
        &h,
        &code_grant(&client_id, &code, &[("code_verifier", "short")]),
    )
    .await;
    assert_eq!(err(&short), (400, "invalid_request".into()));
    let wrong_resource = token(
        &h,
        &code_grant(
            &client_id,
            &code,
            &[
                ("code_verifier", VERIFIER),
                ("resource", "http://other.example/mcp"),
            ],
        ),
    )
    .await;
    assert_eq!(err(&wrong_resource), (400, "invalid_target".into()));
    let other_verifier = VERIFIER.replace('0', "1");
    let verified = |verifier| {
        [
            ("code_verifier", verifier),
            ("redirect_uri", CLIENT_REDIRECT),
        ]
    };
    let wrong_verifier = token(
        &h,
        &code_grant(&client_id, &code, &verified(&other_verifier)),
    )
    .await;
    refused(&wrong_verifier, "invalid_grant", "code_verifier");
    // The code was consumed by the request above (a code is tried once).
    let after = token(&h, &code_grant(&client_id, &code, &verified(VERIFIER))).await;
    refused(&after, "invalid_grant", "used");
    let code = code_for(&h, &client_id).await;
    let wrong_redirect = token(
        &h,
        &code_grant(
            &client_id,
            &code,
            &[
                ("code_verifier", VERIFIER),
                ("redirect_uri", "http://127.0.0.1:1/other"),
            ],
        ),
    )
    .await;
    refused(&wrong_redirect, "invalid_grant", "redirect_uri");
    let code = code_for(&h, &client_id).await;
    let no_redirect = token(
        &h,
        &code_grant(&client_id, &code, &[("code_verifier", VERIFIER)]),
    )
    .await;
    assert_eq!(
        err(&no_redirect),
        (400, "invalid_request".into()),
        "the authorization named one"
    );

    let unknown = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", "nobody"),
            ("code", "x"),
        ],
    )
    .await;
    assert_eq!(err(&unknown), (401, "invalid_client".into()));
    assert!(unknown.header("www-authenticate").is_some());
    let no_grant = token(&h, &[("client_id", &client_id)]).await;
    assert_eq!(err(&no_grant), (400, "invalid_request".into()));
    let other = token(&h, &[("grant_type", "password"), ("client_id", &client_id)]).await;
    assert_eq!(err(&other), (400, "unsupported_grant_type".into()));
    let repeated = call(
        &h,
        request(
            "POST",
            "/token",
            &[FORM],
            &format!("grant_type=refresh_token&grant_type=x&client_id={client_id}"),
        ),
    )
    .await;
    assert_eq!(err(&repeated), (400, "invalid_request".into()));
    let json_body = call(
        &h,
        request(
            "POST",
            "/token",
            &[("content-type", "application/json")],
            "{}",
        ),
    )
    .await;
    assert_eq!(err(&json_body), (400, "invalid_request".into()));

    // A client without the refresh grant may not use it.
    let r = register(
        &h,
        json!({"redirect_uris": [CLIENT_REDIRECT], "token_endpoint_auth_method": "none"}),
    )
    .await;
    let code_only = body(&r)["client_id"].as_str().unwrap().to_string();
    let refused = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &code_only),
            ("refresh_token", "x"),
        ],
    )
    .await;
    assert_eq!(err(&refused), (400, "unauthorized_client".into()));

    // A confidential client authenticates with Basic or the body, never with a wrong secret.
    let r = register(&h, json!({"redirect_uris": [CLIENT_REDIRECT], "grant_types": ["authorization_code", "refresh_token"]})).await;
    let reg = body(&r);
    assert_eq!(reg["token_endpoint_auth_method"], "client_secret_basic");
    let (id, secret) = (
        reg["client_id"].as_str().unwrap(),
        reg["client_secret"].as_str().unwrap(),
    );
    let missing = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", id),
            ("refresh_token", "x"),
        ],
    )
    .await;
    assert_eq!(err(&missing), (401, "invalid_client".into()));
    let r = refresh_with_basic(&h, id, "not-it").await;
    assert_eq!(err(&r), (401, "invalid_client".into()));
    let r = refresh_with_basic(&h, id, secret).await;
    assert_eq!(
        err(&r),
        (400, "invalid_grant".into()),
        "authenticated, then the token is checked"
    );
}

#[tokio::test]
async fn authorize_refusals_go_to_the_browser_until_the_redirect_uri_is_trusted() {
    let h = harness(true).await;
    let client_id = public_client(&h).await;
    let get = |q: String| request("GET", &q, &[], "");

    let unknown = call(&h, get(authorize_query("nobody", &[]))).await;
    assert_eq!(
        (unknown.status, body(&unknown)["error"].clone()),
        (400, json!("invalid_client"))
    );
    let elsewhere = call(
        &h,
        get(authorize_query(
            &client_id,
            &[("redirect_uri", "https://evil.example/cb")],
        )),
    )
    .await;
    assert_eq!(
        (elsewhere.status, body(&elsewhere)["error"].clone()),
        (400, json!("invalid_request"))
    );

    let back = |r: &ProxyResponse| {
        let q = query_of(&location(r));
        assert_eq!(q["state"], "client-state");
        q["error"].clone()
    };
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(&client_id, &[("code_challenge", "")]))
            )
            .await
        ),
        "invalid_request"
    );
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(
                    &client_id,
                    &[("code_challenge_method", "plain")]
                ))
            )
            .await
        ),
        "invalid_request"
    );
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(&client_id, &[("response_type", "token")]))
            )
            .await
        ),
        "unsupported_response_type"
    );
    assert_eq!(
        back(&call(&h, get(authorize_query(&client_id, &[("scope", "admin")]))).await),
        "invalid_scope"
    );
    assert_eq!(
        back(
            &call(
                &h,
                get(authorize_query(
                    &client_id,
                    &[("resource", "https://other.example/mcp")]
                ))
            )
            .await
        ),
        "invalid_target"
    );

    // A loopback redirect URI may come back on another port (RFC 8252 §7.3).
    let other_port = call(
        &h,
        get(authorize_query(
            &client_id,
            &[("redirect_uri", "http://127.0.0.1:50000/callback")],
        )),
    )
    .await;
    assert_eq!(other_port.status, 200, "the consent page");
}

#[tokio::test]
async fn consent_is_bound_to_the_browser_and_a_denial_reaches_the_client() {
    let h = harness(true).await;
    let client_id = public_client(&h).await;
    let ConsentPage {
        cookie,
        pending,
        csrf,
        ..
    } = consent_page(&h, &client_id).await;
    // A page elsewhere posting the form from the victim's browser has no cookie.
    let forged = call(
        &h,
        request(
            "POST",
            "/authorize/consent",
            &[FORM],
            &form(&[
                ("pending", &pending),
                ("csrf", &csrf),
                ("decision", "approve"),
            ]),
        ),
    )
    .await;
    assert_eq!(
        (forged.status, body(&forged)["error"].clone()),
        (400, json!("invalid_request"))
    );
    // The callback of an authorization not approved is refused.
    let early = call(
        &h,
        request(
            "GET",
            &format!("/oauth/callback?state={pending}&code=x"),
            &[("cookie", &cookie)],
            "",
        ),
    )
    .await;
    assert_eq!(early.status, 400);

    let ConsentPage {
        cookie,
        pending,
        csrf,
        ..
    } = consent_page(&h, &client_id).await;
    let deny = call(
        &h,
        request(
            "POST",
            "/authorize/consent",
            &[FORM, ("cookie", &cookie)],
            &form(&[("pending", &pending), ("csrf", &csrf), ("decision", "deny")]),
        ),
    )
    .await;
    let q = query_of(&location(&deny));
    assert_eq!(
        (q["error"].as_str(), q["state"].as_str()),
        ("access_denied", "client-state")
    );
}

#[tokio::test]
async fn upstream_failures_reach_the_client_as_oauth_errors() {
    let h = harness(false).await;
    let client_id = public_client(&h).await;
    // The user refuses at the upstream.
    let state = upstream_state(&h, &client_id).await;
    let r = callback(&h, "error=access_denied", &state).await;
    let q = query_of(&location(&r));
    assert_eq!(
        (q["error"].as_str(), q["state"].as_str()),
        ("access_denied", "client-state")
    );
    // The same callback again: the authorization is used.
    let r = callback(&h, "code=x", &state).await;
    assert_eq!(
        (r.status, body(&r)["error"].clone()),
        (400, json!("invalid_request"))
    );
    // The upstream refuses the code it is given.
    let state = upstream_state(&h, &client_id).await;
    let r = callback(&h, "code=forged", &state).await;
    let q = query_of(&location(&r));
    assert_eq!(q["error"], "server_error");
    assert!(
        q["error_description"].contains("invalid_grant"),
        "{}",
        q["error_description"]
    );

    // An upstream that cannot be reached: temporarily_unavailable.
    let dead = Upstream::new(
        "http://127.0.0.1:1/authorize",
        "http://127.0.0.1:1/token",
        "proxy-app",
        None,
    );
    let mut config = OAuthProxyConfig::new(ISSUER, RESOURCE, dead);
    config.require_consent = false;
    let proxy = OAuthProxy::new(config, Arc::new(MemoryProxyStore::new())).unwrap();
    let h2 = Harness {
        proxy,
        idp: h.idp.clone(),
    };
    let client_id = public_client(&h2).await;
    let state = upstream_state(&h2, &client_id).await;
    let r = callback(&h2, "code=x", &state).await;
    assert_eq!(query_of(&location(&r))["error"], "temporarily_unavailable");
}

#[tokio::test]
async fn registration_refuses_bad_metadata_precisely() {
    let h = harness(true).await;
    let err = |r: ProxyResponse| {
        (
            r.status,
            body(&r)["error"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(
        err(register(&h, json!({"redirect_uris": ["http://example.com/cb"]})).await),
        (400, "invalid_redirect_uri".into())
    );
    assert_eq!(
        err(register(&h, json!({"redirect_uris": ["https://example.com/cb#x"]})).await),
        (400, "invalid_redirect_uri".into())
    );
    assert_eq!(
        err(register(&h, json!({"redirect_uris": []})).await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(err(register(&h, json!({"redirect_uris": [CLIENT_REDIRECT], "token_endpoint_auth_method": "private_key_jwt"})).await), (400, "invalid_client_metadata".into()));
    assert_eq!(
        err(register(
            &h,
            json!({"redirect_uris": [CLIENT_REDIRECT], "grant_types": ["implicit"]})
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(
        err(register(
            &h,
            json!({"redirect_uris": [CLIENT_REDIRECT], "scope": "mcp:read admin"})
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(
        err(register(
            &h,
            json!({"redirect_uris": [CLIENT_REDIRECT], "client_name": 7})
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    assert_eq!(
        err(call(
            &h,
            request(
                "POST",
                "/register",
                &[("content-type", "application/json")],
                "[1]"
            )
        )
        .await),
        (400, "invalid_client_metadata".into())
    );
    let ok = register(&h, json!({"redirect_uris": ["com.example.app:/cb", "https://app.example/cb"], "scope": "mcp:read"})).await;
    assert_eq!(ok.status, 201);
    let b = body(&ok);
    assert!(b["client_secret"].as_str().is_some_and(|s| s.len() >= 43));
    assert_eq!(b["grant_types"], json!(["authorization_code"]));
}

#[test]
fn the_issuer_must_be_https_or_loopback() {
    let up = Upstream::new("https://idp.example/a", "https://idp.example/t", "c", None);
    let store = Arc::new(MemoryProxyStore::new());
    let plain = OAuthProxyConfig::new(
        "http://mcp.example.com",
        "https://mcp.example.com/mcp",
        up.clone(),
    );
    assert!(OAuthProxy::new(plain, store.clone()).is_err());
    let https = OAuthProxyConfig::new(
        "https://mcp.example.com/",
        "https://mcp.example.com/mcp",
        up,
    );
    let p = OAuthProxy::new(https, store).unwrap();
    assert_eq!(p.callback_url(), "https://mcp.example.com/oauth/callback");
}
