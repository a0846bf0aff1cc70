//! The vendored API documents (the repository's `openapi/<name>.json.gz`, see its `README.md`),
//! for the tests and benches that import or check against them.

use std::io::Read;
use std::path::PathBuf;

/// The folder holding the documents.
pub fn dir() -> PathBuf {
    crate::npm::workspace_root().join("openapi")
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
