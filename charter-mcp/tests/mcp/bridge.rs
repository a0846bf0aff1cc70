//! The MCP client bridge against real servers over real pipes and real HTTP: listing (every
//! page), names, sizes, annotations, results, list changes followed into a session, dead servers
//! and timeouts.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use charter_mcp::client::{MAX_NAME, RenameReason};
use charter_mcp::{BridgeError, McpToolkit, ToolkitOptions, Upstream};
use charter_runtime::session::{SessionOptions, TOOL_SEARCH, ToolSession};
use charter_runtime::table::Annotations;
use charter_runtime::{CallContext, concurrency_safe, text_tokens};
use serde_json::json;
use tokio::io::AsyncBufReadExt;

use common::*;

async fn paged() -> McpToolkit {
    kit("up", &["--paged"]).await
}

fn names(kit: &McpToolkit) -> Vec<String> {
    kit.dynamic_tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

#[tokio::test]
async fn lists_every_page_with_valid_names_sizes_and_annotations() {
    let up = paged().await;
    let listed = names(&up);
    assert_eq!(listed.len(), 6, "three pages of two: {listed:?}");
    assert_eq!(
        listed[..4],
        [
            "up_echo",
            "up_get_sum",
            "up_long_running_operation",
            "up_get_sum_2"
        ]
    );
    assert_eq!(listed[5], "up_grow");
    let long = &listed[4];
    assert_eq!(long.len(), MAX_NAME, "{long}");
    assert!(long.starts_with("up_a_remarkably_long_tool_name"), "{long}");
    for name in &listed {
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && !name.contains("__"),
            "{name}"
        );
    }
    // Every change of name is reported, and the server's own name is what a call sends.
    let renames = up.renames();
    let reason = |remote: &str| {
        renames
            .iter()
            .find(|r| r.remote == remote)
            .map(|r| r.reason)
    };
    assert_eq!(reason("get-sum"), Some(RenameReason::Sanitised));
    assert_eq!(
        reason("longRunningOperation"),
        Some(RenameReason::Sanitised)
    );
    assert_eq!(reason("get_sum"), Some(RenameReason::Disambiguated));
    assert_eq!(
        reason("a.remarkably.long.tool.name.that.keeps.going.well.past.fifty"),
        Some(RenameReason::Shortened)
    );
    assert_eq!(reason("echo"), None);
    assert_eq!(up.remote_name("up_get_sum_2").as_deref(), Some("get_sum"));
    assert_eq!(
        up.remote_name(long).as_deref(),
        Some("a.remarkably.long.tool.name.that.keeps.going.well.past.fifty")
    );

    // Schemas are the server's, as compact JSON text, sized on arrival.
    let tools = up.dynamic_tools();
    let echo = &tools[0];
    assert_eq!(
        &*echo.schema,
        r#"{"type":"object","properties":{"message":{"type":"string","description":"what to echo"}}}"#
    );
    assert_eq!(echo.tokens, text_tokens(&echo.schema));
    assert_eq!(&*echo.description, "Echoes the message back.");

    // Annotations: explicit booleans only.
    assert_eq!(
        echo.annotations,
        Annotations::new()
            .with_read_only(true)
            .with_idempotent(true)
    );
    assert!(tools[1].annotations.read_only);
    assert!(!tools[1].annotations.idempotent, "an absent hint is false");
    assert_eq!(
        tools[2].annotations,
        Annotations::default(),
        "no annotations at all"
    );
    assert_eq!(
        up.remote_annotations("up_echo"),
        Some(json!({"readOnlyHint": true, "idempotentHint": true}))
    );
    assert_eq!(
        up.remote_annotations("up_get_sum"),
        Some(json!({"readOnlyHint": true}))
    );
    assert_eq!(
        up.remote_annotations("up_long_running_operation"),
        Some(json!({}))
    );
    assert!(concurrency_safe(&up.remote_annotations("up_echo").unwrap()));
    assert!(!concurrency_safe(
        &up.remote_annotations("up_get_sum").unwrap()
    ));

    // A re-list that changes nothing keeps the same shared schema text and the generation.
    assert!(!up.refresh().await.unwrap());
    assert!(Arc::ptr_eq(&echo.schema, &up.dynamic_tools()[0].schema));
    assert_eq!(up.generation(), 0);
    up.close().await;
}

