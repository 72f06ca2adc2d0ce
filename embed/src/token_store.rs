//! The one adapter from a binding's token store (a Python object, a JavaScript function, a Swift
//! protocol) to the engine's [`TokenStore`]. Each binding only moves JSON across its boundary
//! ([`ForeignTokenStore`]); decoding what the store answered and the wording of every error is
//! written here once, so a broken store reads the same in every language.

use ferromcp::auth::{AuthError, StoredAuth, TokenStore};
use serde_json::Value;
use std::sync::Arc;

/// A token store written in the binding's language, seen as JSON: what is stored under a key is
/// the engine's [`StoredAuth`] as JSON, `null` for nothing. A failure is the message the
/// foreign store raised (its exception's text); the adapter says which operation failed.
pub trait ForeignTokenStore: Send + Sync + 'static {
    /// What is stored under `key` (`null`: nothing).
    fn load(&self, key: &str) -> Result<Value, String>;
    /// Stores `value` under `key`, replacing what was there.
    fn save(&self, key: &str, value: Value) -> Result<(), String>;
    /// Forgets `key`.
    fn remove(&self, key: &str) -> Result<(), String>;
}

/// The engine's [`TokenStore`] over a [`ForeignTokenStore`]. `name` is what the binding's users
/// call the store (`token_store` in Python, `tokenStore` in Node and Swift): errors read
/// `"<name>.<operation>: <message>"`, and an answer of `load` that is not a stored
/// authorization reads `"<name>.load returned <what is wrong>"`.
pub fn foreign_token_store(
    name: &'static str,
    store: impl ForeignTokenStore,
) -> Arc<dyn TokenStore> {
    Arc::new(Adapter { name, store })
}

struct Adapter<S> {
    name: &'static str,
    store: S,
}

impl<S> Adapter<S> {
    fn failed(&self, op: &str, message: String) -> AuthError {
        AuthError::Store(format!("{}.{op}: {message}", self.name))
    }
}

impl<S: ForeignTokenStore> TokenStore for Adapter<S> {
    fn load(&self, key: &str) -> Result<Option<StoredAuth>, AuthError> {
        match self.store.load(key).map_err(|e| self.failed("load", e))? {
            Value::Null => Ok(None),
            v => serde_json::from_value(v)
                .map(Some)
                .map_err(|e| AuthError::Store(format!("{}.load returned {e}", self.name))),
        }
    }

    fn save(&self, key: &str, value: &StoredAuth) -> Result<(), AuthError> {
        let v = serde_json::to_value(value).map_err(|e| self.failed("save", e.to_string()))?;
        self.store.save(key, v).map_err(|e| self.failed("save", e))
    }

    fn remove(&self, key: &str) -> Result<(), AuthError> {
        self.store.remove(key).map_err(|e| self.failed("remove", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// A store keeping JSON in a map, failing every operation on the key "broken".
    #[derive(Default)]
    struct JsonMap(Mutex<HashMap<String, Value>>);

    impl ForeignTokenStore for JsonMap {
        fn load(&self, key: &str) -> Result<Value, String> {
            if key == "broken" {
                return Err("disk on fire".into());
            }
            Ok(self
                .0
                .lock()
                .unwrap()
                .get(key)
                .cloned()
                .unwrap_or(Value::Null))
        }
        fn save(&self, key: &str, value: Value) -> Result<(), String> {
            if key == "broken" {
                return Err("read-only".into());
            }
            self.0.lock().unwrap().insert(key.into(), value);
            Ok(())
        }
        fn remove(&self, key: &str) -> Result<(), String> {
            if key == "broken" {
                return Err("gone".into());
            }
            self.0.lock().unwrap().remove(key);
            Ok(())
        }
    }

    fn stored() -> StoredAuth {
        serde_json::from_value(json!({"tokens": {"access_token": "a", "token_type": "Bearer"}}))
            .expect("a stored authorization")
    }

    #[test]
    fn a_saved_authorization_loads_back_and_remove_forgets_it() {
        let store = foreign_token_store("tokenStore", JsonMap::default());
        assert!(store.load("k").unwrap().is_none());
        store.save("k", &stored()).unwrap();
        let back = store.load("k").unwrap().expect("saved");
        assert_eq!(
            serde_json::to_value(back).unwrap(),
            serde_json::to_value(stored()).unwrap()
        );
        store.remove("k").unwrap();
        assert!(store.load("k").unwrap().is_none());
    }

    #[test]
    fn a_failing_store_names_itself_and_the_operation() {
        let store = foreign_token_store("token_store", JsonMap::default());
        let msg = |e: AuthError| e.to_string();
        assert!(msg(store.load("broken").unwrap_err()).contains("token_store.load: disk on fire"));
        assert!(msg(store.save("broken", &stored()).unwrap_err())
            .contains("token_store.save: read-only"));
        assert!(msg(store.remove("broken").unwrap_err()).contains("token_store.remove: gone"));
    }

    #[test]
    fn a_load_answer_that_is_not_an_authorization_is_a_store_error() {
        let map = JsonMap::default();
        map.0
            .lock()
            .unwrap()
            .insert("k".into(), json!({"tokens": 5}));
        let store = foreign_token_store("tokenStore", map);
        let e = store.load("k").unwrap_err().to_string();
        assert!(e.contains("tokenStore.load returned"), "{e}");
    }
}
