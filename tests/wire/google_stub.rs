//! A recording HTTP stub on 127.0.0.1 and sessions over the Google packs pointed at it, shared
//! by `gmail.rs`, `gcalendar.rs` and `gdrive_gsheets.rs`. The stub is a real
//! axum server: it records every request (method, raw path, raw query, headers, body) and
//! answers what the test's closure says.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use charter::http::{HttpExecutor, StaticCredentials};
use charter::table::{Exec, Route, Table};
use charter::{CallContext, CharterError, SessionOptions, Source, ToolSession};
use serde_json::Value;

/// The OAuth access token every Google pack reads from `GOOGLE_ACCESS_TOKEN`.
pub const TOKEN: &str = "ya29.a0-test-token-0123456789";

/// One request as the stub received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// The path as sent (still percent-encoded).
    pub path: String,
    /// The query string as sent (still percent-encoded).
    pub query: Option<String>,
    /// Lowercase names, arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    /// The one value of a header (fails when it was sent twice).
    pub fn header(&self, name: &str) -> Option<&str> {
        let all: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect();
        assert!(all.len() <= 1, "{name} sent {} times", all.len());
        all.first().copied()
    }

    /// The query as decoded `(key, value)` pairs, in order.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let Some(q) = &self.query else {
            return Vec::new();
        };
        q.split('&')
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                (decode(k), decode(v))
            })
            .collect()
    }

    /// The path, percent-decoded.
    pub fn decoded_path(&self) -> String {
        decode(&self.path)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 body")
    }

    /// Checks the bearer token, and that a body, when there is one, is declared JSON.
    pub fn assert_google_auth(&self) {
        assert_eq!(
            self.header("authorization").map(str::to_owned),
            Some(format!("Bearer {TOKEN}")),
            "{} {}",
            self.method,
            self.path
        );
        if !self.body.is_empty() {
            assert_eq!(self.header("content-type"), Some("application/json"));
        }
    }
}

/// Percent-decodes (and `+` is left alone: the runtime never writes it for a space).
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).expect("a %XX escape"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8 after decoding")
}

/// What the stub answers: a status, a content type and a body.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Reply {
    pub fn json(status: u16, value: Value) -> Self {
        Reply {
            status,
            content_type: "application/json; charset=UTF-8",
            body: value.to_string(),
        }
    }

    pub fn text(status: u16, content_type: &'static str, body: &str) -> Self {
        Reply {
            status,
            content_type,
            body: body.to_owned(),
        }
    }

    /// An empty 204, as Google answers a delete.
    pub fn no_content() -> Self {
        Reply {
            status: 204,
            content_type: "application/json",
            body: String::new(),
        }
    }

    /// Google's error envelope for a bad or expired token.
    pub fn unauthenticated() -> Self {
        Reply::json(
            401,
            serde_json::json!({"error": {
                "code": 401,
                "message": "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                "errors": [{"message": "Invalid Credentials", "domain": "global", "reason": "authError", "location": "Authorization", "locationType": "header"}],
                "status": "UNAUTHENTICATED"
            }}),
        )
    }
}

type Respond = dyn Fn(&Recorded) -> Reply + Send + Sync;
type Log = Arc<Mutex<Vec<Recorded>>>;

pub struct Stub {
    pub base: String,
    log: Log,
}

impl Stub {
    pub async fn start(respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Self {
        let log: Log = Arc::default();
        let state: (Log, Arc<Respond>) = (log.clone(), Arc::new(respond));
        let app = Router::new().fallback(handle).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Stub { base, log }
    }

    /// The only request received so far.
    pub fn only(&self) -> Recorded {
        let log = self.log.lock().unwrap();
        assert_eq!(log.len(), 1, "expected one request: {log:#?}");
        log[0].clone()
    }

    /// Every request received so far, emptying the log.
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

async fn handle(
    State((log, respond)): State<(Log, Arc<Respond>)>,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap()
        .to_vec();
    let recorded = Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("?").to_owned()))
            .collect(),
        body,
    };
    let reply = respond(&recorded);
    log.lock().unwrap().push(recorded);
    (
        StatusCode::from_u16(reply.status).unwrap(),
        [("content-type", reply.content_type)],
        reply.body,
    )
        .into_response()
}