#[tokio::test]
async fn call_results_map_to_charter_results() {
    let up = paged().await;
    let ctx = CallContext::new();
    let results = up
        .execute_tool_calls(
            &[
                call("a", "up_get_sum", json!({"a": 1, "b": 2})),
                call("b", "up_echo", json!({"message": "hi"})),
                call("c", "up_nothing", json!({})),
                call("d", "up_echo", json!(["not", "an", "object"])),
                call("e", "up_long_running_operation", serde_json::Value::Null),
            ],
            &ctx,
            4,
        )
        .await;
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    assert_eq!(results[0].content, "3");
    assert_eq!(results[0].structured, Some(json!({"sum": 3.0})));
    assert!(!results[0].is_error);
    // Two text blocks: the call number (serial batch: the third call) and the arguments.
    assert_eq!(results[1].content, "echo #2\n{\"message\":\"hi\"}");
    assert_eq!(results[1].structured, None);
    assert!(results[2].is_error);
    assert!(
        results[2].content.contains("Unknown tool `up_nothing`"),
        "{}",
        results[2].content
    );
    assert!(
        results[2].content.contains("up_echo"),
        "{}",
        results[2].content
    );
    assert!(results[3].is_error);
    assert!(
        results[3].content.contains("JSON object"),
        "{}",
        results[3].content
    );
    assert!(!results[4].is_error, "{}", results[4].content);
    assert_eq!(results[4].content, "longRunningOperation #3\n{}");
    up.close().await;
}

#[tokio::test]
async fn list_changes_reach_a_session_with_its_order_rules() {
    let up = paged().await;
    let mut changes = up.subscribe();
    let mut session = ToolSession::with_options(
        vec![
            up.source(),
            charter_runtime::session::Source::Table(&KIT_TABLE),
        ],
        SessionOptions::default(),
    )
    .unwrap();
    // Deferred by default, and found by ToolSearch like any pack.
    let visible: Vec<&str> = session.visible().iter().map(|e| e.name).collect();
    assert_eq!(visible, [TOOL_SEARCH]);
    assert!(session.deferred().contains(&"up_grow"));
    let found = session.search("+up echo", None);
    assert_eq!(found.loaded, ["up_echo"]);
    session.search("select:up_grow", None);
    assert_eq!(session.loaded(), ["up_echo", "up_grow"]);
    assert!(!session.is_stale());

    let ctx = CallContext::new();
    let added = session.dispatch("up_grow", json!({}), &ctx).await.unwrap();
    assert_eq!(added.text, "added-6");
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .expect("the toolkit re-lists after notifications/tools/list_changed")
        .unwrap();
    assert_eq!(up.generation(), 1);
    assert_eq!(names(&up).last().map(String::as_str), Some("up_added_6"));
    assert!(session.is_stale());

    let before = session.generation();
    assert!(session.refresh().unwrap());
    assert!(!session.is_stale());
    assert!(session.generation() > before);
    // Loaded tools keep their load order; the new one joins the deferred catalogue.
    assert_eq!(session.loaded(), ["up_echo", "up_grow"]);
    assert!(session.deferred().contains(&"up_added_6"));
    assert!(!session.is_callable("up_added_6"));
    let visible: Vec<&str> = session.visible().iter().map(|e| e.name).collect();
    assert_eq!(visible, [TOOL_SEARCH, "up_echo", "up_grow"]);
    assert!(
        session
            .tool_search()
            .unwrap()
            .description
            .contains("up_added_6")
    );
    session.search("select:up_added_6", None);
    assert_eq!(session.loaded(), ["up_echo", "up_grow", "up_added_6"]);
    let answer = session
        .dispatch("up_added_6", json!({}), &ctx)
        .await
        .unwrap();
    assert!(answer.text.starts_with("added-6 #"), "{}", answer.text);
    // Nothing changed since: refreshing is a no-op.
    assert!(!session.refresh().unwrap());
    up.close().await;
}

/// A static table beside the toolkit, to show the two sources share one session.
static KIT_TABLE: charter_runtime::Table = charter_runtime::Table::new("local", "none", &[]);

