//! The composition example over real stdio: `Client::spawn` starts the `composition-server`
//! binary; the mounted weather tool and resource and the imported notes tool answer under
//! their prefixes, the admin tool imported from the notes server is hidden and refused as an
//! unknown tool (no token over stdio, so no `admin` scope), and the transformed `highs` tool
//! takes `place`, hides `units`, defaults and caps `days` and returns only the highs.

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use serde_json::json;
use std::time::Duration;

const T: Duration = Duration::from_secs(10);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(T, f).await.expect("timed out")
}

#[tokio::test]
async fn composition_example_over_stdio() {
    let process =
        ChildProcessOptions::new(env!("CARGO_BIN_EXE_composition-server")).stderr(StderrMode::Null);
    let client = within(Client::spawn(
        process,
        ClientOptions::new("guest", "0"),
        ClientHandlers::default(),
    ))
    .await
    .expect("spawn and handshake");
    let names: Vec<String> = within(client.list_all_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["notes_add", "highs", "weather_forecast"]);

    let r = within(client.call_tool(
        "weather_forecast",
        json!({ "city": "Oslo", "units": "imperial", "days": 2 }),
    ))
    .await
    .unwrap();
    assert_eq!(
        r.structured_content.unwrap()["days"][1]["units"],
        "imperial"
    );
    let r = within(client.read_resource("weather://weather/stations"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r.contents[0]).unwrap()["uri"],
        "weather://stations"
    );
    let r = within(client.call_tool("notes_add", json!({ "text": "hi" })))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("noted: \"hi\""));
    let err = within(client.call_tool("notes_admin_purge", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (-32602, "Unknown tool: notes_admin_purge")
    );

    let r = within(client.call_tool("highs", json!({ "place": "Lima" })))
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({ "highs": [20, 21, 22] })));
    let r = within(client.call_tool("highs", json!({ "place": "Lima", "days": 5 })))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true), "days is capped at 3");
    client.close().await;
}
