//! `ToolSession` (docs/design.md §4): the tools of one conversation and which of their schemas have been
//! sent, with progressive disclosure through `ToolSearch`.
//!
//! Building a session only reads the tables: the resident/deferred partition compares
//! precomputed sizes, the mode resolves to precomputed views (docs/design.md §5), and the ToolSearch
//! description is the sorted list of deferred names, written once. What changes during a
//! conversation is the loaded set, behind a small mutex, so one session can be shared (`&self`
//! everywhere) by every task serving that conversation.
//!
//! - [`build`]: building a session from its sources, and refreshing it when a toolkit changes.
//! - [`narrow`]: pins and from-context fields the deployment takes out of the model's hands.
//! - [`search`]: ToolSearch: queries, loading, and the answer the model reads.
//! - [`dispatch`]: routing one call, and the local bridge's batches.
//! - [`call`]: search-and-call, `CallTool` and ToolSearch answers with schemas.
//! - `catalogue`: the ToolSearch description (names, or one line per pack).
//! - `entry`: one tool of the session resolved to its view.

mod build;
pub mod call;
mod catalogue;
mod dispatch;
mod entry;
mod narrow;
mod search;

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use serde_json::Value;

use crate::context::CallContext;
use crate::error::CharterError;
use crate::search::{SearchIndex, TOOL_SEARCH_SCHEMA};
use crate::table::{Annotations, BoxFuture, Table, ToolDef, ToolOutput, View};
use crate::tokens::text_tokens;
use crate::validate::PatternCache;

pub(crate) use entry::{Entry, Kind};
pub use search::SearchAnswer;

pub use crate::search::{Ranking, TOOL_SEARCH};
pub use crate::table::HttpCaller;
pub use call::{CALL_TOOL, CALL_TOOL_CONCURRENCY, CALL_TOOL_DESCRIPTION, CALL_TOOL_SCHEMA};
pub use catalogue::NAMES_BUDGET_TOKENS;

/// How many calls of one batch [`ToolSession::execute_tool_calls`] runs (128); the rest are
/// answered with an error result each, in place.
pub const MAX_BATCH_CALLS: usize = 128;

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
    /// A counter that grows whenever [`tools`](Self::tools) would answer differently (an MCP
    /// server announced `notifications/tools/list_changed` and was re-listed). A session compares
    /// it with the value it saw when built ([`ToolSession::is_stale`]); a toolkit whose list never
    /// changes keeps the default, 0.
    fn generation(&self) -> u64 {
        0
    }
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
    /// The keyword ranking (default [`Ranking::Relevance`]; [`Ranking::Classic`] is the docs/design.md §4
    /// scoring, for strict compatibility).
    pub ranking: Ranking,
    /// Who executes HTTP tools (default: a shared `HttpExecutor` when the `http` feature is on).
    pub http: Option<Arc<dyn HttpCaller>>,
    /// With `progressive`, list `ToolSearch` and [`CALL_TOOL`] instead of loading tools: the
    /// list never changes, ToolSearch answers with the found tools' schemas and `CallTool` runs
    /// any tool by name (default false; see [`call`]).
    pub search_and_call: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            progressive: true,
            threshold: 0,
            mode: None,
            ranking: Ranking::Relevance,
            http: None,
            search_and_call: false,
        }
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

/// The loaded set: the only part of a session that changes during a conversation.
struct LoadState {
    /// Entry indices in load order.
    order: Vec<u32>,
    /// Whether each entry is loaded, by entry index.
    loaded: Vec<bool>,
    generation: u64,
}

/// The tools of one conversation and which of their schemas have been sent.
pub struct ToolSession {
    /// The sources it was built from, so [`refreshed`](Self::refreshed) can re-read toolkits.
    sources: Vec<Source>,
    /// Each toolkit source's [`Toolkit::generation`] when its tools were read, in source order.
    kit_generations: Vec<u64>,
    progressive: bool,
    threshold: u32,
    /// Search-and-call: ToolSearch loads nothing and `CallTool` runs any tool.
    search_and_call: bool,
    /// Every tool, in declaration order (sources in the order given).
    entries: Vec<Entry>,
    /// Entry indices sorted by name: lookup by binary search, and the `available` list.
    by_name: Vec<u32>,
    /// Deferred entry indices sorted by name: what ToolSearch ranks and lists.
    catalogue: Vec<u32>,
    /// The ToolSearch description, when the session offers it (written once, never changed).
    search_description: Option<String>,
    /// The catalogue's text laid end to end for keyword search, built by the first keyword query.
    search_index: OnceLock<SearchIndex>,
    mode: Option<String>,
    ranking: Ranking,
    http: Option<Arc<dyn HttpCaller>>,
    patterns: PatternCache,
    state: Mutex<LoadState>,
}

impl std::fmt::Debug for ToolSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSession")
            .field("tools", &self.entries.len())
            .field("deferred", &self.catalogue.len())
            .field("mode", &self.mode)
            .field("generation", &self.generation())
            .finish_non_exhaustive()
    }
}

