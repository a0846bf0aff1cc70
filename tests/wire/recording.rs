//! The recording HTTP stub the github and stripe wire tests share: a real axum server on
//! 127.0.0.1 that records every request (method, path, raw query, headers in arrival order,
//! body) and answers with whatever the test's closure replies.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    /// Lowercase names, arrival order.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Recorded {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let all: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect();
        assert!(all.len() <= 1, "{name} sent {} times", all.len());
        all.first().copied()
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    pub(crate) fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 body")
    }
}

/// What the stub answers.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) content_type: &'static str,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn json(status: u16, value: Value) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            content_type: "application/json; charset=utf-8",
            body: value.to_string(),
        }
    }

    pub(crate) fn empty(status: u16) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            content_type: "text/plain",
            body: String::new(),
        }
    }

    pub(crate) fn text(body: &str) -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            content_type: "text/plain",
            body: body.to_owned(),
        }
    }

    pub(crate) fn redirect(to: String) -> Self {
        Reply {
            status: 302,
            headers: vec![("location", to)],
            content_type: "text/plain",
            body: String::new(),
        }
    }
}

pub(crate) type Respond = dyn Fn(&Recorded) -> Reply + Send + Sync;
pub(crate) type Log = Arc<Mutex<Vec<Recorded>>>;

pub(crate) struct Stub {
    pub(crate) base: String,
    pub(crate) log: Log,
}

impl Stub {
    pub(crate) async fn start(
        respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let log: Log = Arc::default();
        let state: (Log, Arc<Respond>) = (log.clone(), Arc::new(respond));
        let app = Router::new().fallback(handle).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Stub { base, log }
    }

    pub(crate) fn only(&self) -> Recorded {
        let log = self.log.lock().unwrap();
        assert_eq!(log.len(), 1, "expected one request: {log:#?}");
        log[0].clone()
    }

    pub(crate) fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

pub(crate) async fn handle(
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
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap(),
        [("content-type", reply.content_type)],
        reply.body,
    )
        .into_response();
    for (name, value) in reply.headers {
        response
            .headers_mut()
            .insert(name, value.parse().expect("a header value"));
    }
    response
}
