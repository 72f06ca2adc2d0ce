//! Tasks across replicas: the tasks extension's and 2025-11-25 tasks served, expiring and
//! listened to on any replica.

use super::*;

/// A replica declaring the tasks extension, with `two` (asks for inputs `a` and `b` inside its
/// task, answers "{a} and {b}"), `later` (answers "later" after 200 ms) and `slow` (reports
/// "started" on `tx`, then "cancelled" when it sees its cancellation).
pub(super) fn task_server(tx: mpsc::UnboundedSender<String>) -> Server {
    task_server_with(tx, Duration::from_secs(300))
}

/// [`task_server`] whose tasks live `ttl`.
pub(super) fn task_server_with(tx: mpsc::UnboundedSender<String>, ttl: Duration) -> Server {
    let task_tool = |name: &str| Tool::new(name).with_task_support(TaskSupport::Optional);
    let elicit = |message: &str| {
        json!({ "method": "elicitation/create", "params": { "message": message,
            "requestedSchema": { "type": "object" } } })
    };
    Server::builder("replica-tasks", "1.0")
        .options(move |o| {
            o.tasks_extension = true;
            o.tasks.default_ttl = ttl;
            o.tasks.poll_interval = Duration::from_millis(20);
        })
        .tool_raw(
            task_tool("two"),
            tool_fn(move |_, ctx| async move {
                let mut asked = Map::new();
                asked.insert("a".into(), elicit("A?"));
                asked.insert("b".into(), elicit("B?"));
                let got = ctx.input(asked).await?;
                let name = |k: &str| {
                    got[k]["content"]["name"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string()
                };
                Ok(CallToolResult::text(format!(
                    "{} and {}",
                    name("a"),
                    name("b")
                )))
            }),
        )
        .tool_raw(
            task_tool("later"),
            tool_fn(|_, _| async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(CallToolResult::text("later"))
            }),
        )
        .tool_raw(
            task_tool("slow"),
            tool_fn(move |_, ctx| {
                let tx = tx.clone();
                async move {
                    let _ = tx.send("started".into());
                    tokio::select! {
                        _ = ctx.cancellation().cancelled() => {
                            let _ = tx.send("cancelled".into());
                            Err(ferromcp::McpError::cancelled(None))
                        }
                        _ = tokio::time::sleep(Duration::from_secs(20)) => {
                            Ok(CallToolResult::text("slow done"))
                        }
                    }
                }
            }),
        )
        .build()
        .unwrap()
}

/// `method` with `params` from a client declaring the tasks extension, on `url`: the answer.
pub(super) async fn task_rpc(url: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } }));
    let r = post_modern(url, &request(1, method, params)).await;
    let a = answer(&r);
    assert!(a.is_object(), "{method} on {url}: {} {}", r.status, r.body);
    a
}

/// `tasks/get` of `id` on `url`: the task.
pub(super) async fn task_get(url: &str, id: &str) -> Value {
    let a = task_rpc(url, "tasks/get", json!({ "taskId": id })).await;
    assert!(a["result"].is_object(), "tasks/get on {url}: {a}");
    a["result"].clone()
}

/// Polls `tasks/get` on `url` until `done(task)` (5 s at most).
pub(super) async fn task_until(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..250 {
        let t = task_get(url, id).await;
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} on {url}: {}", task_get(url, id).await);
}

