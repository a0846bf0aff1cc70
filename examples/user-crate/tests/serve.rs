//! `my-tools` run as its users run it: `call` for one tool of each source, `tools` listing
//! exactly this crate's tools, and `mcp` over stdio answering a JSON-RPC client. The HTTP tool
//! talks to a real server on 127.0.0.1 that checks the request it receives.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::post;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_my-tools");

/// What the stand-in tracker received: (project, authorization header, content type, body).
type Seen = Arc<Mutex<Vec<(String, String, String, Value)>>>;

async fn create_issue(
    State(seen): State<Seen>,
    Path(project): Path<String>,
    headers: HeaderMap,
    body: String,
) -> axum::Json<Value> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let body: Value = serde_json::from_str(&body).expect("a JSON body");
    seen.lock().unwrap().push((
        project,
        header("authorization"),
        header("content-type"),
        body.clone(),
    ));
    axum::Json(json!({
        "number": 7,
        "title": body["title"],
        "url": "https://tracker.example.com/CORE/7",
        "reporter": {"id": 99, "email": "someone@example.com"},
    }))
}

/// Serves the tracker's create endpoint on 127.0.0.1; returns its base URL and what it saw.
fn tracker() -> (String, Seen, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let seen = Seen::default();
    let app = Router::new()
        .route("/api/v2/projects/{project}/issues", post(create_issue))
        .with_state(Arc::clone(&seen));
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!("http://{}/api/v2", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, seen, runtime)
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("TRACKER_TOKEN")
        .envs(env.iter().copied())
        .output()
        .expect("run my-tools")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn the_pack_tool_sends_the_request_the_yaml_declares() {
    let (base, seen, _runtime) = tracker();
    let out = run(
        &[
            "call",
            "tracker_issues_create",
            r#"{"project": "CORE", "title": "Login fails", "labels": ["bug"]}"#,
        ],
        &[
            ("CHARTER_TRACKER_BASE_URL", &base),
            ("TRACKER_TOKEN", "test-token"),
        ],
    );
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    // `response.keep` projected the answer: the reporter never reaches the model.
    assert_eq!(
        answer,
        json!({"number": 7, "title": "Login fails", "url": "https://tracker.example.com/CORE/7"})
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (project, authorization, content_type, body) = &seen[0];
    assert_eq!(project, "CORE");
    assert_eq!(authorization, "Bearer test-token");
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    assert_eq!(body, &json!({"title": "Login fails", "labels": ["bug"]}));
}

#[test]
fn the_pack_tool_without_its_token_names_the_variable() {
    let (base, seen, _runtime) = tracker();
    let out = run(
        &[
            "call",
            "tracker_issues_get",
            r#"{"project": "CORE", "number": 7}"#,
        ],
        &[("CHARTER_TRACKER_BASE_URL", &base)],
    );
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("TRACKER_TOKEN"), "{text}");
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn the_rust_tool_runs() {
    let out = run(
        &[
            "call",
            "team_triage",
            r#"{"title": "Checkout is down", "customer_facing": true}"#,
        ],
        &[],
    );
    assert_eq!(stdout(&out).trim(), "P0");
    // Validation is the table's: a missing field is refused with its path.
    let out = run(&["call", "team_triage", r#"{"title": "x"}"#], &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("customer_facing"));
}

#[test]
fn lists_only_this_crates_tools() {
    let out = run(&["tools", "--json"], &[]);
    let tools: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut names: Vec<&str> = tools
        .as_array()
        .expect("an array of tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["team_triage", "tracker_issues_create", "tracker_issues_get"]
    );
    let version = stdout(&run(&["--version"], &[]));
    assert!(version.contains("(2 packs: tracker, team)"), "{version}");
}

/// One JSON-RPC exchange on the server's stdio: write a request, read lines until its answer.
fn request(
    stdin: &mut impl Write,
    stdout: &mut impl BufRead,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the server closed stdout"
        );
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return message;
        }
    }
}

/// Anthropic's and OpenAI's documented rules for a tool definition, on one listed tool: the
/// schema's root is `type: object` with no `anyOf`/`oneOf`/`allOf`/`enum`/`not` (both APIs
/// refuse the whole request otherwise), and the name fits `^[a-zA-Z0-9_-]{1,64}$` even under an
/// MCP host's prefix (`mcp__<server>__<name>`; a server key of up to 7 characters, such as
/// `charter` or `mytools`, leaves room for any qualified name charter accepts).
fn model_apis_accept(tool: &Value) {
    let name = tool["name"].as_str().unwrap();
    let schema = &tool["inputSchema"];
    assert_eq!(schema["type"], "object", "{name}");
    for key in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        assert!(schema.get(key).is_none(), "{name}: `{key}` at the root");
    }
    let hosted = format!("mcp__mytools__{name}");
    assert!(hosted.len() <= 64, "{hosted}");
    assert!(
        hosted
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    );
}

#[test]
fn serves_both_sources_over_mcp_stdio() {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let init = request(
        &mut stdin,
        &mut stdout,
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "user-crate-test", "version": "0"}}),
    );
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();

    let list = request(&mut stdin, &mut stdout, 2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["tracker_issues_create", "tracker_issues_get", "team_triage"]
    );
    for tool in tools {
        model_apis_accept(tool);
    }
    let triage = &tools[2];
    assert_eq!(triage["annotations"]["readOnlyHint"], true);
    assert_eq!(
        triage["inputSchema"]["required"],
        json!(["title", "customer_facing"])
    );

    let call = request(
        &mut stdin,
        &mut stdout,
        3,
        "tools/call",
        json!({"name": "team_triage", "arguments": {"title": "Typo on the pricing page", "customer_facing": false}}),
    );
    assert_eq!(call["result"]["isError"], false, "{call}");
    assert_eq!(call["result"]["content"][0]["text"], "P2");

    drop(stdin);
    assert!(child.wait().unwrap().success());
}
