//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, npm) against
//! `charter mcp --http`, once per protocol revision, with the revision's frozen requirement set
//! and a baseline of the scenarios that do not apply to a tools-only server
//! (`tests/conformance/<revision>.yaml`, reasons in the README). The suite exits non-zero on any
//! failure outside the baseline and on a baseline entry that passes, so either fails this test.
//!
//! The suite and Node 22 are npm packages, installed on first use under `target/npm/`
//! (`charter_testkit::npm`; `CHARTER_CONFORMANCE_DIR` points elsewhere). Without npm the test
//! fails and says what to install.

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;

/// The suite's version: the newest published when this was written.
const SUITE_VERSION: &str = "0.2.0-alpha.12";

/// Node and the suite's entry point: `CHARTER_CONFORMANCE_DIR` (an npm prefix) when set, else
/// installed under `target/npm/` on first use.
fn suite() -> (PathBuf, PathBuf) {
    let dir = charter_testkit::npm::prefix(
        &format!("conformance-{SUITE_VERSION}"),
        &[
            charter_testkit::npm::NODE,
            &format!("@modelcontextprotocol/conformance@{SUITE_VERSION}"),
        ],
        "CHARTER_CONFORMANCE_DIR",
    );
    let node = charter_testkit::npm::node(&dir);
    let cli = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        cli.is_file(),
        "the MCP conformance suite is not in {}: npm install --prefix {} {} \
         @modelcontextprotocol/conformance@{SUITE_VERSION}",
        dir.display(),
        dir.display(),
        charter_testkit::npm::NODE
    );
    (node, cli)
}

/// Serves every pack progressively over HTTP and runs the suite's requirement set for
/// `revision` against it.
async fn conform(revision: &str) {
    let (node, cli) = suite();
    let server = spawn_http(&["--pack", "github,stripe", "--progressive"], &[]).await;
    let baseline = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(format!("{revision}.yaml"));
    let out = std::env::temp_dir().join(format!(
        "charter-conformance-{revision}-{}",
        std::process::id()
    ));
    let run = tokio::process::Command::new(&node)
        .arg(&cli)
        .args(["server", "--url", &server.url, "--requirements", revision])
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("-o")
        .arg(&out)
        .env("NO_COLOR", "1")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(600), run)
        .await
        .expect("the suite finishes within 10 minutes")
        .expect("run node");
    let _ = std::fs::remove_dir_all(&out);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "conformance {revision} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("Baseline check passed"),
        "no baseline verdict:\n{stdout}"
    );
}

#[tokio::test]
async fn official_suite_2026_07_28() {
    conform("2026-07-28").await;
}

#[tokio::test]
async fn official_suite_2025_11_25() {
    conform("2025-11-25").await;
}
