//! The ToolSearch description: its usage text and the catalogue of what it can find.
//!
//! While the sorted list of deferred names is short it is the catalogue (exact names a model can
//! `select:`). Past [`NAMES_BUDGET_TOKENS`] it gives way to one line per pack, its label, what it
//! is for and how many tools it holds: with every shipped pack the names alone cost about 5,500
//! tokens, the pack lines about 400, and ranking never reads the description, so what a query
//! finds is the same either way. Written once, when the session is built, from texts the tables
//! already hold; nothing is sized but the string being written.

use std::fmt::Write as _;

use super::{Disclosure, Entry, Source};
use crate::search::TOOL_SEARCH_USAGE;

/// Deferred names are listed one by one while they cost at most this many tokens (600, about
/// 120 names); past it the catalogue is one line per pack.
pub const NAMES_BUDGET_TOKENS: u32 = 600;

/// The ToolSearch description of a session whose deferred entries are `catalogue` (entry
/// indices sorted by name).
pub(super) fn search_description(
    entries: &[Entry],
    catalogue: &[u32],
    sources: &[Source],
    disclosure: Disclosure,
) -> String {
    let usage = match disclosure {
        Disclosure::SearchAndCall => super::call::SEARCH_AND_CALL_USAGE,
        Disclosure::Eager | Disclosure::ListChanged => TOOL_SEARCH_USAGE,
    };
    let names_len: usize = catalogue
        .iter()
        .map(|i| entries[*i as usize].name().len() + 1)
        .sum();
    let mut text = String::with_capacity(usage.len() + 16 + names_len.min(4096));
    text.push_str(usage);
    if names_len as u32 / 4 <= NAMES_BUDGET_TOKENS {
        text.push_str("\n\nTools:");
        for i in catalogue {
            text.push('\n');
            text.push_str(entries[*i as usize].name());
        }
        return text;
    }
    text.push_str("\n\nPacks (label: what it is for, how many tools; every tool name starts with its pack label):");
    // Names sorted by name keep a pack's tools together (a label holds no `_`).
    let mut k = 0;
    while k < catalogue.len() {
        let pack = pack_of(entries[catalogue[k] as usize].name());
        let count = catalogue[k..]
            .iter()
            .take_while(|i| pack_of(entries[**i as usize].name()) == pack)
            .count();
        let _ = write!(text, "\n- {pack}: ");
        match describe(sources, pack) {
            Some(line) => text.push_str(line.trim_end_matches('.')),
            None => text.push_str("tools"),
        }
        let _ = write!(text, " ({count} tools)");
        k += count;
    }
    text
}

/// The pack label of a qualified name (`<pack>_<tool>`).
fn pack_of(name: &str) -> &str {
    name.split_once('_').map_or(name, |(pack, _)| pack)
}

/// What a pack is for, as its table says; a toolkit is an upstream server.
fn describe<'a>(sources: &'a [Source], pack: &str) -> Option<&'a str> {
    sources.iter().find_map(|source| match source {
        Source::Table(table) if table.pack == pack => Some(table.description),
        Source::Toolkit(kit) if kit.pack() == pack => Some("tools of an upstream MCP server"),
        _ => None,
    })
}
