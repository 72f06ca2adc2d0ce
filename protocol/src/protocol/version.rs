//! Protocol revisions and what each one allows.
//!
//! The engine speaks every handshake-era revision (an `initialize` handshake opens a session)
//! and the per-request era that follows it (2026-07-28: every request carries its version and
//! client capabilities in `_meta`). Feature checks are methods on [`ProtocolVersion`] so that
//! code asks "does this revision have X?" instead of comparing dates.

use std::fmt;
use std::str::FromStr;

/// A negotiated MCP protocol revision.
///
/// ```
/// use ferromcp_protocol::ProtocolVersion;
///
/// let v = ProtocolVersion::parse("2025-06-18").unwrap();
/// assert_eq!(v.as_str(), "2025-06-18");
/// assert!(v.has_structured_output() && !v.has_tasks() && !v.supports_batches());
/// assert!(v < ProtocolVersion::LATEST);
/// assert!(ProtocolVersion::parse("2026-07-28").unwrap().is_per_request());
/// assert_eq!(ProtocolVersion::parse("1999-01-01"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the first public revision (HTTP+SSE transport).
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, JSON-RPC batches, audio content, tool annotations.
    V2025_03_26,
    /// 2025-06-18: structured tool output, elicitation, resource links, titles; batches removed.
    V2025_06_18,
    /// 2025-11-25: tasks, icons, URL elicitation, sampling with tools.
    V2025_11_25,
    /// 2026-07-28: stateless; no handshake and no sessions, per-request `_meta`,
    /// `server/discover`, multi round-trip requests, `subscriptions/listen`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// The newest handshake-era revision (what a client offers in `initialize`).
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2025_11_25;
    /// The newest per-request-era revision.
    pub const LATEST_PER_REQUEST: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// Every per-request-era revision the engine speaks, oldest first.
    pub const PER_REQUEST: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];
    /// Every handshake-era revision the engine speaks (the ones `initialize` negotiates),
    /// oldest first.
    pub const ALL: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// The revision's date string, as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a revision date (either era); `None` for revisions the engine does not speak.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain(Self::PER_REQUEST)
            .find(|v| v.as_str() == s)
    }

    /// Whether this revision belongs to the per-request era (no handshake, no session: version,
    /// client capabilities and client info travel in every request's `_meta`).
    pub fn is_per_request(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// Whether JSON-RPC batches are allowed (only 2025-03-26 has them).
    pub fn supports_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
    /// Whether audio content blocks and tool annotations exist.
    pub fn has_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }
    /// Whether completion/complete has `context.arguments`, structured tool output,
    /// elicitation, resource links and `title` fields exist.
    pub fn has_structured_output(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }
    /// Whether elicitation (form mode) exists.
    pub fn has_elicitation(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }
    /// Whether tasks, icons, URL-mode elicitation and sampling with tools exist.
    pub fn has_tasks(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = crate::McpError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| {
            crate::McpError::new(
                crate::error::codes::UNSUPPORTED_VERSION,
                format!("unsupported protocol version {s:?}"),
            )
            .with_data(serde_json::json!({
                "requested": s,
                "supported": Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            }))
        })
    }
}

impl serde::Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
