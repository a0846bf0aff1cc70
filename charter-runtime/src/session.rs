//! `ToolSession` (docs/design.md §4): the tools of one conversation and which of their schemas have been
//! sent, with progressive disclosure through `ToolSearch`.
//!
//! Building a session only reads the tables: the resident/deferred partition compares
//! precomputed sizes, the mode resolves to precomputed views (docs/design.md §5), and the ToolSearch
//! description is the sorted list of deferred names, written once. What changes during a
//! conversation is the loaded set, behind a small mutex, so one session can be shared (`&self`
//! everywhere) by every task serving that conversation.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use serde_json::{Value, json};

use crate::context::CallContext;
use crate::error::{CharterError, DeclarationError};
use crate::mode;
use crate::search::{self, Candidate, Query, SearchIndex, TOOL_SEARCH_SCHEMA};
use crate::table::{Annotations, BoxFuture, Exec, Route, Table, ToolDef, ToolOutput, View};
use crate::tokens::text_tokens;
use crate::validate::{self, Issue, Narrowed, PatternCache};

pub use crate::search::{Ranking, TOOL_SEARCH};
pub use call::{CALL_TOOL, CALL_TOOL_CONCURRENCY, CALL_TOOL_DESCRIPTION, CALL_TOOL_SCHEMA};
pub use catalogue::NAMES_BUDGET_TOKENS;

mod call;
mod catalogue;

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
    /// The keyword ranking (default [`Ranking::Relevance`]; [`Ranking::Classic`] is the docs/design.md §4
    /// scoring, for strict compatibility).
    pub ranking: Ranking,
    /// Who executes HTTP tools (default: a shared `HttpExecutor` when the `http` feature is on).
    pub http: Option<Arc<dyn HttpCaller>>,
    /// With `progressive`, list `ToolSearch` and [`CALL_TOOL`] instead of loading tools: the
    /// list never changes, ToolSearch answers with the found tools' schemas and `CallTool` runs
    /// any tool by name (default false; see `session/call.rs`).
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

/// One tool of the session, resolved to its view.
pub(crate) struct Entry {
    pub(crate) kind: Kind,
    /// Offered from the first turn (otherwise deferred until ToolSearch loads it).
    pub(crate) resident: bool,
    /// Pins and from-context fields the deployment added, with the schema spliced without them.
    pub(crate) narrowing: Option<Box<Narrowing>>,
}

pub(crate) enum Kind {
    Static {
        def: &'static ToolDef,
        view: &'static View,
    },
    /// Boxed: toolkit tools are rare and static entries stay small (the session copies 700 of
    /// them per build).
    Dynamic(Box<Dynamic>),
}

pub(crate) struct Dynamic {
    kit: Arc<dyn Toolkit>,
    pub(crate) tool: DynamicTool,
    name_lc: Box<str>,
    description_lc: Box<str>,
}

/// What the deployment took out of the model's hands for one tool.
#[derive(Clone)]
pub(crate) struct Narrowing {
    pub(crate) pins: Vec<(&'static str, Value)>,
    pub(crate) context: Vec<(&'static str, String)>,
    schema: String,
    tokens: u32,
}

impl Entry {
    pub(crate) fn name(&self) -> &str {
        match &self.kind {
            Kind::Static { def, .. } => def.name,
            Kind::Dynamic(d) => &d.tool.name,
        }
    }

    fn name_lc(&self) -> &str {
        match &self.kind {
            Kind::Static { def, .. } => def.name,
            Kind::Dynamic(d) => &d.name_lc,
        }
    }

    fn description(&self) -> &str {
        match &self.kind {
            Kind::Static { def, .. } => def.description,
            Kind::Dynamic(d) => &d.tool.description,
        }
    }

    fn candidate(&self) -> Candidate<'_> {
        match &self.kind {
            Kind::Static { def, .. } => Candidate {
                name: def.name,
                pack: def.pack,
                tool: def.tool,
                description: def.search.description_lc,
                hints: def.search.hints,
                terms: def.search.terms(),
            },
            Kind::Dynamic(d) => Candidate {
                name: &d.name_lc,
                pack: d.kit.pack(),
                tool: d
                    .name_lc
                    .strip_prefix(d.kit.pack())
                    .and_then(|t| t.strip_prefix('_'))
                    .unwrap_or(&d.name_lc),
                description: &d.description_lc,
                hints: &[],
                terms: None,
            },
        }
    }

    pub(crate) fn schema(&self) -> &str {
        match (&self.narrowing, &self.kind) {
            (Some(n), _) => &n.schema,
            (None, Kind::Static { view, .. }) => view.schema,
            (None, Kind::Dynamic(d)) => &d.tool.schema,
        }
    }

    fn tokens(&self) -> u32 {
        match (&self.narrowing, &self.kind) {
            (Some(n), _) => n.tokens,
            (None, Kind::Static { view, .. }) => view.tokens,
            (None, Kind::Dynamic(d)) => d.tool.tokens,
        }
    }

    fn annotations(&self) -> Annotations {
        match &self.kind {
            Kind::Static { def, .. } => def.annotations,
            Kind::Dynamic(d) => d.tool.annotations,
        }
    }

    fn entry(&self) -> ToolEntry<'_> {
        ToolEntry {
            name: self.name(),
            description: self.description(),
            schema: self.schema(),
            tokens: self.tokens(),
            annotations: self.annotations(),
        }
    }

