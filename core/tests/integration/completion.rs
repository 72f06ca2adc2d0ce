//! Proves completion/complete: `context.arguments` reach the handler, more than 100 values are
//! truncated to 100 with `hasMore` and `total`, and a reference to an unknown prompt -> -32602.

use crate::support;

use ferromcp::codes;
use ferromcp::protocol::{Completion, GetPromptResult, Prompt, PromptArgument};
use ferromcp::server::{completion_fn, prompt_fn, CompletionRef, Server};
use serde_json::json;
use support::{error_code, RawPeer};

fn server() -> Server {
    Server::builder("complete", "1")
        .prompt(
            {
                let mut lit = Prompt::new("code");
                lit.arguments = Some(vec![
                    {
                        let mut lit = PromptArgument::default();
                        lit.name = "lang".into();
                        lit
                    },
                    {
                        let mut lit = PromptArgument::default();
                        lit.name = "many".into();
                        lit
                    },
                ]);
                lit
            },
            prompt_fn(|_a, _c| async move { Ok(GetPromptResult::default()) }),
        )
        .completion(
            CompletionRef::Prompt("code".into()),
            "lang",
            completion_fn(|p, _c| async move {
                let ctx = p
                    .context
                    .and_then(|c| c.arguments)
                    .map(|a| format!("{a:?}"))
                    .unwrap_or_else(|| "none".into());
                Ok({
                    let mut lit = Completion::default();
                    lit.values = vec![format!("{}-rust", p.argument.value), format!("ctx:{ctx}")];
                    lit
                })
            }),
        )
        .completion(
            CompletionRef::Prompt("code".into()),
            "many",
            completion_fn(|_p, _c| async move {
                Ok({
                    let mut lit = Completion::default();
                    lit.values = (0..250).map(|i| format!("v{i}")).collect();
                    lit
                })
            }),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn context_arguments_reach_handler() {
    let mut p = RawPeer::start(&server());
    let init = p.initialize("2025-11-25").await;
    assert!(init["capabilities"]["completions"].is_object());
    let r = p
        .call(
            json!(1),
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "code"},
                "argument": {"name": "lang", "value": "ru"},
                "context": {"arguments": {"framework": "tokio"}}
            }),
        )
        .await;
    let values = r["completion"]["values"].as_array().unwrap();
    assert_eq!(values[0], "ru-rust");
    assert_eq!(values[1], r#"ctx:{"framework": "tokio"}"#);
}

#[tokio::test]
async fn more_than_100_values_are_truncated() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let r = p
        .call(
            json!(1),
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "code"},
                "argument": {"name": "many", "value": ""}
            }),
        )
        .await;
    assert_eq!(r["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(r["completion"]["values"][0], "v0");
    assert_eq!(r["completion"]["hasMore"], true);
    assert_eq!(r["completion"]["total"], 250);
}

#[tokio::test]
async fn unknown_prompt_ref_is_invalid_params() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let m = p
        .request(
            json!(1),
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "nope"},
                "argument": {"name": "lang", "value": ""}
            }),
        )
        .await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    let m = p
        .request(
            json!(2),
            "completion/complete",
            json!({"ref": {"type": "ref/bogus"}, "argument": {}}),
        )
        .await;
    assert_eq!(error_code(&m), codes::INVALID_PARAMS as i64);
    p.assert_alive().await;
}

#[tokio::test]
async fn completion_works_under_2024_11_05_without_a_capability() {
    // 2024-11-05 has completion/complete but no `completions` capability to advertise it, so
    // neither side may require the capability under that revision.
    let mut p = RawPeer::start(&server());
    let init = p.initialize("2024-11-05").await;
    assert!(
        init["capabilities"].get("completions").is_none(),
        "not in the 2024-11-05 schema"
    );
    let r = p
        .call(
            json!(1),
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "code"},
                "argument": {"name": "lang", "value": "go"}
            }),
        )
        .await;
    assert_eq!(r["completion"]["values"][0], "go-rust");

    let mut opts = ferromcp::client::ClientOptions::new("old", "0");
    opts.protocol_version = ferromcp::ProtocolVersion::V2024_11_05;
    let client = support::connect_with(&server(), Default::default(), opts).await;
    assert_eq!(
        client.protocol_version(),
        ferromcp::ProtocolVersion::V2024_11_05
    );
    let r = support::within(
        client.complete(ferromcp::protocol::CompleteRequestParams::new(
            ferromcp::protocol::PromptReference::new("code"),
            "lang",
            "py",
        )),
    )
    .await
    .expect("a 2024-11-05 client may call completion/complete");
    assert_eq!(r.completion.values[0], "py-rust");
    client.close().await;
}
