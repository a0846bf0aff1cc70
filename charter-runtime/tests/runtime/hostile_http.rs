//! Hostile input on the HTTP path (SECURITY.md): what a model puts in path, query and
//! header arguments never reaches another host, another path or another header; what an API
//! sends back (garbage, truncated or endless bodies, redirects elsewhere, silence) becomes an
//! error result, never a crash or a hang.
//!
//! Real parts: calls go through a `ToolSession` and the real `HttpExecutor` to a real axum server
//! on 127.0.0.1 that records each request byte for byte, or to a raw TCP listener on 127.0.0.1
//! that answers what no HTTP server would.

use crate::http_support;

use std::sync::Arc;
use std::time::Duration;

use charter_runtime::http::HttpExecutor;
use charter_runtime::session::{SessionOptions, Source, ToolSession};
use charter_runtime::table::*;
use charter_runtime::{CallContext, CharterError, ToolOutput};
use charter_testkit as testing;
use http_support::{Recorded, Reply, Stub};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

// ---------------------------------------------------------------------------------------------
// Fixtures.

/// A pack whose tools put model arguments in every place a request has.
fn table() -> &'static Table {
    static T: std::sync::OnceLock<&'static Table> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "api",
            "tools": [
                {"name": "user_get", "http": {"method": "GET", "path": "/users/{login}"},
                 "params": {"login": {"in": "path", "type": "string", "required": true, "description": "Login."}}},
                {"name": "file_get", "http": {"method": "GET", "path": "/files/{path}/raw"},
                 "params": {"path": {"in": "path", "type": "string", "required": true, "allow_slash": true,
                                     "description": "A path inside the repository."}}},
                {"name": "search", "http": {"method": "GET", "path": "/search"},
                 "params": {"q": {"in": "query", "type": "string", "required": true, "description": "Query."},
                            "tags": {"in": "query", "type": "array", "items": {"type": "string"}, "description": "Tags."}}},
                {"name": "tagged", "http": {"method": "GET", "path": "/tagged"},
                 "params": {"trace": {"in": "header", "wire": "x-trace-id", "type": "string", "required": true,
                                      "description": "Trace id."}}},
                {"name": "ping", "http": {"method": "GET", "path": "/ping"}}
            ]
        }))
    })
}

fn executor(base: &str) -> HttpExecutor {
    HttpExecutor::builder()
        .no_proxy()
        .base_url("api", base)
        .default_timeout(Duration::from_secs(10))
        .build()
        .expect("executor")
}

fn session_for(base: &str) -> ToolSession {
    session_with(executor(base))
}

fn session_with(executor: HttpExecutor) -> ToolSession {
    ToolSession::with_options(
        vec![Source::Table(table())],
        SessionOptions::new()
            .with_disclosure(charter_runtime::Disclosure::Eager)
            .with_http(Arc::new(executor)),
    )
    .expect("session")
}

async fn call(s: &ToolSession, name: &str, args: Value) -> Result<ToolOutput, CharterError> {
    s.dispatch(name, args, &CallContext::new()).await
}

fn validation(result: Result<ToolOutput, CharterError>) -> String {
    match result {
        Err(CharterError::Validation(m)) => m,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn transport(result: Result<ToolOutput, CharterError>) -> String {
    match result {
        Err(CharterError::Transport(m)) => m,
        other => panic!("expected a transport error, got {other:?}"),
    }
}

fn ok() -> impl Fn(&Recorded) -> Reply + Send + Sync + 'static {
    |_| Reply::json(200, json!({"ok": true}))
}

/// A raw TCP server on 127.0.0.1: reads each request's head and answers `reply` (then closes),
/// or holds the connection open without a byte when `reply` is `None`.
async fn raw_server(reply: Option<Vec<u8>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let reply = reply.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                match reply {
                    Some(bytes) => {
                        let _ = socket.write_all(&bytes).await;
                        let _ = socket.shutdown().await;
                    }
                    None => tokio::time::sleep(Duration::from_secs(3600)).await,
                }
            });
        }
    });
    format!("http://{addr}")
}

// ---------------------------------------------------------------------------------------------
// Path arguments: traversal and host injection.

