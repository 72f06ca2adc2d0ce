//! [`ClientConfig`]: a client's identity and what it offers the server (protocol revision and
//! era, timeouts, sampling, elicitation, roots, the tasks extension, the tasks it runs for its
//! server) as a binding passes them, turned into the engine's `ClientOptions`. Apart from the
//! server's options because the other side of a connection reads it.

use super::from_json;
use ferromcp::client::{ClientOptions, ProtocolMode};
use ferromcp::protocol::ProtocolVersion;
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// A client's identity and the features it offers the server.
///
/// JSON: `{"name"?, "version"?, "protocolVersion"?, "protocolMode"?, "requestTimeoutMs"?,
/// "maxMessageSize"?, "sampling"?, "samplingTools"?, "elicitation"?, "elicitationUrl"?,
/// "roots"?, "tasksExtension"?, "tasks"?, "capabilities"?, "openTelemetry"?}`. Each of `sampling`,
/// `elicitation` and `roots` set to true is advertised and routed to the client handler.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientConfig {
    /// `clientInfo.name` (default `"ferromcp-client"`).
    pub name: Option<String>,
    /// `clientInfo.version` (default `"0.0.0"`).
    pub version: Option<String>,
    /// The revision to ask for (default: the newest handshake revision). A per-request
    /// revision (`"2026-07-28"`) means `protocolMode: "perRequest"`.
    pub protocol_version: Option<String>,
    /// `"handshake"` (the default: `initialize`), `"auto"` (probe `server/discover`, fall back
    /// to the handshake) or `"perRequest"` (2026-07-28 only).
    pub protocol_mode: Option<String>,
    /// Default timeout of requests (milliseconds).
    pub request_timeout_ms: Option<u64>,
    /// Largest message accepted (default 4 MiB): a response over it fails the call waiting
    /// for it.
    pub max_message_size: Option<u64>,
    /// Offer `sampling/createMessage`.
    #[serde(default)]
    pub sampling: bool,
    /// Offer tool use inside sampling (2025-11-25).
    #[serde(default)]
    pub sampling_tools: bool,
    /// Offer `elicitation/create` (form mode).
    #[serde(default)]
    pub elicitation: bool,
    /// Offer URL-mode elicitation too (2025-11-25).
    #[serde(default)]
    pub elicitation_url: bool,
    /// Offer `roots/list`.
    #[serde(default)]
    pub roots: bool,
    /// Whether per-request-era (2026-07-28) requests declare the tasks extension
    /// `io.modelcontextprotocol/tasks` (default true; see `ClientOptions::tasks_extension`).
    /// Off, the server answers every `tools/call` itself (never with a task) and refuses a
    /// `subscriptions/listen` naming `taskIds` with -32021 (the extension requires the
    /// declaration). The handshake era is unaffected.
    pub tasks_extension: Option<bool>,
    /// Run the server's task-augmented `sampling/createMessage` and `elicitation/create` as
    /// tasks of this client (2025-11-25, handshake era; default false; see
    /// `ClientOptions::tasks`, here with the engine's default limits): the client declares
    /// `tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create` for the
    /// handlers it has, answers such a request at once with a `CreateTaskResult` while its
    /// handler runs as the task (the handler's params keep `task`), and answers the server's
    /// `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
    #[serde(default)]
    pub tasks: bool,
    /// More client capabilities, deep-merged over the ones the options above declare (the
    /// engine's `ClientHandlers::extra_capabilities`): chiefly `extensions` (2026-07-28) or
    /// `experimental`, e.g. `{"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes":
    /// ["text/html;profile=mcp-app"]}}}` for a host that renders MCP Apps. Must be an object.
    pub capabilities: Option<Value>,
    /// OpenTelemetry for this client's requests (docs/observability.md), the options of the
    /// server's `openTelemetry` layer: `{"serviceName"?, "otlpEndpoint"?, "otlpHeaders"?,
    /// "samplingRatio"?, "metricExportIntervalMs"?}`, each defaulted from the `OTEL_*`
    /// variables (`{}` takes them all from there). Every request then gets a `CLIENT` span
    /// whose parent is the trace context the caller put in `params._meta` (`traceparent`,
    /// `tracestate`, `baggage`), if any, and whose own context replaces it there for the
    /// server; its duration is recorded as `mcp.client.operation.duration`. The client owns
    /// this telemetry: closing it flushes and stops the exporters. Needs an engine built with
    /// the `otel` feature (the bindings' are).
    pub open_telemetry: Option<Value>,
}

impl ClientConfig {
    /// Reads the JSON form (see the struct's documentation).
    pub fn from_json(v: Value) -> Result<Self, McpError> {
        let config: Self = from_json("client config", v)?;
        if let Some(c) = &config.capabilities {
            if !c.is_object() {
                return Err(McpError::invalid_params(format!(
                    "client config: capabilities must be an object, got {c}"
                )));
            }
        }
        if let Some(t) = &config.open_telemetry {
            // Refused here, when the client is made, rather than at connect.
            #[cfg(feature = "otel")]
            telemetry_config(t)?;
            #[cfg(not(feature = "otel"))]
            let _ = t;
            #[cfg(not(feature = "otel"))]
            return Err(McpError::invalid_params(
                "client config: openTelemetry needs an engine built with the otel feature",
            ));
        }
        Ok(config)
    }

