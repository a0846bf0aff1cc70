//! charter over the Model Context Protocol, on `rmcp` (SPEC §9).
//!
//! - [`server`]: serves a [`ToolSession`](charter_runtime::ToolSession)'s tools to any MCP client
//!   over stdio or streamable HTTP, one session per connection, eager or progressive.
//!
//! `rmcp` stays inside this crate: the rest of charter only sees the types re-exported here.

#![warn(missing_docs)]

pub mod server;

pub use server::{HttpOptions, HttpServer, McpServer, ServeError, ServerOptions, Transport};
