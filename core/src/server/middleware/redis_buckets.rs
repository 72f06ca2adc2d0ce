//! Token buckets on Redis (or Valkey), shared by every replica of a server: one Lua script
//! per request refills and takes from the bucket atomically on Redis's own clock, so replicas
//! whose clocks differ still agree on `retryAfter`.

use super::{BucketStore, RateDecision};
use crate::McpError;
use futures_util::future::BoxFuture;
use redis::aio::ConnectionManager;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::OnceCell;

/// How long a bucket operation waits for Redis before the request is let through (see
/// [`RedisBuckets`]).
pub const BUCKET_TIMEOUT: Duration = Duration::from_secs(2);

/// Refills bucket `KEYS[1]` (size `ARGV[1]`, refilled over `ARGV[2]` ms) to Redis's time, takes
/// a token if there is one (when `ARGV[3]` is `1`; `0` only looks, and writes nothing);
/// returns `{1, 0}` or `{0, ms until the next token}`. A bucket is full again one window after
/// its last use, so it expires then.
const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local rate = limit / window
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then
  tokens = limit
  at = now
end
tokens = math.min(limit, tokens + math.max(0, now - at) * rate)
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retry = math.ceil((1 - tokens) / rate)
end
if ARGV[3] == '0' then
  return {allowed, retry}
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(window))
return {allowed, retry}
";

/// Token buckets on Redis, for [`super::RateLimit::with_store`]: every replica given the same
/// URL counts against the same buckets (keys `ferromcp:rl:<key>`). Connects on first use and
/// reconnects by itself; an operation Redis does not answer within [`BUCKET_TIMEOUT`] fails,
/// and the rate limit then lets the request through (logged), rather than refuse every
/// request while Redis is away.
pub struct RedisBuckets {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    /// The SHA1 of [`TAKE`] as Redis loaded it (`SCRIPT LOAD`), again after a Redis that
    /// forgot it (restarted) answers `NOSCRIPT`.
    sha: Mutex<Option<String>>,
}

fn redis_error(e: impl std::fmt::Display) -> McpError {
    McpError::internal(format!("rate limit store: redis: {e}"))
}

impl RedisBuckets {
    /// Buckets on the Redis at `url` (`redis://[user:password@]host:port[/db]`); fails with
    /// invalid params (-32602) on a URL Redis's client does not take, a configuration error
    /// (nothing is connected yet; the URL itself is not repeated, it may hold a password).
    pub fn open(url: &str) -> Result<Self, McpError> {
        Ok(Self {
            client: redis::Client::open(url).map_err(|e| {
                McpError::invalid_params(format!("rate limit: redisUrl is not a Redis URL ({e})"))
            })?,
            conn: OnceCell::new(),
            sha: Mutex::new(None),
        })
    }

    /// Connects now (a server checks its Redis when it starts).
    pub async fn connect(&self) -> Result<(), McpError> {
        self.conn().await.map(|_| ())
    }

    async fn conn(&self) -> Result<ConnectionManager, McpError> {
        self.conn
            .get_or_try_init(|| async {
                let config = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(BUCKET_TIMEOUT))
                    .set_response_timeout(Some(BUCKET_TIMEOUT))
                    .set_number_of_retries(2)
                    .set_max_delay(Duration::from_millis(500));
                ConnectionManager::new_with_config(self.client.clone(), config)
                    .await
                    .map_err(redis_error)
            })
            .await
            .cloned()
    }

    async fn take_async(
        &self,
        key: &str,
        limit: u32,
        window: Duration,
        take: bool,
    ) -> Result<RateDecision, McpError> {
        // Whether a command failed on the connection's own response timeout (for telemetry).
        let timed_out = std::sync::atomic::AtomicBool::new(false);
        let failed = |e: redis::RedisError| {
            if e.is_timeout() {
                timed_out.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            redis_error(e)
        };
        let round_trip = async {
            let mut conn = self.conn().await?;
            let key = format!("ferromcp:rl:{key}");
            let window_ms = window.as_secs_f64() * 1000.0;
            let mut reloaded = false;
            let (allowed, retry_ms): (i64, i64) = loop {
                let known = self.sha.lock().unwrap().clone();
                let sha = match known {
                    Some(sha) => sha,
                    None => {
                        let sha: String = redis::cmd("SCRIPT")
                            .arg("LOAD")
                            .arg(TAKE)
                            .query_async(&mut conn)
                            .await
                            .map_err(failed)?;
                        *self.sha.lock().unwrap() = Some(sha.clone());
                        sha
                    }
                };
                let answer = redis::cmd("EVALSHA")
                    .arg(&sha)
                    .arg(1)
                    .arg(&key)
                    .arg(limit)
                    .arg(window_ms)
                    .arg(if take { "1" } else { "0" })
                    .query_async(&mut conn)
                    .await;
                match answer {
                    Ok(answer) => break answer,
                    Err(e)
                        if e.kind()
                            == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
                            && !reloaded =>
                    {
                        reloaded = true;
                        *self.sha.lock().unwrap() = None;
                    }
                    Err(e) => return Err(failed(e)),
                }
            };
            Ok(if allowed == 1 {
                RateDecision::Allowed
            } else {
                RateDecision::Limited {
                    retry_after: Duration::from_millis(retry_ms.max(1) as u64),
                }
            })
        };
        #[cfg(feature = "otel")]
        let timed = crate::telemetry::redis_trips::RoundTrip::start(if take {
            "bucket.take"
        } else {
            "bucket.peek"
        });
        let answer = tokio::time::timeout(BUCKET_TIMEOUT, round_trip).await;
        #[cfg(feature = "otel")]
        timed.end(match &answer {
            Ok(Ok(_)) => crate::telemetry::redis_trips::Outcome::Ok,
            Ok(Err(_)) if !timed_out.load(std::sync::atomic::Ordering::Relaxed) => {
                crate::telemetry::redis_trips::Outcome::Error
            }
            _ => crate::telemetry::redis_trips::Outcome::Timeout,
        });
        match answer {
            Ok(decision) => decision,
            Err(_) => Err(redis_error(format!(
                "no answer within {} ms (is Redis up?)",
                BUCKET_TIMEOUT.as_millis()
            ))),
        }
    }
}

impl BucketStore for RedisBuckets {
    fn take<'a>(
        &'a self,
        key: &'a str,
        limit: u32,
        window: Duration,
    ) -> BoxFuture<'a, Result<RateDecision, McpError>> {
        Box::pin(self.take_async(key, limit, window, true))
    }

    fn peek<'a>(
        &'a self,
        key: &'a str,
        limit: u32,
        window: Duration,
    ) -> BoxFuture<'a, Result<RateDecision, McpError>> {
        Box::pin(self.take_async(key, limit, window, false))
    }
}
