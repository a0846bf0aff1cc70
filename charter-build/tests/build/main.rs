//! The pack compiler's integration tests, in one test binary: one link of the crate and its
//! dependencies instead of one per file (each module was a test binary of its own). A module's
//! tests are selected by its name: `cargo test -p charter-build --test build generated::`. The
//! pack files they read stay beside this folder (`tests/broken/`, `tests/fixtures/`,
//! `tests/graphql_schema/`).

mod broken;
mod builder;
mod generated;
mod graphql_schema;
mod hostile_packs;
mod results;
