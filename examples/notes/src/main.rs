//! The example's command: the notes table beside every shipped pack, handed to the library's
//! command-line entry point, so this binary offers `tools`, `search`, `egress`, `call` and `mcp`
//! over its own Rust-function tools exactly as `charter` does over the packs.

use std::process::ExitCode;

use charter_example_notes::TOOLS;

fn main() -> ExitCode {
    let mut tables: Vec<&'static charter::Table> = vec![&TOOLS];
    tables.extend_from_slice(charter::packs::ALL);
    charter_cli::main_with(&tables)
}
