//! `charter mcp --upstream`: other MCP servers' tools served beside the packs, behind the same
//! ToolSearch, so a client with one connection reaches many servers. The upstream here is a
//! second `charter` process (serving github against a stub API), and the reference server
//! `@modelcontextprotocol/server-everything` (found or installed by
//! `charter_testkit::everything`).

use crate::common;

use std::time::Duration;

use charter_testkit::everything;
use common::*;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn one_connection_reaches_the_packs_and_every_upstream() {
    let stub = Stub::start_json(issues_fixture()).await;
    let inner = format!(
        "inner=CHARTER_GITHUB_BASE_URL={} GITHUB_TOKEN=upstream_token_42 {BIN} mcp --pack github",
        stub.base
    );
    let everything = everything::entry();
    let everything_arg = format!("node '{}' stdio", everything.display());
    let argv = vec![
        "mcp",
        "--pack",
        "stripe",
        "--progressive",
        "--upstream",
        inner.as_str(),
        "--upstream",
        everything_arg.as_str(),
    ];
    let mut c = connect_stdio(&argv, &[]).await;
    // Upstream children share charter's stderr (their own start messages come first).
    let mut line = next_line(&mut c.stderr).await;
    for _ in 0..10 {
        if line.contains("from stripe") {
            break;
        }
        line = next_line(&mut c.stderr).await;
    }
    assert!(
        line.contains("from stripe, inner (upstream MCP server)"),
        "{line}"
    );
    assert!(line.contains("up2 (upstream MCP server)"), "{line}");
    let capabilities = c.client.peer_info().unwrap().capabilities.clone();
    assert_eq!(capabilities.tools.unwrap().list_changed, Some(true));

    // Progressive: only ToolSearch, whose catalogue names the upstream beside the pack (one
    // line each: hundreds of tools are too many to name one by one).
    let listed = c.client.list_all_tools().await.unwrap();
    assert_eq!(names(&listed), ["ToolSearch"]);
    let catalogue = listed[0].description.as_deref().unwrap_or_default();
    let packs: Vec<&str> = catalogue
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(':').map(|(pack, _)| pack))
        .collect();
    assert!(
        packs.contains(&"inner"),
        "the upstream is searchable: {catalogue}"
    );
    assert!(packs.contains(&"stripe"), "{catalogue}");
    assert!(
        catalogue.contains("- inner: tools of an upstream MCP server ("),
        "{catalogue}"
    );

    let loaded = c
        .client
        .call_tool(
            CallToolRequestParams::new("ToolSearch")
                .with_arguments(args(json!({"query": "+inner issues get"}))),
        )
        .await
        .unwrap();
    assert!(
        text_of(&loaded).contains("inner_github_issues_get"),
        "{}",
        text_of(&loaded)
    );
    tokio::time::timeout(Duration::from_secs(10), c.changed.recv())
        .await
        .expect("list_changed after the load");
    let listed = c.client.list_all_tools().await.unwrap();
    let get = listed
        .iter()
        .find(|t| t.name == "inner_github_issues_get")
        .expect("the loaded upstream tool is listed");
    assert_eq!(get.annotations.as_ref().unwrap().read_only_hint, Some(true));

    // The call goes client → charter → upstream charter → the API, and back.
    let result = c
        .client
        .call_tool(
            CallToolRequestParams::new("inner_github_issues_get").with_arguments(args(json!({
                "owner": "octo", "repo": "hello", "issue_number": 7
            }))),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
    assert!(
        text_of(&result).contains("Crash on start"),
        "{}",
        text_of(&result)
    );
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/repos/octo/hello/issues/7");
    assert_eq!(
        seen[0].header("authorization"),
        Some("Bearer upstream_token_42")
    );

    // The upstream's own validation error reaches the model as an error result.
    let bad = c
        .client
        .call_tool(
            CallToolRequestParams::new("inner_github_issues_get")
                .with_arguments(args(json!({"owner": "octo"}))),
        )
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert!(text_of(&bad).contains("repo"), "{}", text_of(&bad));

    c.client
        .call_tool(
            CallToolRequestParams::new("ToolSearch")
                .with_arguments(args(json!({"query": "select:up2_echo"}))),
        )
        .await
        .unwrap();
    let echo = c
        .client
        .call_tool(
            CallToolRequestParams::new("up2_echo")
                .with_arguments(args(json!({"message": "through charter"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&echo), "Echo: through charter");
    c.client.cancel().await.unwrap();
}

#[test]
fn upstream_mistakes_are_reported_without_their_secrets() {
    let (code, _, err) = run_cli(
        &[
            "mcp",
            "--pack",
            "stripe",
            "--upstream",
            "SECRET_TOKEN=hunter2 /nonexistent/mcp-server --key hunter2",
        ],
        &[],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("cannot start MCP server `up1` `mcp-server`"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");

    let (code, _, err) = run_cli(
        &["mcp", "--upstream", "a=node x", "--upstream", "a=node y"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("two upstreams are labelled `a`"), "{err}");

    let (code, _, err) = run_cli(&["mcp", "--upstream-http", "ftp://example"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("http:// or https://"), "{err}");

    let (code, _, err) = run_cli(&["mcp", "--upstream", "node 'unclosed"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not closed"), "{err}");
}
