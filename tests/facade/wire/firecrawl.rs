//! The `firecrawl` pack's later tools on the wire: job results and errors, search feedback, the
//! research agent, research papers and developer search, browser sessions, change monitors,
//! team usage and threat protection. Every tool's exact request (camelCase JSON, query strings,
//! the bearer key) against a recording axum server on 127.0.0.1, cursor pagination of the
//! activity list, offset pagination of the monitor lists, projections, Firecrawl's error answers, and arguments refused before sending.
//! The first sixteen tools are covered in `requests.rs`.

#![cfg(feature = "pack-firecrawl")]

use crate::wire::wire_stub as stub;

use charter::http::next_page;
use serde_json::{Value, json};
use stub::{
    Expect, Stub, call, check_curated, expect_api_error, expect_refused, expect_requests, route,
    session, tool,
};

const KEY: &str = "fc-0123456789abcdef";
const TABLE: &charter::table::Table = &charter::packs::firecrawl::TOOLS;
const JOB: &str = "0d5d7a42-6b5a-4e4d-9c53-8b9d1f1e2a3b";
const MONITOR: &str = "6f1c2a4e-3b5d-4c7e-9f10-2a3b4c5d6e7f";
const CHECK: &str = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

fn firecrawl(stub: &Stub) -> charter::ToolSession {
    session(
        TABLE,
        &format!("{}/v2", stub.base),
        &[("FIRECRAWL_API_KEY", KEY)],
    )
}

fn get(tool: &'static str, args: Value, path: String, query: Option<&'static str>) -> Expect {
    Expect {
        tool,
        args,
        method: "GET",
        path: format!("/v2{path}"),
        query,
        body: None,
    }
}

fn delete(tool: &'static str, args: Value, path: String) -> Expect {
    Expect {
        tool,
        args,
        method: "DELETE",
        path: format!("/v2{path}"),
        query: None,
        body: None,
    }
}

/// Every case's exact request, each with the bearer key.
async fn expect_firecrawl_requests(stub: &Stub, s: &charter::ToolSession, cases: Vec<Expect>) {
    let bearer = format!("Bearer {KEY}");
    expect_requests(stub, s, &[("authorization", bearer.as_str())], cases).await;
}

/// A write whose arguments (snake_case) produce `body` (the wire's camelCase).
fn write(
    tool: &'static str,
    method: &'static str,
    path: String,
    args: Value,
    body: Option<Value>,
) -> Expect {
    Expect {
        tool,
        args,
        method,
        path: format!("/v2{path}"),
        query: None,
        body,
    }
}