pub(super) fn outstanding(task: &Value) -> Vec<String> {
    task["inputRequests"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

pub(super) async fn extension_tasks_are_served_on_any_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        for stateless in [false, true] {
            let mut r = Replicas::start_with(2, &backend, stateless, |_, tx| task_server(tx)).await;
            let (a, b) = (r.url(0), r.url(1));
            let made = task_rpc(&a, "tools/call", json!({ "name": "two", "arguments": {} })).await;
            assert_eq!(made["result"]["resultType"], "task", "{made}");
            let id = made["result"]["taskId"].as_str().unwrap().to_string();

            // Read on B: the inputs A's handler waits for.
            let waiting = task_until(&b, &id, |t| t["status"] == "input_required").await;
            assert_eq!(outstanding(&waiting), ["a", "b"], "{waiting}");
            assert_eq!(
                waiting["inputRequests"]["a"]["method"],
                "elicitation/create"
            );

            // Updated on B, one input at a time: the answered one is gone on both replicas at
            // once on B, as soon as A has it on A.
            let update = |key: &str, name: &str| {
                json!({ "taskId": id, "inputResponses":
                        { key: { "action": "accept", "content": { "name": name } } } })
            };
            let ack = task_rpc(&b, "tasks/update", update("a", "one")).await;
            assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
            let on_b = task_get(&b, &id).await;
            assert_eq!(on_b["status"], "input_required", "{on_b}");
            assert_eq!(outstanding(&on_b), ["b"], "{on_b}");
            let on_a = task_until(&a, &id, |t| outstanding(t) == ["b"]).await;
            assert_eq!(on_a["status"], "input_required", "{on_a}");
            task_rpc(&b, "tasks/update", update("b", "two")).await;
            for url in [&b, &a] {
                let done = task_until(url, &id, |t| t["status"] == "completed").await;
                assert_eq!(
                    done["result"]["content"][0]["text"], "one and two",
                    "{done}"
                );
                assert!(done.get("inputRequests").is_none(), "{done}");
            }

            // Made on B, cancelled on A: B's handler stops, and both replicas say cancelled.
            let made = task_rpc(&b, "tools/call", json!({ "name": "slow", "arguments": {} })).await;
            let id = made["result"]["taskId"].as_str().unwrap().to_string();
            assert_eq!(r.next_event().await, "started");
            assert_eq!(task_get(&a, &id).await["status"], "working");
            let ack = task_rpc(&a, "tasks/cancel", json!({ "taskId": id })).await;
            assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
            assert_eq!(task_get(&a, &id).await["status"], "cancelled");
            assert_eq!(r.next_event().await, "cancelled");
            for url in [&a, &b] {
                let t = task_get(url, &id).await;
                assert_eq!(t["status"], "cancelled", "{t}");
                assert!(t.get("result").is_none() && t.get("error").is_none(), "{t}");
            }
            // Cancelling again, on either replica, is acknowledged and changes nothing.
            for url in [&b, &a] {
                let again = task_rpc(url, "tasks/cancel", json!({ "taskId": id })).await;
                assert_eq!(again["result"]["resultType"], "complete", "{again}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            assert_eq!(task_get(&b, &id).await["status"], "cancelled");

            // A task no replica made is unknown on both.
            for url in [&a, &b] {
                let e = task_rpc(url, "tasks/get", json!({ "taskId": "no-such-task" })).await;
                assert_eq!(e["error"]["code"], -32602, "{e}");
            }
            r.shutdown().await;
        }
    })
    .await
    .unwrap();
}

pub(super) async fn an_extension_task_expires_once_for_every_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start_with(2, &backend, false, |_, tx| {
            task_server_with(tx, Duration::from_millis(400))
        })
        .await;
        let (a, b) = (r.url(0), r.url(1));
        // Made on A, seen on B; once past its time to live, A stops its handler and the first
        // replica asked (B) says it expired; then it is unknown on both.
        let made = task_rpc(&a, "tools/call", json!({ "name": "slow", "arguments": {} })).await;
        let id = made["result"]["taskId"].as_str().unwrap().to_string();
        assert_eq!(r.next_event().await, "started");
        assert_eq!(task_get(&b, &id).await["status"], "working");
        assert_eq!(r.next_event().await, "cancelled");
        let gone = |url: String, why: &'static str| {
            let id = id.clone();
            async move {
                let e = task_rpc(&url, "tasks/get", json!({ "taskId": id })).await;
                assert_eq!(e["error"]["code"], -32602, "{e}");
                assert_eq!(
                    e["error"]["message"],
                    format!("Failed to retrieve task: {why}"),
                    "{e}"
                );
            }
        };
        gone(b.clone(), "Task has expired").await;
        gone(a.clone(), "Task not found").await;
        gone(b.clone(), "Task not found").await;
        r.shutdown().await;
    })
    .await
    .unwrap();
}

/// Opens `subscriptions/listen` (subscription `id`) on `url` for `task_ids`, declaring the
/// tasks extension; returns the stream and the task ids its acknowledgement agreed to.
pub(super) async fn listen_tasks(url: &str, id: u64, task_ids: Value) -> (SseReader, Value) {
    let body = request(
        id,
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": task_ids },
                "_meta": meta(json!({ "elicitation": {}, "extensions": { TASKS_EXTENSION: {} } })) }),
    );
    let (status, mut s) = SseReader::post(url, &headers_for(&body), &body.to_string()).await;
    assert_eq!(status, 200);
    let ack: Value =
        serde_json::from_str(&s.next().await.expect("an acknowledgement").data).unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
        "{ack}"
    );
    (s, ack["params"]["notifications"]["taskIds"].clone())
}

