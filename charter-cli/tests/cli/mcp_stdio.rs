//! `charter mcp` over stdio, driven by rmcp's client through real pipes to the built binary.

use crate::common;

use std::time::Duration;

use common::*;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

#[tokio::test]
async fn initialize_announces_charter_with_tools_and_no_list_changes_when_eager() {
    let mut c = connect_stdio(&["mcp", "--pack", "github,stripe"], &[]).await;
    let info = c.client.peer_info().expect("server info after initialize");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(server.name, "charter");
    let tools = info.capabilities.tools.as_ref().expect("tools capability");
    assert_ne!(
        tools.list_changed,
        Some(true),
        "an eager list never changes"
    );

    let line = next_line(&mut c.stderr).await;
    let total = pack_names(&["github", "stripe"]).len();
    assert!(
        line.starts_with(&format!(
            "charter: serving {total} tools from github, stripe over MCP (stdio), eager"
        )),
        "{line}"
    );
    // Neither credential is set: the line says which variables to set.
    assert!(
        line.contains("GITHUB_TOKEN") && line.contains("STRIPE_API_KEY"),
        "{line}"
    );
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn eager_list_is_every_shipped_tool_with_its_annotations_and_schema() {
    let c = connect_stdio(&["mcp"], &[]).await;
    let listed = c.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        shipped_names(),
        "every shipped tool, in declaration order, no ToolSearch"
    );
    let defs = charter::packs::ALL.iter().flat_map(|t| t.tools.iter());
    for (tool, def) in listed.iter().zip(defs) {
        let a = tool
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no annotations", tool.name));
        assert_eq!(
            a.read_only_hint,
            Some(def.annotations.read_only),
            "{}",
            tool.name
        );
        assert_eq!(
            a.idempotent_hint,
            Some(def.annotations.idempotent),
            "{}",
            tool.name
        );
        assert_eq!(
            a.destructive_hint,
            Some(def.annotations.destructive),
            "{}",
            tool.name
        );
        assert_eq!(
            a.open_world_hint,
            Some(def.annotations.open_world),
            "{}",
            tool.name
        );
        assert_eq!(tool.description.as_deref(), Some(def.description));
        let schema: Value = serde_json::from_str(def.views[0].schema).unwrap();
        assert_eq!(
            Value::Object((*tool.input_schema).clone()),
            schema,
            "{}",
            tool.name
        );
    }
    // GET tools are read-only; a DELETE is destructive.
    let get = listed
        .iter()
        .find(|t| t.name == "github_issues_list")
        .unwrap();
    assert_eq!(get.annotations.as_ref().unwrap().read_only_hint, Some(true));
    let delete = listed
        .iter()
        .find(|t| t.name == "stripe_customers_delete")
        .unwrap();
    assert_eq!(
        delete.annotations.as_ref().unwrap().destructive_hint,
        Some(true)
    );
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn one_pack_serves_only_its_tools() {
    let c = connect_stdio(&["mcp", "--pack", "stripe"], &[]).await;
    let listed = c.client.list_all_tools().await.unwrap();
    assert!(!listed.is_empty());
    assert!(listed.iter().all(|t| t.name.starts_with("stripe_")));
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_reaches_the_api_stub_with_the_exact_request() {
    let stub = Stub::start_json(issues_fixture()).await;
    let c = connect_stdio(
        &["mcp", "--pack", "github,stripe"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", TOKEN),
        ],
    )
    .await;
    let result = c
        .client
        .call_tool(
            CallToolRequestParams::new("github_issues_list").with_arguments(args(json!({
                "owner": "octo",
                "repo": "hello-world",
                "state": "closed",
                "labels": ["bug", "ui"],
                "per_page": 5
            }))),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));

    let seen = stub.requests();
    assert_eq!(seen.len(), 1, "exactly one request: {seen:?}");
    let request = &seen[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/repos/octo/hello-world/issues");
    assert_eq!(
        sorted(request.query_pairs()),
        sorted(vec![
            ("state".into(), "closed".into()),
            ("labels".into(), "bug,ui".into()),
            ("per_page".into(), "5".into()),
        ])
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(
        request.header("accept"),
        Some("application/vnd.github+json")
    );
    assert_eq!(request.header("x-github-api-version"), Some("2022-11-28"));
    assert!(request.body.is_empty());

    // The projection trims what the model receives.
    let text = text_of(&result);
    let answer: Value = serde_json::from_str(&text).expect("JSON answer");
    assert_eq!(answer[0]["number"], 7);
    assert_eq!(answer[0]["user"]["login"], "octocat");
    assert!(!text.contains("A very long body"), "{text}");
    assert!(!text.contains(TOKEN), "the token never reaches the model");
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_are_an_error_result_for_the_model() {
    let stub = Stub::start_json(issues_fixture()).await;
    let c = connect_stdio(
        &["mcp"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", TOKEN),
        ],
    )
    .await;
    let result = c
        .client
        .call_tool(
            CallToolRequestParams::new("github_issues_list").with_arguments(args(
                json!({"owner": "octo", "state": "sideways", "per_page": "many", "color": 1}),
            )),
        )
        .await
        .expect("a tool error is a result, not a JSON-RPC error");
    assert_eq!(result.is_error, Some(true));
    let text = text_of(&result);
    for said in ["repo", "state", "per_page", "color"] {
        assert!(text.contains(said), "the message names `{said}`: {text}");
    }
    assert!(
        stub.requests().is_empty(),
        "nothing is sent for invalid arguments"
    );
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error() {
    let c = connect_stdio(&["mcp", "--pack", "github"], &[]).await;
    let error = c
        .client
        .call_tool(
            CallToolRequestParams::new("github_launch_rockets").with_arguments(args(json!({}))),
        )
        .await
        .expect_err("an unknown tool is a JSON-RPC error");
    let text = error.to_string();
    assert!(
        text.contains("github_launch_rockets") && text.len() < 400,
        "names the tool, never the whole catalogue: {text}"
    );
    let error = c
        .client
        .call_tool(CallToolRequestParams::new("github_issue_list").with_arguments(args(json!({}))))
        .await
        .expect_err("an unknown tool is a JSON-RPC error");
    let text = error.to_string();
    assert!(text.contains("closest names: github_issues_list"), "{text}");
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_pack_without_credentials_is_served_and_its_calls_name_the_variable() {
    let stub = Stub::start_json(json!({"data": []})).await;
    let c = connect_stdio(
        &["mcp", "--pack", "stripe"],
        &[("CHARTER_STRIPE_BASE_URL", &stub.base)],
    )
    .await;
    let result = c
        .client
        .call_tool(
            CallToolRequestParams::new("stripe_customers_list").with_arguments(args(json!({}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("STRIPE_API_KEY"),
        "{}",
        text_of(&result)
    );
    assert!(stub.requests().is_empty());
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn progressive_lists_toolsearch_then_grows_in_load_order_with_notifications() {
    let mut c = connect_stdio(&["mcp", "--pack", "github,stripe", "--progressive"], &[]).await;
    let line = next_line(&mut c.stderr).await;
    assert!(
        line.contains("progressive") && line.contains("2026-07-28"),
        "{line}"
    );
    let info = c.client.peer_info().unwrap();
    assert_eq!(
        info.capabilities.tools.as_ref().unwrap().list_changed,
        Some(true)
    );

    let names = |tools: Vec<rmcp::model::Tool>| {
        tools
            .into_iter()
            .map(|t| t.name.into_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(c.client.list_all_tools().await.unwrap()),
        ["ToolSearch"]
    );

    // A deferred tool is absent and refused with the query that would load it.
    let refused = c
        .client
        .call_tool(
            CallToolRequestParams::new("stripe_refunds_create")
                .with_arguments(args(json!({"payment_intent": "pi_1"}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text_of(&refused).contains("select:stripe_refunds_create"),
        "{}",
        text_of(&refused)
    );
    assert!(
        c.changed.try_recv().is_err(),
        "a refused call changes nothing"
    );

    let loaded = c
        .client
        .call_tool(
            CallToolRequestParams::new("ToolSearch").with_arguments(args(
                json!({"query": "select:stripe_refunds_create,github_issues_get"}),
            )),
        )
        .await
        .unwrap();
    assert_ne!(loaded.is_error, Some(true), "{}", text_of(&loaded));
    assert!(text_of(&loaded).contains("stripe_refunds_create"));
    tokio::time::timeout(Duration::from_secs(5), c.changed.recv())
        .await
        .expect("notifications/tools/list_changed after the load")
        .unwrap();
    assert_eq!(
        names(c.client.list_all_tools().await.unwrap()),
        ["ToolSearch", "stripe_refunds_create", "github_issues_get"]
    );

    // The next load extends the list; the earlier prefix stays put.
    c.client
        .call_tool(
            CallToolRequestParams::new("ToolSearch")
                .with_arguments(args(json!({"query": "select:github_labels_list"}))),
        )
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), c.changed.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        names(c.client.list_all_tools().await.unwrap()),
        [
            "ToolSearch",
            "stripe_refunds_create",
            "github_issues_get",
            "github_labels_list"
        ]
    );
    c.client.cancel().await.unwrap();
}

#[tokio::test]
async fn progressive_serves_search_and_call_on_protocol_2026_07_28() {
    let (transport, _stderr) = TokioChildProcess::builder(command(&["mcp", "--progressive"], &[]))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = ClientConfig::default()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("2026-07-28 discovery");
    let info = client.peer_info().unwrap();
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_ne!(
        info.capabilities.tools.as_ref().unwrap().list_changed,
        Some(true)
    );
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(
        names,
        ["ToolSearch", "CallTool"],
        "a stable list: ToolSearch and CallTool, never every schema"
    );
    client.cancel().await.unwrap();
}

/// Lines a client writes: initialize, initialized, then `tools/list` as request 2.
fn initialize_and_list() -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    format!("{init}\n{initialized}\n{list}\n")
}

/// The names listed in the answer to request 2 among `lines`.
fn listed_names(lines: &str) -> Vec<String> {
    let answer: Value = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("one JSON message a line"))
        .find(|m| m["id"] == 2)
        .expect("the tools/list answer");
    answer["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A client that gives the server one end of a socket pair as stdin and stdout (Node.js does)
/// gets the whole list, every shipped tool (1.3 MB, more than the socket holds at once).
#[test]
fn a_socket_pair_as_stdio_serves_the_whole_list() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;

    let (ours, theirs) = UnixStream::pair().unwrap();
    let mut child = std::process::Command::new(BIN)
        .arg("mcp")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::from(OwnedFd::from(
            theirs.try_clone().unwrap(),
        )))
        .stdout(std::process::Stdio::from(OwnedFd::from(theirs)))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    ours.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    (&ours).write_all(initialize_and_list().as_bytes()).unwrap();
    let mut reader = BufReader::new(&ours);
    let mut lines = String::new();
    while !lines.contains("\"id\":2") {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the server hung up"
        );
        lines.push_str(&line);
    }
    assert_eq!(listed_names(&lines), shipped_names());
    ours.shutdown(std::net::Shutdown::Both).unwrap();
    assert!(child.wait().unwrap().success());
}

/// stdin a file and stdout a file (neither can be polled) go through tokio's stdio: the
/// server answers every request and exits at the end of its input.
#[test]
fn files_as_stdio_are_served_too() {
    let dir = std::env::temp_dir().join(format!("charter-stdio-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.jsonl"), dir.join("out.jsonl"));
    std::fs::write(&input, initialize_and_list()).unwrap();
    let status = std::process::Command::new(BIN)
        .args(["mcp", "--pack", "slack"])
        .env_remove("RUST_LOG")
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let lines = std::fs::read_to_string(&output).unwrap();
    assert_eq!(listed_names(&lines), pack_names(&["slack"]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Over pipes a progressive server runs on one thread: stdin and stdout are polled by the
/// runtime (no blocking-pool threads), and nothing is prepared ahead for tools not listed.
#[cfg(target_os = "linux")]
#[test]
fn over_pipes_a_progressive_server_runs_on_one_thread() {
    use std::io::{BufRead, BufReader, Write};

    let mut child = std::process::Command::new(BIN)
        .args(["mcp", "--pack", "slack", "--progressive"])
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(initialize_and_list().as_bytes()).unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut lines = String::new();
    while !lines.contains("\"id\":2") {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the server hung up"
        );
        lines.push_str(&line);
    }
    assert_eq!(listed_names(&lines), ["ToolSearch"]);
    let threads = std::fs::read_dir(format!("/proc/{}/task", child.id()))
        .unwrap()
        .count();
    assert_eq!(threads, 1, "threads of the server");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// The binary keeps ASLR: it runs model-written JavaScript and holds API tokens, so it is linked
/// position-independent (ELF type `ET_DYN`), whatever the tables' size (SECURITY.md).
#[cfg(target_os = "linux")]
#[test]
fn the_binary_is_position_independent() {
    let header = std::fs::read(BIN).unwrap();
    assert_eq!(&header[..4], b"\x7fELF", "an ELF file");
    // e_type, at offset 16, in the file's own byte order (EI_DATA: 1 little, 2 big endian).
    let e_type = match header[5] {
        1 => u16::from_le_bytes([header[16], header[17]]),
        _ => u16::from_be_bytes([header[16], header[17]]),
    };
    assert_eq!(e_type, 3, "ET_DYN (position-independent), not ET_EXEC (2)");
}
