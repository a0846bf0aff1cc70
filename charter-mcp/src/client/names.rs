//! Qualified names for a remote server's tools (docs/design.md §2): `<label>_<tool>`.
//!
//! An MCP server names its tools as it likes (`get-sum`, `longRunningOperation`, `fs.read`);
//! charter's names are `[a-z0-9_]+` without `__`, qualified with a pack label, at most 50
//! characters (hosts add `mcp__<server>__` and providers cap names at 64). A remote name is
//! therefore sanitised, and when that is not enough (too long, or two remote names sanitise to
//! the same local one) it is changed deterministically and the change is reported.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The longest qualified name (docs/design.md §2; the rule is `charter_terms::names`).
pub const MAX_NAME: usize = charter_terms::names::MAX_QUALIFIED_LEN;

/// The longest pack label a toolkit accepts: room is left for `_` and a tool name.
pub const MAX_LABEL: usize = 32;

/// Why a remote tool is published under a name other than `<label>_<remote name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameReason {
    /// Characters outside `[a-z0-9_]` were mapped (`get-sum` → `get_sum`, camelCase → snake).
    Sanitised,
    /// The qualified name was longer than 50 characters: cut, with a hash of the remote name.
    Shortened,
    /// Another remote tool already had this name after sanitising: a number was appended.
    Disambiguated,
}

/// A remote tool published under a changed name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// The name the server uses (sent on `tools/call`).
    pub remote: String,
    /// The qualified name the model sees.
    pub local: String,
    /// The strongest reason (shortened or disambiguated over merely sanitised).
    pub reason: RenameReason,
}

/// Refuses a pack label outside `[a-z0-9-]+` (docs/design.md §2: the first `_` splits pack from tool).
pub fn check_label(label: &str) -> Result<(), String> {
    use charter_terms::names::{NameProblem, label_problem};
    if label.is_empty() {
        return Err("the pack label is empty; use lowercase letters, digits and `-`".into());
    }
    if label.len() > MAX_LABEL {
        return Err(format!(
            "the pack label `{label}` is {} characters; at most {MAX_LABEL} leave room for tool names",
            label.len()
        ));
    }
    if let Some(NameProblem::Char(c)) = label_problem(label) {
        return Err(format!(
            "the pack label `{label}` contains `{c}`; use only lowercase letters, digits and `-` \
             (no `_`: the first `_` of a name splits pack from tool)"
        ));
    }
    Ok(())
}

