//! The fleet tests' parts: `charter mcp --http --store` instances (the spawned binary, its log
//! kept), a raw MCP client over HTTP that can send each request of one session to any instance,
//! and the keys and values a Redis holds.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use charter_testkit::oauth::{ApiStub, OAuthServer};

pub const BIN: &str = env!("CARGO_BIN_EXE_charter");
pub const CLIENT_ID: &str = "4711-charter.apps.example";
pub const CLIENT_SECRET: &str = "canary-google-client-secret-5e1";
/// The refresh token every instance is configured with (a canary).
pub const FIRST_REFRESH: &str = "canary-fleet-refresh-token-3d9";
/// The store key (base64 of 32 bytes); a test secret, never a real one.
pub const STORE_KEY: &str = "qL8f2nW9mXcGJ0d5T1vY3kZrUeHbOaPs4iCtNyQwLjA=";

/// An authorization server that rotates refresh tokens and accepts each once, and the API.
pub async fn world() -> (OAuthServer, ApiStub) {
    let oauth = OAuthServer::start().await;
    oauth
        .control(json!({
            "clients": {CLIENT_ID: CLIENT_SECRET},
            "refresh_tokens": {FIRST_REFRESH: "johndoe"},
            "rotate": true,
        }))
        .await;
    let api = ApiStub::start(&oauth).await;
    (oauth, api)
}

