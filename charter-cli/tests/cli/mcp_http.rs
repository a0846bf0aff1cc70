//! `charter mcp --http` over real HTTP: rmcp's streamable HTTP client, raw requests for the
//! Host/Origin checks, and the bind errors.

use crate::common;

use std::time::Duration;

use common::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use tokio::sync::mpsc;

fn install_crypto() {
    // reqwest is built without a default TLS provider in this workspace (plain HTTP here).
    let _ = rustls::crypto::ring::default_provider().install_default();
}

async fn http_client(
    url: &str,
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, Watcher>,
    mpsc::UnboundedReceiver<()>,
) {
    install_crypto();
    let (tx, rx) = mpsc::unbounded_channel();
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    let client = Watcher {
        config: client_config(),
        changed: tx,
    }
    .serve(transport)
    .await
    .expect("MCP initialize over HTTP");
    (client, rx)
}

#[tokio::test]
async fn http_initialize_list_and_call_against_the_stub() {
    let stub = Stub::start_json(issues_fixture()).await;
    let server = spawn_http(
        &["--pack", "github,stripe"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", TOKEN),
        ],
    )
    .await;
    let github_stripe = pack_names(&["github", "stripe"]);
    let total = github_stripe.len();
    assert!(
        server.start_line.starts_with(&format!(
            "charter: serving {total} tools from github, stripe over MCP (streamable HTTP at http://127.0.0.1:"
        )),
        "{}",
        server.start_line
    );
    assert!(server.start_line.contains("eager"), "{}", server.start_line);

    let (client, _) = http_client(&server.url).await;
    assert_eq!(
        client
            .peer_info()
            .unwrap()
            .server_info
            .as_ref()
            .unwrap()
            .name,
        "charter"
    );
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(names, github_stripe);

    let result = client
        .call_tool(
            CallToolRequestParams::new("github_issues_get").with_arguments(args(json!({
                "owner": "octo", "repo": "hello", "issue_number": 7
            }))),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].path, "/repos/octo/hello/issues/7");
    assert_eq!(seen[0].query, None);
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );

    let bad = client
        .call_tool(
            CallToolRequestParams::new("github_issues_get")
                .with_arguments(args(json!({"owner": "octo"}))),
        )
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert!(text_of(&bad).contains("repo"), "{}", text_of(&bad));
    let unknown = client
        .call_tool(CallToolRequestParams::new("nope_nothing").with_arguments(args(json!({}))))
        .await;
    assert!(unknown.is_err(), "an unknown tool is a JSON-RPC error");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_progressive_sessions_are_separate_and_announce_loads() {
    let server = spawn_http(&["--progressive"], &[]).await;
    let (a, mut a_changed) = http_client(&server.url).await;
    let (b, _) = http_client(&server.url).await;
    assert_eq!(
        a.peer_info()
            .unwrap()
            .capabilities
            .tools
            .as_ref()
            .unwrap()
            .list_changed,
        Some(true)
    );
    assert_eq!(a.list_all_tools().await.unwrap().len(), 1);

    let loaded = a
        .call_tool(
            CallToolRequestParams::new("ToolSearch")
                .with_arguments(args(json!({"query": "select:github_issues_get"}))),
        )
        .await
        .unwrap();
    assert_ne!(loaded.is_error, Some(true), "{}", text_of(&loaded));
    tokio::time::timeout(Duration::from_secs(5), a_changed.recv())
        .await
        .expect("list_changed over HTTP")
        .unwrap();
    let names: Vec<String> = a
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(names, ["ToolSearch", "github_issues_get"]);
    let other: Vec<String> = b
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(
        other,
        ["ToolSearch"],
        "one session per MCP session: b loaded nothing"
    );
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

#[tokio::test]
async fn a_foreign_origin_is_refused_with_403() {
    let server = spawn_http(&[], &[]).await;
    let (status, text) = raw_http(
        &server.addr,
        &initialize_request(&server.addr, Some("https://evil.example")),
    )
    .await;
    assert_eq!(status, 403, "{text}");
    // A look-alike of a loopback origin is still foreign.
    let (status, _) = raw_http(
        &server.addr,
        &initialize_request(&server.addr, Some("http://127.0.0.1.evil.example")),
    )
    .await;
    assert_eq!(status, 403);
    // The same request from a loopback page, or from a non-browser client, is served.
    let port = server.addr.rsplit(':').next().unwrap();
    let (status, text) = raw_http(
        &server.addr,
        &initialize_request(&server.addr, Some(&format!("http://localhost:{port}"))),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("\"serverInfo\""), "{text}");
    let (status, _) = raw_http(&server.addr, &initialize_request(&server.addr, None)).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_foreign_host_is_refused_with_403() {
    let server = spawn_http(&[], &[]).await;
    let port = server.addr.rsplit(':').next().unwrap();
    // DNS rebinding: a name the attacker controls now resolves to 127.0.0.1.
    let (status, text) = raw_http(
        &server.addr,
        &initialize_request(&format!("rebind.evil.example:{port}"), None),
    )
    .await;
    assert_eq!(status, 403, "{text}");
    let (status, _) = raw_http(
        &server.addr,
        &initialize_request(&format!("localhost:{port}"), None),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn allow_lists_extend_to_a_deliberate_deployment() {
    let server = spawn_http(
        &[
            "--allow-host",
            "tools.internal",
            "--allow-origin",
            "https://app.internal",
        ],
        &[],
    )
    .await;
    let (status, text) = raw_http(
        &server.addr,
        &initialize_request("tools.internal", Some("https://app.internal")),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let (status, _) = raw_http(
        &server.addr,
        &initialize_request("tools.internal", Some("https://other.internal")),
    )
    .await;
    assert_eq!(status, 403);
}

#[test]
fn a_bad_bind_address_is_a_clear_error() {
    for (addr, says) in [
        ("not-an-address", "invalid HTTP address `not-an-address`"),
        ("127.0.0.1:99999", "not a number"),
        ("192.0.2.1:8080", "cannot listen on 192.0.2.1:8080"),
    ] {
        let (code, out, err) = run_cli(&["mcp", "--http", addr], &[]);
        assert_eq!(code, 1, "{addr}: {err}");
        assert!(out.is_empty(), "nothing on stdout: {out}");
        assert!(err.contains(says), "{addr}: {err}");
    }
}

#[tokio::test]
async fn a_busy_port_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (code, _, err) = run_cli(&["mcp", "--http", &addr], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("cannot listen on {addr}")) && err.contains("already in use"),
        "{err}"
    );
}

#[test]
fn unknown_packs_are_a_usage_error_listing_the_valid_ones() {
    let (code, out, err) = run_cli(&["mcp", "--pack", "github,gitlab"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("unknown pack `gitlab`") && err.contains(&valid_packs()),
        "{err}"
    );
    assert!(err.contains("Usage:"), "{err}");
}

#[tokio::test]
async fn the_http_tool_list_answers_json() {
    // A plain JSON-RPC POST over HTTP (no SDK): initialize answers the tools capability.
    let server = spawn_http(&["--pack", "stripe"], &[]).await;
    let (status, text) = raw_http(&server.addr, &initialize_request(&server.addr, None)).await;
    assert_eq!(status, 200);
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("data: ").filter(|d| d.starts_with('{')))
        .unwrap_or_else(|| panic!("no JSON-RPC event in {text}"));
    let reply: Value = serde_json::from_str(data.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(
        reply["result"]["capabilities"]["tools"].is_object(),
        "{reply}"
    );
}

#[tokio::test]
async fn http_progressive_serves_search_and_call_on_protocol_2026_07_28() {
    use rmcp::model::{ClientConfig, ProtocolVersion};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    install_crypto();
    let server = spawn_http(&["--progressive", "--pack", "github,stripe"], &[]).await;
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let client = ClientConfig::default()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("2026-07-28 discovery over HTTP");
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(names, ["ToolSearch", "CallTool"]);
    client.cancel().await.unwrap();
}
