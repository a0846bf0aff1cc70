//! How the pack compiler's cost grows with the pack: imports 10 %, 20 % … 100 % of a
//! document's operations (the first ones, in document order) and runs the checker
//! (`charter_build::load_str` and `summary`, what `charter check` runs) and the generator
//! (`charter_build::compile`, what a build script runs) on each pack, and prints a table
//! of their CPU times (the least of three runs, `/proc/self/stat`, 10 ms ticks).
//!
//! `cargo run --release -p charter-openapi --example growth -- DOCUMENT...`
//!
//! A DOCUMENT is a path, or the name of a vendored document (`github.json`, from `openapi/`).
//! `scripts/pack-growth` runs it on DocuSign's and GitHub's documents.

use std::path::Path;
use std::time::Duration;

use charter_openapi::{ImportOptions, import};
use serde_json::Value;

fn main() {
    let docs: Vec<String> = std::env::args().skip(1).collect();
    if docs.is_empty() {
        eprintln!("usage: growth DOCUMENT...");
        std::process::exit(2);
    }
    println!(
        "| document | operations | tools | pack | schema tokens (default views) | check | generation |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for doc in &docs {
        let text = if Path::new(doc).exists() {
            std::fs::read_to_string(doc).expect("readable")
        } else {
            charter_testkit::openapi::read(doc)
        };
        let name = Path::new(doc)
            .file_name()
            .map_or(doc.as_str(), |n| n.to_str().unwrap_or(doc));
        let ids = operation_ids(&text);
        for tenth in 1..=10 {
            let ops: Vec<String> = ids[..ids.len() * tenth / 10].to_vec();
            if ops.is_empty() {
                continue;
            }
            let mut options = ImportOptions::new("growth");
            options.ops = ops;
            let out = import(&text, &options).expect("imports");
            let mut model = None;
            let check = least(|| {
                let m = charter_build::load_str("growth.yaml", &out.yaml)
                    .unwrap_or_else(|d| panic!("{name}: {}", d[0]));
                std::hint::black_box(charter_build::summary(&m));
                model = Some(m);
            });
            let model = model.expect("checked");
            let tokens: u64 = charter_build::summary(&model)
                .tools
                .iter()
                .map(|t| u64::from(t.tokens))
                .sum();
            let generate = least(|| {
                std::hint::black_box(
                    charter_build::compile(std::slice::from_ref(&model), "::charter")
                        .expect("generates"),
                );
            });
            println!(
                "| {name} {}0 % | {} | {} | {} KB | {tokens} | {:.2} s | {:.2} s |",
                tenth,
                options_len(&ids, tenth),
                out.tools,
                out.yaml.len() / 1024,
                check.as_secs_f64(),
                generate.as_secs_f64()
            );
        }
    }
}

fn options_len(ids: &[String], tenth: usize) -> usize {
    ids.len() * tenth / 10
}

/// The least CPU time of three runs of `f`.
fn least(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = cpu();
            f();
            cpu().saturating_sub(t)
        })
        .min()
        .unwrap_or_default()
}

/// The operation ids of a document, in document order.
fn operation_ids(text: &str) -> Vec<String> {
    let doc: Value = serde_json::from_str(text).expect("a JSON document");
    let mut ids = Vec::new();
    for item in doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|p| p.values())
    {
        for method in ["get", "put", "post", "delete", "patch", "head"] {
            if let Some(id) = item[method]["operationId"].as_str() {
                ids.push(id.to_owned());
            }
        }
    }
    ids
}

/// The CPU time (user and system) of this process, every thread's.
fn cpu() -> Duration {
    let text = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = text.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: u64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}
