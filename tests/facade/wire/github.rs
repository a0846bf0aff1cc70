//! The `github` pack on the wire: representative calls of the tools added in the expansion
//! (Actions, git data, branch protection, security alerts, gists, search) go through a
//! `ToolSession` and the shared `HttpExecutor` to a real axum server on 127.0.0.1 that records
//! what it received (method, path, query, headers with auth, body) and answers like GitHub.
//! Plus the pack's size and the invariants every tool holds.

#![cfg(all(feature = "pack-github", feature = "http"))]

use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials, next_page};
use charter::table::{Exec, Route, Table, ToolOutput};
use charter::{CallContext, CharterError, SessionOptions, Source, ToolSession};
use serde_json::{Value, json};

use charter_testkit::stub::{Recorded, Reply, Stub};

// ---------------------------------------------------------------------------------------------
// Sessions over the compiled pack.

const TOKEN: &str = "ghp_0123456789abcdefABCDEF0123456789abcd";
const TABLE: &Table = &charter::packs::github::TOOLS;

/// A non-progressive session over the github pack, sent to `base`.
fn session(base: &str) -> ToolSession {
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(StaticCredentials::new().with("GITHUB_TOKEN", TOKEN))
        .base_url("github", base)
        .build()
        .unwrap();
    ToolSession::with_options(
        vec![Source::Table(TABLE)],
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(Arc::new(http)),
    )
    .unwrap()
}

fn tool_def(name: &str) -> &'static charter::table::ToolDef {
    TABLE
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the github pack"))
}

fn route(name: &str) -> &'static Route {
    let def = tool_def(name);
    let Exec::Http(route) = def.exec else {
        panic!("{name} is not an HTTP tool")
    };
    route
}

async fn dispatch(s: &ToolSession, name: &str, args: Value) -> Result<ToolOutput, CharterError> {
    s.dispatch(name, args, &CallContext::new()).await
}

async fn call(s: &ToolSession, name: &str, args: Value) -> Result<Value, CharterError> {
    Ok(dispatch(s, name, args)
        .await?
        .structured
        .expect("a JSON answer"))
}

/// The headers every GitHub call carries: the bearer token and the pack's static headers.
fn assert_github_headers(r: &Recorded) {
    assert_eq!(
        r.header("authorization").map(str::to_owned),
        Some(format!("Bearer {TOKEN}"))
    );
    assert_eq!(r.header("accept"), Some("application/vnd.github+json"));
    assert_eq!(r.header("x-github-api-version"), Some("2022-11-28"));
}

// ---------------------------------------------------------------------------------------------
// Actions

#[tokio::test]
async fn workflows_dispatch_posts_ref_and_string_inputs_as_json() {
    let stub = Stub::start(|_| Reply::status(204)).await;
    let s = session(&stub.base);
    let out = dispatch(
        &s,
        "github_workflows_dispatch",
        json!({
            "owner": "octo-org",
            "repo": "hello-world",
            "workflow_id": "deploy.yml",
            "ref": "release/2.x",
            "inputs": {"environment": "staging", "dry_run": "true", "replicas": "3"}
        }),
    )
    .await
    .unwrap();
    // A 204 is a success the model is told about in words.
    assert_eq!(out.structured, None);
    assert!(out.text.contains("204"), "{}", out.text);

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "POST",
            "/repos/octo-org/hello-world/actions/workflows/deploy.yml/dispatches",
            None
        )
    );
    assert_github_headers(&r);
    assert_eq!(r.header("content-type"), Some("application/json"));
    // Declared order on the wire; the inputs map keeps the caller's keys, every value a string
    // (the API takes input values as strings).
    assert_eq!(
        r.text(),
        r#"{"ref":"release/2.x","inputs":{"environment":"staging","dry_run":"true","replicas":"3"}}"#
    );

    // `ref` is required: refused before any request.
    let err = dispatch(
        &s,
        "github_workflows_dispatch",
        json!({"owner": "o", "repo": "r", "workflow_id": "ci.yml"}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("ref"), "{message}");
    assert!(stub.take().len() == 1, "nothing more was sent");
}