    fn narrowed(&self, field: &str) -> Option<&'static str> {
        let n = self.narrowing.as_ref()?;
        if n.pins.iter().any(|(f, _)| *f == field) {
            Some("pinned")
        } else if n.context.iter().any(|(f, _)| *f == field) {
            Some("filled from context")
        } else {
            None
        }
    }
}

/// The loaded set: the only part of a session that changes during a conversation.
struct LoadState {
    /// Entry indices in load order.
    order: Vec<u32>,
    /// Whether each entry is loaded, by entry index.
    loaded: Vec<bool>,
    generation: u64,
}

/// A ToolSearch answer: what it loaded and, when something was missing, what exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchAnswer {
    /// The names now callable because of this query, in rank (or request) order; tools already
    /// loaded or resident that the query named are included.
    pub loaded: Vec<String>,
    /// `select:` names that do not exist.
    pub unknown: Vec<String>,
    /// Every tool name of the session, sorted, when names were unknown or nothing matched.
    pub available: Vec<String>,
    /// A sentence for the model.
    pub note: String,
}

impl SearchAnswer {
    /// The JSON the model reads: `loaded`, `note`, and `unknown` / `available` when non-empty.
    pub fn to_json(&self) -> Value {
        let mut out = json!({ "loaded": self.loaded, "note": self.note });
        if !self.unknown.is_empty() {
            out["unknown"] = json!(self.unknown);
        }
        if !self.available.is_empty() {
            out["available"] = json!(self.available);
        }
        out
    }
}

/// The executor for HTTP tools when [`SessionOptions::http`] is `None`: one process-wide
/// [`HttpExecutor`](crate::http::HttpExecutor), built on first use and shared, so every session
/// reuses one connection pool (building a client loads the platform's roots: milliseconds, which
/// a session build must not pay).
#[cfg(feature = "http")]
fn default_http() -> Option<Arc<dyn HttpCaller>> {
    static DEFAULT: std::sync::OnceLock<Option<Arc<dyn HttpCaller>>> = std::sync::OnceLock::new();
    DEFAULT
        .get_or_init(|| match crate::http::HttpExecutor::new() {
            Ok(executor) => Some(Arc::new(executor) as Arc<dyn HttpCaller>),
            Err(error) => {
                tracing::error!(%error, "the default HTTP executor could not be built");
                None
            }
        })
        .clone()
}

