//! The `#[charter::tool]`, `derive(Schema)` and `pack!` macros at run time.
//! The compile-fail cases are in `charter-macros/ui/tests/ui.rs` (trybuild).

mod code_signatures;
mod identity;
mod macros;
mod macros_schemars;
mod macros_stress;
