//! One request to a token endpoint (RFC 6749 §4.1.3, §4.4, §6) and what its answer may say.
//!
//! The answer is read into [`Fresh`] (secrets wrapped in [`Secret`]) or summarised as a
//! [`TokenFailure`]: an HTTP status and the OAuth `error` code, never the body, which may echo
//! what was sent.

use std::fmt;
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderValue};
use serde_json::Value;

use crate::http::credentials::Secret;
use crate::table::ClientAuth;

/// The largest token response read.
const MAX_BODY: usize = 64 * 1024;

/// A token endpoint's successful answer.
pub struct Fresh {
    /// The access token.
    pub access_token: Secret,
    /// Its lifetime, when the endpoint says (`expires_in`).
    pub expires_in: Option<Duration>,
    /// A new refresh token (an authorization-code exchange, or a rotating provider).
    pub refresh_token: Option<Secret>,
}

impl fmt::Debug for Fresh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fresh")
            .field("access_token", &self.access_token)
            .field("expires_in", &self.expires_in)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "***"))
            .finish()
    }
}

/// Why no token came back. Carries no secret and no response body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenFailure {
    /// The endpoint answered with an error status (and maybe an OAuth `error` code).
    Refused {
        /// The HTTP status.
        status: u16,
        /// The OAuth `error` code, when the body carried a well-formed one.
        code: Option<String>,
    },
    /// The endpoint could not be reached (connection refused, DNS, TLS).
    Unreachable(String),
    /// The endpoint did not answer in time.
    TimedOut(Duration),
    /// A 2xx answer that is not a usable token response.
    Malformed(&'static str),
}

impl TokenFailure {
    /// Whether the grant itself is bad (revoked or expired refresh token, a used code).
    pub fn is_invalid_grant(&self) -> bool {
        matches!(self, TokenFailure::Refused { code: Some(c), .. } if c == "invalid_grant")
    }

    /// Whether the client id or secret was refused.
    pub fn is_client_refused(&self) -> bool {
        matches!(self, TokenFailure::Refused { code: Some(c), .. }
            if c == "invalid_client" || c == "unauthorized_client")
            || matches!(
                self,
                TokenFailure::Refused {
                    status: 401,
                    code: None
                }
            )
    }
}

impl fmt::Display for TokenFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenFailure::Refused {
                status,
                code: Some(code),
            } => write!(f, "the token endpoint answered HTTP {status} `{code}`"),
            TokenFailure::Refused { status, code: None } => {
                write!(f, "the token endpoint answered HTTP {status}")
            }
            TokenFailure::Unreachable(why) => write!(f, "cannot reach the token endpoint: {why}"),
            TokenFailure::TimedOut(after) => write!(
                f,
                "the token endpoint did not answer within {} ms",
                after.as_millis()
            ),
            TokenFailure::Malformed(what) => {
                write!(f, "the token endpoint's answer is unusable: {what}")
            }
        }
    }
}

/// Who the client is at the token endpoint.
pub struct Client<'a> {
    /// The client id.
    pub id: &'a Secret,
    /// The client secret, for a confidential client.
    pub secret: Option<&'a Secret>,
    /// How the two are sent.
    pub auth: ClientAuth,
}

/// POSTs `form` (plus the client's credentials) to `url` and reads the answer.
pub async fn request(
    http: &reqwest::Client,
    url: &str,
    client: &Client<'_>,
    mut form: Vec<(&'static str, String)>,
    timeout: Duration,
) -> Result<Fresh, TokenFailure> {
    let mut builder = http
        .post(url)
        .header(ACCEPT, HeaderValue::from_static("application/json"));
    match (client.auth, client.secret) {
        (ClientAuth::Basic, Some(secret)) => {
            builder = builder.header(AUTHORIZATION, basic(client.id, secret)?);
        }
        (_, secret) => {
            form.push(("client_id", client.id.expose().to_owned()));
            if let Some(secret) = secret {
                form.push(("client_secret", secret.expose().to_owned()));
            }
        }
    }
    let started = Instant::now();
    let exchange = async {
        let response = builder
            .form(&form)
            .send()
            .await
            .map_err(|e| TokenFailure::Unreachable(reason(&e)))?;
        let status = response.status().as_u16();
        let body = read_capped(response).await?;
        Ok::<_, TokenFailure>((status, body))
    };
    let (status, body) = tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| TokenFailure::TimedOut(timeout))??;
    tracing::debug!(
        status,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "oauth token request"
    );
    if !(200..300).contains(&status) {
        return Err(TokenFailure::Refused {
            status,
            code: error_code(&body),
        });
    }
    parse(&body)
}