/// Without the `http` feature there is no executor unless [`SessionOptions::http`] gives one.
#[cfg(not(feature = "http"))]
fn default_http() -> Option<Arc<dyn HttpCaller>> {
    None
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
    /// A session over these tables with the default options (progressive, threshold 0, no mode).
    pub fn new(tables: &[&'static Table]) -> Result<Self, DeclarationError> {
        Self::with_options(
            tables.iter().map(|t| Source::Table(t)).collect(),
            SessionOptions::default(),
        )
    }

    /// A session over these sources with explicit options.
    ///
    /// Refused with a declaration error: an empty mode label; a tool under whose resolved view a
    /// required field is withheld; two tools with the same qualified name.
    pub fn with_options(
        sources: Vec<Source>,
        options: SessionOptions,
    ) -> Result<Self, DeclarationError> {
        let SessionOptions {
            progressive,
            threshold,
            mode,
            ranking,
            http,
            search_and_call,
        } = options;
        mode::check_label(mode.as_deref())?;
        // At threshold 0 every tool is deferred, however small (docs/design.md §4).
        let resident = |tokens: u32| !progressive || (threshold > 0 && tokens <= threshold);
        let mut kit_generations = Vec::new();
        let mut entries = Vec::with_capacity(
            sources
                .iter()
                .map(|s| match s {
                    Source::Table(t) => t.tools.len(),
                    Source::Tools(t) => t.len(),
                    Source::Toolkit(_) => 0,
                })
                .sum(),
        );
        for source in &sources {
            let tools: &'static [ToolDef] = match source {
                Source::Table(table) => table.tools,
                Source::Tools(tools) => tools,
                Source::Toolkit(kit) => {
                    // Read before the list: a change racing this build leaves the session stale
                    // (refreshed again), never silently current.
                    kit_generations.push(kit.generation());
                    for tool in kit.tools() {
                        entries.push(Entry {
                            resident: resident(tool.tokens),
                            kind: Kind::Dynamic(Box::new(Dynamic {
                                kit: Arc::clone(kit),
                                name_lc: tool.name.to_lowercase().into(),
                                description_lc: tool.description.to_lowercase().into(),
                                tool,
                            })),
                            narrowing: None,
                        });
                    }
                    continue;
                }
            };
            for def in tools {
                let view = mode::resolve_view(def, mode.as_deref())?;
                mode::check_view(def, view)?;
                entries.push(Entry {
                    resident: resident(view.tokens),
                    kind: Kind::Static { def, view },
                    narrowing: None,
                });
            }
        }
        if entries.len() > u32::MAX as usize {
            return Err(DeclarationError::new("a session holds at most 2^32 tools"));
        }
        let by_name = sorted_by_name(&entries);
        for pair in by_name.windows(2) {
            let (a, b) = (&entries[pair[0] as usize], &entries[pair[1] as usize]);
            if a.name() == b.name() {
                return Err(DeclarationError::new(format!(
                    "two tools are both named `{}` (tools #{} and #{} of the session); qualified names must be unique",
                    a.name(),
                    pair[0].min(pair[1]) + 1,
                    pair[0].max(pair[1]) + 1
                )));
            }
        }
        if let Some(e) = entries
            .iter()
            .find(|e| e.name() == TOOL_SEARCH || e.name() == CALL_TOOL)
        {
            return Err(DeclarationError::new(format!(
                "a tool is named `{}`, which is a tool of the session itself",
                e.name()
            )));
        }
        let catalogue: Vec<u32> = if progressive {
            by_name
                .iter()
                .copied()
                .filter(|i| !entries[*i as usize].resident)
                .collect()
        } else {
            Vec::new()
        };
        let search_description = (!catalogue.is_empty()).then(|| {
            catalogue::search_description(&entries, &catalogue, &sources, search_and_call)
        });
        let state = LoadState {
            order: Vec::new(),
            loaded: vec![false; entries.len()],
            generation: 0,
        };
        Ok(ToolSession {
            sources,
            kit_generations,
            progressive,
            threshold,
            search_and_call,
            entries,
            by_name,
            catalogue,
            search_description,
            search_index: OnceLock::new(),
            mode,
            ranking,
            http,
            patterns: PatternCache::new(),
            state: Mutex::new(state),
        })
    }

    /// Fixes a top-level field of a tool to a value: it leaves the model's view and is sent on
    /// every call. Refused when the field does not exist or the session mode withholds it.
    pub fn pin(&mut self, tool: &str, field: &str, value: Value) -> Result<(), DeclarationError> {
        let (i, def, view, f) = self.narrowable(tool, field, "pinned")?;
        let value = validate::validate_field_value(def.name, f, view, value, &self.patterns)
            .map_err(|problems| {
                DeclarationError::new(format!(
                    "the pin of `{}` on tool `{}` is refused: {problems}",
                    f.name, def.name
                ))
            })?;
        self.narrow(i, def, view, |n| n.pins.push((f.name, value)))
    }

    /// Fills a top-level field of a tool from `CallContext::values[key]` on every call: it leaves
    /// the model's view and the model can never set it.
    pub fn from_context(
        &mut self,
        tool: &str,
        field: &str,
        key: &str,
    ) -> Result<(), DeclarationError> {
        if key.trim().is_empty() {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: field `{field}` is filled from an empty context key; name the CallContext value"
            )));
        }
        let (i, def, view, f) = self.narrowable(tool, field, "filled from context")?;
        let key = key.to_owned();
        self.narrow(i, def, view, |n| n.context.push((f.name, key)))
    }

    /// Finds a top-level field the deployment may take out of the model's hands.
    fn narrowable(
        &self,
        tool: &str,
        field: &str,
        what: &str,
    ) -> Result<
        (
            usize,
            &'static ToolDef,
            &'static View,
            &'static crate::table::Field,
        ),
        DeclarationError,
    > {
        let i = self.lookup(tool).ok_or_else(|| {
            DeclarationError::new(format!("no tool named `{tool}` in this session"))
        })?;
        let entry = &self.entries[i];
        let Kind::Static { def, view } = entry.kind else {
            return Err(DeclarationError::new(format!(
                "tool `{tool}` comes from a toolkit: only fields of compiled tables can be {what}"
            )));
        };
        if field.contains(['.', '/']) {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: `{field}` is not a top-level field; only top-level fields can be {what}"
            )));
        }
        let Some(f) = def.input.fields.iter().find(|f| f.name == field) else {
            let names: Vec<&str> = def.input.fields.iter().map(|f| f.name).collect();
            return Err(DeclarationError::new(format!(
                "tool `{tool}` has no top-level field `{field}`; its fields are: {}",
                names.join(", ")
            )));
        };
        if let Some(reason) = mode::withheld_reason(f, view) {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: field `{field}` cannot be {what}: under {} it is withheld ({reason})",
                mode::describe_view(view)
            )));
        }
        if let Some(already) = entry.narrowed(field) {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: field `{field}` is already {already}"
            )));
        }
        Ok((i, def, view, f))
    }

    /// Applies one narrowing and re-splices the tool's schema without every narrowed field.
    fn narrow(
        &mut self,
        i: usize,
        def: &'static ToolDef,
        view: &'static View,
        add: impl FnOnce(&mut Narrowing),
    ) -> Result<(), DeclarationError> {
        let mut next = match &self.entries[i].narrowing {
            Some(n) => Narrowing {
                pins: n.pins.clone(),
                context: n.context.clone(),
                schema: String::new(),
                tokens: 0,
            },
            None => Narrowing {
                pins: Vec::new(),
                context: Vec::new(),
                schema: String::new(),
                tokens: 0,
            },
        };
        add(&mut next);
        let removed: Vec<&str> = next
            .pins
            .iter()
            .map(|(f, _)| *f)
            .chain(next.context.iter().map(|(f, _)| *f))
            .collect();
        next.schema = mode::splice_schema(def.name, view, &removed)?;
        next.tokens = text_tokens(&next.schema);
        self.entries[i].narrowing = Some(Box::new(next));
        self.state_mut().generation += 1;
        Ok(())
    }

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

    /// Runs one ToolSearch query, loading what it finds (see docs/design.md §4 for the query forms).
    /// `max_results` limits keyword matches (default 5) and is ignored by `select:`.
    pub fn search(&self, query: &str, max_results: Option<usize>) -> SearchAnswer {
        let limit = match max_results {
            None | Some(0) => search::DEFAULT_MAX_RESULTS,
            Some(n) => n,
        };
        let mut loaded = Vec::new();
        let mut unknown = Vec::new();
        let mut to_load: Vec<u32> = Vec::new();
        let parsed = Query::parse(query);
        match &parsed {
            Query::Select(names) => {
                for name in names {
                    match self.lookup_ci(name) {
                        Some(i) => {
                            if !loaded.iter().any(|l: &String| l == self.entries[i].name()) {
                                loaded.push(self.entries[i].name().to_owned());
                                to_load.push(i as u32);
                            }
                        }
                        None => unknown.push(name.clone()),
                    }
                }
            }
            Query::Keywords { required, terms } => {
                // A host's own query past the limit ranks by its first terms (ToolSearch calls
                // from the model are refused before this).
                let required = &required[..required.len().min(search::MAX_QUERY_TERMS)];
                let terms = &terms[..terms.len().min(search::MAX_QUERY_TERMS - required.len())];
                let candidate = |k: usize| self.entries[self.catalogue[k] as usize].candidate();
                let index = self.search_index.get_or_init(|| {
                    SearchIndex::for_ranking(self.ranking, self.catalogue.len(), candidate)
                });
                let hits = self.ranking.rank(index, required, terms, limit);
                for k in hits {
                    let i = self.catalogue[k];
                    loaded.push(self.entries[i as usize].name().to_owned());
                    to_load.push(i);
                }
            }
            Query::Empty => {}
        }
        if !self.is_search_and_call() {
            self.load(&to_load);
        }
        let show_available = !unknown.is_empty() || loaded.is_empty();
        let note = match (&parsed, loaded.len(), unknown.len()) {
            (Query::Empty, ..) => "The query has no terms, so it matches nothing. Send `select:` with exact names, \
                or keywords; every name that exists is listed under `available`."
                .to_owned(),
            (_, 0, 0) => format!(
                "No tool matched `{}`. Try other keywords, or `select:` with exact names from `available`.",
                validate::clip(query.trim(), 200)
            ),
            (_, 0, _) => "None of these names exist, so nothing was loaded. Use exact names from `available`.".to_owned(),
            (_, n, u) if self.is_search_and_call() => {
                let mut note = format!(
                    "{n} tool{} found, each with its inputSchema: call {} with {CALL_TOOL} \
                     {{\"name\", \"arguments\"}}.",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "it" } else { "them" },
                );
                if u > 0 {
                    note.push_str(" The names under `unknown` do not exist; `available` lists those that do.");
                }
                note
            }
            (_, n, u) => {
                let mut note = format!(
                    "{n} tool{} now callable with {} full schema{}: call {} directly.",
                    if n == 1 { " is" } else { "s are" },
                    if n == 1 { "its" } else { "their" },
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "it" } else { "them" },
                );
                if u > 0 {
                    note.push_str(" The names under `unknown` do not exist; `available` lists those that do.");
                }
                note
            }
        };
        let available = if show_available {
            self.by_name
                .iter()
                .map(|i| self.entries[*i as usize].name().to_owned())
                .collect()
        } else {
            Vec::new()
        };
        SearchAnswer {
            loaded,
            unknown,
            available,
            note,
        }
    }

    /// Runs a ToolSearch call as the model sent it (`{query, max_results?}`), refusing malformed
    /// arguments with a validation error written for the model.
    pub fn tool_search_call(&self, arguments: &Value) -> Result<SearchAnswer, CharterError> {
        let parsed;
        let arguments = match arguments {
            Value::String(text) => {
                parsed = serde_json::from_str::<Value>(text).unwrap_or_else(|_| arguments.clone());
                &parsed
            }
            other => other,
        };
        let mut issues = Vec::new();
        let Some(map) = arguments.as_object() else {
            issues.push(Issue {
                path: String::new(),
                expected: "an object {\"query\": string, \"max_results\"?: integer}".into(),
                got: validate::got(arguments),
            });
            return Err(CharterError::Validation(validate::message(
                TOOL_SEARCH,
                &issues,
            )));
        };
        validate::unexpected_keys(
            map,
            &["query", "max_results"],
            "",
            "ToolSearch takes only query and max_results",
            &mut issues,
        );
        let query = match map.get("query") {
            Some(Value::String(q)) => Some(q.as_str()),
            Some(other) => {
                issues.push(Issue {
                    path: "/query".into(),
                    expected: "string".into(),
                    got: validate::got(other),
                });
                None
            }
            None => {
                issues.push(Issue {
                    path: "/query".into(),
                    expected: "string (required)".into(),
                    got: "nothing".into(),
                });
                None
            }
        };
        let parsed = query.map(Query::parse);
        let is_select = matches!(parsed, Some(Query::Select(_)));
        if let Some(Query::Keywords { required, terms }) = &parsed
            && required.len() + terms.len() > search::MAX_QUERY_TERMS
        {
            issues.push(Issue {
                path: "/query".into(),
                expected: format!(
                    "at most {} keywords; use fewer, more specific words, or `select:` with exact names",
                    search::MAX_QUERY_TERMS
                ),
                got: format!("{} keywords", required.len() + terms.len()),
            });
        }
        let limit = match search::max_results(map.get("max_results")) {
            Ok(n) => Some(n),
            Err(_) if is_select => None,
            Err(_) => {
                issues.push(Issue {
                    path: "/max_results".into(),
                    expected: format!(
                        "a positive whole number; omit max_results to load up to {} matches",
                        search::DEFAULT_MAX_RESULTS
                    ),
                    got: validate::got(&map["max_results"]),
                });
                None
            }
        };
        match query {
            Some(query) if issues.is_empty() => Ok(self.search(query, limit)),
            _ => Err(CharterError::Validation(validate::message(
                TOOL_SEARCH,
                &issues,
            ))),
        }
    }

    /// Routes one call: ToolSearch loads and answers JSON; a visible tool is validated and
    /// executed; anything else is a validation error written for the model.
    pub fn dispatch<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            let is_search = name == TOOL_SEARCH && self.search_description.is_some();
            let is_call = name == CALL_TOOL && self.is_search_and_call();
            // Static tools are measured by validation; the rest before anything reads them.
            let measured = is_search
                || is_call
                || self
                    .lookup(name)
                    .is_some_and(|i| matches!(self.entries[i].kind, Kind::Dynamic { .. }));
            if measured && let Err(problem) = validate::check_limits(&arguments) {
                return Err(CharterError::Validation(validate::message_line(
                    name, &problem,
                )));
            }
            if is_search && self.is_search_and_call() {
                return self
                    .tool_search_call(&arguments)
                    .map(|answer| ToolOutput::text(self.found_json(&answer)));
            }
            if is_search {
                return self
                    .tool_search_call(&arguments)
                    .map(|answer| ToolOutput::json(answer.to_json()));
            }
            if is_call {
                return self.call_tool_call(arguments, ctx).await;
            }
            let Some(i) = self.lookup(name) else {
                return Err(CharterError::Validation(self.unknown_tool(name)));
            };
            if !self.is_callable(name) {
                return Err(CharterError::Validation(format!(
                    "Tool `{name}` is not loaded yet. Load it by calling {TOOL_SEARCH} with \
                     {{\"query\": \"select:{name}\"}}, then call it again."
                )));
            }
            self.execute(i, name, arguments, ctx).await
        })
    }

    /// Validates and runs entry `i` (named `name`), whatever made it callable.
    fn execute<'a>(
        &'a self,
        i: usize,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            let entry = &self.entries[i];
            match &entry.kind {
                Kind::Static { def, view } => {
                    let narrowed: Vec<(&str, Narrowed<'_>)> = match &entry.narrowing {
                        Some(n) => n
                            .pins
                            .iter()
                            .map(|(f, v)| (*f, Narrowed::Pinned(v)))
                            .chain(
                                n.context
                                    .iter()
                                    .map(|(f, k)| (*f, Narrowed::Context(k.as_str()))),
                            )
                            .collect(),
                        None => Vec::new(),
                    };
                    let arguments = validate::prepare_arguments(
                        def,
                        view,
                        &narrowed,
                        arguments,
                        ctx,
                        &self.patterns,
                    )?;
                    match def.exec {
                        Exec::Rust(handler) => handler(arguments, ctx).await,
                        Exec::Http(route) => match self.http.clone().or_else(default_http) {
                            Some(http) => http.call(def, route, arguments, ctx).await,
                            None => Err(CharterError::Transport(format!(
                                "no HTTP executor is configured, so `{name}` cannot be sent; \
                                 set SessionOptions::http"
                            ))),
                        },
                    }
                }
                // The remote server validates its own tools.
                Kind::Dynamic(d) => d.kit.call(&d.tool.name, arguments, ctx).await,
            }
        })
    }

    /// The local bridge: runs a batch of the model's calls through the scheduler, concurrently
    /// only when every call is of a read-only and idempotent tool (ToolSearch never is).
    ///
    /// Each call goes through [`dispatch`](Self::dispatch); a charter error becomes an
    /// `is_error` result carrying its message (written for the model), so one answer comes back
    /// per call, in the calls' order, under each call's id. An unknown or not-yet-loaded name has
    /// no annotations here, so it makes the batch serial: a ToolSearch earlier in the same batch
    /// then loads a tool before a later call of it runs.
    ///
    /// At most [`MAX_BATCH_CALLS`] calls of one batch run; each call past that gets an error
    /// result (under its own id, in its place) telling the model to send it again next turn, so
    /// nothing is silently dropped and one turn cannot queue unbounded work.
    pub async fn execute_tool_calls(
        &self,
        calls: &[crate::scheduler::ToolCall],
        ctx: &CallContext,
        concurrency: usize,
    ) -> Vec<crate::scheduler::CallResult> {
        use crate::scheduler::{Batch, CallResult, ToolCall, concurrency_safe_annotations};

        let (run, over) = calls.split_at(calls.len().min(MAX_BATCH_CALLS));
        let calls = run;
        let refused = over.iter().enumerate().map(|(k, call)| CallResult {
            id: call.id.clone(),
            content: format!(
                "Not run: one turn may make at most {MAX_BATCH_CALLS} tool calls and this was call #{} of {}. \
                 Call `{}` again in the next turn if you still need it.",
                MAX_BATCH_CALLS + 1 + k,
                MAX_BATCH_CALLS + over.len(),
                validate::clip(&call.name, 64),
            ),
            structured: None,
            is_error: true,
        });

        let concurrent = |call: &ToolCall| {
            if call.name == CALL_TOOL && self.is_search_and_call() {
                return self.call_tool_concurrent(&call.arguments);
            }
            call.name != TOOL_SEARCH
                && self.is_callable(&call.name)
                && self
                    .annotations(&call.name)
                    .is_some_and(|a| concurrency_safe_annotations(&a))
        };
        let mut results = Batch::from_calls(calls, concurrent, move |call| answer(self, call, ctx))
            .run(concurrency)
            .await;
        results.extend(refused);
        results
    }

    /// Clears the loaded set so the session can serve another conversation.
    pub fn reset(&self) {
        let mut state = self.state();
        if !state.order.is_empty() {
            let LoadState {
                order,
                loaded,
                generation,
            } = &mut *state;
            for i in order.drain(..) {
                loaded[i as usize] = false;
            }
            *generation += 1;
        }
    }

    /// Whether a toolkit's list changed since this session read it (its
    /// [`Toolkit::generation`] moved): [`refreshed`](Self::refreshed) then gives the session
    /// that lists what the toolkits offer now.
    pub fn is_stale(&self) -> bool {
        self.sources
            .iter()
            .filter_map(|source| match source {
                Source::Toolkit(kit) => Some(kit.generation()),
                _ => None,
            })
            .ne(self.kit_generations.iter().copied())
    }

    /// The same session over the toolkits' current lists (an MCP server changed its tools).
    ///
    /// The order rules of docs/design.md §4 still hold across the change: loaded tools keep their load
    /// order (a tool the server dropped leaves the list, the rest stay loaded), a new tool joins
    /// the deferred catalogue (or is resident under the threshold), and pins and from-context
    /// fields carry over. The ToolSearch description is rewritten to the new catalogue: the list
    /// changed, so this is a new prefix for the provider's prompt cache anyway. The generation
    /// moves on, so a caller comparing generations notices the change.
    ///
    /// A session is shared by `&self`, so this builds a new one for the holder to swap in;
    /// [`refresh`](Self::refresh) does it in place.
    pub fn refreshed(&self) -> Result<ToolSession, DeclarationError> {
        let mut next = ToolSession::with_options(
            self.sources.clone(),
            SessionOptions {
                progressive: self.progressive,
                threshold: self.threshold,
                mode: self.mode.clone(),
                ranking: self.ranking,
                http: self.http.clone(),
                search_and_call: self.search_and_call,
            },
        )?;
        for entry in &self.entries {
            if let Some(narrowing) = &entry.narrowing
                && let Some(i) = next.lookup(entry.name())
            {
                next.entries[i].narrowing = Some(narrowing.clone());
            }
        }
        let state = self.state();
        let carried: Vec<u32> = state
            .order
            .iter()
            .filter_map(|i| next.lookup(self.entries[*i as usize].name()))
            .map(|i| i as u32)
            .collect();
        let generation = state.generation + 1;
        drop(state);
        next.load(&carried);
        next.state_mut().generation = generation;
        Ok(next)
    }

    /// Rebuilds this session in place when a toolkit's list changed ([`is_stale`](Self::is_stale));
    /// answers whether it did. See [`refreshed`](Self::refreshed) for what carries over.
    pub fn refresh(&mut self) -> Result<bool, DeclarationError> {
        if !self.is_stale() {
            return Ok(false);
        }
        *self = self.refreshed()?;
        Ok(true)
    }

    /// Loads deferred tools (resident ones and repeats are skipped); one generation per change.
    fn load(&self, indices: &[u32]) {
        let mut state = self.state();
        let mut changed = false;
        for &i in indices {
            if !self.entries[i as usize].resident && !state.loaded[i as usize] {
                state.loaded[i as usize] = true;
                state.order.push(i);
                changed = true;
            }
        }
        if changed {
            state.generation += 1;
        }
    }

    fn unknown_tool(&self, name: &str) -> String {
        let state = self.state();
        let mut callable: Vec<&str> = self
            .entries
            .iter()
            .filter(|e| e.resident)
            .map(Entry::name)
            .collect();
        if state.order.len() < self.catalogue.len() {
            callable.push(TOOL_SEARCH);
        }
        callable.extend(state.order.iter().map(|i| self.entries[*i as usize].name()));
        let loadable: Vec<&str> = self
            .catalogue
            .iter()
            .filter(|i| !state.loaded[**i as usize])
            .map(|i| self.entries[*i as usize].name())
            .collect();
        let mut message = format!(
            "Unknown tool `{}`. Callable now: {}.",
            validate::clip(name, 100),
            if callable.is_empty() {
                "none".to_owned()
            } else {
                callable.join(", ")
            }
        );
        if !loadable.is_empty() {
            message.push_str(&format!(
                " Load one of these first with {TOOL_SEARCH} (`select:<name>`): {}.",
                loadable.join(", ")
            ));
        }
        message
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

/// One call of a local batch, answered as the scheduler's provider-neutral result: the tool's
/// output, or a charter error's message with `is_error` (its reader is the model).
fn answer<'a>(
    session: &'a ToolSession,
    call: &'a crate::scheduler::ToolCall,
    ctx: &'a CallContext,
) -> BoxFuture<'a, crate::scheduler::CallResult> {
    Box::pin(async move {
        let outcome = session
            .dispatch(&call.name, call.arguments.clone(), ctx)
            .await;
        call_result(&call.id, outcome)
    })
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

