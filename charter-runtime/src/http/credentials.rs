//! Credentials resolved per call (docs/design.md §6, §8): the model never sees them, and neither does a
//! log line or an error.
//!
//! A [`CredentialProvider`] answers one [`CredentialQuery`] per call, so one process can serve
//! many end users ([`CallContext::user`](crate::CallContext::user)). The default,
//! [`EnvCredentials`], reads the environment variable the pack names; [`StaticCredentials`] holds
//! values given in code; [`from_fn`] and [`from_async_fn`] wrap a closure (a vault, a database
//! of per-user tokens).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::error::CharterError;
use crate::table::BoxFuture;

/// A secret value. `Debug` and `Display` print `***`, so a secret that ends up in a log
/// statement or an error by accident still prints nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Secret(Arc<str>);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(Arc::from(value.into()))
    }

    /// The secret itself: only the request builder should call this.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret::new(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret::new(value)
    }
}

/// What one call needs a credential for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialQuery {
    /// The pack label (`github`).
    pub pack: &'static str,
    /// The environment variable the pack names (`GITHUB_TOKEN`): the key a deployment sets.
    pub env: &'static str,
    /// The end user the call acts for, from `CallContext::user`.
    pub user: Option<String>,
    /// Which part of the pack's credential this is.
    pub kind: CredentialKind,
}

/// The parts of a credential a pack may ask for. A static secret is one [`Token`]; an OAuth 2
/// pack asks for its static access token first, then for what renews one.
///
/// [`Token`]: CredentialKind::Token
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CredentialKind {
    /// The secret sent as is (an API key, a personal or OAuth 2 access token).
    Token,
    /// An OAuth 2 client id.
    ClientId,
    /// An OAuth 2 client secret.
    ClientSecret,
    /// An OAuth 2 refresh token.
    RefreshToken,
    /// A value filling a placeholder of an OAuth 2 URL (a tenant, a shop): not secret.
    UrlVar,
}

impl CredentialQuery {
    /// A query for the secret sent as is, under `env`.
    pub fn token(pack: &'static str, env: &'static str, user: Option<String>) -> Self {
        CredentialQuery {
            pack,
            env,
            user,
            kind: CredentialKind::Token,
        }
    }
}

/// Resolves the secret for one call. `Ok(None)` means "not configured": the executor turns it
/// into a [`CharterError::Credential`] naming what to set, before any request leaves.
pub trait CredentialProvider: Send + Sync {
    /// The secret for this call, if one is configured.
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>>;
}

/// The default provider: the environment variable the pack names, read on every call (so a
/// rotated token is picked up without a restart). Empty counts as unset.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnvCredentials;

impl CredentialProvider for EnvCredentials {
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        let value = std::env::var(query.env)
            .ok()
            .filter(|v| !v.is_empty())
            .map(Secret::from);
        Box::pin(std::future::ready(Ok(value)))
    }
}

/// Secrets given in code, keyed by environment-variable name or pack label, optionally per end
/// user. A per-user entry wins over a shared one; an environment-variable key wins over a pack
/// key.
#[derive(Clone, Default)]
pub struct StaticCredentials {
    shared: HashMap<String, Secret>,
    per_user: HashMap<(String, String), Secret>,
}

impl StaticCredentials {
    /// No secrets yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The secret for every user under `key` (an environment-variable name such as
    /// `GITHUB_TOKEN`, or a pack label such as `github`).
    pub fn with(mut self, key: impl Into<String>, secret: impl Into<Secret>) -> Self {
        self.shared.insert(key.into(), secret.into());
        self
    }

    /// The secret for one end user under `key`.
    pub fn with_user(
        mut self,
        user: impl Into<String>,
        key: impl Into<String>,
        secret: impl Into<Secret>,
    ) -> Self {
        self.per_user
            .insert((user.into(), key.into()), secret.into());
        self
    }

    fn lookup(&self, query: &CredentialQuery) -> Option<Secret> {
        if let Some(user) = &query.user {
            let keys: &[&str] = match query.kind {
                CredentialKind::Token => &[query.env, query.pack],
                _ => &[query.env],
            };
            for &key in keys {
                if let Some(secret) = self.per_user.get(&(user.clone(), key.to_owned())) {
                    return Some(secret.clone());
                }
            }
        }
        let by_pack = || match query.kind {
            // A pack key is the pack's one secret: never an OAuth 2 client id or refresh token.
            CredentialKind::Token => self.shared.get(query.pack),
            _ => None,
        };
        self.shared.get(query.env).or_else(by_pack).cloned()
    }
}

