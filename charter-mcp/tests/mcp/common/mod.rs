//! What the bridge's tests share: connecting to the fixture servers (`charter_testkit::mcp`).

#![allow(dead_code)]

use std::time::Duration;

use charter_mcp::{McpToolkit, ToolkitOptions, Upstream};
use charter_runtime::scheduler::{CallResult, ToolCall};
use serde_json::Value;

pub use charter_testkit::mcp::fixture;

/// Options with timeouts short enough that a broken test fails in seconds, not minutes.
pub fn options() -> ToolkitOptions {
    ToolkitOptions {
        connect_timeout: Duration::from_secs(20),
        list_timeout: Duration::from_secs(10),
        call_timeout: Duration::from_secs(10),
        ..ToolkitOptions::default()
    }
}

/// The counting kit on charter's MCP server, over stdio.
pub async fn kit(label: &str, args: &[&str]) -> McpToolkit {
    McpToolkit::connect(
        label,
        Upstream::command(fixture(), args.iter().copied()),
        options(),
    )
    .await
    .expect("connect to the fixture")
}

/// One call of a batch.
pub fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
    }
}

/// The same calls under another name prefix (`kit_read` → `up_kit_read`).
pub fn renamed(calls: &[ToolCall], prefix: &str) -> Vec<ToolCall> {
    calls
        .iter()
        .map(|c| ToolCall {
            name: format!("{prefix}{}", c.name),
            ..c.clone()
        })
        .collect()
}

/// Waits (at most `within`) until `check` holds, polling.
pub async fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if check() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The content of one result parsed as JSON.
pub fn json_of(result: &CallResult) -> Value {
    serde_json::from_str(&result.content)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", result.content))
}