#[tokio::test]
async fn path_traversal_in_every_spelling_is_refused_and_nothing_is_sent() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    for bad in [
        "..",
        ".",
        "../admin",
        "a/../../admin",
        "%2e%2e",
        "%2E%2E%2Fadmin",
        ".%2e",
        "%2e.",
        "%252e%252e",
        "%25252e%25252e",
        "..\\admin",
        "a\\..\\..\\b",
        "..%2f..%2fetc%2fpasswd",
        "..%5c..%5cwindows",
    ] {
        for tool in ["api_user_get", "api_file_get"] {
            let key = if tool == "api_user_get" {
                "login"
            } else {
                "path"
            };
            let message = validation(call(&s, tool, json!({ key: bad })).await);
            assert!(
                message.contains("`.` or `..` segment"),
                "{tool} {bad:?}: {message}"
            );
        }
    }
    assert!(server.requests().is_empty(), "{:#?}", server.requests());
}

#[tokio::test]
async fn a_slash_in_a_path_argument_stays_inside_its_segment() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    call(&s, "api_user_get", json!({"login": "a/b"}))
        .await
        .unwrap();
    call(&s, "api_user_get", json!({"login": "a%2Fb"}))
        .await
        .unwrap();
    call(&s, "api_file_get", json!({"path": "src/a%2Fb.rs"}))
        .await
        .unwrap();
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        [
            "/users/a%2Fb",
            "/users/a%252Fb",
            "/files/src/a%252Fb.rs/raw"
        ]
    );
}

#[tokio::test]
async fn an_at_sign_in_a_path_argument_cannot_become_userinfo() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    for login in [
        "@evil.example",
        "x@evil.example:80",
        "user:pass@evil.example",
    ] {
        call(&s, "api_user_get", json!({ "login": login }))
            .await
            .unwrap();
    }
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        [
            "/users/%40evil.example",
            "/users/x%40evil.example%3A80",
            "/users/user%3Apass%40evil.example"
        ]
    );
}

#[tokio::test]
async fn a_double_slash_in_a_path_argument_cannot_become_an_authority() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    call(&s, "api_user_get", json!({"login": "//evil.example/x"}))
        .await
        .unwrap();
    // Where `/` is allowed, empty segments are not: `//` could restart the authority.
    for path in ["//evil.example/x", "a//b", "/etc/passwd", "a/"] {
        let message = validation(call(&s, "api_file_get", json!({ "path": path })).await);
        assert!(
            message.contains("empty path segments"),
            "{path:?}: {message}"
        );
    }
    assert_eq!(server.only().path, "/users/%2F%2Fevil.example%2Fx");
}

#[tokio::test]
async fn an_absolute_url_in_a_path_argument_is_encoded_as_one_segment() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    call(
        &s,
        "api_user_get",
        json!({"login": "http://evil.example/steal?x=1#f"}),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(
        r.path,
        "/users/http%3A%2F%2Fevil.example%2Fsteal%3Fx%3D1%23f"
    );
    assert_eq!(r.query, None);
}

#[tokio::test]
async fn unicode_lookalike_dots_are_encoded_not_resolved() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    // Fullwidth full stops and a one-dot leader: not `.` to any RFC 3986 server.
    call(&s, "api_user_get", json!({"login": "\u{ff0e}\u{ff0e}"}))
        .await
        .unwrap();
    call(&s, "api_user_get", json!({"login": "\u{2024}\u{2024}"}))
        .await
        .unwrap();
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        ["/users/%EF%BC%8E%EF%BC%8E", "/users/%E2%80%A4%E2%80%A4"]
    );
}

#[tokio::test]
async fn control_characters_in_a_path_argument_are_encoded() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    call(
        &s,
        "api_user_get",
        json!({"login": "a\r\nHost: evil.example\r\n\r\nb\u{0}"}),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(
        r.path,
        "/users/a%0D%0AHost%3A%20evil.example%0D%0A%0D%0Ab%00"
    );
    assert!(r.header("host").unwrap().starts_with("127.0.0.1:"));
}

// ---------------------------------------------------------------------------------------------
// Query and header arguments.

#[tokio::test]
async fn crlf_in_a_query_argument_is_encoded_and_adds_no_header() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    call(&s, "api_search", json!({"q": "a\r\nX-Evil: 1\r\n"}))
        .await
        .unwrap();
    let r = server.only();
    assert_eq!(r.query.as_deref(), Some("q=a%0D%0AX-Evil%3A%201%0D%0A"));
    assert!(r.headers.iter().all(|(n, _)| n != "x-evil"));
}