#[tokio::test]
async fn job_results_feedback_agent_and_research_send_exact_requests() {
    let stub = Stub::start(|_| (200, json!({"success": true}))).await;
    let s = firecrawl(&stub);
    let schema = json!({"type": "object", "properties": {"founded_year": {"type": "integer"}}});
    let cases = vec![
        get(
            "firecrawl_scrape_status",
            json!({"job_id": JOB}),
            format!("/scrape/{JOB}"),
            None,
        ),
        get(
            "firecrawl_batch_scrape_errors",
            json!({"id": JOB}),
            format!("/batch/scrape/{JOB}/errors"),
            None,
        ),
        write(
            "firecrawl_search_feedback",
            "POST",
            format!("/search/{JOB}/feedback"),
            json!({"job_id": JOB, "rating": "partial",
                   "valuable_sources": [{"url": "https://example.com/a", "reason": "primary source"}],
                   "missing_content": [{"topic": "pricing"}], "query_suggestions": "add the year"}),
            Some(json!({"rating": "partial",
                   "valuableSources": [{"url": "https://example.com/a", "reason": "primary source"}],
                   "missingContent": [{"topic": "pricing"}], "querySuggestions": "add the year"})),
        ),
        write(
            "firecrawl_agent_start",
            "POST",
            "/agent".into(),
            json!({"prompt": "When was each company founded?", "urls": ["https://example.com/about"],
                   "schema": schema, "max_credits": 500, "strict_constrain_to_urls": true, "model": "spark-1-mini"}),
            Some(
                json!({"prompt": "When was each company founded?", "urls": ["https://example.com/about"],
                   "schema": schema, "maxCredits": 500, "strictConstrainToURLs": true, "model": "spark-1-mini"}),
            ),
        ),
        get(
            "firecrawl_agent_status",
            json!({"job_id": JOB}),
            format!("/agent/{JOB}"),
            None,
        ),
        delete(
            "firecrawl_agent_cancel",
            json!({"job_id": JOB}),
            format!("/agent/{JOB}"),
        ),
        get(
            "firecrawl_research_papers_search",
            json!({"query": "retrieval augmented generation", "k": 5, "authors": "Lewis", "from": "2020-01-01"}),
            "/search/research/papers".into(),
            Some("query=retrieval%20augmented%20generation&k=5&authors=Lewis&from=2020-01-01"),
        ),
        get(
            "firecrawl_research_paper_get",
            json!({"id": "arxiv:2005.11401", "query": "which retriever", "k": 2}),
            "/search/research/papers/arxiv%3A2005.11401".into(),
            Some("query=which%20retriever&k=2"),
        ),
        get(
            "firecrawl_research_similar_papers",
            json!({"id": "arxiv:2005.11401", "intent": "follow-up work", "mode": "citers", "anchor": ["doi:10.1/x", "pmid:1"]}),
            "/search/research/papers/arxiv%3A2005.11401/similar".into(),
            Some("intent=follow-up%20work&mode=citers&anchor=doi%3A10.1%2Fx&anchor=pmid%3A1"),
        ),
        get(
            "firecrawl_developer_search",
            json!({"query": "retry on 429", "types": ["issue", "pull_request"], "repos": ["firecrawl/firecrawl"], "min_stars": 100}),
            "/search/developer".into(),
            Some(
                "query=retry%20on%20429&types=issue&types=pull_request&repos=firecrawl%2Ffirecrawl&min_stars=100",
            ),
        ),
    ];
    expect_firecrawl_requests(&stub, &s, cases).await;
}

