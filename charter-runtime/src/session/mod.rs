//! `ToolSession` (docs/design.md §4): the tools of one conversation and which of their schemas have been
//! sent, with progressive disclosure through `ToolSearch`.
//!
//! Building a session only reads the tables: the resident/deferred partition compares
//! precomputed sizes, the mode resolves to precomputed views (docs/design.md §5), and the ToolSearch
//! description is the sorted list of deferred names, written once. What changes during a
//! conversation is the loaded set, behind a small mutex, so one session can be shared (`&self`
//! everywhere) by every task serving that conversation.
//!
//! A session is two parts: `tools` (what executes: every tool resolved to its view, looked up by
//! name and run) and `disclosure` (what the model is shown, and how: the [`Disclosure`] form, the
//! ToolSearch catalogue, the loaded set).
//!
//! - `build`: building a session from its sources, and refreshing it when a toolkit changes.
//! - `narrow`: pins and from-context fields the deployment takes out of the model's hands.
//! - `search`: ToolSearch: queries, loading, and the answer the model reads.
//! - `dispatch`: routing one call, and the local bridge's batches.
//! - [`call`]: search-and-call, `CallTool` and ToolSearch answers with schemas.
//! - `code`: code mode, `RunCode` and ToolSearch answers with signatures.
//! - `catalogue`: the ToolSearch description (names, or one line per pack).
//! - `entry`: one tool of the session resolved to its view.
//! - `tools`: what executes; `disclosure`: what is shown, and how.

mod build;
#[doc(hidden)]
pub mod call;
mod catalogue;
mod code;
mod disclosure;
mod dispatch;
mod entry;
mod narrow;
mod search;
mod tools;

use std::sync::Arc;

use serde_json::Value;

use crate::context::CallContext;
use crate::dialect::Dialect;
use crate::error::CharterError;
use crate::search::TOOL_SEARCH_SCHEMA;
use crate::table::{Annotations, BoxFuture, Table, ToolDef, ToolOutput, View};
use crate::tokens::text_tokens;

use disclosure::Disclosed;
pub use disclosure::Disclosure;
pub(crate) use entry::{Entry, Kind};
pub use search::SearchAnswer;
use tools::Tools;

#[cfg(feature = "code")]
pub use crate::code::{CodeLimits, CodeRunner};
pub use crate::search::{Ranking, TOOL_SEARCH};
pub use crate::table::HttpCaller;
pub use call::{
    CALL_TOOL, CALL_TOOL_CONCURRENCY, CALL_TOOL_DESCRIPTION, CALL_TOOL_SCHEMA,
    CALL_TOOL_SCHEMA_GEMINI,
};
pub use catalogue::NAMES_BUDGET_TOKENS;
pub use code::{RUN_CODE, RUN_CODE_DESCRIPTION, RUN_CODE_SCHEMA, RUN_CODE_SCHEMA_GEMINI};

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
    /// The dialect `schema` is written in: the session's for compiled tools and its own tools
    /// (those are portable in every dialect but Gemini), [`Dialect::Mcp`] for a toolkit's (its
    /// server's text, as it came). A loop reads it to mark OpenAI strict definitions.
    pub dialect: Dialect,
    /// What the tool answers, when its table declares it (MCP's `outputSchema`); `None` for the
    /// session's own tools, a toolkit's and a tool without a declared result.
    pub output: Option<&'static crate::table::OutputSchema>,
}

/// A schema text with its `json_tokens`, for `const` blocks.
const fn sized(text: &'static str) -> (&'static str, u32) {
    (text, text_tokens(text))
}

