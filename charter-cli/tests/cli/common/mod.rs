//! Helpers shared by the integration tests: the built binary, the test kit's recording API stub
//! (a real server on 127.0.0.1), and MCP clients (rmcp) over the binary's stdio or HTTP.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

/// The `charter` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_charter");

/// The token the tests give the child; never a real one.
pub const TOKEN: &str = "ghp_test_token_0123";

/// Every tool the binary ships, in declaration order.
pub fn shipped_names() -> Vec<&'static str> {
    charter::packs::ALL
        .iter()
        .flat_map(|t| t.tools.iter())
        .map(|t| t.name)
        .collect()
}

/// The tools of these packs, in declaration order (packs in the order given).
pub fn pack_names(packs: &[&str]) -> Vec<&'static str> {
    packs
        .iter()
        .flat_map(|p| charter::packs::ALL.iter().filter(move |t| t.pack == *p))
        .flat_map(|t| t.tools.iter())
        .map(|t| t.name)
        .collect()
}

/// `valid packs: a, b, ...` as the usage error spells it.
pub fn valid_packs() -> String {
    let labels: Vec<&str> = charter::packs::ALL.iter().map(|t| t.pack).collect();
    format!("valid packs: {}", labels.join(", "))
}

#[allow(unused_imports)] // each test binary uses what it needs
pub use charter_testkit::stub::{Recorded, Reply, Stub};

/// A GitHub issues list answer with more fields than the pack's projection keeps.
pub fn issues_fixture() -> Value {
    serde_json::json!([
        {
            "number": 7, "title": "Crash on start", "state": "open", "state_reason": null,
            "labels": [{"name": "bug", "color": "d73a4a", "id": 11}],
            "assignees": [{"login": "mona", "id": 3}],
            "user": {"login": "octocat", "id": 1, "site_admin": false},
            "comments": 2, "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-03T03:04:05Z",
            "html_url": "https://github.com/octo/hello/issues/7",
            "body": "A very long body the model does not need", "node_id": "I_kwDO"
        }
    ])
}

/// An MCP client handler that reports every `notifications/tools/list_changed`.
pub struct Watcher {
    pub config: ClientConfig,
    pub changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }
}

/// The names of every tool a client is offered, in order.
pub async fn names(client: &RunningService<RoleClient, Watcher>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

/// Connects rmcp's client to `charter mcp <packs>` over stdio or streamable HTTP on `revision`
/// (2026-07-28 through `server/discover`, older ones through `initialize`). Over HTTP the
/// server's start line must name `mode` (the disclosure form it serves). Returns the HTTP child
/// to keep it alive.
pub async fn connect_on(
    http: bool,
    revision: ProtocolVersion,
    packs: &[&str],
    env: &[(&str, &str)],
    mode: &str,
) -> (RunningService<RoleClient, Watcher>, Option<HttpChild>) {
    let modern = revision == ProtocolVersion::V_2026_07_28;
    let (tx, _rx) = mpsc::unbounded_channel();
    let watcher = Watcher {
        config: ClientConfig::default().with_protocol_version(revision.clone()),
        changed: tx,
    };
    let lifecycle = if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![revision],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    if http {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let child = spawn_http(packs, env).await;
        assert!(child.start_line.contains(mode), "{}", child.start_line);
        let transport = StreamableHttpClientTransport::from_uri(child.url.clone());
        let client = watcher.serve_with_lifecycle(transport, lifecycle).await;
        (client.expect("connect over HTTP"), Some(child))
    } else {
        let mut args = vec!["mcp"];
        args.extend_from_slice(packs);
        let (transport, _) = TokioChildProcess::builder(command(&args, env))
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn charter");
        let client = watcher.serve_with_lifecycle(transport, lifecycle).await;
        (client.expect("connect over stdio"), None)
    }
}

/// `tools/call` of `name` with `arguments`; a protocol error fails the test.
pub async fn call_tool(
    client: &RunningService<RoleClient, Watcher>,
    name: &str,
    arguments: Value,
) -> rmcp::model::CallToolResult {
    let request =
        rmcp::model::CallToolRequestParams::new(name.to_owned()).with_arguments(args(arguments));
    client
        .call_tool(request)
        .await
        .unwrap_or_else(|e| panic!("tools/call {name}: {e}"))
}

/// A client config that negotiates `2025-11-25` (a revision on which a tool list may change).
pub fn client_config() -> ClientConfig {
    ClientConfig::default().with_protocol_version(ProtocolVersion::V_2025_11_25)
}

/// A connected client over the binary's stdio, its list-change receiver, and its stderr.
pub struct StdioClient {
    pub client: RunningService<RoleClient, Watcher>,
    pub changed: mpsc::UnboundedReceiver<()>,
    pub stderr: BufReader<tokio::process::ChildStderr>,
}

/// The child command with the given arguments and environment (credentials cleared first).
pub fn command(args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.args(args)
            .env_remove("GITHUB_TOKEN")
            .env_remove("STRIPE_API_KEY")
            .env_remove("RUST_LOG");
        for (k, v) in env {
            cmd.env(k, v);
        }
    })
}

