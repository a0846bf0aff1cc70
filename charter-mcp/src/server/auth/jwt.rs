//! Bearer JWTs checked against their issuer's published keys: signature, `iss`, `aud` (this
//! server's canonical URL), `exp` and `nbf`.
//!
//! Each trusted issuer's key set (JWKS) is fetched on first use, from its configured
//! `jwks_uri` or the one its metadata names, and cached. A token signed with a key id the cache
//! does not hold refetches the set (key rotation), at most once per [`REFETCH_AFTER`] (so tokens
//! naming made-up key ids cannot make the server hammer the issuer); the set
//! is also refetched once it is older than [`MAX_AGE`]. Only asymmetric algorithms of the
//! key's own family are accepted (never `none`, never HMAC with a public key as the secret).

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, errors::ErrorKind};
use serde::Deserialize;
use serde_json::Value;

use super::config::IssuerConfig;

/// The shortest time between two refetches of one issuer's keys caused by unknown key ids.
pub const REFETCH_AFTER: Duration = Duration::from_secs(30);
/// How long a fetched key set is used before it is fetched again.
pub const MAX_AGE: Duration = Duration::from_secs(3600);
/// How long one metadata or key set request may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest metadata or key set document read.
const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// Why a token is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The token is not acceptable (`401 invalid_token`); the text is safe to send back.
    #[error("{0}")]
    Invalid(String),
    /// The issuer's keys could not be had: a server-side problem (`503`), not the caller's.
    #[error("the token issuer's keys are unavailable: {0}")]
    Unavailable(String),
}

/// Who a verified token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenIdentity {
    /// `sub`, else `client_id`, else `azp`.
    pub subject: Option<String>,
    /// `scope` (space-separated) or `scp` (a list or a string).
    pub scopes: Vec<String>,
}

/// Verifies JWTs from a fixed list of issuers for one audience.
pub(crate) struct JwtVerifier {
    issuers: Vec<Issuer>,
    audience: String,
    leeway: u64,
    http: reqwest::Client,
}

struct Issuer {
    config: IssuerConfig,
    keys: tokio::sync::Mutex<KeySet>,
}

#[derive(Default)]
struct KeySet {
    jwks_uri: Option<String>,
    keys: Vec<Jwk>,
    fetched: Option<Instant>,
    /// The last refetch an unknown key id caused (what [`REFETCH_AFTER`] bounds).
    refetched: Option<Instant>,
}

#[derive(Deserialize)]
struct Peek {
    iss: Option<String>,
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    scope: Option<String>,
    scp: Option<Value>,
}

impl JwtVerifier {
    pub(crate) fn new(
        issuers: Vec<IssuerConfig>,
        audience: String,
        leeway: u64,
        http: reqwest::Client,
    ) -> Self {
        let issuers = issuers
            .into_iter()
            .map(|config| Issuer {
                keys: tokio::sync::Mutex::new(KeySet {
                    jwks_uri: config.jwks_uri.clone(),
                    ..KeySet::default()
                }),
                config,
            })
            .collect();
        Self {
            issuers,
            audience,
            leeway,
            http,
        }
    }

    /// Checks a compact JWT and says who it stands for.
    pub(crate) async fn verify(&self, token: &str) -> Result<TokenIdentity, TokenError> {
        let invalid = |s: &str| TokenError::Invalid(s.to_owned());
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the bearer token is neither a known API key nor a JWT"))?;
        let peek: Peek = jsonwebtoken::dangerous::insecure_decode_claims(token)
            .map_err(|_| invalid("the token's claims are not a JSON object"))?;
        let iss = peek.iss.ok_or_else(|| invalid("the token has no `iss`"))?;
        let issuer = self
            .issuers
            .iter()
            .find(|i| i.config.issuer == iss)
            .ok_or_else(|| invalid("the token's issuer is not trusted by this server"))?;
        let key = issuer.key(header.kid.as_deref(), &self.http).await?;
        check_algorithm(header.alg, &key)?;
        let decoding = DecodingKey::from_jwk(&key)
            .map_err(|_| TokenError::Unavailable("a published key does not parse".into()))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&issuer.config.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway;
        let data = jsonwebtoken::decode::<Claims>(token, &decoding, &validation)
            .map_err(|e| TokenError::Invalid(explain(e.kind(), &self.audience)))?;
        let claims = data.claims;
        let mut scopes: Vec<String> = claims
            .scope
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        match claims.scp {
            Some(Value::String(s)) => scopes.extend(s.split_whitespace().map(str::to_owned)),
            Some(Value::Array(list)) => {
                scopes.extend(list.iter().filter_map(|v| v.as_str().map(str::to_owned)))
            }
            _ => {}
        }
        Ok(TokenIdentity {
            subject: claims.sub.or(claims.client_id).or(claims.azp),
            scopes,
        })
    }

    /// Fetches every issuer's keys now, so a bad issuer URL shows at start; failures are
    /// returned, not fatal (the issuer may be up by the first call).
    pub(crate) async fn prefetch(&self) -> Vec<(String, TokenError)> {
        let mut failed = Vec::new();
        for issuer in &self.issuers {
            let mut set = issuer.keys.lock().await;
            if let Err(e) = set.fetch(&issuer.config.issuer, &self.http).await {
                failed.push((issuer.config.issuer.clone(), e));
            }
        }
        failed
    }
}

