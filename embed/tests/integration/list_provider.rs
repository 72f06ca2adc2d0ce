//! Proves the foreign list provider (`embed::ForeignListProvider`): the engine hands it the
//! request's params and sends its page and `nextCursor` as they are (no paging on top), a list
//! method it does not answer is `-32601`, a cursor that is not a string `-32602` before it is
//! asked, and an answer that is not a page an internal error; other requests never reach it.

use ferromcp::McpError;
use ferromcp_embed::{
    CallOptions, ClientConfig, EmbeddedClient, EmbeddedServer, ForeignAnswer, ForeignContext,
    ForeignHandler, ForeignListProvider, ForeignRequest,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

struct Ran;

impl ForeignHandler for Ran {
    fn call(
        &self,
        _request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        Box::pin(async { Ok(json!("ran").into()) })
    }
}

/// Pages five tools three at a time, its cursor the offset as a decimal string; or answers
/// `answer` as it is.
struct Paged {
    asked: Arc<Mutex<Vec<(String, Value)>>>,
    answer: Option<Value>,
}

impl ForeignListProvider for Paged {
    fn page(
        &self,
        method: &'static str,
        params: Value,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.asked
            .lock()
            .unwrap()
            .push((method.to_string(), params.clone()));
        if let Some(a) = &self.answer {
            let a = a.clone();
            return Box::pin(async move { Ok(a) });
        }
        let start = match params.get("cursor").and_then(Value::as_str) {
            None => Ok(0),
            Some(c) => c
                .parse::<usize>()
                .map_err(|_| McpError::invalid_params(format!("invalid cursor {c:?}"))),
        };
        Box::pin(async move {
            let start = start?;
            let end = (start + 3).min(5);
            let tools: Vec<Value> = (start..end)
                .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
                .collect();
            let mut page = json!({ "tools": tools });
            if end < 5 {
                page["nextCursor"] = json!(end.to_string());
            }
            Ok(page)
        })
    }
}

async fn setup(answer: Option<Value>) -> (EmbeddedClient, Arc<Mutex<Vec<(String, Value)>>>) {
    let s =
        EmbeddedServer::from_json(json!({"name": "lists", "version": "1", "pageSize": 2})).unwrap();
    s.add_tool_json(
        json!({"name": "t0", "inputSchema": {"type": "object"}}),
        Arc::new(Ran),
    )
    .unwrap();
    s.add_resource_json(json!({"uri": "mem://a", "name": "a"}), Arc::new(Ran))
        .unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    s.add_list_provider(
        &["tools/list".to_string()],
        Arc::new(Paged {
            asked: asked.clone(),
            answer,
        }),
    )
    .unwrap();
    let c = EmbeddedClient::connect_memory(&s, &ClientConfig::default(), None)
        .await
        .unwrap();
    (c, asked)
}

async fn list(c: &EmbeddedClient, method: &str, params: Option<Value>) -> Result<Value, McpError> {
    c.request(method, params, CallOptions::default()).await
}

#[tokio::test]
async fn the_providers_pages_and_cursors_reach_the_client_as_they_are() {
    let (c, asked) = setup(None).await;
    let first = list(&c, "tools/list", None).await.unwrap();
    assert_eq!(first["tools"].as_array().unwrap().len(), 3, "{first}");
    assert_eq!(first["nextCursor"], "3");
    let second = list(
        &c,
        "tools/list",
        Some(json!({"cursor": "3", "_meta": {"k": 1}})),
    )
    .await
    .unwrap();
    assert_eq!(second["tools"][1]["name"], "t4");
    assert!(second.get("nextCursor").is_none(), "{second}");
    // The provider's own cursor error reaches the client as it is.
    let e = list(&c, "tools/list", Some(json!({"cursor": "x"})))
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602);
    // A call never reaches the provider.
    list(
        &c,
        "tools/call",
        Some(json!({"name": "t0", "arguments": {}})),
    )
    .await
    .unwrap();
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert_eq!(asked[0], ("tools/list".to_string(), json!({})));
    assert_eq!(asked[1].1, json!({"cursor": "3", "_meta": {"k": 1}}));
}

#[tokio::test]
async fn a_list_the_provider_does_not_answer_is_method_not_found() {
    let (c, asked) = setup(None).await;
    // The server has resources: the engine would list them and its (empty) templates.
    for method in ["resources/list", "resources/templates/list"] {
        let e = list(&c, method, None).await.unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str(), e.data),
            (-32601, "Method not found", Some(json!(method)))
        );
    }
    assert!(asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_cursor_that_is_not_a_string_is_refused_before_the_provider_is_asked() {
    let (c, asked) = setup(None).await;
    let e = list(&c, "tools/list", Some(json!({"cursor": 3})))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32602, "params.cursor must be a string")
    );
    assert!(asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_answer_that_is_not_a_page_is_an_internal_error() {
    for (answer, says) in [
        (json!([1]), "returned an array"),
        (json!({"items": []}), "without a \"tools\" list"),
        (
            json!({"tools": [], "nextCursor": 2}),
            "nextCursor that is a number",
        ),
    ] {
        let (c, _) = setup(Some(answer.clone())).await;
        let e = list(&c, "tools/list", None).await.unwrap_err();
        assert_eq!(e.code, -32603, "{answer}");
        assert!(e.message.contains(says), "{answer}: {}", e.message);
    }
    // A null nextCursor is no cursor.
    let (c, _) = setup(Some(json!({"tools": [], "nextCursor": null}))).await;
    assert_eq!(
        list(&c, "tools/list", None).await.unwrap(),
        json!({"tools": []})
    );
}

#[tokio::test]
async fn an_unknown_list_method_is_refused_when_added() {
    let s = EmbeddedServer::from_json(json!({"name": "lists", "version": "1"})).unwrap();
    let e = s
        .add_list_provider(
            &["tools/call".to_string()],
            Arc::new(Paged {
                asked: Default::default(),
                answer: None,
            }),
        )
        .unwrap_err();
    assert_eq!(e.code, -32602);
}
