//! What a session executes: every tool of its sources resolved to its view under the session
//! mode, looked up by name, and run (validated, then handed to its handler, the HTTP executor
//! or its toolkit), whatever made it callable.

use std::sync::Arc;

use serde_json::Value;

use super::Source;
use super::entry::{Entry, Kind};
use crate::context::CallContext;
use crate::dialect::Dialect;
use crate::error::CharterError;
use crate::table::{BoxFuture, Exec, HttpCaller, ToolOutput};
use crate::validate::{self, Narrowed, PatternCache};

/// Every tool of a session and how its calls run.
pub(crate) struct Tools {
    /// The sources it was built from, so a session can re-read toolkits.
    pub(super) sources: Vec<Source>,
    /// Each toolkit source's [`Toolkit::generation`](super::Toolkit::generation) when its tools
    /// were read, in source order.
    pub(super) kit_generations: Vec<u64>,
    /// Every tool, in declaration order (sources in the order given).
    pub(super) entries: Vec<Entry>,
    /// Entry indices sorted by name: lookup by binary search, and the `available` list.
    pub(super) by_name: Vec<u32>,
    /// The session mode the views were resolved under.
    pub(super) mode: Option<String>,
    /// The dialect schemas are given in and arguments are read back from.
    pub(super) dialect: Dialect,
    /// Who executes HTTP tools (`None`: the shared default executor).
    pub(super) http: Option<Arc<dyn HttpCaller>>,
    pub(super) patterns: PatternCache,
    /// How code mode runs programs.
    #[cfg(feature = "code")]
    pub(super) code: crate::code::CodeRunner,
    /// What a program's global scope holds of these tools, made by the first program.
    #[cfg(feature = "code")]
    pub(super) bindings: std::sync::OnceLock<Arc<crate::code::Bindings>>,
}

/// The executor for HTTP tools when [`SessionOptions::http`](super::SessionOptions::http) is
/// `None`: the process-wide [`LazyHttp`](crate::http::LazyHttp), built on the first HTTP call and
/// shared, so every session reuses one connection pool and none pays for TLS setup when built.
#[cfg(feature = "http")]
fn default_http() -> Option<Arc<dyn HttpCaller>> {
    Some(crate::http::LazyHttp::shared())
}

/// Without the `http` feature there is no executor unless
/// [`SessionOptions::http`](super::SessionOptions::http) gives one.
#[cfg(not(feature = "http"))]
fn default_http() -> Option<Arc<dyn HttpCaller>> {
    None
}

impl Tools {
    /// An entry by exact name.
    pub(super) fn lookup(&self, name: &str) -> Option<usize> {
        self.by_name
            .binary_search_by(|i| self.entries[*i as usize].name().cmp(name))
            .ok()
            .map(|k| self.by_name[k] as usize)
    }

    /// An entry by name, ignoring ASCII case (`select:` is forgiving about case).
    pub(super) fn lookup_ci(&self, name: &str) -> Option<usize> {
        self.lookup(name).or_else(|| {
            let lowered = name.to_lowercase();
            self.lookup(&lowered)
                .or_else(|| self.entries.iter().position(|e| e.name_lc() == lowered))
        })
    }

    /// Whether a toolkit's list changed since these tools were read.
    pub(super) fn is_stale(&self) -> bool {
        self.sources
            .iter()
            .filter_map(|source| match source {
                Source::Toolkit(kit) => Some(kit.generation()),
                _ => None,
            })
            .ne(self.kit_generations.iter().copied())
    }

    /// Validates and runs entry `i` (named `name`), whatever made it callable.
    pub(super) fn execute<'a>(
        &'a self,
        i: usize,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            let entry = &self.entries[i];
            match &entry.kind {
                Kind::Static { def, view, dialect } => {
                    // Arguments written in the dialect's shape (nulls for absent, key/value
                    // lists for maps) are read back to the portable shape validation knows.
                    let arguments = dialect.restore_args(def, view, arguments);
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

    /// Up to `n` names closest to `name`: by edit distance (a misspelt or singular name finds
    /// its tool first), name parts in common breaking near-ties.
    pub(super) fn closest_names(&self, name: &str, n: usize) -> Vec<&str> {
        let wanted = name.to_lowercase();
        let words: Vec<&str> = wanted.split(['_', '-', ' ', '.']).collect();
        let mut scored: Vec<(f64, &str)> = self
            .entries
            .iter()
            .filter_map(|e| {
                let candidate = e.name();
                let lower = candidate.to_lowercase();
                let shared = lower.split('_').filter(|p| words.contains(p)).count();
                let similarity = strsim::normalized_levenshtein(&wanted, &lower);
                let score = similarity + 0.05 * shared as f64;
                (similarity >= 0.5 || shared >= 2).then_some((score, candidate))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.into_iter().take(n).map(|(_, name)| name).collect()
    }
}
