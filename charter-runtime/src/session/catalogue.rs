//! The ToolSearch description: its usage text and the catalogue of what it can find.
//!
//! While the sorted list of deferred names is short it is the catalogue (exact names a model can
//! `select:`), except in code mode. Past [`NAMES_BUDGET_TOKENS`] it gives way to one line per pack, its label, what it
//! is for and how many tools it holds: with every shipped pack the names alone cost about 5,500
//! tokens, the pack lines about 400, and ranking never reads the description, so what a query
//! finds is the same either way. Written once, when the session is built, from texts the tables
//! already hold; nothing is sized but the string being written.

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
        Disclosure::Code => super::code::CODE_SEARCH_USAGE,
        Disclosure::Eager | Disclosure::ListChanged => TOOL_SEARCH_USAGE,
    };
    let mut text = String::with_capacity(usage.len() + 2048);
    text.push_str(usage);
    // In code mode a name alone is of no use to a program, which calls only what a search
    // declared: the pack lines say what to search for, in fewer bytes.
    if disclosure != Disclosure::Code && names_fit(entries, catalogue) {
        text.push_str("\n\nTools:");
        for i in catalogue {
            text.push('\n');
            text.push_str(entries[*i as usize].name());
        }
        return text;
    }
    // Code mode's usage already says that every name starts with its pack.
    text.push_str(if disclosure == Disclosure::Code {
        "\n\nPacks:"
    } else {
        "\n\nPacks (label: what it is for, how many tools; every tool name starts with its pack label):"
    });
    for line in pack_lines(entries, catalogue, sources, usize::MAX) {
        text.push_str("\n- ");
        text.push_str(&line);
    }
    text
}

/// Whether the sorted names of `indices` fit the names budget (then they are listed one by one,
/// in the ToolSearch description and in a miss's answer).
pub(super) fn names_fit(entries: &[Entry], indices: &[u32]) -> bool {
    let names_len: usize = indices
        .iter()
        .map(|i| entries[*i as usize].name().len() + 1)
        .sum();
    names_len as u32 / 4 <= NAMES_BUDGET_TOKENS
}

/// One line per pack of `indices` (entry indices sorted by name): `label: what it is for (N
/// tools)`, within about `budget` bytes. Past the budget the rest are `label (N tools)`, and past
/// a quarter more one last line counts the packs left out, so a catalogue of any size answers
/// in bounded text.
pub(super) fn pack_lines(
    entries: &[Entry],
    indices: &[u32],
    sources: &[Source],
    budget: usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut used = 0;
    // Names sorted by name keep a pack's tools together (a label holds no `_`).
    let mut k = 0;
    while k < indices.len() {
        let pack = pack_of(entries[indices[k] as usize].name());
        let count = indices[k..]
            .iter()
            .take_while(|i| pack_of(entries[**i as usize].name()) == pack)
            .count();
        k += count;
        let what = describe(sources, pack).map_or("tools", |d| d.trim_end_matches('.'));
        let mut line = format!("{pack}: {what} ({count} tools)");
        if used + line.len() > budget {
            line = format!("{pack} ({count} tools)");
        }
        if used + line.len() > budget.saturating_add(budget / 4) {
            let left = 1 + indices[k..]
                .iter()
                .map(|i| pack_of(entries[*i as usize].name()))
                .fold((0, ""), |(n, last), p| (n + usize::from(p != last), p))
                .0;
            lines.push(format!("... and {left} more packs"));
            break;
        }
        used += line.len();
        lines.push(line);
    }
    lines
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