#[tokio::test]
async fn a_query_argument_cannot_add_parameters_or_a_fragment() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    call(
        &s,
        "api_search",
        json!({"q": "x&admin=true#frag", "tags": ["a&b=c", "d=e"]}),
    )
    .await
    .unwrap();
    assert_eq!(
        server.only().query.as_deref(),
        Some("q=x%26admin%3Dtrue%23frag&tags=a%26b%3Dc&tags=d%3De")
    );
}

#[tokio::test]
async fn crlf_in_a_header_argument_is_refused_and_nothing_is_sent() {
    let server = Stub::start(ok()).await;
    let s = session_for(&server.base);
    for value in ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\u{0}b"] {
        let message = validation(call(&s, "api_tagged", json!({ "trace": value })).await);
        assert!(
            message.contains("control characters"),
            "{value:?}: {message}"
        );
    }
    assert!(server.requests().is_empty());
    call(&s, "api_tagged", json!({"trace": "abc-123"}))
        .await
        .unwrap();
    assert_eq!(server.only().header("x-trace-id"), Some("abc-123"));
}

// ---------------------------------------------------------------------------------------------
// What the API sends back.

#[tokio::test]
async fn invalid_json_under_a_json_content_type_comes_back_as_text() {
    let server = Stub::start(|_| {
        Reply::status(200)
            .header("content-type", "application/json")
            .body(r#"{"unterminated": [1, 2"#)
    })
    .await;
    let s = session_for(&server.base);
    let out = call(&s, "api_ping", json!({})).await.unwrap();
    assert_eq!(out.text, r#"{"unterminated": [1, 2"#);
    assert_eq!(out.structured, None);
}

#[tokio::test]
async fn bytes_that_are_not_utf8_under_a_json_content_type_come_back_as_base64() {
    let server = Stub::start(|_| {
        Reply::status(200)
            .header("content-type", "application/json; charset=utf-8")
            .body(vec![0xff, 0xfe, b'{', 0x80])
    })
    .await;
    let s = session_for(&server.base);
    let out = call(&s, "api_ping", json!({})).await.unwrap();
    let v = out.structured.expect("a JSON description of the bytes");
    assert_eq!(v["bytes"], 4, "{v}");
}

#[test]
fn a_json_response_10000_levels_deep_is_survived_on_a_small_stack() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let base = {
        let body = deep.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let server = Stub::start(move |_| {
                    Reply::status(200)
                        .header("content-type", "application/json")
                        .body(body.clone())
                })
                .await;
                tx.send(server.base.clone()).unwrap();
                std::future::pending::<()>().await;
            });
        });
        rx.recv().unwrap()
    };
    let text = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let s = session_for(&base);
            rt.block_on(call(&s, "api_ping", json!({}))).unwrap().text
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(text, deep, "too deep to parse: handed over as text");
}

#[tokio::test]
async fn a_truncated_body_is_a_transport_error() {
    let base = raw_server(Some(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"partial\":"
            .to_vec(),
    ))
    .await;
    let s = session_for(&base);
    let message = transport(call(&s, "api_ping", json!({})).await);
    assert!(message.contains("GET /ping"), "{message}");
    assert!(
        !message.contains("127.0.0.1"),
        "no URL in errors: {message}"
    );
}

#[tokio::test]
async fn a_content_length_shorter_than_the_body_reads_only_what_was_declared() {
    let base = raw_server(Some(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 5\r\n\r\nhello, and a lot more the API did not declare"
            .to_vec(),
    ))
    .await;
    let s = session_for(&base);
    let out = call(&s, "api_ping", json!({})).await.unwrap();
    assert_eq!(out.text, "hello");
    // And the next call (a new connection: the server closed this one) is answered the same.
    assert_eq!(call(&s, "api_ping", json!({})).await.unwrap().text, "hello");
}

#[tokio::test]
async fn garbage_instead_of_http_is_a_transport_error() {
    let base = raw_server(Some(
        b"SSH-2.0-OpenSSH_9.6\r\n\x00\x01\x02garbage\r\n\r\n".to_vec(),
    ))
    .await;
    let s = session_for(&base);
    let message = transport(call(&s, "api_ping", json!({})).await);
    assert!(message.starts_with("GET /ping:"), "{message}");
}

#[tokio::test]
async fn thousands_of_response_headers_are_a_transport_error() {
    let mut reply = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..5_000 {
        reply.extend_from_slice(format!("x-h{i}: v\r\n").as_bytes());
    }
    reply.extend_from_slice(b"content-length: 2\r\n\r\nok");
    let base = raw_server(Some(reply)).await;
    let s = session_for(&base);
    let message = transport(call(&s, "api_ping", json!({})).await);
    assert!(message.starts_with("GET /ping:"), "{message}");
}

