//! The stored login as a [`GrantStore`]: its refresh lock is an OS file lock (`flock` on Unix,
//! `LockFileEx` on Windows, through std's `File::lock`) on `<pack>.json.lock` beside the login.
//!
//! The operating system releases the lock when the holder's file is closed, so a process that
//! dies while renewing never blocks the others. The lock file itself stays (removing it while
//! another process waits on it would let two processes lock two different files).

use std::fs::TryLockError;
use std::time::{Duration, Instant};

use crate::table::BoxFuture;

use super::super::shared::{GrantKey, GrantLock, GrantStore, ShareError, SharedGrant};
use super::{StoreError, StoredAccess, StoredLogin, TokenStore, create_private_dir, io};

/// How often a process waiting for the lock tries again.
const POLL: Duration = Duration::from_millis(10);

/// A held refresh lock of one stored login; released when dropped.
#[derive(Debug)]
pub struct LoginLock {
    store: TokenStore,
    pack: String,
    file: std::fs::File,
}

impl TokenStore {
    fn open_lock(&self, pack: &str) -> Result<std::fs::File, StoreError> {
        create_private_dir(&self.dir).map_err(io(&self.dir))?;
        let path = self.lock_path(pack);
        super::private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))
    }

    /// Takes `pack`'s refresh lock, blocking the thread until it is free (a login being
    /// saved; renewals wait without blocking, through [`GrantStore::lock`]).
    pub fn lock_blocking(&self, pack: &str) -> Result<LoginLock, StoreError> {
        let file = self.open_lock(pack)?;
        file.lock().map_err(io(&self.lock_path(pack)))?;
        Ok(LoginLock {
            store: self.clone(),
            pack: pack.to_owned(),
            file,
        })
    }

    /// Takes `pack`'s refresh lock, trying every few milliseconds for at most `wait`.
    pub async fn lock_waiting(&self, pack: &str, wait: Duration) -> Result<LoginLock, StoreError> {
        let file = self.open_lock(pack)?;
        let started = Instant::now();
        let mut told = false;
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(LoginLock {
                        store: self.clone(),
                        pack: pack.to_owned(),
                        file,
                    });
                }
                Err(TryLockError::WouldBlock) if started.elapsed() < wait => {
                    if !told {
                        // Once: a process stalled behind another's renewal says why.
                        tracing::debug!(
                            pack,
                            "waiting for the login's refresh lock, held by another process"
                        );
                        told = true;
                    }
                    tokio::time::sleep(POLL).await;
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(StoreError::Busy {
                        path: self.lock_path(pack),
                        waited_ms: started.elapsed().as_millis(),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io(&self.lock_path(pack))(e)),
            }
        }
    }
}

impl Drop for LoginLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first says so explicitly.
        let _ = self.file.unlock();
    }
}

fn share(e: StoreError) -> ShareError {
    ShareError(format!("stored login: {e}"))
}

/// What a stored login shares: its refresh token, access token and when it last rotated.
fn grant_of(login: &StoredLogin) -> SharedGrant {
    let access = login.access.as_ref();
    SharedGrant {
        refresh_token: Some(login.refresh_token.clone()),
        access_token: access.map(|a| a.token.clone()),
        obtained_at_ms: access.map_or(0, |a| a.obtained_at_ms),
        expires_at_ms: access.and_then(|a| a.expires_at_ms),
        rotated_at: login.rotated_at,
    }
}

impl GrantStore for TokenStore {
    /// The login of `key.pack` (a stored login is the process's own user's: the caller never
    /// asks for an end user's).
    fn load<'a>(
        &'a self,
        key: &'a GrantKey,
    ) -> BoxFuture<'a, Result<Option<SharedGrant>, ShareError>> {
        let loaded = TokenStore::load(self, key.pack).map(|login| login.as_ref().map(grant_of));
        Box::pin(std::future::ready(loaded.map_err(share)))
    }

    fn lock<'a>(
        &'a self,
        key: &'a GrantKey,
        wait: Duration,
    ) -> BoxFuture<'a, Result<Box<dyn GrantLock>, ShareError>> {
        Box::pin(async move {
            let lock = self.lock_waiting(key.pack, wait).await.map_err(share)?;
            Ok(Box::new(lock) as Box<dyn GrantLock>)
        })
    }
}

impl GrantLock for LoginLock {
    /// Rewrites the login with the grant's tokens; its client, scopes and creation time stay.
    fn save<'a>(&'a mut self, grant: &'a SharedGrant) -> BoxFuture<'a, Result<(), ShareError>> {
        let saved = (|| {
            let Some(mut login) = self.store.load(&self.pack)? else {
                // Logged out while renewing: the renewal is not written back.
                return Err(StoreError::Io {
                    path: self.store.path(&self.pack),
                    source: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the login was removed while it was being renewed",
                    ),
                });
            };
            if let Some(refresh) = &grant.refresh_token {
                login.refresh_token = refresh.clone();
            }
            login.rotated_at = grant.rotated_at;
            login.access = grant.access_token.as_ref().map(|token| StoredAccess {
                token: token.clone(),
                obtained_at_ms: grant.obtained_at_ms,
                expires_at_ms: grant.expires_at_ms,
            });
            self.store.write(&self.pack, &login).map(|_| ())
        })();
        Box::pin(std::future::ready(saved.map_err(share)))
    }

    fn release(self: Box<Self>) -> BoxFuture<'static, ()> {
        drop(self);
        Box::pin(std::future::ready(()))
    }
}
