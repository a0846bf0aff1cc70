//! Model loops over a charter [`ToolSession`](charter_runtime::ToolSession) (docs/design.md §9).
//!
//! - [`openai`]: the chat-completions tool loop against any OpenAI-compatible base URL.
//! - [`anthropic`]: the same over the Messages API, optionally with the API's own deferred
//!   loading (`defer_loading` tools expanded from our ToolSearch's `tool_reference` results).
//! - [`gemini`]: the same over the Gemini API's `generateContent` function calling.
//! - `rig` (feature `rig`): a session's tools as rig dynamic tools.
//!
//! Every loop rebuilds the tool list from the session every turn, writes each schema from its
//! precomputed text (never re-serialised), runs the model's calls as one batch through the
//! session's scheduler bridge, and returns the whole transcript. Charter errors become tool
//! results for the model; failures of the loop itself (the model server unreachable, a non-2xx,
//! a body that is not the wire format) are an [`Error`].

/// The `with_*` builders every loop's `Options` has: `max_turns`, `concurrency` and `extra`.
macro_rules! loop_option_builders {
    () => {
        /// At most `max_turns` model requests.
        pub fn with_max_turns(mut self, max_turns: usize) -> Self {
            self.max_turns = max_turns;
            self
        }

        /// At most `concurrency` calls of a batch at once.
        pub fn with_concurrency(mut self, concurrency: usize) -> Self {
            self.concurrency = concurrency;
            self
        }

        /// An extra request member, sent as given.
        pub fn with_extra(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
            self.extra.insert(key.into(), value);
            self
        }
    };
}
pub(crate) use loop_option_builders;

/// The `with_header` and `with_timeout` builders every loop's client has, over its endpoint
/// `$field`; `$headers` names headers a caller might add.
macro_rules! client_builders {
    ($field:ident, $headers:literal) => {
        #[doc = concat!("Adds (or replaces) a header sent with every request (", $headers, ").")]
        pub fn with_header(mut self, name: &str, value: &str) -> Result<Self, Error> {
            self.$field.header(name, value, false)?;
            Ok(self)
        }

        /// Gives up on one model request after `timeout` (default: none beyond the HTTP
        /// client's own).
        pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.$field.timeout = Some(timeout);
            self
        }
    };
}
pub(crate) use client_builders;

pub mod anthropic;
mod bridge;
mod error;
pub mod gemini;
mod json;
pub mod openai;
#[cfg(feature = "rig")]
pub mod rig;
mod transport;

pub use error::Error;

/// Why a loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without calling a tool.
    End,
    /// The loop made `max_turns` requests and the model was still calling tools (their results
    /// are in the transcript, so a further run can continue from it).
    MaxTurns,
}

impl Stop {
    /// `"end"` or `"max_turns"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stop::End => "end",
            Stop::MaxTurns => "max_turns",
        }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a loop hands back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunResult<M> {
    /// The whole transcript: the caller's messages, then every assistant message and tool
    /// result, ready to append the next user turn to.
    pub messages: Vec<M>,
    /// The text of the last assistant message.
    pub content: String,
    /// How many requests were sent to the model.
    pub turns: usize,
    /// Why the loop stopped.
    pub stop: Stop,
}

/// The default number of model requests a loop may make.
pub const DEFAULT_MAX_TURNS: usize = 10;

/// The default number of workers a batch of concurrency-safe calls runs on (docs/design.md §7).
pub const DEFAULT_CONCURRENCY: usize = 4;
