//! `requestState` of multi round-trip requests (2026-07-28): server state that travels through
//! the client between rounds, sealed so that the client can neither read, forge nor alter it,
//! and good for one use.
//!
//! A token is `2.<kid>.<sealed>`: `sealed` is Base64url of a random 96-bit nonce followed by the
//! ChaCha20-Poly1305 (RFC 8439) encryption of the JSON payload `{exp, s}` under the key named
//! `kid` of a [`KeyRing`], with `2.<kid>.` and the request the token was made for (method and
//! name) as associated data. Sealing uses the ring's first key; opening accepts any key of the
//! ring (rotation: add the new key first, drop the old one once tokens made with it have
//! expired). Replicas that share the ring open each other's tokens.
//!
//! Single use: a ring remembers the nonce of every token it opened until the token's expiry
//! (a bounded [`ReplayCache`]), and refuses a token seen before. That cache is per process, so
//! a token is single use per replica; single use across replicas needs the nonces in a store
//! every replica shares (set-if-absent with the token's expiry as time to live), which this
//! module does not provide.

use crate::McpError;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a sealed `requestState` stays valid.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// How many opened tokens a ring remembers at most by default (until each one expires).
pub const DEFAULT_REPLAY_CAPACITY: usize = 1 << 17;

/// The keys that seal and open `requestState` tokens: `(key id, secret)`, the first one seals;
/// and the nonces of the tokens opened so far (single use).
#[derive(Clone)]
pub struct KeyRing {
    keys: Arc<Vec<(String, ChaCha20Poly1305)>>,
    seen: Arc<ReplayCache>,
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

/// Why a `requestState` token was refused (`data.reason` of the `-32602` error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateRefusal {
    /// Malformed, altered, sealed with a key the ring lacks, or made for another request.
    Tampered,
    /// Past its expiry.
    Expired,
    /// Opened before (single use).
    Replayed,
    /// The replay cache is full of unexpired tokens: the state cannot be checked for reuse.
    Overloaded,
}

impl StateRefusal {
    fn error(self) -> McpError {
        let (reason, message) = match self {
            Self::Tampered => ("tampered", "requestState failed its integrity check (altered, sealed with an unknown key, or made for another request)"),
            Self::Expired => ("expired", "requestState has expired; start the request again"),
            Self::Replayed => ("replayed", "requestState was already used (each one is good for one retry); start the request again"),
            Self::Overloaded => ("overloaded", "too many requestState tokens are in use to check this one for reuse; retry later"),
        };
        McpError::invalid_params(message).with_data(json!({ "reason": reason }))
    }
}

impl KeyRing {
    /// A ring of `(key id, secret)` pairs; the first seals. Ids are non-empty ASCII
    /// alphanumerics, secrets exactly 32 bytes (a ChaCha20-Poly1305 key). It remembers up to
    /// [`DEFAULT_REPLAY_CAPACITY`] opened tokens.
    pub fn new(keys: Vec<(String, Vec<u8>)>) -> Result<Self, McpError> {
        Self::with_replay_capacity(keys, DEFAULT_REPLAY_CAPACITY)
    }