/// Options for [`ToolSession::with_options`].
///
/// Built from [`SessionOptions::new`] with the `with_*` methods, each option defaulting as its
/// field says: the struct is `#[non_exhaustive]`, so an option added later gets a `with_*` and a
/// default, and every caller keeps compiling. The fields stay readable.
///
/// ```
/// use charter_runtime::{Dialect, Disclosure, SessionOptions, ToolSession};
///
/// let options = SessionOptions::new()
///     .with_disclosure(Disclosure::SearchAndCall)
///     .with_threshold(200)
///     .with_mode("pro")
///     .with_dialect(Dialect::Gemini);
/// assert_eq!(options.mode.as_deref(), Some("pro"));
///
/// let session = ToolSession::with_options(Vec::new(), options).unwrap();
/// assert_eq!(session.dialect(), Dialect::Gemini);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct SessionOptions {
    /// How the tools reach the model (default [`Disclosure::ListChanged`]: ToolSearch, and the
    /// tools it loads join the list).
    pub disclosure: Disclosure,
    /// In progressive forms, tools whose schema is at most this size stay resident (default 0:
    /// every tool deferred, however small the pack).
    pub threshold: u32,
    /// The session mode (a tier, a region, an A/B arm), resolved once here.
    pub mode: Option<String>,
    /// The keyword ranking (default [`Ranking::Hybrid`]; [`Ranking::Relevance`] is its keyword half
    /// alone, [`Ranking::Classic`] the docs/design.md §4 scoring, for strict compatibility).
    pub ranking: Ranking,
    /// Who executes HTTP tools (default: a shared `HttpExecutor` when the `http` feature is on).
    pub http: Option<Arc<dyn HttpCaller>>,
    /// The dialect every schema the session gives is written in: the visible tools', the
    /// ToolSearch answers', and its own tools' (default [`Dialect::Mcp`], the portable form).
    /// Arguments a model writes in the dialect's shape are read back before validation
    /// ([`Dialect::restore_args`]). A model loop checks that it can send it (docs/dialects.md).
    pub dialect: Dialect,
    /// How code mode runs programs ([`SessionOptions::with_code`]). Not public: a field that only
    /// some feature sets have would change the struct's public shape with a feature.
    #[cfg(feature = "code")]
    code: CodeRunner,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            disclosure: Disclosure::default(),
            threshold: 0,
            mode: None,
            ranking: Ranking::Hybrid,
            http: None,
            dialect: Dialect::Mcp,
            #[cfg(feature = "code")]
            code: CodeRunner::default(),
        }
    }
}

impl SessionOptions {
    /// The defaults ([`SessionOptions::default`]), to start a chain of `with_*` calls from.
    pub fn new() -> SessionOptions {
        SessionOptions::default()
    }

    /// How the tools reach the model ([`SessionOptions::disclosure`]).
    pub fn with_disclosure(mut self, disclosure: Disclosure) -> SessionOptions {
        self.disclosure = disclosure;
        self
    }

    /// The size up to which a tool stays resident in progressive forms
    /// ([`SessionOptions::threshold`]).
    pub fn with_threshold(mut self, threshold: u32) -> SessionOptions {
        self.threshold = threshold;
        self
    }

    /// The session mode ([`SessionOptions::mode`]); an empty label is refused when the session
    /// is built.
    pub fn with_mode(mut self, mode: impl Into<String>) -> SessionOptions {
        self.mode = Some(mode.into());
        self
    }

    /// The keyword ranking ([`SessionOptions::ranking`]).
    pub fn with_ranking(mut self, ranking: Ranking) -> SessionOptions {
        self.ranking = ranking;
        self
    }

    /// Who executes HTTP tools ([`SessionOptions::http`]): a test double, or an executor with
    /// its own client and credentials.
    pub fn with_http(mut self, http: Arc<dyn HttpCaller>) -> SessionOptions {
        self.http = Some(http);
        self
    }

    /// The dialect the session's schemas are written in ([`SessionOptions::dialect`]).
    pub fn with_dialect(mut self, dialect: Dialect) -> SessionOptions {
        self.dialect = dialect;
        self
    }

    /// How code mode ([`Disclosure::Code`]) runs programs: their limits, and how many run at
    /// once (sessions built from clones of one runner share its bound). Default: a runner of
    /// its own with [`CodeLimits::default`].
    #[cfg(feature = "code")]
    pub fn with_code(mut self, code: CodeRunner) -> SessionOptions {
        self.code = code;
        self
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
    /// What executes.
    tools: Tools,
    /// What the model is shown of it, and how.
    disclosure: Disclosed,
}

impl std::fmt::Debug for ToolSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSession")
            .field("tools", &self.tools.entries.len())
            .field("disclosure", &self.disclosure.in_force())
            .field("deferred", &self.disclosure.catalogue().len())
            .field("mode", &self.tools.mode)
            .field("generation", &self.generation())
            .finish_non_exhaustive()
    }
}

