//! The access-token cache: one slot per credential and end user, renewed by one request at a
//! time (single flight).
//!
//! A caller locks its slot: a fresh token is returned at once; otherwise the caller fetches a
//! new one while holding the lock, so every concurrent caller waits for that one request and
//! then reads its result. A failure is shared the same way: callers that queued behind a failed
//! request get its error instead of each sending another request to an endpoint that just
//! failed.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

// The runtime's clock, not the system's: a test pauses and advances it past a token's
// lifetime instead of sleeping through it.
use tokio::time::Instant;

use crate::error::CharterError;
use crate::http::credentials::Secret;
use crate::table::Grant;

use super::token::Fresh;

/// How long before its announced expiry a token is renewed: a tenth of its lifetime, at most a
/// minute (an hour-long Google token is renewed 59 minutes in).
const MAX_MARGIN: Duration = Duration::from_secs(60);

/// Past this many slots, idle slots without a usable token are dropped on insertion.
const TIDY_ABOVE: usize = 4096;

/// What identifies one access token: who it is for and everything that obtained it. The user is
/// part of the key, and so is the refresh token (or client secret) itself, so one user's token
/// never serves another, even through a provider that answers the same variable per user.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    pub(crate) user: Option<String>,
    pub(crate) token_url: String,
    pub(crate) client_id: String,
    pub(crate) grant: Grant,
    pub(crate) scopes: &'static [&'static str],
    pub(crate) credential: Option<Secret>,
    /// The refresh token is the stored login's (`charter auth login`), read from its file when
    /// a renewal is due rather than on every call.
    pub(crate) stored_login: bool,
}

impl fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CacheKey")
            .field("user", &self.user)
            .field("token_url", &self.token_url)
            .field("grant", &self.grant)
            .field("stored_login", &self.stored_login)
            .finish_non_exhaustive()
    }
}

/// Every slot of one executor.
#[derive(Default)]
pub(crate) struct TokenCache {
    slots: Mutex<HashMap<CacheKey, Arc<Slot>>>,
}

impl fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.slots.lock().map(|s| s.len()).unwrap_or(0);
        write!(f, "TokenCache({n} slots)")
    }
}

impl TokenCache {
    /// The slot for `key`, created empty on first use.
    pub(crate) fn slot(&self, key: CacheKey) -> Arc<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = slots.get(&key) {
            return slot.clone();
        }
        if slots.len() >= TIDY_ABOVE {
            let now = Instant::now();
            slots.retain(|_, slot| Arc::strong_count(slot) > 1 || slot.usable(now));
        }
        slots.entry(key).or_default().clone()
    }
}

/// One credential's token and the lock that makes its renewal single-flight.
#[derive(Default)]
pub(crate) struct Slot {
    /// How many renewals this slot has made; a waiter compares it to see whether one completed
    /// while it waited.
    fetches: AtomicU64,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    token: Option<Cached>,
    /// A refresh token the endpoint rotated in and no shared store holds: used instead of the
    /// configured one.
    rotated: Option<Secret>,
    /// The last renewal's failure, shared with the callers that waited for it.
    failure: Option<CharterError>,
}

struct Cached {
    access: Secret,
    renew_at: Option<Instant>,
}

impl Cached {
    fn fresh(&self, now: Instant) -> bool {
        self.renew_at.is_none_or(|at| now < at)
    }
}

/// What one renewal obtained.
pub(crate) struct Obtained {
    /// The access token.
    pub(crate) access: Secret,
    /// When it is due for renewal (`None`: its lifetime is unknown; used until refused).
    pub(crate) renew_at: Option<Instant>,
    /// The refresh token the slot keeps for its next renewal, replacing the one it kept: a
    /// rotated one that lives nowhere else (`None` once a shared store holds it).
    pub(crate) keep_refresh: Option<Secret>,
}

impl Obtained {
    /// A token the endpoint just issued, whose lifetime started at `started`.
    pub(crate) fn fresh(fresh: &Fresh, started: Instant, keep_refresh: Option<Secret>) -> Self {
        Obtained {
            access: fresh.access_token.clone(),
            renew_at: fresh.expires_in.map(|life| started + life - margin(life)),
            keep_refresh,
        }
    }
}

impl Slot {
    /// A usable access token: the cached one unless it is due for renewal or is `stale` (the one
    /// the API just refused), else one obtained by `renew`, called with the rotated refresh
    /// token this slot keeps, if any.
    pub(crate) async fn get<F, Fut>(
        &self,
        stale: Option<&Secret>,
        renew: F,
    ) -> Result<Secret, CharterError>
    where
        F: FnOnce(Option<Secret>) -> Fut,
        Fut: Future<Output = Result<Obtained, CharterError>>,
    {
        let seen = self.fetches.load(Ordering::Acquire);
        let mut state = self.state.lock().await;
        let renewed_meanwhile = self.fetches.load(Ordering::Acquire) != seen;
        if let Some(cached) = &state.token
            && cached.fresh(Instant::now())
            && (renewed_meanwhile || stale != Some(&cached.access))
        {
            return Ok(cached.access.clone());
        }
        if renewed_meanwhile && let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        let result = renew(state.rotated.clone()).await;
        self.fetches.fetch_add(1, Ordering::AcqRel);
        match result {
            Ok(obtained) => {
                state.rotated = obtained.keep_refresh;
                state.token = Some(Cached {
                    access: obtained.access.clone(),
                    renew_at: obtained.renew_at,
                });
                state.failure = None;
                Ok(obtained.access)
            }
            Err(failure) => {
                state.token = None;
                state.failure = Some(failure.clone());
                Err(failure)
            }
        }
    }

    fn usable(&self, now: Instant) -> bool {
        match self.state.try_lock() {
            Ok(state) => state.token.as_ref().is_some_and(|t| t.fresh(now)),
            Err(_) => true,
        }
    }
}

pub(crate) fn margin(lifetime: Duration) -> Duration {
    (lifetime / 10).min(MAX_MARGIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_hour_long_token_is_renewed_a_minute_early_a_short_one_a_tenth_early() {
        assert_eq!(margin(Duration::from_secs(3600)), Duration::from_secs(60));
        assert_eq!(margin(Duration::from_secs(2)), Duration::from_millis(200));
    }

    #[tokio::test]
    async fn a_refused_token_is_renewed_once_and_waiters_share_a_failure() {
        let slot = Slot::default();
        let fresh = |t: &str| Obtained {
            access: Secret::new(t),
            renew_at: Some(Instant::now() + Duration::from_secs(3600)),
            keep_refresh: None,
        };
        let a = slot
            .get(None, |_| async { Ok(fresh("tok-a")) })
            .await
            .unwrap();
        // Cached: the renewal is not called.
        let again = slot.get(None, |_| async { unreachable!() }).await.unwrap();
        assert_eq!(again, a);
        // The API refused tok-a: renewed.
        let b = slot
            .get(Some(&a), |_| async { Ok(fresh("tok-b")) })
            .await
            .unwrap();
        assert_eq!(b.expose(), "tok-b");
        let failed = slot
            .get(Some(&b), |_| async {
                Err(CharterError::Credential("down".to_owned()))
            })
            .await;
        assert!(failed.is_err());
    }
}
