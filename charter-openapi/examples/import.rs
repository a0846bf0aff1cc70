//! Imports an OpenAPI document into a YAML pack (the library behind `charter import openapi`).
//!
//! `cargo run --release -p charter-openapi --example import -- SPEC.json --pack NAME
//!  [--ops ID,ID] [--tags T,T] [--paths GLOB,GLOB] [--base-url URL]`: the pack on stdout, the
//! report (tools, skipped operations, notes) on stderr.

use std::process::ExitCode;

use charter_openapi::{ImportOptions, import};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut spec = None;
    let mut options = ImportOptions::new("pack");
    let mut i = 0;
    let list = |v: &str| {
        v.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
    };
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--pack" => options.pack = value,
            "--ops" => options.ops = list(&value),
            "--tags" => options.tags = list(&value),
            "--paths" => options.paths = list(&value),
            "--base-url" => options.base_url = Some(value),
            other if spec.is_none() && !other.starts_with("--") => {
                spec = Some(other.to_string());
                i += 1;
                continue;
            }
            other => {
                eprintln!("unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }
    let Some(spec) = spec else {
        eprintln!(
            "usage: import SPEC --pack NAME [--ops ..] [--tags ..] [--paths ..] [--base-url URL]"
        );
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&spec) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("{spec}: {error}");
            return ExitCode::FAILURE;
        }
    };
    match import(&text, &options) {
        Ok(imported) => {
            print!("{}", imported.yaml);
            eprintln!("{}", imported.report());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{spec}: {error}");
            ExitCode::FAILURE
        }
    }
}