/// A non-progressive session over `table`, its pack sent to `base`, with the token in
/// `GOOGLE_ACCESS_TOKEN`.
pub fn session(table: &'static Table, base: &str) -> ToolSession {
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(StaticCredentials::new().with("GOOGLE_ACCESS_TOKEN", TOKEN))
        .base_url(table.pack, base)
        .build()
        .unwrap();
    ToolSession::with_options(
        vec![Source::Table(table)],
        SessionOptions {
            disclosure: charter::Disclosure::Eager,
            http: Some(Arc::new(http)),
            ..SessionOptions::default()
        },
    )
    .unwrap()
}

/// The HTTP route of a tool.
pub fn route(table: &Table, name: &str) -> &'static Route {
    let def = table
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the {} pack", table.pack));
    let Exec::Http(route) = def.exec else {
        panic!("{name} is not an HTTP tool")
    };
    route
}

/// Calls a tool and returns its JSON answer.
pub async fn call(session: &ToolSession, name: &str, args: Value) -> Result<Value, CharterError> {
    let out = session.dispatch(name, args, &CallContext::new()).await?;
    Ok(out.structured.expect("a JSON answer"))
}

/// Calls a tool and returns the text the model reads.
pub async fn call_text(
    session: &ToolSession,
    name: &str,
    args: Value,
) -> Result<String, CharterError> {
    Ok(session
        .dispatch(name, args, &CallContext::new())
        .await?
        .text)
}

/// The curation rules every Google pack keeps: at least `min_tools` tools; each described and
/// within the schema budget; every parameter described (checked by the table invariants);
/// every list tool projects its answer; Google's noise parameters are gone; every tool sends
/// the OAuth token as a bearer.
pub fn assert_curated(table: &'static Table, min_tools: usize) {
    assert!(
        table.tools.len() >= min_tools,
        "{}: {} tools, want at least {min_tools}",
        table.pack,
        table.tools.len()
    );
    const NOISE: [&str; 11] = [
        "xgafv",
        "access_token",
        "alt",
        "callback",
        "fields",
        "key",
        "oauth_token",
        "pretty_print",
        "quota_user",
        "upload_protocol",
        "upload_type",
    ];
    for def in table.tools {
        assert!(
            def.description.len() >= 20,
            "{}: a description that helps a model choose",
            def.name
        );
        let tokens = charter::schema_tokens(def);
        assert!(
            tokens <= 2_500,
            "{}: {tokens} schema tokens, over the 2,500 budget",
            def.name
        );
        for field in def.input.fields {
            assert!(
                !NOISE.contains(&field.name),
                "{}: Google's `{}` parameter is noise",
                def.name,
                field.name
            );
        }
        let route = route(table, def.name);
        assert!(route.path.starts_with('/'), "{}", def.name);
        if def.tool.ends_with("_list") || route.pagination.is_some() {
            assert!(
                !route.projection.is_empty(),
                "{}: a list tool keeps a projection",
                def.name
            );
        }
        if route.pagination.is_some() {
            assert!(
                def.input.fields.iter().any(|f| f.name == "page_token"),
                "{}: pages with page_token",
                def.name
            );
        }
        assert!(def.annotations.open_world, "{}", def.name);
    }
    assert!(
        matches!(
            table.tools[0].exec,
            Exec::Http(r) if matches!(r.pack.auth, charter::table::Auth::OAuth2(o)
                if o.access_token_env == "GOOGLE_ACCESS_TOKEN"
                    && o.header == "Authorization" && o.prefix == "Bearer "
                    && o.token_url == "https://oauth2.googleapis.com/token"
                    && o.refresh_token_env == "GOOGLE_REFRESH_TOKEN")
        ),
        "{}: bearer token from GOOGLE_ACCESS_TOKEN, else renewed at Google's token endpoint",
        table.pack
    );
}

/// Checks an error is the API error of a 401, names the status, and leaks no token.
pub fn assert_unauthenticated(err: &CharterError, method: &str, template: &str) {
    let CharterError::Api(api) = err else {
        panic!("expected an API error, got {err:?}")
    };
    assert_eq!(api.status, 401);
    assert_eq!(api.method, method);
    assert_eq!(api.url_template, template);
    assert!(
        api.body.contains("invalid authentication credentials"),
        "{}",
        api.body
    );
    assert!(!err.to_string().contains(TOKEN), "no token in the error");
    assert!(
        !format!("{err:?}").contains(TOKEN),
        "no token in the debug form"
    );
}
