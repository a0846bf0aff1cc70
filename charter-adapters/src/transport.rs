//! The one HTTP exchange every loop makes: POST a JSON body, read a JSON answer.
//!
//! Secrets never reach an [`Error`]: URLs are shown without query string or user info, reqwest's
//! own messages are stripped of the URL, and a key the server echoes back is masked.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::Error;

/// How much of an error body is kept: enough to read the provider's message.
const ERROR_BODY_LIMIT: usize = 2048;

/// Checks the members both loops' options share: at least one turn, no `extra` member that the
/// loop sets itself (`owned`: each member with what to use instead, if anything), and no
/// streaming.
pub(crate) fn check_loop_options(
    max_turns: usize,
    extra: &serde_json::Map<String, serde_json::Value>,
    owned: &[(&str, Option<&str>)],
) -> Result<(), Error> {
    if max_turns == 0 {
        return Err(Error::Config("max_turns must be at least 1".into()));
    }
    for (key, instead) in owned {
        if extra.contains_key(*key) {
            let instead = instead.map_or(String::new(), |i| format!("; use {i}"));
            return Err(Error::Config(format!(
                "the extra request member `{key}` is set by the loop{instead}"
            )));
        }
    }
    if extra
        .get("stream")
        .is_some_and(|v| v != &serde_json::Value::Bool(false))
    {
        return Err(Error::Config(
            "`stream` is not supported by this loop yet; leave it unset".into(),
        ));
    }
    Ok(())
}

/// A reqwest client over rustls with the `ring` provider and the platform's roots.
///
/// Built explicitly rather than through a process-wide default provider (the workspace's reqwest
/// has `rustls-no-provider`): no global state is installed or read.
pub(crate) fn default_http_client() -> Result<reqwest::Client, Error> {
    use rustls_platform_verifier::BuilderVerifierExt;

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Config(format!("TLS setup: {e}")))?
        .with_platform_verifier()
        .map_err(|e| Error::Config(format!("TLS setup (platform certificate verifier): {e}")))?
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| Error::Config(format!("HTTP client setup: {}", e.without_url())))
}

/// A resolved endpoint: where to POST, with which headers, and what to say about it in errors.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub(crate) http: reqwest::Client,
    pub(crate) url: reqwest::Url,
    /// `url` without query string or user info, for messages.
    pub(crate) shown: String,
    pub(crate) headers: HeaderMap,
    /// The API key, masked wherever it might be echoed back.
    pub(crate) secret: Option<String>,
    pub(crate) timeout: Option<Duration>,
}

impl Endpoint {
    /// `base` joined with `path` (`https://api.openai.com/v1` + `chat/completions`).
    pub(crate) fn new(http: reqwest::Client, base: &str, path: &str) -> Result<Self, Error> {
        let base = base.trim();
        if base.is_empty() {
            return Err(Error::Config("the model server's base URL is empty".into()));
        }
        let joined = format!(
            "{}/{}",
            base.trim_end_matches('/'),
            path.trim_start_matches('/')
        );
        let url = reqwest::Url::parse(&joined).map_err(|e| {
            Error::Config(format!(
                "the model server's base URL `{}` is not a URL: {e}",
                shown_text(base)
            ))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::Config(format!(
                "the model server's base URL must be http or https, not `{}`",
                url.scheme()
            )));
        }
        let shown = shown_url(&url);
        Ok(Self {
            http,
            url,
            shown,
            headers: HeaderMap::new(),
            secret: None,
            timeout: None,
        })
    }

    /// This endpoint with `path` appended (`…/v1beta/models` + `gemini-2.5-flash:generateContent`),
    /// its headers, secret and timeout kept.
    pub(crate) fn join(&self, path: &str) -> Result<Self, Error> {
        let joined = format!(
            "{}/{}",
            self.url.as_str().trim_end_matches('/'),
            path.trim_start_matches('/')
        );
        let url = reqwest::Url::parse(&joined)
            .map_err(|e| Error::Config(format!("`{path}` does not make a URL: {e}")))?;
        Ok(Self {
            shown: shown_url(&url),
            url,
            ..self.clone()
        })
    }

    /// Sends `key` (trimmed; nothing when blank or `None`) in header `name` as `{prefix}{key}`,
    /// marked sensitive and masked wherever the server might echo it.
    pub(crate) fn api_key(
        &mut self,
        name: &str,
        prefix: &str,
        key: Option<&str>,
    ) -> Result<(), Error> {
        if let Some(key) = key.map(str::trim).filter(|k| !k.is_empty()) {
            self.header(name, &format!("{prefix}{key}"), true)?;
            self.secret = Some(key.to_owned());
        }
        Ok(())
    }

