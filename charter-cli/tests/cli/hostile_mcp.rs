//! Hostile MCP clients (SECURITY.md): raw bytes written to the spawned `charter mcp`
//! over its real stdio. Whatever arrives (garbage, a call before `initialize`, wrong types, a
//! huge id, deep or invalid JSON, oversize arguments), the server answers with a JSON-RPC error
//! or a tool error and keeps serving; a client that goes away mid-call ends the server cleanly.

use std::process::Stdio;
use std::time::Duration;

use charter_testkit::stub::{Reply, Stub};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

const BIN: &str = env!("CARGO_BIN_EXE_charter");

/// A `charter mcp` child spoken to byte by byte.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: tokio::task::JoinHandle<String>,
}

impl Raw {
    fn spawn(extra: &[&str], env: &[(&str, &str)]) -> Raw {
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.arg("mcp")
            .args(extra)
            .env_remove("GITHUB_TOKEN")
            .env_remove("STRIPE_API_KEY")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn charter mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut stderr = child.stderr.take().unwrap();
        let stderr = tokio::spawn(async move {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text).await;
            text
        });
        Raw {
            child,
            stdin,
            stdout,
            stderr,
        }
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    async fn send(&mut self, message: Value) {
        self.send_bytes(message.to_string().as_bytes()).await;
    }

    /// The next message from the server (within 20 s).
    async fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(20), self.stdout.read_line(&mut line))
            .await
            .expect("an answer within 20 s")
            .expect("read stdout");
        assert!(n > 0, "the server closed stdout");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"))
    }

    /// The answer to request `id`, skipping notifications and log messages.
    async fn answer(&mut self, id: &Value) -> Value {
        loop {
            let message = self.recv().await;
            if message.get("id") == Some(id) {
                return message;
            }
        }
    }

    async fn initialize(&mut self) {
        self.send(
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"}}}),
        )
        .await;
        let answer = self.answer(&json!("init")).await;
        assert!(answer.get("result").is_some(), "{answer}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// Proves the server still serves: `tools/list` answers with the tools.
    async fn still_serving(&mut self, id: i64) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
            .await;
        let answer = self.answer(&json!(id)).await;
        let tools = answer["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"));
        assert!(!tools.is_empty());
        // Nothing of how the list was written reaches the client.
        assert!(answer["result"].get("_meta").is_none(), "{answer}");
    }

    async fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}))
            .await;
        self.answer(&json!(id)).await
    }

    /// Closes stdin and waits for the exit; returns the status and stderr.
    async fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("exits within 20 s of stdin closing")
            .unwrap();
        let stderr = self.stderr.await.unwrap();
        (status, stderr)
    }
}

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected a JSON-RPC error, got {answer}"))
}

