//! The project's rules, in one place: every crate that names, labels, sizes or shows a tool asks
//! this crate rather than keeping its own copy.
//!
//! - [`names`]: pack labels, tool names, property names and the qualified-name limit
//!   (docs/design.md §2).
//! - [`groups`]: how "at least one of" / "exactly one of" groups are told to the model (§3).
//! - [`http`]: the MCP annotations and their defaults per HTTP method (§2), URL placeholders
//!   (§8).
//! - [`tokens`]: `json_tokens` of JSON text, the size estimate of §3.
//! - [`modes`]: reserved field labels and which fields a mode view shows (§5).
//! - [`views`]: the enumeration of a tool's mode views (§5).
//! - [`script`]: how a code-mode program reaches a tool (`github.pulls_list`).
//! - [`semantic`]: the static token table of ToolSearch's semantic layer (vendored, distilled
//!   offline) and the tool and query vectors scored against it.
//! - [`results`]: what a tool answers: why one has no declared result shape, and where a list
//!   answer goes when it must be an object.
//! - [`search`]: the search-term pipeline that the pack compiler, `#[charter::tool]` and
//!   ToolSearch apply identically (§4); re-exported at the root.
//!
//! It has no dependencies, so build scripts, the proc-macro, the build library, the runtime, the
//! MCP crate and the CLI all use it cheaply.

pub mod groups;
pub mod http;
pub mod intent;
pub mod modes;
pub mod names;
pub mod results;
pub mod script;
pub mod search;
pub mod semantic;
pub mod tokens;
pub mod views;

pub use search::*;