#[tokio::test]
async fn a_progressive_charter_server_is_followed_as_it_loads() {
    let up = kit("up", &["--progressive"]).await;
    assert_eq!(names(&up), ["up_tool_search"]);
    let mut changes = up.subscribe();
    let ctx = CallContext::new();
    let answer = up
        .execute_tool_calls(
            &[call(
                "s",
                "up_tool_search",
                json!({"query": "select:kit_read,kit_stat"}),
            )],
            &ctx,
            4,
        )
        .await;
    assert!(!answer[0].is_error, "{}", answer[0].content);
    assert_eq!(
        json_of(&answer[0])["loaded"],
        json!(["kit_read", "kit_stat"])
    );
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .expect("list_changed followed")
        .unwrap();
    assert_eq!(names(&up), ["up_tool_search", "up_kit_read", "up_kit_stat"]);
    let read = up
        .execute_tool_calls(&[call("r", "up_kit_read", json!({"key": "k"}))], &ctx, 4)
        .await;
    assert_eq!(
        json_of(&read[0]),
        json!({"key": "k", "value": "value of k"})
    );
    up.close().await;
}

fn kill(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

#[tokio::test]
async fn a_killed_child_answers_error_results_promptly() {
    let options = ToolkitOptions {
        call_timeout: Duration::from_secs(120),
        ..options()
    };
    let up = McpToolkit::connect(
        "up",
        Upstream::command(fixture(), Vec::<String>::new()),
        options,
    )
    .await
    .unwrap();
    let ctx = CallContext::new();
    let pid = up.child_pid().expect("a child pid");
    // Killed while a call is in flight: the call answers an error, long before its timeout.
    let calls = [
        call("slow", "up_kit_slow", json!({"ms": 60_000})),
        call("after", "up_kit_read", json!({"key": "a"})),
    ];
    let pending = up.execute_tool_calls(&calls, &ctx, 1);
    let killer = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        kill(pid);
    };
    let (results, ()) = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::join!(pending, killer)
    })
    .await
    .expect("a dead server never hangs a batch");
    for result in &results {
        assert!(result.is_error, "{result:?}");
        assert!(result.content.contains("unreachable"), "{}", result.content);
    }
    assert!(eventually(Duration::from_secs(10), || up.down().is_some()).await);
    // Every later call: an error result at once, naming the server and why.
    let later = tokio::time::timeout(
        Duration::from_secs(10),
        up.execute_tool_calls(
            &[
                call("x", "up_kit_read", json!({"key": "a"})),
                call("y", "up_kit_stat", json!({"key": "a"})),
            ],
            &ctx,
            4,
        ),
    )
    .await
    .expect("no hang");
    assert_eq!(later.len(), 2);
    for result in &later {
        assert!(result.is_error);
        assert!(result.content.contains("`up`"), "{}", result.content);
        assert!(
            result.content.contains("closed the connection"),
            "{}",
            result.content
        );
    }
    // A session holding it answers the same way.
    let session = ToolSession::with_options(
        vec![up.source()],
        SessionOptions::new().with_disclosure(charter_mcp::Disclosure::Eager),
    )
    .unwrap();
    let error = session
        .dispatch("up_kit_read", json!({"key": "a"}), &ctx)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("unreachable"), "{error}");
    assert!(
        up.refresh().await.is_err(),
        "listing a dead server is an error"
    );
}

#[tokio::test]
async fn a_call_past_its_timeout_is_an_error_result_and_the_connection_survives() {
    let options = ToolkitOptions {
        call_timeout: Duration::from_millis(300),
        ..options()
    };
    let up = McpToolkit::connect(
        "up",
        Upstream::command(fixture(), Vec::<String>::new()),
        options,
    )
    .await
    .unwrap();
    let ctx = CallContext::new();
    let results = up
        .execute_tool_calls(
            &[
                call("slow", "up_kit_slow", json!({"ms": 20_000})),
                call("fast", "up_kit_read", json!({"key": "a"})),
            ],
            &ctx,
            4,
        )
        .await;
    assert!(results[0].is_error);
    assert!(
        results[0]
            .content
            .contains("did not answer `up_kit_slow` within 0.3 s"),
        "{}",
        results[0].content
    );
    assert!(!results[1].is_error, "{}", results[1].content);
    assert!(up.down().is_none());
    up.close().await;
    assert!(up.down().is_some());
    let closed = up
        .execute_tool_calls(&[call("z", "up_kit_read", json!({"key": "a"}))], &ctx, 4)
        .await;
    assert!(
        closed[0].is_error && closed[0].content.contains("closed by this client"),
        "{}",
        closed[0].content
    );
}

