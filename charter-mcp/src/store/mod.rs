//! A store several `charter mcp --http` instances share, so that any instance can serve any
//! request (`charter mcp --store redis://HOST:PORT`, [`HttpOptions::store`](crate::HttpOptions)):
//!
//! - `grants`: OAuth 2 access tokens and rotating refresh tokens, and their renewal one
//!   instance at a time under a lock with an expiry (a dead holder never blocks), for the
//!   executor ([`FleetStore::tokens`], `HttpExecutorBuilder::shared_tokens`);
//! - `rate`: the per-caller rate limit, counted fleet-wide (GCRA in one script, on Redis's
//!   clock);
//! - `sessions`: the state of 2025-11-25 MCP sessions (the client's `initialize`, the caller it
//!   belongs to, the tools a progressive session loaded), so another instance restores a session
//!   it never saw.
//!
//! Every value that could hold a secret is sealed (`seal`, AES-256-GCM under
//! `CHARTER_STORE_KEY`); key names carry digests, never a session id or a caller. Every request
//! has a timeout; while the store is unreachable the calls that need it get an error saying so
//! (logged once per outage, and once when it is back) and everything else is served: cached
//! tokens, local sessions, and the rate limit counted per instance.

mod grants;
pub(crate) mod rate;
pub mod seal;
pub(crate) mod sessions;

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use charter_runtime::http::oauth::shared::GrantStore;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

pub use seal::{KeyError, StoreKey};

/// While the store is unreachable, a request is sent at most this often; the others fail at once
/// with the last failure, so an address that swallows packets costs one timeout per interval,
/// not one per call.
const RETRY_EVERY: Duration = Duration::from_millis(500);

/// How a [`FleetStore`] talks to Redis.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// The longest one request may take, connecting included (default 2 s); past it the call
    /// that needed it gets a store error.
    pub timeout: Duration,
    /// How long a refresh lock lives without its holder renewing it (default 10 s): a holder
    /// that dies is replaced after at most this long. A live holder extends it every third of it.
    pub lock_ttl: Duration,
    /// How long an MCP session's state is kept after its last change (default 24 h).
    pub session_ttl: Duration,
    /// The prefix of every key (default `charter:`), to share one Redis with other programs or
    /// keep several fleets apart.
    pub prefix: String,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(2),
            lock_ttl: Duration::from_secs(10),
            session_ttl: Duration::from_secs(24 * 3600),
            prefix: "charter:".to_owned(),
        }
    }
}

/// Why the shared store could not be used. Names the store (without its password), never a
/// value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The URL cannot be used.
    #[error("--store `{url}`: {reason}")]
    BadUrl {
        /// The URL, its password hidden.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// A request failed or timed out.
    #[error("the shared store ({url}) is unreachable: {reason}")]
    Unreachable {
        /// The URL, its password hidden.
        url: String,
        /// What failed.
        reason: String,
    },
    /// [`FleetStore::connect`] was called outside a Tokio runtime (its connection lives on one).
    #[error("the shared store must be opened within a Tokio runtime")]
    NoRuntime,
    /// A value does not open with this instance's key.
    #[error(
        "the shared store ({url}) holds a value this instance cannot open: every instance needs \
         the same CHARTER_STORE_KEY (or the previous one in CHARTER_STORE_KEY_PREVIOUS)"
    )]
    Sealed {
        /// The URL, its password hidden.
        url: String,
    },
}

/// A connection to the fleet's Redis (reconnecting by itself), its key and its options. Cheap
/// to clone.
#[derive(Clone)]
pub struct FleetStore {
    inner: Arc<Inner>,
}

struct Inner {
    redis: ConnectionManager,
    shown: String,
    key: StoreKey,
    options: StoreOptions,
    /// Whether the last request failed: an outage is logged when it starts and when it ends,
    /// not on every call.
    down: AtomicBool,
    /// When a request last failed, and why.
    failed: Mutex<Option<(Instant, String)>>,
}

