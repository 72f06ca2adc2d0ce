//! A built-in [`TokenVerifier`]: JWT access tokens (RFC 9068 profile of RFC 7519) signed by
//! the authorization server, checked against its JSON Web Key Set. Keys come from a JWKS URL
//! (fetched on first use, cached, fetched again when stale or when a token names an unknown
//! `kid` after a key rotation, at most once per cooldown so a flood of made-up `kid`s cannot
//! turn requests into fetches) or are given inline. The header's `alg` must be on the allow-list
//! and fit the key ([`super::jwk`]: never `none`, never an HMAC keyed with a public key); the
//! claims must name an accepted issuer (`iss`) and this resource as audience (`aud`, RFC 8707),
//! and be within `exp`/`nbf` give or take a small leeway. Scopes come from `scope` (space
//! separated) or `scp`; subject, client and every claim reach handlers in the [`AuthInfo`].

use super::error::AuthError;
use super::http::AuthHttp;
use super::jwk::{parse_jwks, Alg, Key};
use super::resource::{AuthInfo, TokenVerifier};
use super::url::canonical;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Largest token read (bytes of the compact serialization).
const MAX_TOKEN: usize = 64 * 1024;

/// Verifies JWT access tokens with the keys of a JWKS.
#[derive(Clone)]
pub struct JwtVerifier {
    inner: Arc<Config>,
    state: Arc<State>,
}

#[derive(Clone)]
struct Config {
    /// The JWKS URL (`None`: keys given inline, never fetched).
    jwks_url: Option<String>,
    issuers: Vec<String>,
    audiences: Vec<String>,
    algorithms: Vec<Alg>,
    leeway: Duration,
    cooldown: Duration,
    max_age: Duration,
    /// How long one fetch of the JWKS may take.
    fetch_timeout: Duration,
}

/// How long a JWKS fetch may take by default: requests wait on it, so a hanging identity
/// provider must cost seconds, not the OAuth flow's 30.
const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The key cache, shared by clones of a verifier.
struct State {
    http: AuthHttp,
    cache: RwLock<Cache>,
    /// Held while deciding on and running a fetch (one fetch at a time: the requests that
    /// arrive meanwhile wait for its outcome instead of fetching again); holds when the last
    /// attempt ended and, when it failed, why (the negative cache of [`JwtVerifier::keys`]).
    fetching: tokio::sync::Mutex<Option<Attempt>>,
}

/// The last JWKS fetch.
struct Attempt {
    /// When it ended.
    ended: Instant,
    /// Why it failed (`None`: it succeeded).
    failure: Option<String>,
}

#[derive(Clone, Default)]
struct Cache {
    keys: Arc<Vec<Key>>,
    /// When the keys were last fetched successfully.
    fetched: Option<Instant>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("jwks_url", &self.inner.jwks_url)
            .field("issuers", &self.inner.issuers)
            .field("audiences", &self.inner.audiences)
            .finish_non_exhaustive()
    }
}

fn config(m: impl Into<String>) -> AuthError {
    AuthError::Config(m.into())
}

impl JwtVerifier {
    fn with(
        jwks_url: Option<String>,
        keys: Vec<Key>,
        issuer: String,
        audience: String,
    ) -> Result<Self, AuthError> {
        if issuer.is_empty() || audience.is_empty() {
            return Err(config("a JWT verifier needs an issuer and an audience"));
        }
        Ok(Self {
            inner: Arc::new(Config {
                jwks_url,
                issuers: vec![issuer],
                audiences: vec![audience],
                algorithms: Alg::ALL.to_vec(),
                leeway: Duration::from_secs(60),
                cooldown: Duration::from_secs(30),
                max_age: Duration::from_secs(600),
                fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            }),
            state: Arc::new(State {
                http: AuthHttp::default().with_timeout(DEFAULT_FETCH_TIMEOUT),
                cache: RwLock::new(Cache {
                    keys: Arc::new(keys),
                    fetched: None,
                }),
                fetching: tokio::sync::Mutex::new(None),
            }),
        })
    }

    /// Tokens of `issuer` (exact `iss`) for `audience` (this resource's URL, RFC 8707), signed
    /// by a key of the JWKS at `jwks_url` (`https://` or `http://`; fetched on first use).
    pub fn from_jwks_url(
        jwks_url: impl Into<String>,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let url = jwks_url.into();
        if url.is_empty() {
            return Err(config("the JWKS URL is empty"));
        }
        Self::with(Some(url), Vec::new(), issuer.into(), audience.into())
    }