/// The next `notifications/tasks` of `s` (subscription `id`): the task as sent (without
/// `_meta`).
pub(super) async fn task_note(s: &mut SseReader, id: u64) -> Value {
    let e = s.next().await.expect("a notifications/tasks");
    let mut v: Value = serde_json::from_str(&e.data).unwrap();
    assert_eq!(v["method"], "notifications/tasks", "{v}");
    assert_eq!(
        v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
        "{v}"
    );
    v["params"].as_object_mut().unwrap().remove("_meta");
    v["params"].take()
}

/// `t` as a `notifications/tasks` carries it (what `tasks/get` answered, without the result's
/// own fields).
pub(super) fn as_noted(mut t: Value) -> Value {
    for k in ["resultType", "_meta"] {
        t.as_object_mut().unwrap().remove(k);
    }
    t
}

/// Asserts that `s` sends nothing more within 300 ms.
pub(super) async fn nothing_more(s: &mut SseReader, what: &str) {
    let more = tokio::time::timeout(Duration::from_millis(300), s.next()).await;
    assert!(more.is_err(), "{what}: {more:?}");
}

pub(super) async fn task_status_reaches_a_listener_on_any_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        for stateless in [false, true] {
            let mut r = Replicas::start_with(2, &backend, stateless, |_, tx| task_server(tx)).await;
            let (a, b) = (r.url(0), r.url(1));
            let made = task_rpc(&a, "tools/call", json!({ "name": "two", "arguments": {} })).await;
            let id = made["result"]["taskId"].as_str().unwrap().to_string();
            let waiting = task_until(&b, &id, |t| t["status"] == "input_required").await;

            // Run by A, listened to on B: acknowledged (an id no replica knows is left out),
            // its state at subscription time first.
            let (mut s, agreed) = listen_tasks(&b, 41, json!([id, "no-such-task", id])).await;
            assert_eq!(agreed, json!([id]), "stateless={stateless}");
            assert_eq!(task_note(&mut s, 41).await, as_noted(waiting));

            // Answered on A (the running replica), then on B: every change, in order, once, up
            // to the terminal state, each what tasks/get answered then.
            let update = |key: &str, name: &str| {
                json!({ "taskId": id, "inputResponses":
                        { key: { "action": "accept", "content": { "name": name } } } })
            };
            task_rpc(&a, "tasks/update", update("a", "one")).await;
            let n = task_note(&mut s, 41).await;
            assert_eq!(n["status"], "input_required", "{n}");
            assert_eq!(outstanding(&n), ["b"], "{n}");
            task_rpc(&b, "tasks/update", update("b", "two")).await;
            let mut seen = vec![n];
            while !["completed", "failed", "cancelled"]
                .contains(&seen.last().unwrap()["status"].as_str().unwrap())
            {
                seen.push(task_note(&mut s, 41).await);
            }
            let last = seen.last().unwrap();
            assert_eq!(last["status"], "completed", "{seen:?}");
            assert_eq!(
                last["result"]["content"][0]["text"], "one and two",
                "{last}"
            );
            assert_eq!(*last, as_noted(task_get(&a, &id).await));
            for w in seen.windows(2) {
                assert_ne!(w[0], w[1], "no state twice: {seen:?}");
                assert!(
                    w[0]["lastUpdatedAt"].as_str() <= w[1]["lastUpdatedAt"].as_str(),
                    "in order: {seen:?}"
                );
            }
            // At most: input_required [b], working (B's write), working or the result (A's).
            assert!(seen.len() <= 4, "{seen:?}");
            nothing_more(&mut s, "after the terminal state").await;
            drop(s);

            // Made on A, listened to on B, cancelled on B (which does not run it): the listener
            // gets working, then cancelled once; A's handler stops.
            let made = task_rpc(&a, "tools/call", json!({ "name": "slow", "arguments": {} })).await;
            let id = made["result"]["taskId"].as_str().unwrap().to_string();
            assert_eq!(r.next_event().await, "started");
            let (mut s, agreed) = listen_tasks(&b, 42, json!([id])).await;
            assert_eq!(agreed, json!([id]));
            assert_eq!(task_note(&mut s, 42).await["status"], "working");
            task_rpc(&b, "tasks/cancel", json!({ "taskId": id })).await;
            let n = task_note(&mut s, 42).await;
            assert_eq!(n["status"], "cancelled", "{n}");
            assert_eq!(r.next_event().await, "cancelled");
            nothing_more(&mut s, "after cancelled").await;
            drop(s);

            // A listener on A (the running replica) for a task that ended: its terminal state,
            // once.
            let (mut s, _) = listen_tasks(&a, 43, json!([id])).await;
            assert_eq!(task_note(&mut s, 43).await, n);
            nothing_more(&mut s, "an ended task").await;
            drop(s);

            // Thousands of ids: refused, saying the limit.
            let many: Vec<String> = (0..5000).map(|i| format!("t{i}")).collect();
            let e = task_rpc(
                &b,
                "subscriptions/listen",
                json!({ "notifications": { "taskIds": many } }),
            )
            .await;
            assert_eq!(e["error"]["code"], -32602, "{e}");
            assert_eq!(e["error"]["data"]["reason"], "tooManyTaskIds", "{e}");
            assert_eq!(e["error"]["data"]["limit"], MAX_LISTEN_TASK_IDS, "{e}");
            r.shutdown().await;
        }
    })
    .await
    .unwrap();
}

