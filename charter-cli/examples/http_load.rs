//! Load driver for `charter mcp --http` (run it through `bench/http-load.sh`): many concurrent
//! MCP sessions (rmcp's streamable HTTP client, one per session) making sustained tool calls
//! against a spawned server that calls an API stub on 127.0.0.1, with the server's limits on.
//!
//! Every call asks for its own issue number and must get that number back (0 lost, 0 mixed up);
//! the server's resident memory is read from `/proc/<pid>/status` after each round's sessions
//! close, beside the live heap the server itself reports once it has handed freed memory back
//! (`charter_mcp::server::memory`, at debug level); p50/p99 latency and throughput are printed. Bounded in count (`SESSIONS` x `CALLS` x
//! `ROUNDS`) and time (`DEADLINE_SECS`); a figure, not a pass/fail timing.
//!
//! Environment: `CHARTER_BIN` (the `charter` binary), `SESSIONS` (1000), `CALLS` (per session
//! per round, 20), `ROUNDS` (3), `SETTLE_SECS` (80, the wait after closing before
//! memory is read), `DEADLINE_SECS` (600), `SERVER_FLAGS` (extra flags).

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The API: echoes the issue number it was asked for.
async fn api() -> String {
    use axum::extract::Path;
    let app = axum::Router::new().route(
        "/repos/{owner}/{repo}/issues/{number}",
        axum::routing::get(|Path((_, _, n)): Path<(String, String, u64)>| async move {
            axum::Json(json!({"number": n, "title": "load", "state": "open"}))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

/// The live heap the server last reported after handing freed memory back (bytes; 0 before the
/// first report). The server logs it at debug level from `charter_mcp::server::memory`.
static HEAP_IN_USE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn heap_report(line: &str) -> Option<u64> {
    let at = line.find("heap_in_use=")? + "heap_in_use=".len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

async fn spawn_server(api: &str) -> (tokio::process::Child, String) {
    let bin = std::env::var("CHARTER_BIN").unwrap_or_else(|_| "target/release/charter".into());
    let extra = std::env::var("SERVER_FLAGS").unwrap_or_default();
    let mut child = tokio::process::Command::new(&bin)
        .args(["mcp", "--http", "127.0.0.1:0", "--pack", "github"])
        .args(extra.split_whitespace())
        .env("CHARTER_GITHUB_BASE_URL", api)
        .env("GITHUB_TOKEN", "ghp_load_token")
        .env(
            "RUST_LOG",
            "warn,charter_mcp=info,charter_mcp::server::memory=debug",
        )
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let url = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).await.unwrap() > 0,
            "server exited"
        );
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
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
            if let Some(bytes) = heap_report(&sink) {
                HEAP_IN_USE.store(bytes, Ordering::Relaxed);
            }
            sink.clear();
        }
    });
    (child, url)
}

type Client = RunningService<rmcp::RoleClient, ()>;

/// Opens a session, waiting out 429/503 answers as a client should.
async fn open(url: &str, refused: &AtomicUsize) -> Client {
    loop {
        match ().serve(StreamableHttpClientTransport::from_uri(url.to_owned())).await {
            Ok(client) => return client,
            Err(_) => {
                refused.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    lost: usize,
    mixed: usize,
}

/// One session's calls: each asks for its own number and checks the answer carries it.
async fn session(client: &Client, id: u64, calls: u64) -> Tally {
    let mut tally = Tally::default();
    for call in 0..calls {
        let n = id * 1_000_000 + call;
        let request = CallToolRequestParams::new("github_issues_get").with_arguments(
            json!({"owner": "octo", "repo": "load", "issue_number": n})
                .as_object()
                .unwrap()
                .clone(),
        );
        let started = Instant::now();
        let answer = client.call_tool(request).await;
        tally.latencies.push(started.elapsed());
        let Ok(result) = answer else {
            tally.lost += 1;
            continue;
        };
        let text: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        let number = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("number").and_then(Value::as_u64));
        match number {
            Some(got) if got == n => {}
            Some(_) => tally.mixed += 1,
            None => tally.lost += 1,
        }
    }
    tally
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let sessions = env_num("SESSIONS", 1000);
    let calls = env_num("CALLS", 20);
    let rounds = env_num("ROUNDS", 3);
    let deadline = Duration::from_secs(env_num("DEADLINE_SECS", 600));
    let settle = env_num("SETTLE_SECS", 80);
    let api = api().await;
    let (mut child, url) = spawn_server(&api).await;
    let pid = child.id().expect("running");
    println!("server {url}, RSS at start {} KiB", rss_kib(pid));
    let run = async {
        for round in 1..=rounds {
            let refused = Arc::new(AtomicUsize::new(0));
            let ramp = Instant::now();
            let opening = (0..sessions).map(|_| open(&url, &refused));
            let clients: Vec<Client> = futures::future::join_all(opening).await;
            let ramp = ramp.elapsed();
            let open_rss = rss_kib(pid);
            eprintln!("round {round}: {sessions} sessions open after {ramp:.2?}");
            let started = Instant::now();
            let work = clients
                .iter()
                .enumerate()
                .map(|(i, c)| session(c, round * 100_000 + i as u64, calls));
            let tallies = futures::future::join_all(work).await;
            let elapsed = started.elapsed();
            let busy_rss = rss_kib(pid);
            for client in clients {
                let _ = client.cancel().await;
            }
            // rmcp keeps a closed session's completed answers for a minute: wait that out.
            tokio::time::sleep(Duration::from_secs(settle)).await;
            let closed_rss = rss_kib(pid);
            let live_heap = HEAP_IN_USE.load(Ordering::Relaxed) / 1024;
            let mut latencies: Vec<Duration> = tallies
                .iter()
                .flat_map(|t| t.latencies.iter().copied())
                .collect();
            latencies.sort();
            let lost: usize = tallies.iter().map(|t| t.lost).sum();
            let mixed: usize = tallies.iter().map(|t| t.mixed).sum();
            let total = latencies.len();
            println!(
                "round {round}: {sessions} sessions opened in {ramp:.2?} ({} refusals waited out), \
                 {total} calls in {elapsed:.2?} = {:.0} calls/s, p50 {:.1?}, p99 {:.1?}, \
                 lost {lost}, mixed up {mixed}; server RSS {open_rss} KiB with sessions open, \
                 {busy_rss} KiB after the calls, {closed_rss} KiB {settle} s after they closed \
                 (live heap {live_heap} KiB)",
                refused.load(Ordering::Relaxed),
                total as f64 / elapsed.as_secs_f64(),
                percentile(&latencies, 0.50),
                percentile(&latencies, 0.99),
            );
        }
    };
    if tokio::time::timeout(deadline, run).await.is_err() {
        println!("stopped at the {deadline:?} deadline");
    }
    let _ = child.start_kill();
}
