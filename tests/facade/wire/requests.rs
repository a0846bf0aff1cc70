//! The hand-declared packs on the wire: linear (GraphQL), firecrawl and tavily (REST). Each call
//! goes through a `ToolSession` (validation, dispatch) and the shared `HttpExecutor` to the test
//! kit's recording stub (a real server on 127.0.0.1) that records what it received: method, path, headers (auth
//! included) and the body, checked byte for byte or as parsed JSON.

#![cfg(all(
    feature = "pack-linear",
    feature = "pack-firecrawl",
    feature = "pack-tavily"
))]

use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials, next_page};
use charter::table::{Exec, Route, Table};
use charter::{CallContext, CharterError, SessionOptions, Source, ToolSession};
use charter_testkit::stub::Stub;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Sessions over the compiled packs.

const LINEAR_KEY: &str = "lin_api_0123456789abcdef";
const FIRECRAWL_KEY: &str = "fc-0123456789abcdef";
const TAVILY_KEY: &str = "tvly-0123456789abcdef";

/// A non-progressive session over `table`, its pack sent to `base`.
fn session(table: &'static Table, base: &str) -> ToolSession {
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(
            StaticCredentials::new()
                .with("LINEAR_API_KEY", LINEAR_KEY)
                .with("FIRECRAWL_API_KEY", FIRECRAWL_KEY)
                .with("TAVILY_API_KEY", TAVILY_KEY),
        )
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

fn route(table: &Table, name: &str) -> &'static Route {
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

async fn call(session: &ToolSession, name: &str, args: Value) -> Result<Value, CharterError> {
    let out = session.dispatch(name, args, &CallContext::new()).await?;
    Ok(out.structured.expect("a JSON answer"))
}

// ---------------------------------------------------------------------------------------------
// linear

#[tokio::test]
async fn linear_issue_create_posts_the_document_and_only_the_variables_given() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"data": {"issueCreate": {"success": true, "issue": {
                "id": "9cfb482a-81e3-4154-b5b9-2c805e70a02d", "identifier": "ENG-42",
                "title": "Login fails", "url": "https://linear.app/acme/issue/ENG-42",
                "state": {"name": "Todo"}, "assignee": null}}}}),
        )
    })
    .await;
    let s = session(
        &charter::packs::linear::TOOLS,
        &format!("{}/graphql", stub.base),
    );

    let out = call(
        &s,
        "linear_issues_create",
        json!({
            "team_id": "team-1",
            "title": "Login fails",
            "priority": 2,
            "label_ids": ["bug", "auth"],
            "due_date": "2025-01-31"
        }),
    )
    .await
    .unwrap();
    assert_eq!(out["data"]["issueCreate"]["issue"]["identifier"], "ENG-42");

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", "/graphql", None)
    );
    // A personal API key travels as is: no `Bearer`.
    assert_eq!(r.header("authorization"), Some(LINEAR_KEY));
    assert_eq!(r.header("content-type"), Some("application/json"));
    let document = route(&charter::packs::linear::TOOLS, "linear_issues_create")
        .graphql
        .unwrap();
    assert!(document.starts_with("mutation IssueCreate($teamId: String!, $title: String!"));
    // Parameters are snake_case for the model, camelCase (the variable names) on the wire;
    // variables not given are absent, so the input object leaves those fields alone.
    assert_eq!(
        r.json(),
        json!({
            "query": document,
            "variables": {
                "teamId": "team-1",
                "title": "Login fails",
                "priority": 2,
                "labelIds": ["bug", "auth"],
                "dueDate": "2025-01-31"
            }
        })
    );
    // Key order on the wire: the query, then the variables in declaration order.
    assert!(r.text().starts_with(r#"{"query":"mutation IssueCreate("#));
    assert!(
        r.text().ends_with(
            r#""variables":{"teamId":"team-1","title":"Login fails","priority":2,"labelIds":["bug","auth"],"dueDate":"2025-01-31"}}"#
        ),
        "{}",
        r.text()
    );
}

#[tokio::test]
async fn linear_issues_list_sends_a_typed_filter_and_declares_cursor_pagination() {
    let stub = Stub::start(|r| {
        let after = r.json()["variables"]["after"].clone();
        let (more, cursor) = if after.is_null() {
            (true, "c1")
        } else {
            (false, "c2")
        };
        (
            200,
            json!({
                "data": {"issues": {
                    "nodes": [{"id": "i1", "identifier": "ENG-1", "title": "One"}],
                    "pageInfo": {"hasNextPage": more, "endCursor": cursor}
                }},
                "extensions": {"complexity": 1234}
            }),
        )
    })
    .await;
    let s = session(
        &charter::packs::linear::TOOLS,
        &format!("{}/graphql", stub.base),
    );
    let args = json!({
        "filter": {
            "team": {"key": {"eq": "ENG"}},
            "assignee": {"is_me": {"eq": true}},
            "state": {"type": {"in": ["unstarted", "started"]}},
            "labels": {"some": {"name": {"eq_ignore_case": "bug"}}},
            "cycle": {"null": true},
            "updated_at": {"gte": "-P2W"}
        },
        "first": 1,
        "order_by": "updatedAt"
    });
    let out = call(&s, "linear_issues_list", args.clone()).await.unwrap();
    let r = stub.take().remove(0);
    assert_eq!(
        r.json()["variables"],
        json!({
            "filter": {
                "team": {"key": {"eq": "ENG"}},
                "assignee": {"isMe": {"eq": true}},
                "state": {"type": {"in": ["unstarted", "started"]}},
                "labels": {"some": {"name": {"eqIgnoreCase": "bug"}}},
                "cycle": {"null": true},
                "updatedAt": {"gte": "-P2W"}
            },
            "first": 1,
            "orderBy": "updatedAt"
        })
    );
    // `keep` drops what the model does not need (here `extensions`).
    assert_eq!(
        out,
        json!({"data": {"issues": {
            "nodes": [{"id": "i1", "identifier": "ENG-1", "title": "One"}],
            "pageInfo": {"hasNextPage": true, "endCursor": "c1"}
        }}})
    );

    // The host walks the declared cursor; the last page ends the walk.
    let route = route(&charter::packs::linear::TOOLS, "linear_issues_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["after"], "c1");
    let last = call(&s, "linear_issues_list", next.clone()).await.unwrap();
    assert_eq!(stub.take()[0].json()["variables"]["after"], "c1");
    assert_eq!(next_page(route, &next, &last), None);
}

#[tokio::test]
async fn linear_bad_filter_keys_are_refused_before_any_request() {
    let stub = Stub::start(|_| (200, json!({"data": {}}))).await;
    let s = session(&charter::packs::linear::TOOLS, &stub.base);
    let err = call(
        &s,
        "linear_issues_list",
        json!({"filter": {"team": {"key": {"like": "EN%"}}}, "first": 0}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("like"), "{message}");
    assert!(message.contains("first"), "{message}");
    assert!(stub.take().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn linear_graphql_errors_in_a_200_are_api_errors() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({
                "data": null,
                "errors": [{
                    "message": "Entity not found: Issue",
                    "path": ["issue"],
                    "extensions": {"type": "invalid input", "code": "INPUT_ERROR"}
                }]
            }),
        )
    })
    .await;
    let s = session(&charter::packs::linear::TOOLS, &stub.base);
    let err = call(&s, "linear_issues_get", json!({"id": "ENG-999"}))
        .await
        .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((api.status, api.method), (200, "POST"));
    assert_eq!(
        api.body,
        "GraphQL errors: Entity not found: Issue (at issue)"
    );
    assert!(!err.to_string().contains(LINEAR_KEY), "no secret in errors");
    let r = stub.only();
    assert_eq!(r.path, "/", "the base URL itself");
    assert_eq!(r.json()["variables"], json!({"id": "ENG-999"}));

    // `errors: []` is a success.
    let ok = Stub::start(|_| (200, json!({"data": {"issue": {"id": "x"}}, "errors": []}))).await;
    let s = session(&charter::packs::linear::TOOLS, &ok.base);
    assert_eq!(
        call(&s, "linear_issues_get", json!({"id": "x"}))
            .await
            .unwrap()["data"]["issue"]["id"],
        "x"
    );
}

#[test]
fn linear_read_only_follows_the_document() {
    let table = &charter::packs::linear::TOOLS;
    assert!(table.tools.len() >= 24, "{} tools", table.tools.len());
    let (mut queries, mut mutations) = (0, 0);
    for def in table.tools {
        let document = route(table, def.name)
            .graphql
            .expect("every linear tool is GraphQL");
        let a = def.annotations;
        assert!(a.open_world, "{}", def.name);
        if document.trim_start().starts_with("query") {
            queries += 1;
            assert!(
                a.read_only && a.idempotent && !a.destructive,
                "{}: {a:?}",
                def.name
            );
            assert!(
                charter::scheduler::concurrency_safe_annotations(&a),
                "{}",
                def.name
            );
        } else {
            assert!(
                document.trim_start().starts_with("mutation"),
                "{}",
                def.name
            );
            mutations += 1;
            assert!(!a.read_only, "{}: a mutation is not read-only", def.name);
        }
    }
    assert!(
        queries >= 10 && mutations >= 10,
        "{queries} queries, {mutations} mutations"
    );
    let get = |name: &str| {
        table
            .tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .annotations
    };
    // A plain POST mutation: neither idempotent nor destructive...
    assert!(!get("linear_issues_create").idempotent);
    assert!(!get("linear_issues_create").destructive);
    // ...unless the pack says so.
    assert!(get("linear_issues_delete").destructive);
    assert!(get("linear_issues_update").idempotent);
    // The session sees the same annotations.
    let s = session(table, "http://127.0.0.1:9");
    assert!(s.annotations("linear_cycles_current").unwrap().read_only);
    assert!(!s.annotations("linear_comments_create").unwrap().read_only);
}

// ---------------------------------------------------------------------------------------------
// firecrawl

#[tokio::test]
async fn firecrawl_scrape_sends_camel_case_json_with_a_bearer_key() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"success": true, "data": {
                "markdown": "# Pricing",
                "json": {"plans": 3},
                "metadata": {
                    "title": "Pricing", "sourceURL": "https://example.com/pricing", "statusCode": 200,
                    "ogImage": "https://example.com/og.png", "viewport": "width=device-width"
                }
            }}),
        )
    })
    .await;
    let s = session(
        &charter::packs::firecrawl::TOOLS,
        &format!("{}/v2", stub.base),
    );
    let out = call(
        &s,
        "firecrawl_scrape",
        json!({
            "url": "https://example.com/pricing",
            "formats": [
                "markdown",
                {"type": "json", "prompt": "the plans", "schema": {"type": "object", "properties": {"plan_name": {"type": "string"}}}},
                {"type": "screenshot", "full_page": true}
            ],
            "only_main_content": false,
            "max_age": 0,
            "actions": [{"type": "wait", "milliseconds": 500}, {"type": "click", "selector": "#more"}],
            "location": {"country": "DE", "languages": ["de-DE"]},
            "headers": {"X-Session-Token": "abc"}
        }),
    )
    .await
    .unwrap();

    let r = stub.only();
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v2/scrape"));
    assert_eq!(
        r.header("authorization").unwrap(),
        format!("Bearer {FIRECRAWL_KEY}")
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    // Declared keys are camelCased; free-form maps (a JSON Schema, headers) keep their keys.
    assert_eq!(
        r.text(),
        concat!(
            r#"{"url":"https://example.com/pricing","#,
            r#""formats":["markdown",{"type":"json","prompt":"the plans","schema":{"type":"object","properties":{"plan_name":{"type":"string"}}}},{"type":"screenshot","fullPage":true}],"#,
            r#""onlyMainContent":false,"maxAge":0,"headers":{"X-Session-Token":"abc"},"#,
            r##""actions":[{"type":"wait","milliseconds":500},{"type":"click","selector":"#more"}],"##,
            r#""location":{"country":"DE","languages":["de-DE"]}}"#
        )
    );
    // The projection keeps the content and a few metadata fields.
    assert_eq!(
        out,
        json!({"success": true, "data": {
            "markdown": "# Pricing",
            "json": {"plans": 3},
            "metadata": {"title": "Pricing", "sourceURL": "https://example.com/pricing", "statusCode": 200}
        }})
    );
}