impl Issuer {
    /// The key a token names (`kid`), refetching the set when it is unknown or stale.
    async fn key(&self, kid: Option<&str>, http: &reqwest::Client) -> Result<Jwk, TokenError> {
        let mut set = self.keys.lock().await;
        let stale = set.fetched.is_none_or(|t| t.elapsed() > MAX_AGE);
        if stale {
            set.fetch(&self.config.issuer, http).await?;
        }
        if let Some(key) = set.find(kid) {
            return Ok(key);
        }
        let recently = set.refetched.is_some_and(|t| t.elapsed() < REFETCH_AFTER);
        if !stale && !recently {
            set.refetched = Some(Instant::now());
            set.fetch(&self.config.issuer, http).await?;
            if let Some(key) = set.find(kid) {
                return Ok(key);
            }
        }
        Err(TokenError::Invalid(
            "the token is signed with a key its issuer does not publish".into(),
        ))
    }
}

impl KeySet {
    fn find(&self, kid: Option<&str>) -> Option<Jwk> {
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .find(|k| k.common.key_id.as_deref() == Some(kid)),
            // No key id: only a set of one key is unambiguous.
            None if self.keys.len() == 1 => self.keys.first(),
            None => None,
        }
        .cloned()
    }

    async fn fetch(&mut self, issuer: &str, http: &reqwest::Client) -> Result<(), TokenError> {
        let uri = match &self.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let uri = discover_jwks_uri(issuer, http).await?;
                self.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let doc = get_json(http, &uri).await?;
        // Keys of a type this crate does not read (or that are malformed) are skipped, not fatal.
        let keys: Vec<Jwk> = doc
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| TokenError::Unavailable(format!("{uri} has no `keys` list")))?
            .iter()
            .filter_map(|k| serde_json::from_value(k.clone()).ok())
            .collect();
        self.keys = keys;
        self.fetched = Some(Instant::now());
        Ok(())
    }
}

/// The issuer's `jwks_uri`, from its OpenID Connect or OAuth 2 metadata, whose `issuer` must be
/// the issuer itself (RFC 8414 §3.3).
async fn discover_jwks_uri(issuer: &str, http: &reqwest::Client) -> Result<String, TokenError> {
    let base = issuer.trim_end_matches('/');
    let (origin, path) = split_origin(base);
    let candidates = [
        format!("{base}/.well-known/openid-configuration"),
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    let mut last = String::new();
    for url in candidates {
        match get_json(http, &url).await {
            Ok(doc) => {
                if doc.get("issuer").and_then(Value::as_str) != Some(issuer) {
                    last = format!("{url} names another issuer");
                    continue;
                }
                return match doc.get("jwks_uri").and_then(Value::as_str) {
                    Some(uri) => Ok(uri.to_owned()),
                    None => Err(TokenError::Unavailable(format!("{url} has no jwks_uri"))),
                };
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(TokenError::Unavailable(format!(
        "no metadata for issuer {issuer} ({last})"
    )))
}

/// `https://host/a/b` as (`https://host`, `/a/b`).
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, TokenError> {
    let unavailable = |e: String| TokenError::Unavailable(format!("{url}: {e}"));
    let response = http
        .get(url)
        .header("accept", "application/json")
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|e| unavailable(e.without_url().to_string()))?;
    if !response.status().is_success() {
        return Err(unavailable(format!("HTTP {}", response.status())));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
    {
        return Err(unavailable("the document is too large".into()));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| unavailable(e.without_url().to_string()))?;
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(unavailable("the document is too large".into()));
    }
    serde_json::from_slice(&bytes).map_err(|e| unavailable(format!("not JSON: {e}")))
}

/// The header's algorithm must be asymmetric, of the key's family, and the key's own `alg`
/// when it names one.
fn check_algorithm(alg: Algorithm, key: &Jwk) -> Result<(), TokenError> {
    use Algorithm::*;
    let family_ok = match &key.algorithm {
        AlgorithmParameters::RSA(_) => {
            matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512)
        }
        AlgorithmParameters::EllipticCurve(_) => matches!(alg, ES256 | ES384),
        AlgorithmParameters::OctetKeyPair(_) => matches!(alg, EdDSA),
        _ => false,
    };
    let named_ok = match key.common.key_algorithm {
        Some(named) => format!("{named:?}") == format!("{alg:?}"),
        None => true,
    };
    if family_ok && named_ok {
        Ok(())
    } else {
        Err(TokenError::Invalid(format!(
            "the algorithm {alg:?} is not allowed for the token's key"
        )))
    }
}

/// What a validation failure tells the caller (never the token or its claims).
fn explain(kind: &ErrorKind, audience: &str) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".into(),
        ErrorKind::InvalidAudience => {
            format!("the token's audience is not this server ({audience})")
        }
        ErrorKind::InvalidIssuer => "the token's issuer is not trusted by this server".into(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".into(),
        ErrorKind::InvalidAlgorithm => "the token's algorithm is not allowed".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        _ => "the token is malformed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_insert_the_issuer_path() {
        assert_eq!(
            split_origin("https://login.example.com/tenant/v2"),
            ("https://login.example.com", "/tenant/v2")
        );
        assert_eq!(
            split_origin("http://127.0.0.1:9000"),
            ("http://127.0.0.1:9000", "")
        );
    }

    #[test]
    fn an_hmac_or_cross_family_algorithm_is_refused_for_an_rsa_key() {
        let key: Jwk = serde_json::from_value(serde_json::json!({
            "kty": "RSA", "kid": "k", "alg": "RS256", "n": "sXch", "e": "AQAB"
        }))
        .unwrap();
        assert!(check_algorithm(Algorithm::RS256, &key).is_ok());
        for alg in [Algorithm::HS256, Algorithm::ES256, Algorithm::RS512] {
            assert!(check_algorithm(alg, &key).is_err(), "{alg:?}");
        }
    }
}
