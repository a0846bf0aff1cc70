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
///
/// A miss (names unknown, or nothing matched) says what exists in bounded text, whatever the
/// catalogue: every name while the names fit the catalogue's budget
/// ([`NAMES_BUDGET_TOKENS`](super::NAMES_BUDGET_TOKENS), as ToolSearch's description lists
/// them), otherwise the names nearest the query and one line per pack.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchAnswer {
    /// The names now callable because of this query, in rank (or request) order; tools already
    /// loaded or resident that the query named are included.
    pub loaded: Vec<String>,
    /// `select:` names that do not exist.
    pub unknown: Vec<String>,
    /// On a miss, every tool name of the session, sorted, while they fit the names budget.
    pub available: Vec<String>,
    /// On a miss past the names budget, up to `MISS_NEAREST` names nearest the query (by edit
    /// distance: a misspelt name, a word of the query close to a word of a name).
    pub nearest: Vec<String>,
    /// On a miss past the names budget, one line per pack: `label: what it is for (N tools)`,
    /// the lines ToolSearch's description shows.
    pub packs: Vec<String>,
    /// A sentence for the model.
    pub note: String,
}

/// How many nearest names a miss offers.
pub const MISS_NEAREST: usize = 8;

/// About how many bytes of pack lines a miss carries (2,400: the names budget, 600 tokens, the
/// lines of every shipped pack); past it packs are listed by label and count only.
const MISS_PACK_BYTES: usize = super::NAMES_BUDGET_TOKENS as usize * 4;

impl SearchAnswer {
    /// The JSON the model reads: `loaded`, `note`, and `unknown` / `available` / `nearest` /
    /// `packs` when non-empty.
    pub fn to_json(&self) -> Value {
        let mut out = json!({ "loaded": self.loaded, "note": self.note });
        if !self.unknown.is_empty() {
            out["unknown"] = json!(self.unknown);
        }
        if !self.available.is_empty() {
            out["available"] = json!(self.available);
        }
        if !self.nearest.is_empty() {
            out["nearest"] = json!(self.nearest);
        }
        if !self.packs.is_empty() {
            out["packs"] = json!(self.packs);
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
        if !self.disclosure.in_force().calls_any() {
            self.disclosure.load(entries, &to_load);
        }
        let missed = !unknown.is_empty() || loaded.is_empty();
        let listed = missed && super::catalogue::names_fit(entries, &self.tools.by_name);
        // Where to look next, when the names are too many to list.
        let narrow = "`packs` lists what each pack holds: narrow with `+<pack>` and keywords \
                      (`+github issue`), or `select:` with exact names";
        let note = match (&parsed, loaded.len(), unknown.len()) {
            (Query::Empty, ..) if listed => "The query has no terms, so it matches nothing. Send `select:` with exact names, \
                or keywords; every name that exists is listed under `available`."
                .to_owned(),
            (Query::Empty, ..) => format!("The query has no terms, so it matches nothing. Send keywords; {narrow}."),
            (_, 0, 0) if listed => format!(
                "No tool matched `{}`. Try other keywords, or `select:` with exact names from `available`.",
                validate::clip(query.trim(), 200)
            ),
            (_, 0, 0) => format!(
                "No tool matched `{}`. The closest names, if any, are under `nearest`; {narrow}.",
                validate::clip(query.trim(), 200)
            ),
            (_, 0, _) if listed => "None of these names exist, so nothing was loaded. Use exact names from `available`.".to_owned(),
            (_, 0, _) => format!(
                "None of these names exist, so nothing was loaded. The closest names are under `nearest`; {narrow}."
            ),
            (_, _, u) if self.disclosure.in_force() == Disclosure::Code => code_note(u, listed),
            (_, n, u) if self.disclosure.in_force() == Disclosure::SearchAndCall => {
                let mut note = format!(
                    "{n} tool{} found, each with its inputSchema: call {} with {CALL_TOOL} \
                     {{\"name\", \"arguments\"}}.",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "it" } else { "them" },
                );
                if u > 0 {
                    note.push_str(unknown_note(listed));
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
                    note.push_str(unknown_note(listed));
                }
                note
            }
        };
        let mut answer = SearchAnswer {
            loaded,
            unknown,
            available: Vec::new(),
            nearest: Vec::new(),
            packs: Vec::new(),
            note,
        };
        if missed {
            self.what_exists(&mut answer, &parsed, listed);
        }
        answer
    }