#[tokio::test]
async fn an_endless_body_stops_at_the_response_cap() {
    // Chunked, never ending: only the cap ends the read.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 4096];
        let _ = socket.read(&mut buf).await;
        let _ = socket
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n")
            .await;
        let chunk = format!("{:x}\r\n{}\r\n", 8192, "z".repeat(8192));
        while socket.write_all(chunk.as_bytes()).await.is_ok() {}
    });
    let exec = HttpExecutor::builder()
        .no_proxy()
        .base_url("api", &base)
        .max_response_bytes(256 * 1024)
        .build()
        .unwrap();
    let s = session_with(exec);
    let message = transport(call(&s, "api_ping", json!({})).await);
    assert!(
        message.contains("exceeds the 262144-byte limit"),
        "{message}"
    );
}

#[tokio::test]
async fn an_api_that_accepts_and_never_answers_times_out() {
    let base = raw_server(None).await;
    let exec = HttpExecutor::builder()
        .no_proxy()
        .base_url("api", &base)
        .default_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let s = session_with(exec);
    let message = transport(call(&s, "api_ping", json!({})).await);
    assert_eq!(message, "GET /ping timed out after 300 ms");
}

#[tokio::test]
async fn a_slow_api_in_a_concurrent_batch_times_out_without_holding_up_the_others() {
    let server = Stub::start(|r| {
        let reply = Reply::json(200, json!({"path": r.path}));
        if r.path.ends_with("/slow") {
            reply.delay(Duration::from_secs(30))
        } else {
            reply
        }
    })
    .await;
    let exec = HttpExecutor::builder()
        .no_proxy()
        .base_url("api", &server.base)
        .default_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let s = session_with(exec);
    let calls: Vec<charter_runtime::ToolCall> = ["fast1", "slow", "fast2"]
        .iter()
        .map(|login| charter_runtime::ToolCall {
            id: (*login).into(),
            name: "api_user_get".into(),
            arguments: json!({ "login": login }),
        })
        .collect();
    let results = s.execute_tool_calls(&calls, &CallContext::new(), 4).await;
    let summary: Vec<(&str, bool)> = results
        .iter()
        .map(|r| (r.id.as_str(), r.is_error))
        .collect();
    assert_eq!(
        summary,
        [("fast1", false), ("slow", true), ("fast2", false)]
    );
    assert!(
        results[1].content.contains("timed out after 500 ms"),
        "{}",
        results[1].content
    );
}

#[tokio::test]
async fn a_redirect_to_another_host_is_not_followed_and_that_host_sees_nothing() {
    let elsewhere = Stub::start(ok()).await;
    // `localhost` is another origin than `127.0.0.1`, though both are this machine.
    let target = elsewhere.base.replace("127.0.0.1", "localhost") + "/steal";
    let server = Stub::start(move |_| Reply::status(302).header("location", &target)).await;
    let s = session_for(&server.base);
    let err = call(&s, "api_ping", json!({})).await.unwrap_err();
    let CharterError::Api(api) = err else {
        panic!("{err:?}")
    };
    assert_eq!(api.status, 302);
    assert!(api.body.contains("not followed"), "{}", api.body);
    assert_eq!(server.requests().len(), 1);
    assert!(elsewhere.requests().is_empty());
}

#[tokio::test]
async fn a_redirect_to_a_non_http_scheme_is_refused() {
    for location in [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "gopher://127.0.0.1:25/x",
    ] {
        let loc = location.to_owned();
        let server = Stub::start(move |_| Reply::status(301).header("location", &loc)).await;
        let s = session_for(&server.base);
        let err = call(&s, "api_ping", json!({})).await.unwrap_err();
        assert!(
            matches!(err, CharterError::Api(ref e) if e.status == 301),
            "{location}: {err:?}"
        );
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn an_api_that_is_not_listening_is_a_transport_error_without_the_url() {
    // Bind then drop: a loopback port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = session_for(&format!("http://127.0.0.1:{port}"));
    let message = transport(call(&s, "api_user_get", json!({"login": "secret-login"})).await);
    assert!(message.contains("cannot connect"), "{message}");
    assert!(!message.contains("secret-login"), "{message}");
}
