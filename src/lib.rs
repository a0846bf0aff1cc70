//! charter: LLM tools declared, not implemented.
//!
//! YAML packs under `packs/` are compiled by `build.rs` (through `charter-build`) into static
//! tool tables: [`packs::ALL`] lists every pack compiled in, `packs::<label>::TOOLS` is one.
//!
//! Rust functions become tools with [`tool`], their parameter types describe themselves with
//! [`derive@Schema`], and [`pack!`] collects them into a static [`Table`], usable wherever a YAML
//! pack's table is. A [`ToolSession`] over tables is what a model loop or an MCP server serves:
//!
//! ```
//! use charter::{CallContext, ToolSession, tool};
//! use serde_json::json;
//!
//! /// Adds two whole numbers.
//! #[tool(read_only, idempotent)]
//! fn add(
//!     #[charter(desc = "The first term.")] a: i64,
//!     #[charter(desc = "The second term.")] b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! charter::pack!(static MATH = "math", "Arithmetic.", [add]);
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // The schema and its size are constants, decided when this crate compiled.
//! let view = &MATH.tools[0].views[0];
//! assert!(view.schema.starts_with(r#"{"type":"object""#));
//!
//! // Progressive by default: the model is offered ToolSearch alone and loads what it needs.
//! let session = ToolSession::new(&[&MATH]).unwrap();
//! let offered: Vec<&str> = session.visible().iter().map(|t| t.name).collect();
//! assert_eq!(offered, ["ToolSearch"]);
//! let ctx = CallContext::new();
//! let search = json!({"query": "select:math_add"});
//! session.dispatch("ToolSearch", search, &ctx).await.unwrap();
//! let sum = session.dispatch("math_add", json!({"a": 2, "b": 3}), &ctx).await.unwrap();
//! assert_eq!(sum.text, "5");
//!
//! // A wrong call is refused before it runs, every problem at its field path, for the model.
//! let err = session.dispatch("math_add", json!({"a": "two"}), &ctx).await.unwrap_err();
//! assert!(err.to_string().contains(r#"/a: expected integer, got string "two""#));
//! assert!(err.to_string().contains("/b: expected integer (required), got nothing"));
//! # }
//! ```

// Lets the macros' generated code (which names `::charter`) be used inside this crate too.
extern crate self as charter;

pub use charter_macros::{Schema, pack, tool};
pub use charter_runtime::*;

/// The shipped packs, compiled from `packs/*.yaml` by `build.rs`: one module per pack whose
/// cargo feature `pack-<label>` is on (`-` in a label becomes `_`), each with
/// `pub static TOOLS: Table`, and `ALL`, every compiled table.
pub mod packs {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}