#[tokio::test]
async fn runs_list_filters_projects_and_pages() {
    let stub = Stub::start(|r| {
        let page: u64 = r
            .query
            .as_deref()
            .unwrap_or("")
            .split('&')
            .find_map(|kv| kv.strip_prefix("page="))
            .map_or(1, |p| p.parse().unwrap());
        let runs: Vec<Value> = if page == 1 {
            (0..2)
                .map(|i| json!({
                    "id": 100 + i, "name": "CI", "display_title": "Fix login", "workflow_id": 7,
                    "run_number": 40 + i, "event": "push", "status": "completed",
                    "conclusion": "failure", "head_branch": "main", "head_sha": "abc123",
                    "actor": {"login": "octocat", "id": 1, "avatar_url": "https://x"},
                    "created_at": "2025-01-01T00:00:00Z",
                    "html_url": format!("https://github.com/o/r/actions/runs/{}", 100 + i),
                    "jobs_url": "https://api.github.com/...", "repository": {"full_name": "o/r"},
                    "head_commit": {"message": "long text"}
                }))
                .collect()
        } else {
            vec![json!({"id": 1, "name": "CI"})]
        };
        Reply::json(200, json!({"total_count": 3, "workflow_runs": runs}))
    })
    .await;
    let s = session(&stub.base);
    let args = json!({
        "owner": "o", "repo": "r", "branch": "main", "status": "failure",
        "event": "push", "created": ">=2025-01-01", "per_page": 2
    });
    let out = call(&s, "github_runs_list", args.clone()).await.unwrap();
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/repos/o/r/actions/runs")
    );
    assert_github_headers(&r);
    assert!(r.body.is_empty(), "a GET carries no body");
    assert_eq!(
        r.query.as_deref(),
        Some("branch=main&event=push&status=failure&created=%3E%3D2025-01-01&per_page=2")
    );
    // The projection keeps what picks the next call and drops the URL soup.
    assert_eq!(
        out["workflow_runs"][0],
        json!({
            "id": 100, "name": "CI", "display_title": "Fix login", "workflow_id": 7,
            "run_number": 40, "event": "push", "status": "completed", "conclusion": "failure",
            "head_branch": "main", "head_sha": "abc123", "actor": {"login": "octocat"},
            "created_at": "2025-01-01T00:00:00Z",
            "html_url": "https://github.com/o/r/actions/runs/100"
        })
    );
    assert_eq!(out["total_count"], 3);

    // Page pagination: a full page asks for the next one; a short page ends the walk.
    let route = route("github_runs_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["page"], 2);
    let last = call(&s, "github_runs_list", next.clone()).await.unwrap();
    assert!(
        stub.take()[0]
            .query
            .as_deref()
            .unwrap()
            .ends_with("per_page=2&page=2")
    );
    assert_eq!(next_page(route, &next, &last), None);
}

