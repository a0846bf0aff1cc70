//! OAuth 2 grants in the shared store (the runtime's `GrantStore`): one sealed value per grant
//! at `grant:<digest>`, and its refresh lock at `grant:<digest>:lock`.
//!
//! The lock is `SET NX PX` with a random token and an expiry ([`StoreOptions::lock_ttl`]); its
//! holder extends it every third of the expiry while it lives, so a slow token endpoint never
//! lets it lapse and a dead holder blocks the others for at most one expiry. The grant is
//! written by a script that checks the holder still holds the lock, so a holder that was paused
//! past its expiry cannot overwrite what the next one wrote; releasing deletes the lock only if
//! it is still the holder's.
//!
//! [`StoreOptions::lock_ttl`]: super::StoreOptions::lock_ttl

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use charter_runtime::http::Secret;
use charter_runtime::http::oauth::shared::{
    GrantKey, GrantLock, GrantStore, ShareError, SharedGrant,
};
use charter_runtime::table::BoxFuture;
use redis::{AsyncCommands as _, Script};
use serde::{Deserialize, Serialize};

use super::{FleetStore, StoreError};

/// Writes `ARGV[2]` at `KEYS[2]` only while `KEYS[1]` (the lock) holds `ARGV[1]`.
static SAVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then \
           redis.call('SET', KEYS[2], ARGV[2]) return 1 \
         else return 0 end",
    )
});
/// Extends the lock `KEYS[1]` to `ARGV[2]` ms while it holds `ARGV[1]`.
static EXTEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then \
           return redis.call('PEXPIRE', KEYS[1], ARGV[2]) \
         else return 0 end",
    )
});
/// Deletes the lock `KEYS[1]` if it holds `ARGV[1]`.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then \
           return redis.call('DEL', KEYS[1]) \
         else return 0 end",
    )
});

/// How often a waiter tries the lock again.
const POLL: Duration = Duration::from_millis(20);

/// The store as the executor's [`GrantStore`].
#[derive(Debug)]
pub(super) struct FleetGrants(pub(super) FleetStore);

/// A grant as sealed in the store.
#[derive(Serialize, Deserialize)]
struct Stored {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    access_token: Option<String>,
    #[serde(default)]
    obtained_at_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rotated_at: Option<u64>,
}

impl From<&SharedGrant> for Stored {
    fn from(grant: &SharedGrant) -> Self {
        Stored {
            refresh_token: grant.refresh_token.as_ref().map(|s| s.expose().to_owned()),
            access_token: grant.access_token.as_ref().map(|s| s.expose().to_owned()),
            obtained_at_ms: grant.obtained_at_ms,
            expires_at_ms: grant.expires_at_ms,
            rotated_at: grant.rotated_at,
        }
    }
}

impl From<Stored> for SharedGrant {
    fn from(stored: Stored) -> Self {
        SharedGrant {
            refresh_token: stored.refresh_token.map(Secret::new),
            access_token: stored.access_token.map(Secret::new),
            obtained_at_ms: stored.obtained_at_ms,
            expires_at_ms: stored.expires_at_ms,
            rotated_at: stored.rotated_at,
        }
    }
}

fn share(error: StoreError) -> ShareError {
    ShareError(error.to_string())
}

/// A random token naming one holder of one lock.
fn holder_token() -> String {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 16];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .expect("the system random generator works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl FleetGrants {
    fn name(&self, key: &GrantKey) -> String {
        self.0.name(&["grant", &key.digest])
    }

    async fn take(&self, key: &GrantKey, wait: Duration) -> Result<FleetLock, ShareError> {
        let lock = format!("{}:lock", self.name(key));
        let token = holder_token();
        let ttl = self.0.options().lock_ttl;
        let started = Instant::now();
        let mut told = false;
        loop {
            let (name, value) = (lock.clone(), token.clone());
            let taken: Option<String> = self
                .0
                .run(|mut redis| async move {
                    redis::cmd("SET")
                        .arg(&name)
                        .arg(&value)
                        .arg("NX")
                        .arg("PX")
                        .arg(ttl.as_millis() as u64)
                        .query_async(&mut redis)
                        .await
                })
                .await
                .map_err(share)?;
            if taken.is_some() {
                break;
            }
            if started.elapsed() >= wait {
                return Err(ShareError(format!(
                    "another instance has been renewing the `{}` pack's token for over {} ms",
                    key.pack,
                    started.elapsed().as_millis()
                )));
            }
            if !told {
                // Once: an instance stalled behind another's renewal says why.
                tracing::debug!(
                    pack = key.pack,
                    "waiting for the login's refresh lock, held by another instance"
                );
                told = true;
            }
            tokio::time::sleep(POLL).await;
        }
        let keeper = tokio::spawn(keep(self.0.clone(), lock.clone(), token.clone()));
        Ok(FleetLock {
            store: self.0.clone(),
            grant: self.name(key),
            lock,
            token,
            keeper: Some(keeper.abort_handle()),
        })
    }
}

