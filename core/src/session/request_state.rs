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
//! a token is single use per replica. Replicas in several processes give their rings one
//! shared [`ReplayStore`] ([`KeyRing::with_replay_store`]; the HTTP server does so with its
//! Redis store): the ring then records each opened token there (set-if-absent, expiring with
//! the token) instead of in its own cache, and a token is single use across all of them. That
//! check is asynchronous: [`KeyRing::open`] hands it back ([`UseCheck`]) for the request to
//! await before its handler runs.

use crate::McpError;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a sealed `requestState` stays valid.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// How many opened tokens a ring remembers at most by default (until each one expires).
pub const DEFAULT_REPLAY_CAPACITY: usize = 1 << 17;

/// The keys that seal and open `requestState` tokens: `(key id, secret)`, the first one seals;
/// and the nonces of the tokens opened so far (single use).
#[derive(Clone)]
pub struct KeyRing {
    /// The keys; for [`KeyRing::default`] made on first use (see [`KeyRing::keys`]).
    keys: Arc<OnceLock<Vec<(String, ChaCha20Poly1305)>>>,
    seen: Arc<ReplayCache>,
    /// Where opened tokens are recorded instead of `seen` (replicas in several processes).
    shared: Option<Arc<dyn ReplayStore>>,
}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.keys().iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("KeyRing")
            .field("key_ids", &ids)
            .field("shared_replay_store", &self.shared.is_some())
            .finish()
    }
}

/// Where the replicas of a deployment record the `requestState` tokens they opened, so that a
/// token is good for one use across all of them (the HTTP server's Redis store is one).
pub trait ReplayStore: Send + Sync + 'static {
    /// Records token `id` as used, for `ttl` (the token's remaining lifetime): `Ok(true)` when
    /// it was not recorded before (this is its first use), `Ok(false)` when it was. An atomic
    /// set-if-absent (Redis: `SET key 1 NX PX ttl`).
    fn first_use(&self, id: String, ttl: Duration) -> BoxFuture<'static, Result<bool, McpError>>;
}

/// The shared single-use check of an opened token, still to await: `Ok` on its first use,
/// else the same error a replay gets from the ring's own cache.
pub(crate) struct UseCheck(BoxFuture<'static, Result<(), McpError>>);

impl std::fmt::Debug for UseCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UseCheck")
    }
}

impl std::future::Future for UseCheck {
    type Output = Result<(), McpError>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        self.0.as_mut().poll(cx)
    }
}

