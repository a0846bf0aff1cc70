//! Test support for charter's own tests and benches (`publish = false`).
//!
//! - [`synthetic_catalogue`]: ten packs of 100 tools each, written as pack files by this crate's
//!   build script and compiled through `charter-build` like any pack, so benches and tests read
//!   exactly what the compiler emits.
//! - [`json`](mod@json): small tables described inline in JSON, for tests that need many of them.
//! - [`npm`]: the npm packages some tests run against, installed once under `target/npm/`.
//! - [`redis`]: a real Redis server on 127.0.0.1 (Debian's `redis-server`), for a fleet's
//!   shared store.
//! - [`stub`]: the recording HTTP stub, a real server on 127.0.0.1 standing in for an API.
//! - [`oauth`]: real OAuth 2 authorization servers and JWT issuers (npm `oauth2-mock-server`),
//!   and an API that accepts only the tokens they issued.
//! - [`kit`]: the counting kit, Rust tools that count their executions.
//! - [`everything`]: the MCP reference server (npm `@modelcontextprotocol/server-everything`).
//! - [`openapi`]: the vendored API documents (`openapi/*.json.gz`).
//! - `mcp` (feature `mcp`): the MCP fixture servers, run as this crate's `charter-mcp-fixture`
//!   binary.
//! - [`providers`]: the model APIs' documented rules for a tool definition, applied to tables.

pub mod everything;
pub mod json;
pub mod judge;
pub mod kit;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod npm;
pub mod oauth;
pub mod openapi;
pub mod providers;
pub mod redis;
pub mod stub;

use charter_runtime::Table;
use serde_json::{Value, json};

pub use json::{echo, labels, table, table_with, try_table, views};

/// The synthetic packs compiled by the build script (`ALL` in catalogue order).
mod synthetic {
    include!(concat!(env!("OUT_DIR"), "/synthetic.rs"));
}

/// The first `packs` synthetic tables (at most ten) of 100 tools each, with realistic
/// descriptions and argument shapes (nested objects, arrays, enums, formats, mode labels,
/// from-context fields): 7 packs make a 700-tool catalogue.
pub fn synthetic_catalogue(packs: usize) -> Vec<&'static Table> {
    assert!(
        packs <= synthetic::ALL.len(),
        "the synthetic catalogue has {} packs",
        synthetic::ALL.len()
    );
    synthetic::ALL[..packs].to_vec()
}

/// A typical model call of a synthetic `*_create` tool (its arguments are valid).
pub fn typical_create_arguments() -> Value {
    json!({
        "workspace": "acme",
        "title": "Checkout fails on Safari",
        "body": "Steps to reproduce: open the cart, press pay.",
        "labels": ["bug", "checkout"],
        "assignee": {"login": "ada", "notify": true},
        "due_on": "2026-11-30",
        "metadata": {"source": "support"}
    })
}