impl ToolSession {
    /// What the model sees this turn, in order: resident tools, `ToolSearch` (while anything
    /// deferred is not loaded), then loaded tools in load order.
    pub fn visible(&self) -> Vec<ToolEntry<'_>> {
        let state = self.state();
        let mut out = Vec::with_capacity(self.entries.len().min(64) + state.order.len() + 2);
        out.extend(self.entries.iter().filter(|e| e.resident).map(Entry::entry));
        if self.is_search_and_call() {
            // The same list every turn: nothing is loaded.
            out.extend(self.tool_search());
            out.extend(self.call_tool());
            return out;
        }
        if state.order.len() < self.catalogue.len()
            && let Some(search) = self.tool_search()
        {
            out.push(search);
        }
        out.extend(
            state
                .order
                .iter()
                .map(|i| self.entries[*i as usize].entry()),
        );
        out
    }

    /// The ToolSearch definition, if this session offers it.
    pub fn tool_search(&self) -> Option<ToolEntry<'_>> {
        let description = self.search_description.as_deref()?;
        let (schema, tokens) = if self.search_and_call {
            let schema = call::SEARCH_AND_CALL_SCHEMA;
            (schema, const { text_tokens(call::SEARCH_AND_CALL_SCHEMA) })
        } else {
            (
                TOOL_SEARCH_SCHEMA,
                const { text_tokens(TOOL_SEARCH_SCHEMA) },
            )
        };
        Some(ToolEntry {
            name: TOOL_SEARCH,
            description,
            schema,
            tokens,
            annotations: Annotations::default(),
        })
    }

    /// How many times the visible list has changed (loads, resets): compare to notice a change.
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// Every tool of the session (resolved to its mode view), loaded or not, in declaration order.
    pub fn all(&self) -> Vec<ToolEntry<'_>> {
        self.entries.iter().map(Entry::entry).collect()
    }

    /// The annotations of a tool by name (ToolSearch: none are set).
    pub fn annotations(&self, name: &str) -> Option<Annotations> {
        if (name == TOOL_SEARCH && self.search_description.is_some())
            || (name == CALL_TOOL && self.is_search_and_call())
        {
            return Some(Annotations::default());
        }
        self.lookup(name).map(|i| self.entries[i].annotations())
    }

    /// The session mode it was built with.
    pub fn mode(&self) -> Option<&str> {
        self.mode.as_deref()
    }

    /// The names of every deferred tool, sorted: the list the ToolSearch description carries.
    pub fn deferred(&self) -> Vec<&str> {
        self.catalogue
            .iter()
            .map(|i| self.entries[*i as usize].name())
            .collect()
    }

    /// The loaded tools' names, in load order.
    pub fn loaded(&self) -> Vec<&str> {
        self.state()
            .order
            .iter()
            .map(|i| self.entries[*i as usize].name())
            .collect()
    }

    /// Whether a tool is callable this turn (resident, or deferred and loaded; ToolSearch while
    /// offered).
    pub fn is_callable(&self, name: &str) -> bool {
        if name == TOOL_SEARCH {
            return self.search_description.is_some();
        }
        if name == CALL_TOOL {
            return self.is_search_and_call();
        }
        match self.lookup(name) {
            Some(i) => {
                self.entries[i].resident || self.state().loaded[i] || self.is_search_and_call()
            }
            None => false,
        }
    }

    /// The static definition of a tool (`None` for toolkit tools and unknown names).
    pub fn tool_def(&self, name: &str) -> Option<&'static ToolDef> {
        match self.entries[self.lookup(name)?].kind {
            Kind::Static { def, .. } => Some(def),
            Kind::Dynamic(_) => None,
        }
    }

    /// The view a static tool is resolved to under the session mode.
    pub fn view(&self, name: &str) -> Option<&'static View> {
        match self.entries[self.lookup(name)?].kind {
            Kind::Static { view, .. } => Some(view),
            Kind::Dynamic(_) => None,
        }
    }

    /// An entry by exact name.
    fn lookup(&self, name: &str) -> Option<usize> {
        self.by_name
            .binary_search_by(|i| self.entries[*i as usize].name().cmp(name))
            .ok()
            .map(|k| self.by_name[k] as usize)
    }

    /// An entry by name, ignoring ASCII case (`select:` is forgiving about case).
    fn lookup_ci(&self, name: &str) -> Option<usize> {
        self.lookup(name).or_else(|| {
            let lowered = name.to_lowercase();
            self.lookup(&lowered)
                .or_else(|| self.entries.iter().position(|e| e.name_lc() == lowered))
        })
    }

    fn state(&self) -> MutexGuard<'_, LoadState> {
        // The state is updated in single steps that cannot panic halfway, so a poisoned lock
        // still holds consistent data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state_mut(&mut self) -> &mut LoadState {
        self.state.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// Every tool with its resolution, for the egress map.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn check<T: Send + Sync>() {}
    check::<ToolSession>();
}

/// A call's outcome as the scheduler's result under `id`: the output, or a charter error's
/// message with `is_error` (its reader is the model).
fn call_result(
    id: &str,
    outcome: Result<ToolOutput, CharterError>,
) -> crate::scheduler::CallResult {
    match outcome {
        Ok(output) => crate::scheduler::CallResult {
            id: id.to_owned(),
            content: output.text,
            structured: output.structured,
            is_error: false,
        },
        Err(error) => crate::scheduler::CallResult {
            id: id.to_owned(),
            content: error.to_string(),
            structured: None,
            is_error: true,
        },
    }
}