#[tokio::test]
async fn browser_sessions_monitors_and_team_send_exact_requests() {
    let stub = Stub::start(|_| (200, json!({"success": true}))).await;
    let s = firecrawl(&stub);
    let cases = vec![
        write(
            "firecrawl_scrape_interact",
            "POST",
            format!("/scrape/{JOB}/interact"),
            json!({"job_id": JOB, "code": "print(page.title())", "language": "python", "timeout": 60}),
            Some(json!({"code": "print(page.title())", "language": "python", "timeout": 60})),
        ),
        delete(
            "firecrawl_scrape_interact_stop",
            json!({"job_id": JOB}),
            format!("/scrape/{JOB}/interact"),
        ),
        write(
            "firecrawl_interact_create",
            "POST",
            "/interact".into(),
            json!({"ttl": 600, "activity_ttl": 60, "profile": {"name": "shop", "save_changes": false}}),
            Some(
                json!({"ttl": 600, "activityTtl": 60, "profile": {"name": "shop", "saveChanges": false}}),
            ),
        ),
        write(
            "firecrawl_interact_execute",
            "POST",
            "/interact/s1/execute".into(),
            json!({"session_id": "s1", "code": "await page.click('#buy')"}),
            Some(json!({"code": "await page.click('#buy')"})),
        ),
        get(
            "firecrawl_interact_list",
            json!({"status": "active"}),
            "/interact".into(),
            Some("status=active"),
        ),
        delete(
            "firecrawl_interact_delete",
            json!({"session_id": "s1"}),
            "/interact/s1".into(),
        ),
        write(
            "firecrawl_monitor_create",
            "POST",
            "/monitor".into(),
            json!({
                "name": "Competitor pricing",
                "schedule": {"text": "every 30 minutes", "timezone": "Europe/Paris"},
                "targets": [
                    {"type": "scrape", "urls": ["https://example.com/pricing"], "scrape_options": {"only_main_content": true}},
                    {"type": "search", "queries": ["example price change"], "search_window": "24h", "max_results": 5}
                ],
                "goal": "A plan's price changes",
                "retention_days": 7,
                "notification": {"email": {"enabled": true, "recipients": ["ops@example.com"], "include_diffs": true}},
                "webhook": {"url": "https://hooks.example.com/fc", "headers": {"X-Token": "t"}, "events": ["monitor.page"]}
            }),
            Some(json!({
                "name": "Competitor pricing",
                "schedule": {"text": "every 30 minutes", "timezone": "Europe/Paris"},
                "targets": [
                    {"type": "scrape", "urls": ["https://example.com/pricing"], "scrapeOptions": {"onlyMainContent": true}},
                    {"type": "search", "queries": ["example price change"], "searchWindow": "24h", "maxResults": 5}
                ],
                "goal": "A plan's price changes",
                "retentionDays": 7,
                "notification": {"email": {"enabled": true, "recipients": ["ops@example.com"], "includeDiffs": true}},
                "webhook": {"url": "https://hooks.example.com/fc", "headers": {"X-Token": "t"}, "events": ["monitor.page"]}
            })),
        ),
        get(
            "firecrawl_monitor_list",
            json!({"limit": 10, "offset": 20}),
            "/monitor".into(),
            Some("limit=10&offset=20"),
        ),
        get(
            "firecrawl_monitor_get",
            json!({"monitor_id": MONITOR}),
            format!("/monitor/{MONITOR}"),
            None,
        ),
        write(
            "firecrawl_monitor_update",
            "PATCH",
            format!("/monitor/{MONITOR}"),
            json!({"monitor_id": MONITOR, "status": "paused", "schedule": {"cron": "0 9 * * 1-5"}}),
            Some(json!({"status": "paused", "schedule": {"cron": "0 9 * * 1-5"}})),
        ),
        delete(
            "firecrawl_monitor_delete",
            json!({"monitor_id": MONITOR}),
            format!("/monitor/{MONITOR}"),
        ),
        write(
            "firecrawl_monitor_run",
            "POST",
            format!("/monitor/{MONITOR}/run"),
            json!({"monitor_id": MONITOR}),
            None,
        ),
        get(
            "firecrawl_monitor_checks_list",
            json!({"monitor_id": MONITOR, "status": "completed", "limit": 5}),
            format!("/monitor/{MONITOR}/checks"),
            Some("status=completed&limit=5"),
        ),
        get(
            "firecrawl_monitor_check_get",
            json!({"monitor_id": MONITOR, "check_id": CHECK, "status": "changed", "limit": 10, "skip": 10}),
            format!("/monitor/{MONITOR}/checks/{CHECK}"),
            Some("status=changed&limit=10&skip=10"),
        ),
        get(
            "firecrawl_activity",
            json!({"endpoint": "crawl", "limit": 20, "cursor": "abc"}),
            "/team/activity".into(),
            Some("endpoint=crawl&limit=20&cursor=abc"),
        ),
        get(
            "firecrawl_credit_usage_historical",
            json!({"by_api_key": true}),
            "/team/credit-usage/historical".into(),
            Some("byApiKey=true"),
        ),
        get(
            "firecrawl_token_usage",
            json!({}),
            "/team/token-usage".into(),
            None,
        ),
        get(
            "firecrawl_token_usage_historical",
            json!({}),
            "/team/token-usage/historical".into(),
            None,
        ),
        get(
            "firecrawl_threat_protection_get",
            json!({}),
            "/team/threat-protection".into(),
            None,
        ),
        write(
            "firecrawl_threat_protection_update",
            "PUT",
            "/team/threat-protection".into(),
            json!({"mode": "normal", "risk_score_threshold": 70, "blacklist": ["*.example.net"],
                   "blocked_tlds": ["zip"], "failure_policy": "closed", "allow_request_overrides": false}),
            Some(
                json!({"mode": "normal", "riskScoreThreshold": 70, "blacklist": ["*.example.net"],
                   "blockedTlds": ["zip"], "failurePolicy": "closed", "allowRequestOverrides": false}),
            ),
        ),
        write(
            "firecrawl_support_docs_search",
            "POST",
            "/support/docs-search".into(),
            json!({"question": "How do I crawl only the blog?"}),
            Some(json!({"question": "How do I crawl only the blog?"})),
        ),
    ];
    expect_firecrawl_requests(&stub, &s, cases).await;
}