/// Entry indices sorted by qualified name.
///
/// Names are `<pack>_<tool>` and a pack holds no `_`, so the names of one pack are contiguous
/// in sorted order: rank the few packs once, then sort by (pack rank, tool), comparing short
/// keys without the shared prefix. Anything else (toolkit tools, hand-built names) falls back to
/// comparing whole names.
fn sorted_by_name(entries: &[Entry]) -> Vec<u32> {
    let generic = || {
        let mut by_name: Vec<u32> = (0..entries.len() as u32).collect();
        by_name
            .sort_unstable_by(|a, b| entries[*a as usize].name().cmp(entries[*b as usize].name()));
        by_name
    };
    let mut packs: Vec<&'static str> = Vec::new();
    // (pack rank, the tool name's first 8 bytes big-endian, the tool name, entry index): most
    // comparisons are decided by the two integers.
    let mut keys: Vec<(u32, u64, &'static str, u32)> = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let Kind::Static { def, .. } = entry.kind else {
            return generic();
        };
        let qualified = def.name.len() == def.pack.len() + 1 + def.tool.len()
            && def.name.starts_with(def.pack)
            && def.name.as_bytes()[def.pack.len()] == b'_'
            && def.name.ends_with(def.tool)
            && !def.pack.contains('_');
        if !qualified {
            return generic();
        }
        let pack = match packs.iter().rposition(|p| *p == def.pack) {
            Some(p) => p,
            None => {
                packs.push(def.pack);
                packs.len() - 1
            }
        };
        let mut prefix = [0u8; 8];
        let n = def.tool.len().min(8);
        prefix[..n].copy_from_slice(&def.tool.as_bytes()[..n]);
        keys.push((pack as u32, u64::from_be_bytes(prefix), def.tool, i as u32));
    }
    let mut order: Vec<u32> = (0..packs.len() as u32).collect();
    let with_sep = |p: &str| p.bytes().chain(std::iter::once(b'_')).collect::<Vec<u8>>();
    order.sort_by_cached_key(|p| with_sep(packs[*p as usize]));
    let mut rank = vec![0u32; packs.len()];
    for (r, p) in order.iter().enumerate() {
        rank[*p as usize] = r as u32;
    }
    for key in &mut keys {
        key.0 = rank[key.0 as usize];
    }
    // Zero padding sorts a shorter name first, as the byte order does.
    keys.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| a.2.cmp(b.2)));
    keys.into_iter().map(|k| k.3).collect()
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn check<T: Send + Sync>() {}
    check::<ToolSession>();
}
