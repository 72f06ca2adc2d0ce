//! Per-request era across replicas: listen streams get the changes raised on any replica once;
//! a `requestState` is good for one use across the replicas.

use super::*;

/// Opens a per-request-era `subscriptions/listen` stream (subscription `id`) on `url` for
/// the tools list and resource `uri`; returns it once acknowledged.
pub(super) async fn listen(url: &str, id: u64, uri: &str) -> SseReader {
    let body = request(
        id,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true, "resourceSubscriptions": [uri] } }),
    );
    let (status, mut s) = SseReader::post(url, &headers_for(&body), &body.to_string()).await;
    assert_eq!(status, 200);
    let ack = s.next().await.expect("an acknowledgement");
    let v: Value = serde_json::from_str(&ack.data).unwrap();
    assert_eq!(
        v["method"], "notifications/subscriptions/acknowledged",
        "{v}"
    );
    s
}

/// The next `n` notifications of listen stream `s` as (method, uri), sorted (they may come in
/// either order); each must carry subscription id `id`.
pub(super) async fn changes(s: &mut SseReader, n: usize, id: u64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for _ in 0..n {
        let e = s.next().await.expect("a change notification");
        let v: Value = serde_json::from_str(&e.data).unwrap();
        assert_eq!(
            v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
            "{v}"
        );
        let uri = v["params"]["uri"].as_str().unwrap_or_default().to_string();
        out.push((v["method"].as_str().unwrap_or_default().to_string(), uri));
    }
    out.sort();
    out
}

pub(super) async fn listen_streams_get_changes_raised_on_any_replica_once(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        for stateless in [false, true] {
            let r = Replicas::start_with(2, &backend, stateless, |_, tx| replica_server(tx)).await;
            let mut s = listen(&r.url(0), 7, "mem://greeting").await;
            let expected = vec![
                (
                    "notifications/resources/updated".to_string(),
                    "mem://greeting".to_string(),
                ),
                (
                    "notifications/tools/list_changed".to_string(),
                    String::new(),
                ),
            ];
            // Raised by a handler on replica 1 (the stream is on replica 0), then on replica 0.
            for (i, at) in [1, 0].into_iter().enumerate() {
                let body = request(
                    20 + i as u64,
                    "tools/call",
                    json!({ "name": "change",
                            "arguments": { "uris": ["mem://greeting", "mem://other"] } }),
                );
                let resp = post_modern(&r.url(at), &body).await;
                assert_eq!(
                    answer(&resp)["result"]["content"][0]["text"],
                    "changed",
                    "{}",
                    resp.body
                );
                assert_eq!(
                    changes(&mut s, 2, 7).await,
                    expected,
                    "stateless={stateless}, raised on replica {at}"
                );
                // No second copy, and nothing the subscription did not ask for (mem://other).
                let more = tokio::time::timeout(Duration::from_millis(300), s.next()).await;
                assert!(
                    more.is_err(),
                    "stateless={stateless}, raised on replica {at}: {more:?}"
                );
            }
            drop(s);
            r.shutdown().await;
        }
    })
    .await
    .unwrap();
}

/// A replica with `explicit` (answers `input_required` with the state `{"n": 42}`, then, given
/// the answer and the state, "{name} {n}"), sealing its `requestState` with `ring`.
pub(super) fn state_server(ring: KeyRing) -> Server {
    Server::builder("replica-state", "1.0")
        .options(move |o| o.session.request_state_keys = ring)
        .tool_raw(
            Tool::new("explicit"),
            tool_fn(|_, ctx| async move {
                match (ctx.input_response("who"), ctx.request_state()) {
                    (Some(r), Some(s)) => Ok(CallToolResult::text(format!(
                        "{} {}",
                        r["content"]["name"].as_str().unwrap_or("?"),
                        s["n"]
                    ))),
                    _ => {
                        let mut ask = Map::new();
                        ask.insert(
                            "who".into(),
                            json!({ "method": "elicitation/create", "params": {
                                "message": "name?", "requestedSchema": { "type": "object" } } }),
                        );
                        Err(input_required(ask, Some(json!({ "n": 42 }))))
                    }
                }
            }),
        )
        .build()
        .unwrap()
}

pub(super) async fn request_state_is_single_use_across_replicas(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let keys = vec![("k1".to_string(), vec![9u8; 32])];
        let one_process = matches!(backend, Backend::Memory);
        let shared = KeyRing::new(keys.clone()).unwrap();
        // In one process (the in-memory stores) the replicas share one ring and its memory of
        // the tokens opened; in separate processes (Redis) each has its own ring (same keys).
        let r = Replicas::start_with(2, &backend, false, |_, _| {
            state_server(match one_process {
                true => shared.clone(),
                false => KeyRing::new(keys.clone()).unwrap(),
            })
        })
        .await;
        let call = |id: u64, retry: Option<&str>| {
            let mut params = json!({ "name": "explicit", "arguments": {},
                                     "_meta": meta(json!({ "elicitation": {} })) });
            if let Some(state) = retry {
                params["inputResponses"] =
                    json!({ "who": { "action": "accept", "content": { "name": "Ada" } } });
                params["requestState"] = json!(state);
            }
            request(id, "tools/call", params)
        };
        // (made on, answered on): the state is valid on any replica that has the keys.
        for (made, answered) in [(0, 0), (1, 0), (0, 1)] {
            let first = post_modern(&r.url(made), &call(1, None)).await;
            let state = answer(&first)["result"]["requestState"]
                .as_str()
                .unwrap_or_else(|| panic!("a requestState: {}", first.body))
                .to_string();
            let ok = post_modern(&r.url(answered), &call(2, Some(&state))).await;
            assert_eq!(
                answer(&ok)["result"]["content"][0]["text"],
                "Ada 42",
                "{}",
                ok.body
            );
            // Replayed on the other replica, then on the one that answered: the same refusal.
            let mut refusals = Vec::new();
            for at in [1 - answered, answered] {
                let again = post_modern(&r.url(at), &call(3, Some(&state))).await;
                let e = answer(&again)["error"].clone();
                assert_eq!(e["code"], -32602, "replica {at}: {}", again.body);
                assert_eq!(
                    e["data"]["reason"], "replayed",
                    "replica {at}: {}",
                    again.body
                );
                refusals.push((again.status, e));
            }
            assert_eq!(refusals[0], refusals[1]);
        }
        r.shutdown().await;
    })
    .await
    .unwrap();
}
