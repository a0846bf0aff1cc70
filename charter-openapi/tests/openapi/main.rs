//! The OpenAPI importer's integration tests, in one test binary: one link (and, the crate being
//! optimised in dev builds, one optimised compile of what they instantiate) instead of one per
//! file (each module was a test binary of its own). A module's tests are selected by its name:
//! `cargo test -p charter-openapi --test openapi documents:: -- --nocapture`.

mod documents;
mod hostile_documents;
mod large_schemas;
mod result_files;
mod result_shapes;
mod rules;