/// `method` with `params` in session `sid` on `url` (a 2025-11-25 handshake session): the answer.
pub(super) async fn session_rpc(url: &str, sid: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    let r = post(url, Some(sid), body).await;
    let a = answer(&r);
    assert!(a.is_object(), "{method} on {url}: {} {}", r.status, r.body);
    a
}

pub(super) async fn handshake_tasks_are_served_on_any_replica(backend: Backend) {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut r = Replicas::start_with(2, &backend, false, |_, tx| task_server(tx)).await;
        let (a, b) = (r.url(0), r.url(1));
        let sid = init_session(&a).await;
        let task = json!({ "ttl": 60_000 });

        // Made on A; read, waited for and listed on B.
        let made = session_rpc(
            &a,
            &sid,
            "tools/call",
            json!({ "name": "later", "arguments": {}, "task": task }),
        )
        .await;
        let id = made["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{made}"))
            .to_string();
        let got = session_rpc(&b, &sid, "tasks/get", json!({ "taskId": id })).await;
        assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
        let result = session_rpc(&b, &sid, "tasks/result", json!({ "taskId": id })).await;
        assert_eq!(result["result"]["content"][0]["text"], "later", "{result}");
        assert_eq!(
            result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str(),
            "{result}"
        );
        let got = session_rpc(&b, &sid, "tasks/get", json!({ "taskId": id })).await;
        assert_eq!(got["result"]["status"], "completed", "{got}");
        let listed = session_rpc(&b, &sid, "tasks/list", json!({})).await;
        let tasks = listed["result"]["tasks"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"));
        assert_eq!(tasks.len(), 1, "{listed}");
        assert_eq!(tasks[0]["status"], "completed", "{listed}");

        // Made on B, cancelled on A: B's handler stops; both replicas say cancelled.
        let made = session_rpc(
            &b,
            &sid,
            "tools/call",
            json!({ "name": "slow", "arguments": {}, "task": task }),
        )
        .await;
        let id2 = made["result"]["task"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{made}"))
            .to_string();
        assert_eq!(r.next_event().await, "started");
        let cancelled = session_rpc(&a, &sid, "tasks/cancel", json!({ "taskId": id2 })).await;
        assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
        assert_eq!(r.next_event().await, "cancelled");
        for url in [&a, &b] {
            let got = session_rpc(url, &sid, "tasks/get", json!({ "taskId": id2 })).await;
            assert_eq!(got["result"]["status"], "cancelled", "{got}");
        }
        let again = session_rpc(&b, &sid, "tasks/cancel", json!({ "taskId": id2 })).await;
        assert_eq!(again["error"]["code"], -32602, "{again}");
        let listed = session_rpc(&a, &sid, "tasks/list", json!({})).await;
        assert_eq!(
            listed["result"]["tasks"].as_array().map(Vec::len),
            Some(2),
            "{listed}"
        );

        // Another session sees none of them, on either replica.
        let other = init_session(&b).await;
        for url in [&a, &b] {
            let got = session_rpc(url, &other, "tasks/get", json!({ "taskId": id })).await;
            assert_eq!(got["error"]["code"], -32602, "{got}");
            let listed = session_rpc(url, &other, "tasks/list", json!({})).await;
            assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
        }
        r.shutdown().await;
    })
    .await
    .unwrap();
}
