//! The bridge against a server this project did not write: the MCP reference server
//! `@modelcontextprotocol/server-everything` (Node), over stdio and streamable HTTP.
//!
//! `charter_testkit::everything` finds or installs it (npm must be on the machine).

use crate::common;

use charter_testkit::everything;

use std::time::Duration;

use charter_mcp::{McpToolkit, ToolkitOptions, Upstream};
use charter_runtime::session::{SessionOptions, ToolSession};
use charter_runtime::table::Annotations;
use charter_runtime::{CallContext, text_tokens};
use serde_json::json;

use common::*;

fn quiet() -> ToolkitOptions {
    ToolkitOptions {
        // The reference server logs to stderr on every start; its failures still surface as errors.
        child_stderr: false,
        ..options()
    }
}

async fn connect(entry: &std::path::Path) -> McpToolkit {
    McpToolkit::connect(
        "everything",
        Upstream::command(
            "node",
            [entry.to_string_lossy().into_owned(), "stdio".into()],
        ),
        quiet(),
    )
    .await
    .expect("connect to server-everything")
}

#[tokio::test]
async fn lists_and_calls_the_reference_server() {
    let entry = everything::entry();
    let up = connect(&entry).await;
    let tools = up.dynamic_tools();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    for expected in [
        "everything_echo",
        "everything_get_sum",
        "everything_get_tiny_image",
        "everything_get_structured_content",
        "everything_trigger_long_running_operation",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert_eq!(
        up.remote_name("everything_get_sum").as_deref(),
        Some("get-sum")
    );
    for tool in &tools {
        assert!(tool.name.len() <= 50, "{}", tool.name);
        assert_eq!(tool.tokens, text_tokens(&tool.schema), "{}", tool.name);
        let schema: serde_json::Value = serde_json::from_str(&tool.schema).unwrap();
        assert_eq!(schema["type"], "object", "{}", tool.name);
    }
    let echo = tools
        .iter()
        .find(|t| &*t.name == "everything_echo")
        .unwrap();
    assert_eq!(
        echo.annotations,
        Annotations::new()
            .with_read_only(true)
            .with_idempotent(true)
    );
    assert!(echo.schema.contains("\"message\""), "{}", echo.schema);

    let ctx = CallContext::new();
    let results = up
        .execute_tool_calls(
            &[
                call("1", "everything_echo", json!({"message": "hello"})),
                call("2", "everything_get_sum", json!({"a": 2, "b": 3})),
                call("3", "everything_echo", json!({"message": "hello"})),
                call(
                    "4",
                    "everything_get_structured_content",
                    json!({"location": "Chicago"}),
                ),
                call("5", "everything_get_tiny_image", json!({})),
            ],
            &ctx,
            4,
        )
        .await;
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5"]);
    assert_eq!(results[0].content, "Echo: hello");
    assert_eq!(results[2].content, "Echo: hello");
    assert_eq!(results[1].content, "The sum of 2 and 3 is 5.");
    assert_eq!(
        results[3].structured,
        Some(json!({"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}))
    );
    assert!(
        results[4].content.contains("[image image/png"),
        "{}",
        results[4].content
    );
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");

    // The server's own validation error is an error result the model can read.
    let bad = up
        .execute_tool_calls(
            &[call("x", "everything_get_sum", json!({"a": "two"}))],
            &ctx,
            4,
        )
        .await;
    assert!(bad[0].is_error, "{:?}", bad[0]);

    // In a session beside nothing else: deferred, found by ToolSearch with the label.
    let session = ToolSession::with_options(vec![up.source()], SessionOptions::default()).unwrap();
    assert!(session.deferred().contains(&"everything_get_sum"));
    let found = session.search("+everything sum", None);
    assert_eq!(found.loaded, ["everything_get_sum"]);
    let sum = session
        .dispatch("everything_get_sum", json!({"a": 1.5, "b": 1}), &ctx)
        .await
        .unwrap();
    assert_eq!(sum.text, "The sum of 1.5 and 1 is 2.5.");
    up.close().await;
}

#[tokio::test]
async fn follows_the_tools_it_registers_after_initialize() {
    // server-everything registers its conditional tools (simulate-research-query always) when
    // `notifications/initialized` arrives and announces them with list_changed.
    let entry = everything::entry();
    let up = connect(&entry).await;
    let listed = |up: &McpToolkit| {
        up.dynamic_tools()
            .iter()
            .any(|t| &*t.name == "everything_simulate_research_query")
    };
    assert!(
        eventually(Duration::from_secs(10), || listed(&up)).await,
        "the conditional tool is listed"
    );
    up.close().await;
}

#[tokio::test]
async fn a_killed_reference_server_answers_error_results_promptly() {
    let entry = everything::entry();
    let up = connect(&entry).await;
    let pid = up.child_pid().unwrap();
    let ctx = CallContext::new();
    let calls = [
        call(
            "long",
            "everything_trigger_long_running_operation",
            json!({"duration": 60, "steps": 2}),
        ),
        call("echo", "everything_echo", json!({"message": "after"})),
    ];
    let pending = up.execute_tool_calls(&calls, &ctx, 4);
    let killer = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let status = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    let (results, ()) = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::join!(pending, killer)
    })
    .await
    .expect("no hang after the server died");
    // The echo may have answered before the kill (a concurrent batch); the long call cannot.
    assert!(results[0].is_error, "{:?}", results[0]);
    assert!(
        results[0].content.contains("unreachable"),
        "{}",
        results[0].content
    );
    let later = up
        .execute_tool_calls(
            &[call("again", "everything_echo", json!({"message": "x"}))],
            &ctx,
            4,
        )
        .await;
    assert!(
        later[0].is_error && later[0].content.contains("everything"),
        "{}",
        later[0].content
    );
}

#[tokio::test]
async fn reaches_the_reference_server_over_streamable_http() {
    let entry = everything::entry();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut server = tokio::process::Command::new("node")
        .arg(&entry)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let listening = eventually(Duration::from_secs(20), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .await;
    assert!(listening, "server-everything listens on {port}");
    let up = McpToolkit::connect("everything", Upstream::http(url), options())
        .await
        .expect("connect over HTTP");
    let ctx = CallContext::new();
    let results = up
        .execute_tool_calls(
            &[
                call("1", "everything_echo", json!({"message": "over http"})),
                call("2", "everything_get_sum", json!({"a": 40, "b": 2})),
            ],
            &ctx,
            4,
        )
        .await;
    assert_eq!(results[0].content, "Echo: over http");
    assert_eq!(results[1].content, "The sum of 40 and 2 is 42.");
    up.close().await;
    server.kill().await.unwrap();
}