    /// [`KeyRing::new`] remembering at most `capacity` opened, unexpired tokens: past that, a
    /// token that would need remembering is refused (`overloaded`) rather than risk a replay.
    pub fn with_replay_capacity(
        keys: Vec<(String, Vec<u8>)>,
        capacity: usize,
    ) -> Result<Self, McpError> {
        if keys.is_empty() {
            return Err(McpError::invalid_params(
                "a key ring needs at least one key",
            ));
        }
        let mut ring = Vec::with_capacity(keys.len());
        for (id, secret) in keys {
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return Err(McpError::invalid_params(format!(
                    "key id {id:?} must be non-empty ASCII letters and digits"
                )));
            }
            if secret.len() != 32 {
                return Err(McpError::invalid_params(format!(
                    "key {id:?} must have exactly 32 bytes"
                )));
            }
            let cipher = ChaCha20Poly1305::new(Key::from_slice(&secret));
            ring.push((id, cipher));
        }
        Ok(KeyRing {
            keys: Arc::new(ring),
            seen: Arc::new(ReplayCache::new(capacity)),
        })
    }

    /// Seals `state` for the request `binding` names.
    pub(crate) fn seal(&self, binding: &str, state: Value) -> String {
        self.seal_until(binding, state, now_secs() + REQUEST_STATE_TTL.as_secs())
    }

    fn seal_until(&self, binding: &str, state: Value, exp: u64) -> String {
        let (kid, cipher) = &self.keys[0];
        let head = format!("2.{kid}.");
        let nonce: [u8; 12] = rand::random();
        let payload = json!({ "exp": exp, "s": state }).to_string();
        let aad = format!("{head}{binding}");
        let sealed = cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: payload.as_bytes(),
                    aad: aad.as_bytes(),
                },
            )
            .expect("ChaCha20-Poly1305 encryption of a bounded payload");
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{head}{}", b64url_encode(&bytes))
    }

    /// Opens a token sealed for the request `binding` names, once: `-32602` with
    /// `data.reason` `tampered` (malformed, altered, unknown key, another request), `expired`,
    /// `replayed` (opened before) or `overloaded` (see [`KeyRing::with_replay_capacity`]).
    pub(crate) fn open(&self, binding: &str, token: &str) -> Result<Value, McpError> {
        self.open_checked(binding, token)
            .map_err(StateRefusal::error)
    }

    fn open_checked(&self, binding: &str, token: &str) -> Result<Value, StateRefusal> {
        let tampered = StateRefusal::Tampered;
        let mut parts = token.splitn(3, '.');
        let (Some("2"), Some(kid), Some(sealed)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(tampered);
        };
        let (_, cipher) = self.keys.iter().find(|(k, _)| k == kid).ok_or(tampered)?;
        let bytes = b64url_decode(sealed).ok_or(tampered)?;
        if bytes.len() < 12 + 16 {
            return Err(tampered);
        }
        let (nonce, ciphertext) = bytes.split_at(12);
        let aad = format!("2.{kid}.{binding}");
        let plain = cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: aad.as_bytes(),
                },
            )
            .map_err(|_| tampered)?;
        let payload: Value = serde_json::from_slice(&plain).map_err(|_| tampered)?;
        let exp = payload["exp"].as_u64().ok_or(tampered)?;
        let now = now_secs();
        if exp < now {
            return Err(StateRefusal::Expired);
        }
        let mut key = [0u8; 12];
        key.copy_from_slice(nonce);
        self.seen.first_use(key, exp, now)?;
        Ok(payload["s"].clone())
    }
}

/// The nonces of opened tokens, each kept until its token expires, at most `capacity` of
/// them. Expiries are nearly monotonic (one TTL for all), so expired entries are dropped from
/// the front of an insertion-ordered queue.
#[derive(Debug)]
pub(crate) struct ReplayCache {
    capacity: usize,
    inner: Mutex<Seen>,
}

/// The remembered nonces with their expiry, and the same in the order they were recorded.
type Seen = (HashMap<Nonce12, u64>, VecDeque<(Nonce12, u64)>);

/// A token's nonce, its single-use identity.
type Nonce12 = [u8; 12];

