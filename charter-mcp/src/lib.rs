//! charter over the Model Context Protocol, on `rmcp` (docs/design.md §9).
//!
//! - [`server`]: serves a [`ToolSession`](charter_runtime::ToolSession)'s tools to any MCP client
//!   over stdio or streamable HTTP, one session per connection, eager or progressive.
//! - [`client`]: the MCP client bridge: an MCP server's tools as a toolkit a session holds
//!   beside static packs, with batches on the same scheduler as local tools.
//! - [`store`]: what several HTTP instances share (Redis): OAuth 2 tokens, rate counters, MCP
//!   sessions.
//!
//! `rmcp` stays inside this crate: the rest of charter only sees the types re-exported here.

pub mod client;
pub mod server;
pub mod store;

pub use client::{BridgeError, McpToolkit, ToolkitOptions, Upstream};
pub use server::auth::{AuthConfig, AuthConfigError};
pub use server::{
    CallLimits, Disclosure, HttpLimits, HttpOptions, HttpServer, McpServer, ServeError,
    ServerOptions, Transport,
};
pub use store::{FleetStore, StoreError, StoreKey, StoreOptions};