    /// The engine's options for this configuration.
    pub(crate) fn options(&self) -> Result<ClientOptions, McpError> {
        let mut o = ClientOptions::new(
            self.name
                .clone()
                .unwrap_or_else(|| "ferromcp-client".into()),
            self.version.clone().unwrap_or_else(|| "0.0.0".into()),
        );
        if let Some(v) = &self.protocol_version {
            let v = ProtocolVersion::parse(v).ok_or_else(|| {
                McpError::invalid_params(format!("unknown protocol version {v:?}"))
            })?;
            if v.is_per_request() {
                o.mode = ProtocolMode::PerRequest;
            } else {
                o.protocol_version = v;
            }
        }
        if let Some(m) = &self.protocol_mode {
            o.mode = match m.as_str() {
                "handshake" => ProtocolMode::Handshake,
                "auto" => ProtocolMode::Auto,
                "perRequest" => ProtocolMode::PerRequest,
                other => {
                    return Err(McpError::invalid_params(format!(
                        "unknown protocolMode {other:?} (handshake, auto or perRequest)"
                    )))
                }
            };
        }
        if let Some(ms) = self.request_timeout_ms {
            o.session.request_timeout = Some(Duration::from_millis(ms));
        }
        if let Some(n) = self.max_message_size {
            o.session.max_message_size = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
        }
        if let Some(on) = self.tasks_extension {
            o.tasks_extension = on;
        }
        if self.tasks {
            o.tasks = Some(ferromcp::client::TaskOptions::default());
        }
        #[cfg(feature = "otel")]
        if let Some(t) = &self.open_telemetry {
            let t = ferromcp::telemetry::Telemetry::new(telemetry_config(t)?)
                .map_err(|e| McpError::invalid_params(format!("client config: {e}")))?;
            o.telemetry = Some(t);
        }
        Ok(o)
    }
}

/// The telemetry configuration of a client's `openTelemetry` option: the server layer's keys
/// (`TelemetryConfig::from_layer_json`) without its `name`.
#[cfg(feature = "otel")]
fn telemetry_config(v: &Value) -> Result<ferromcp::telemetry::TelemetryConfig, McpError> {
    let Value::Object(o) = v else {
        return Err(McpError::invalid_params(format!(
            "client config: openTelemetry must be an object, not {}",
            ferromcp::schema::json_type_name(v)
        )));
    };
    let mut layer = o.clone();
    layer.insert("name".into(), Value::String("openTelemetry".into()));
    ferromcp::telemetry::TelemetryConfig::from_layer_json(&Value::Object(layer))
        .map_err(|e| McpError::invalid_params(format!("client config: {}", e.message)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_extension_is_on_unless_turned_off() {
        let options = |v: Value| ClientConfig::from_json(v).unwrap().options().unwrap();
        assert!(options(serde_json::json!({})).tasks_extension);
        assert!(options(serde_json::json!({"tasksExtension": true})).tasks_extension);
        assert!(!options(serde_json::json!({"tasksExtension": false})).tasks_extension);
        let err = ClientConfig::from_json(serde_json::json!({"tasksExtension": "no"})).unwrap_err();
        assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
    }

    #[test]
    fn tasks_are_off_unless_turned_on() {
        let options = |v: Value| ClientConfig::from_json(v).unwrap().options().unwrap();
        assert!(options(serde_json::json!({})).tasks.is_none());
        assert!(options(serde_json::json!({"tasks": false})).tasks.is_none());
        assert!(options(serde_json::json!({"tasks": true})).tasks.is_some());
        let err = ClientConfig::from_json(serde_json::json!({"tasks": "yes"})).unwrap_err();
        assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
    }

    #[test]
    fn capabilities_are_merged_into_the_handshake_and_must_be_an_object() {
        let caps = serde_json::json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
        let config =
            ClientConfig::from_json(serde_json::json!({"roots": true, "capabilities": caps}))
                .unwrap();
        // Declared with or without a foreign handler (a client that only renders apps has none).
        let declared = config.handlers(None).capabilities();
        assert_eq!(declared["extensions"], caps["extensions"], "{declared}");
        let err = ClientConfig::from_json(serde_json::json!({"capabilities": ["ui"]})).unwrap_err();
        assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
        assert!(
            err.message.contains("capabilities must be an object"),
            "{}",
            err.message
        );
    }

    #[test]
    #[cfg(feature = "otel")]
    fn open_telemetry_takes_the_layers_keys_and_gives_the_client_a_telemetry() {
        let config = |v: Value| ClientConfig::from_json(serde_json::json!({ "openTelemetry": v }));
        let o = config(serde_json::json!({"serviceName": "c", "samplingRatio": 0.5}))
            .unwrap()
            .options()
            .unwrap();
        assert!(o.telemetry.is_some());
        assert!(ClientConfig::from_json(serde_json::json!({}))
            .unwrap()
            .options()
            .unwrap()
            .telemetry
            .is_none());
        assert!(
            config(serde_json::json!({})).is_ok(),
            "{{}}: all from OTEL_*"
        );
        for (bad, says) in [
            (
                serde_json::json!({"prometheus": "/metrics"}),
                "unknown field",
            ),
            (serde_json::json!({"samplingRatio": 2.0}), "samplingRatio"),
            (serde_json::json!(true), "must be an object"),
        ] {
            let err = config(bad.clone()).unwrap_err();
            assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{bad}");
            assert!(err.message.contains(says), "{bad}: {}", err.message);
        }
    }

    #[test]
    #[cfg(not(feature = "otel"))]
    fn open_telemetry_is_refused_without_the_feature() {
        let err = ClientConfig::from_json(serde_json::json!({"openTelemetry": {}})).unwrap_err();
        assert!(err.message.contains("otel feature"), "{}", err.message);
    }
}
