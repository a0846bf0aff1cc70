//! The runtime's integration tests, in one test binary: one link of the crate and its
//! dependencies instead of one per file (each module was a test binary of its own). A module's
//! tests are selected by its name: `cargo test -p charter-runtime --test runtime http::`.
//! `tests/http_env.rs` stays a binary of its own: it sets environment variables before any
//! other thread exists.

// The modules of a feature are compiled only with it, as each binary's `required-features` did.
#[cfg(feature = "code")]
mod code_mode;
mod common;
mod hostile;
#[cfg(feature = "http")]
mod hostile_http;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_support;
mod local_bridge;
mod modes;
#[cfg(feature = "http")]
mod oauth2;
mod scheduler;
mod search;
mod search_and_call;
mod session;
mod session_dialect;
mod support;
mod toolkit_refresh;
mod validation;
