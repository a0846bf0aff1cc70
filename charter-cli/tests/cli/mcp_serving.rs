//! `charter mcp --http` serving a team: limits, graceful shutdown, `/healthz`, two instances
//! without shared state, and OpenTelemetry export to an OTLP collector stand-in. The server is
//! the spawned binary; the API it calls and the collector are real HTTP servers on 127.0.0.1.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

/// An API stub for `github_issues_get`: number 999 answers after 3 s, number 555 with 50 KB,
/// every other number with an issue that echoes the number (so answers cannot be mixed up).
async fn issues_api() -> (String, Arc<Mutex<Vec<String>>>) {
    use axum::extract::Path;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let app = axum::Router::new().route(
        "/repos/{owner}/{repo}/issues/{number}",
        axum::routing::get(move |Path((_, _, n)): Path<(String, String, u64)>| {
            log.lock().unwrap().push(n.to_string());
            async move {
                if n == 999 {
                    tokio::time::sleep(Duration::from_secs(3)).await;
                }
                let body = if n == 555 {
                    "x".repeat(50_000)
                } else {
                    String::new()
                };
                axum::Json(json!({"number": n, "title": format!("issue {n}"), "body": body}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

type Client = RunningService<rmcp::RoleClient, ()>;

async fn client(url: &str) -> Result<Client, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .map_err(|e| e.to_string())
}

fn issue(n: u64) -> CallToolRequestParams {
    CallToolRequestParams::new("github_issues_get").with_arguments(args(
        json!({"owner": "octo", "repo": "hello", "issue_number": n}),
    ))
}

fn text(result: &CallToolResult) -> String {
    text_of(result)
}

async fn server(api: &str, extra: &[&str], env: &[(&str, &str)]) -> HttpChild {
    let mut args = vec!["--pack", "github"];
    args.extend_from_slice(extra);
    let mut env = env.to_vec();
    env.extend([("CHARTER_GITHUB_BASE_URL", api), ("GITHUB_TOKEN", TOKEN)]);
    spawn_http(&args, &env).await
}

fn post(addr: &str, headers: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: \
         close\r\n\r\n{body}",
        body.len()
    )
}

fn sigterm(child: &tokio::process::Child) {
    let pid = child.id().expect("running").to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_limit_refuses_only_the_caller_over_it() {
    let (api, _) = issues_api().await;
    let flags = [
        "--max-sessions=2",
        "--rate-limit=3",
        "--max-body=4096",
        "--call-timeout=1",
        "--max-result=2000",
    ];
    let server = server(&api, &flags, &[]).await;
    let addr = server.addr.as_str();

    let (status, health) = raw_http(
        addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 200, "{health}");
    assert!(health.ends_with("ok\n"), "{health}");

    // Body size: 413 before anything is parsed.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","pad":"{}"}}"#,
        "x".repeat(5000)
    );
    let (status, answer) = raw_http(addr, &post(addr, "", &big)).await;
    assert_eq!(status, 413, "{answer}");

    // Sessions: two open, the third refused with 503 and a JSON-RPC error saying why.
    let a = client(&server.url).await.expect("session a");
    let b = client(&server.url).await.expect("session b");
    let (status, answer) = raw_http(addr, &initialize_request(addr, None)).await;
    assert_eq!(status, 503, "{answer}");
    assert!(answer.contains("limit of 2 MCP sessions"), "{answer}");
    assert!(answer.contains(r#""jsonrpc":"2.0""#), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 1"),
        "{answer}"
    );

    // Call timeout: a's slow call ends as an error result; b's call meanwhile is answered.
    let (slow, quick) = tokio::join!(a.call_tool(issue(999)), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        b.call_tool(issue(7)).await
    });
    let slow = slow.unwrap();
    assert_eq!(slow.is_error, Some(true));
    assert!(
        text(&slow).contains("did not answer within 1 s"),
        "{}",
        text(&slow)
    );
    let quick = quick.unwrap();
    assert_ne!(quick.is_error, Some(true), "{}", text(&quick));
    assert!(text(&quick).contains("issue 7"), "{}", text(&quick));

    // Result size: cut, with a notice saying how to narrow the call.
    let long = a.call_tool(issue(555)).await.unwrap();
    let long_text = text(&long);
    assert!(long_text.len() <= 2000, "{}", long_text.len());
    assert!(
        long_text.contains("over the server's limit of 2000 bytes"),
        "{long_text}"
    );
    assert!(long_text.contains("Narrow the call"), "{long_text}");
    assert!(long.structured_content.is_none());

    // Rate: a caller (here one session id) over 3/s (bursts of 6) gets 429 with Retry-After;
    // the sessions a and b are other callers and are still served.
    let mut statuses = Vec::new();
    for _ in 0..10 {
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        let (status, answer) = raw_http(addr, &post(addr, "Mcp-Session-Id: flood\r\n", ping)).await;
        if status == 429 {
            assert!(answer.contains("too many requests"), "{answer}");
            assert!(
                answer.to_ascii_lowercase().contains("retry-after: "),
                "{answer}"
            );
        }
        statuses.push(status);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
    assert_ne!(statuses[0], 429, "{statuses:?}");
    let after = b.call_tool(issue(8)).await.unwrap();
    assert!(text(&after).contains("issue 8"), "{}", text(&after));

    // Closing a session frees its slot.
    a.cancel().await.unwrap();
    let c = client(&server.url).await;
    let c = c.expect("a session after one closed");
    assert!(text(&c.call_tool(issue(9)).await.unwrap()).contains("issue 9"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_finishes_the_call_in_flight_refuses_new_connections_and_exits_0() {
    let (api, seen) = issues_api().await;
    let mut server = server(&api, &["--shutdown-grace=20"], &[]).await;
    let addr = server.addr.clone();
    let a = client(&server.url).await.unwrap();
    let call = tokio::spawn(async move {
        let result = a.call_tool(issue(999)).await;
        (result, a)
    });
    // SIGTERM once the slow call has reached the API.
    while !seen.lock().unwrap().iter().any(|n| n == "999") {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sigterm(&server.child);
    // New connections are refused while the call is still running (it takes 3 s).
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(&addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        refused,
        "the server still accepts connections after SIGTERM"
    );
    assert!(
        !call.is_finished(),
        "the call ended before the server stopped"
    );
    let (result, _a) = call.await.unwrap();
    let result = result.expect("the call in flight is answered");
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    assert!(text(&result).contains("issue 999"), "{}", text(&result));
    let status = tokio::time::timeout(Duration::from_secs(10), server.child.wait())
        .await
        .expect("the server exits after its calls")
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// One JSON-RPC request on protocol 2026-07-28: no session, everything in the request.
fn stateless_call(addr: &str, id: u64, n: u64) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "github_issues_get",
            "arguments": {"owner": "octo", "repo": "hello", "issue_number": n},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "lb", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let headers = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: github_issues_get\r\n";
    post(addr, headers, &body.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_without_shared_state_serve_one_client_alternately_on_2026_07_28() {
    let (api, _) = issues_api().await;
    let one = server(&api, &[], &[]).await;
    let two = server(&api, &[], &[]).await;
    for i in 0..6u64 {
        let instance = if i % 2 == 0 { &one } else { &two };
        let (status, answer) =
            raw_http(&instance.addr, &stateless_call(&instance.addr, i, 100 + i)).await;
        assert_eq!(status, 200, "{answer}");
        assert!(
            !answer.to_ascii_lowercase().contains("mcp-session-id"),
            "{answer}"
        );
        assert!(answer.contains(&format!("issue {}", 100 + i)), "{answer}");
        assert!(answer.contains(&format!(r#""id":{i}"#)), "{answer}");
    }
}

/// An OTLP/HTTP collector stand-in: keeps every body it receives, by path.
async fn collector() -> (String, Arc<Mutex<Vec<(String, Vec<u8>)>>>) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let keep = got.clone();
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri, body: axum::body::Bytes| {
        keep.lock()
            .unwrap()
            .push((uri.path().to_owned(), body.to_vec()));
        async {
            (
                [("content-type", "application/x-protobuf")],
                Vec::<u8>::new(),
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, got)
}

fn attribute(span: &opentelemetry_proto::tonic::trace::v1::Span, key: &str) -> Option<String> {
    use opentelemetry_proto::tonic::common::v1::any_value::Value as V;
    let value = span
        .attributes
        .iter()
        .find(|a| a.key == key)?
        .value
        .as_ref()?;
    match value.value.as_ref()? {
        V::StringValue(s) => Some(s.clone()),
        V::IntValue(i) => Some(i.to_string()),
        other => Some(format!("{other:?}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn telemetry_exports_one_span_per_tool_call_with_the_conventions_and_no_secret() {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;
    let (api, _) = issues_api().await;
    let (otlp, got) = collector().await;
    let mut server = server(&api, &[], &[("OTEL_EXPORTER_OTLP_ENDPOINT", &otlp)]).await;
    let a = client(&server.url).await.unwrap();
    let ok = a.call_tool(issue(7)).await.unwrap();
    assert!(text(&ok).contains("issue 7"));
    // The client's trace context, in `_meta`.
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let mut traced = issue(8);
    let mut meta = rmcp::model::RequestMetaObject::default();
    meta.0.insert(
        "traceparent".to_owned(),
        Value::from(format!("00-{trace_id}-00f067aa0ba902b7-01")),
    );
    traced.meta = Some(meta);
    a.call_tool(traced).await.unwrap();
    let failed = a
        .call_tool(CallToolRequestParams::new("github_issues_get").with_arguments(args(json!({}))))
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true));
    a.cancel().await.unwrap();
    sigterm(&server.child);
    let status = tokio::time::timeout(Duration::from_secs(20), server.child.wait())
        .await
        .expect("the server exits and flushes")
        .unwrap();
    assert_eq!(status.code(), Some(0));

    let got = got.lock().unwrap().clone();
    assert!(
        got.iter().any(|(p, _)| p == "/v1/metrics"),
        "no metrics exported"
    );
    for (path, body) in &got {
        let needle = TOKEN.as_bytes();
        assert!(
            !body.windows(needle.len()).any(|w| w == needle),
            "the API token was exported to {path}"
        );
    }
    let spans: Vec<_> = got
        .iter()
        .filter(|(p, _)| p == "/v1/traces")
        .flat_map(|(_, body)| {
            ExportTraceServiceRequest::decode(body.as_slice())
                .unwrap()
                .resource_spans
        })
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect();
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("tools/call"))
        .collect();
    assert_eq!(
        calls.len(),
        3,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for span in &calls {
        assert_eq!(span.name, "tools/call github_issues_get");
        assert_eq!(span.kind, 2, "SERVER");
        assert_eq!(
            attribute(span, "mcp.method.name").as_deref(),
            Some("tools/call")
        );
        assert_eq!(
            attribute(span, "gen_ai.tool.name").as_deref(),
            Some("github_issues_get")
        );
        assert_eq!(
            attribute(span, "gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(attribute(span, "network.transport").as_deref(), Some("tcp"));
        assert!(attribute(span, "jsonrpc.request.id").is_some());
        let session = attribute(span, "mcp.session.id").expect("mcp.session.id");
        assert_eq!(session.len(), 16, "a digest, not the session id: {session}");
        assert!(attribute(span, "charter.mcp.response.size").is_some());
        assert!(
            attribute(span, "gen_ai.tool.call.arguments").is_none(),
            "content not asked for"
        );
    }
    let errors: Vec<_> = calls
        .iter()
        .filter_map(|s| attribute(s, "error.type"))
        .collect();
    assert_eq!(errors, ["tool_error"]);
    let child = calls
        .iter()
        .find(|s| {
            s.trace_id
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                == trace_id
        })
        .expect("the span of the call with a traceparent continues its trace");
    let parent: String = child
        .parent_span_id
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(parent, "00f067aa0ba902b7");
    assert!(spans.iter().any(|s| s.name == "initialize"));
}

/// What `charter <args>` started with (its `/proc/PID/environ`, which glibc reads its
/// allocator settings from) and what an upstream server it spawns gets, each as its
/// `GLIBC_TUNABLES` and `CHARTER_*` lines: the upstream is a shell that writes both down and
/// exits, so charter stops there.
#[cfg(target_os = "linux")]
fn environments(http: bool, env: &[(&str, &str)]) -> (Vec<String>, Vec<String>) {
    let dir = std::env::temp_dir().join(format!(
        "charter-environ-{}-{}-{}",
        std::process::id(),
        http,
        env.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let upstream = format!(
        "sh -c 'tr \"\\0\" \"\\n\" < /proc/$PPID/environ > {0}/server; env > {0}/upstream'",
        dir.display()
    );
    let mut args = vec!["mcp", "--pack", "github", "--upstream", upstream.as_str()];
    if http {
        args.extend(["--http", "127.0.0.1:0"]);
    }
    let mut command = std::process::Command::new(BIN);
    command
        .args(&args)
        .env_remove("GLIBC_TUNABLES")
        .env_remove("GITHUB_TOKEN");
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the upstream exits without answering: {stderr}"
    );
    let read = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}; charter said: {stderr}"))
            .lines()
            .filter(|l| l.starts_with("GLIBC_TUNABLES=") || l.starts_with("CHARTER_"))
            .map(str::to_owned)
            .collect()
    };
    let seen = (read("server"), read("upstream"));
    std::fs::remove_dir_all(&dir).unwrap();
    seen
}

#[cfg(target_os = "linux")]
#[test]
fn the_server_runs_in_the_environment_it_was_given_and_passes_it_on() {
    // Neither transport restarts itself or rewrites its allocator's settings: the process the
    // user started serves, with the environment the user gave it, and so does what it spawns.
    for http in [true, false] {
        let (server, upstream) = environments(http, &[]);
        assert_eq!(server, Vec::<String>::new(), "http: {http}");
        assert_eq!(upstream, Vec::<String>::new(), "http: {http}");
        let chosen = [("GLIBC_TUNABLES", "glibc.malloc.arena_max=3")];
        let (server, upstream) = environments(http, &chosen);
        assert_eq!(
            server,
            ["GLIBC_TUNABLES=glibc.malloc.arena_max=3"],
            "http: {http}"
        );
        assert_eq!(
            upstream,
            ["GLIBC_TUNABLES=glibc.malloc.arena_max=3"],
            "http: {http}"
        );
    }
}
