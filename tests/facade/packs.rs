//! The shipped packs (`packs/*.yaml`, compiled by `build.rs` into `charter::packs`): each one
//! whose cargo feature is on is compiled in, and every table holds the invariants.

use crate::common;

use std::path::Path;

/// Whether the cargo feature of a shipped pack is on (`None`: a pack without a feature here).
fn feature_on(label: &str) -> Option<bool> {
    match label {
        "github" => Some(cfg!(feature = "pack-github")),
        "stripe" => Some(cfg!(feature = "pack-stripe")),
        "linear" => Some(cfg!(feature = "pack-linear")),
        "firecrawl" => Some(cfg!(feature = "pack-firecrawl")),
        "tavily" => Some(cfg!(feature = "pack-tavily")),
        "shopify" => Some(cfg!(feature = "pack-shopify")),
        "gmail" => Some(cfg!(feature = "pack-gmail")),
        "gcalendar" => Some(cfg!(feature = "pack-gcalendar")),
        "gdrive" => Some(cfg!(feature = "pack-gdrive")),
        "gsheets" => Some(cfg!(feature = "pack-gsheets")),
        "slack" => Some(cfg!(feature = "pack-slack")),
        "notion" => Some(cfg!(feature = "pack-notion")),
        "gdocs" => Some(cfg!(feature = "pack-gdocs")),
        "gforms" => Some(cfg!(feature = "pack-gforms")),
        "outlook" => Some(cfg!(feature = "pack-outlook")),
        "granola" => Some(cfg!(feature = "pack-granola")),
        _ => None,
    }
}

/// The `pack:` label of a pack file (a top-level `pack: <label>` line).
fn label_of(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("pack:"))
        .map(|rest| rest.split('#').next().unwrap_or_default().trim().to_owned())
}

#[test]
fn every_enabled_pack_is_compiled_in_and_nothing_else() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("packs");
    let compiled: Vec<&str> = charter::packs::ALL.iter().map(|t| t.pack).collect();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            let label = label_of(&std::fs::read_to_string(&path).unwrap()).expect("a pack label");
            match feature_on(&label) {
                Some(true) => assert!(
                    compiled.contains(&label.as_str()),
                    "{label} is enabled but missing"
                ),
                Some(false) => assert!(
                    !compiled.contains(&label.as_str()),
                    "{label} is disabled but compiled"
                ),
                None => {}
            }
            files.push(label);
        }
    }
    for pack in &compiled {
        assert!(
            files.iter().any(|f| f == pack),
            "{pack} has no file in packs/"
        );
    }
    let mut unique = compiled.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), compiled.len(), "one table per pack");
}

#[test]
fn every_shipped_table_holds_the_invariants() {
    for table in charter::packs::ALL {
        common::check_table(table);
    }
}

/// Anthropic's and OpenAI's documented rules for a tool definition (root `type: object`, no
/// combinator, `enum` or `not` at the root, arrays with `items`, names within 64 characters
/// under an MCP host's `mcp__charter__` prefix) hold for every view of every shipped tool.
#[test]
fn every_shipped_view_meets_the_model_apis_rules() {
    let tools = charter::packs::ALL.iter().flat_map(|t| t.tools.iter());
    let problems = charter_testkit::providers::tool_problems(tools);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