    /// Tokens of `issuer` for `audience`, signed by a key of the JWKS document `jwks`
    /// (`{"keys": [...]}`), which is never fetched again.
    ///
    /// ```
    /// use ferromcp_auth::{JwtVerifier, ResourceAuth, TokenVerifier};
    /// use serde_json::json;
    /// use std::sync::Arc;
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // In production: `JwtVerifier::from_jwks_url("https://auth.example.com/jwks.json", ...)`.
    /// // An Ed25519 public key (RFC 8037's example).
    /// let jwks = json!({ "keys": [{ "kty": "OKP", "crv": "Ed25519", "kid": "k1",
    ///                               "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }] });
    /// // A document without a usable key is refused up front.
    /// assert!(JwtVerifier::from_jwks(&json!({ "keys": [] }), "https://auth.example.com", "x").is_err());
    /// let verifier = JwtVerifier::from_jwks(&jwks, "https://auth.example.com", "https://mcp.example.com/mcp")?
    ///     .leeway(Duration::from_secs(30));
    /// // Something that is not a signed JWT of that issuer is refused with the reason.
    /// assert!(verifier.verify("not-a-jwt").await.is_err());
    ///
    /// // Protecting an HTTP server with it: `ferromcp`'s `HttpServerOptions::with_auth(Some(auth))`.
    /// let auth = Arc::new(
    ///     ResourceAuth::new("https://mcp.example.com/mcp", vec!["https://auth.example.com".into()], Arc::new(verifier))
    ///         .require_scopes(&["mcp:tools"]),
    /// );
    /// assert_eq!(auth.resource, "https://mcp.example.com/mcp");
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_jwks(
        jwks: &Value,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let keys = parse_jwks(jwks).map_err(config)?;
        Self::with(None, keys, issuer.into(), audience.into())
    }

    fn edit(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(Arc::make_mut(&mut self.inner));
        self
    }

    /// Also trusts the CA certificates in `pems` (PEM text each) when fetching an `https://`
    /// JWKS (e.g. a private CA); Mozilla's roots are always trusted. A bad certificate fails
    /// every fetch with the reason. The key cache starts again (shared only by later clones).
    pub fn root_certificates(mut self, pems: &[String]) -> Self {
        let cache = self
            .state
            .cache
            .read()
            .map(|c| c.clone())
            .unwrap_or_default();
        self.state = Arc::new(State {
            http: AuthHttp::with_roots(pems).with_timeout(self.inner.fetch_timeout),
            cache: RwLock::new(cache),
            fetching: tokio::sync::Mutex::new(None),
        });
        self
    }

    /// Accepts tokens of these issuers too (e.g. every authorization server of the metadata).
    pub fn also_issuers<I: IntoIterator<Item = String>>(self, issuers: I) -> Self {
        self.edit(|i| {
            for s in issuers {
                if !i.issuers.contains(&s) {
                    i.issuers.push(s);
                }
            }
        })
    }

    /// Accepts tokens for these audiences too.
    pub fn also_audiences<I: IntoIterator<Item = String>>(self, audiences: I) -> Self {
        self.edit(|i| i.audiences.extend(audiences))
    }

    /// The accepted algorithms (default: RS256/384/512, PS256/384/512, ES256, ES384, EdDSA).
    /// `none`, the HMAC algorithms (`HS*`) and unknown names are refused: a resource server
    /// holding only public keys must never accept them.
    pub fn algorithms<S: AsRef<str>>(self, names: &[S]) -> Result<Self, AuthError> {
        let mut algs = Vec::new();
        for n in names {
            let n = n.as_ref();
            let a = Alg::parse(n).ok_or_else(|| match n {
                "none" => config("algorithm none (unsigned tokens) is never accepted"),
                _ if n.starts_with("HS") => config(format!(
                    "algorithm {n} (a shared secret) cannot be verified with public keys"
                )),
                _ => config(format!("unsupported JWT algorithm {n:?}")),
            })?;
            algs.push(a);
        }
        if algs.is_empty() {
            return Err(config("the JWT algorithm list is empty"));
        }
        Ok(self.edit(|i| i.algorithms = algs))
    }

    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub fn leeway(self, leeway: Duration) -> Self {
        self.edit(|i| i.leeway = leeway)
    }

    /// The least time between two fetches of the JWKS (default 30 s): a token with an unknown
    /// `kid` makes the verifier fetch again only when this long has passed since the last fetch.
    pub fn refetch_cooldown(self, cooldown: Duration) -> Self {
        self.edit(|i| i.cooldown = cooldown)
    }