impl ToolSession {
    /// What the model sees this turn, in order: resident tools, `ToolSearch` (while anything
    /// deferred is not loaded), then loaded tools in load order; in search-and-call, the
    /// resident tools, `ToolSearch` and `CallTool`, every turn; in code mode, the resident
    /// tools, `ToolSearch` and `RunCode`.
    pub fn visible(&self) -> Vec<ToolEntry<'_>> {
        let state = self.disclosure.state();
        let entries = &self.tools.entries;
        let mut out = Vec::with_capacity(entries.len().min(64) + state.order.len() + 2);
        out.extend(entries.iter().filter(|e| e.resident).map(Entry::entry));
        if self.disclosure.search_listed(&state) {
            out.extend(self.tool_search());
        }
        match self.disclosure.in_force() {
            // The same list every turn: nothing is loaded.
            Disclosure::SearchAndCall => out.extend(self.call_tool()),
            Disclosure::Code => out.extend(self.run_code()),
            Disclosure::ListChanged => {
                out.extend(state.order.iter().map(|i| entries[*i as usize].entry()));
            }
            Disclosure::Eager => {}
        }
        out
    }

    /// The form of disclosure in force: the one asked for while some tool is deferred, eager
    /// when every tool is resident (or the session was built eager).
    pub fn disclosure(&self) -> Disclosure {
        self.disclosure.in_force()
    }

    /// The ToolSearch definition, if this session offers it.
    pub fn tool_search(&self) -> Option<ToolEntry<'_>> {
        let search = self.disclosure.search.as_ref()?;
        let (schema, tokens) = match self.disclosure.in_force() {
            Disclosure::SearchAndCall => self.own_schema(
                const { sized(call::SEARCH_AND_CALL_SCHEMA) },
                const { sized(call::SEARCH_AND_CALL_SCHEMA_GEMINI) },
            ),
            Disclosure::Code => self.own_schema(
                const { sized(code::CODE_SEARCH_SCHEMA) },
                const { sized(code::CODE_SEARCH_SCHEMA_GEMINI) },
            ),
            Disclosure::Eager | Disclosure::ListChanged => self.own_schema(
                const { sized(TOOL_SEARCH_SCHEMA) },
                const { sized(crate::search::TOOL_SEARCH_SCHEMA_GEMINI) },
            ),
        };
        Some(ToolEntry {
            name: TOOL_SEARCH,
            description: &search.description,
            schema,
            tokens,
            annotations: Annotations::default(),
            dialect: self.own_dialect(),
            output: None,
        })
    }

    /// The dialect the session's schemas are written in ([`SessionOptions::dialect`]).
    pub fn dialect(&self) -> Dialect {
        self.tools.dialect
    }

    /// The dialect of the session's own tools' schemas.
    fn own_dialect(&self) -> Dialect {
        match self.tools.dialect {
            Dialect::Gemini => Dialect::Gemini,
            _ => Dialect::Mcp,
        }
    }

    /// One of the session's own tools' schemas (ToolSearch, `CallTool`, `RunCode`) with its
    /// size, written by hand in two forms: Gemini's, and the portable one every other dialect
    /// reads (a loop sends these three without OpenAI's `strict`).
    fn own_schema(
        &self,
        portable: (&'static str, u32),
        gemini: (&'static str, u32),
    ) -> (&'static str, u32) {
        match self.tools.dialect {
            Dialect::Gemini => gemini,
            _ => portable,
        }
    }

    /// How many times the visible list has changed (loads, resets): compare to notice a change.
    pub fn generation(&self) -> u64 {
        self.disclosure.state().generation
    }

    /// Every tool of the session (resolved to its mode view), loaded or not, in declaration order.
    pub fn all(&self) -> Vec<ToolEntry<'_>> {
        self.tools.entries.iter().map(Entry::entry).collect()
    }

    /// The annotations of a tool by name (the session's own tools: none are set).
    pub fn annotations(&self, name: &str) -> Option<Annotations> {
        if self.is_own_tool(name) {
            return Some(Annotations::default());
        }
        self.tools
            .lookup(name)
            .map(|i| self.tools.entries[i].annotations())
    }

    /// `output` of a call of tool `name` with `arguments`, fitted to `budget` bytes of text
    /// ([`crate::budget::fit`]): its largest list shortened to what fits, still whole JSON, and
    /// how to get the rest by the tool's pagination. `output` itself when it fits, or when no
    /// shorter list would (the caller cuts it).
    pub fn fit(
        &self,
        name: &str,
        arguments: &serde_json::Value,
        output: crate::ToolOutput,
        budget: usize,
    ) -> crate::ToolOutput {
        let pagination = match self.tools.lookup(name).map(|i| &self.tools.entries[i].kind) {
            Some(entry::Kind::Static { def, .. }) => match def.exec {
                crate::table::Exec::Http(route) => route.pagination.as_ref(),
                _ => None,
            },
            _ => None,
        };
        crate::budget::fit(name, pagination, arguments, output, budget)
    }

    /// What tool `name` answers, when its table declares it (docs/results.md): what an MCP
    /// server's `structuredContent` must conform to. `None` for the session's own tools, a
    /// toolkit's, one without a declared result and an unknown name.
    pub fn output(&self, name: &str) -> Option<&'static crate::table::OutputSchema> {
        if self.is_own_tool(name) {
            return None;
        }
        let i = self.tools.lookup(name)?;
        match &self.tools.entries[i].kind {
            entry::Kind::Static { def, .. } => def.output.schema(),
            entry::Kind::Dynamic(_) => None,
        }
    }

    /// The session mode it was built with.
    pub fn mode(&self) -> Option<&str> {
        self.tools.mode.as_deref()
    }

    /// The names of every deferred tool, sorted: the list the ToolSearch description carries.
    pub fn deferred(&self) -> Vec<&str> {
        self.disclosure
            .catalogue()
            .iter()
            .map(|i| self.tools.entries[*i as usize].name())
            .collect()
    }

    /// The loaded tools' names, in load order.
    pub fn loaded(&self) -> Vec<&str> {
        self.disclosure
            .state()
            .order
            .iter()
            .map(|i| self.tools.entries[*i as usize].name())
            .collect()
    }

    /// Whether a tool is callable this turn (resident, or deferred and loaded; in
    /// search-and-call and code mode, any; the session's own tools while offered).
    pub fn is_callable(&self, name: &str) -> bool {
        if name == TOOL_SEARCH || name == CALL_TOOL || name == RUN_CODE {
            return self.is_own_tool(name);
        }
        match self.tools.lookup(name) {
            Some(i) => {
                self.tools.entries[i].resident
                    || self.disclosure.in_force().calls_any()
                    || self.disclosure.state().loaded[i]
            }
            None => false,
        }
    }

    /// Whether `name` is one of the tools the session itself offers in its form (ToolSearch,
    /// CallTool, RunCode), as opposed to a tool of its sources.
    fn is_own_tool(&self, name: &str) -> bool {
        match name {
            TOOL_SEARCH => self.disclosure.search.is_some(),
            CALL_TOOL => self.is_search_and_call(),
            RUN_CODE => self.is_code_mode(),
            _ => false,
        }
    }

    /// The static definition of a tool (`None` for toolkit tools and unknown names).
    pub fn tool_def(&self, name: &str) -> Option<&'static ToolDef> {
        match self.tools.entries[self.tools.lookup(name)?].kind {
            Kind::Static { def, .. } => Some(def),
            Kind::Dynamic(_) => None,
        }
    }

    /// The view a static tool is resolved to under the session mode.
    pub fn view(&self, name: &str) -> Option<&'static View> {
        match self.tools.entries[self.tools.lookup(name)?].kind {
            Kind::Static { view, .. } => Some(view),
            Kind::Dynamic(_) => None,
        }
    }

    /// Every tool with its resolution, for the egress map.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.tools.entries
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
