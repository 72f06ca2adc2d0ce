//! The whole flow (registration, consent, upstream leg, tokens, refresh, revocation) and the
//! authorization server metadata.

use super::*;

#[tokio::test]
async fn full_flow_issues_tokens_bound_to_the_resource_and_mapped_upstream() {
    let h = harness(true).await;
    let (client_id, back) = sign_in(Legs::one(&h)).await;
    assert_eq!(back["state"], "client-state");
    assert_eq!(back["iss"], ISSUER);
    let code = back["code"].clone();

    let r = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", CLIENT_REDIRECT),
            ("resource", RESOURCE),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let t = body(&r);
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "mcp:read");
    let access = t["access_token"].as_str().unwrap().to_string();
    let refresh = t["refresh_token"].as_str().unwrap().to_string();
    assert!(
        !access.starts_with("up-"),
        "the client gets the proxy's token, not the upstream's"
    );

    // A resource server using the proxy as its verifier accepts the token for the resource.
    let rs = ResourceAuth::new(RESOURCE, vec![ISSUER.into()], Arc::new(h.proxy.clone()));
    let info = rs.check(Some(&format!("Bearer {access}"))).await.unwrap();
    assert_eq!(info.subject.as_deref(), Some("user-42"));
    assert_eq!(info.client_id.as_deref(), Some(client_id.as_str()));
    assert_eq!(info.scopes, vec!["mcp:read".to_string()]);
    assert_eq!(info.audience, vec![RESOURCE.to_string()]);
    assert_eq!(info.claims["upstream_access_token"], "up-at-1");
    assert_eq!(info.claims["email"], "ada@example.com");

    // The code is used once.
    let again = token(
        &h,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(
        (again.status, body(&again)["error"].clone()),
        (400, json!("invalid_grant"))
    );

    // Refresh rotates both tokens and refreshes upstream.
    let r = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let t2 = body(&r);
    let access2 = t2["access_token"].as_str().unwrap().to_string();
    let refresh2 = t2["refresh_token"].as_str().unwrap().to_string();
    assert!(
        h.proxy.verify_token(&access).await.is_err(),
        "the old access token is gone"
    );
    let info2 = h.proxy.verify_token(&access2).await.unwrap();
    assert_eq!(info2.claims["upstream_access_token"], "up-at-2");
    assert_eq!(info2.subject.as_deref(), Some("user-42"));
    let reuse = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(body(&reuse)["error"], "invalid_grant");
    let narrower = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh2),
            ("scope", "mcp:write"),
        ],
    )
    .await;
    assert_eq!(body(&narrower)["error"], "invalid_scope");

    // Revocation removes the pair and tells the upstream.
    let r = call(
        &h,
        request(
            "POST",
            "/revoke",
            &[FORM],
            &form(&[("client_id", &client_id), ("token", &access2)]),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(h.proxy.verify_token(&access2).await.is_err());
    let after = token(
        &h,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", &refresh2),
        ],
    )
    .await;
    assert_eq!(body(&after)["error"], "invalid_grant");
    assert_eq!(h.idp.lock().unwrap().revoked, vec!["up-at-2".to_string()]);
    let unknown = call(
        &h,
        request(
            "POST",
            "/revoke",
            &[FORM],
            &form(&[("client_id", &client_id), ("token", "nope")]),
        ),
    )
    .await;
    assert_eq!(
        unknown.status, 200,
        "RFC 7009: unknown tokens are answered 200"
    );
}

#[tokio::test]
async fn metadata_names_the_endpoints_pkce_s256_and_the_resource() {
    let h = harness(true).await;
    let m = body(&get(&h, "/.well-known/oauth-authorization-server").await);
    assert_eq!(m["issuer"], ISSUER);
    assert_eq!(m["authorization_endpoint"], format!("{ISSUER}/authorize"));
    assert_eq!(m["token_endpoint"], format!("{ISSUER}/token"));
    assert_eq!(m["registration_endpoint"], format!("{ISSUER}/register"));
    assert_eq!(m["revocation_endpoint"], format!("{ISSUER}/revoke"));
    assert_eq!(m["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(m["scopes_supported"], json!(["mcp:read", "mcp:write"]));
    let r = get(&h, "/.well-known/oauth-protected-resource/mcp").await;
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(body(&r)["authorization_servers"], json!([ISSUER]));
    assert_eq!(body(&r)["resource"], RESOURCE);
    assert!(
        h.proxy
            .handle(&request("GET", "/mcp", &[], ""))
            .await
            .is_none(),
        "other paths pass"
    );
    let wrong = get(&h, "/token").await;
    assert_eq!((wrong.status, wrong.header("allow")), (405, Some("POST")));
    let pre = call(&h, request("OPTIONS", "/token", &[], "")).await;
    assert_eq!(pre.status, 204);
}
