//! What a model loop reports to its caller.
//!
//! Only failures of the loop itself end up here: the model server could not be reached, answered
//! with an error status, or sent something that is not its wire format. A tool's failure (a
//! charter error: validation, credential, API, transport) is never an [`Error`]: it becomes the
//! tool result, written for the model (docs/design.md §6).

/// A model loop failed; the transcript so far is lost with it, the caller's input is untouched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The client or the options are unusable (no base URL, a header that is not valid, an
    /// extra request field the loop owns).
    #[error("configuration error: {0}")]
    Config(String),
    /// The request to the model server did not complete (connection, TLS, timeout).
    #[error("request to the model server at {url} failed: {message}")]
    Transport {
        /// The endpoint, without query string or user info.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The model server answered with a non-2xx status.
    #[error("the model server at {url} answered HTTP {status}: {body}")]
    Status {
        /// The endpoint, without query string or user info.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The response body, truncated, with the API key masked if the server echoed it.
        body: String,
    },
    /// The model server answered in its wire format but with nothing the loop can go on with: the
    /// prompt or the answer was blocked (Gemini's `promptFeedback.blockReason`, a `SAFETY` or
    /// `RECITATION` finish), or the model's function call was malformed.
    #[error("the model server at {url} gave no usable answer ({reason}){}", detail_suffix(.detail))]
    Refused {
        /// The endpoint, without query string or user info.
        url: String,
        /// The provider's reason code (`SAFETY`, `MALFORMED_FUNCTION_CALL`, ...).
        reason: String,
        /// What the provider said about it, if anything.
        detail: String,
    },
    /// The model server's answer is not the wire format it should speak.
    #[error("the model server at {url} sent a response the loop cannot read: {message}")]
    Decode {
        /// The endpoint, without query string or user info.
        url: String,
        /// What is wrong with it, with a path into the JSON when there is one.
        message: String,
    },
}

fn detail_suffix(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}
