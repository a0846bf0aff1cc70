//! OAuth 2 access tokens for packs whose `auth` declares `oauth2` (docs/design.md §8).
//!
//! - [`token`]: one token-endpoint request and its summarised failures.
//! - `cache`: tokens cached until shortly before expiry, renewed single-flight, keyed by end
//!   user and credential.
//! - [`store`]: refresh tokens `charter auth login` keeps in the user's config directory.
//! - [`login`]: the authorization-code flow with PKCE that obtains one.
//!
//! Every part of a credential (client id and secret, refresh token, URL placeholders) is asked
//! of the executor's [`CredentialProvider`], so a per-user provider serves OAuth 2 packs as it
//! serves static ones.

pub(crate) mod cache;
pub mod login;
mod renew;
pub mod shared;
pub mod store;
pub mod token;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::error::CharterError;
use crate::table::{Grant, HttpPack, OAuth2};

use super::credentials::{CredentialKind, CredentialProvider, CredentialQuery, Secret};
use cache::{CacheKey, TokenCache};
use renew::Renewal;
use shared::GrantStore;
use store::TokenStore;
use token::TokenFailure;

/// How long a token endpoint may take by default.
pub const DEFAULT_TOKEN_TIMEOUT: Duration = Duration::from_secs(15);

/// The executor's OAuth 2 side: the cache, endpoint overrides, the token timeout, and where
/// tokens are shared beyond this process.
#[derive(Debug)]
pub(crate) struct TokenSource {
    cache: TokenCache,
    pub(crate) token_urls: HashMap<String, String>,
    pub(crate) timeout: Duration,
    /// The logins `charter auth login` stored on this machine, renewed rotation-safe (the
    /// refresh token of the process's own user when the provider has none).
    logins: Option<TokenStore>,
    /// A store several instances share (`charter mcp --store`): every grant's tokens, and its
    /// renewal one at a time across the fleet.
    shared: Option<Arc<dyn GrantStore>>,
}

impl TokenSource {
    pub(crate) fn new(
        token_urls: HashMap<String, String>,
        timeout: Duration,
        logins: Option<TokenStore>,
        shared: Option<Arc<dyn GrantStore>>,
    ) -> Self {
        TokenSource {
            cache: TokenCache::default(),
            token_urls,
            timeout,
            logins,
            shared,
        }
    }

    /// An access token for one call of `pack` on behalf of `user`: the cached one, or a new one
    /// (from the shared store or the token endpoint). `stale` is a token the API just refused
    /// (401): it is renewed, once, however many calls refused it at the same time.
    pub(crate) async fn access_token(
        &self,
        http: &reqwest::Client,
        provider: &dyn CredentialProvider,
        pack: &'static HttpPack,
        oauth: &'static OAuth2,
        user: Option<String>,
        stale: Option<&Secret>,
    ) -> Result<Secret, CharterError> {
        // A stored login serves the process's own user only, never an end user of a host.
        let login_allowed = self.logins.is_some() && user.is_none();
        let parts = Parts::resolve(provider, pack, oauth, &user, login_allowed).await?;
        let token_url = endpoint(
            provider,
            pack,
            oauth,
            Endpoint::Token,
            &user,
            self.token_urls.get(pack.label),
        )
        .await?;
        let stored_login = oauth.grant == Grant::RefreshToken && parts.refresh_token.is_none();
        let key = CacheKey {
            user: user.clone(),
            token_url: token_url.clone(),
            client_id: parts.client_id.expose().to_owned(),
            grant: oauth.grant,
            scopes: oauth.scopes,
            credential: parts
                .refresh_token
                .clone()
                .or_else(|| parts.client_secret.clone()),
            stored_login,
        };
        let slot = self.cache.slot(key);
        let renewal = Renewal {
            http,
            timeout: self.timeout,
            pack,
            oauth,
            user: &user,
            parts: &parts,
            token_url: &token_url,
            stale,
            logins: self.logins.as_ref().filter(|_| stored_login),
            shared: self.shared.as_deref(),
        };
        slot.get(stale, |kept| renewal.run(kept)).await
    }
}

/// The client id, client secret and refresh token of one call.
pub(crate) struct Parts {
    pub(crate) client_id: Secret,
    pub(crate) client_secret: Option<Secret>,
    pub(crate) refresh_token: Option<Secret>,
}

