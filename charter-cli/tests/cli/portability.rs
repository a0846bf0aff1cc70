//! The MCP Inspector's schema-portability check (`--cli --strict ... --method tools/list`, npm
//! `@modelcontextprotocol/inspector`) over what `charter mcp` serves: every shipped tool, and the
//! fixed tools of a search-and-call session. It flags `type` arrays, boolean and untyped
//! subschemas and references outside the document; charter's portable form (docs/design.md §3)
//! must give it nothing to report, neither an error nor a warning.
//!
//! The Inspector and Node 22 (which it requires) are npm packages, installed on first use under
//! `target/npm/` (`charter_testkit::npm`; `CHARTER_INSPECTOR_PREFIX` points elsewhere).

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::*;
use serde_json::Value;

/// The Inspector's version (the one whose portability warnings docs/design.md §3 quotes).
const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";

/// Node and the Inspector's launcher.
fn inspector() -> (PathBuf, PathBuf) {
    let dir = charter_testkit::npm::prefix(
        "inspector-2.12.0",
        &[charter_testkit::npm::NODE, INSPECTOR],
        "CHARTER_INSPECTOR_PREFIX",
    );
    let launcher =
        dir.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        launcher.is_file(),
        "the MCP Inspector is not in {}",
        dir.display()
    );
    (charter_testkit::npm::node(&dir), launcher)
}

/// Runs `inspector --cli --strict --format json <charter mcp args> --method tools/list` and
/// returns the tools it listed, after checking it reported no portability finding at all.
fn strict_tools_list(args: &[&str]) -> Vec<Value> {
    let (node, launcher) = inspector();
    let out = Command::new(node)
        .arg(launcher)
        .args(["--cli", "--strict", "--format", "json", BIN, "mcp"])
        .args(args)
        .args(["--method", "tools/list"])
        .env_remove("GITHUB_TOKEN")
        .env_remove("STRIPE_API_KEY")
        .env("NO_COLOR", "1")
        .output()
        .expect("run the MCP Inspector");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Inspector failed ({}):\n{stderr}",
        out.status
    );
    // With findings, `--strict` prints each on stderr ("Warning: tool ..." / "Error: tool ...")
    // and puts them in the JSON envelope's `schemaFindings`.
    assert!(
        !stderr.contains("Warning: tool") && !stderr.contains("Error: tool"),
        "portability findings:\n{stderr}"
    );
    let envelope: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the Inspector's JSON answer: {e}\n{stdout}"));
    assert!(
        envelope.get("schemaFindings").is_none(),
        "portability findings: {}",
        envelope["schemaFindings"]
    );
    envelope["result"]["tools"]
        .as_array()
        .expect("a tools/list result")
        .clone()
}

#[test]
fn every_shipped_tool_is_portable() {
    let tools = strict_tools_list(&[]);
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        shipped_names(),
        "every shipped tool was listed and checked"
    );
    assert!(names.len() >= 1_000);
    // What the Inspector read is what the tables hold (as JSON values: its client's parser
    // moves the root's `description` after the members it knows).
    for (tool, def) in tools
        .iter()
        .zip(charter::packs::ALL.iter().flat_map(|t| t.tools))
    {
        let compiled: Value = serde_json::from_str(def.views[0].schema).unwrap();
        assert_eq!(tool["inputSchema"], compiled, "{}", def.name);
    }
}

#[test]
fn search_and_call_tools_are_portable() {
    let tools = strict_tools_list(&["--pack", "github", "--progressive=search-and-call"]);
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["ToolSearch", "CallTool"]);
}
