//! The HTTP side: the middleware in front of `/mcp` that authenticates each request and picks
//! the caller's rule, its refusals (`401` / `403` with `WWW-Authenticate`, RFC 6750 §3), and the
//! protected-resource metadata (RFC 9728).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use super::Caller;
use super::access::Access;
use super::config::{ApiKey, Rule, sha256};
use super::jwt::{JwtVerifier, TokenError, TokenIdentity};
use crate::server::MCP_PATH;

/// What the middleware checks against; one per server.
pub(crate) struct Guard {
    pub(crate) jwt: Option<JwtVerifier>,
    pub(crate) keys: Vec<ApiKey>,
    /// The rules with their access, first match wins; empty: `everything` for every caller.
    pub(crate) rules: Vec<(Rule, Arc<Access>)>,
    pub(crate) everything: Arc<Access>,
    /// `resource_metadata` of every challenge.
    pub(crate) metadata_url: String,
    pub(crate) scopes_supported: Vec<String>,
    /// The RFC 9728 document.
    pub(crate) metadata: Value,
}

/// Authenticates a request to the MCP endpoint and attaches its [`Caller`], or answers 401 /
/// 403 / 503. Other routes the layer may cover (a health check) pass untouched.
pub(crate) async fn authenticate(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    if request.uri().path() != MCP_PATH {
        return next.run(request).await;
    }
    let token = match bearer(&request) {
        Ok(Some(token)) => token,
        Ok(None) => return guard.challenge(None),
        Err(reason) => return guard.challenge(Some(reason)),
    };
    let identity = match guard.identify(&token).await {
        Ok(identity) => identity,
        Err(TokenError::Invalid(reason)) => {
            tracing::info!(%reason, "refused a bearer token");
            return guard.challenge(Some(reason));
        }
        Err(TokenError::Unavailable(reason)) => {
            tracing::warn!(%reason, "cannot check a bearer token");
            return error_body(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "the server cannot check tokens right now; retry later",
            );
        }
    };
    let Some(caller) = guard.authorise(identity) else {
        return guard.forbidden();
    };
    // The limits count requests per authenticated subject (a caller without one: per rule).
    let key = match (&caller.subject, caller.rule) {
        (Some(subject), _) => format!("sub:{subject}"),
        (None, rule) => format!("rule:{rule:?}"),
    };
    request
        .extensions_mut()
        .insert(crate::server::limits::Caller(key.into()));
    request.extensions_mut().insert(Arc::new(caller));
    next.run(request).await
}

/// `GET /.well-known/oauth-protected-resource[/<path>]`.
pub(crate) async fn metadata(State(guard): State<Arc<Guard>>) -> Response {
    let mut response = axum::Json(guard.metadata.clone()).into_response();
    // Browser-based MCP clients read it from another origin; it holds nothing private.
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// The bearer token of `Authorization`, if any; a malformed header is an error.
fn bearer(request: &Request) -> Result<Option<String>, String> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| "the Authorization header is not text".to_owned())?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim().to_owned()))
        }
        _ => Err("the Authorization header is not `Bearer <token>`".to_owned()),
    }
}

impl Guard {
    /// An API key from the key file, else a JWT from a trusted issuer.
    async fn identify(&self, token: &str) -> Result<TokenIdentity, TokenError> {
        if let Some(key) = self.find_key(token) {
            return Ok(TokenIdentity {
                subject: Some(key.subject.clone()),
                scopes: key.scopes.clone(),
            });
        }
        match &self.jwt {
            Some(jwt) => jwt.verify(token).await,
            None => Err(TokenError::Invalid("the API key is not known".into())),
        }
    }

    /// The key whose digest equals the token's: every entry is compared, in constant time, so
    /// the time taken says nothing about which key (or how much of one) matched.
    fn find_key(&self, token: &str) -> Option<&ApiKey> {
        let digest = sha256(token.as_bytes());
        let mut found = None;
        for key in &self.keys {
            if bool::from(key.digest.ct_eq(&digest)) {
                found = Some(key);
            }
        }
        found
    }

    /// The caller with the first rule it matches (everything when there are no rules).
    fn authorise(&self, identity: TokenIdentity) -> Option<Caller> {
        let TokenIdentity { subject, scopes } = identity;
        let (rule, access) = if self.rules.is_empty() {
            (None, self.everything.clone())
        } else {
            let (n, (rule, access)) = self
                .rules
                .iter()
                .enumerate()
                .find(|(_, (rule, _))| rule.matches(subject.as_deref(), &scopes))?;
            (Some((n, rule)), access.clone())
        };
        let user = rule
            .and_then(|(_, r)| r.grant.credentials_user.as_deref())
            .and_then(|u| {
                if u == "$subject" {
                    subject.clone()
                } else {
                    Some(u.to_owned())
                }
            });
        tracing::debug!(
            subject = subject.as_deref().unwrap_or("-"),
            scopes = %scopes.join(" "),
            rule = ?rule.map(|r| r.0),
            "caller authorised"
        );
        Some(Caller {
            subject,
            rule: rule.map(|(n, _)| n),
            user,
            access,
        })
    }

    /// `401`: no token (`reason` None), or a bad one.
    fn challenge(&self, reason: Option<String>) -> Response {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        if !self.scopes_supported.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", self.scopes_supported.join(" ")));
        }
        let body = match &reason {
            Some(reason) => {
                value.push_str(&format!(
                    ", error=\"invalid_token\", error_description=\"{}\"",
                    quoted(reason)
                ));
                json!({"error": "invalid_token", "error_description": reason})
            }
            None => {
                json!({"error": "unauthorized", "error_description": "this server needs a bearer token"})
            }
        };
        with_challenge(StatusCode::UNAUTHORIZED, body, &value)
    }

    /// `403 insufficient_scope`: authenticated, but no rule lets this caller in.
    fn forbidden(&self) -> Response {
        let reason = "no rule of this server admits this caller";
        let mut value = format!(
            "Bearer error=\"insufficient_scope\", error_description=\"{reason}\", resource_metadata=\"{}\"",
            self.metadata_url
        );
        if !self.scopes_supported.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", self.scopes_supported.join(" ")));
        }
        let body = json!({"error": "insufficient_scope", "error_description": reason});
        with_challenge(StatusCode::FORBIDDEN, body, &value)
    }
}

/// A quoted-string's content: no `"` or `\` (RFC 9110 §5.6.4), no control characters.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == '"' || c == '\\' || c.is_control() {
                '\''
            } else {
                c
            }
        })
        .collect()
}

fn with_challenge(status: StatusCode, body: Value, challenge: &str) -> Response {
    let mut response = (status, axum::Json(body)).into_response();
    if let Ok(value) = HeaderValue::from_str(challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

fn error_body(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": error, "error_description": description})),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_cannot_break_out_of_its_quotes() {
        assert_eq!(quoted("a \"b\" \\c\n"), "a 'b' 'c'");
    }
}
