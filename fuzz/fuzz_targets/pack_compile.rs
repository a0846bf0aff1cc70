//! The pack compiler on arbitrary text: parse, check and (when the pack passes) generate Rust.
//!
//! Whatever a pack author writes, the compiler answers with diagnostics or code, never a panic,
//! a hang or unbounded memory. Every diagnostic points inside the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match charter_build::compile_str("fuzz.yaml", &text, "crate") {
        Ok(code) => assert!(
            code.contains("pub static ALL"),
            "generated code without ALL"
        ),
        Err(charter_build::BuildError::Pack(diags)) => {
            assert!(
                !diags.is_empty(),
                "a failed build reports at least one mistake"
            );
            // YAML breaks lines at `\n`, `\r` and `\r\n`: count every break as one, an upper bound.
            let lines = text.bytes().filter(|b| *b == b'\n' || *b == b'\r').count() as u32 + 2;
            for d in &diags {
                assert!(
                    d.loc.line >= 1 && d.loc.line <= lines,
                    "diagnostic outside the file: {d}"
                );
                assert!(!d.message.is_empty());
            }
        }
        // A pack that passed every check must generate: anything else is a compiler bug.
        Err(other) => panic!("a checked pack failed to generate: {other}"),
    }
});
