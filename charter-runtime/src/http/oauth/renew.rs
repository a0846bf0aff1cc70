//! One renewal of an access token, made when the process's cache has none fresh: from the
//! token endpoint alone (nothing shared), or through a [`GrantStore`] so that processes sharing
//! a grant renew it one at a time and use what the others obtained (see `shared`).

use std::time::Duration;

// The runtime's clock, not the system's: a test pauses and advances it past a token's
// lifetime instead of sleeping through it.
use tokio::time::Instant;

use crate::error::CharterError;
use crate::table::{Grant, HttpPack, OAuth2};

use super::cache::Obtained;
use super::shared::{GrantKey, GrantLock, GrantStore, ShareError, SharedGrant, now_ms};
use super::store::TokenStore;
use super::token::{self, Client, Fresh};
use super::{Parts, not_configured, renewal_error};
use crate::http::credentials::Secret;

/// Everything one renewal needs; built per call, run only when the cache misses.
pub(super) struct Renewal<'a> {
    pub(super) http: &'a reqwest::Client,
    pub(super) timeout: Duration,
    pub(super) pack: &'static HttpPack,
    pub(super) oauth: &'static OAuth2,
    pub(super) user: &'a Option<String>,
    pub(super) parts: &'a Parts,
    pub(super) token_url: &'a str,
    /// The token the API just refused, if any.
    pub(super) stale: Option<&'a Secret>,
    /// The stored logins, when the refresh token is the stored login's.
    pub(super) logins: Option<&'a TokenStore>,
    /// The fleet's store, if the executor has one.
    pub(super) shared: Option<&'a dyn GrantStore>,
}