/// Extends the lock every third of its expiry until it is no longer the holder's (released,
/// or lapsed while the store was unreachable).
async fn keep(store: FleetStore, lock: String, token: String) {
    let ttl = store.options().lock_ttl;
    loop {
        tokio::time::sleep(ttl / 3).await;
        let (name, value) = (lock.clone(), token.clone());
        let extended = store
            .run(|mut redis| async move {
                EXTEND
                    .key(&name)
                    .arg(&value)
                    .arg(ttl.as_millis() as u64)
                    .invoke_async::<i64>(&mut redis)
                    .await
            })
            .await;
        if matches!(extended, Ok(0)) {
            return;
        }
    }
}

impl GrantStore for FleetGrants {
    fn load<'a>(
        &'a self,
        key: &'a GrantKey,
    ) -> BoxFuture<'a, Result<Option<SharedGrant>, ShareError>> {
        Box::pin(async move {
            let name = self.name(key);
            let get = name.clone();
            let raw: Option<Vec<u8>> = self
                .0
                .run(|mut redis| async move { redis.get(&get).await })
                .await
                .map_err(share)?;
            let Some(raw) = raw else { return Ok(None) };
            let sealed = || share(self.0.sealed_error());
            let plain = self.0.seal_key().open(&name, &raw).ok_or_else(sealed)?;
            let stored: Stored = serde_json::from_slice(&plain).map_err(|_| sealed())?;
            Ok(Some(stored.into()))
        })
    }

    fn lock<'a>(
        &'a self,
        key: &'a GrantKey,
        wait: Duration,
    ) -> BoxFuture<'a, Result<Box<dyn GrantLock>, ShareError>> {
        Box::pin(async move {
            let lock = self.take(key, wait).await?;
            Ok(Box::new(lock) as Box<dyn GrantLock>)
        })
    }
}

/// A held refresh lock in the store.
struct FleetLock {
    store: FleetStore,
    grant: String,
    lock: String,
    token: String,
    keeper: Option<tokio::task::AbortHandle>,
}

impl FleetLock {
    fn release_now(&mut self) -> impl std::future::Future<Output = ()> + Send + 'static {
        if let Some(keeper) = self.keeper.take() {
            keeper.abort();
        }
        let (store, lock, token) = (self.store.clone(), self.lock.clone(), self.token.clone());
        async move {
            let _ = store
                .run(|mut redis| async move {
                    RELEASE
                        .key(&lock)
                        .arg(&token)
                        .invoke_async::<i64>(&mut redis)
                        .await
                })
                .await;
        }
    }
}

impl GrantLock for FleetLock {
    fn save<'a>(&'a mut self, grant: &'a SharedGrant) -> BoxFuture<'a, Result<(), ShareError>> {
        Box::pin(async move {
            let plain = serde_json::to_vec(&Stored::from(grant)).expect("a grant serialises");
            let sealed = self.store.seal_key().seal(&self.grant, &plain);
            let (lock, name, token) = (self.lock.clone(), self.grant.clone(), self.token.clone());
            let written: i64 = self
                .store
                .run(|mut redis| async move {
                    SAVE.key(&lock)
                        .key(&name)
                        .arg(&token)
                        .arg(sealed)
                        .invoke_async(&mut redis)
                        .await
                })
                .await
                .map_err(share)?;
            if written == 1 {
                Ok(())
            } else {
                Err(ShareError(format!(
                    "the refresh lock lapsed before the renewed token could be written (this \
                     instance could not extend it within {} ms)",
                    self.store.options().lock_ttl.as_millis()
                )))
            }
        })
    }

    fn release(mut self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(self.release_now())
    }
}

impl Drop for FleetLock {
    fn drop(&mut self) {
        if self.keeper.is_some() {
            FleetStore::spawn(self.release_now());
        }
    }
}