#[tokio::test]
async fn jobs_get_logs_follows_one_redirect_without_the_token() {
    // The log lives on another origin (GitHub's blob storage): a signed URL, no auth needed.
    let storage = Stub::start(|_| {
        Reply::text(
            200,
            "2025-01-01T00:00:01Z ##[group]Run cargo test\n2025-01-01T00:00:09Z error[E0425]: cannot find value `x`\n",
        )
    })
    .await;
    let signed = format!("{}/logs/job-99.txt?sig=abc&se=2025", storage.base);
    let api = Stub::start(move |_| Reply::redirect(&signed)).await;
    let s = session(&api.base);

    let out = dispatch(
        &s,
        "github_jobs_get_logs",
        json!({"owner": "o", "repo": "r", "job_id": 99}),
    )
    .await
    .unwrap();
    assert!(out.text.contains("error[E0425]"), "{}", out.text);
    assert_eq!(out.structured, None, "a plain-text log");

    let first = api.only();
    assert_eq!(
        (first.method.as_str(), first.path.as_str()),
        ("GET", "/repos/o/r/actions/jobs/99/logs")
    );
    assert_github_headers(&first);
    let hop = storage.only();
    assert_eq!(
        (hop.path.as_str(), hop.query.as_deref()),
        ("/logs/job-99.txt", Some("sig=abc&se=2025"))
    );
    assert_eq!(
        hop.header("authorization"),
        None,
        "the token never leaves the API origin"
    );

    // A tool without declared redirects does not follow one.
    let api2 = Stub::start(|_| Reply::redirect("http://127.0.0.1:9/x?sig=1")).await;
    let s2 = session(&api2.base);
    let err = dispatch(
        &s2,
        "github_artifacts_get",
        json!({"owner": "o", "repo": "r", "artifact_id": 5}),
    )
    .await
    .unwrap_err();
    let CharterError::Api(api_error) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(api_error.status, 302);
    assert!(!err.to_string().contains(TOKEN));
}

// ---------------------------------------------------------------------------------------------
// Git data, branches, protection