#[tokio::test]
async fn activity_pages_by_cursor_and_lists_are_projected() {
    let stub = Stub::start(|r| match r.path.as_str() {
        "/v2/team/activity" => {
            let second = r.query.as_deref().is_some_and(|q| q.contains("cursor=c2"));
            let (more, cursor) = if second { (false, Value::Null) } else { (true, json!("c2")) };
            (200, json!({"success": true, "has_more": more, "cursor": cursor,
                "data": [{"id": JOB, "endpoint": "crawl", "api_version": "v2", "created_at": "2026-08-01T10:00:00Z",
                          "target": "https://example.com", "origin": "api"}]}))
        }
        _ => (200, json!({"success": true, "data": [{"id": MONITOR, "name": "Pricing", "status": "active",
            "schedule": {"text": "hourly"}, "targets": [{"type": "scrape", "urls": ["https://example.com"]}],
            "webhook": null, "retentionDays": 30, "createdAt": "2026-08-01T10:00:00Z"}]})),
    })
    .await;
    let s = firecrawl(&stub);
    let args = json!({"limit": 1});
    let first = call(&s, "firecrawl_activity", args.clone()).await.unwrap();
    assert_eq!(
        first,
        json!({"success": true, "data": [{"id": JOB, "endpoint": "crawl", "created_at": "2026-08-01T10:00:00Z",
               "target": "https://example.com"}], "cursor": "c2", "has_more": true})
    );
    let activity = route(TABLE, "firecrawl_activity");
    let next = next_page(activity, &args, &first).expect("a second page");
    assert_eq!(next, json!({"limit": 1, "cursor": "c2"}));
    let last = call(&s, "firecrawl_activity", next.clone()).await.unwrap();
    assert_eq!(next_page(activity, &next, &last), None);

    let monitors = call(&s, "firecrawl_monitor_list", json!({})).await.unwrap();
    assert_eq!(
        monitors,
        json!({"success": true, "data": [{"id": MONITOR, "name": "Pricing", "status": "active", "schedule": {"text": "hourly"}}]})
    );
    let log = stub.take();
    assert_eq!(log[1].query.as_deref(), Some("limit=1&cursor=c2"));
}

#[tokio::test]
async fn monitor_checks_page_by_offset_until_a_short_page() {
    // Five checks in all, served by position: the stub pages by the offset and limit it gets.
    let stub = Stub::start(|r| {
        let query = r.query.clone().unwrap_or_default();
        let arg = |key: &str| {
            query.split('&').find_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                (k == key).then(|| v.parse::<usize>().unwrap())
            })
        };
        let (offset, limit) = (arg("offset").unwrap_or(0), arg("limit").unwrap_or(25));
        let data: Vec<Value> = (offset..5.min(offset + limit))
            .map(|i| json!({"id": format!("check-{i}"), "status": "completed", "trigger": "scheduled"}))
            .collect();
        (200, json!({"success": true, "data": data}))
    })
    .await;
    let s = firecrawl(&stub);
    let checks = route(TABLE, "firecrawl_monitor_checks_list");
    let args = json!({"monitor_id": MONITOR, "status": "completed", "limit": 2});
    let first = call(&s, "firecrawl_monitor_checks_list", args.clone())
        .await
        .unwrap();
    let next = next_page(checks, &args, &first).expect("a second page");
    assert_eq!(
        next,
        json!({"monitor_id": MONITOR, "status": "completed", "limit": 2, "offset": 2})
    );
    let second = call(&s, "firecrawl_monitor_checks_list", next.clone())
        .await
        .unwrap();
    assert_eq!(second["data"][0]["id"], "check-2");
    let next = next_page(checks, &next, &second).expect("a third page");
    assert_eq!(next["offset"], 4);
    let third = call(&s, "firecrawl_monitor_checks_list", next.clone())
        .await
        .unwrap();
    assert_eq!(
        third,
        json!({"success": true, "data": [{"id": "check-4", "status": "completed", "trigger": "scheduled"}]})
    );
    assert_eq!(
        next_page(checks, &next, &third),
        None,
        "a short page is the last"
    );
    let log = stub.take();
    let sent: Vec<(&str, Option<&str>)> = log
        .iter()
        .map(|r| (r.path.as_str(), r.query.as_deref()))
        .collect();
    let path = format!("/v2/monitor/{MONITOR}/checks");
    assert_eq!(
        sent,
        [
            (path.as_str(), Some("status=completed&limit=2")),
            (path.as_str(), Some("status=completed&limit=2&offset=2")),
            (path.as_str(), Some("status=completed&limit=2&offset=4")),
        ]
    );
    // Without a limit the server's page size is unknown: only an empty page ends the walk.
    let monitors = route(TABLE, "firecrawl_monitor_list");
    let page = call(&s, "firecrawl_monitor_list", json!({"offset": 3}))
        .await
        .unwrap();
    let next = next_page(monitors, &json!({"offset": 3}), &page).expect("not known to be the last");
    assert_eq!(next, json!({"offset": 5}));
    let empty = call(&s, "firecrawl_monitor_list", next.clone())
        .await
        .unwrap();
    assert_eq!(empty, json!({"success": true, "data": []}));
    assert_eq!(next_page(monitors, &next, &empty), None);
    let log = stub.take();
    assert_eq!(log[0].query.as_deref(), Some("offset=3"));
    assert_eq!(log[1].query.as_deref(), Some("offset=5"));
}

