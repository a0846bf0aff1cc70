//! Reads the vendored API documents in this folder (`<name>.json.gz`, see `README.md`) for the
//! tests and benches that import them. Included by `#[path]` from crates one level below the
//! repository root, so the folder is found from the including crate's manifest directory.

// Each including test or bench uses what it needs of this module.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;

/// The folder holding the documents.
pub fn dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi"))
}

/// The text of one document, `name` as in `github.json`. Panics, naming the file, when it is
/// missing or not gzip: every caller is a test or a bench, and its input must be there.
pub fn read(name: &str) -> String {
    let path = dir().join(format!("{name}.gz"));
    let file = std::fs::File::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (the vendored API documents)", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: not a gzip of UTF-8 JSON: {e}", path.display()));
    text
}
