//! charter: LLM tools declared, not implemented.
//!
//! YAML packs under `packs/` are compiled by `build.rs` (through `charter-build`) into static
//! tool tables: [`packs::ALL`] lists every pack compiled in, `packs::<label>::TOOLS` is one.
pub use charter_runtime::*;

/// The shipped packs, compiled from `packs/*.yaml` by `build.rs`: one module per pack whose
/// cargo feature `pack-<label>` is on (`-` in a label becomes `_`), each with
/// `pub static TOOLS: Table`, and `ALL`, every compiled table.
pub mod packs {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}
