//! The recording HTTP stub: a real axum server on 127.0.0.1 standing in for an API. It records
//! every request exactly as it arrived (method, raw path, raw query, headers in arrival order,
//! body bytes) and answers whatever the test's closure replies, so a test checks what actually
//! went over the wire.
//!
//! ```no_run
//! # async fn demo() {
//! use charter_testkit::stub::{Reply, Stub};
//! use serde_json::json;
//!
//! let api = Stub::start(|r| match r.path.as_str() {
//!     "/issues/7" => Reply::json(200, json!({"number": 7})),
//!     _ => Reply::status(404),
//! })
//! .await;
//! // ... point the code under test at `api.base`, then:
//! let request = api.only();
//! assert_eq!(request.header("authorization"), Some("Bearer t0k"));
//! # }
//! ```

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

/// One request as the stub received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path exactly as sent (still percent-encoded).
    pub path: String,
    /// The query string exactly as sent (still percent-encoded), if any.
    pub query: Option<String>,
    /// Header names lowercase, in arrival order; a value that is not UTF-8 is read lossily.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl Recorded {
    /// The one value of a header; a header sent more than once fails the test.
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut found = self.headers.iter().filter(|(n, _)| n == name);
        let first = found.next().map(|(_, v)| v.as_str());
        assert!(
            found.next().is_none(),
            "header {name} sent more than once: {:?}",
            self.headers
        );
        first
    }

    /// Every header except `host` (its port varies), sorted by name.
    pub fn headers_sorted(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = self
            .headers
            .iter()
            .filter(|(n, _)| n != "host")
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        out.sort();
        out
    }

    /// The body as JSON (fails the test when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    /// The body as text (fails the test when it is not UTF-8).
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 body")
    }

    /// The query as percent-decoded `(key, value)` pairs, in order.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        self.query
            .as_deref()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect()
    }

    /// The path, percent-decoded.
    pub fn decoded_path(&self) -> String {
        percent_decode(&self.path)
    }
}

/// Decodes `%XX` escapes. A `+` stays a `+`: charter's request builder writes a space as `%20`,
/// so a `+` standing for a space would be a bug this must not hide.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("a %XX escape");
            out.push(u8::from_str_radix(hex, 16).expect("a %XX escape"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8 after decoding")
}

/// What the stub answers to one request.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// Headers in the order sent (a name may repeat).
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
    /// Send the body as a stream (chunked, no `Content-Length`).
    pub chunked: bool,
}

impl Reply {
    /// This status, no header, an empty body.
    pub fn status(status: u16) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: None,
            chunked: false,
        }
    }

    /// This status with `value` as an `application/json` body.
    pub fn json(status: u16, value: Value) -> Self {
        Self::status(status)
            .header("content-type", "application/json")
            .body(value.to_string())
    }

    /// This status with a `text/plain` body.
    pub fn text(status: u16, body: &str) -> Self {
        Self::status(status)
            .header("content-type", "text/plain")
            .body(body)
    }

    /// A `302 Found` to `location`.
    pub fn redirect(location: &str) -> Self {
        Self::status(302).header("location", location)
    }

    /// Adds a header (after any of the same name).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Replaces the `content-type`.
    pub fn content_type(mut self, value: &str) -> Self {
        self.headers
            .retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
        self.header("content-type", value)
    }

    /// Replaces the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// Answers only after `delay`.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// Streams the body in chunks (no `Content-Length`).
    pub fn chunked(mut self) -> Self {
        self.chunked = true;
        self
    }
}

/// `(status, json)`: the JSON reply, so a closure may answer a tuple.
impl From<(u16, Value)> for Reply {
    fn from((status, value): (u16, Value)) -> Self {
        Reply::json(status, value)
    }
}

type Responder = dyn Fn(&Recorded) -> Reply + Send + Sync;

struct Shared {
    log: Mutex<Vec<Recorded>>,
    respond: Box<Responder>,
}

/// A running stub (the server task lives as long as the test's runtime).
#[derive(Clone)]
pub struct Stub {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    shared: Arc<Shared>,
}

impl Stub {
    /// Starts a stub on an ephemeral port that answers each request with `respond`.
    pub async fn start<R: Into<Reply>>(
        respond: impl Fn(&Recorded) -> R + Send + Sync + 'static,
    ) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        Self::serve(listener, respond)
    }

    /// Starts a stub answering every request with `200` and `value`.
    pub async fn start_json(value: Value) -> Self {
        Self::start(move |_| Reply::json(200, value.clone())).await
    }

    /// Serves on a listener bound earlier (before a runtime existed); call inside a runtime.
    pub fn start_on<R: Into<Reply>>(
        listener: std::net::TcpListener,
        respond: impl Fn(&Recorded) -> R + Send + Sync + 'static,
    ) -> Self {
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
        Self::serve(listener, respond)
    }

    fn serve<R: Into<Reply>>(
        listener: tokio::net::TcpListener,
        respond: impl Fn(&Recorded) -> R + Send + Sync + 'static,
    ) -> Self {
        let addr = listener.local_addr().expect("a bound address");
        let shared = Arc::new(Shared {
            log: Mutex::new(Vec::new()),
            respond: Box::new(move |r| respond(r).into()),
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        Stub {
            base: format!("http://{addr}"),
            shared,
        }
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.lock().unwrap().clone()
    }

    /// How many requests arrived so far.
    pub fn count(&self) -> usize {
        self.shared.log.lock().unwrap().len()
    }

    /// The only request received so far (fails the test unless exactly one arrived).
    pub fn only(&self) -> Recorded {
        let log = self.shared.log.lock().unwrap();
        assert_eq!(log.len(), 1, "expected exactly one request, got {log:#?}");
        log[0].clone()
    }

    /// Every request received so far, emptying the log.
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.shared.log.lock().unwrap())
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .expect("read the request body")
        .to_vec();
    let recorded = Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (n.as_str().to_owned(), value)
            })
            .collect(),
        body,
    };
    let reply = (shared.respond)(&recorded);
    shared.log.lock().unwrap().push(recorded);
    if let Some(delay) = reply.delay {
        tokio::time::sleep(delay).await;
    }
    let body = if reply.chunked {
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            reply.body.chunks(512).map(|c| Ok(c.to_vec())).collect();
        axum::body::Body::from_stream(futures::stream::iter(chunks))
    } else {
        axum::body::Body::from(reply.body)
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(reply.status).expect("a valid status");
    for (name, value) in reply.headers {
        response.headers_mut().append(
            HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
            HeaderValue::from_str(&value).expect("a header value"),
        );
    }
    response
}