impl Renewal<'_> {
    /// Renews: `kept` is the rotated refresh token the process's cache holds, if any (newer than
    /// what is configured, and than a store it could not be written to).
    pub(super) async fn run(self, kept: Option<Secret>) -> Result<Obtained, CharterError> {
        if let Some(logins) = self.logins {
            let login = logins
                .load(self.pack.label)
                .map_err(|e| CharterError::Credential(format!("stored login: {e}")))?
                .ok_or_else(|| not_configured(self.pack, self.oauth, self.user))?;
            return match self.shared {
                // A fleet shares the login's lineage: the file is where it started.
                Some(fleet) => {
                    let key = self.key(Some(&login.refresh_token));
                    self.through(fleet, &key, Some(login.refresh_token), kept)
                        .await
                }
                // The file is the shared grant: every process on this machine renews through it.
                None => {
                    let key = GrantKey {
                        pack: self.pack.label,
                        user: None,
                        digest: String::new(),
                    };
                    self.through(logins, &key, None, kept).await
                }
            };
        }
        let configured = self.parts.refresh_token.clone();
        if let Some(fleet) = self.shared {
            let credential = configured.as_ref().or(self.parts.client_secret.as_ref());
            let key = self.key(credential);
            return self.through(fleet, &key, configured, kept).await;
        }
        let started = Instant::now();
        let fresh = self.request(kept.clone().or(configured)).await?;
        // A rotated refresh token lives in this process's memory only.
        let keep = fresh.refresh_token.clone().or(kept);
        Ok(Obtained::fresh(&fresh, started, keep))
    }

    /// A renewal through a shared store: its fresh token if it has one, else under its lock.
    async fn through(
        &self,
        store: &dyn GrantStore,
        key: &GrantKey,
        configured: Option<Secret>,
        kept: Option<Secret>,
    ) -> Result<Obtained, CharterError> {
        if let Some(grant) = store.load(key).await.map_err(|e| self.share_error(e))?
            && let Some(obtained) = self.reuse(&grant, &kept)
        {
            return Ok(obtained);
        }
        // The holder's token request has its timeout; past twice that, something is wrong.
        let wait = self.timeout * 2 + Duration::from_secs(5);
        let mut lock = store
            .lock(key, wait)
            .await
            .map_err(|e| self.share_error(e))?;
        let result = self.locked(store, key, &mut *lock, configured, kept).await;
        lock.release().await;
        result
    }

    /// Under the lock: what a process that renewed meanwhile obtained, else a token request
    /// whose answer is written back before the lock is released.
    async fn locked(
        &self,
        store: &dyn GrantStore,
        key: &GrantKey,
        lock: &mut dyn GrantLock,
        configured: Option<Secret>,
        kept: Option<Secret>,
    ) -> Result<Obtained, CharterError> {
        let current = store.load(key).await.map_err(|e| self.share_error(e))?;
        if let Some(grant) = &current
            && let Some(obtained) = self.reuse(grant, &kept)
        {
            tracing::debug!(
                pack = self.pack.label,
                "oauth token renewed by another process"
            );
            return Ok(obtained);
        }
        let current = current.unwrap_or_default();
        let refresh = kept
            .clone()
            .or_else(|| current.refresh_token.clone())
            .or(configured);
        let started = Instant::now();
        let obtained_at_ms = now_ms();
        let fresh = self.request(refresh.clone()).await?;
        let rotated = fresh.refresh_token.is_some() && fresh.refresh_token != refresh;
        let grant = SharedGrant {
            refresh_token: fresh
                .refresh_token
                .clone()
                .or(kept)
                .or(current.refresh_token),
            access_token: Some(fresh.access_token.clone()),
            obtained_at_ms,
            expires_at_ms: fresh
                .expires_in
                .map(|life| obtained_at_ms + life.as_millis() as u64),
            rotated_at: if rotated {
                Some(obtained_at_ms / 1000)
            } else {
                current.rotated_at
            },
        };
        let keep = match lock.save(&grant).await {
            Ok(()) => None,
            Err(error) => {
                // The token is good: this process keeps using it, and its refresh token, from
                // memory. The others will find the old one.
                tracing::error!(pack = self.pack.label, %error, "could not write the renewed OAuth 2 token back; this process keeps it in memory");
                grant.refresh_token.clone().filter(|_| rotated)
            }
        };
        Ok(Obtained::fresh(&fresh, started, keep))
    }

    /// The shared grant's access token as this process's, if it may be used now.
    fn reuse(&self, grant: &SharedGrant, kept: &Option<Secret>) -> Option<Obtained> {
        let now = now_ms();
        let access = grant.usable(now, self.stale)?.clone();
        let renew_at = grant
            .renew_at_ms()
            .map(|at| Instant::now() + Duration::from_millis(at.saturating_sub(now)));
        Some(Obtained {
            access,
            renew_at,
            keep_refresh: kept.clone(),
        })
    }

    /// One token request with `refresh` (the refresh-token grant) or the client's credentials.
    async fn request(&self, refresh: Option<Secret>) -> Result<Fresh, CharterError> {
        let form = match self.oauth.grant {
            Grant::RefreshToken => {
                let refresh = refresh.map(|r| r.expose().to_owned()).unwrap_or_default();
                vec![
                    ("grant_type", "refresh_token".to_owned()),
                    ("refresh_token", refresh),
                ]
            }
            Grant::ClientCredentials => {
                let mut form = vec![("grant_type", "client_credentials".to_owned())];
                if !self.oauth.scopes.is_empty() {
                    form.push(("scope", self.oauth.scopes.join(" ")));
                }
                form
            }
        };
        let client = Client {
            id: &self.parts.client_id,
            secret: self.parts.client_secret.as_ref(),
            auth: self.oauth.client_auth,
        };
        token::request(self.http, self.token_url, &client, form, self.timeout)
            .await
            .map_err(|failure| {
                tracing::warn!(pack = self.pack.label, grant = self.oauth.grant.as_str(), failure = %failure, "oauth token request failed");
                renewal_error(self.pack, self.oauth, &failure)
            })
    }

    /// Names the grant in a shared store: its pack and user, and a digest of everything that
    /// obtained it (never the secrets themselves).
    fn key(&self, credential: Option<&Secret>) -> GrantKey {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        let scopes = self.oauth.scopes.join(" ");
        let fields = [
            self.pack.label,
            self.user.as_deref().unwrap_or(""),
            self.token_url,
            self.parts.client_id.expose(),
            self.oauth.grant.as_str(),
            &scopes,
            credential.map_or("", Secret::expose),
        ];
        for field in fields {
            context.update(&(field.len() as u64).to_be_bytes());
            context.update(field.as_bytes());
        }
        let digest = context.finish();
        GrantKey {
            pack: self.pack.label,
            user: self.user.clone(),
            digest: digest.as_ref().iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    fn share_error(&self, error: ShareError) -> CharterError {
        tracing::warn!(pack = self.pack.label, %error, "shared OAuth 2 tokens unavailable");
        CharterError::Credential(format!(
            "the `{}` pack could not get an OAuth 2 access token: {error}; try again later",
            self.pack.label
        ))
    }
}