impl Parts {
    /// Asks the provider for each part the grant needs; a missing one is a credential error
    /// naming every way to provide it (a missing refresh token is not, when the stored login
    /// may supply it).
    pub(crate) async fn resolve(
        provider: &dyn CredentialProvider,
        pack: &'static HttpPack,
        oauth: &'static OAuth2,
        user: &Option<String>,
        stored_login_allowed: bool,
    ) -> Result<Parts, CharterError> {
        let refresh_token = match oauth.grant {
            Grant::RefreshToken => {
                let token = ask(
                    provider,
                    pack,
                    oauth.refresh_token_env,
                    user,
                    CredentialKind::RefreshToken,
                )
                .await?;
                // Without one, the stored login is read when a renewal is due.
                if token.is_none() && !stored_login_allowed {
                    return Err(not_configured(pack, oauth, user));
                }
                token
            }
            Grant::ClientCredentials => None,
        };
        let (client_id, client_secret) = client_parts(provider, pack, oauth, user).await?;
        Ok(Parts {
            client_id,
            client_secret,
            refresh_token,
        })
    }
}

/// The client id and (for a confidential client) secret of one call.
pub(crate) async fn client_parts(
    provider: &dyn CredentialProvider,
    pack: &'static HttpPack,
    oauth: &'static OAuth2,
    user: &Option<String>,
) -> Result<(Secret, Option<Secret>), CharterError> {
    let client_id = ask(
        provider,
        pack,
        oauth.client_id_env,
        user,
        CredentialKind::ClientId,
    )
    .await?
    .ok_or_else(|| not_configured(pack, oauth, user))?;
    let client_secret = ask(
        provider,
        pack,
        oauth.client_secret_env,
        user,
        CredentialKind::ClientSecret,
    )
    .await?;
    // A pack that names a client secret variable has a confidential client: it is required.
    if client_secret.is_none() && !oauth.client_secret_env.is_empty() {
        return Err(not_configured(pack, oauth, user));
    }
    Ok((client_id, client_secret))
}

/// One part of a credential from the provider (`None` for an undeclared variable).
async fn ask(
    provider: &dyn CredentialProvider,
    pack: &'static HttpPack,
    env: &'static str,
    user: &Option<String>,
    kind: CredentialKind,
) -> Result<Option<Secret>, CharterError> {
    if env.is_empty() {
        return Ok(None);
    }
    let query = CredentialQuery {
        pack: pack.label,
        env,
        user: user.clone(),
        kind,
    };
    provider.resolve(&query).await
}

/// Which endpoint of a pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// Where tokens are requested.
    Token,
    /// Where a user consents.
    Authorization,
}

/// The URL of one endpoint: the API override, else the `CHARTER_<PACK>_TOKEN_URL` /
/// `_AUTHORIZATION_URL` variable, else the declared one; `{name}` placeholders filled from their
/// variables (a value outside `[A-Za-z0-9.-]` is refused: it would change the URL's meaning).
pub async fn endpoint(
    provider: &dyn CredentialProvider,
    pack: &'static HttpPack,
    oauth: &'static OAuth2,
    which: Endpoint,
    user: &Option<String>,
    api_override: Option<&String>,
) -> Result<String, CharterError> {
    let (declared, env) = match which {
        Endpoint::Token => (oauth.token_url, oauth.token_url_env),
        Endpoint::Authorization => (oauth.authorization_url, oauth.authorization_url_env),
    };
    let from_env = (!env.is_empty())
        .then(|| std::env::var(env).ok())
        .flatten()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty());
    let mut url = match (api_override, from_env) {
        (Some(url), _) => url.clone(),
        (None, Some(url)) => url,
        (None, None) => declared.to_owned(),
    };
    if url.is_empty() {
        return Err(CharterError::Credential(format!(
            "the `{}` pack declares no OAuth 2 authorization endpoint, so it cannot log in; \
             set {} or give a refresh token",
            pack.label, oauth.refresh_token_env
        )));
    }
    for var in oauth.url_vars {
        let placeholder = format!("{{{}}}", var.name);
        if !url.contains(&placeholder) {
            continue;
        }
        let query = CredentialQuery {
            pack: pack.label,
            env: var.env,
            user: user.clone(),
            kind: CredentialKind::UrlVar,
        };
        let value = provider.resolve(&query).await?;
        let value = value
            .map(|v| v.expose().to_owned())
            .or_else(|| (!var.default.is_empty()).then(|| var.default.to_owned()))
            .ok_or_else(|| {
                CharterError::Credential(format!(
                    "the `{}` pack's token endpoint needs {}: set it (the `{}` of {declared})",
                    pack.label, var.env, var.name
                ))
            })?;
        let safe = !value.is_empty()
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
        if !safe {
            return Err(CharterError::Credential(format!(
                "{} must hold only letters, digits, `.` and `-` (it goes into the `{}` pack's \
                 OAuth 2 URL)",
                var.env, pack.label
            )));
        }
        url = url.replace(&placeholder, &value);
    }
    Ok(url)
}

