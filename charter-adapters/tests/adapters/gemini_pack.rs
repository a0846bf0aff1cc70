//! The Gemini loop over a shipped pack: the model (a scripted `generateContent` server that
//! checks every declaration against the API's schema subset) finds GitHub tools with ToolSearch
//! and calls them; the calls are real HTTP requests, made by the session's `HttpExecutor`, that
//! arrive at the test kit's recording stub standing in for api.github.com.

use crate::support;

use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials};
use charter::table::Table;
use charter_adapters::Stop;
use charter_adapters::gemini::{self, Content, GeminiClient, Options, Role};
use charter_runtime::Dialect;
use charter_runtime::session::{SessionOptions, Source, TOOL_SEARCH, ToolSession};
use charter_testkit::stub::{Reply as ApiReply, Stub};
use serde_json::{Value, json};
use support::*;

const KEY: &str = "AIza-pack-test-0123456789";
const TOKEN: &str = "ghp_0123456789abcdefABCDEF0123456789abcd";
const GITHUB: &Table = &charter::packs::github::TOOLS;

fn session(api: &str) -> ToolSession {
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(StaticCredentials::new().with("GITHUB_TOKEN", TOKEN))
        .base_url("github", api)
        .build()
        .unwrap();
    ToolSession::with_options(
        vec![Source::Table(GITHUB)],
        SessionOptions::new()
            .with_http(Arc::new(http))
            .with_dialect(Dialect::Gemini),
    )
    .unwrap()
}

fn schema(name: &str) -> &'static str {
    GITHUB
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the github pack"))
        .views[0]
        .schema_in(Dialect::Gemini)
}

#[tokio::test]
async fn the_github_pack_found_by_tool_search_and_called_over_http() {
    let api = Stub::start(|r| match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/repos/octo/hello/issues/7") => ApiReply::json(
            200,
            json!({"number": 7, "title": "Crash on start", "state": "open", "body": "trace",
                   "user": {"login": "mona", "id": 1}, "node_id": "dropped by the projection"}),
        ),
        ("POST", "/repos/octo/hello/issues") => ApiReply::json(
            201,
            json!({"number": 8, "title": "Follow-up", "state": "open", "html_url": "https://github.com/octo/hello/issues/8"}),
        ),
        _ => ApiReply::status(404),
    })
    .await;
    let model = ScriptedServer::start(
        Wire::Gemini,
        Some(KEY),
        vec![
            gemini_calls(&[(
                None,
                TOOL_SEARCH,
                json!({"query": "select:github_issues_get,github_issues_create"}),
            )]),
            gemini_calls(&[
                (
                    Some("get"),
                    "github_issues_get",
                    json!({"owner": "octo", "repo": "hello", "issue_number": 7}),
                ),
                (
                    Some("create"),
                    "github_issues_create",
                    json!({"owner": "octo", "repo": "hello", "title": "Follow-up", "milestone": null}),
                ),
            ]),
            gemini_text("The crash report is open; I filed a follow-up (8)."),
        ],
    )
    .await;
    let client = GeminiClient::new(&model.base_url(), Some(KEY)).unwrap();
    let session = session(&api.base);
    let result = gemini::run(
        &client,
        "gemini-2.5-flash",
        &[Content::user("Look at octo/hello#7 and file a follow-up.")],
        &session,
        &context("gemini-github"),
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    assert_eq!(
        result.content,
        "The crash report is open; I filed a follow-up (8)."
    );

    // The model saw ToolSearch, then the two tools it loaded, their schemas verbatim in the
    // session's dialect (and in the Gemini subset: the stub refuses a request otherwise).
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].tool_names(), [TOOL_SEARCH]);
    assert_eq!(
        requests[1].tool_names(),
        [TOOL_SEARCH, "github_issues_get", "github_issues_create"]
    );
    // The compiled Gemini text, not the portable one: `nullable` where the portable form has
    // `anyOf` with `null`, no closed objects.
    let create = schema("github_issues_create");
    assert!(create.contains(r#""nullable":true"#) && !create.contains("additionalProperties"));
    for name in ["github_issues_get", "github_issues_create"] {
        assert!(
            requests[1]
                .raw
                .contains(&format!(r#""parameters":{}}}"#, schema(name))),
            "{name}"
        );
    }
    // The two calls reached the API as real requests, in the model's order (one writes: serial).
    let sent = api.requests();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(
        (sent[0].method.as_str(), sent[0].path.as_str()),
        ("GET", "/repos/octo/hello/issues/7")
    );
    assert_eq!(
        (sent[1].method.as_str(), sent[1].path.as_str()),
        ("POST", "/repos/octo/hello/issues")
    );
    for r in &sent {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str())
        );
    }
    assert_eq!(
        sent[1].json(),
        json!({"title": "Follow-up", "milestone": null})
    );
    // The answers went back as function responses under the calls' ids, projected.
    let answered: Vec<&gemini::FunctionResponse> = result
        .messages
        .iter()
        .filter(|c| c.role == Role::User)
        .flat_map(|c| &c.parts)
        .filter_map(|p| p.function_response.as_ref())
        .collect();
    assert_eq!(answered.len(), 3);
    assert_eq!(answered[1].id.as_deref(), Some("get"));
    let issue: &Value = &answered[1].response["output"];
    assert_eq!(issue["title"], "Crash on start");
    assert!(issue.get("node_id").is_none(), "projected: {issue}");
    assert_eq!(answered[2].id.as_deref(), Some("create"));
    assert_eq!(answered[2].response["output"]["number"], 8);
    // The GitHub token never reached the model server.
    assert!(requests.iter().all(|r| !r.raw.contains(TOKEN)));
}