impl fmt::Debug for FleetStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FleetStore")
            .field("url", &self.inner.shown)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl FleetStore {
    /// A store at `url` (`redis://[:PASSWORD@]HOST:PORT[/DB]`) sealing with `key`. Connects on
    /// first use, so a server starts while Redis is down and serves what does not need it.
    /// Call it within a Tokio runtime.
    pub fn connect(url: &str, key: StoreKey) -> Result<Self, StoreError> {
        Self::with_options(url, key, StoreOptions::default())
    }

    /// [`connect`](Self::connect) with options.
    pub fn with_options(
        url: &str,
        key: StoreKey,
        options: StoreOptions,
    ) -> Result<Self, StoreError> {
        let shown = shown(url);
        let bad = |reason: &str| StoreError::BadUrl {
            url: shown.clone(),
            reason: reason.to_owned(),
        };
        if url.starts_with("rediss://") {
            return Err(bad(
                "TLS (rediss://) is not built in: reach Redis over a private network or through \
                 a TLS tunnel, with redis://",
            ));
        }
        if !url.starts_with("redis://") {
            return Err(bad("expected redis://HOST:PORT"));
        }
        let client = redis::Client::open(url).map_err(|e| bad(&e.to_string()))?;
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(StoreError::NoRuntime);
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(200));
        let redis = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| bad(&e.to_string()))?;
        Ok(FleetStore {
            inner: Arc::new(Inner {
                redis,
                shown,
                key,
                options,
                down: AtomicBool::new(false),
                failed: Mutex::new(None),
            }),
        })
    }

    /// The URL, its password hidden.
    pub fn url(&self) -> &str {
        &self.inner.shown
    }

    /// The OAuth 2 side, for `HttpExecutorBuilder::shared_tokens`.
    pub fn tokens(&self) -> Arc<dyn GrantStore> {
        Arc::new(grants::FleetGrants(self.clone()))
    }

    /// Checks that the store answers (a server's start line says when it does not).
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.run(
            |mut redis| async move { redis::cmd("PING").query_async::<String>(&mut redis).await },
        )
        .await
        .map(|_| ())
    }

    pub(crate) fn options(&self) -> &StoreOptions {
        &self.inner.options
    }

    pub(crate) fn seal_key(&self) -> &StoreKey {
        &self.inner.key
    }

    /// The key name for `parts` under the prefix.
    pub(crate) fn name(&self, parts: &[&str]) -> String {
        let mut name = self.inner.options.prefix.clone();
        name.push_str(&parts.join(":"));
        name
    }

    pub(crate) fn sealed_error(&self) -> StoreError {
        StoreError::Sealed {
            url: self.inner.shown.clone(),
        }
    }

    /// Runs one exchange with Redis under the timeout, noting an outage once.
    pub(crate) async fn run<T, F, Fut>(&self, exchange: F) -> Result<T, StoreError>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        if let Some(reason) = self.recently_failed() {
            return Err(StoreError::Unreachable {
                url: self.inner.shown.clone(),
                reason,
            });
        }
        let redis = self.inner.redis.clone();
        let result = tokio::time::timeout(self.inner.options.timeout, exchange(redis)).await;
        let reason = match result {
            Ok(Ok(value)) => {
                if self.inner.down.swap(false, Ordering::SeqCst) {
                    tracing::info!(store = %self.inner.shown, "the shared store is reachable again");
                }
                return Ok(value);
            }
            Ok(Err(error)) => reason(&error),
            Err(_) => format!(
                "no answer within {} ms",
                self.inner.options.timeout.as_millis()
            ),
        };
        *self.failed() = Some((Instant::now(), reason.clone()));
        let error = StoreError::Unreachable {
            url: self.inner.shown.clone(),
            reason,
        };
        if !self.inner.down.swap(true, Ordering::SeqCst) {
            tracing::error!(%error, "calls that need the shared store fail until it is back; the rest is served");
        }
        Err(error)
    }

    fn failed(&self) -> std::sync::MutexGuard<'_, Option<(Instant, String)>> {
        self.inner
            .failed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The last failure's reason, while the store is down and it failed less than
    /// [`RETRY_EVERY`] ago.
    fn recently_failed(&self) -> Option<String> {
        if !self.inner.down.load(Ordering::SeqCst) {
            return None;
        }
        match &*self.failed() {
            Some((at, reason)) if at.elapsed() < RETRY_EVERY => Some(reason.clone()),
            _ => None,
        }
    }

    /// Spawns `work` on the runtime if there is one (a lock released from `Drop`).
    pub(crate) fn spawn(work: impl Future<Output = ()> + Send + 'static) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(work);
        }
    }
}

/// A Redis error in words: its kind and detail, which never carry a value charter sent (every
/// value is sealed, every key a digest).
fn reason(error: &redis::RedisError) -> String {
    let text = error.to_string();
    if text.len() > 200 {
        let mut end = 200;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &text[..end])
    } else {
        text
    }
}

/// The URL without its password.
fn shown(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            if parsed.password().is_some() {
                let _ = parsed.set_password(Some("***"));
            }
            parsed.to_string()
        }
        Err(_) => "(unparsable URL)".to_owned(),
    }
}

/// Hex SHA-256 of `parts`, each length-prefixed: names a caller or session in a key without
/// holding it.
pub(crate) fn digest(parts: &[&str]) -> String {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(&(part.len() as u64).to_be_bytes());
        context.update(part.as_bytes());
    }
    context
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password_and_tls_is_refused_clearly() {
        assert_eq!(
            shown("redis://:hunter22@10.0.0.5:6379/2"),
            "redis://:***@10.0.0.5:6379/2"
        );
        let key = || StoreKey::from_bytes(&[1; 32]);
        let err = FleetStore::connect("rediss://h:6380", key())
            .unwrap_err()
            .to_string();
        assert!(err.contains("TLS (rediss://) is not built in"), "{err}");
        let err = FleetStore::connect("http://h:6379", key())
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected redis://HOST:PORT"), "{err}");
        let err = FleetStore::connect("redis://:hunter22@h:notaport", key())
            .unwrap_err()
            .to_string();
        assert!(!err.contains("hunter22"), "{err}");
    }
}