    /// How long one fetch of the JWKS may take (default 5 s). Requests that need the keys
    /// wait for the fetch under way (one at a time) and, when it fails, are refused at once
    /// until the cooldown ([`Self::refetch_cooldown`], counted from the failure) has passed.
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        let cache = self
            .state
            .cache
            .read()
            .map(|c| c.clone())
            .unwrap_or_default();
        let http = self.state.http.clone().with_timeout(timeout);
        self.state = Arc::new(State {
            http,
            cache: RwLock::new(cache),
            fetching: tokio::sync::Mutex::new(None),
        });
        self.edit(|c| c.fetch_timeout = timeout)
    }

    /// How long fetched keys are used before they are fetched again (default 10 minutes).
    pub fn max_key_age(self, age: Duration) -> Self {
        self.edit(|i| i.max_age = age)
    }

    async fn check(&self, token: &str) -> Result<AuthInfo, String> {
        let t = Parsed::new(token)?;
        let alg = match Alg::parse(&t.alg) {
            Some(a) if self.inner.algorithms.contains(&a) => a,
            _ if t.alg == "none" => {
                return Err("unsigned tokens (alg none) are not accepted".into())
            }
            _ => return Err(format!("the token's algorithm {:?} is not accepted", t.alg)),
        };
        let keys = self.keys(t.kid.as_deref(), alg).await?;
        let candidates: Vec<&Key> = keys
            .iter()
            .filter(|k| t.kid.is_none() || k.kid == t.kid)
            .filter(|k| k.allows(alg))
            .collect();
        if candidates.is_empty() {
            return Err(match &t.kid {
                Some(kid) => format!("no signing key with kid {kid:?} for {}", alg.name()),
                None => format!("no signing key for {}", alg.name()),
            });
        }
        if !candidates
            .iter()
            .any(|k| k.verify(alg, t.signed.as_bytes(), &t.signature))
        {
            return Err("the token's signature does not verify".into());
        }
        self.claims(t.claims)
    }

    /// The keys to try for a token with `kid` and `alg`: the cache, fetched again when stale
    /// or when it has no fitting key and the cooldown has passed.
    async fn keys(&self, kid: Option<&str>, alg: Alg) -> Result<Arc<Vec<Key>>, String> {
        let (inner, state) = (&self.inner, &self.state);
        let snapshot = || state.cache.read().expect("cache lock").clone();
        let usable = |c: &Cache| {
            let fresh = c.fetched.is_some_and(|at| at.elapsed() < inner.max_age);
            let known = c
                .keys
                .iter()
                .any(|k| kid.is_none_or(|kid| k.kid.as_deref() == Some(kid)) && k.allows(alg));
            fresh && known
        };
        let Some(url) = &inner.jwks_url else {
            return Ok(snapshot().keys);
        };
        let cache = snapshot();
        if usable(&cache) {
            return Ok(cache.keys);
        }
        let mut last = state.fetching.lock().await;
        let cache = snapshot();
        if usable(&cache) {
            return Ok(cache.keys);
        }
        if let Some(a) = last.as_ref().filter(|a| a.ended.elapsed() < inner.cooldown) {
            // Fetched (or failed) moments ago, maybe while this request waited for that very
            // fetch: its outcome stands until the cooldown has passed.
            return match &a.failure {
                Some(why) if cache.keys.is_empty() => Err(format!(
                    "the authorization server's signing keys could not be fetched: {why}"
                )),
                _ => Ok(cache.keys),
            };
        }
        let fetched = self.fetch(url).await;
        *last = Some(Attempt {
            ended: Instant::now(),
            failure: fetched.as_ref().err().cloned(),
        });
        match fetched {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *state.cache.write().expect("cache lock") = Cache {
                    keys: keys.clone(),
                    fetched: Some(Instant::now()),
                };
                Ok(keys)
            }
            Err(e) if cache.keys.is_empty() => {
                tracing::warn!(url = %url, error = %e, "JWKS fetch failed; refusing tokens until it succeeds");
                Err(format!(
                    "the authorization server's signing keys could not be fetched: {e}"
                ))
            }
            Err(e) => {
                tracing::warn!(url = %url, error = %e, "JWKS fetch failed; keeping the old keys");
                Ok(cache.keys)
            }
        }
    }

    async fn fetch(&self, url: &str) -> Result<Vec<Key>, String> {
        let answer = self.state.http.get(url).await.map_err(|e| e.to_string())?;
        if !answer.status.is_success() {
            return Err(format!("HTTP {} from {url}", answer.status.as_u16()));
        }
        let doc = answer.json(url).map_err(|e| e.to_string())?;
        parse_jwks(&doc)
    }

    /// The registered claims checked, and the identity they grant.
    fn claims(&self, claims: Map<String, Value>) -> Result<AuthInfo, String> {
        let inner = &self.inner;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let leeway = inner.leeway.as_secs_f64();
        let date = |name: &str| -> Result<Option<f64>, String> {
            match claims.get(name) {
                None => Ok(None),
                Some(v) => v
                    .as_f64()
                    .filter(|f| f.is_finite())
                    .map(Some)
                    .ok_or_else(|| format!("the token's {name} is not a NumericDate")),
            }
        };
        let exp = date("exp")?.ok_or("the token has no exp")?;
        if now >= exp + leeway {
            return Err("the token has expired".into());
        }
        if date("nbf")?.is_some_and(|nbf| nbf > now + leeway) {
            return Err("the token is not valid yet (nbf)".into());
        }
        let text = |name: &str| -> Result<Option<String>, String> {
            match claims.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("the token's {name} is not a string")),
            }
        };
        let iss = text("iss")?.ok_or("the token has no iss")?;
        if !inner.issuers.contains(&iss) {
            return Err(format!("the token's issuer {iss:?} is not accepted"));
        }
        let audience = strings(claims.get("aud"), "aud")?;
        let same = |a: &str, b: &str| match (canonical(a), canonical(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        if !audience
            .iter()
            .any(|a| inner.audiences.iter().any(|mine| same(a, mine)))
        {
            return Err("the token was not issued for this resource (audience)".into());
        }
        let scopes = match claims.get("scope") {
            Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
            Some(_) => return Err("the token's scope is not a string".into()),
            None => strings(claims.get("scp"), "scp")?,
        };
        let subject = text("sub")?;
        let client_id = text("client_id")?.or(text("azp")?);
        let mut info = AuthInfo::default()
            .with_scopes(scopes)
            .with_audience(audience)
            // When this server stops accepting the token (the leeway included), so that
            // `ResourceAuth`'s expiry check agrees with the one above.
            .with_expires_at((exp + leeway).max(0.0) as u64)
            .with_claims(Value::Object(claims));
        // `AuthInfo` is `#[non_exhaustive]` in the crate below: no struct literal here.
        info.subject = subject;
        info.client_id = client_id;
        Ok(info)
    }
}

