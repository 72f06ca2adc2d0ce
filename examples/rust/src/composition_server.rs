//! A stdio MCP server built from others: a weather server mounted under `weather` (live), a
//! notes server imported under `notes` (copied once), a tool made from another by a transform,
//! and an authorization layer that hides the `admin_*` tools from callers without the `admin`
//! scope (over stdio there is no token, so they stay hidden).
//!
//! Run it under any MCP client (it speaks on stdin/stdout):
//! `cargo run -p ferromcp-examples --bin composition-server`.

use ferromcp::protocol::{CallToolResult, Resource, ResourceContents, TextResourceContents, Tool};
use ferromcp::server::authorization::{Authorization, ItemKind};
use ferromcp::server::transform::ToolTransform;
use ferromcp::server::{resource_fn, tool_fn, Server, ToolFn};
use serde_json::{json, Value};

/// `forecast(city, units, days?)`: the days' highs and lows as structured content.
fn forecast_tool() -> (Tool, ToolFn) {
    let mut forecast = Tool::new("forecast");
    forecast.description = Some("The forecast for a city.".into());
    forecast.input_schema = json!({
        "type": "object",
        "properties": {
            "city": { "type": "string" },
            "days": { "type": "integer", "minimum": 1 },
            "units": { "type": "string", "enum": ["metric", "imperial"] }
        },
        "required": ["city", "units"]
    });
    let handler = tool_fn(|args, _| async move {
        let days = args.get("days").and_then(Value::as_u64).unwrap_or(1);
        let days: Vec<Value> = (0..days)
            .map(|d| json!({ "day": d, "high": 20 + d, "low": 10 + d, "units": args["units"] }))
            .collect();
        Ok(CallToolResult::text("forecast ready")
            .with_structured_content(json!({ "city": args["city"], "days": days })))
    });
    (forecast, handler)
}

/// The weather server: `forecast` and a resource `weather://stations`.
fn weather() -> Result<Server, ferromcp::McpError> {
    let (forecast, handler) = forecast_tool();
    Server::builder("weather", "1.0.0")
        .tool_raw(forecast, handler)
        .resource(
            Resource::new("weather://stations", "stations"),
            resource_fn(|req, _| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri,
                    "Oslo, Lima",
                ))])
            }),
        )
        .build()
}

/// `add(text)` and `admin_purge()`.
fn notes() -> Result<Server, ferromcp::McpError> {
    let mut add = Tool::new("add");
    add.input_schema = json!({
        "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"]
    });
    Server::builder("notes", "1.0.0")
        .tool_raw(
            add,
            tool_fn(|args, _| async move {
                Ok(CallToolResult::text(format!("noted: {}", args["text"])))
            }),
        )
        .tool_raw(
            Tool::new("admin_purge"),
            tool_fn(|_, _| async move { Ok(CallToolResult::text("purged")) }),
        )
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("composed", "1.0.0")
        // Added before the mount, so it sees the mounted and imported items too.
        .middleware(Authorization::new().require_scopes(ItemKind::Tool, "*admin_*", ["admin"]))
        .build()?;
    server.mount("weather", &weather()?)?; // weather_forecast, weather://weather/stations
    server.import_server("notes", &notes()?)?; // notes_add, notes_admin_purge (hidden)
                                               // A tool made from `forecast`: metric only, three days at most, the highs alone.
    let (forecast, handler) = forecast_tool();
    let (tool, handler) = ToolTransform::new("highs")
        .description("Daily highs in degrees Celsius for a city.")
        .rename_arg("city", "place")
        .hide_arg("units", json!("metric"))
        .default_arg("days", json!(3))
        .constrain_arg("days", json!({ "maximum": 3 }))
        .reshape_output(
            Some(json!({
                "type": "object",
                "properties": { "highs": { "type": "array", "items": { "type": "integer" } } },
                "required": ["highs"]
            })),
            |out| {
                let highs: Vec<Value> = out["days"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| d["high"].clone())
                    .collect();
                Ok(json!({ "highs": highs }))
            },
        )
        .apply(&forecast, handler)?;
    server.add_tool(tool, handler)?;
    server.serve_stdio().await?;
    Ok(())
}