/// A remote name in charter's tool-name alphabet: camelCase split into snake case, lowercase,
/// every other character mapped to `_`, runs of `_` collapsed, no leading or trailing `_`.
pub fn sanitise(remote: &str) -> String {
    let mut out = String::with_capacity(remote.len() + 4);
    let mut previous: Option<char> = None;
    for c in remote.chars() {
        if c.is_ascii_uppercase() {
            if previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        previous = Some(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    // Collapse any `__` left by a camel split next to an explicit separator.
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    if out.is_empty() {
        out.push_str("tool");
    }
    out
}

/// FNV-1a: a stable hash (no per-process seed), so a shortened name is the same every run.
fn fnv1a(text: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in text.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// `<label>_<base><suffix>`, with `base` cut so the whole fits in [`MAX_NAME`].
fn fit(label: &str, base: &str, suffix: &str) -> String {
    let room = MAX_NAME.saturating_sub(label.len() + 1 + suffix.len());
    let mut cut = &base[..base.len().min(room)];
    while cut.ends_with('_') {
        cut = &cut[..cut.len() - 1];
    }
    if cut.is_empty() {
        // The suffix starts with `_`; drop it so no `__` or leading `_` appears.
        return format!("{label}_{}", suffix.trim_start_matches('_'));
    }
    format!("{label}_{cut}{suffix}")
}

/// The names given so far, kept for the toolkit's life: a tool keeps its local name across
/// re-lists, so a model that loaded `up_echo` can still call it after the server's list changed.
#[derive(Debug, Default)]
pub struct Names {
    assigned: HashMap<String, Arc<str>>,
    taken: HashSet<Arc<str>>,
    renames: Vec<Rename>,
}

impl Names {
    /// The local name of `remote`, assigning one on first sight.
    pub fn local(&mut self, label: &str, remote: &str) -> Arc<str> {
        if let Some(name) = self.assigned.get(remote) {
            return name.clone();
        }
        let base = sanitise(remote);
        let mut reason = (base != remote).then_some(RenameReason::Sanitised);
        let mut name = format!("{label}_{base}");
        if name.len() > MAX_NAME {
            name = fit(label, &base, &format!("_{:06x}", fnv1a(remote) & 0xff_ffff));
            reason = Some(RenameReason::Shortened);
        }
        let mut n = 2;
        while self.taken.contains(name.as_str()) {
            name = fit(label, &base, &format!("_{n}"));
            reason = Some(RenameReason::Disambiguated);
            n += 1;
        }
        let name: Arc<str> = name.into();
        if let Some(reason) = reason {
            let rename = Rename {
                remote: remote.to_owned(),
                local: name.to_string(),
                reason,
            };
            match reason {
                RenameReason::Sanitised => tracing::debug!(?rename, "remote tool renamed"),
                _ => tracing::warn!(
                    remote,
                    local = %name,
                    ?reason,
                    "remote tool published under a changed name"
                ),
            }
            self.renames.push(rename);
        }
        self.taken.insert(name.clone());
        self.assigned.insert(remote.to_owned(), name.clone());
        name
    }

    /// Every remote tool published under a changed name, in the order they were first seen.
    pub fn renames(&self) -> &[Rename] {
        &self.renames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        name.len() <= MAX_NAME
            && !name.contains("__")
            && !name.ends_with('_')
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    }

    #[test]
    fn sanitises_mcp_spellings() {
        assert_eq!(sanitise("echo"), "echo");
        assert_eq!(sanitise("get-sum"), "get_sum");
        assert_eq!(sanitise("longRunningOperation"), "long_running_operation");
        assert_eq!(sanitise("fs.read_File"), "fs_read_file");
        assert_eq!(sanitise("HTTPGet"), "httpget");
        assert_eq!(sanitise("__x__y__"), "x_y");
        assert_eq!(sanitise("ToolSearch"), "tool_search");
        assert_eq!(sanitise("a_B"), "a_b");
        assert_eq!(sanitise("---"), "tool");
        assert_eq!(sanitise("über"), "ber");
    }

    #[test]
    fn labels_follow_the_pack_rules() {
        assert!(check_label("up1").is_ok());
        assert!(check_label("my-server").is_ok());
        for bad in ["", "Up", "a_b", "a b", &"x".repeat(MAX_LABEL + 1)] {
            assert!(check_label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn long_names_are_cut_deterministically_and_reported() {
        let remote = "a-very-long-remote-tool-name-that-goes-on-and-on-and-on";
        let mut a = Names::default();
        let mut b = Names::default();
        let first = a.local("everything", remote);
        assert_eq!(first, b.local("everything", remote));
        assert!(valid(&first), "{first}");
        assert_eq!(first.len(), MAX_NAME);
        assert_eq!(a.renames()[0].reason, RenameReason::Shortened);
        assert_eq!(a.renames()[0].remote, remote);
        // Two long names sharing their first 40 characters still differ.
        let other = a.local("everything", &format!("{remote}-two"));
        assert_ne!(first, other);
        assert!(valid(&other), "{other}");
    }

    #[test]
    fn collisions_get_a_number_and_names_are_stable() {
        let mut names = Names::default();
        assert_eq!(&*names.local("up", "get_sum"), "up_get_sum");
        assert_eq!(&*names.local("up", "get-sum"), "up_get_sum_2");
        assert_eq!(&*names.local("up", "getSum"), "up_get_sum_3");
        // Asked again (a re-list), each keeps its name.
        assert_eq!(&*names.local("up", "get-sum"), "up_get_sum_2");
        assert_eq!(&*names.local("up", "get_sum"), "up_get_sum");
        let reasons: Vec<_> = names.renames().iter().map(|r| r.reason).collect();
        assert_eq!(
            reasons,
            [RenameReason::Disambiguated, RenameReason::Disambiguated]
        );
        assert_eq!(&*names.local("up", "echo"), "up_echo");
        assert_eq!(names.renames().len(), 2);
    }
}
