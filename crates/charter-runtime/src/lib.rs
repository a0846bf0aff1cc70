//! The runtime behind charter's static tool tables.
//!
//! Generated code (the pack compiler's output and the `#[charter::tool]` macro's expansion)
//! builds [`table`] items in `const` context; everything else here only reads them.
//!
//! - [`table`]: the `&'static` tool table types.
//! - [`tokens`]: `json_tokens` / `schema_tokens` (SPEC §3).
//! - [`context`]: the per-call [`CallContext`] (SPEC §6).
//! - [`error`]: the error kinds (SPEC §6).
//! - [`session`]: `ToolSession` and ToolSearch (SPEC §4).
//! - [`scheduler`]: the batch scheduler (SPEC §7).
//! - [`schema`]: compile-time schemas of Rust tools and the helpers their handlers call.

#![warn(missing_docs)]

pub mod context;
pub mod error;
pub mod scheduler;
pub mod schema;
pub mod session;
pub mod table;
pub mod tokens;

pub use context::CallContext;
pub use error::{ApiError, CharterError, DeclarationError};
pub use table::{Annotations, Table, ToolDef, ToolOutput};
pub use tokens::{json_tokens, schema_tokens, text_tokens};
pub use scheduler::{CallResult, ToolCall, argument_identity, concurrency_safe, run_tool_batch};
pub use session::{SessionOptions, ToolSession};
pub use schema::Schema;

#[doc(hidden)]
pub mod __private {
    //! Re-exports generated code names, so users need no direct dependency on them.
    pub use serde_json;
}
