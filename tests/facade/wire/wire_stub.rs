//! Sessions over compiled packs pointed at the test kit's recording stub (a real server on
//! 127.0.0.1: each test checks what actually arrived on the wire), and the checks the per-pack
//! request tests share (`slack.rs`, `notion.rs`, `google_docs_forms.rs`, ...).

#![allow(dead_code)] // each test file uses a different part of it

use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials};
use charter::table::{Exec, Route, Table, ToolDef};
use charter::{CallContext, CharterError, SessionOptions, Source, ToolSession};
use serde_json::Value;

pub use charter_testkit::stub::{Recorded, Stub};

/// A non-progressive session over `table`, its pack sent to `base`, with `credentials`
/// (`(variable, secret)` pairs) as the only secrets.
pub fn session(table: &'static Table, base: &str, credentials: &[(&str, &str)]) -> ToolSession {
    let mut creds = StaticCredentials::new();
    for (var, secret) in credentials {
        creds = creds.with(*var, *secret);
    }
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(creds)
        .base_url(table.pack, base)
        .build()
        .unwrap();
    ToolSession::with_options(
        vec![Source::Table(table)],
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(Arc::new(http)),
    )
    .unwrap()
}

/// The tool `name` (published name) of `table`.
pub fn tool(table: &'static Table, name: &str) -> &'static ToolDef {
    table
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the {} pack", table.pack))
}

/// The HTTP route of the tool `name`.
pub fn route(table: &'static Table, name: &str) -> &'static Route {
    let Exec::Http(route) = tool(table, name).exec else {
        panic!("{name} is not an HTTP tool")
    };
    route
}

/// Calls a tool and returns its JSON answer.
pub async fn call(session: &ToolSession, name: &str, args: Value) -> Result<Value, CharterError> {
    let out = session.dispatch(name, args, &CallContext::new()).await?;
    Ok(out.structured.expect("a JSON answer"))
}

/// Whether a tool's name says it lists or searches (such tools must declare a projection).
pub fn is_list_tool(tool: &str) -> bool {
    ["list", "search", "query", "history", "replies", "members"]
        .iter()
        .any(|w| tool.split('_').any(|part| part == *w))
}

/// The pack-wide checks every curated pack passes: at least `min_tools` tools, every tool and
/// every top-level parameter described, every list tool projected, no schema over `max_tokens`,
/// and the published schemas free of the given parameter names (credentials, API noise).
pub fn check_curated(table: &'static Table, min_tools: usize, max_tokens: u32, banned: &[&str]) {
    assert!(
        table.tools.len() >= min_tools,
        "{}: {} tools, want at least {min_tools}",
        table.pack,
        table.tools.len()
    );
    for def in table.tools {
        // Not the importer's "METHOD /path." fallback, not a fragment.
        let fallback = ["GET ", "POST ", "PUT ", "PATCH ", "DELETE "]
            .iter()
            .any(|m| def.description.starts_with(m));
        assert!(
            def.description.len() >= 12 && def.description.ends_with('.') && !fallback,
            "{}: a real description, got {:?}",
            def.name,
            def.description
        );
        assert!(def.annotations.open_world, "{}", def.name);
        let view = &def.views[0];
        assert!(
            view.tokens <= max_tokens,
            "{}: {} schema tokens",
            def.name,
            view.tokens
        );
        let schema: Value = serde_json::from_str(view.schema).unwrap();
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (name, prop) in props {
                assert!(
                    !banned.contains(&name.as_str()),
                    "{}: `{name}` must not be model-visible",
                    def.name
                );
                let text = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                assert!(
                    text.len() >= 5 && !text.starts_with("The `"),
                    "{}.{name}: a real description, got {text:?}",
                    def.name
                );
            }
        }
        if is_list_tool(def.tool) {
            let Exec::Http(route) = def.exec else {
                panic!("{} is not an HTTP tool", def.name)
            };
            assert!(
                !route.projection.is_empty(),
                "{}: a list tool keeps a projection",
                def.name
            );
        }
    }
}

/// One call and the exact request it must produce.
pub struct Expect {
    pub tool: &'static str,
    pub args: Value,
    pub method: &'static str,
    pub path: String,
    /// The raw query string, as sent (percent-encoded).
    pub query: Option<&'static str>,
    /// The JSON body; `None` for a request without one.
    pub body: Option<Value>,
}

/// Sends each call through `session` to `stub` and checks that exactly one request arrived with
/// the expected method, path, query and body, carrying every `(header, value)` of `headers` (a
/// body also carries `content-type: application/json`). Answers are whatever the stub returns.
pub async fn expect_requests(
    stub: &Stub,
    session: &ToolSession,
    headers: &[(&str, &str)],
    cases: Vec<Expect>,
) {
    for case in cases {
        let name = case.tool;
        call(session, name, case.args)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let log = stub.take();
        assert_eq!(log.len(), 1, "{name}: one request, got {log:#?}");
        let r = &log[0];
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
            (case.method, case.path.as_str(), case.query),
            "{name}"
        );
        for (header, value) in headers {
            assert_eq!(r.header(header), Some(*value), "{name}: {header}");
        }
        match case.body {
            Some(body) => {
                assert_eq!(r.json(), body, "{name}: body");
                assert_eq!(r.header("content-type"), Some("application/json"), "{name}");
            }
            None => assert!(r.body.is_empty(), "{name}: no body, got {:?}", r.text()),
        }
    }
}

/// Calls `name` expecting the API's failure: an `Api` error with the given status, method and
/// URL template whose body mentions `body_contains` and whose text never shows `secret`.
pub async fn expect_api_error(
    session: &ToolSession,
    name: &str,
    args: Value,
    (status, method, template): (u16, &str, &str),
    body_contains: &str,
    secret: &str,
) {
    let err = call(session, name, args).await.unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{name}: {err:?}")
    };
    assert_eq!(
        (api.status, api.method, api.url_template),
        (status, method, template),
        "{name}"
    );
    assert!(api.body.contains(body_contains), "{name}: {}", api.body);
    assert!(
        !err.to_string().contains(secret),
        "{name}: no secret in errors"
    );
}

/// Each call must be refused by validation, and nothing may reach the stub.
pub async fn expect_refused(stub: &Stub, session: &ToolSession, cases: Vec<(&str, Value)>) {
    for (name, args) in cases {
        let shown = args.to_string();
        let err = call(session, name, args).await.unwrap_err();
        assert!(err.is_validation(), "{name} {shown}: {err:?}");
    }
    assert!(stub.take().is_empty(), "nothing was sent");
}

/// Checks `err` is the API error of `status` for `(method, template)`, that its body carries
/// `code` (the provider's error code), and that neither its text nor its debug form holds
/// `secret`.
pub fn assert_api_error(
    err: &CharterError,
    (status, method, template): (u16, &str, &str),
    code: &str,
    secret: &str,
) {
    let CharterError::Api(api) = err else {
        panic!("expected an API error, got {err:?}")
    };
    assert_eq!(
        (api.status, api.method, api.url_template),
        (status, method, template)
    );
    assert!(api.body.contains(code), "{}", api.body);
    assert!(!err.to_string().contains(secret), "no secret in the error");
    assert!(
        !format!("{err:?}").contains(secret),
        "no secret in the debug form"
    );
}
