//! Tokens shared beyond one process: the stored login on this machine (several `charter`
//! processes reading one file) or a fleet's store (several `charter mcp --http` instances).
//!
//! A token endpoint that rotates refresh tokens and accepts each one once (RFC 9700 §4.14) breaks
//! a credential the moment two processes renew it at once: one wins, and the other's refresh
//! token is dead. So a renewal through a [`GrantStore`] goes:
//!
//! 1. read the shared grant; an access token still fresh (and not the one the API just refused)
//!    is used as it is, with no token request;
//! 2. otherwise take the grant's refresh lock ([`GrantStore::lock`]), held only for the token
//!    request and the write, and read the grant again: a process that waited finds the token the
//!    winner obtained and uses it;
//! 3. otherwise renew with the shared refresh token and write the answer back (the new refresh
//!    token, when the endpoint rotated it, with the access token and its expiry) before
//!    releasing the lock.
//!
//! The store decides what a lock is (an OS file lock beside the stored login; a key with an
//! expiry in Redis, so that a dead holder never blocks) and how a write is made safe (a file
//! renamed into place; a write allowed only while the lock is still held).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::http::credentials::Secret;
use crate::table::BoxFuture;

/// The tokens of one grant as every process sharing it sees them.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SharedGrant {
    /// The refresh token to renew with next; `None` keeps the one configured (a grant that
    /// never rotated, or the client-credentials grant, which has none).
    pub refresh_token: Option<Secret>,
    /// The access token last obtained.
    pub access_token: Option<Secret>,
    /// When it was obtained, in milliseconds since the Unix epoch.
    pub obtained_at_ms: u64,
    /// When it expires, in milliseconds since the Unix epoch (`None`: the endpoint did not say,
    /// so it is used until an API refuses it).
    pub expires_at_ms: Option<u64>,
    /// When the refresh token was last replaced by a rotating endpoint, in seconds since the
    /// Unix epoch (`None`: never).
    pub rotated_at: Option<u64>,
}

impl fmt::Debug for SharedGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedGrant")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "***"))
            .field("access_token", &self.access_token.as_ref().map(|_| "***"))
            .field("obtained_at_ms", &self.obtained_at_ms)
            .field("expires_at_ms", &self.expires_at_ms)
            .field("rotated_at", &self.rotated_at)
            .finish()
    }
}

impl SharedGrant {
    /// When the access token is due for renewal (ms since the epoch): a tenth of its lifetime
    /// before it expires, at most a minute, as for tokens kept in memory.
    pub fn renew_at_ms(&self) -> Option<u64> {
        let expires = self.expires_at_ms?;
        let life = expires.saturating_sub(self.obtained_at_ms);
        let margin = super::cache::margin(Duration::from_millis(life)).as_millis() as u64;
        Some(expires.saturating_sub(margin))
    }

    /// The access token, if it may be used now: present, not due, and not `stale` (the one an
    /// API just refused).
    pub fn usable(&self, now_ms: u64, stale: Option<&Secret>) -> Option<&Secret> {
        let access = self.access_token.as_ref()?;
        let due = self.renew_at_ms().is_some_and(|at| now_ms >= at);
        (!due && stale != Some(access)).then_some(access)
    }
}

/// Which grant: its pack and end user, and a digest of everything that obtained it (token
/// endpoint, client id, grant type, scopes, and the configured refresh token or client secret),
/// so a store can name it without holding any of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GrantKey {
    /// The pack label.
    pub pack: &'static str,
    /// The end user (`CallContext::user`), `None` for the process's own.
    pub user: Option<String>,
    /// Hex SHA-256 of what obtained the grant.
    pub digest: String,
}

/// Why a shared store could not be read, locked or written. Names the store, never a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShareError(pub String);

/// Where grants live beyond one process. Implemented by the stored logins of this machine
/// ([`TokenStore`](super::store::TokenStore)) and by a fleet's store (`charter mcp --store`).
pub trait GrantStore: Send + Sync + fmt::Debug {
    /// The grant as last written, if any.
    fn load<'a>(
        &'a self,
        key: &'a GrantKey,
    ) -> BoxFuture<'a, Result<Option<SharedGrant>, ShareError>>;

    /// Takes the grant's refresh lock, waiting at most `wait` for another holder; a holder that
    /// died must not block for longer than the store's own bound.
    fn lock<'a>(
        &'a self,
        key: &'a GrantKey,
        wait: Duration,
    ) -> BoxFuture<'a, Result<Box<dyn GrantLock>, ShareError>>;
}

/// A held refresh lock. Dropping it releases it (a store whose release is a request does it
/// in the background); [`GrantLock::release`] does it at once.
pub trait GrantLock: Send {
    /// Writes the grant, only while the lock is still held (a holder whose lock lapsed must not
    /// overwrite what the next holder wrote).
    fn save<'a>(&'a mut self, grant: &'a SharedGrant) -> BoxFuture<'a, Result<(), ShareError>>;

    /// Releases the lock now.
    fn release(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_token_is_used_until_a_tenth_of_its_life_before_expiry_and_never_when_stale() {
        let grant = SharedGrant {
            access_token: Some(Secret::new("at")),
            obtained_at_ms: 1_000_000,
            expires_at_ms: Some(1_000_000 + 3_600_000),
            ..SharedGrant::default()
        };
        // Renewed a minute early.
        assert_eq!(grant.renew_at_ms(), Some(1_000_000 + 3_540_000));
        assert!(grant.usable(1_000_000 + 3_539_999, None).is_some());
        assert!(grant.usable(1_000_000 + 3_540_000, None).is_none());
        assert!(grant.usable(1_000_000, Some(&Secret::new("at"))).is_none());
        assert!(
            grant
                .usable(1_000_000, Some(&Secret::new("other")))
                .is_some()
        );
        assert!(!format!("{grant:?}").contains("at\""));
    }
}