/// `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1), marked sensitive.
fn basic(id: &Secret, secret: &Secret) -> Result<HeaderValue, TokenFailure> {
    use base64::Engine as _;
    let enc = |s: &Secret| {
        percent_encoding::utf8_percent_encode(s.expose(), percent_encoding::NON_ALPHANUMERIC)
            .to_string()
    };
    let pair = format!("{}:{}", enc(id), enc(secret));
    let text = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    );
    let mut value = HeaderValue::from_str(&text)
        .map_err(|_| TokenFailure::Malformed("the client credentials are not header-safe"))?;
    value.set_sensitive(true);
    Ok(value)
}

async fn read_capped(mut response: reqwest::Response) -> Result<Vec<u8>, TokenFailure> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| TokenFailure::Unreachable(reason(&e)))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(TokenFailure::Malformed("the answer exceeds 64 KiB"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// What went wrong on the wire, in words: reqwest's cause chain without the URL.
fn reason(error: &reqwest::Error) -> String {
    let kind = if error.is_connect() {
        "cannot connect"
    } else if error.is_timeout() {
        "timed out"
    } else {
        "the request failed"
    };
    let mut detail = String::new();
    let mut source = std::error::Error::source(error);
    while let Some(e) = source {
        let text = e.to_string();
        if !detail.contains(&text) {
            detail.push_str(": ");
            detail.push_str(&text);
        }
        source = e.source();
    }
    format!("{kind}{detail}")
}

/// The OAuth `error` code of an error body, if it is a well-formed one; anything else in the
/// body is not repeated.
pub(crate) fn error_code(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let code = value.get("error")?.as_str()?;
    well_formed(code).then(|| code.to_owned())
}

/// An OAuth `error` value as it may be shown: the code when well formed (RFC 6749 §5.2:
/// printable ASCII without `"` or `\\`, here at most 64 bytes), else a placeholder.
pub fn error_code_text(code: &str) -> &str {
    if well_formed(code) {
        code
    } else {
        "an unreadable error code"
    }
}

fn well_formed(code: &str) -> bool {
    !code.is_empty()
        && code.len() <= 64
        && code
            .bytes()
            .all(|b| (0x20..=0x7e).contains(&b) && b != b'"' && b != b'\\' && b != b'`')
}

/// A successful answer: `access_token` is required; `expires_in` may be a number or a numeric
/// string (some providers send one).
fn parse(body: &[u8]) -> Result<Fresh, TokenFailure> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|_| TokenFailure::Malformed("the answer is not JSON"))?;
    let access = value
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or(TokenFailure::Malformed("the answer has no access_token"))?;
    let expires_in = match value.get("expires_in") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|s| s.is_finite() && *s > 0.0)
    .map(|s| Duration::from_secs_f64(s.min(1e9)));
    let refresh_token = value
        .get("refresh_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(Secret::new);
    Ok(Fresh {
        access_token: Secret::new(access),
        expires_in,
        refresh_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_body_is_summarised_by_its_code_only() {
        let body =
            br#"{"error":"invalid_grant","error_description":"token rt-canary-123 revoked"}"#;
        assert_eq!(error_code(body).as_deref(), Some("invalid_grant"));
        assert_eq!(error_code(b"<html>rt-canary</html>"), None);
        assert_eq!(error_code(br#"{"error":"a\"b"}"#), None);
        let long = format!(r#"{{"error":"{}"}}"#, "x".repeat(65));
        assert_eq!(error_code(long.as_bytes()), None);
    }

    #[test]
    fn a_token_answer_is_read_with_a_numeric_or_string_lifetime() {
        let fresh =
            parse(br#"{"access_token":"at","expires_in":"3599","refresh_token":"rt"}"#).unwrap();
        assert_eq!(fresh.expires_in, Some(Duration::from_secs(3599)));
        assert_eq!(fresh.refresh_token.unwrap().expose(), "rt");
        assert!(
            format!("{:?}", parse(br#"{"access_token":"at-canary"}"#).unwrap()).contains("***")
        );
        assert_eq!(
            parse(br#"{"token_type":"bearer"}"#).unwrap_err(),
            TokenFailure::Malformed("the answer has no access_token")
        );
    }
}
