//! Three proxy replicas sharing one Redis store serve each leg of the flow.

use super::*;
use crate::common_replicas;

/// Three replicas of the proxy on one Redis, each leg of the flow on a different one: the
/// registration, the authorization, the consent, the callback, the token request and the
/// verification find each other's records; a code used on one replica is used on all.
#[tokio::test]
async fn three_replicas_on_redis_serve_each_leg_of_the_flow() {
    use ferromcp::auth::RedisProxyStore;
    let Some(redis) = common_replicas::redis_server().await else {
        return;
    };
    let first = harness(true).await;
    let replica = |h: &Harness| {
        let store = Arc::new(RedisProxyStore::open(&redis.url).unwrap());
        Harness {
            proxy: OAuthProxy::new(h.proxy.config().clone(), store).unwrap(),
            idp: h.idp.clone(),
        }
    };
    let (a, b, c) = (replica(&first), replica(&first), replica(&first));
    let (client_id, back) = sign_in(Legs {
        register: &a,
        authorize: &b,
        consent: &c,
        callback: &a,
    })
    .await;
    let code = back["code"].clone();
    let pairs = [
        ("grant_type", "authorization_code"),
        ("client_id", client_id.as_str()),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("redirect_uri", CLIENT_REDIRECT),
    ];
    let r = token(&b, &pairs).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let access = body(&r)["access_token"].as_str().unwrap().to_string();
    let info = c.proxy.verify_token(&access).await.unwrap();
    assert_eq!(info.subject.as_deref(), Some("user-42"));
    let again = token(&c, &pairs).await;
    assert_eq!(
        body(&again)["error"],
        "invalid_grant",
        "the code was used on another replica"
    );
    let r = call(
        &a,
        request(
            "POST",
            "/revoke",
            &[FORM],
            &form(&[("client_id", &client_id), ("token", &access)]),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(
        b.proxy.verify_token(&access).await.is_err(),
        "revoked on every replica"
    );
}