impl Default for KeyRing {
    /// One random key, generated for this process (replicas need a shared ring instead).
    ///
    /// The key is made when the ring first seals or opens a token, not here: every server and
    /// session configuration has a ring, and most never see a multi round-trip request.
    /// Drawing the key at once started the process's random generator (and its CPU feature
    /// probe) before a server had answered anything, which showed in its cold start. Clones
    /// share the key once made.
    fn default() -> Self {
        KeyRing {
            keys: Arc::new(OnceLock::new()),
            seen: Arc::new(ReplayCache::new(DEFAULT_REPLAY_CAPACITY)),
            shared: None,
        }
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
            keys: Arc::new(OnceLock::from(ring)),
            seen: Arc::new(ReplayCache::new(capacity)),
            shared: None,
        })
    }

    /// This ring (same keys) recording the tokens it opens in `store`, which the other
    /// replicas' rings share, instead of in this process's cache: single use across replicas
    /// (the replay capacity then no longer applies; the store keeps each record until its
    /// token expires).
    pub fn with_replay_store(&self, store: Arc<dyn ReplayStore>) -> KeyRing {
        KeyRing {
            keys: self.keys.clone(),
            seen: self.seen.clone(),
            shared: Some(store),
        }
    }

    /// The keys, the first one sealing; a default ring's random key is made here, once.
    fn keys(&self) -> &[(String, ChaCha20Poly1305)] {
        self.keys.get_or_init(|| {
            let secret: [u8; 32] = rand::random();
            vec![("r".into(), ChaCha20Poly1305::new(Key::from_slice(&secret)))]
        })
    }

    /// Seals `state` for the request `binding` names.
    pub(crate) fn seal(&self, binding: &str, state: Value) -> String {
        self.seal_until(binding, state, now_secs() + REQUEST_STATE_TTL.as_secs())
    }

    fn seal_until(&self, binding: &str, state: Value, exp: u64) -> String {
        let (kid, cipher) = &self.keys()[0];
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
    /// With a [`ReplayStore`] the single-use check is the returned [`UseCheck`], which the
    /// caller awaits before using the state (it fails with the same `replayed` error).
    pub(crate) fn open(
        &self,
        binding: &str,
        token: &str,
    ) -> Result<(Value, Option<UseCheck>), McpError> {
        self.open_checked(binding, token)
            .map_err(StateRefusal::error)
    }

    fn open_checked(
        &self,
        binding: &str,
        token: &str,
    ) -> Result<(Value, Option<UseCheck>), StateRefusal> {
        let tampered = StateRefusal::Tampered;
        let mut parts = token.splitn(3, '.');
        let (Some("2"), Some(kid), Some(sealed)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(tampered);
        };
        let (_, cipher) = self.keys().iter().find(|(k, _)| k == kid).ok_or(tampered)?;
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
        if let Some(store) = &self.shared {
            // The nonce is the token's identity (random, and authenticated by the check
            // above); the record lasts as long as the token stays valid (through second `exp`).
            let id = format!("{kid}.{}", b64url_encode(nonce));
            let ttl = Duration::from_secs(exp - now + 1);
            let first = store.first_use(id, ttl);
            let check = UseCheck(Box::pin(async move {
                match first.await? {
                    true => Ok(()),
                    false => Err(StateRefusal::Replayed.error()),
                }
            }));
            return Ok((payload["s"].clone(), Some(check)));
        }
        let mut key = [0u8; 12];
        key.copy_from_slice(nonce);
        self.seen.first_use(key, exp, now)?;
        Ok((payload["s"].clone(), None))
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
            ring.open("tools/call x", &t).unwrap().0,
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

    /// A [`ReplayStore`] in memory, recording what it was asked.
    #[derive(Default)]
    struct SharedSeen(Mutex<HashMap<String, Duration>>);

    impl ReplayStore for SharedSeen {
        fn first_use(
            &self,
            id: String,
            ttl: Duration,
        ) -> BoxFuture<'static, Result<bool, McpError>> {
            let first = self.0.lock().unwrap().insert(id, ttl).is_none();
            Box::pin(std::future::ready(Ok(first)))
        }
    }

    #[tokio::test]
    async fn rings_sharing_a_replay_store_open_a_token_once_between_them() {
        let store = Arc::new(SharedSeen::default());
        // Two replicas: the same key, each its own ring (and own in-process cache).
        let a = KeyRing::new(vec![("k".into(), vec![5; 32])])
            .unwrap()
            .with_replay_store(store.clone());
        let b = KeyRing::new(vec![("k".into(), vec![5; 32])])
            .unwrap()
            .with_replay_store(store.clone());
        let t = a.seal("m", json!({ "n": 1 }));
        let (state, check) = a.open("m", &t).unwrap();
        assert_eq!(state, json!({ "n": 1 }));
        check.expect("a shared check").await.unwrap();
        // Replayed on the other replica, then on the first: the same refusal.
        let (_, check) = b.open("m", &t).unwrap();
        let on_b = check.unwrap().await.unwrap_err();
        let (_, check) = a.open("m", &t).unwrap();
        let on_a = check.unwrap().await.unwrap_err();
        assert_eq!(reason(on_b.clone()), "replayed");
        assert_eq!(
            (on_a.code, on_a.message, on_a.data),
            (on_b.code, on_b.message, on_b.data)
        );
        // One record, kept as long as the token is valid; the process cache was not used.
        let ttl = {
            let seen = store.0.lock().unwrap();
            assert_eq!(seen.len(), 1);
            *seen.values().next().unwrap()
        };
        assert!(ttl > REQUEST_STATE_TTL - Duration::from_secs(5), "{ttl:?}");
        assert!(ttl <= REQUEST_STATE_TTL + Duration::from_secs(1), "{ttl:?}");
        assert!(a.seen.inner.lock().unwrap().0.is_empty());
        // A refused token is refused before the store is asked.
        assert_eq!(reason(b.open("n", &t).unwrap_err()), "tampered");
        let old = a.seal_until("m", json!(1), now_secs() - 1);
        assert_eq!(reason(b.open("m", &old).unwrap_err()), "expired");
        assert_eq!(store.0.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_default_ring_makes_its_key_on_first_use_and_its_clones_share_it() {
        let ring = KeyRing::default();
        assert!(
            ring.keys.get().is_none(),
            "no key before the first seal or open"
        );
        let clone = ring.clone();
        let t = ring.seal("m", json!("x"));
        assert!(ring.keys.get().is_some());
        // A clone made before the key existed opens what the ring sealed (one key, shared).
        let (state, _) = clone.open("m", &t).unwrap();
        assert_eq!(state, json!("x"));
        // Another default ring has a key of its own.
        let other = KeyRing::default();
        let t2 = ring.seal("m", json!("y"));
        assert_eq!(reason(other.open("m", &t2).unwrap_err()), "tampered");
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
        assert_eq!(rotated.open("m", &t).unwrap().0, json!("x"));
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
