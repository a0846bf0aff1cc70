//! Building a session from its sources (docs/design.md §4, §5), and refreshing it when a
//! toolkit's list changes.

use std::sync::{Arc, OnceLock};

use super::call::CALL_TOOL;
use super::code::RUN_CODE;
use super::disclosure::{Disclosed, Search};
use super::entry::{Dynamic, Entry, Kind};
use super::tools::Tools;
use super::{SessionOptions, Source, ToolSession};
use crate::dialect::Dialect;
use crate::error::DeclarationError;
use crate::mode;
use crate::search::TOOL_SEARCH;
use crate::table::{Table, ToolDef};
use crate::validate::PatternCache;

impl ToolSession {
    /// A session over these tables with the default options (progressive, threshold 0, no mode).
    ///
    /// ```
    /// use charter_runtime::ToolSession;
    ///
    /// // No tables: nothing to search, so not even ToolSearch is offered.
    /// let session = ToolSession::new(&[]).unwrap();
    /// assert!(session.visible().is_empty());
    /// assert!(session.all().is_empty());
    /// ```
    ///
    /// With tools of your own (`#[charter::tool]`, `charter::pack!`): the `charter` crate's
    /// documentation.
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
            disclosure,
            threshold,
            mode,
            ranking,
            http,
            dialect,
            #[cfg(feature = "code")]
            code,
        } = options;
        mode::check_label(mode.as_deref())?;
        #[cfg(not(feature = "code"))]
        if disclosure == super::Disclosure::Code {
            return Err(DeclarationError::new(
                "code mode runs programs in an interpreter that this build leaves out: turn on \
                 charter-runtime's `code` feature (the `charter` binary has it)",
            ));
        }
        let progressive = disclosure.is_progressive();
        // At threshold 0 every tool is deferred, however small (docs/design.md §4).
        let resident = |tokens: u32| !progressive || (threshold > 0 && tokens <= threshold);
        let (entries, kit_generations) =
            resolve_entries(&sources, mode.as_deref(), dialect, resident)?;
        let by_name = sorted_by_name(&entries);
        check_names(&entries, &by_name)?;
        let catalogue: Vec<u32> = by_name
            .iter()
            .copied()
            .filter(|i| !entries[*i as usize].resident)
            .collect();
        let search = (!catalogue.is_empty()).then(|| Search {
            description: super::catalogue::search_description(
                &entries, &catalogue, &sources, disclosure,
            ),
            catalogue,
            index: OnceLock::new(),
        });
        let count = entries.len();
        Ok(ToolSession {
            tools: Tools {
                sources,
                kit_generations,
                entries,
                by_name,
                mode,
                http,
                dialect,
                patterns: PatternCache::new(),
                #[cfg(feature = "code")]
                code,
                #[cfg(feature = "code")]
                bindings: OnceLock::new(),
            },
            disclosure: Disclosed::new(disclosure, threshold, ranking, search, count),
        })
    }

    /// Whether a toolkit's list changed since this session read it (its
    /// `Toolkit::generation` moved): [`refreshed`](Self::refreshed) then gives the session
    /// that lists what the toolkits offer now.
    pub fn is_stale(&self) -> bool {
        self.tools.is_stale()
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
            self.tools.sources.clone(),
            SessionOptions {
                disclosure: self.disclosure.form,
                threshold: self.disclosure.threshold,
                mode: self.tools.mode.clone(),
                ranking: self.disclosure.ranking,
                http: self.tools.http.clone(),
                dialect: self.tools.dialect,
                #[cfg(feature = "code")]
                code: self.tools.code.clone(),
            },
        )?;
        for entry in &self.tools.entries {
            if let Some(narrowing) = &entry.narrowing
                && let Some(i) = next.tools.lookup(entry.name())
            {
                next.tools.entries[i].narrowing = Some(narrowing.clone());
            }
        }
        let state = self.disclosure.state();
        let carried: Vec<u32> = state
            .order
            .iter()
            .filter_map(|i| next.tools.lookup(self.tools.entries[*i as usize].name()))
            .map(|i| i as u32)
            .collect();
        let generation = state.generation + 1;
        drop(state);
        next.disclosure.load(&next.tools.entries, &carried);
        next.disclosure.state_mut().generation = generation;
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

/// Every tool of the sources, in order, resolved to its view under the session mode; with each
/// toolkit's generation as read before its list.
fn resolve_entries(
    sources: &[Source],
    mode: Option<&str>,
    dialect: Dialect,
    resident: impl Fn(u32) -> bool,
) -> Result<(Vec<Entry>, Vec<u64>), DeclarationError> {
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
    for source in sources {
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
            let view = mode::resolve_view(def, mode)?;
            mode::check_view(def, view)?;
            // A view that cannot go strict in Anthropic's dialect is given in the portable one.
            let dialect = dialect.for_view(view);
            entries.push(Entry {
                resident: resident(view.tokens_in(dialect)),
                kind: Kind::Static { def, view, dialect },
                narrowing: None,
            });
        }
    }
    if entries.len() > u32::MAX as usize {
        return Err(DeclarationError::new("a session holds at most 2^32 tools"));
    }
    Ok((entries, kit_generations))
}

/// Refuses two tools with one qualified name, and a tool named like the session's own tools.
fn check_names(entries: &[Entry], by_name: &[u32]) -> Result<(), DeclarationError> {
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
        .find(|e| [TOOL_SEARCH, CALL_TOOL, RUN_CODE].contains(&e.name()))
    {
        return Err(DeclarationError::new(format!(
            "a tool is named `{}`, which is a tool of the session itself",
            e.name()
        )));
    }
    Ok(())
}
