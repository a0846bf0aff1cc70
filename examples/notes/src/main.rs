//! The example's command.
//!
//! Meant to hand [`TOOLS`] beside the shipped packs to the library's command-line entry point,
//! `charter_cli::main_with(&[&TOOLS, ...])`, so this binary gets `tools`, `search` and `mcp` for
//! its own table. That entry point is not on this branch yet, so until then the binary prints
//! what `tools` would: each tool's qualified name, its schema size in tokens and its
//! annotations, all read from the static table (nothing is derived at run time).

use std::process::ExitCode;

use charter_example_notes::{TOOLS, describe};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["tools"] => {
            print!("{}", describe(&[&TOOLS]));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: charter-example-notes [tools]");
            ExitCode::from(2)
        }
    }
}
