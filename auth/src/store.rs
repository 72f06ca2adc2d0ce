//! Where tokens and dynamically registered clients live between connections: the
//! [`TokenStore`] trait, an in-memory store (the default) and a JSON file store.

use super::AuthError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// Tokens from the token endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenSet {
    /// The bearer token sent to the MCP server.
    pub access_token: String,
    /// The refresh token, when the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Expiry as Unix seconds, when the server gave `expires_in`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The granted scopes (space separated), when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl TokenSet {
    /// Whether the access token expires within `margin_secs`.
    pub fn expires_within(&self, margin_secs: u64) -> bool {
        self.expires_at
            .is_some_and(|at| now_secs().saturating_add(margin_secs) >= at)
    }
}

/// A client registered with an authorization server (dynamically, or pre-registered).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientInfo {
    /// The client id.
    pub client_id: String,
    /// The client secret (confidential clients).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint (`client_secret_basic`,
    /// `client_secret_post` or `none`); chosen from the server's metadata when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
}

/// What is stored for one MCP server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredAuth {
    /// The current tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSet>,
    /// The dynamically registered client and the issuer it was registered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientInfo>,
    /// The issuer `client` and `tokens` belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The `resource` (RFC 8707) the tokens were requested for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

/// Storage of tokens and registrations, keyed by the MCP server's canonical URL.
/// Implementations must be cheap: they are called on the request path.
pub trait TokenStore: Send + Sync {
    /// What is stored for `key`, if anything.
    fn load(&self, key: &str) -> Result<Option<StoredAuth>, AuthError>;
    /// Replaces what is stored for `key`.
    fn save(&self, key: &str, value: &StoredAuth) -> Result<(), AuthError>;
    /// Forgets `key`.
    fn remove(&self, key: &str) -> Result<(), AuthError>;
}

/// Tokens kept in memory for the life of the process (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    map: Mutex<HashMap<String, StoredAuth>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, key: &str) -> Result<Option<StoredAuth>, AuthError> {
        Ok(self.map.lock().unwrap().get(key).cloned())
    }
    fn save(&self, key: &str, value: &StoredAuth) -> Result<(), AuthError> {
        self.map
            .lock()
            .unwrap()
            .insert(key.to_string(), value.clone());
        Ok(())
    }
    fn remove(&self, key: &str) -> Result<(), AuthError> {
        self.map.lock().unwrap().remove(key);
        Ok(())
    }
}

/// Tokens kept in one JSON file (an object keyed by server URL), written atomically (temporary
/// file, then rename) and readable by the owner only on Unix.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in `path` (created on first save; its directory must exist).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    fn read_all(&self) -> Result<HashMap<String, StoredAuth>, AuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                AuthError::Store(format!("{} is not a token file: {e}", self.path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(e) => Err(AuthError::Store(format!(
                "reading {}: {e}",
                self.path.display()
            ))),
        }
    }

    fn write_all(&self, map: &HashMap<String, StoredAuth>) -> Result<(), AuthError> {
        let err =
            |e: std::io::Error| AuthError::Store(format!("writing {}: {e}", self.path.display()));
        let tmp = self.path.with_extension("tmp");
        let bytes = serde_json::to_vec_pretty(map).expect("serializes");
        {
            use std::io::Write;
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            let mut f = opts.open(&tmp).map_err(err)?;
            f.write_all(&bytes).map_err(err)?;
            f.sync_all().map_err(err)?;
        }
        std::fs::rename(&tmp, &self.path).map_err(err)
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, key: &str) -> Result<Option<StoredAuth>, AuthError> {
        let _g = self.lock.lock().unwrap();
        Ok(self.read_all()?.remove(key))
    }
    fn save(&self, key: &str, value: &StoredAuth) -> Result<(), AuthError> {
        let _g = self.lock.lock().unwrap();
        let mut map = self.read_all()?;
        map.insert(key.to_string(), value.clone());
        self.write_all(&map)
    }
    fn remove(&self, key: &str) -> Result<(), AuthError> {
        let _g = self.lock.lock().unwrap();
        let mut map = self.read_all()?;
        if map.remove(key).is_some() {
            self.write_all(&map)?;
        }
        Ok(())
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StoredAuth {
        StoredAuth {
            tokens: Some(TokenSet {
                access_token: "at".into(),
                refresh_token: Some("rt".into()),
                expires_at: Some(4_000_000_000),
                scope: Some("a b".into()),
            }),
            client: Some(ClientInfo {
                client_id: "c".into(),
                client_secret: None,
                token_endpoint_auth_method: Some("none".into()),
            }),
            issuer: Some("http://as".into()),
            resource: Some("http://s/mcp".into()),
        }
    }

    #[test]
    fn file_store_round_trips_and_removes() {
        let dir = std::env::temp_dir().join(format!("ferromcp-tokens-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let store = FileTokenStore::new(&path);
        assert_eq!(store.load("http://s/mcp").unwrap(), None);
        store.save("http://s/mcp", &sample()).unwrap();
        store.save("http://t/mcp", &StoredAuth::default()).unwrap();
        let again = FileTokenStore::new(&path);
        assert_eq!(again.load("http://s/mcp").unwrap(), Some(sample()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "token file readable by others: {mode:o}");
        }
        again.remove("http://s/mcp").unwrap();
        assert_eq!(store.load("http://s/mcp").unwrap(), None);
        assert_eq!(
            store.load("http://t/mcp").unwrap(),
            Some(StoredAuth::default())
        );
        std::fs::write(&path, b"not json").unwrap();
        assert!(matches!(store.load("x"), Err(AuthError::Store(_))));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn expiry_margin() {
        let mut t = sample().tokens.unwrap();
        assert!(!t.expires_within(60));
        t.expires_at = Some(now_secs() + 30);
        assert!(t.expires_within(60));
        t.expires_at = None;
        assert!(!t.expires_within(60));
    }
}
