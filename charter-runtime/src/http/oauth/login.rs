//! The authorization-code flow with PKCE (RFC 6749 §4.1, RFC 7636 S256) that `charter auth
//! login` runs: build the URL the user opens, then exchange the code the redirect brings for a
//! refresh token. The loopback listener that receives the redirect belongs to the caller; the
//! HTTP client, credential provider and endpoint overrides are an executor's
//! (`HttpExecutor::login`).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Url;

use crate::error::CharterError;
use crate::http::credentials::{CredentialProvider, Secret};
use crate::table::{Auth, HttpPack, OAuth2};

use super::shared::now_ms;
use super::store::{StoredAccess, StoredLogin};
use super::token::{self, Client};
use super::{Endpoint, TokenSource, client_parts, endpoint, renewal_error};

/// One authorization request in progress: the URL to open and what checks its answer.
pub struct Authorization {
    /// The URL the user opens in a browser.
    pub url: String,
    /// The `state` the redirect must bring back unchanged.
    pub state: String,
    /// Where the provider sends the browser back.
    pub redirect_uri: String,
    verifier: Secret,
    token_url: String,
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization")
            .field("redirect_uri", &self.redirect_uri)
            .field("token_url", &self.token_url)
            .finish_non_exhaustive()
    }
}

/// `n` random bytes from the operating system, base64url without padding.
fn random(n: usize) -> Result<String, CharterError> {
    use ring::rand::SecureRandom as _;
    let mut bytes = vec![0u8; n];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| CharterError::Transport("the system random generator failed".to_owned()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The pack's OAuth 2 declaration, or a declaration error saying it has none.
pub fn oauth_of(pack: &'static HttpPack) -> Result<&'static OAuth2, CharterError> {
    match pack.auth {
        Auth::OAuth2(oauth) => Ok(oauth),
        _ => Err(CharterError::Declaration(
            crate::error::DeclarationError::new(format!(
                "the `{}` pack declares no OAuth 2 credential (its `auth` has no `oauth2`)",
                pack.label
            )),
        )),
    }
}

/// A login through one executor's HTTP client, credentials and token-endpoint overrides.
pub struct Login<'a> {
    pub(crate) http: &'a reqwest::Client,
    pub(crate) credentials: &'a dyn CredentialProvider,
    pub(crate) tokens: &'a TokenSource,
}

impl fmt::Debug for Login<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Login").finish_non_exhaustive()
    }
}

impl Login<'_> {
    /// Starts a login to `pack`: a fresh PKCE verifier (S256) and `state`, and the authorization
    /// URL with the pack's scopes and parameters, sending the browser back to `redirect_uri`.
    pub async fn authorization(
        &self,
        pack: &'static HttpPack,
        redirect_uri: &str,
    ) -> Result<Authorization, CharterError> {
        let oauth = oauth_of(pack)?;
        let provider = self.credentials;
        let (client_id, _) = client_parts(provider, pack, oauth, &None).await?;
        let base = endpoint(provider, pack, oauth, Endpoint::Authorization, &None, None).await?;
        let token_url = endpoint(
            provider,
            pack,
            oauth,
            Endpoint::Token,
            &None,
            self.tokens.token_urls.get(pack.label),
        )
        .await?;
        let verifier = Secret::new(random(32)?);
        let challenge = {
            let digest = ring::digest::digest(&ring::digest::SHA256, verifier.expose().as_bytes());
            URL_SAFE_NO_PAD.encode(digest.as_ref())
        };
        let state = random(16)?;
        let mut url = Url::parse(&base).map_err(|e| {
            CharterError::Credential(format!(
                "the `{}` pack's authorization URL `{base}` is invalid: {e}",
                pack.label
            ))
        })?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", client_id.expose())
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge)
                .append_pair("code_challenge_method", "S256");
            if !oauth.scopes.is_empty() {
                query.append_pair("scope", &oauth.scopes.join(" "));
            }
            for (name, value) in oauth.authorization_params {
                query.append_pair(name, value);
            }
        }
        Ok(Authorization {
            url: url.into(),
            state,
            redirect_uri: redirect_uri.to_owned(),
            verifier,
            token_url,
        })
    }

    /// Exchanges the `code` the redirect brought for a refresh token, ready to store.
    pub async fn exchange_code(
        &self,
        pack: &'static HttpPack,
        authorization: &Authorization,
        code: &str,
    ) -> Result<StoredLogin, CharterError> {
        let oauth = oauth_of(pack)?;
        let (client_id, client_secret) = client_parts(self.credentials, pack, oauth, &None).await?;
        let client = Client {
            id: &client_id,
            secret: client_secret.as_ref(),
            auth: oauth.client_auth,
        };
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.to_owned()),
            ("redirect_uri", authorization.redirect_uri.clone()),
            ("code_verifier", authorization.verifier.expose().to_owned()),
        ];
        let obtained_at_ms = now_ms();
        let fresh = token::request(
            self.http,
            &authorization.token_url,
            &client,
            form,
            self.tokens.timeout,
        )
        .await
        .map_err(|failure| renewal_error(pack, oauth, &failure))?;
        let refresh_token = fresh.refresh_token.ok_or_else(|| {
            CharterError::Credential(format!(
                "the `{}` pack's provider issued an access token but no refresh token, so the \
                 login would not outlive the hour (Google issues one only on the first consent \
                 with access_type=offline: remove the app's access in the Google account's \
                 security settings and log in again)",
                pack.label
            ))
        })?;
        let created_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(StoredLogin {
            refresh_token,
            client_id: client_id.expose().to_owned(),
            scopes: oauth.scopes.iter().map(|s| (*s).to_owned()).collect(),
            token_url: authorization.token_url.clone(),
            created_at,
            rotated_at: None,
            // The first calls use it rather than renewing at once.
            access: Some(StoredAccess {
                token: fresh.access_token,
                obtained_at_ms,
                expires_at_ms: fresh
                    .expires_in
                    .map(|life| obtained_at_ms + life.as_millis() as u64),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifiers_and_states_are_fresh_url_safe_and_long_enough() {
        let a = random(32).unwrap();
        let b = random(32).unwrap();
        assert_ne!(a, b);
        // RFC 7636 §4.1: 43 to 128 characters of [A-Za-z0-9-._~].
        assert_eq!(a.len(), 43);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
    }
}
