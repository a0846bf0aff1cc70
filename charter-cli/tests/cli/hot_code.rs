//! The hot-code list (`charter-cli/link/hot-code.txt`, written by `scripts/hot-code`) is current.
//!
//! The release link lays the functions it names out first in the `charter` binary's code; an
//! entry the binary no longer holds only loses its place, but a list left behind the code costs
//! memory (docs/mcp.md, "Memory": 10.1 MiB instead of 5.2 for `--pack slack`). Nothing else
//! notices, so this test fails when too many entries name functions the binary lost.
//!
//! CI builds no release binary, so the test reads the debug `charter` the other tests spawn.
//! Symbol hashes differ between profiles, so entries and symbols are compared by their
//! demangled paths without hashes (`rustc-demangle`'s alternate form, which also drops LLVM's
//! `.llvm.<n>` suffixes and v0 crate disambiguators): a function renamed, moved or removed is
//! missing; a generic function whose instances changed but whose path still exists is not
//! seen here (`bench/memory.sh` counts exact matches against the release binary).

use std::collections::HashSet;
use std::process::Command;

/// The list, in this package.
const LIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/link/hot-code.txt");
/// Below this share of entries found, the list is stale: regenerate it.
const MIN_FOUND: f64 = 0.95;

/// A symbol or list entry as a path without hash, or the name itself when it is not a Rust
/// symbol (`main`).
fn key(name: &str) -> String {
    // The list writes `17h*` where only the hash may change, `*` for a dropped `.llvm.` suffix.
    let name = match name.strip_suffix("17h*") {
        Some(path) => format!("{path}17h0000000000000000E"),
        None => name.trim_end_matches('*').to_owned(),
    };
    match rustc_demangle::try_demangle(&name) {
        Ok(d) => format!("{d:#}"),
        Err(_) => name,
    }
}

/// The function symbols of `binary` (`nm`, as `scripts/hot-code` reads them), as keys.
fn functions(binary: &str) -> HashSet<String> {
    let out = Command::new("nm")
        .args(["--defined-only", binary])
        .output()
        .expect("nm (binutils) runs");
    assert!(out.status.success(), "nm {binary} failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            matches!(kind, "t" | "T" | "w" | "W").then(|| key(name))
        })
        .collect()
}

#[test]
fn the_hot_code_list_names_functions_the_binary_holds() {
    let list = std::fs::read_to_string(LIST).expect("link/hot-code.txt is readable");
    let entries: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(entries.len() > 100, "the hot-code list is nearly empty");
    let symbols = functions(env!("CARGO_BIN_EXE_charter"));
    let missing: Vec<&str> = entries
        .iter()
        .copied()
        .filter(|e| !symbols.contains(&key(e)))
        .collect();
    let found = entries.len() - missing.len();
    let share = found as f64 / entries.len() as f64;
    assert!(
        share >= MIN_FOUND,
        "charter-cli/link/hot-code.txt is stale: {found} of {} entries name functions of the \
         binary ({:.1} %, at least {:.0} % wanted); regenerate it with scripts/hot-code \
         (docs/mcp.md, \"Memory\"). Missing, e.g.:\n{}",
        entries.len(),
        share * 100.0,
        MIN_FOUND * 100.0,
        missing
            .iter()
            .take(15)
            .map(|m| format!("  {}", key(m)))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
