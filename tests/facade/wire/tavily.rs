//! The `tavily` pack's research, logs and organization tools on the wire: exact requests (bearer
//! key, snake_case JSON) against a recording axum server on 127.0.0.1, the research report's
//! projection, Tavily's error answers, and arguments refused before sending. Search, extract,
//! crawl, map and usage are covered in `requests.rs`.

#![cfg(feature = "pack-tavily")]

use crate::wire::wire_stub as stub;

use serde_json::json;
use stub::{
    Expect, Stub, call, check_curated, expect_api_error, expect_refused, expect_requests, session,
    tool,
};

const KEY: &str = "tvly-0123456789abcdef";
const TABLE: &charter::table::Table = &charter::packs::tavily::TOOLS;
const REQUEST: &str = "123e4567-e89b-12d3-a456-426614174111";

fn tavily(stub: &Stub) -> charter::ToolSession {
    session(TABLE, &stub.base, &[("TAVILY_API_KEY", KEY)])
}

fn post(tool: &'static str, path: &str, body: serde_json::Value) -> Expect {
    Expect {
        tool,
        args: body.clone(),
        method: "POST",
        path: path.into(),
        query: None,
        body: Some(body),
    }
}

#[tokio::test]
async fn research_logs_and_org_usage_send_exact_requests() {
    let stub = Stub::start(|_| (200, json!({"request_id": REQUEST, "status": "pending"}))).await;
    let s = tavily(&stub);
    let cases = vec![
        post(
            "tavily_research_create",
            "/research",
            json!({
                "input": "How did EU battery regulation change in 2026?",
                "model": "pro",
                "output_schema": {"properties": {"changes": {"type": "array", "items": {"type": "string"}}}},
                "citation_format": "apa",
                "output_length": "short",
                "include_domains": ["ec.europa.eu"],
                "exclude_domains": ["reddit.com"]
            }),
        ),
        Expect {
            tool: "tavily_research_get",
            args: json!({"request_id": REQUEST}),
            method: "GET",
            path: format!("/research/{REQUEST}"),
            query: None,
            body: None,
        },
        post(
            "tavily_logs",
            "/logs",
            json!({"limit": 50, "start_date": "2026-08-01", "end_date": "2026-08-07",
                   "endpoints": ["search", "research"], "project_id": "p1", "filter_by_api_key": true}),
        ),
        // Every field is optional, and Tavily wants a JSON body even then.
        post("tavily_logs", "/logs", json!({})),
        post(
            "tavily_org_usage",
            "/org-usage",
            json!({"organization_name": "Acme Inc", "start_date": "2026-05-01", "depth": "advanced"}),
        ),
        post(
            "tavily_search",
            "/search",
            json!({"query": "rust release", "search_depth": "ultra-fast"}),
        ),
    ];
    expect_requests(
        &stub,
        &s,
        &[("authorization", &format!("Bearer {KEY}"))],
        cases,
    )
    .await;
}

#[tokio::test]
async fn a_finished_report_keeps_its_content_and_sources() {
    let stub = Stub::start(|_| {
        (200, json!({
            "request_id": REQUEST, "created_at": "2026-08-01T10:00:00Z", "completed_at": "2026-08-01T10:01:30Z",
            "status": "completed", "content": "# Findings\n\nThe regulation [1] ...",
            "sources": [{"title": "Battery Regulation", "url": "https://ec.europa.eu/x", "favicon": "https://ec.europa.eu/f.ico"}],
            "response_time": 90.1
        }))
    })
    .await;
    let s = tavily(&stub);
    let out = call(&s, "tavily_research_get", json!({"request_id": REQUEST}))
        .await
        .unwrap();
    assert_eq!(
        out,
        json!({
            "request_id": REQUEST, "status": "completed", "created_at": "2026-08-01T10:00:00Z",
            "completed_at": "2026-08-01T10:01:30Z", "content": "# Findings\n\nThe regulation [1] ...",
            "sources": [{"title": "Battery Regulation", "url": "https://ec.europa.eu/x"}]
        })
    );
}

#[tokio::test]
async fn tavily_errors_are_api_errors_and_bad_arguments_are_refused() {
    let stub = Stub::start(|_| {
        (
            401,
            json!({"detail": {"error": "Your API key is wrong or missing."}}),
        )
    })
    .await;
    let s = tavily(&stub);
    expect_api_error(
        &s,
        "tavily_logs",
        json!({"limit": 5}),
        (401, "POST", "/logs"),
        "wrong or missing",
        KEY,
    )
    .await;
    stub.take();
    expect_refused(
        &stub,
        &s,
        vec![
            (
                "tavily_research_create",
                json!({"input": "x", "model": "ultra"}),
            ),
            ("tavily_research_create", json!({"model": "mini"})),
            ("tavily_logs", json!({"endpoints": ["usage"]})),
            ("tavily_logs", json!({"start_date": "last week"})),
            ("tavily_org_usage", json!({"start_date": "2026-05-01"})),
        ],
    )
    .await;
}

#[test]
fn the_pack_is_curated() {
    check_curated(TABLE, 9, 1200, &["api_key", "stream"]);
    for name in [
        "tavily_search",
        "tavily_extract",
        "tavily_crawl",
        "tavily_map",
        "tavily_logs",
        "tavily_org_usage",
    ] {
        let a = tool(TABLE, name).annotations;
        assert!(
            a.read_only && a.idempotent,
            "{name}: a POST that only reads"
        );
    }
    let a = tool(TABLE, "tavily_research_create").annotations;
    assert!(
        !a.read_only && !a.idempotent,
        "each call starts a paid task"
    );
}
