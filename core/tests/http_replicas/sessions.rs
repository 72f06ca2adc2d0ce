//! Sessions across replicas: every request of a session on another replica, cancellation,
//! resumed GET and request streams, server-wide notifications.

use super::*;

pub(super) async fn every_request_of_a_session_goes_to_another_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let r = Replicas::start(3, &backend).await;
        let p = proxy(r.addrs.clone()).await;
        let client = connect(
            &format!("{}/mcp", p.base),
            ClientOptions::new("c", "1"),
            client_handlers(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        for _ in 0..3 {
            let tools = client.list_all_tools().await.unwrap();
            assert!(tools.iter().any(|t| t.name == "ask"));
            let seen = Arc::new(std::sync::Mutex::new(0));
            let s2 = seen.clone();
            let opts = RequestOptions::default()
                .with_on_progress(Some(Arc::new(move |_| *s2.lock().unwrap() += 1)));
            let c = client
                .call_tool_with("count", json!({"steps": 3}), opts)
                .await
                .unwrap();
            assert_eq!(c.content[0].as_text(), Some("counted to 3"));
            assert_eq!(*seen.lock().unwrap(), 3);
            // The tool's request goes out on one replica; the client's answer comes in on
            // another, over the bus.
            let e = client
                .call_tool(
                    "ask",
                    json!({"method": "elicitation/create", "params": {
                        "message": "name?",
                        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
                    }}),
                )
                .await
                .unwrap();
            assert!(!e.is_error(), "{e:?}");
            assert!(e.content[0].as_text().unwrap().contains("Ada"));
            let s = client
                .call_tool(
                    "ask",
                    json!({"method": "sampling/createMessage", "params": {
                        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                        "maxTokens": 5
                    }}),
                )
                .await
                .unwrap();
            assert!(s.content[0].as_text().unwrap().contains("sampled"), "{s:?}");
            let res = client.read_resource("mem://greeting").await.unwrap();
            assert_eq!(
                serde_json::to_value(&res).unwrap()["contents"][0]["text"],
                "hello"
            );
        }
        for (i, h) in p.hits.iter().enumerate() {
            assert!(h.load(Ordering::Relaxed) >= 3, "replica {i} served too little");
        }
        // Each replica rebuilt the session from the store.
        let ids = r.store.ids().await.unwrap();
        assert_eq!(ids.len(), 1);
        for s in &r.servers {
            assert!(s
                .live_sessions()
                .iter()
                .any(|l| l.session_id() == Some(ids[0].as_str())));
        }
        client.close().await;
        r.shutdown().await;
    })
    .await
    .unwrap();
}

pub(super) async fn cancellation_crosses_replicas(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start(2, &backend).await;
        let p = proxy(r.addrs.clone()).await;
        let client = connect(
            &format!("{}/mcp", p.base),
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        for _ in 0..2 {
            let token = CancellationToken::new();
            let call = client.call_tool_with(
                "slow",
                json!({}),
                RequestOptions::default().with_cancel(Some(token.clone())),
            );
            let (res, ()) = tokio::join!(call, async {
                assert_eq!(r.next_event().await, "started");
                token.cancel();
            });
            assert!(res.is_err());
            assert_eq!(r.next_event().await, "cancelled");
        }
        client.close().await;
        r.shutdown().await;
    })
    .await
    .unwrap();
}

/// The event ids of a notification stream: (id, i).
pub(super) async fn next_note(s: &mut SseReader) -> (String, u64) {
    let e = s.next().await.expect("an event");
    let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
    (e.id.unwrap(), v["params"]["i"].as_u64().unwrap())
}

pub(super) async fn notify(server: &Server, sid: &str, i: u64) {
    let s = server
        .live_sessions()
        .into_iter()
        .find(|s| s.session_id() == Some(sid))
        .expect("session live on this replica");
    s.peer()
        .notify("notifications/n", Some(json!({"i": i})))
        .await
        .unwrap();
}

