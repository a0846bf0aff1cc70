//! charter over the Model Context Protocol, on `rmcp` (SPEC §9).
//!
//! - [`client`]: the MCP client bridge: an MCP server's tools as a toolkit a session holds
//!   beside static packs, with batches on the same scheduler as local tools.
//!
//! `rmcp` stays inside this crate: the rest of charter only sees the types re-exported here.

#![warn(missing_docs)]

pub mod client;

pub use client::{BridgeError, McpToolkit, ToolkitOptions, Upstream};