#[tokio::test]
async fn firecrawl_crawl_and_extract_routes() {
    let stub = Stub::start(|r| match (r.method.as_str(), r.path.as_str()) {
        ("POST", "/v2/crawl") => (200, json!({"success": true, "id": "0d5d7a42-6b5a-4e4d-9c53-8b9d1f1e2a3b", "url": "https://api.firecrawl.dev/v2/crawl/0d5d7a42-6b5a-4e4d-9c53-8b9d1f1e2a3b"})),
        ("GET", _) => (200, json!({"status": "scraping", "total": 10, "completed": 4, "creditsUsed": 4,
            "data": [{"markdown": "# A", "html": "<h1>A</h1>", "metadata": {"sourceURL": "https://example.com/a", "ogTitle": "x"}}]})),
        ("POST", "/v2/extract") => (200, json!({"success": true, "id": "e1", "invalidURLs": []})),
        _ => (404, json!({"error": "no route"})),
    })
    .await;
    let s = session(
        &charter::packs::firecrawl::TOOLS,
        &format!("{}/v2", stub.base),
    );

    let started = call(
        &s,
        "firecrawl_crawl_start",
        json!({"url": "https://example.com", "limit": 10, "include_paths": ["docs/.*"], "scrape_options": {"formats": ["markdown"], "only_main_content": true}}),
    )
    .await
    .unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    let status = call(&s, "firecrawl_crawl_status", json!({"id": id}))
        .await
        .unwrap();
    assert_eq!(
        status["data"][0],
        json!({"markdown": "# A", "metadata": {"sourceURL": "https://example.com/a"}})
    );
    call(
        &s,
        "firecrawl_extract_start",
        json!({"urls": ["https://example.com/*"], "prompt": "prices", "ignore_invalid_urls": false}),
    )
    .await
    .unwrap();

    let log = stub.take();
    assert_eq!(
        log[0].json(),
        json!({"url": "https://example.com", "includePaths": ["docs/.*"], "limit": 10,
               "scrapeOptions": {"formats": ["markdown"], "onlyMainContent": true}})
    );
    assert_eq!(
        (
            log[1].method.as_str(),
            log[1].path.as_str(),
            log[1].body.len()
        ),
        ("GET", "/v2/crawl/0d5d7a42-6b5a-4e4d-9c53-8b9d1f1e2a3b", 0)
    );
    // A wire name the casing rule cannot spell comes from `wire:`.
    assert_eq!(
        log[2].json(),
        json!({"urls": ["https://example.com/*"], "prompt": "prices", "ignoreInvalidURLs": false})
    );
    // A job id that is not a UUID is refused before any request.
    let err = call(
        &s,
        "firecrawl_crawl_status",
        json!({"id": "../team/credit-usage"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty());
}

// ---------------------------------------------------------------------------------------------
// tavily

#[tokio::test]
async fn tavily_search_posts_snake_case_json_with_a_bearer_key() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({
                "query": "rust 2024 edition", "answer": "It shipped with Rust 1.85.",
                "results": [{"title": "Announcing Rust 1.85", "url": "https://blog.rust-lang.org/", "content": "...", "score": 0.9, "favicon": "x"}],
                "images": [], "response_time": 1.2, "request_id": "r1"
            }),
        )
    })
    .await;
    let s = session(&charter::packs::tavily::TOOLS, &stub.base);
    let out = call(
        &s,
        "tavily_search",
        json!({
            "query": "rust 2024 edition",
            "topic": "news",
            "max_results": 3,
            "time_range": "week",
            "include_answer": "advanced",
            "include_domains": ["rust-lang.org"]
        }),
    )
    .await
    .unwrap();

    let r = stub.only();
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/search"));
    // The key goes in the header, never in the body.
    assert_eq!(
        r.header("authorization").unwrap(),
        format!("Bearer {TAVILY_KEY}")
    );
    assert_eq!(
        r.text(),
        r#"{"query":"rust 2024 edition","topic":"news","max_results":3,"time_range":"week","include_answer":"advanced","include_domains":["rust-lang.org"]}"#
    );
    assert!(!r.text().contains(TAVILY_KEY));
    assert_eq!(
        out,
        json!({
            "query": "rust 2024 edition", "answer": "It shipped with Rust 1.85.",
            "results": [{"title": "Announcing Rust 1.85", "url": "https://blog.rust-lang.org/", "content": "...", "score": 0.9, "favicon": "x"}],
            "images": [], "response_time": 1.2
        })
    );

    // `include_answer` is a boolean or one of two strings, nothing else.
    let err = call(
        &s,
        "tavily_search",
        json!({"query": "q", "include_answer": "short"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}

#[tokio::test]
async fn tavily_extract_crawl_and_map_routes() {
    let stub = Stub::start(|r| {
        (
            200,
            json!({"base_url": "docs.tavily.com", "results": [], "path": r.path}),
        )
    })
    .await;
    let s = session(&charter::packs::tavily::TOOLS, &stub.base);
    call(
        &s,
        "tavily_extract",
        json!({"urls": ["https://example.com"], "extract_depth": "advanced", "format": "text"}),
    )
    .await
    .unwrap();
    call(&s, "tavily_crawl", json!({"url": "docs.tavily.com", "max_depth": 2, "select_paths": ["/sdk/.*"], "instructions": "Python SDK"}))
        .await
        .unwrap();
    call(
        &s,
        "tavily_map",
        json!({"url": "docs.tavily.com", "limit": 20}),
    )
    .await
    .unwrap();
    call(&s, "tavily_usage", json!({})).await.unwrap();
    let log = stub.take();
    let seen: Vec<(&str, &str)> = log
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("POST", "/extract"),
            ("POST", "/crawl"),
            ("POST", "/map"),
            ("GET", "/usage")
        ]
    );
    assert!(log[3].body.is_empty(), "a GET carries no body");
    assert_eq!(
        log[0].json(),
        json!({"urls": ["https://example.com"], "extract_depth": "advanced", "format": "text"})
    );
    assert_eq!(
        log[1].text(),
        r#"{"url":"docs.tavily.com","instructions":"Python SDK","max_depth":2,"select_paths":["/sdk/.*"]}"#
    );
    assert_eq!(
        log[2].json(),
        json!({"url": "docs.tavily.com", "limit": 20})
    );
    for r in &log {
        assert_eq!(
            r.header("authorization").unwrap(),
            format!("Bearer {TAVILY_KEY}")
        );
    }
    // max_depth is bounded as the reference says.
    let err = call(&s, "tavily_map", json!({"url": "x", "max_depth": 9}))
        .await
        .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}
