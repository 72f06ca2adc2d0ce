//! Proves the foreign authorization predicate (`embed::ForeignAccessPredicate` in the engine's
//! `Authorization` layer): hidden items that straddle the page size leave every page full with
//! a valid `nextCursor`, the predicate is asked once per list with every name and gets the
//! request as a foreign layer sees it, hidden items are refused as unknown ones, and a failing
//! or malformed predicate hides what it was asked about instead of failing the request.

use ferromcp::McpError;
use ferromcp_embed::{
    CallOptions, ClientConfig, EmbeddedClient, EmbeddedServer, ForeignAccessPredicate,
    ForeignAnswer, ForeignContext, ForeignHandler, ForeignRequest,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

struct Ran(&'static str);

impl ForeignHandler for Ran {
    fn call(
        &self,
        _request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let text = format!("ran {}", self.0);
        Box::pin(async move { Ok(json!(text).into()) })
    }
}

/// What a predicate was asked: (method, kind, names).
type Asked = Arc<Mutex<Vec<(String, String, Vec<String>)>>>;

/// Hides the names starting with `admin_`; or answers `answer` as it is, when set.
struct HideAdmin {
    asked: Asked,
    answer: Option<Result<Value, McpError>>,
}

impl ForeignAccessPredicate for HideAdmin {
    fn allowed(
        &self,
        request: Value,
        kind: &'static str,
        names: Vec<String>,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let answer = self.answer.clone().unwrap_or_else(|| {
            Ok(json!(names
                .iter()
                .map(|n| !n.starts_with("admin_"))
                .collect::<Vec<_>>()))
        });
        let method = request["method"].as_str().unwrap_or_default().to_string();
        assert!(request["sessionKey"].is_string(), "{request}");
        self.asked
            .lock()
            .unwrap()
            .push((method, kind.to_string(), names));
        Box::pin(async move { answer })
    }
}

const TOOLS: [&str; 8] = [
    "a", "admin_1", "b", "admin_2", "admin_3", "c", "d", "admin_4",
];

fn server(predicate: HideAdmin) -> EmbeddedServer {
    let s =
        EmbeddedServer::from_json(json!({"name": "authz", "version": "1", "pageSize": 2})).unwrap();
    for name in TOOLS {
        s.add_tool_json(
            json!({"name": name, "inputSchema": {"type": "object"}}),
            Arc::new(Ran(name)),
        )
        .unwrap();
    }
    s.add_access_predicate(Arc::new(predicate)).unwrap();
    s
}

async fn client(server: &EmbeddedServer) -> EmbeddedClient {
    EmbeddedClient::connect_memory(server, &ClientConfig::default(), None)
        .await
        .unwrap()
}

/// Every page of tools/list: the names of each page and its nextCursor.
async fn pages(c: &EmbeddedClient) -> Vec<(Vec<String>, Option<String>)> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
        let r = c
            .request("tools/list", params, CallOptions::default())
            .await
            .unwrap();
        let names = r["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        cursor = r["nextCursor"].as_str().map(str::to_string);
        out.push((names, cursor.clone()));
        if cursor.is_none() {
            return out;
        }
    }
}

async fn call(c: &EmbeddedClient, name: &str) -> Result<Value, McpError> {
    c.request(
        "tools/call",
        Some(json!({"name": name, "arguments": {}})),
        CallOptions::default(),
    )
    .await
}

#[tokio::test]
async fn allow_if_full_pages() {
    let asked = Asked::default();
    let s = server(HideAdmin {
        asked: asked.clone(),
        answer: None,
    });
    let c = client(&s).await;
    let got = pages(&c).await;
    let names: Vec<Vec<String>> = got.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, [vec!["a", "b"], vec!["c", "d"]]);
    assert!(got[0].1.is_some() && got[1].1.is_none(), "{got:?}");
    // One question per list request, with every name.
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0].0, "tools/list");
    assert_eq!(asked[0].1, "tool");
    assert_eq!(asked[0].2, TOOLS);
}

#[tokio::test]
async fn a_hidden_tool_is_refused_as_an_unknown_one() {
    let s = server(HideAdmin {
        asked: Asked::default(),
        answer: None,
    });
    let c = client(&s).await;
    let e = call(&c, "admin_2").await.unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32602, "Unknown tool: admin_2")
    );
    assert_eq!(e.data, Some(json!({"tool": "admin_2"})));
    let r = call(&c, "b").await.unwrap();
    assert_eq!(r["content"][0]["text"], "ran b");
}

#[tokio::test]
async fn a_failing_predicate_hides_what_it_was_asked_about() {
    let s = server(HideAdmin {
        asked: Asked::default(),
        answer: Some(Err(McpError::internal("predicate raised"))),
    });
    let c = client(&s).await;
    assert_eq!(pages(&c).await, [(Vec::<String>::new(), None)]);
    let e = call(&c, "a").await.unwrap_err();
    assert_eq!(e.code, -32602, "{e:?}");
}

#[tokio::test]
async fn a_malformed_answer_hides_what_it_was_asked_about() {
    for answer in [
        json!([true]),
        json!("yes"),
        json!([true, 1, true, true, true, true, true, true]),
    ] {
        let s = server(HideAdmin {
            asked: Asked::default(),
            answer: Some(Ok(answer.clone())),
        });
        let c = client(&s).await;
        assert_eq!(pages(&c).await, [(Vec::<String>::new(), None)], "{answer}");
    }
}
