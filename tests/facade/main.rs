//! The facade's integration tests, in one test binary: every shipped pack is linked once, not
//! once per test file (each module was a test binary of its own). A module's tests are selected
//! by its name: `cargo test --test facade wire::github`, `cargo test --test facade code_tasks --
//! --nocapture`. Their data stays beside this folder (`tests/golden/`, `tests/public-api/`).

// The code-mode task programs' payloads nest deep `json!` literals.
#![recursion_limit = "256"]

mod code_tasks;
mod common;
mod fixture_table;
mod hostile;
mod macro_tests;
mod packs;
mod request_check;
mod search_eval;
mod view_digests;
mod wire;
