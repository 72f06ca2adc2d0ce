//! `requestState` of multi round-trip requests (2026-07-28): server state that travels through
//! the client between rounds, sealed so that the client can neither forge nor alter it.
//!
//! A token is `1.<kid>.<payload>.<tag>`: the payload is Base64url JSON, the tag Base64url
//! HMAC-SHA256 over everything before it, under the key named `kid` of a [`KeyRing`]. Sealing
//! uses the ring's first key; opening accepts any key of the ring (rotation: add the new key
//! first, drop the old one once tokens made with it have expired). Replicas that share the
//! ring accept each other's tokens, so no store is needed. The payload binds the token to the
//! request it was made for (method and name) and to an expiry.

use crate::McpError;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a sealed `requestState` stays valid.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The keys that seal and open `requestState` tokens: `(key id, secret)`, the first one seals.
#[derive(Clone)]
pub struct KeyRing {
    keys: Arc<Vec<(String, Vec<u8>)>>,
}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("KeyRing").field("key_ids", &ids).finish()
    }
}

impl Default for KeyRing {
    /// One random key, generated for this process (replicas need a shared ring instead).
    fn default() -> Self {
        let secret: [u8; 32] = rand::random();
        KeyRing::new(vec![("r".into(), secret.to_vec())]).expect("a valid ring")
    }
}

impl KeyRing {
    /// A ring of `(key id, secret)` pairs; the first seals. Ids are non-empty ASCII
    /// alphanumerics, secrets at least 32 bytes.
    pub fn new(keys: Vec<(String, Vec<u8>)>) -> Result<Self, McpError> {
        if keys.is_empty() {
            return Err(McpError::invalid_params(
                "a key ring needs at least one key",
            ));
        }
        for (id, secret) in &keys {
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return Err(McpError::invalid_params(format!(
                    "key id {id:?} must be non-empty ASCII letters and digits"
                )));
            }
            if secret.len() < 32 {
                return Err(McpError::invalid_params(format!(
                    "key {id:?} must have at least 32 bytes"
                )));
            }
        }
        Ok(KeyRing {
            keys: Arc::new(keys),
        })
    }

    /// Seals `state` for the request `binding` names.
    pub(crate) fn seal(&self, binding: &str, state: Value) -> String {
        let (kid, key) = &self.keys[0];
        let exp = now_secs() + REQUEST_STATE_TTL.as_secs();
        let payload = json!({ "b": binding, "exp": exp, "s": state });
        let head = format!("1.{kid}.{}", b64url_encode(payload.to_string().as_bytes()));
        let tag = hmac_sha256(key, head.as_bytes());
        format!("{head}.{}", b64url_encode(&tag))
    }

    /// Opens a token sealed for the request `binding` names; `-32602` when it is malformed,
    /// altered, sealed with an unknown key, made for another request or expired.
    pub(crate) fn open(&self, binding: &str, token: &str) -> Result<Value, McpError> {
        let bad = || {
            McpError::invalid_params(
                "requestState failed its integrity check (altered, expired or made for another request)",
            )
        };
        let (head, tag) = token.rsplit_once('.').ok_or_else(bad)?;
        let mut parts = head.splitn(3, '.');
        let (Some("1"), Some(kid), Some(payload)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let (_, key) = self.keys.iter().find(|(k, _)| k == kid).ok_or_else(bad)?;
        let tag = b64url_decode(tag).ok_or_else(bad)?;
        let expected = hmac_sha256(key, head.as_bytes());
        if tag.len() != expected.len()
            || tag
                .iter()
                .zip(expected.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                != 0
        {
            return Err(bad());
        }
        let payload: Value =
            serde_json::from_slice(&b64url_decode(payload).ok_or_else(bad)?).map_err(|_| bad())?;
        let fresh = payload["exp"].as_u64().is_some_and(|e| e >= now_secs());
        if payload["b"] != binding || !fresh {
            return Err(bad());
        }
        Ok(payload["s"].clone())
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// HMAC-SHA256 (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    let mut out = [0u8; 32];
    out.copy_from_slice(&outer);
    out
}

/// Base64url without padding.
fn b64url_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Base64url without padding to bytes; `None` on any other character.
fn b64url_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let tag = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn base64url_round_trips() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar\u{ff}"] {
            assert_eq!(
                b64url_decode(&b64url_encode(s.as_bytes())).unwrap(),
                s.as_bytes()
            );
        }
        assert_eq!(b64url_encode(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn sealed_state_opens_only_unaltered_and_for_its_request() {
        let ring = KeyRing::default();
        let t = ring.seal("tools/call x", json!({ "n": 1 }));
        assert_eq!(ring.open("tools/call x", &t).unwrap(), json!({ "n": 1 }));
        assert!(ring.open("tools/call y", &t).is_err());
        let mut altered = t.clone().into_bytes();
        let i = altered.len() / 2;
        altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
        assert!(ring
            .open("tools/call x", &String::from_utf8(altered).unwrap())
            .is_err());
        assert!(KeyRing::default().open("tools/call x", &t).is_err());
        // Rotation: a ring that still holds the old key opens the old token.
        let rotated = KeyRing::new(vec![
            ("new".into(), vec![7; 32]),
            ("r".into(), ring.keys[0].1.clone()),
        ])
        .unwrap();
        assert!(rotated.open("tools/call x", &t).is_ok());
    }
}
