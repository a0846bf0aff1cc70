//! Shared by the HTTP integration tests: a real axum server on 127.0.0.1 that records every
//! request byte for byte, const helpers to build table items, and a tracing capture.

#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use charter_runtime::table::*;

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// The raw path, exactly as sent (not decoded).
    pub path: String,
    /// The raw query, exactly as sent.
    pub query: Option<String>,
    /// Header names lowercase, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
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

    pub fn body_text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("utf-8 body")
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
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub delay: Option<Duration>,
    /// Send the body as a stream (chunked, no Content-Length).
    pub chunked: bool,
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: None,
            chunked: false,
        }
    }

    pub fn json(value: serde_json::Value) -> Self {
        Self::status(200)
            .header("content-type", "application/json")
            .body(value.to_string())
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    pub fn chunked(mut self) -> Self {
        self.chunked = true;
        self
    }
}

type Responder = dyn Fn(&Recorded) -> Reply + Send + Sync;

struct ServerState {
    log: Mutex<Vec<Recorded>>,
    respond: Box<Responder>,
}

/// A running server.
#[derive(Clone)]
pub struct TestServer {
    pub base: String,
    state: Arc<ServerState>,
}

impl TestServer {
    pub async fn start(respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        Self::serve(listener, respond)
    }

    /// Serves on a listener bound earlier (before a runtime existed).
    pub fn start_on(
        listener: std::net::TcpListener,
        respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
    ) -> Self {
        listener.set_nonblocking(true).unwrap();
        Self::serve(
            tokio::net::TcpListener::from_std(listener).unwrap(),
            respond,
        )
    }

    fn serve(
        listener: tokio::net::TcpListener,
        respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(ServerState {
            log: Mutex::new(Vec::new()),
            respond: Box::new(respond),
        });
        let app = Router::new().fallback(handle).with_state(state.clone());
        tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serve");
        });
        TestServer {
            base: format!("http://{addr}"),
            state,
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.log.lock().unwrap().clone()
    }

    /// The only request received.
    pub fn only(&self) -> Recorded {
        let log = self.requests();
        assert_eq!(log.len(), 1, "expected exactly one request, got {log:#?}");
        log.into_iter().next().unwrap()
    }
}

async fn handle(
    State(state): State<Arc<ServerState>>,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .expect("read body")
        .to_vec();
    let recorded = Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    let reply = (state.respond)(&recorded);
    state.log.lock().unwrap().push(recorded);
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
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap();
    for (name, value) in reply.headers {
        response.headers_mut().append(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(&value).unwrap(),
        );
    }
    response
}

// ---------------------------------------------------------------------------------------------
// Table helpers: every table type is const-constructible.

pub static STRING: Shape = Shape::String(StringRules {
    enum_values: &[],
    min_length: None,
    max_length: None,
    pattern: None,
    format: None,
});
pub static INTEGER: Shape = Shape::Integer(NumberRules {
    minimum: None,
    maximum: None,
    enum_values: &[],
});
pub static BOOL: Shape = Shape::Bool;
pub static ANY: Shape = Shape::Any;
pub static STRINGS: Shape = Shape::Array(ArrayRules {
    items: &STRING,
    min_items: None,
    max_items: None,
});
pub static INTEGERS: Shape = Shape::Array(ArrayRules {
    items: &INTEGER,
    min_items: None,
    max_items: None,
});
pub static STRING_MAP: Shape = Shape::Map(&STRING);

pub const fn field(name: &'static str, shape: &'static Shape, location: Location) -> Field {
    Field {
        name,
        wire: name,
        description: "A field.",
        shape,
        required: false,
        modes: &[],
        default: None,
        location,
        style: ListStyle::Repeat,
        allow_slash: false,
        from_context: None,
    }
}

pub const fn wired(
    name: &'static str,
    wire: &'static str,
    shape: &'static Shape,
    location: Location,
) -> Field {
    Field {
        wire,
        ..field(name, shape, location)
    }
}

pub const fn pack(label: &'static str, auth: Auth) -> HttpPack {
    HttpPack {
        label,
        base_url: "http://base-url.invalid",
        base_url_env: "",
        auth,
        headers: &[],
        query: &[],
        body: &[],
        envelope: None,
    }
}

pub const fn route(pack: &'static HttpPack, method: Method, path: &'static str) -> Route {
    Route {
        pack,
        method,
        path,
        body: BodyEncoding::None,
        graphql: None,
        projection: &[],
        pagination: None,
        timeout_ms: None,
        max_redirects: 0,
        headers: &[],
        query: &[],
    }
}

pub const fn tool(
    name: &'static str,
    fields: &'static ObjectShape,
    route: &'static Route,
) -> ToolDef {
    ToolDef {
        name,
        pack: route.pack.label,
        tool: name,
        description: "A tool.",
        annotations: charter_runtime::Annotations::for_method(route.method),
        mode: None,
        input: fields,
        require_one_of: &[],
        require_exactly_one_of: &[],
        views: &[],
        search: SearchData {
            description_lc: "a tool.",
            hints: &[],
            ..SearchData::EMPTY
        },
        exec: Exec::Http(route),
    }
}

// ---------------------------------------------------------------------------------------------
// Tracing capture.

/// Everything tracing prints while the guard lives (on this thread: use current-thread runtimes).
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

pub struct CapturedWriter(Arc<Mutex<Vec<u8>>>);

impl Write for CapturedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = CapturedWriter;
    fn make_writer(&'a self) -> Self::Writer {
        CapturedWriter(self.0.clone())
    }
}

/// Captures every event at TRACE level, ours and reqwest's/hyper's, from every test of the
/// binary: one global subscriber (per-thread ones race with tracing's callsite-interest cache).
pub fn capture_tracing() -> Captured {
    static GLOBAL: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    GLOBAL
        .get_or_init(|| {
            let captured = Captured::default();
            let subscriber = tracing_subscriber::fmt()
                .with_writer(captured.clone())
                .with_max_level(tracing::Level::TRACE)
                .with_ansi(false)
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("one global subscriber per test binary");
            captured
        })
        .clone()
}
