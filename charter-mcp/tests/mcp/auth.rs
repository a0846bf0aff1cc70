//! Per-caller credentials over authenticated HTTP: a rule's `credentials_user` chooses the end
//! user pack calls act for (`CallContext::user`), which a per-user credential provider keys on;
//! the API (a real 127.0.0.1 stub) sees that user's token and never the client's API key.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;
use charter_mcp::{AuthConfig, HttpOptions, McpServer, ServerOptions};
use charter_runtime::http::{HttpExecutor, Secret, from_fn};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

const KEYS: [(&str, &str); 3] = [
    ("alice", "alice-key-0123456789abcdef"),
    ("bob", "bob-key-0123456789abcdef"),
    ("carol", "carol-key-0123456789abcdef"),
];

/// An API on 127.0.0.1 that records every request's headers and answers an issue.
async fn stub() -> (String, Arc<Mutex<Vec<HeaderMap>>>) {
    let seen: Arc<Mutex<Vec<HeaderMap>>> = Arc::default();
    let record = seen.clone();
    let app = axum::Router::new().fallback(move |headers: HeaderMap| {
        let record = record.clone();
        async move {
            record.lock().unwrap().push(headers);
            axum::Json(json!({"number": 7, "title": "t", "state": "open"}))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn auth_file() -> AuthConfig {
    let dir = std::env::temp_dir().join(format!("charter-mcp-auth-creds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let keys: String = KEYS
        .iter()
        .map(|(who, key)| format!("  - key: {key}\n    subject: {who}\n"))
        .collect();
    std::fs::write(dir.join("keys.yaml"), format!("keys:\n{keys}")).unwrap();
    let path = dir.join("auth.yaml");
    std::fs::write(
        &path,
        "api_keys: keys.yaml\ncallers:\n  - subject: alice\n    credentials_user: $subject\n  \
         - subject: bob\n    packs: [github]\n    credentials_user: team\n  - subject: carol\n",
    )
    .unwrap();
    AuthConfig::load(&path).unwrap()
}

#[tokio::test]
async fn a_rule_chooses_the_per_user_credentials_and_the_client_key_never_reaches_the_api() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (api, seen) = stub().await;
    // The per-user provider: a token per end user, none for calls acting for nobody.
    let executor = HttpExecutor::builder()
        .base_url("github", &api)
        .no_proxy()
        .credentials(from_fn(|query| match query.user.as_deref() {
            Some("alice") => Some(Secret::new("api-token-of-alice")),
            Some("team") => Some(Secret::new("api-token-of-the-team")),
            _ => None,
        }))
        .build()
        .unwrap();
    let github = charter::packs::ALL
        .iter()
        .find(|t| t.pack == "github")
        .unwrap();
    let server = McpServer::new(
        &[*github],
        ServerOptions::new().with_http(Arc::new(executor)),
    )
    .unwrap();
    let http = server
        .bind_http("127.0.0.1:0", HttpOptions::new().with_auth(auth_file()))
        .await
        .unwrap();
    let addr: SocketAddr = http.local_addr();
    let url = http.url();
    tokio::spawn(http.run_until(std::future::pending()));

    let mut outcomes = Vec::new();
    for (who, key) in KEYS {
        let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(key);
        let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        let result = client
            .call_tool(
                CallToolRequestParams::new("github_issues_get").with_arguments(
                    json!({"owner": "octo", "repo": "hello", "issue_number": 7})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            )
            .await
            .unwrap();
        outcomes.push((who, result.is_error == Some(true)));
        client.cancel().await.unwrap();
    }
    assert_eq!(
        outcomes,
        [("alice", false), ("bob", false), ("carol", true)],
        "carol's rule names no user, and the provider has no token for nobody"
    );
    let seen = seen.lock().unwrap();
    let tokens: Vec<&str> = seen
        .iter()
        .map(|h| h.get("authorization").unwrap().to_str().unwrap())
        .collect();
    assert_eq!(
        tokens,
        ["Bearer api-token-of-alice", "Bearer api-token-of-the-team"]
    );
    for headers in seen.iter() {
        for (name, value) in headers {
            let value = value.to_str().unwrap_or_default();
            for (_, key) in KEYS {
                assert!(
                    !value.contains(key),
                    "a client key reached the API in {name}"
                );
            }
        }
    }
    drop(seen);
    assert!(addr.ip().is_loopback());
}