/// A string or an array of strings (`aud`, `scp`); a string `scp` is space-separated.
fn strings(v: Option<&Value>, name: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) if name == "scp" => {
            Ok(s.split_whitespace().map(str::to_string).collect())
        }
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("the token's {name} holds a non-string")),
        Some(_) => Err(format!("the token's {name} is malformed")),
    }
}

/// A compact JWS split and decoded (signature not yet checked).
struct Parsed<'a> {
    alg: String,
    kid: Option<String>,
    /// `header.payload`, the signed bytes.
    signed: &'a str,
    signature: Vec<u8>,
    claims: Map<String, Value>,
}

impl<'a> Parsed<'a> {
    fn new(token: &'a str) -> Result<Self, String> {
        if token.len() > MAX_TOKEN {
            return Err("the token is too large".into());
        }
        let mut parts = token.split('.');
        let (Some(h), Some(p), Some(s), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err("the token is not a JWT (three dot-separated parts)".into());
        };
        let json = |part: &str, what: &str| -> Result<Map<String, Value>, String> {
            let bytes = URL_SAFE_NO_PAD
                .decode(part)
                .map_err(|_| format!("the token's {what} is not base64url"))?;
            match serde_json::from_slice(&bytes) {
                Ok(Value::Object(m)) => Ok(m),
                _ => Err(format!("the token's {what} is not a JSON object")),
            }
        };
        let header = json(h, "header")?;
        if header.contains_key("crit") {
            return Err(
                "the token's header has critical extensions (crit) this server does not understand"
                    .into(),
            );
        }
        let alg = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or("the token's header has no alg")?
            .to_string();
        let kid = match header.get("kid") {
            None | Some(Value::Null) => None,
            Some(Value::String(k)) => Some(k.clone()),
            Some(_) => return Err("the token's kid is not a string".into()),
        };
        let claims = json(p, "payload")?;
        let signature = URL_SAFE_NO_PAD
            .decode(s)
            .map_err(|_| "the token's signature is not base64url".to_string())?;
        Ok(Self {
            alg,
            kid,
            signed: &token[..h.len() + 1 + p.len()],
            signature,
            claims,
        })
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: &str) -> BoxFuture<'static, Result<AuthInfo, String>> {
        let this = self.clone();
        let token = token.to_string();
        Box::pin(async move { this.check(&token).await })
    }
}