#[tokio::test]
async fn connecting_fails_with_errors_not_panics_or_hangs() {
    let quick = ToolkitOptions {
        connect_timeout: Duration::from_secs(5),
        ..options()
    };
    let missing = McpToolkit::connect(
        "up",
        Upstream::command("/nonexistent/charter-mcp-server", Vec::<String>::new()),
        quick.clone(),
    )
    .await
    .unwrap_err();
    assert!(matches!(missing, BridgeError::Spawn { .. }), "{missing}");
    assert!(
        missing.to_string().contains("charter-mcp-server"),
        "{missing}"
    );

    // A program that exits at once: the pipe closes during initialize.
    let exits = McpToolkit::connect(
        "up",
        Upstream::command("true", Vec::<String>::new()),
        quick.clone(),
    )
    .await
    .unwrap_err();
    assert!(matches!(exits, BridgeError::Connect { .. }), "{exits}");

    // A program that never speaks: the connect timeout.
    let silent = McpToolkit::connect(
        "up",
        Upstream::command("sleep", ["30"]),
        ToolkitOptions {
            connect_timeout: Duration::from_millis(500),
            ..options()
        },
    )
    .await
    .unwrap_err();
    assert!(
        matches!(
            silent,
            BridgeError::Timeout {
                what: "initialize",
                ..
            }
        ),
        "{silent}"
    );

    let label = McpToolkit::connect(
        "Bad_Label",
        Upstream::command(fixture(), Vec::<String>::new()),
        quick.clone(),
    )
    .await
    .unwrap_err();
    assert!(matches!(label, BridgeError::Label(_)), "{label}");

    // Nothing listens on the port: an error, not a hang.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let http = McpToolkit::connect(
        "up",
        Upstream::http(format!("http://127.0.0.1:{port}/mcp")),
        quick,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(
            http,
            BridgeError::Connect { .. } | BridgeError::Timeout { .. }
        ),
        "{http}"
    );
}

/// The kit on charter's MCP server over streamable HTTP, and its URL.
async fn http_fixture() -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(fixture())
        .arg("--http")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let url = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("the fixture prints its URL")
        .unwrap()
        .expect("a URL line");
    (child, url)
}

#[tokio::test]
async fn over_streamable_http_list_call_batch_and_a_server_gone() {
    let (mut server, url) = http_fixture().await;
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let up = McpToolkit::connect("web", Upstream::http(url), options())
        .await
        .unwrap();
    assert_eq!(up.child_pid(), None);
    let expected: Vec<String> = [
        "read", "stat", "write", "fail", "panic", "slow", "count", "reset",
    ]
    .iter()
    .map(|t| format!("web_kit_{t}"))
    .collect();
    assert_eq!(names(&up), expected);
    let ctx = CallContext::new();
    let results = up
        .execute_tool_calls(
            &[
                call("1", "web_kit_read", json!({"key": "a"})),
                call("2", "web_kit_read", json!({"key": "a"})),
                call("3", "web_kit_stat", json!({"key": "abc"})),
                call("4", "web_kit_fail", json!({"reason": "x"})),
            ],
            &ctx,
            4,
        )
        .await;
    assert_eq!(
        json_of(&results[1]),
        json!({"key": "a", "value": "value of a"})
    );
    assert_eq!(results[1].id, "2");
    assert_eq!(json_of(&results[2]), json!({"key": "abc", "length": 12}));
    assert!(results[3].is_error && results[3].content == "kit_fail failed: x");
    let counts = up
        .execute_tool_calls(&[call("n", "web_kit_count", json!({}))], &ctx, 4)
        .await;
    assert_eq!(
        json_of(&counts[0])["read"],
        json!(1),
        "the duplicate read ran once"
    );

    server.kill().await.unwrap();
    let gone = tokio::time::timeout(
        Duration::from_secs(30),
        up.execute_tool_calls(
            &[
                call("5", "web_kit_read", json!({"key": "a"})),
                call("6", "web_kit_write", json!({"key": "a", "value": "b"})),
            ],
            &ctx,
            4,
        ),
    )
    .await
    .expect("an HTTP server that went away never hangs a batch");
    for result in &gone {
        assert!(result.is_error, "{result:?}");
        assert!(result.content.contains("unreachable"), "{}", result.content);
        assert!(result.content.contains("`web`"), "{}", result.content);
    }
    up.close().await;
}
