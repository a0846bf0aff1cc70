//! The OpenAPI importer on arbitrary documents (JSON or YAML text).
//!
//! Whatever a document holds, the importer answers with a pack or an `ImportError`, never a
//! panic, a hang or unbounded memory; and a pack it produces passes the real pack checker
//! (its documented contract), so an imported pack never breaks a build.
#![no_main]

use charter_openapi::{ImportOptions, import};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(out) = import(text, &ImportOptions::new("fuzz")) else {
        return;
    };
    if out.tools == 0 {
        return;
    }
    if let Err(diags) = charter_build::load_str("imported.yaml", &out.yaml) {
        let first: Vec<String> = diags.iter().take(3).map(ToString::to_string).collect();
        panic!(
            "an imported pack fails the checker: {first:?}\n---\n{}",
            out.yaml
        );
    }
});