pub(super) async fn a_get_stream_resumes_on_another_replica_after_its_replica_is_killed(
    backend: Backend,
) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start(2, &backend).await;
        let sid = init_session(&r.url(0)).await;
        let (status, mut get) = SseReader::get(&r.url(0), &sid, None).await;
        assert_eq!(status, 200);
        for i in 1..=4 {
            notify(&r.servers[0], &sid, i).await;
        }
        let (_, first) = next_note(&mut get).await;
        assert_eq!(first, 1);
        let (id2, second) = next_note(&mut get).await;
        assert_eq!(second, 2);
        // Replica 0 dies with events 3 and 4 sent but not read.
        r.handles[0].take().unwrap().shutdown().await.unwrap();
        drop(get);
        let (status, mut resumed) = SseReader::get(&r.url(1), &sid, Some(&id2)).await;
        assert_eq!(status, 200);
        assert_eq!(next_note(&mut resumed).await.1, 3);
        assert_eq!(next_note(&mut resumed).await.1, 4);
        // The stream goes on from the replica now holding it.
        notify(&r.servers[1], &sid, 5).await;
        let (id5, five) = next_note(&mut resumed).await;
        assert_eq!(five, 5);
        // And its ids stay resumable.
        drop(resumed);
        notify(&r.servers[1], &sid, 6).await;
        let (_, mut again) = SseReader::get(&r.url(1), &sid, Some(&id5)).await;
        assert_eq!(next_note(&mut again).await.1, 6);
        r.shutdown().await;
    })
    .await
    .unwrap();
}

pub(super) async fn a_request_stream_resumes_on_another_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let r = Replicas::start(2, &backend).await;
        let sid = init_session(&r.url(0)).await;
        // `poll` closes its SSE stream at once and answers 300 ms later, on replica 0.
        let resp = post(&r.url(0), Some(&sid), call(7, "poll", json!({"ms": 300}))).await;
        assert_eq!(resp.status, 200);
        let priming = resp
            .body
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .expect("a priming event id")
            .to_string();
        assert!(resp.sse_messages().is_empty(), "{}", resp.body);
        // The client comes back on replica 1, before and after the answer exists.
        let (status, mut s) = SseReader::get(&r.url(1), &sid, Some(&priming)).await;
        assert_eq!(status, 200);
        let e = s.next().await.expect("the answer");
        let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["result"]["content"][0]["text"], "polled closed=true");
        assert!(s.next().await.is_none(), "the stream ends after the answer");
        let (_, mut late) = SseReader::get(&r.url(1), &sid, Some(&priming)).await;
        let e = late.next().await.expect("the answer, replayed");
        assert!(e.data.contains("polled closed=true"));
        assert!(late.next().await.is_none());
        r.shutdown().await;
    })
    .await
    .unwrap();
}

pub(super) async fn server_wide_notifications_reach_sessions_held_by_other_replicas_once(
    backend: Backend,
) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let r = Replicas::start(2, &backend).await;
        let sid = init_session(&r.url(0)).await;
        let sub = post(
            &r.url(1),
            Some(&sid),
            json!({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"mem://greeting"}}),
        )
        .await;
        assert_eq!(sub.status, 200, "{}", sub.body);
        let (status, mut get) = SseReader::get(&r.url(1), &sid, None).await;
        assert_eq!(status, 200);
        // Replica 0 learns of the change; the session's stream is on replica 1.
        tokio::time::sleep(Duration::from_millis(50)).await;
        r.servers[0].notify_resource_updated("mem://greeting");
        r.servers[0].notify_resource_updated("mem://other");
        r.servers[0]
            .add_tool(Tool::new("extra"), tool_fn(|_a, _c| async { Ok(CallToolResult::text("x")) }))
            .unwrap();
        let e = get.next().await.unwrap();
        assert!(e.data.contains("notifications/resources/updated"), "{}", e.data);
        assert!(e.data.contains("mem://greeting"));
        let e = get.next().await.unwrap();
        assert!(e.data.contains("notifications/tools/list_changed"), "{}", e.data);
        // Nothing else (no second copy of either).
        r.servers[1].notify_resource_updated("mem://greeting");
        let e = get.next().await.unwrap();
        assert!(e.data.contains("notifications/resources/updated"), "{}", e.data);
        let more = tokio::time::timeout(Duration::from_millis(300), get.next()).await;
        assert!(more.is_err(), "no duplicate: {more:?}");
        r.shutdown().await;
    })
    .await
    .unwrap();
}
