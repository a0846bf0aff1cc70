//! `--pack` selection.

use charter_runtime::table::Table;

use crate::Failure;
use crate::args::PackArgs;

/// The tables named by `--pack`, in the order given (each once), or every table when none is
/// named. An unknown pack is a usage error listing the valid ones.
pub(crate) fn select(
    tables: &[&'static Table],
    args: &PackArgs,
) -> Result<Vec<&'static Table>, Failure> {
    let names: Vec<&str> = args
        .packs
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    if names.is_empty() {
        return Ok(tables.to_vec());
    }
    let mut chosen: Vec<&'static Table> = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        match tables.iter().find(|t| t.pack == name) {
            Some(t) if chosen.iter().any(|c| c.pack == t.pack) => {}
            Some(t) => chosen.push(t),
            None => unknown.push(format!("`{name}`")),
        }
    }
    if !unknown.is_empty() {
        let valid: Vec<&str> = tables.iter().map(|t| t.pack).collect();
        let valid = if valid.is_empty() {
            "(none: no tables were compiled in)".to_owned()
        } else {
            valid.join(", ")
        };
        let noun = if unknown.len() == 1 { "pack" } else { "packs" };
        return Err(Failure::Usage(format!(
            "unknown {noun} {}; valid packs: {valid}",
            unknown.join(", ")
        )));
    }
    Ok(chosen)
}
