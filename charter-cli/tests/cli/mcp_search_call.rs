//! Search-and-call over the real binary: rmcp's client over stdio and streamable HTTP, on
//! protocol 2026-07-28 (where a bare `--progressive` serves search-and-call, the list being
//! forbidden to change) and on 2025-06-18 (with `--progressive=search-and-call`), calling GitHub
//! pack tools against a 127.0.0.1 stub that records each request.

use crate::common;

use common::*;
use rmcp::RoleClient;
use rmcp::model::{CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use serde_json::{Value, json};

type Client = RunningService<RoleClient, Watcher>;

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    call_tool(client, name, arguments).await
}

/// Connects over stdio or HTTP on `revision`; 2026-07-28 uses a bare `--progressive`, the
/// older revision asks for search-and-call explicitly. Returns the HTTP child to keep it alive.
async fn connect(
    http: bool,
    revision: ProtocolVersion,
    stub: &Stub,
) -> (Client, Option<HttpChild>) {
    let progressive = if revision == ProtocolVersion::V_2026_07_28 {
        "--progressive"
    } else {
        "--progressive=search-and-call"
    };
    let env = [
        ("CHARTER_GITHUB_BASE_URL", stub.base.as_str()),
        ("GITHUB_TOKEN", TOKEN),
    ];
    let packs = ["--pack", "github,stripe", progressive];
    connect_on(http, revision, &packs, &env, "search-and-call").await
}

fn json_text(result: &CallToolResult) -> Value {
    let text = text_of(result);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The whole scenario: search → call, bad arguments, an unknown name, and two batches.
async fn search_and_call(http: bool, revision: ProtocolVersion) {
    let stub = Stub::start_json(issues_fixture()).await;
    let (client, _child) = connect(http, revision, &stub).await;
    assert_eq!(names(&client).await, ["ToolSearch", "CallTool"]);

    // ToolSearch finds the tool and hands over its schema; nothing else changes.
    let found = call(
        &client,
        "ToolSearch",
        json!({"query": "list repository issues", "max_results": 3}),
    )
    .await;
    assert_ne!(found.is_error, Some(true), "{}", text_of(&found));
    let found = json_text(&found);
    let tools = found["tools"].as_array().expect("tools");
    let list = tools
        .iter()
        .find(|t| t["name"] == "github_issues_list")
        .unwrap_or_else(|| panic!("github_issues_list not found: {found}"));
    assert!(list["description"].as_str().is_some_and(|d| !d.is_empty()));
    let properties = &list["inputSchema"]["properties"];
    assert!(
        properties["owner"].is_object() && properties["repo"].is_object(),
        "{list}"
    );
    assert_eq!(names(&client).await, ["ToolSearch", "CallTool"]);

    // CallTool runs the found tool: the stub sees the exact request.
    let listed = call(
        &client,
        "CallTool",
        json!({"name": "github_issues_list",
                   "arguments": {"owner": "octo", "repo": "hello", "state": "open"}}),
    )
    .await;
    assert_ne!(listed.is_error, Some(true), "{}", text_of(&listed));
    assert!(text_of(&listed).contains("Crash on start"));
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("GET", "/repos/octo/hello/issues")
    );
    assert!(
        seen[0]
            .query_pairs()
            .contains(&("state".into(), "open".into())),
        "{:?}",
        seen[0].query
    );
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );

    // A tool never searched works too (no per-connection state), with the same pack rules.
    let get = call(
        &client,
        "CallTool",
        json!({"name": "github_issues_get",
                   "arguments": {"owner": "octo", "repo": "hello", "issue_number": 7}}),
    )
    .await;
    assert_ne!(get.is_error, Some(true), "{}", text_of(&get));
    assert_eq!(stub.requests()[1].path, "/repos/octo/hello/issues/7");

    // Bad arguments: the same isError message as a direct call of the tool.
    let bad = json!({"owner": 5, "repo": "hello", "extra": true});
    let through = call(
        &client,
        "CallTool",
        json!({"name": "github_issues_list", "arguments": bad.clone()}),
    )
    .await;
    let direct = call(&client, "github_issues_list", bad).await;
    assert_eq!(through.is_error, Some(true));
    assert_eq!(direct.is_error, Some(true));
    assert_eq!(text_of(&through), text_of(&direct));
    assert!(
        text_of(&through).contains("/owner") && text_of(&through).contains("extra"),
        "{}",
        text_of(&through)
    );

    // An unknown name: the closest names.
    let unknown = call(
        &client,
        "CallTool",
        json!({"name": "github_issue_list", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown.is_error, Some(true));
    let message = text_of(&unknown);
    assert!(
        message.contains("Closest names:") && message.contains("github_issues_list"),
        "{message}"
    );
    assert_eq!(stub.requests().len(), 2, "nothing sent for refused calls");

    // A batch of read-only calls: identical ones run once, results in the calls' order.
    let hello =
        json!({"name": "github_issues_list", "arguments": {"owner": "octo", "repo": "hello"}});
    let world =
        json!({"name": "github_issues_list", "arguments": {"owner": "octo", "repo": "world"}});
    let batch = call(
        &client,
        "CallTool",
        json!({"calls": [hello.clone(), world.clone(), hello.clone()]}),
    )
    .await;
    assert_ne!(batch.is_error, Some(true), "{}", text_of(&batch));
    let results = json_text(&batch)["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["isError"] == false), "{results:?}");
    assert_eq!(results[0], results[2]);
    let paths: Vec<String> = stub.requests()[2..]
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert_eq!(paths.len(), 2, "the duplicate ran once: {paths:?}");
    assert!(paths.contains(&"/repos/octo/hello/issues".to_owned()));
    assert!(paths.contains(&"/repos/octo/world/issues".to_owned()));

    // With a call that is not read-only the batch runs in order, every call once.
    let create = json!({"name": "github_issues_create",
                        "arguments": {"owner": "octo", "repo": "hello", "title": "Broken"}});
    let batch = call(
        &client,
        "CallTool",
        json!({"calls": [create, hello.clone(), hello, {"name": "github_isues_get"}]}),
    )
    .await;
    let results = json_text(&batch)["results"].as_array().unwrap().clone();
    let flags: Vec<&Value> = results.iter().map(|r| &r["isError"]).collect();
    assert_eq!(flags, [false, false, false, true], "{results:?}");
    assert!(
        results[3]["output"]
            .as_str()
            .is_some_and(|m| m.contains("Closest names: github_issues_get")),
        "{results:?}"
    );
    let serial: Vec<(String, String)> = stub.requests()[4..]
        .iter()
        .map(|s| (s.method.clone(), s.path.clone()))
        .collect();
    assert_eq!(
        serial,
        [
            ("POST".into(), "/repos/octo/hello/issues".into()),
            ("GET".into(), "/repos/octo/hello/issues".into()),
            ("GET".into(), "/repos/octo/hello/issues".into()),
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdio_2026_07_28_search_then_call() {
    search_and_call(false, ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test]
async fn stdio_2025_06_18_search_then_call() {
    search_and_call(false, ProtocolVersion::V_2025_06_18).await;
}

#[tokio::test]
async fn http_2026_07_28_search_then_call() {
    search_and_call(true, ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test]
async fn http_2025_06_18_search_then_call() {
    search_and_call(true, ProtocolVersion::V_2025_06_18).await;
}
