//! charter: LLM tools declared, not implemented.
//!
//! YAML packs under `packs/` are compiled by `build.rs` (through `charter-build`) into static
//! tool tables: [`packs::ALL`] lists every pack compiled in, `packs::<label>::TOOLS` is one.
//!
//! Rust functions become tools with [`tool`], their parameter types describe themselves with
//! [`derive@Schema`], and [`pack!`] collects them into a static [`Table`], usable wherever a YAML
//! pack's table is.

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
