//! ToolSearch on a session (docs/design.md §4): running a query, loading what it finds, and
//! the answer the model reads.

use serde_json::{Value, json};

use super::call::CALL_TOOL;
use super::entry::Entry;
use super::{Disclosure, ToolSession};
use crate::error::CharterError;
use crate::search::{self, Query, SearchIndex, TOOL_SEARCH};
use crate::validate::{self, Issue};

/// A ToolSearch answer: what it loaded and, when something was missing, what exists.
#[non_exhaustive]
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

impl ToolSession {
    /// Runs one ToolSearch query, loading what it finds (see docs/design.md §4 for the query forms).
    /// `max_results` limits keyword matches (default 5) and is ignored by `select:`.
    pub fn search(&self, query: &str, max_results: Option<usize>) -> SearchAnswer {
        let limit = match max_results {
            None | Some(0) => search::DEFAULT_MAX_RESULTS,
            Some(n) => n,
        };
        let entries = &self.tools.entries;
        let catalogue = self.disclosure.catalogue();
        let mut loaded = Vec::new();
        let mut unknown = Vec::new();
        let mut to_load: Vec<u32> = Vec::new();
        let parsed = Query::parse(query);
        match &parsed {
            Query::Select(names) => {
                for name in names {
                    match self.tools.lookup_ci(name) {
                        Some(i) => {
                            if !loaded.iter().any(|l: &String| l == entries[i].name()) {
                                loaded.push(entries[i].name().to_owned());
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
                let ranking = self.disclosure.ranking;
                if let Some(search) = &self.disclosure.search {
                    let candidate = |k: usize| entries[catalogue[k] as usize].candidate();
                    let index = search.index.get_or_init(|| {
                        SearchIndex::for_ranking(ranking, catalogue.len(), candidate)
                    });
                    for k in ranking.rank(index, required, terms, limit) {
                        let i = catalogue[k];
                        loaded.push(entries[i as usize].name().to_owned());
                        to_load.push(i);
                    }
                }
            }
            Query::Empty => {}
        }
        if self.disclosure.in_force() != Disclosure::SearchAndCall {
            self.disclosure.load(entries, &to_load);
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
            (_, n, u) if self.disclosure.in_force() == Disclosure::SearchAndCall => {
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
            self.tools
                .by_name
                .iter()
                .map(|i| entries[*i as usize].name().to_owned())
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

    /// Clears the loaded set so the session can serve another conversation.
    pub fn reset(&self) {
        self.disclosure.reset();
    }

    pub(super) fn unknown_tool(&self, name: &str) -> String {
        let entries = &self.tools.entries;
        let state = self.disclosure.state();
        let mut callable: Vec<&str> = entries
            .iter()
            .filter(|e| e.resident)
            .map(Entry::name)
            .collect();
        if self.disclosure.search_listed(&state) {
            callable.push(TOOL_SEARCH);
        }
        callable.extend(state.order.iter().map(|i| entries[*i as usize].name()));
        let loadable: Vec<&str> = self
            .disclosure
            .catalogue()
            .iter()
            .filter(|i| !state.loaded[**i as usize])
            .map(|i| entries[*i as usize].name())
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
}