/// One `charter mcp --http 127.0.0.1:0 --pack gmail --store URL` instance.
pub struct Instance {
    pub child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// Everything it wrote to stderr so far (debug logging).
    pub log: Arc<Mutex<String>>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

impl Instance {
    pub async fn start(redis: &str, oauth: &OAuthServer, api: &ApiStub, extra: &[&str]) -> Self {
        let config = empty_config();
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.args([
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--pack",
            "gmail",
            "--store",
            redis,
        ])
        .args(extra)
        .env("CHARTER_STORE_KEY", STORE_KEY)
        .env("CHARTER_CONFIG_DIR", &config)
        .env("CHARTER_GMAIL_TOKEN_URL", oauth.token_url())
        .env("CHARTER_GMAIL_BASE_URL", &api.base)
        .env("GOOGLE_CLIENT_ID", CLIENT_ID)
        .env("GOOGLE_CLIENT_SECRET", CLIENT_SECRET)
        .env("GOOGLE_REFRESH_TOKEN", FIRST_REFRESH)
        .env("RUST_LOG", "debug")
        .env_remove("GOOGLE_ACCESS_TOKEN")
        .env_remove("CHARTER_STORE_KEY_PREVIOUS")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn charter mcp --http --store");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let log = Arc::new(Mutex::new(String::new()));
        let mut url = None;
        while url.is_none() {
            let mut line = String::new();
            let n = tokio::time::timeout(Duration::from_secs(30), stderr.read_line(&mut line))
                .await
                .expect("a start line within 30 s")
                .unwrap();
            assert!(n > 0, "the instance exited:\n{}", log.lock().unwrap());
            url = line
                .split_whitespace()
                .find(|w| w.starts_with("http://127.0.0.1:") && w.contains("/mcp"))
                .map(|w| w.trim_end_matches([')', ',']).to_owned());
            log.lock().unwrap().push_str(&line);
        }
        let sink = log.clone();
        tokio::spawn(async move {
            let mut line = String::new();
            while stderr
                .read_line(&mut line)
                .await
                .map(|n| n > 0)
                .unwrap_or(false)
            {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        Instance {
            child,
            url: url.unwrap(),
            log,
        }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Whether the process is still running (no panic took it down).
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

fn empty_config() -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "charter-fleet-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// One MCP session (2025-11-25) spoken in raw JSON-RPC over HTTP, so that each request may go
/// to any instance.
#[derive(Clone)]
pub struct Session {
    pub id: String,
    pub http: reqwest::Client,
    /// The `Authorization` header sent with every request, if any.
    pub auth: Option<String>,
}

/// What one request got: the HTTP status and the JSON-RPC answer (or the body as text).
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub message: Option<Value>,
}

impl Answer {
    /// The result's text content (a tool call's answer).
    pub fn text(&self) -> String {
        let message = self.message.as_ref().unwrap_or(&Value::Null);
        message["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    pub fn is_tool_error(&self) -> bool {
        self.message
            .as_ref()
            .is_some_and(|m| m["result"]["isError"] == json!(true))
    }

    /// The listed tool names.
    pub fn tool_names(&self) -> Vec<String> {
        let message = self.message.as_ref().unwrap_or(&Value::Null);
        message["result"]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Session {
    /// Initializes a session on the instance at `url`.
    pub async fn open(http: &reqwest::Client, url: &str) -> Session {
        Self::open_as(http, url, None).await
    }

    /// Initializes a session on the instance at `url` with an `Authorization` header.
    pub async fn open_as(http: &reqwest::Client, url: &str, auth: Option<&str>) -> Session {
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "fleet-test", "version": "0"}}});
        let mut request = http
            .post(url)
            .header("Accept", "application/json, text/event-stream");
        if let Some(auth) = auth {
            request = request.header("Authorization", auth);
        }
        let response = request.json(&body).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let id = response
            .headers()
            .get("mcp-session-id")
            .expect("a session id")
            .to_str()
            .unwrap()
            .to_owned();
        let _ = response.text().await;
        let session = Session {
            id,
            http: http.clone(),
            auth: auth.map(str::to_owned),
        };
        let sent = session
            .post(
                url,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(sent.status, 202, "{}", sent.body);
        session
    }

    async fn post(&self, url: &str, message: &Value) -> Answer {
        let mut request = self
            .http
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", &self.id)
            .header("MCP-Protocol-Version", "2025-11-25");
        if let Some(auth) = &self.auth {
            request = request.header("Authorization", auth);
        }
        let sent = request.json(message).send().await;
        let response = match sent {
            Ok(response) => response,
            // The instance went away (a test killed it): no answer.
            Err(error) => {
                return Answer {
                    status: 0,
                    body: error.to_string(),
                    message: None,
                };
            }
        };
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        let message = json_rpc(&body);
        Answer {
            status,
            body,
            message,
        }
    }

    /// One request to the instance at `url`.
    pub async fn request(&self, url: &str, method: &str, params: Value) -> Answer {
        static ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = ID.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(url, &message).await
    }

    pub async fn call(&self, url: &str, tool: &str, arguments: Value) -> Answer {
        self.request(
            url,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
        .await
    }

    pub async fn labels(&self, url: &str) -> Answer {
        self.call(url, "gmail_labels_list", json!({"user_id": "me"}))
            .await
    }

    pub async fn list(&self, url: &str) -> Answer {
        self.request(url, "tools/list", json!({})).await
    }
}

/// The JSON-RPC answer of a body: plain JSON, or the `data:` of an event stream.
fn json_rpc(body: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        return Some(value);
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("result").is_some() || v.get("error").is_some())
}

/// Every key of the Redis at `url` with every byte it holds (strings and lists).
pub async fn redis_dump(url: &str) -> Vec<(String, Vec<u8>)> {
    let client = redis::Client::open(url).unwrap();
    let mut redis = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut redis)
        .await
        .unwrap();
    let mut out = Vec::new();
    for key in keys {
        let kind: String = redis::cmd("TYPE")
            .arg(&key)
            .query_async(&mut redis)
            .await
            .unwrap();
        let bytes: Vec<u8> = match kind.as_str() {
            "string" => redis::cmd("GET")
                .arg(&key)
                .query_async::<Option<Vec<u8>>>(&mut redis)
                .await
                .unwrap()
                .unwrap_or_default(),
            "list" => redis::cmd("LRANGE")
                .arg(&key)
                .arg(0)
                .arg(-1)
                .query_async::<Vec<Vec<u8>>>(&mut redis)
                .await
                .unwrap()
                .concat(),
            // Expired since it was listed (a rate counter).
            "none" => continue,
            other => panic!("unexpected key type {other} at {key}"),
        };
        out.push((key, bytes));
    }
    out
}

/// Fails if any secret shows in `haystack`.
pub fn assert_none_in(secrets: &[String], haystack: &[u8], what: &str) {
    for (n, secret) in secrets.iter().enumerate() {
        let needle = secret.as_bytes();
        if let Some(at) = haystack.windows(needle.len()).position(|w| w == needle) {
            // Where it shows, with the secret itself masked.
            let start = at.saturating_sub(160);
            let end = (at + needle.len() + 80).min(haystack.len());
            let context =
                String::from_utf8_lossy(&haystack[start..end]).replace(secret, "<SECRET>");
            panic!(
                "secret #{n} of {} shows in {what}: …{context}…",
                secrets.len()
            );
        }
    }
}

/// Every secret of the run: what the server issued, the configured tokens, the client secret
/// and the store key.
pub async fn secrets(oauth: &OAuthServer) -> Vec<String> {
    let mut secrets = oauth.issued_secrets().await;
    secrets.extend([CLIENT_SECRET, FIRST_REFRESH, STORE_KEY].map(str::to_owned));
    secrets
}
