//! The model loops' integration tests, in one test binary: one link of the crate, its
//! dependencies and the shipped packs the pack tests use, instead of one per file (each module
//! was a test binary of its own). A module's tests are selected by its name:
//! `cargo test -p charter-adapters --test adapters openai::`.

mod anthropic;
mod gemini;
mod gemini_pack;
mod judged_requests;
mod openai;
// `--features rig` (the module says so itself).
mod rig;
mod support;
