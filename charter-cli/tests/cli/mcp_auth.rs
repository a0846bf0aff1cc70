//! `charter mcp --http --auth`: authentication and per-caller authorisation over real HTTP,
//! against a real token issuer on 127.0.0.1 (npm `oauth2-mock-server`,
//! `charter_testkit::oauth::JwtIssuer`), the GitHub pack pointed at a real 127.0.0.1 API stub, rmcp's streamable HTTP client, and raw
//! HTTP for the status codes and `WWW-Authenticate` headers.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use charter_testkit::oauth::{JwtIssuer, test_client};
use common::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::BufReader;

/// The API keys of `keys.yaml`: a read-only caller, a writer (listed by its SHA-256 digest), and
/// a caller no rule admits.
const READER_KEY: &str = "reader-key-0123456789abcdef";
const WRITER_KEY: &str = "writer-key-0123456789abcdef";
const WRITER_KEY_SHA256: &str = "5755ebe16061aec645992d9f57844449e3577007da9b1eb6e82526714e34870c";
const NOBODY_KEY: &str = "nobody-key-0123456789abcdef";

/// A fresh directory holding `auth.yaml` (trusting `issuer`, with `extra` appended) and
/// `keys.yaml`.
fn auth_files(tag: &str, issuer: &str, extra: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("charter-mcp-auth-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("keys.yaml"),
        format!(
            "keys:\n  - key: {READER_KEY}\n    subject: reader\n    scopes: [charter:read]\n  \
             - sha256: {WRITER_KEY_SHA256}\n    subject: writer\n    scopes: [charter:write]\n  \
             - key: {NOBODY_KEY}\n    subject: nobody\n"
        ),
    )
    .unwrap();
    let path = dir.join("auth.yaml");
    std::fs::write(
        &path,
        format!(
            "issuers:\n  - issuer: {issuer}\napi_keys: keys.yaml\n\
             scopes_supported: [charter:read, charter:write]\n\
             callers:\n  - scopes: [charter:write]\n  - scopes: [charter:read]\n    read_only: true\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// `charter mcp --http 127.0.0.1:0 --pack github --auth FILE`, GitHub pointed at `stub`.
async fn serve(auth: &Path, stub: &Stub, extra: &[&str]) -> HttpChild {
    let mut args = vec!["--pack", "github", "--auth", auth.to_str().unwrap()];
    args.extend_from_slice(extra);
    spawn_http(
        &args,
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", TOKEN),
        ],
    )
    .await
}

type Client = rmcp::service::RunningService<rmcp::RoleClient, Watcher>;

/// rmcp's streamable HTTP client, sending `Authorization: Bearer <token>`.
async fn client(url: &str, token: &str) -> Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    let transport = StreamableHttpClientTransport::from_config(config);
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    Watcher {
        config: client_config(),
        changed: tx,
    }
    .serve(transport)
    .await
    .expect("MCP initialize with a bearer token")
}

/// Calls `github_issues_get` (read-only), which must succeed.
async fn read_issue(client: &Client) {
    let result = client
        .call_tool(
            CallToolRequestParams::new("github_issues_get").with_arguments(args(json!({
                "owner": "octo", "repo": "hello", "issue_number": 7
            }))),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
}

/// The GitHub tools annotated read-only, and one that is destructive.
fn github_split() -> (Vec<&'static str>, &'static str) {
    let github = charter::packs::ALL
        .iter()
        .find(|t| t.pack == "github")
        .unwrap();
    let read_only = github
        .tools
        .iter()
        .filter(|t| t.annotations.read_only)
        .map(|t| t.name)
        .collect();
    let destructive = github
        .tools
        .iter()
        .find(|t| t.annotations.destructive)
        .unwrap()
        .name;
    (read_only, destructive)
}

/// Runs `charter ARGS`, which must fail, and returns its stderr.
fn refused(args: &[&str]) -> String {
    let (code, _, stderr) = run_cli(args, &[]);
    assert_ne!(code, 0, "{args:?} succeeded: {stderr}");
    stderr
}

/// A raw `POST /mcp` with `body`, an optional `Authorization` value and session id.
async fn post(
    addr: &str,
    authorization: Option<&str>,
    session: Option<&str>,
    body: &str,
) -> (u16, String) {
    let auth = authorization
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    let session = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{auth}{session}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    raw_http(addr, &request).await
}

/// `initialize` with `Authorization: Bearer <token>`.
async fn initialize_as(addr: &str, token: &str) -> (u16, String) {
    post(addr, Some(&format!("Bearer {token}")), None, INITIALIZE).await
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// A response header's value (names compare case-insensitively).
fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    response.split("\r\n\r\n").next()?.lines().find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[tokio::test]
async fn a_token_from_the_issuer_is_served_and_never_reaches_the_api() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("valid", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let token = issuer.token("alice", "charter:write", &server.url).await;

    let client = client(&server.url, &token).await;
    assert_eq!(names(&client).await, pack_names(&["github"]));
    read_issue(&client).await;
    client.cancel().await.unwrap();

    // The API saw the pack's own credential, and nothing of the client's token anywhere.
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    for request in &seen {
        for (name, value) in &request.headers {
            assert!(
                !value.contains(&token),
                "the client's token reached the API in {name}"
            );
        }
        assert!(
            !request
                .query
                .as_deref()
                .unwrap_or_default()
                .contains(&token)
        );
    }
}

#[tokio::test]
async fn missing_and_bad_tokens_are_refused_with_401_and_a_challenge() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("refused", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let metadata = format!(
        "resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\"",
        server.addr
    );

    let (status, text) = post(&server.addr, None, None, INITIALIZE).await;
    assert_eq!(status, 401, "{text}");
    let challenge = header(&text, "www-authenticate").expect("a challenge");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(challenge.contains(&metadata), "{challenge}");
    assert!(
        challenge.contains("scope=\"charter:read charter:write\""),
        "{challenge}"
    );
    assert!(
        !challenge.contains("error="),
        "no token, no error code: {challenge}"
    );

    let good = issuer
        .mint(json!({"claims": {"aud": server.url, "sub": "alice", "scope": "charter:write"}}))
        .await;
    let other = issuer
        .mint(json!({"claims": {"aud": server.url, "sub": "mallory", "scope": "charter:write"}}))
        .await;
    // Alice's header and signature over Mallory's claims.
    let forged = {
        let g: Vec<&str> = good.split('.').collect();
        let o: Vec<&str> = other.split('.').collect();
        format!("{}.{}.{}", g[0], o[1], g[2])
    };
    let cases = [
        (
            issuer
                .mint(json!({"claims": {"aud": server.url}, "expires_in": -600}))
                .await,
            "expired",
        ),
        (
            issuer
                .mint(json!({"claims": {"aud": "http://127.0.0.1:1/mcp"}}))
                .await,
            "audience",
        ),
        (
            issuer
                .mint(json!({"claims": {"aud": server.url, "iss": "http://127.0.0.1:1"}}))
                .await,
            "issuer is not trusted",
        ),
        (forged, "signature does not verify"),
        (
            issuer
                .mint(json!({"claims": {"aud": server.url}, "key": "rogue"}))
                .await,
            "key its issuer does not publish",
        ),
        (
            issuer
                .mint(json!({"claims": {"aud": server.url}, "drop": ["exp"]}))
                .await,
            "`exp`",
        ),
        (
            "not-a-jwt-nor-a-key".to_owned(),
            "neither a known API key nor a JWT",
        ),
    ];
    for (token, says) in &cases {
        let (status, text) = initialize_as(&server.addr, token).await;
        assert_eq!(status, 401, "{says}: {text}");
        let challenge = header(&text, "www-authenticate").expect("a challenge");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{says}: {challenge}"
        );
        assert!(challenge.contains(&metadata), "{says}: {challenge}");
        assert!(challenge.contains(says), "{says}: {challenge}");
        assert!(
            !text.contains(token.as_str()),
            "the token is echoed: {text}"
        );
    }
    let (status, text) = post(&server.addr, Some("Basic d3JpdGVyOnB3"), None, INITIALIZE).await;
    assert_eq!(status, 401, "{text}");
    assert!(
        header(&text, "www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );

    // The same requests with good credentials pass; none of the refused ones reached the API.
    let (status, text) = initialize_as(&server.addr, &good).await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = initialize_as(&server.addr, WRITER_KEY).await;
    assert_eq!(status, 200, "{text}");
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn a_caller_no_rule_admits_gets_403_insufficient_scope() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("forbidden", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let unscoped = issuer
        .mint(json!({"claims": {"aud": server.url, "sub": "eve"}}))
        .await;
    for token in [NOBODY_KEY, unscoped.as_str()] {
        let (status, text) = initialize_as(&server.addr, token).await;
        assert_eq!(status, 403, "{text}");
        let challenge = header(&text, "www-authenticate").unwrap();
        assert!(
            challenge.contains("error=\"insufficient_scope\""),
            "{challenge}"
        );
        assert!(
            challenge.contains("scope=\"charter:read charter:write\""),
            "{challenge}"
        );
        assert!(challenge.contains("resource_metadata="), "{challenge}");
    }
}

#[tokio::test]
async fn the_protected_resource_metadata_names_the_issuer() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("metadata", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let http = test_client();
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = http
            .get(format!("http://{}{path}", server.addr))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let doc: Value = response.json().await.unwrap();
        assert_eq!(doc["resource"], server.url.as_str(), "{doc}");
        assert_eq!(doc["authorization_servers"], json!([issuer.base]), "{doc}");
        assert_eq!(
            doc["scopes_supported"],
            json!(["charter:read", "charter:write"])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test]
async fn an_api_key_file_authenticates_and_a_read_only_caller_sees_and_calls_no_destructive_tool() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("read-only", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let (read_only, destructive) = github_split();
    assert!(!read_only.is_empty() && read_only.len() < pack_names(&["github"]).len());

    let writer = client(&server.url, WRITER_KEY).await;
    assert_eq!(names(&writer).await, pack_names(&["github"]));
    writer.cancel().await.unwrap();

    let reader = client(&server.url, READER_KEY).await;
    assert_eq!(names(&reader).await, read_only);
    let refused = reader
        .call_tool(
            CallToolRequestParams::new(destructive).with_arguments(args(json!({
                "owner": "octo", "repo": "hello", "name": "bug"
            }))),
        )
        .await;
    let error = refused
        .expect_err("a destructive tool is not the reader's")
        .to_string();
    assert!(error.contains("unknown tool"), "{error}");
    read_issue(&reader).await;
    reader.cancel().await.unwrap();
    let seen = stub.requests();
    assert_eq!(seen.len(), 1, "only the read-only call reached the API");
    assert_eq!(seen[0].method, "GET");
}

#[tokio::test]
async fn a_read_only_caller_cannot_find_or_call_a_destructive_tool_through_search() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("search", &issuer.base, "");
    let server = serve(&auth, &stub, &["--progressive=search-and-call"]).await;
    let (read_only, destructive) = github_split();

    let reader = client(&server.url, READER_KEY).await;
    assert_eq!(names(&reader).await, ["ToolSearch", "CallTool"]);
    let found = reader
        .call_tool(
            CallToolRequestParams::new("ToolSearch")
                .with_arguments(args(json!({"query": format!("select:{destructive}")}))),
        )
        .await
        .unwrap();
    let found: Value = serde_json::from_str(&text_of(&found)).unwrap();
    assert_eq!(found["tools"], json!([]), "{found}");
    assert_eq!(found["unknown"], json!([destructive]), "{found}");
    // What exists, as the miss shows it: every name while they fit the names budget, past it
    // the nearest names; either way only the caller's own tools.
    let shown: Vec<&str> = ["available", "nearest"]
        .iter()
        .filter_map(|key| found[key].as_array())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert!(!shown.is_empty(), "{found}");
    assert!(!shown.contains(&destructive), "{found}");
    assert!(shown.iter().all(|name| read_only.contains(name)), "{found}");
    let searched = reader
        .call_tool(
            CallToolRequestParams::new("ToolSearch").with_arguments(args(
                json!({"query": "delete remove label", "max_results": 20}),
            )),
        )
        .await
        .unwrap();
    let answer: Value = serde_json::from_str(&text_of(&searched)).unwrap();
    let listed: Vec<&str> = answer["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(!listed.is_empty(), "{answer}");
    for name in &listed {
        assert!(
            read_only.contains(name),
            "{name} is not read-only: {answer}"
        );
    }
    let called = reader
        .call_tool(
            CallToolRequestParams::new("CallTool").with_arguments(args(json!({
                "name": destructive,
                "arguments": {"owner": "octo", "repo": "hello", "name": "bug"}
            }))),
        )
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(true), "{}", text_of(&called));
    reader.cancel().await.unwrap();
    assert!(stub.requests().is_empty(), "nothing reached the API");
}

#[tokio::test]
async fn an_unknown_key_id_refetches_the_key_set_once_within_its_bound() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("rotation", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let claims = json!({"aud": server.url, "scope": "charter:read"});
    let first = issuer.mint(json!({"claims": claims})).await;
    let (status, _) = initialize_as(&server.addr, &first).await;
    assert_eq!(status, 200);
    let fetched = issuer.jwks_fetches().await;
    assert!(fetched >= 1);
    // A key published after the server read the set (rotation): one refetch, then accepted.
    let rotated = issuer.mint(json!({"claims": claims, "key": "new"})).await;
    let (status, text) = initialize_as(&server.addr, &rotated).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(issuer.jwks_fetches().await, fetched + 1);
    // Tokens naming keys never published do not make the server fetch again and again.
    for _ in 0..3 {
        let rogue = issuer.mint(json!({"claims": claims, "key": "rogue"})).await;
        let (status, _) = initialize_as(&server.addr, &rogue).await;
        assert_eq!(status, 401);
    }
    assert_eq!(issuer.jwks_fetches().await, fetched + 1);
}

#[tokio::test]
async fn an_mcp_session_answers_only_the_caller_that_started_it() {
    let issuer = JwtIssuer::start().await;
    let stub = Stub::start_json(issues_fixture()).await;
    let auth = auth_files("session", &issuer.base, "");
    let server = serve(&auth, &stub, &[]).await;
    let writer = format!("Bearer {WRITER_KEY}");
    let reader = format!("Bearer {READER_KEY}");
    let (status, text) = post(&server.addr, Some(&writer), None, INITIALIZE).await;
    assert_eq!(status, 200, "{text}");
    let session = header(&text, "mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _) = post(&server.addr, Some(&writer), Some(&session), initialized).await;
    assert!(status == 202 || status == 200, "{status}");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, text) = post(&server.addr, Some(&writer), Some(&session), list).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains(&format!("\"{}\"", github_split().1)),
        "the writer's list"
    );
    let (_, text) = post(&server.addr, Some(&reader), Some(&session), list).await;
    assert!(text.contains("another caller"), "{text}");
    assert!(
        !text.contains(&format!("\"{}\"", github_split().1)),
        "{text}"
    );
}

#[tokio::test]
async fn a_non_loopback_address_needs_auth_or_a_loud_waiver() {
    let stderr = refused(&["mcp", "--pack", "github", "--http", "0.0.0.0:0"]);
    assert!(stderr.contains("without authentication"), "{stderr}");
    assert!(
        stderr.contains("--auth FILE") && stderr.contains("--insecure-no-auth"),
        "{stderr}"
    );

    // An auth file without `resource:` cannot name the audience of a public address.
    let auth = auth_files("public", "https://login.example.com", "");
    let stderr = refused(&[
        "mcp",
        "--pack",
        "github",
        "--http",
        "0.0.0.0:0",
        "--auth",
        auth.to_str().unwrap(),
    ]);
    assert!(stderr.contains("no `resource:`"), "{stderr}");

    let stderr = refused(&["mcp", "--auth", auth.to_str().unwrap()]);
    assert!(stderr.contains("--http"), "--auth needs --http: {stderr}");

    let mut child = command(
        &[
            "mcp",
            "--pack",
            "github",
            "--http",
            "0.0.0.0:0",
            "--insecure-no-auth",
        ],
        &[],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .kill_on_drop(true)
    .spawn()
    .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut lines = Vec::new();
    while !lines.iter().any(|l: &String| l.contains("WARNING")) && lines.len() < 10 {
        lines.push(next_line(&mut stderr).await);
    }
    let warning = lines
        .iter()
        .find(|l| l.contains("WARNING"))
        .expect("a warning line");
    assert!(warning.contains("WITHOUT AUTHENTICATION"), "{warning}");
    let _ = child.kill().await;
}

#[tokio::test]
async fn a_bad_auth_file_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("charter-mcp-auth-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("auth.yaml");
    std::fs::write(
        &path,
        "issuers:\n  - issuer: https://a.example\n    audiences: [x]\n",
    )
    .unwrap();
    let stderr = refused(&[
        "mcp",
        "--http",
        "127.0.0.1:0",
        "--auth",
        path.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("auth.yaml") && stderr.contains("audiences"),
        "{stderr}"
    );
    std::fs::write(&path, "api_keys: keys.yaml\ncallers:\n  - packs: [nope]\n").unwrap();
    std::fs::write(
        dir.join("keys.yaml"),
        format!("keys:\n  - key: {READER_KEY}\n    subject: r\n"),
    )
    .unwrap();
    let stderr = refused(&[
        "mcp",
        "--pack",
        "github",
        "--http",
        "127.0.0.1:0",
        "--auth",
        path.to_str().unwrap(),
    ]);
    assert!(stderr.contains("pack `nope` is not served"), "{stderr}");
    assert!(!stderr.contains(READER_KEY), "{stderr}");
}
