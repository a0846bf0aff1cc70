//! Sessions over the Google packs pointed at the test kit's recording stub (a real server on
//! 127.0.0.1 that records every request: method, raw path, raw query, headers, body), and the
//! checks every Google pack passes; shared by `gmail.rs`, `gcalendar.rs` and `gdrive_gsheets.rs`.

#![allow(dead_code)]

use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials};
use charter::table::{Exec, Route, Table};
use charter::{CallContext, CharterError, SessionOptions, Source, ToolSession};
use serde_json::Value;

/// The OAuth access token every Google pack reads from `GOOGLE_ACCESS_TOKEN`.
pub const TOKEN: &str = "ya29.a0-test-token-0123456789";

pub use charter_testkit::stub::{Recorded, Reply, Stub};

/// Checks the bearer token, and that a body, when there is one, is declared JSON.
pub fn assert_google_auth(r: &Recorded) {
    assert_eq!(
        r.header("authorization").map(str::to_owned),
        Some(format!("Bearer {TOKEN}")),
        "{} {}",
        r.method,
        r.path
    );
    if !r.body.is_empty() {
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
}

/// Google's error envelope for a bad or expired token.
pub fn unauthenticated() -> Reply {
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
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(Arc::new(http)),
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
