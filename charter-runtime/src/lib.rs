//! The runtime behind charter's static tool tables.
//!
//! Generated code (the pack compiler's output and the `#[charter::tool]` macro's expansion)
//! builds [`table`] items in `const` context; everything else here only reads them.
//!
//! - [`table`]: the `&'static` tool table types.
//! - [`tokens`]: `json_tokens` / `schema_tokens` (docs/design.md §3).
//! - [`context`]: the per-call [`CallContext`] (docs/design.md §6).
//! - [`error`]: the error kinds (docs/design.md §6).
//! - [`session`]: `ToolSession` and ToolSearch (docs/design.md §4).
//! - [`search`]: ToolSearch's query forms and ranking (docs/design.md §4).
//! - [`mode`]: mode views and the deployment's narrowing (docs/design.md §5).
//! - [`validate`]: argument validation against the view in force (docs/design.md §6).
//! - [`egress`]: the egress map (docs/design.md §5).
//! - [`scheduler`]: the batch scheduler (docs/design.md §7).
//! - [`schema`]: compile-time schemas of Rust tools and the helpers their handlers call.

#![warn(missing_docs)]

pub mod context;
pub mod egress;
pub mod error;
#[cfg(feature = "http")]
pub mod http;
pub mod mode;
pub mod scheduler;
pub mod schema;
pub mod search;
pub mod session;
pub mod table;
pub mod tokens;
pub mod validate;

pub use context::CallContext;
pub use egress::{EgressMap, egress_map};
pub use error::{ApiError, CharterError, DeclarationError};
pub use scheduler::{CallResult, ToolCall, argument_identity, concurrency_safe, run_tool_batch};
pub use schema::Schema;
pub use session::{SearchAnswer, SessionOptions, Source, ToolSession};
pub use table::{Annotations, Table, ToolDef, ToolOutput};
pub use tokens::{json_tokens, schema_tokens, text_tokens};

#[doc(hidden)]
pub mod __private {
    //! Re-exports generated code names, so users need no direct dependency on them.
    pub use serde_json;
}
