//! charter: LLM tools declared, not implemented.
pub use charter_runtime::*;

/// The shipped packs, compiled from `packs/*.yaml` by `build.rs`.
pub mod packs {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}