/// The error for an OAuth 2 pack with nothing to get a token from: every way out, by name.
pub(crate) fn not_configured(
    pack: &HttpPack,
    oauth: &OAuth2,
    user: &Option<String>,
) -> CharterError {
    let who = if user.is_some() {
        " for this end user"
    } else {
        ""
    };
    let client = client_vars(oauth);
    let how = match oauth.grant {
        Grant::RefreshToken => {
            let login = if oauth.authorization_url.is_empty() {
                String::new()
            } else {
                format!(
                    "run `charter auth login {}` (with {client} set), or ",
                    pack.label
                )
            };
            format!("{login}set {} and {client}", oauth.refresh_token_env)
        }
        Grant::ClientCredentials => format!("set {client}"),
    };
    let token = if oauth.access_token_env.is_empty() {
        String::new()
    } else {
        format!(", or set {} to an access token", oauth.access_token_env)
    };
    CharterError::Credential(format!(
        "the `{}` pack needs an OAuth 2 credential{who}: {how}{token}",
        pack.label
    ))
}

fn client_vars(oauth: &OAuth2) -> String {
    if oauth.client_secret_env.is_empty() {
        oauth.client_id_env.to_owned()
    } else {
        format!("{} and {}", oauth.client_id_env, oauth.client_secret_env)
    }
}

/// A failed renewal, for the model and the developer: what failed and what to set or renew.
pub(crate) fn renewal_error(
    pack: &HttpPack,
    oauth: &OAuth2,
    failure: &TokenFailure,
) -> CharterError {
    let fix = if failure.is_invalid_grant() && oauth.grant == Grant::RefreshToken {
        let login = if oauth.authorization_url.is_empty() {
            String::new()
        } else {
            format!("run `charter auth login {}`, or ", pack.label)
        };
        format!(
            "the refresh token was revoked, expired or issued to another client: {login}set {} \
             to a fresh one",
            oauth.refresh_token_env
        )
    } else if failure.is_client_refused() || failure.is_invalid_grant() {
        format!("the client was refused: check {}", client_vars(oauth))
    } else {
        "try again later".to_owned()
    };
    CharterError::Credential(format!(
        "the `{}` pack could not get an OAuth 2 access token: {failure}; {fix}",
        pack.label
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::StaticCredentials;
    use crate::table::{Auth, ClientAuth, UrlVar};

    static TENANT: OAuth2 = OAuth2 {
        header: "Authorization",
        prefix: "Bearer ",
        access_token_env: "",
        grant: Grant::ClientCredentials,
        token_url: "https://login.example.com/{tenant}/oauth2/v2.0/token",
        token_url_env: "",
        authorization_url: "",
        authorization_url_env: "",
        url_vars: &[UrlVar {
            name: "tenant",
            env: "TEST_TENANT_ID",
            default: "common",
        }],
        client_id_env: "TEST_CLIENT_ID",
        client_secret_env: "TEST_CLIENT_SECRET",
        refresh_token_env: "",
        scopes: &[],
        client_auth: ClientAuth::Basic,
        authorization_params: &[],
    };
    static PACK: HttpPack = HttpPack {
        label: "tenant",
        base_url: "https://api.example.com",
        base_url_env: "",
        auth: Auth::OAuth2(&TENANT),
        headers: &[],
        query: &[],
        body: &[],
        envelope: None,
    };

    #[tokio::test]
    async fn a_tenant_placeholder_is_filled_from_its_variable_or_its_default_and_checked() {
        let url = |provider: StaticCredentials| async move {
            endpoint(&provider, &PACK, &TENANT, Endpoint::Token, &None, None).await
        };
        assert_eq!(
            url(StaticCredentials::new()).await.unwrap(),
            "https://login.example.com/common/oauth2/v2.0/token"
        );
        let tenant = StaticCredentials::new().with("TEST_TENANT_ID", "contoso.onmicrosoft.com");
        assert_eq!(
            url(tenant).await.unwrap(),
            "https://login.example.com/contoso.onmicrosoft.com/oauth2/v2.0/token"
        );
        let hostile = StaticCredentials::new().with("TEST_TENANT_ID", "evil.com/x?");
        let err = url(hostile).await.unwrap_err().to_string();
        assert!(
            err.contains("TEST_TENANT_ID must hold only letters"),
            "{err}"
        );
    }
}
