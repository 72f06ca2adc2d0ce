//! The proxy's records on Redis (feature `redis`), so that every replica given the same URL
//! serves any leg of the flow: a registration made on one, the authorization on another, the
//! upstream's callback and the token request on others. Keys are `ferromcp:<record key>`, with
//! Redis's own expiry; `take` is `GETDEL`, so a code is used once across replicas.

use super::store::ProxyStore;
use futures_util::future::BoxFuture;
use redis::aio::ConnectionManager;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::OnceCell;

/// How long one Redis operation may take.
const TIMEOUT: Duration = Duration::from_secs(2);

/// The proxy's records on Redis (or Valkey, 6.2 or later for `GETDEL`).
pub struct RedisProxyStore {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
}

impl std::fmt::Debug for RedisProxyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisProxyStore").finish_non_exhaustive()
    }
}

fn redis_error(e: impl std::fmt::Display) -> String {
    format!("redis: {e}")
}

impl RedisProxyStore {
    /// A store on the Redis at `url` (`redis://[user:password@]host:port[/db]`); fails on a URL
    /// Redis's client does not take (nothing is connected until first use).
    pub fn open(url: &str) -> Result<Self, String> {
        Ok(Self {
            client: redis::Client::open(url).map_err(redis_error)?,
            conn: OnceCell::new(),
        })
    }

    async fn conn(&self) -> Result<ConnectionManager, String> {
        self.conn
            .get_or_try_init(|| async {
                let config = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(TIMEOUT))
                    .set_response_timeout(Some(TIMEOUT))
                    .set_number_of_retries(2)
                    .set_max_delay(Duration::from_millis(500));
                ConnectionManager::new_with_config(self.client.clone(), config)
                    .await
                    .map_err(redis_error)
            })
            .await
            .cloned()
    }
}

fn parse(text: Option<String>) -> Result<Option<Value>, String> {
    text.map(|t| serde_json::from_str(&t).map_err(|e| format!("a stored record is not JSON: {e}")))
        .transpose()
}

impl ProxyStore for RedisProxyStore {
    fn put(&self, key: &str, value: Value, ttl: Duration) -> BoxFuture<'_, Result<(), String>> {
        let key = format!("ferromcp:{key}");
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            redis::cmd("SET")
                .arg(&key)
                .arg(value.to_string())
                .arg("PX")
                .arg(ms)
                .query_async::<()>(&mut conn)
                .await
                .map_err(redis_error)
        })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, Result<Option<Value>, String>> {
        let key = format!("ferromcp:{key}");
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let v: Option<String> = redis::cmd("GET")
                .arg(&key)
                .query_async(&mut conn)
                .await
                .map_err(redis_error)?;
            parse(v)
        })
    }

    fn take(&self, key: &str) -> BoxFuture<'_, Result<Option<Value>, String>> {
        let key = format!("ferromcp:{key}");
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let v: Option<String> = redis::cmd("GETDEL")
                .arg(&key)
                .query_async(&mut conn)
                .await
                .map_err(redis_error)?;
            parse(v)
        })
    }
}
