//! The error kinds of docs/design.md §6, one family.
//!
//! Each kind has one reader. A [`DeclarationError`] is for the developer (the pack or the
//! deployment is wrong). A validation error is for the model: adapters return it as the tool
//! result so the model can correct itself. Credential, API and transport errors are the outside
//! world failing. Adapters turn a [`CharterError`] into a tool result and let every other error
//! propagate: a bug in host code is not fed to a model as text.

/// Anything charter itself can report about one call or one declaration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CharterError {
    /// The pack or the deployment is wrong.
    #[error(transparent)]
    Declaration(#[from] DeclarationError),
    /// The model's call is wrong; the message is written for the model.
    #[error("{0}")]
    Validation(String),
    /// A credential is missing or could not be resolved; says what to set, never the secret.
    #[error("credential error: {0}")]
    Credential(String),
    /// The API answered with a failure.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The request did not complete (connection, timeout, TLS, ...).
    #[error("transport error: {0}")]
    Transport(String),
    /// A Rust tool's own error, displayed to the model.
    #[error("{0}")]
    Tool(String),
}

impl CharterError {
    /// A validation error, written for the model.
    pub fn validation(message: impl Into<String>) -> Self {
        CharterError::Validation(message.into())
    }

    /// Whether the model's own call was at fault (it may correct itself and retry).
    pub fn is_validation(&self) -> bool {
        matches!(self, CharterError::Validation(_))
    }
}

/// A mistake in a pack or a deployment, found where the session or the build is made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("declaration error: {message}")]
pub struct DeclarationError {
    /// What is wrong and what to change.
    pub message: String,
}

impl DeclarationError {
    /// A declaration error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// An API failure: an error status, or a failure hidden inside a 200.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{method} {url_template} failed with HTTP {status}{}: {body}", retry_note(*.retry_after_secs))]
pub struct ApiError {
    /// The HTTP status (200 for an envelope failure).
    pub status: u16,
    /// The method.
    pub method: &'static str,
    /// The URL template (never the expanded URL, which may carry identifiers).
    pub url_template: &'static str,
    /// The response body, truncated to a few hundred bytes.
    pub body: String,
    /// How long the API asked to wait, from `Retry-After` or rate-limit headers.
    pub retry_after_secs: Option<u64>,
}

fn retry_note(retry: Option<u64>) -> String {
    match retry {
        Some(secs) => format!(" (retry after {secs} s)"),
        None => String::new(),
    }
}
