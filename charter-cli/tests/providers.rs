//! Provider acceptance (docs/dialects.md): every shipped tool, in every dialect, exactly as
//! `charter tools --json --dialect NAME` prints it (the text each adapter sends), judged by the
//! providers' own code: `openai-agents`' `ensure_strict_json_schema` must have nothing left to
//! change on the `openai-strict` schema, `google-genai`'s `types.Schema` (extra fields forbidden)
//! must accept the `gemini` one, and every dialect keeps the APIs' root rules. The judges run
//! in one Python process over one JSON file of all schemas (`charter_testkit::judge`, a venv
//! under `target/python/judge` built on first use; the test fails, saying why, when it cannot
//! be built).

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use charter_runtime::Dialect;
use common::*;
use serde_json::{Value, json};

/// The shipped tools, as `charter tools --json --dialect <d>` prints them.
fn listed(dialect: Dialect) -> Vec<Value> {
    let out = Command::new(BIN)
        .args(["tools", "--json", "--dialect", dialect.as_str()])
        .output()
        .expect("run charter tools");
    assert!(
        out.status.success(),
        "charter tools --dialect {dialect} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("charter tools --json prints JSON")
}

#[test]
fn every_shipped_tool_is_accepted_in_every_dialect() {
    let mut entries = Vec::new();
    let mut counts = Vec::new();
    for d in Dialect::ALL {
        let tools = listed(d);
        let views: usize = tools
            .iter()
            .map(|t| t["views"].as_array().map_or(0, Vec::len))
            .sum();
        counts.push((d, tools.len(), views));
        for t in &tools {
            for v in t["views"].as_array().into_iter().flatten() {
                entries.push(json!({
                    "name": t["name"], "description": t["description"],
                    "dialect": d.as_str(), "schema": v["schema"],
                }));
            }
        }
    }
    let scratch = std::env::temp_dir().join(format!("charter-judge-{}.json", std::process::id()));
    let verdicts = charter_testkit::judge::judge(&entries, &scratch);
    let _ = std::fs::remove_file(&scratch);
    let mut failures = Vec::new();
    for (d, tools, views) in counts {
        let v = verdicts
            .get(d.as_str())
            .unwrap_or_else(|| panic!("the judges said nothing about {d}"));
        assert_eq!(v.judged, views, "{d}: every view judged");
        let refused: BTreeSet<&str> = v
            .refused
            .iter()
            .map(|r| r.split(':').next().unwrap_or(""))
            .collect();
        println!(
            "{d} {}/{tools} tools ({}/{views} views) accepted",
            tools - refused.len(),
            v.accepted
        );
        failures.extend(v.refused.iter().map(|r| format!("{d}: {r}")));
    }
    assert_eq!(
        counts_total(&entries),
        Dialect::ALL.len() * listed(Dialect::Mcp).len(),
        "every tool in every dialect"
    );
    assert!(
        failures.is_empty(),
        "{} refusals:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Distinct `(dialect, tool)` pairs among the entries.
fn counts_total(entries: &[Value]) -> usize {
    entries
        .iter()
        .map(|e| (e["dialect"].to_string(), e["name"].to_string()))
        .collect::<BTreeSet<_>>()
        .len()
}
