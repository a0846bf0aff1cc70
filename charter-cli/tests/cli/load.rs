//! Load and soak (SECURITY.md): the spawned `charter mcp --http 127.0.0.1:0` under
//! 1,000 concurrent requests from real MCP clients (rmcp's streamable HTTP client), every one
//! answered, with the server's resident memory read from `/proc/<pid>/status` before and after;
//! then a soak of mixed calls (lists, ToolSearch, calls that reach a 127.0.0.1 API stub, bad
//! arguments, unknown tools) whose memory must stop growing.
//!
//! Scaled for CI (a few seconds). `CHARTER_SOAK_SECS=600 cargo test -p charter-cli --test cli load
//! -- --nocapture` soaks for ten minutes and prints the figures. Only 127.0.0.1 is contacted.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_charter");

/// The server's resident set, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

struct Server {
    child: tokio::process::Child,
    url: String,
}

impl Server {
    async fn spawn(extra: &[&str], api: &str) -> Server {
        let mut child = tokio::process::Command::new(BIN)
            .args(["mcp", "--http", "127.0.0.1:0", "--pack", "github"])
            .args(extra)
            .env("CHARTER_GITHUB_BASE_URL", api)
            .env("GITHUB_TOKEN", "ghp_load_test_token")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn charter mcp --http");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let url = loop {
            let mut line = String::new();
            let n = tokio::time::timeout(Duration::from_secs(20), stderr.read_line(&mut line))
                .await
                .expect("a start line")
                .unwrap();
            assert!(n > 0, "the server exited before its start line");
            if let Some(url) = line
                .split_whitespace()
                .find(|w| w.starts_with("http://127.0.0.1:"))
            {
                break url.trim_end_matches([')', ',']).to_owned();
            }
        };
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
        Server { child, url }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }
}

/// A real API on 127.0.0.1 that answers every request with a small JSON body and counts them.
///
/// It runs on a thread and runtime of its own, as an API runs on a machine of its own: on the
/// test's runtime it would queue behind the clients decoding 500 full tool lists, and the
/// server's calls would time out waiting for the stub (the HTTP client's 30 s), which measures
/// the test machine, not the server.
async fn api_stub() -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let app = axum::Router::new().fallback(move || {
        let seen = seen.clone();
        async move {
            seen.fetch_add(1, Ordering::Relaxed);
            (
                [("content-type", "application/json")],
                r#"{"number": 7, "title": "Load", "state": "open", "body": "x"}"#,
            )
        }
    });
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap()
        });
    });
    (url, count)
}

type Client = RunningService<rmcp::RoleClient, ()>;

async fn client(url: &str) -> Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("initialize over HTTP")
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