    /// Adds a header; its value is marked sensitive when it carries the secret.
    pub(crate) fn header(&mut self, name: &str, value: &str, sensitive: bool) -> Result<(), Error> {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Error::Config(format!("`{name}` is not a valid HTTP header name")))?;
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            if sensitive {
                Error::Config(format!(
                    "the value of header `{name}` is not a valid HTTP header value"
                ))
            } else {
                Error::Config(format!(
                    "the value `{value}` of header `{name}` is not a valid HTTP header value"
                ))
            }
        })?;
        value.set_sensitive(sensitive);
        self.headers.insert(name, value);
        Ok(())
    }

    /// POSTs `body` (JSON text) and answers the response body of a 2xx.
    pub(crate) async fn post(&self, body: Vec<u8>) -> Result<Vec<u8>, Error> {
        let mut request = self
            .http
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body);
        if let Some(timeout) = self.timeout {
            request = request.timeout(timeout);
        }
        let response = request.send().await.map_err(|e| self.transport(e))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| self.transport(e))?;
        if !status.is_success() {
            return Err(Error::Status {
                url: self.shown.clone(),
                status: status.as_u16(),
                body: self.mask(&truncate(
                    &String::from_utf8_lossy(&bytes),
                    ERROR_BODY_LIMIT,
                )),
            });
        }
        Ok(bytes.to_vec())
    }

    /// POSTs `body` and reads a 2xx answer as `T` (`what`: "a chat completion"). An answer that
    /// is not a `T` but that `provider_error` reads a message from (compatible servers often
    /// answer 200 with an error object) says the server's message instead of serde's; so does a
    /// non-2xx whose body is the provider's error object.
    pub(crate) async fn exchange<T: serde::de::DeserializeOwned>(
        &self,
        body: Vec<u8>,
        what: &str,
        provider_error: fn(&serde_json::Value) -> Option<String>,
    ) -> Result<T, Error> {
        let bytes = match self.post(body).await {
            Err(Error::Status { url, status, body }) => {
                let body = serde_json::from_str::<serde_json::Value>(&body)
                    .ok()
                    .as_ref()
                    .and_then(provider_error)
                    .map_or(body, |message| self.mask(&message));
                return Err(Error::Status { url, status, body });
            }
            other => other?,
        };
        serde_json::from_slice::<T>(&bytes).map_err(|e| {
            let provider = serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .as_ref()
                .and_then(provider_error);
            match provider {
                Some(message) => self.decode(format!("the server reported an error: {message}")),
                None => self.decode(format!(
                    "not {what} ({e}): {}",
                    truncate(&String::from_utf8_lossy(&bytes), 512)
                )),
            }
        })
    }

    /// A decoding failure at this endpoint.
    pub(crate) fn decode(&self, message: impl Into<String>) -> Error {
        Error::Decode {
            url: self.shown.clone(),
            message: self.mask(&message.into()),
        }
    }

    fn transport(&self, e: reqwest::Error) -> Error {
        let e = e.without_url();
        let kind = if e.is_timeout() {
            "timed out: "
        } else if e.is_connect() {
            "could not connect: "
        } else {
            ""
        };
        let mut message = format!("{kind}{e}");
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        Error::Transport {
            url: self.shown.clone(),
            message: self.mask(&message),
        }
    }

    fn mask(&self, text: &str) -> String {
        match &self.secret {
            Some(secret) if secret.len() >= 4 && text.contains(secret.as_str()) => {
                text.replace(secret.as_str(), "***")
            }
            _ => text.to_owned(),
        }
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.shown)
            .field("api_key", &self.secret.as_ref().map(|_| "***"))
            .finish_non_exhaustive()
    }
}

/// The URL without user info or query string: safe to print.
fn shown_url(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// Best effort for text that did not parse as a URL: drop everything after `?` and before `@`.
fn shown_text(text: &str) -> String {
    let text = text.split(['?', '#']).next().unwrap_or_default();
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}{}", &text[..scheme + 3], &text[at + 1..])
        }
        _ => text.to_owned(),
    }
}

/// At most `limit` bytes, cut at a character boundary, marked when cut.
pub(crate) fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// The value of an environment variable, if set and not blank.
pub(crate) fn env_var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_url_drops_secrets() {
        let url = reqwest::Url::parse("https://user:pw@example.com/v1/chat?key=sk-1#x").unwrap();
        assert_eq!(shown_url(&url), "https://example.com/v1/chat");
        assert_eq!(shown_text("https://u:p@host/v1?key=1"), "https://host/v1");
        assert_eq!(shown_text("not a url?key=1"), "not a url");
    }

    #[test]
    fn joins_base_and_path() {
        let http = default_http_client().unwrap();
        let e = Endpoint::new(http.clone(), "http://127.0.0.1:9/v1/", "/chat/completions").unwrap();
        assert_eq!(e.url.as_str(), "http://127.0.0.1:9/v1/chat/completions");
        assert!(matches!(
            Endpoint::new(http.clone(), "  ", "x"),
            Err(Error::Config(_))
        ));
        assert!(matches!(
            Endpoint::new(http, "ftp://h", "x"),
            Err(Error::Config(_))
        ));
    }

    #[test]
    fn truncates_at_char_boundary() {
        assert_eq!(truncate("abc", 10), "abc");
        let cut = truncate("ééé", 3);
        assert!(cut.starts_with('é') && cut.ends_with("(6 bytes)"), "{cut}");
    }
}
