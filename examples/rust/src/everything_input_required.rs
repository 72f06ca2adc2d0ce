//! The everything server's tools of the multi round-trip scenarios (2026-07-28
//! `input-required-result-*`, listed in `tests/conformance/SCENARIOS.md`): they answer
//! `input_required` until the client's retry carries what they asked for, and the helpers that
//! build those input requests (the prompts use them too). Apart from `everything_server.rs` so that
//! file holds the rest of the surface.

use super::{client_has, no_args, text_result, tool};
use ferromcp::protocol::CallToolResult;
use ferromcp::server::{tool_fn, ServerBuilder};
use ferromcp::session::{input_required, RequestContext};
use ferromcp::McpError;
use serde_json::{json, Map, Value};

/// An `elicitation/create` input request with a one-property form.
pub(crate) fn elicit_input(message: &str, property: &str, kind: &str) -> Value {
    json!({ "method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": { "type": "object",
            "properties": { property: { "type": kind } }, "required": [property] } } })
}

fn sampling_input(text: &str, max_tokens: u32) -> Value {
    json!({ "method": "sampling/createMessage", "params": {
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
        "maxTokens": max_tokens } })
}

/// Input requests, by key.
pub(crate) fn inputs(pairs: Vec<(&str, Value)>) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The content of an accepted elicitation answer to `key`, if the retry carries one.
pub(crate) fn accepted(ctx: &RequestContext, key: &str) -> Option<Value> {
    ctx.input_response(key)
        .filter(|r| r["action"] == "accept")
        .map(|r| r["content"].clone())
}

/// Tools of the multi round-trip scenarios (2026-07-28 `input-required-result-*`): they answer
/// `input_required` until the client's retry carries what they asked for.
pub(crate) fn add_input_required_tools(b: ServerBuilder) -> ServerBuilder {
    b.tool_raw(
        tool(
            "test_input_required_result_elicitation",
            "Asks for the user's name (input_required), then greets",
            no_args(),
        ),
        // ctx.input: the same handler asks through input_required (2026-07-28) or by sending
        // the request (handshake era).
        tool_fn(|_, ctx| async move {
            let ask = inputs(vec![("user_name", elicit_input("What is your name?", "name", "string"))]);
            let answers = ctx.input(ask).await?;
            let name = answers["user_name"]["content"]["name"].as_str().unwrap_or("stranger");
            text_result(format!("Hello, {name}!"))
        }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_sampling",
            "Asks the client's LLM a question (input_required), then reports the answer",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let ask = inputs(vec![("capital_question", sampling_input("What is the capital of France?", 100))]);
            let answers = ctx.input(ask).await?;
            let text = answers["capital_question"]["content"]["text"].as_str().unwrap_or_default();
            text_result(format!("LLM response: {text}"))
        }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_list_roots",
            "Asks for the client's roots (input_required), then lists them",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let ask = inputs(vec![("client_roots", json!({ "method": "roots/list", "params": {} }))]);
            let answers = ctx.input(ask).await?;
            let uris: Vec<&str> = answers["client_roots"]["roots"]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x["uri"].as_str()).collect())
                .unwrap_or_default();
            text_result(format!("Client roots: {}", uris.join(", ")))
        }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_request_state",
            "Asks for a confirmation with server state in requestState, then checks the state",
            no_args(),
        ),
        tool_fn(|_, ctx| async move { confirm_with_state(&ctx) }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_tampered_state",
            "Like test_input_required_result_request_state; a tampered requestState is refused",
            no_args(),
        ),
        tool_fn(|_, ctx| async move { confirm_with_state(&ctx) }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, an LLM greeting and the roots in one round",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let keys = ["user_name", "greeting", "client_roots"];
            if keys.iter().all(|k| ctx.input_response(k).is_some()) {
                return text_result("Received all inputs: user_name, greeting, client_roots");
            }
            Err(input_required(
                inputs(vec![
                    ("user_name", elicit_input("What is your name?", "name", "string")),
                    ("greeting", sampling_input("Generate a greeting", 50)),
                    ("client_roots", json!({ "method": "roots/list", "params": {} })),
                ]),
                Some(json!({ "round": 1 })),
            ))
        }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_multi_round",
            "Asks two questions in two rounds, carrying the first answer in requestState",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let step = ctx.request_state().and_then(|s| s["step"].as_u64()).unwrap_or(0);
            if step == 1 {
                if let Some(name) = accepted(&ctx, "step1").and_then(|c| c["name"].as_str().map(str::to_string)) {
                    return Err(input_required(
                        inputs(vec![("step2", elicit_input("Step 2: What is your favorite color?", "color", "string"))]),
                        Some(json!({ "step": 2, "name": name })),
                    ));
                }
            }
            if step == 2 {
                if let Some(color) = accepted(&ctx, "step2").and_then(|c| c["color"].as_str().map(str::to_string)) {
                    let name = ctx.request_state().and_then(|s| s["name"].as_str()).unwrap_or("?");
                    return text_result(format!("{name} likes {color}"));
                }
            }
            Err(input_required(
                inputs(vec![("step1", elicit_input("Step 1: What is your name?", "name", "string"))]),
                Some(json!({ "step": 1 })),
            ))
        }),
    )
    .tool_raw(
        tool(
            "test_input_required_result_capabilities",
            "Asks only for what the request's client capabilities allow",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            if ctx.input_response("llm").is_some() || ctx.input_response("user").is_some() {
                return text_result("Received the input");
            }
            let mut wanted = Vec::new();
            if client_has(&ctx, "sampling") {
                wanted.push(("llm", sampling_input("Say hello", 20)));
            }
            if client_has(&ctx, "elicitation") {
                wanted.push(("user", elicit_input("Your name?", "name", "string")));
            }
            if wanted.is_empty() {
                return text_result("The client declared no capability to ask with");
            }
            Err(input_required(inputs(wanted), None))
        }),
    )
    .tool_raw(
        tool(
            "test_streaming_elicitation",
            "Elicits through ctx.request: in 2026-07-28 an input_required result, never a request on the stream",
            no_args(),
        ),
        tool_fn(|_, ctx| async move {
            let r = ctx
                .request("elicitation/create", Some(elicit_input("Your name?", "name", "string")["params"].clone()))
                .await?;
            text_result(format!("Elicitation answered: {}", r["action"].as_str().unwrap_or("?")))
        }),
    )
}

/// Round 1: asks for a confirmation with state in `requestState`; round 2: the state came back
/// intact (the engine refuses an altered one before the tool runs).
fn confirm_with_state(ctx: &RequestContext) -> Result<CallToolResult, McpError> {
    let state_ok = ctx.request_state().and_then(|s| s["nonce"].as_str()) == Some("state-ok");
    match ctx.input_response("confirm") {
        Some(_) if state_ok => {
            text_result("state-ok: confirmation received with valid requestState")
        }
        Some(_) => Err(McpError::invalid_params("requestState is missing")),
        None => Err(input_required(
            inputs(vec![(
                "confirm",
                elicit_input("Please confirm", "ok", "boolean"),
            )]),
            Some(json!({ "nonce": "state-ok" })),
        )),
    }
}