#[tokio::test]
async fn firecrawl_errors_are_api_errors_and_bad_arguments_are_refused() {
    let stub = Stub::start(|_| {
        (
            402,
            json!({"success": false, "error": "Insufficient credits to perform this request."}),
        )
    })
    .await;
    let s = firecrawl(&stub);
    expect_api_error(
        &s,
        "firecrawl_monitor_run",
        json!({"monitor_id": MONITOR}),
        (402, "POST", "/monitor/{monitor_id}/run"),
        "Insufficient credits",
        KEY,
    )
    .await;
    stub.take();

    expect_refused(
        &stub,
        &s,
        vec![
            (
                "firecrawl_agent_status",
                json!({"job_id": "../team/credit-usage"}),
            ),
            (
                "firecrawl_monitor_create",
                json!({"name": "x", "schedule": {"text": "hourly"}, "targets": [{"type": "rss"}]}),
            ),
            (
                "firecrawl_monitor_create",
                json!({"name": "x", "schedule": {"text": "hourly"}, "targets": []}),
            ),
            // Each target kind has its own required fields (the document's `oneOf`).
            (
                "firecrawl_monitor_create",
                json!({"name": "x", "schedule": {"text": "hourly"}, "targets": [{"type": "crawl", "urls": ["https://example.com"]}]}),
            ),
            // The document's bounds and proxy names, not the older `stealth`.
            (
                "firecrawl_scrape",
                json!({"url": "https://example.com", "timeout": 500}),
            ),
            (
                "firecrawl_scrape",
                json!({"url": "https://example.com", "proxy": "stealth"}),
            ),
            (
                "firecrawl_search_feedback",
                json!({"job_id": JOB, "rating": "great"}),
            ),
            (
                "firecrawl_threat_protection_update",
                json!({"risk_score_threshold": 50}),
            ),
            (
                "firecrawl_research_papers_search",
                json!({"query": "x", "k": 501}),
            ),
            ("firecrawl_interact_create", json!({"ttl": 5})),
        ],
    )
    .await;
}

#[test]
fn the_pack_is_curated() {
    check_curated(
        TABLE,
        47,
        2500,
        &["api_key", "apiKey", "origin", "integration"],
    );
    for def in TABLE.tools {
        let charter::table::Exec::Http(r) = def.exec else {
            unreachable!()
        };
        // GETs and the read-only POSTs only read; every other write is not read-only.
        let reads = [
            "firecrawl_scrape",
            "firecrawl_map",
            "firecrawl_search",
            "firecrawl_crawl_params_preview",
            "firecrawl_support_docs_search",
        ];
        assert_eq!(
            def.annotations.read_only,
            r.method.as_str() == "GET" || reads.contains(&def.name),
            "{}",
            def.name
        );
    }
    for name in [
        "firecrawl_monitor_delete",
        "firecrawl_agent_cancel",
        "firecrawl_interact_delete",
    ] {
        assert!(tool(TABLE, name).annotations.destructive, "{name}");
    }
    assert!(
        tool(TABLE, "firecrawl_threat_protection_update")
            .annotations
            .idempotent
    );
    assert!(!tool(TABLE, "firecrawl_monitor_run").annotations.idempotent);
}
