//! `ToolSession` (SPEC §4): the tools of one conversation and which of their schemas have been
//! sent, with progressive disclosure through `ToolSearch`.
//!
//! SKELETON: signatures are the contract other crates code against; bodies are being filled in.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use crate::context::CallContext;
use crate::error::{CharterError, DeclarationError};
use crate::table::{Annotations, BoxFuture, Route, Table, ToolDef, ToolOutput};

/// The name of the search tool offered while anything is deferred.
pub const TOOL_SEARCH: &str = "ToolSearch";

/// How ToolSearch ranks keyword queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ranking {
    /// SPEC §4 scoring: two points per term found in the name, one per term in the description.
    #[default]
    Classic,
}

/// A tool whose table is built at run time (an MCP server reached through the bridge).
///
/// Implementations keep their schemas as text sized once on arrival, so a session reads them
/// like a static table.
pub trait Toolkit: Send + Sync {
    /// The pack label its tools are qualified with.
    fn pack(&self) -> &str;
    /// The tools as of now, in the toolkit's order.
    fn tools(&self) -> Vec<DynamicTool>;
    /// Runs one validated call of `tool` (its qualified name).
    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>>;
}

/// One tool of a [`Toolkit`], owned.
#[derive(Debug, Clone)]
pub struct DynamicTool {
    /// The qualified name.
    pub name: Arc<str>,
    /// The description.
    pub description: Arc<str>,
    /// The parameter schema as compact JSON text.
    pub schema: Arc<str>,
    /// `json_tokens` of `schema`.
    pub tokens: u32,
    /// The annotations, explicit booleans only (`None`: the server did not say).
    pub annotations: Annotations,
}

/// What one tool looks like to the model this turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry<'s> {
    /// The qualified name (or `ToolSearch`).
    pub name: &'s str,
    /// The description.
    pub description: &'s str,
    /// The parameter schema in force, compact JSON text, exactly as it goes on the wire.
    pub schema: &'s str,
    /// `json_tokens` of `schema`.
    pub tokens: u32,
    /// The annotations.
    pub annotations: Annotations,
}

/// Executes YAML-pack tools; `charter_runtime::http::HttpExecutor` is the implementation (one
/// client and connection pool, shared by every session that holds it).
pub trait HttpCaller: Send + Sync {
    /// Sends the request for one validated call (pins and from-context values merged in).
    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        route: &'static Route,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>>;
}

/// Options for [`ToolSession::with_options`].
#[derive(Clone)]
pub struct SessionOptions {
    /// Defer tools and offer ToolSearch (default true).
    pub progressive: bool,
    /// With `progressive`, tools whose schema is at most this size stay resident (default 0:
    /// every tool deferred, however small the pack).
    pub threshold: u32,
    /// The session mode (a tier, a region, an A/B arm), resolved once here.
    pub mode: Option<String>,
    /// The keyword ranking.
    pub ranking: Ranking,
    /// Who executes HTTP tools (default: a shared `HttpExecutor` when the `http` feature is on).
    pub http: Option<Arc<dyn HttpCaller>>,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self { progressive: true, threshold: 0, mode: None, ranking: Ranking::Classic, http: None }
    }
}

/// A source of tools a session can hold.
#[derive(Clone)]
pub enum Source {
    /// A compiled table.
    Table(&'static Table),
    /// Static tool definitions not grouped in a table (a plain list).
    Tools(&'static [ToolDef]),
    /// A toolkit built at run time.
    Toolkit(Arc<dyn Toolkit>),
}

/// The tools of one conversation and which of their schemas have been sent.
pub struct ToolSession {
    _private: (),
}

impl ToolSession {
    /// A session over these tables with the default options (progressive, threshold 0, no mode).
    pub fn new(tables: &[&'static Table]) -> Result<Self, DeclarationError> {
        Self::with_options(tables.iter().map(|t| Source::Table(t)).collect(), SessionOptions::default())
    }

    /// A session over these sources with explicit options.
    pub fn with_options(sources: Vec<Source>, options: SessionOptions) -> Result<Self, DeclarationError> {
        let _ = (sources, options);
        todo!("session")
    }

    /// Fixes a top-level field of a tool to a value: it leaves the model's view and is sent on
    /// every call. Refused when the field does not exist or the session mode withholds it.
    pub fn pin(&mut self, tool: &str, field: &str, value: Value) -> Result<(), DeclarationError> {
        let _ = (tool, field, value);
        todo!("session")
    }

    /// Fills a top-level field of a tool from `CallContext::values[key]` on every call: it leaves
    /// the model's view and the model can never set it.
    pub fn from_context(&mut self, tool: &str, field: &str, key: &str) -> Result<(), DeclarationError> {
        let _ = (tool, field, key);
        todo!("session")
    }

    /// What the model sees this turn, in order: resident tools, `ToolSearch` (while anything
    /// deferred is not loaded), then loaded tools in load order.
    pub fn visible(&self) -> Vec<ToolEntry<'_>> {
        todo!("session")
    }

    /// The ToolSearch definition, if this session offers it.
    pub fn tool_search(&self) -> Option<ToolEntry<'_>> {
        todo!("session")
    }

    /// How many times the visible list has changed (loads, resets): compare to notice a change.
    pub fn generation(&self) -> u64 {
        todo!("session")
    }

    /// Every tool of the session (resolved to its mode view), loaded or not, in declaration order.
    pub fn all(&self) -> Vec<ToolEntry<'_>> {
        todo!("session")
    }

    /// The annotations of a tool by name (ToolSearch: none are set).
    pub fn annotations(&self, name: &str) -> Option<Annotations> {
        let _ = name;
        todo!("session")
    }

    /// Routes one call: ToolSearch loads and answers JSON; a visible tool is validated and
    /// executed; anything else is a validation error written for the model.
    pub fn dispatch<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        let _ = (name, arguments, ctx);
        todo!("session")
    }

    /// The local bridge: runs a batch of the model's calls through the scheduler, concurrently
    /// only when every call is of a read-only and idempotent tool (ToolSearch never is).
    pub async fn execute_tool_calls(
        &self,
        calls: &[crate::scheduler::ToolCall],
        ctx: &CallContext,
        concurrency: usize,
    ) -> Vec<crate::scheduler::CallResult> {
        let _ = (calls, ctx, concurrency);
        todo!("session")
    }

    /// Clears the loaded set so the session can serve another conversation.
    pub fn reset(&self) {
        todo!("session")
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn check<T: Send + Sync>() {}
    check::<ToolSession>();
    let _: Option<Cow<'static, str>> = None;
}