impl ReplayCache {
    fn new(capacity: usize) -> Self {
        Self {
            capacity,
            inner: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// Records `nonce` (valid until `exp`); `Replayed` when it was recorded before.
    fn first_use(&self, nonce: [u8; 12], exp: u64, now: u64) -> Result<(), StateRefusal> {
        let mut guard = self.inner.lock().unwrap();
        let (seen, order) = &mut *guard;
        while let Some(&(n, e)) = order.front() {
            if e >= now && seen.len() < self.capacity {
                break;
            }
            if e >= now {
                // Full of unexpired entries: look for expired ones further in (rare).
                let before = order.len();
                order.retain(|&(n, e)| {
                    let keep = e >= now;
                    if !keep {
                        seen.remove(&n);
                    }
                    keep
                });
                if order.len() == before {
                    break;
                }
                continue;
            }
            order.pop_front();
            if seen.get(&n) == Some(&e) {
                seen.remove(&n);
            }
        }
        if seen.contains_key(&nonce) {
            return Err(StateRefusal::Replayed);
        }
        if seen.len() >= self.capacity {
            return Err(StateRefusal::Overloaded);
        }
        seen.insert(nonce, exp);
        order.push_back((nonce, exp));
        Ok(())
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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
    fn base64url_round_trips() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar\u{ff}"] {
            assert_eq!(
                b64url_decode(&b64url_encode(s.as_bytes())).unwrap(),
                s.as_bytes()
            );
        }
        assert_eq!(b64url_encode(b"foobar"), "Zm9vYmFy");
    }

    fn reason(e: McpError) -> String {
        assert_eq!(e.code, -32602, "{e}");
        e.data.unwrap()["reason"].as_str().unwrap().to_string()
    }

    #[test]
    fn sealed_state_opens_once_unaltered_and_for_its_request() {
        let ring = KeyRing::default();
        let t = ring.seal("tools/call x", json!({ "secret": "n1" }));
        assert!(!t.contains("secret") && !t.contains("n1"), "encrypted: {t}");
        // Another request, another key, an altered byte: tampered (and nothing used up).
        assert_eq!(
            reason(ring.open("tools/call y", &t).unwrap_err()),
            "tampered"
        );
        assert_eq!(
            reason(KeyRing::default().open("tools/call x", &t).unwrap_err()),
            "tampered"
        );
        let mut altered = t.clone().into_bytes();
        let i = altered.len() / 2;
        altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert_eq!(
            reason(ring.open("tools/call x", &altered).unwrap_err()),
            "tampered"
        );
        for junk in [
            "",
            "2.r.",
            "1.r.abc.def",
            "2.r.AAAA",
            "2.zz.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ] {
            assert_eq!(
                reason(ring.open("tools/call x", junk).unwrap_err()),
                "tampered"
            );
        }
        // The genuine token opens once; the second time it is a replay.
        assert_eq!(
            ring.open("tools/call x", &t).unwrap(),
            json!({ "secret": "n1" })
        );
        assert_eq!(
            reason(ring.open("tools/call x", &t).unwrap_err()),
            "replayed"
        );
        // A clone of the ring (another session of the same server) shares the memory.
        let t2 = ring.seal("tools/call x", json!(2));
        ring.clone().open("tools/call x", &t2).unwrap();
        assert_eq!(
            reason(ring.open("tools/call x", &t2).unwrap_err()),
            "replayed"
        );
    }

    #[test]
    fn expired_state_is_refused_as_expired() {
        let ring = KeyRing::default();
        let t = ring.seal_until("m", json!(1), now_secs() - 1);
        assert_eq!(reason(ring.open("m", &t).unwrap_err()), "expired");
    }

    #[test]
    fn rotation_opens_tokens_of_every_key_in_the_ring() {
        let old = KeyRing::new(vec![("old".into(), vec![1; 32])]).unwrap();
        let t = old.seal("m", json!("x"));
        let rotated = KeyRing::new(vec![
            ("new".into(), vec![7; 32]),
            ("old".into(), vec![1; 32]),
        ])
        .unwrap();
        assert_eq!(rotated.open("m", &t).unwrap(), json!("x"));
        assert!(rotated.seal("m", json!(1)).starts_with("2.new."));
        let dropped = KeyRing::new(vec![("new".into(), vec![7; 32])]).unwrap();
        assert_eq!(
            reason(dropped.open("m", &old.seal("m", json!(1))).unwrap_err()),
            "tampered"
        );
        assert!(KeyRing::new(vec![("k".into(), vec![1; 31])]).is_err());
        assert!(KeyRing::new(vec![("k-1".into(), vec![1; 32])]).is_err());
    }

    #[test]
    fn the_replay_cache_is_bounded_and_forgets_expired_tokens() {
        let ring = KeyRing::with_replay_capacity(vec![("k".into(), vec![3; 32])], 2).unwrap();
        let now = now_secs();
        let short = ring.seal_until("m", json!(0), now);
        ring.open("m", &short).unwrap();
        ring.open("m", &ring.seal("m", json!(1))).unwrap();
        // Full of unexpired tokens: a third is refused rather than forgetting one.
        assert_eq!(
            reason(ring.open("m", &ring.seal("m", json!(2))).unwrap_err()),
            "overloaded"
        );
        // Once the short-lived one has expired its place is free again.
        let seen = &ring.seen;
        seen.first_use([9; 12], now + 100, now + 1).unwrap();
        assert_eq!(
            seen.first_use([9; 12], now + 100, now + 1),
            Err(StateRefusal::Replayed)
        );
    }
}
