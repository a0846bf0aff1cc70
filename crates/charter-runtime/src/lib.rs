//! The runtime behind charter's static tool tables.
//!
//! Generated code (the pack compiler's output and the `#[charter::tool]` macro's expansion)
//! builds [`table`] items in `const` context; everything else here only reads them.
//!
//! - [`table`]: the `&'static` tool table types.
//! - [`tokens`]: `json_tokens` / `schema_tokens` (SPEC §3).
//! - [`context`]: the per-call [`CallContext`] (SPEC §6).
//! - [`error`]: the error kinds (SPEC §6).

#![warn(missing_docs)]

pub mod context;
pub mod error;
pub mod table;
pub mod tokens;

pub use context::CallContext;
pub use error::{ApiError, CharterError, DeclarationError};
pub use table::{Annotations, Table, ToolDef, ToolOutput};
pub use tokens::{json_tokens, schema_tokens, text_tokens};

#[doc(hidden)]
pub mod __private {
    //! Re-exports generated code names, so users need no direct dependency on them.
    pub use serde_json;
}