fn assert_clean_exit(status: std::process::ExitStatus, stderr: &str) {
    assert!(status.success(), "exit {status:?}; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[tokio::test]
async fn garbage_lines_get_parse_errors_and_the_server_keeps_serving() {
    let mut s = Raw::spawn(&[], &[]);
    s.initialize().await;
    for garbage in [
        &b"this is not json"[..],
        b"{",
        b"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,",
        b"\x00\x01\x02\x03",
        b"[[[[[[",
        b"null",
        b"42",
    ] {
        s.send_bytes(garbage).await;
    }
    s.still_serving(100).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn invalid_utf8_and_lone_surrogates_are_refused_and_the_server_keeps_serving() {
    let mut s = Raw::spawn(&[], &[]);
    s.initialize().await;
    s.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"x\":\"\xff\xfe\"}")
        .await;
    s.send_bytes(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"github_issues_get","arguments":{"owner":"\ud800"}}}"#).await;
    s.still_serving(3).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn json_10000_levels_deep_is_refused_and_the_server_keeps_serving() {
    let mut s = Raw::spawn(&[], &[]);
    s.initialize().await;
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"github_issues_get","arguments":{{"owner":{}{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    s.send_bytes(deep.as_bytes()).await;
    s.still_serving(6).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn a_call_before_initialize_is_not_run_and_initialize_still_works() {
    let stub = stub_answering_after(Duration::ZERO).await;
    let mut s = Raw::spawn(
        &["--pack", "github"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", "t"),
        ],
    );
    s.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "github_issues_get", "arguments": {"owner": "o", "repo": "r", "issue_number": 1}}}))
        .await;
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    // Whatever the server does with them (an error, or nothing), nothing reaches the API.
    s.initialize().await;
    s.still_serving(3).await;
    assert_eq!(stub.count(), 0, "a call before initialize reached the API");
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn wrong_types_in_requests_are_json_rpc_errors() {
    let mut s = Raw::spawn(&[], &[]);
    s.initialize().await;
    let cases = [
        json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": 5}}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": ["github_issues_get"]}),
        json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "github_issues_get", "arguments": "owner"}}),
        json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "github_issues_get", "arguments": [1, 2]}}),
        json!({"jsonrpc": "2.0", "id": 14, "method": "no/such/method"}),
        json!({"jsonrpc": "1.0", "id": 15, "method": "tools/list"}),
        json!({"id": 16, "method": "tools/call"}),
    ];
    for (k, case) in cases.into_iter().enumerate() {
        let id = case["id"].clone();
        s.send(case).await;
        // A marker after each case: everything the server said about the case comes before it.
        let marker = json!(format!("marker-{k}"));
        s.send(json!({"jsonrpc": "2.0", "id": marker, "method": "ping"}))
            .await;
        let mut said = Vec::new();
        loop {
            let message = s.recv().await;
            if message.get("id") == Some(&marker) {
                break;
            }
            said.push(message);
        }
        // A message that does not fit the protocol cannot be read for its id: it is answered
        // without one (JSON-RPC says a null id; rmcp leaves it out). Either way it is an error, never a result, and never silence.
        let errors: Vec<&Value> = said
            .iter()
            .filter(|m| m.get("id") == Some(&id) || m.get("id").is_none_or(Value::is_null))
            .collect();
        assert_eq!(errors.len(), 1, "case {id}: {said:?}");
        assert!(error_code(errors[0]) < 0, "case {id}: {}", errors[0]);
    }
    // A wrongly typed optional parameter may be read leniently, but is answered either way.
    s.send(json!({"jsonrpc": "2.0", "id": 20, "method": "tools/list", "params": {"cursor": 7}}))
        .await;
    let answer = s.answer(&json!(20)).await;
    assert!(
        answer.get("result").is_some() || answer.get("error").is_some(),
        "{answer}"
    );
    s.still_serving(21).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn huge_and_odd_ids_are_echoed_or_refused_and_the_server_keeps_serving() {
    let mut s = Raw::spawn(&[], &[]);
    s.initialize().await;
    let long = "i".repeat(100_000);
    for id in [
        json!(long),
        json!(i64::MAX),
        json!(-1),
        json!(""),
        json!("\u{0}\u{202e}"),
    ] {
        s.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
            .await;
        let answer = s.answer(&id).await;
        // The whole list, whatever the id (the stdio pipe writes it from serialised tools).
        let tools = answer["result"]["tools"].as_array();
        assert!(tools.is_some_and(|t| t.len() > 100), "{id}: {answer}");
        assert!(answer["result"].get("_meta").is_none(), "{answer}");
    }
    // Ids JSON-RPC does not allow: never echoed as something else, never fatal.
    for id in [json!(1e300), json!({"a": 1}), json!([1]), json!(true)] {
        s.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
            .await;
    }
    s.still_serving(7).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn oversize_arguments_are_a_tool_error_and_the_server_keeps_serving() {
    let stub = stub_answering_after(Duration::ZERO).await;
    let mut s = Raw::spawn(
        &["--pack", "github"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", "t"),
        ],
    );
    s.initialize().await;
    let body = "b".repeat(2 * 1024 * 1024);
    let answer = s
        .call(
            20,
            "github_issues_create",
            json!({"owner": "o", "repo": "r", "title": "t", "body": body}),
        )
        .await;
    let result = &answer["result"];
    assert_eq!(
        result["isError"],
        true,
        "{}",
        &answer.to_string()[..200.min(answer.to_string().len())]
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("larger than 1048576 bytes")
    );
    assert_eq!(stub.count(), 0);
    s.still_serving(21).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn hostile_path_arguments_over_mcp_never_leave_the_declared_host() {
    let stub = stub_answering_after(Duration::ZERO).await;
    let mut s = Raw::spawn(
        &["--pack", "github"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", "t"),
        ],
    );
    s.initialize().await;
    let refused = s
        .call(
            30,
            "github_issues_get",
            json!({"owner": "..", "repo": "%2e%2e", "issue_number": 1}),
        )
        .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let answer = s
        .call(
            31,
            "github_issues_get",
            json!({"owner": "@evil.example", "repo": "//evil.example", "issue_number": 1}),
        )
        .await;
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(
        paths(&stub),
        ["/repos/%40evil.example/%2F%2Fevil.example/issues/1"]
    );
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn a_client_vanishing_mid_call_ends_the_server_cleanly() {
    let stub = stub_answering_after(Duration::from_secs(30)).await;
    let mut s = Raw::spawn(
        &["--pack", "github"],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", "t"),
        ],
    );
    s.initialize().await;
    s.send(json!({"jsonrpc": "2.0", "id": 40, "method": "tools/call",
        "params": {"name": "github_issues_get", "arguments": {"owner": "o", "repo": "r", "issue_number": 1}}}))
        .await;
    // Wait until the call is in flight at the API, then go away.
    for _ in 0..200 {
        if stub.count() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(stub.count(), 1, "the call reached the API");
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

#[tokio::test]
async fn a_burst_of_junk_between_calls_loses_no_answer() {
    let mut s = Raw::spawn(&["--progressive"], &[]);
    s.initialize().await;
    for i in 0..50 {
        s.send_bytes(b"garbage").await;
        s.send(
            json!({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
            "params": {"name": "ToolSearch", "arguments": {"query": "select:github_issues_get"}}}),
        )
        .await;
        s.send(json!({"jsonrpc": "2.0", "result": {}, "id": 999_999}))
            .await; // a stray response
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/nonsense", "params": [1]}))
            .await;
    }
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < 50 {
        let message = s.recv().await;
        if let Some(id) = message.get("id").and_then(Value::as_i64)
            && (1000..1050).contains(&id)
        {
            assert!(message["result"]["content"].is_array(), "{message}");
            answered.insert(id);
        }
    }
    s.still_serving(2000).await;
    let (status, stderr) = s.finish().await;
    assert_clean_exit(status, &stderr);
}

// ---------------------------------------------------------------------------------------------
// A real API stub on 127.0.0.1 (the test kit's recording stub).

/// An issue answered to any request, after `delay`.
async fn stub_answering_after(delay: Duration) -> Stub {
    Stub::start(move |_| Reply::json(200, json!({"number": 1, "title": "t"})).delay(delay)).await
}

/// The paths the stub received, in order.
fn paths(stub: &Stub) -> Vec<String> {
    stub.requests().into_iter().map(|r| r.path).collect()
}