/// Spawns `charter <args>` and connects rmcp's client over its stdin/stdout.
pub async fn connect_stdio(args: &[&str], env: &[(&str, &str)]) -> StdioClient {
    connect_stdio_with(args, env, client_config()).await
}

pub async fn connect_stdio_with(
    args: &[&str],
    env: &[(&str, &str)],
    config: ClientConfig,
) -> StdioClient {
    let (transport, stderr) = TokioChildProcess::builder(command(args, env))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn charter");
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Watcher {
        config,
        changed: tx,
    }
    .serve(transport)
    .await
    .expect("MCP initialize over stdio");
    StdioClient {
        client,
        changed: rx,
        stderr: BufReader::new(stderr.expect("piped stderr")),
    }
}

/// The next line of a child's stderr (within 10 s).
pub async fn next_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> String {
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line))
        .await
        .expect("a stderr line within 10 s")
        .expect("read stderr");
    line.trim_end().to_owned()
}

/// A `charter mcp --http 127.0.0.1:0 ...` child and the URL its start line announced.
pub struct HttpChild {
    pub child: tokio::process::Child,
    pub url: String,
    pub addr: String,
    pub start_line: String,
}

impl Drop for HttpChild {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

pub async fn spawn_http(extra: &[&str], env: &[(&str, &str)]) -> HttpChild {
    let mut args = vec!["mcp", "--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let mut child = command(&args, env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn charter");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut start_line = next_line(&mut stderr).await;
    while !start_line.starts_with("charter: ") {
        start_line = next_line(&mut stderr).await;
    }
    let url = start_line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .map(|w| w.trim_end_matches([')', ',']).to_owned())
        .unwrap_or_else(|| panic!("no URL in the start line: {start_line}"));
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    // Keep draining stderr so the child never blocks on a full pipe.
    tokio::spawn(async move {
        let mut sink = String::new();
        while stderr
            .read_line(&mut sink)
            .await
            .map(|n| n > 0)
            .unwrap_or(false)
        {
            sink.clear();
        }
    });
    HttpChild {
        child,
        url,
        addr,
        start_line,
    }
}

/// Sends one raw HTTP/1.1 request and returns the status code and the whole response text.
pub async fn raw_http(addr: &str, request: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// An `initialize` POST to `/mcp` with the given Host and optional Origin.
pub fn initialize_request(host: &str, origin: Option<&str>) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Runs `charter <args>` to completion: (exit code, stdout, stderr).
pub fn run_cli(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(args)
        .env_remove("GITHUB_TOKEN")
        .env_remove("STRIPE_API_KEY")
        .env_remove("RUST_LOG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("run charter");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Object arguments for a tool call.
pub fn args(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

/// The text of a tool result's first content block.
pub fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Decoded `(key, value)` pairs, sorted, for comparisons that ignore order.
pub fn sorted(pairs: Vec<(String, String)>) -> BTreeMap<String, String> {
    pairs.into_iter().collect()
}
