//! The MCP server's and bridge's integration tests, in one test binary: one link of the crate
//! and every shipped pack instead of one per file (each module was a test binary of its own). A
//! module's tests are selected by its name: `cargo test -p charter-mcp --test mcp bridge::`.

mod auth;
mod bridge;
mod common;
mod everything;
mod interchange;
mod server;
