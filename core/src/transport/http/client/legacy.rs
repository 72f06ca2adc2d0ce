//! The legacy (2024-11-05) HTTP+SSE client transport: the SSE stream at the server's URL, its
//! `endpoint` event telling where to POST (`crate::client::http::connect_legacy` connects a
//! client over it).

use super::{
    make_shared, request_failed, transport_err, HttpClientOptions, HttpReader, HttpWriter,
};
use crate::transport::http::sse::SseParser;
use crate::McpError;
use bytes::Bytes;
use http::{Method, Uri};
use http_body_util::BodyExt;
use std::time::Duration;

/// A legacy (2024-11-05) HTTP+SSE transport: opens the SSE stream at `url` and waits for its
/// `endpoint` event.
pub async fn legacy_transport(
    url: &str,
    options: &HttpClientOptions,
) -> Result<(HttpReader, HttpWriter), McpError> {
    let (shared, reader) = make_shared(url, options)?;
    let req = shared.request(Method::GET, shared.url.clone(), Bytes::new())?;
    let resp = shared.http.request(req).await.map_err(request_failed)?;
    if !resp.status().is_success() {
        return Err(transport_err(
            Some(resp.status()),
            format!("legacy SSE endpoint answered HTTP {}", resp.status()),
        ));
    }
    let mut body = super::super::compression::body::decoded_body(resp);
    let mut parser = SseParser::new();
    let mut early = Vec::new();
    let endpoint = loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), body.frame())
            .await
            .map_err(|_| McpError::timeout("no endpoint event from the legacy SSE server"))?;
        let Some(Ok(frame)) = frame else {
            return Err(McpError::transport(
                "legacy SSE stream ended before the endpoint event",
            ));
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let mut found = None;
        for ev in parser.feed(&data) {
            if ev.event.as_deref() == Some("endpoint") {
                found = Some(ev.data);
            } else if found.is_some() {
                early.push(ev);
            }
        }
        if let Some(e) = found {
            break e;
        }
    };
    let endpoint = resolve(&shared.url, endpoint.trim())?;
    *shared.legacy_endpoint.lock().unwrap() = Some(endpoint);
    let s = shared.clone();
    tokio::spawn(async move {
        for ev in early {
            if ev.event.as_deref().unwrap_or("message") == "message" {
                s.push(ev.data.as_bytes()).await;
            }
        }
        loop {
            let frame = tokio::select! {
                f = body.frame() => f,
                _ = s.closed.cancelled() => return,
            };
            let Some(Ok(frame)) = frame else { break };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            for ev in parser.feed(&data) {
                if ev.event.as_deref().unwrap_or("message") == "message" && !ev.data.is_empty() {
                    s.push(ev.data.as_bytes()).await;
                }
            }
        }
        // The stream is the connection: its end closes the transport.
        s.closed.cancel();
    });
    Ok((reader, HttpWriter { shared }))
}

/// Resolves the legacy `endpoint` (absolute URL, absolute path or relative path) against `base`.
fn resolve(base: &Uri, endpoint: &str) -> Result<Uri, McpError> {
    let bad = |e: &dyn std::fmt::Display| {
        McpError::transport(format!("invalid endpoint {endpoint:?}: {e}"))
    };
    if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        return endpoint.parse().map_err(|e| bad(&e));
    }
    let authority = base.authority().map(|a| a.as_str()).unwrap_or("");
    let scheme = base.scheme_str().unwrap_or("http");
    let path = if endpoint.starts_with('/') {
        endpoint.to_string()
    } else {
        let dir = base.path().rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        format!("{dir}/{endpoint}")
    };
    format!("{scheme}://{authority}{path}")
        .parse()
        .map_err(|e| bad(&e))
}
