//! What a session discloses of its tools, and how (docs/design.md §4): the form
//! ([`Disclosure`]), the ToolSearch catalogue of deferred tools, and the loaded set, the only
//! part of a session that changes during a conversation.

use std::sync::{Mutex, MutexGuard, OnceLock};

use super::entry::Entry;
use crate::search::{Ranking, SearchIndex};

/// How a session shows its tools to the model: one of the forms of docs/design.md §4 and
/// docs/mcp.md.
///
/// Every form but [`Eager`](Disclosure::Eager) defers the tools whose schema is over the
/// session's threshold (at threshold 0, every tool) and offers `ToolSearch`; they differ in how a
/// deferred tool reaches the model. A progressive session with nothing deferred lists its tools
/// as an eager one does ([`ToolSession::disclosure`](super::ToolSession::disclosure) says which
/// form is in force).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Disclosure {
    /// Every tool listed with its schema from the first turn; no ToolSearch.
    Eager,
    /// `ToolSearch` listed; the tools it loads join the list, in load order, so each turn's list
    /// extends the last one. The default.
    #[default]
    ListChanged,
    /// `ToolSearch` and `CallTool`, a list that never changes: ToolSearch answers with the found
    /// tools' schemas and `CallTool` runs any tool by name ([`call`](super::call)).
    SearchAndCall,
    /// Code mode: `ToolSearch` and `RunCode`, a list that never changes. ToolSearch answers with
    /// the found tools' signatures, and `RunCode` runs a JavaScript program whose calls of the
    /// tools the scheduler runs (docs/code-mode.md). Needs charter-runtime's `code` feature.
    Code,
}

impl Disclosure {
    /// Every form, in the order the docs list them.
    pub const ALL: [Disclosure; 4] = [
        Disclosure::Eager,
        Disclosure::ListChanged,
        Disclosure::SearchAndCall,
        Disclosure::Code,
    ];

    /// The form's name as flags and start lines spell it (`eager`, `list-changed`,
    /// `search-and-call`, `code`).
    pub const fn name(self) -> &'static str {
        match self {
            Disclosure::Eager => "eager",
            Disclosure::ListChanged => "list-changed",
            Disclosure::SearchAndCall => "search-and-call",
            Disclosure::Code => "code",
        }
    }

    /// Whether tools are deferred behind ToolSearch (every form but eager).
    pub const fn is_progressive(self) -> bool {
        !matches!(self, Disclosure::Eager)
    }

    /// Whether the list the model sees may change during a conversation (list-changed only):
    /// MCP revision 2026-07-28 forbids that, so a server serves such a client another form.
    pub const fn list_changes(self) -> bool {
        matches!(self, Disclosure::ListChanged)
    }

    /// Whether any tool of the session may be called by name without being loaded first: the
    /// forms whose fixed list runs tools for the model (search-and-call through `CallTool`,
    /// code through `RunCode`), where ToolSearch finds and never loads.
    pub const fn calls_any(self) -> bool {
        matches!(self, Disclosure::SearchAndCall | Disclosure::Code)
    }
}

impl std::fmt::Display for Disclosure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Disclosure {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "eager" => Ok(Disclosure::Eager),
            "list-changed" | "listchanged" => Ok(Disclosure::ListChanged),
            "search-and-call" | "search" => Ok(Disclosure::SearchAndCall),
            "code" => Ok(Disclosure::Code),
            other => Err(format!(
                "unknown disclosure form `{other}`: expected one of {}",
                Disclosure::ALL.map(Disclosure::name).join(", ")
            )),
        }
    }
}

/// What the model is shown of a session's tools, and how.
pub(super) struct Disclosed {
    /// The form asked for (in force only while something is deferred: [`Disclosed::in_force`]).
    pub(super) form: Disclosure,
    /// Tools whose schema is at most this size stay resident in progressive forms.
    pub(super) threshold: u32,
    /// How ToolSearch ranks keyword queries.
    pub(super) ranking: Ranking,
    /// ToolSearch, offered while some tool is deferred.
    pub(super) search: Option<Search>,
    /// What ToolSearch has loaded (list-changed).
    loaded: Mutex<LoadState>,
}

/// What ToolSearch can find: the deferred tools, and its description written from them.
pub(super) struct Search {
    /// Deferred entry indices sorted by name: what ToolSearch ranks and lists.
    pub(super) catalogue: Vec<u32>,
    /// The ToolSearch description (written once, never changed).
    pub(super) description: String,
    /// The catalogue's text laid end to end for keyword search, built by the first keyword query.
    pub(super) index: OnceLock<SearchIndex>,
}

/// The loaded set: the only part of a session that changes during a conversation.
pub(super) struct LoadState {
    /// Entry indices in load order.
    pub(super) order: Vec<u32>,
    /// Whether each entry is loaded, by entry index.
    pub(super) loaded: Vec<bool>,
    pub(super) generation: u64,
}

impl Disclosed {
    pub(super) fn new(
        form: Disclosure,
        threshold: u32,
        ranking: Ranking,
        search: Option<Search>,
        tools: usize,
    ) -> Self {
        Self {
            form,
            threshold,
            ranking,
            search,
            loaded: Mutex::new(LoadState {
                order: Vec::new(),
                loaded: vec![false; tools],
                generation: 0,
            }),
        }
    }

    /// The form in force: the one asked for while some tool is deferred, eager otherwise.
    pub(super) fn in_force(&self) -> Disclosure {
        match self.search {
            Some(_) => self.form,
            None => Disclosure::Eager,
        }
    }

    /// The deferred entries, sorted by name (empty when nothing is deferred).
    pub(super) fn catalogue(&self) -> &[u32] {
        self.search.as_ref().map_or(&[], |s| &s.catalogue)
    }

    pub(super) fn state(&self) -> MutexGuard<'_, LoadState> {
        // The state is updated in single steps that cannot panic halfway, so a poisoned lock
        // still holds consistent data.
        self.loaded.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn state_mut(&mut self) -> &mut LoadState {
        self.loaded.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether ToolSearch is still listed: some deferred tool is not loaded yet (in
    /// list-changed; the other progressive forms list it always).
    pub(super) fn search_listed(&self, state: &LoadState) -> bool {
        self.search.is_some()
            && (self.in_force() != Disclosure::ListChanged
                || state.order.len() < self.catalogue().len())
    }

    /// Loads deferred tools (resident ones and repeats are skipped); one generation per change.
    pub(super) fn load(&self, entries: &[Entry], indices: &[u32]) {
        let mut state = self.state();
        let mut changed = false;
        for &i in indices {
            if !entries[i as usize].resident && !state.loaded[i as usize] {
                state.loaded[i as usize] = true;
                state.order.push(i);
                changed = true;
            }
        }
        if changed {
            state.generation += 1;
        }
    }

    /// Clears the loaded set; a change moves the generation on.
    pub(super) fn reset(&self) {
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
}

#[cfg(test)]
mod tests {
    use super::Disclosure;

    #[test]
    fn every_form_reads_back_from_its_name() {
        for form in Disclosure::ALL {
            assert_eq!(form.name().parse::<Disclosure>(), Ok(form));
            assert_eq!(form.to_string(), form.name());
        }
        let err = "lazy".parse::<Disclosure>().unwrap_err();
        assert!(
            err.contains("eager, list-changed, search-and-call, code"),
            "{err}"
        );
    }
}