    /// What a miss shows of what exists: every name when they fit the names budget (`listed`),
    /// otherwise the nearest names and the per-pack lines.
    fn what_exists(&self, answer: &mut SearchAnswer, parsed: &Query, listed: bool) {
        let (entries, by_name) = (&self.tools.entries, &self.tools.by_name);
        if listed {
            answer.available = by_name
                .iter()
                .map(|i| entries[*i as usize].name().to_owned())
                .collect();
        } else {
            answer.nearest = self.nearest_names(parsed, &answer.unknown);
            answer.packs = super::catalogue::pack_lines(
                entries,
                by_name,
                &self.tools.sources,
                MISS_PACK_BYTES,
            );
        }
    }

    /// Up to [`MISS_NEAREST`] names nearest what a missed query asked for: for `select:`, those
    /// closest to each unknown name; for keywords, names holding a word close to a word of the
    /// query (`mesage` finds the `message` tools), and for a query written as a name, the names
    /// closest to it.
    fn nearest_names(&self, query: &Query, unknown: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |name: &str| {
            if out.len() < MISS_NEAREST && !out.iter().any(|n| n == name) {
                out.push(name.to_owned());
            }
        };
        match query {
            Query::Select(_) => {
                // A few unknown names are enough to go on (each is compared with every name).
                for name in unknown.iter().take(MISS_NEAREST) {
                    self.closest_names(name, 3).into_iter().for_each(&mut push);
                }
            }
            Query::Keywords { required, terms } => {
                let words: Vec<&str> = required.iter().chain(terms).map(String::as_str).collect();
                if let [word] = words[..]
                    && word.contains('_')
                {
                    self.closest_names(word, MISS_NEAREST)
                        .into_iter()
                        .for_each(&mut push);
                }
                self.close_words(&words).into_iter().for_each(&mut push);
            }
            Query::Empty => {}
        }
        out
    }

    /// Names with a part close to a word of the query (normalised edit distance at least 0.7,
    /// words of four letters or more), most words matched first.
    fn close_words(&self, words: &[&str]) -> Vec<&str> {
        let words: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| w.chars().count() >= 4)
            .take(search::MAX_QUERY_TERMS)
            .collect();
        if words.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(f64, &str)> = self
            .tools
            .by_name
            .iter()
            .filter_map(|i| {
                let name = self.tools.entries[*i as usize].name();
                let lower = name.to_lowercase();
                let score: f64 = words
                    .iter()
                    .map(|w| {
                        lower
                            .split('_')
                            .map(|part| strsim::normalized_levenshtein(w, part))
                            .fold(0.0, f64::max)
                    })
                    .filter(|sim| *sim >= 0.7)
                    .sum();
                (score > 0.0).then_some((score, name))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(MISS_NEAREST)
            .map(|(_, n)| n)
            .collect()
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
        let fits = |names: &[&str]| {
            let len: usize = names.iter().map(|n| n.len() + 2).sum();
            len as u32 / 4 <= super::NAMES_BUDGET_TOKENS
        };
        let mut message = format!("Unknown tool `{}`.", validate::clip(name, 100));
        if callable.is_empty() {
            message.push_str(" Callable now: none.");
        } else if fits(&callable) {
            message.push_str(&format!(" Callable now: {}.", callable.join(", ")));
        }
        if !loadable.is_empty() && fits(&loadable) {
            message.push_str(&format!(
                " Load one of these first with {TOOL_SEARCH} (`select:<name>`): {}.",
                loadable.join(", ")
            ));
        }
        if !fits(&callable) || !fits(&loadable) {
            // Hundreds of names would cost the model more than the call: the closest, and how
            // to find the rest.
            let closest = self.closest_names(name, MISS_NEAREST);
            if !closest.is_empty() {
                message.push_str(&format!(" Closest names: {}.", closest.join(", ")));
            }
            if !loadable.is_empty() {
                message.push_str(&format!(
                    " Find and load others with {TOOL_SEARCH} (keywords, `+<pack>`, or \
                     `select:<name>`)."
                ));
            }
        }
        message
    }
}

/// What the note adds when some `select:` names do not exist.
fn unknown_note(listed: bool) -> &'static str {
    if listed {
        " The names under `unknown` do not exist; `available` lists those that do."
    } else {
        " The names under `unknown` do not exist; the closest are under `nearest`."
    }
}

/// The note of a code-mode ToolSearch answer that found some tools (`u` names unknown): none
/// when every name was found, as the declarations say how to call them.
fn code_note(u: usize, listed: bool) -> String {
    let note = match (u, listed) {
        (0, _) => "",
        (_, true) => "Names under Unknown do not exist; Available lists those that do.",
        (_, false) => "Names under Unknown do not exist; the closest are under Nearest.",
    };
    note.to_owned()
}