impl fmt::Debug for StaticCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut keys: Vec<&str> = self.shared.keys().map(String::as_str).collect();
        keys.sort_unstable();
        f.debug_struct("StaticCredentials")
            .field("keys", &keys)
            .field("per_user_entries", &self.per_user.len())
            .finish()
    }
}

impl CredentialProvider for StaticCredentials {
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        Box::pin(std::future::ready(Ok(self.lookup(query))))
    }
}

/// A provider made from a synchronous closure; see [`from_fn`].
pub struct FnCredentials<F>(F);

/// A provider from a closure answering each query, e.g. a lookup of the end user's token.
pub fn from_fn<F>(f: F) -> FnCredentials<F>
where
    F: Fn(&CredentialQuery) -> Option<Secret> + Send + Sync,
{
    FnCredentials(f)
}

impl<F> fmt::Debug for FnCredentials<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnCredentials(..)")
    }
}

impl<F> CredentialProvider for FnCredentials<F>
where
    F: Fn(&CredentialQuery) -> Option<Secret> + Send + Sync,
{
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        Box::pin(std::future::ready(Ok((self.0)(query))))
    }
}

/// A provider made from an async closure; see [`from_async_fn`].
pub struct AsyncFnCredentials<F>(F);

/// A provider from an async closure (a vault or database round trip per call). The closure gets
/// an owned query so its future may outlive the borrow; an `Err` is passed through unchanged and
/// must not carry the secret.
pub fn from_async_fn<F, Fut>(f: F) -> AsyncFnCredentials<F>
where
    F: Fn(CredentialQuery) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Option<Secret>, CharterError>> + Send + 'static,
{
    AsyncFnCredentials(f)
}

impl<F> fmt::Debug for AsyncFnCredentials<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AsyncFnCredentials(..)")
    }
}

impl<F, Fut> CredentialProvider for AsyncFnCredentials<F>
where
    F: Fn(CredentialQuery) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Option<Secret>, CharterError>> + Send + 'static,
{
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        Box::pin((self.0)(query.clone()))
    }
}

impl<P: CredentialProvider + ?Sized> CredentialProvider for Arc<P> {
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        (**self).resolve(query)
    }
}

/// The first answer of several providers, in order: the CLI asks the environment, then the
/// refresh tokens `charter auth login` stored.
pub struct FirstOf(Vec<Arc<dyn CredentialProvider>>);

/// A provider asking `providers` in order; the first `Some` wins and an error stops the search.
pub fn first_of(providers: Vec<Arc<dyn CredentialProvider>>) -> FirstOf {
    FirstOf(providers)
}

impl fmt::Debug for FirstOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FirstOf({} providers)", self.0.len())
    }
}

impl CredentialProvider for FirstOf {
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        Box::pin(async move {
            for provider in &self.0 {
                if let Some(secret) = provider.resolve(query).await? {
                    return Ok(Some(secret));
                }
            }
            Ok(None)
        })
    }
}

/// The error for a credential that is not configured: names what to set, never a value.
pub(crate) fn missing(query: &CredentialQuery) -> CharterError {
    let who = match &query.user {
        Some(_) => " for this end user",
        None => "",
    };
    CharterError::Credential(format!(
        "the `{}` pack needs a credential{who}: set the environment variable {} (or configure the \
         executor's credential provider)",
        query.pack, query.env
    ))
}

/// Replaces every occurrence of the secret (and of the encoded forms it travels in) with `***`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Masker {
    needles: Vec<Secret>,
}

impl Masker {
    /// Masks `secret`, plus the base64 of the basic-auth pair when it is one.
    pub(crate) fn for_secret(secret: &Secret, basic_pair: Option<&str>) -> Self {
        use base64::Engine as _;
        let mut needles = Vec::with_capacity(3);
        // A very short secret would mask unrelated text; real credentials are never this short.
        if secret.expose().len() >= 4 {
            needles.push(secret.clone());
        }
        if let Some(pair) = basic_pair {
            needles.push(Secret::new(
                base64::engine::general_purpose::STANDARD.encode(pair),
            ));
            if let Some((_, password)) = pair.split_once(':')
                && password.len() >= 4
            {
                needles.push(Secret::new(password));
            }
        }
        Masker { needles }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// Whether `text` holds a secret.
    pub(crate) fn hits(&self, text: &str) -> bool {
        self.needles.iter().any(|n| text.contains(n.expose()))
    }

    /// `text` with every secret replaced by `***`.
    pub(crate) fn mask(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for needle in &self.needles {
            if out.contains(needle.expose()) {
                out = out.replace(needle.expose(), "***");
            }
        }
        out
    }
}
