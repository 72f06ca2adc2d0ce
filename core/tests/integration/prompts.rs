//! Proves the prompts feature: list and get, a missing required argument -> -32602 naming it, a
//! non-string argument -> -32602, and an unknown prompt -> -32602.

use crate::support;

use ferromcp::codes;
use ferromcp::protocol::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
use ferromcp::server::{prompt_fn, Server};
use serde_json::{json, Value};
use support::{error_code, RawPeer};

pub fn server() -> Server {
    Server::builder("prompts", "1")
        .prompt(
            {
                let mut lit = Prompt::new("greet");
                lit.description = Some("Greets".into());
                lit.arguments = Some(vec![
                    {
                        let mut lit = PromptArgument::default();
                        lit.name = "name".into();
                        lit.required = Some(true);
                        lit
                    },
                    {
                        let mut lit = PromptArgument::default();
                        lit.name = "style".into();
                        lit.required = Some(false);
                        lit
                    },
                ]);
                lit
            },
            prompt_fn(|args, _c| async move {
                let name = args
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string();
                let style = args
                    .get("style")
                    .and_then(Value::as_str)
                    .unwrap_or("plain")
                    .to_string();
                Ok({
                    let mut lit = GetPromptResult::default();
                    lit.description = Some("greeting".into());
                    lit.messages =
                        vec![PromptMessage::user_text(format!("greet {name} ({style})"))];
                    lit
                })
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn list_and_get() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let r = p.call(json!(1), "prompts/list", json!({})).await;
    assert_eq!(r["prompts"][0]["name"], "greet");
    assert_eq!(r["prompts"][0]["arguments"][0]["name"], "name");
    assert_eq!(r["prompts"][0]["arguments"][0]["required"], true);
    let r = p
        .call(
            json!(2),
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada", "style": "warm"}}),
        )
        .await;
    assert_eq!(r["messages"][0]["role"], "user");
    assert_eq!(r["messages"][0]["content"]["type"], "text");
    assert_eq!(r["messages"][0]["content"]["text"], "greet Ada (warm)");
    assert_eq!(r["description"], "greeting");
}

#[tokio::test]
async fn missing_required_argument_is_named() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    for params in [
        json!({"name": "greet"}),
        json!({"name": "greet", "arguments": {"style": "x"}}),
    ] {
        let m = p.request(json!(1), "prompts/get", params).await;
        assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
        assert!(
            m["error"]["message"].as_str().unwrap().contains("name"),
            "{m}"
        );
        assert_eq!(m["error"]["data"]["missing"], json!(["name"]));
    }
}

#[tokio::test]
async fn non_string_argument_is_invalid_params() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    for bad in [
        json!(5),
        json!(null),
        json!({"a": 1}),
        json!(["x"]),
        json!(true),
    ] {
        let m = p
            .request(
                json!(1),
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": bad}}),
            )
            .await;
        assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64, "{bad}: {m}");
    }
    let m = p
        .request(json!(2), "prompts/get", json!({"name": "nope"}))
        .await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    p.assert_alive().await;
}
