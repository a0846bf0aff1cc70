//! The `charter` command's integration tests, in one test binary: one link of the crate, every
//! shipped pack and the MCP client instead of one per file (each module was a test binary of its
//! own). A module's tests are selected by its name: `cargo test -p charter-cli --test cli
//! fleet::`. Their data stays beside this folder (`tests/conformance/`).

mod auth;
mod cli;
mod common;
mod conformance;
mod fleet;
mod hostile_mcp;
mod load;
mod mcp_auth;
mod mcp_code;
mod mcp_http;
mod mcp_search_call;
mod mcp_serving;
mod mcp_stdio;
mod mcp_upstream;
mod portability;
mod providers;
mod shared_login;