#[tokio::test]
async fn git_refs_update_keeps_slashes_in_the_ref_and_sends_force() {
    let stub = Stub::start(|_| {
        Reply::json(
            200,
            json!({"ref": "refs/heads/feature/login", "node_id": "x",
                   "object": {"sha": "deadbeef", "type": "commit", "url": "https://..."}}),
        )
    })
    .await;
    let s = session(&stub.base);
    let out = call(
        &s,
        "github_git_refs_update",
        json!({"owner": "o", "repo": "r", "ref": "heads/feature/login", "sha": "deadbeef", "force": true}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        json!({"ref": "refs/heads/feature/login", "object": {"sha": "deadbeef"}})
    );
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("PATCH", "/repos/o/r/git/refs/heads/feature/login")
    );
    assert_github_headers(&r);
    assert_eq!(r.text(), r#"{"sha":"deadbeef","force":true}"#);

    // `..` segments are refused even where slashes are allowed.
    let err = call(
        &s,
        "github_git_refs_update",
        json!({"owner": "o", "repo": "r", "ref": "heads/../../admin", "sha": "x"}),
    )
    .await
    .unwrap_err();
    assert!(!matches!(err, CharterError::Api(_)), "{err:?}");
    assert_eq!(stub.take().len(), 1, "nothing more was sent");
}

#[tokio::test]
async fn branch_protection_update_sends_explicit_nulls_and_deletes_branches_by_name() {
    let stub = Stub::start(|r| match r.method.as_str() {
        "PUT" => Reply::json(
            200,
            json!({"url": "https://api.github.com/...", "enforce_admins": {"enabled": true, "url": "x"},
                   "required_pull_request_reviews": {"required_approving_review_count": 2, "url": "x"}}),
        ),
        _ => Reply::status(204),
    })
    .await;
    let s = session(&stub.base);
    call(
        &s,
        "github_branch_protection_update",
        json!({
            "owner": "o", "repo": "r", "branch": "main",
            "required_status_checks": {"strict": true, "contexts": ["ci/build"]},
            "enforce_admins": true,
            "required_pull_request_reviews": {"required_approving_review_count": 2, "dismiss_stale_reviews": true},
            "restrictions": null,
            "allow_force_pushes": null
        }),
    )
    .await
    .unwrap();
    dispatch(
        &s,
        "github_branches_delete",
        json!({"owner": "o", "repo": "r", "branch": "feature/old"}),
    )
    .await
    .unwrap();

    let log = stub.take();
    assert_eq!(
        (log[0].method.as_str(), log[0].path.as_str()),
        ("PUT", "/repos/o/r/branches/main/protection")
    );
    // null turns a rule off: it must reach GitHub, not be dropped.
    assert_eq!(
        log[0].text(),
        concat!(
            r#"{"required_status_checks":{"strict":true,"contexts":["ci/build"]},"enforce_admins":true,"#,
            r#""required_pull_request_reviews":{"required_approving_review_count":2,"dismiss_stale_reviews":true},"#,
            r#""restrictions":null,"allow_force_pushes":null}"#
        )
    );
    assert_eq!(
        (log[1].method.as_str(), log[1].path.as_str()),
        ("DELETE", "/repos/o/r/git/refs/heads/feature/old")
    );
    assert!(log[1].body.is_empty());

    // The four rules are required (null is fine, absent is not), and bounds hold.
    let err = call(
        &s,
        "github_branch_protection_update",
        json!({"owner": "o", "repo": "r", "branch": "main", "enforce_admins": null,
               "required_status_checks": null, "restrictions": null,
               "required_pull_request_reviews": {"required_approving_review_count": 7}}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(
        message.contains("required_approving_review_count"),
        "{message}"
    );
    assert!(stub.take().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Security alerts, gists, search, checks

#[tokio::test]
async fn dependabot_alerts_list_sends_comma_lists_and_walks_the_link_cursor() {
    // GitHub pages Dependabot alerts by cursor only (`page` answers 400 since 2025-10-14): the
    // next page's `after` is in the `Link` header, which the answer carries as `next_cursor`.
    const NEXT: &str = "Y3Vyc29yOnYyOpK0MjAyNS0wMS0wMVQwMDowMDowMFrOAAAABA==";
    let stub = Stub::start(|r| {
        let alert = json!({
            "number": 4, "state": "open",
            "dependency": {"package": {"ecosystem": "npm", "name": "lodash"}, "manifest_path": "package-lock.json", "scope": "runtime"},
            "security_advisory": {"ghsa_id": "GHSA-1", "cve_id": "CVE-2021-23337", "summary": "Command injection", "severity": "high", "description": "long"},
            "security_vulnerability": {"vulnerable_version_range": "< 4.17.21", "first_patched_version": {"identifier": "4.17.21"}},
            "created_at": "2025-01-01T00:00:00Z", "html_url": "https://github.com/o/r/security/dependabot/4",
            "url": "https://api.github.com/..."
        });
        let reply = Reply::json(200, json!([alert]));
        if r.query.as_deref().unwrap_or_default().contains("after=") {
            return reply;
        }
        let url = "https://api.github.com/repositories/1/dependabot/alerts";
        reply.header(
            "link",
            &format!(
                "<{url}?state=open%2Cdismissed&per_page=1&after=Y3Vyc29yOnYyOpK0MjAyNS0wMS0wMVQwMDowMDowMFrOAAAABA%3D%3D>; rel=\"next\", \
                 <{url}?state=open%2Cdismissed&per_page=1&before=Zm9v>; rel=\"prev\""
            ),
        )
    })
    .await;
    let s = session(&stub.base);
    let args = json!({"owner": "o", "repo": "r", "state": ["open", "dismissed"], "severity": ["high", "critical"], "ecosystem": ["npm"], "per_page": 1});
    let out = call(&s, "github_dependabot_alerts_list", args.clone())
        .await
        .unwrap();
    let r = stub.only();
    stub.take();
    assert_github_headers(&r);
    assert_eq!(r.path, "/repos/o/r/dependabot/alerts");
    // `style: comma`: one parameter, the items joined by a literal comma, in the caller's order.
    assert_eq!(
        r.query.as_deref(),
        Some("state=open,dismissed&severity=high,critical&ecosystem=npm&per_page=1")
    );
    let items = out["items"].as_array().expect("the list, under `items`");
    assert!(items[0].get("url").is_none(), "projected");
    assert_eq!(
        items[0]["security_vulnerability"]["first_patched_version"]["identifier"],
        "4.17.21"
    );
    assert_eq!(out["next_cursor"], NEXT);

    // The declared walk: the same arguments plus `after`, sent percent-encoded.
    let route = route("github_dependabot_alerts_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["after"], NEXT);
    assert_eq!(next["per_page"], 1);
    let last = call(&s, "github_dependabot_alerts_list", next.clone())
        .await
        .unwrap();
    assert_eq!(
        stub.only().query.as_deref(),
        Some(
            "state=open,dismissed&severity=high,critical&ecosystem=npm&per_page=1\
             &after=Y3Vyc29yOnYyOpK0MjAyNS0wMS0wMVQwMDowMDowMFrOAAAABA%3D%3D"
        )
    );
    // No `Link` to a next page: the same shape, no cursor, the walk ends.
    assert!(last.get("next_cursor").is_none(), "{last}");
    assert_eq!(last["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(next_page(route, &next, &last), None);
    stub.take();

    // The removed offset parameters are not offered; enum items are checked.
    for (bad, why) in [
        (json!({"owner": "o", "repo": "r", "page": 2}), "/page"),
        (
            json!({"owner": "o", "repo": "r", "severity": ["urgent"]}),
            "/severity/0",
        ),
    ] {
        match call(&s, "github_dependabot_alerts_list", bad).await {
            Err(CharterError::Validation(m)) => assert!(m.contains(why), "{m}"),
            other => panic!("expected a validation error naming {why}, got {other:?}"),
        }
    }
    assert!(stub.take().is_empty(), "a refused call sent nothing");
    let schema: Value =
        serde_json::from_str(tool_def("github_dependabot_alerts_list").views[0].schema).unwrap();
    let offered: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(
        offered.contains(&"after") && offered.contains(&"per_page"),
        "{offered:?}"
    );
    assert!(
        !offered.contains(&"page") && !offered.contains(&"before"),
        "{offered:?}"
    );
}

#[tokio::test]
async fn gists_create_and_update_send_file_maps_with_null_deletions() {
    let stub = Stub::start(|_| {
        Reply::json(
            201,
            json!({"id": "aa5a315d61ae9438b18d", "description": "demo", "public": false,
                   "html_url": "https://gist.github.com/aa5a315d61ae9438b18d",
                   "files": {"hello.py": {"filename": "hello.py", "size": 8}}, "forks_url": "x"}),
        )
    })
    .await;
    let s = session(&stub.base);
    let created = call(
        &s,
        "github_gists_create",
        json!({"files": {"hello.py": {"content": "print(1)"}}, "description": "demo"}),
    )
    .await
    .unwrap();
    assert_eq!(created["id"], "aa5a315d61ae9438b18d");
    assert!(created.get("forks_url").is_none());
    call(
        &s,
        "github_gists_update",
        json!({"gist_id": "aa5a315d61ae9438b18d",
               "files": {"hello.py": {"content": "print(2)"}, "old.txt": null, "a.md": {"filename": "b.md"}}}),
    )
    .await
    .unwrap();
    let log = stub.take();
    assert_eq!(
        (log[0].method.as_str(), log[0].path.as_str()),
        ("POST", "/gists")
    );
    assert_eq!(
        log[0].json(),
        json!({"files": {"hello.py": {"content": "print(1)"}}, "description": "demo"})
    );
    assert_eq!(
        (log[1].method.as_str(), log[1].path.as_str()),
        ("PATCH", "/gists/aa5a315d61ae9438b18d")
    );
    assert_eq!(
        log[1].json(),
        json!({"files": {"hello.py": {"content": "print(2)"}, "old.txt": null, "a.md": {"filename": "b.md"}}})
    );
    // A file of a new gist needs its content.
    let err = call(&s, "github_gists_create", json!({"files": {"x": {}}}))
        .await
        .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}

#[tokio::test]
async fn search_commits_and_check_runs_are_projected() {
    let stub = Stub::start(|r| match r.path.as_str() {
        "/search/commits" => Reply::json(
            200,
            json!({"total_count": 1, "incomplete_results": false, "items": [{
                "sha": "abc", "commit": {"message": "fix: login", "author": {"name": "Mona", "date": "2025-01-01T00:00:00Z", "email": "m@x"}, "tree": {}},
                "author": {"login": "mona", "id": 2}, "repository": {"full_name": "o/r", "id": 9},
                "html_url": "https://github.com/o/r/commit/abc", "score": 1.0
            }]}),
        ),
        _ => Reply::json(
            200,
            json!({"total_count": 1, "check_runs": [{
                "id": 5, "name": "test", "status": "completed", "conclusion": "failure",
                "started_at": "2025-01-01T00:00:00Z", "completed_at": "2025-01-01T00:05:00Z",
                "output": {"title": "2 failed", "summary": "tests::a, tests::b", "text": "long", "annotations_count": 2},
                "app": {"slug": "github-actions", "id": 15368}, "html_url": "https://github.com/o/r/runs/5",
                "head_sha": "abc", "check_suite": {"id": 1}
            }]}),
        ),
    })
    .await;
    let s = session(&stub.base);
    let found = call(
        &s,
        "github_search_commits",
        json!({"q": "fix login repo:o/r", "sort": "author-date", "per_page": 10}),
    )
    .await
    .unwrap();
    assert_eq!(
        found["items"][0],
        json!({"sha": "abc", "commit": {"message": "fix: login", "author": {"name": "Mona", "date": "2025-01-01T00:00:00Z"}},
               "author": {"login": "mona"}, "repository": {"full_name": "o/r"},
               "html_url": "https://github.com/o/r/commit/abc"})
    );
    let checks = call(
        &s,
        "github_checks_list_for_ref",
        json!({"owner": "o", "repo": "r", "ref": "main", "status": "completed"}),
    )
    .await
    .unwrap();
    assert_eq!(
        checks["check_runs"][0]["output"],
        json!({"title": "2 failed", "summary": "tests::a, tests::b"})
    );
    let log = stub.take();
    assert_eq!(
        log[0].query.as_deref(),
        Some("q=fix%20login%20repo%3Ao%2Fr&sort=author-date&per_page=10")
    );
    assert_eq!(log[1].path, "/repos/o/r/commits/main/check-runs");
    assert_eq!(log[1].query.as_deref(), Some("status=completed"));
}

#[tokio::test]
async fn a_404_check_is_an_api_error_and_a_204_is_a_success() {
    let stub = Stub::start(|r| {
        if r.path.ends_with("/mona") {
            Reply::status(204)
        } else {
            Reply::json(
                404,
                json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}),
            )
        }
    })
    .await;
    let s = session(&stub.base);
    let yes = dispatch(
        &s,
        "github_repos_check_collaborator",
        json!({"owner": "o", "repo": "r", "username": "mona"}),
    )
    .await
    .unwrap();
    assert!(yes.text.contains("204"), "{}", yes.text);
    let err = dispatch(
        &s,
        "github_repos_check_collaborator",
        json!({"owner": "o", "repo": "r", "username": "stranger"}),
    )
    .await
    .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (api.status, api.method, api.url_template),
        (404, "GET", "/repos/{owner}/{repo}/collaborators/{username}")
    );
    assert!(api.body.contains("Not Found"));
    assert!(!err.to_string().contains(TOKEN), "no secret in errors");
    let log = stub.take();
    assert_eq!(log[1].path, "/repos/o/r/collaborators/stranger");
    assert_github_headers(&log[1]);
}

// ---------------------------------------------------------------------------------------------
// The pack as a whole

/// The 47 tools the pack shipped before the expansion: tests, docs and hosts refer to them.
const ORIGINAL: [&str; 47] = [
    "issues_list",
    "issues_get",
    "issues_create",
    "issues_update",
    "issues_lock",
    "issues_unlock",
    "issues_add_assignees",
    "issue_comments_list",
    "issue_comments_create",
    "issue_comments_update",
    "issue_comments_delete",
    "labels_list",
    "labels_create",
    "issue_labels_add",
    "issue_labels_remove",
    "pulls_list",
    "pulls_get",
    "pulls_create",
    "pulls_update",
    "pulls_merge",
    "pulls_list_files",
    "pulls_list_commits",
    "pulls_list_reviews",
    "pulls_create_review",
    "pulls_list_review_comments",
    "pulls_create_review_comment",
    "pulls_list_requested_reviewers",
    "pulls_request_reviewers",
    "pulls_remove_requested_reviewers",
    "contents_get",
    "contents_put",
    "contents_delete",
    "repos_get",
    "repos_list_for_user",
    "repos_list_mine",
    "branches_list",
    "branches_get",
    "branches_create",
    "commits_list",
    "commits_get",
    "commits_compare",
    "releases_list",
    "releases_get_latest",
    "search_issues",
    "search_code",
    "search_repos",
    "users_get_me",
];

#[test]
fn the_pack_has_250_tools_keeps_the_original_ones_and_every_tool_holds_the_rules() {
    let tools = TABLE.tools;
    assert!(tools.len() >= 250, "{} tools", tools.len());
    for name in ORIGINAL {
        assert!(
            tools.iter().any(|t| t.tool == name),
            "{name} is still there"
        );
    }
    // New tools were added among them; the original ones keep their relative order.
    let first: Vec<&str> = tools
        .iter()
        .map(|t| t.tool)
        .filter(|t| ORIGINAL.contains(t))
        .collect();
    assert_eq!(first, ORIGINAL);

    let mut lists = 0;
    for def in tools {
        assert!(
            def.description.len() >= 25,
            "{}: a description that helps choose",
            def.name
        );
        for field in def.input.fields {
            assert!(
                !field.description.is_empty(),
                "{}.{}: described",
                def.name,
                field.name
            );
        }
        let Exec::Http(route) = def.exec else {
            panic!("{} is not an HTTP tool", def.name)
        };
        let is_list = def.tool.contains("_list") || def.tool.starts_with("search_");
        if is_list {
            lists += 1;
            assert!(
                !route.projection.is_empty(),
                "{}: a list keeps a projection",
                def.name
            );
        }
        if route.pagination.is_some() {
            assert!(!route.projection.is_empty(), "{}", def.name);
            // Dependabot alerts page by the `Link` header's cursor only (GitHub removed their
            // `page` on 2025-10-14); every other list by page and per_page.
            let expected = if def.tool == "dependabot_alerts_list" {
                charter::table::Pagination::Cursor {
                    next: "link:next?after",
                    param: "after",
                }
            } else {
                charter::table::Pagination::Page {
                    param: "page",
                    size_param: Some("per_page"),
                }
            };
            assert_eq!(route.pagination, Some(expected), "{}", def.name);
        }
        // Read-only tools are exactly the GETs plus the two POSTs that only compute.
        let reads = matches!(def.tool, "markdown_render" | "releases_generate_notes");
        assert_eq!(
            def.annotations.read_only,
            route.method.as_str() == "GET" || reads,
            "{}",
            def.name
        );
        assert!(def.annotations.open_world, "{}", def.name);
    }
    assert!(lists >= 90, "{lists} list tools");
    // Deletes that only undo an addition are not destructive; real deletions are.
    let get = |tool: &str| {
        tools
            .iter()
            .find(|t| t.tool == tool)
            .unwrap_or_else(|| panic!("{tool}"))
            .annotations
    };
    assert!(!get("repos_unstar").destructive);
    assert!(!get("issues_remove_assignees").destructive);
    assert!(get("repos_delete").destructive);
    assert!(get("git_refs_delete").destructive);
    assert!(get("labels_update").idempotent);
    assert!(!get("runs_rerun").idempotent);
    assert_eq!(route("github_jobs_get_logs").max_redirects, 1);
}