fn issue_get() -> CallToolRequestParams {
    CallToolRequestParams::new("github_issues_get").with_arguments(args(
        json!({"owner": "octo", "repo": "hello", "issue_number": 7}),
    ))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_requests_are_all_answered_with_bounded_memory() {
    const CLIENTS: usize = 25;
    const REQUESTS: usize = 1_000;
    let (api, api_count) = api_stub().await;
    let server = Server::spawn(&[], &api).await;
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(client(&server.url).await);
    }
    // Warm-up: every session listed and called once, so what follows measures steady state.
    for c in &clients {
        c.list_all_tools().await.unwrap();
        c.call_tool(issue_get()).await.unwrap();
    }
    let before = rss_kib(server.pid());
    let burst = || async {
        let started = Instant::now();
        let requests = (0..REQUESTS).map(|i| {
            let c = &clients[i % CLIENTS];
            async move {
                if i % 2 == 0 {
                    let result = c.call_tool(issue_get()).await.map_err(|e| e.to_string())?;
                    if result.is_error == Some(true) {
                        return Err(format!("tool error: {}", text(&result)));
                    }
                    Ok(())
                } else {
                    let tools = c.list_all_tools().await.map_err(|e| e.to_string())?;
                    if tools.len() < 40 {
                        return Err(format!("{} tools listed", tools.len()));
                    }
                    Ok(())
                }
            }
        });
        let results = futures::future::join_all(requests).await;
        let errors: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        assert!(
            errors.is_empty(),
            "{} of {REQUESTS} failed, e.g. {:?}",
            errors.len(),
            errors.first()
        );
        started.elapsed()
    };
    let first = burst().await;
    let after_first = rss_kib(server.pid());
    let second = burst().await;
    let after_second = rss_kib(server.pid());
    assert_eq!(api_count.load(Ordering::Relaxed), CLIENTS + REQUESTS);
    eprintln!(
        "load: 2 x {REQUESTS} concurrent requests over {CLIENTS} sessions in {first:.2?} and {second:.2?}; \
         server RSS {before} KiB -> {after_first} KiB -> {after_second} KiB"
    );
    // Bounded: the first burst costs buffers and caches (rmcp keeps completed responses for a
    // minute), a second identical burst does not add to them.
    assert!(
        after_first < before + 128 * 1024,
        "the server grew by {} KiB under 1,000 requests",
        after_first.saturating_sub(before)
    );
    assert!(
        after_second < after_first + 32 * 1024,
        "a second burst grew the server by {} KiB more",
        after_second.saturating_sub(after_first)
    );
    for c in clients {
        c.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_soak_of_mixed_calls_does_not_grow_the_server() {
    let secs: u64 = std::env::var("CHARTER_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let (api, api_count) = api_stub().await;
    let server = Server::spawn(&["--progressive"], &api).await;
    let pid = server.pid();

    // One round of everything a session does: a fresh session (connect, list, load with
    // ToolSearch, a call that reaches the API, a call with bad arguments, an unknown tool) and
    // then its end, so sessions come and go as in a long-lived deployment.
    let round = |url: String| async move {
        let c = client(&url).await;
        let listed = c.list_all_tools().await.unwrap();
        assert_eq!(listed.len(), 1, "progressive: only ToolSearch at first");
        let loaded = c
            .call_tool(
                CallToolRequestParams::new("ToolSearch").with_arguments(args(
                    json!({"query": "select:github_issues_get,github_issues_list"}),
                )),
            )
            .await
            .unwrap();
        assert_ne!(loaded.is_error, Some(true), "{}", text(&loaded));
        let ok = c.call_tool(issue_get()).await.unwrap();
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        let bad = c
            .call_tool(
                CallToolRequestParams::new("github_issues_get")
                    .with_arguments(args(json!({"owner": "..", "repo": 5, "extra": [1, 2, 3]}))),
            )
            .await
            .unwrap();
        assert_eq!(bad.is_error, Some(true));
        let keywords = c
            .call_tool(
                CallToolRequestParams::new("ToolSearch").with_arguments(args(
                    json!({"query": "+github pull request review", "max_results": 3}),
                )),
            )
            .await
            .unwrap();
        assert_ne!(keywords.is_error, Some(true));
        assert!(
            c.call_tool(CallToolRequestParams::new("nope_nothing"))
                .await
                .is_err()
        );
        c.cancel().await.unwrap();
    };

    // Warm-up until allocator and pools settle, then measure the rest.
    for _ in 0..20 {
        futures::future::join_all((0..8).map(|_| round(server.url.clone()))).await;
    }
    let start_rss = rss_kib(pid);
    let started = Instant::now();
    let mut rounds = 0usize;
    let mut samples = vec![start_rss];
    while started.elapsed() < Duration::from_secs(secs) {
        futures::future::join_all((0..8).map(|_| round(server.url.clone()))).await;
        rounds += 8;
        samples.push(rss_kib(pid));
    }
    let end_rss = rss_kib(pid);
    eprintln!(
        "soak: {rounds} sessions ({} API calls) in {:.1?}; server RSS {start_rss} KiB -> {end_rss} KiB (max {} KiB)",
        api_count.load(Ordering::Relaxed),
        started.elapsed(),
        samples.iter().max().unwrap()
    );
    assert!(rounds > 0);
    // Ended sessions are released: growth stays within a small fixed bound however long it runs.
    assert!(
        end_rss < start_rss + 16 * 1024,
        "the server grew by {} KiB over {rounds} sessions",
        end_rss.saturating_sub(start_rss)
    );
}
