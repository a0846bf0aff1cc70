//! Tasks over the GitHub pack (and one that posts to Slack).

use serde_json::{Value, json};

use crate::code_tasks::harness::{Direct, Task};
use crate::code_tasks::payloads::*;
use crate::code_tasks::{not_found, query};
use charter_testkit::stub::Recorded;

pub const TASKS: &[Task] = &[
    Task {
        name: "prs_without_reviewer",
        question: "Which open pull requests in octo-org/hello-world have no reviewer?",
        packs: &["github"],
        searches: &["open pull requests", "pull request reviews"],
        api: pulls,
        direct: |m| Box::pin(prs_without_reviewer(m)),
        program: include_str!("../programs/prs_without_reviewer.js"),
        answer: || {
            let unreviewed = (0..PR_TITLES.len())
                .filter(|k| pull(*k).3.is_empty() && pull_reviews(*k).is_empty())
                .map(|k| json!({"number": pull(k).0, "title": pull(k).1}));
            Value::Array(unreviewed.collect())
        },
    },
    Task {
        name: "failed_runs_jobs",
        question: "Which workflow runs failed on main this week, and which jobs failed in each?",
        packs: &["github"],
        searches: &["failed workflow runs", "jobs of a workflow run"],
        api: runs,
        direct: |m| Box::pin(failed_runs_jobs(m)),
        program: include_str!("../programs/failed_runs_jobs.js"),
        answer: || {
            let runs = RUNS.iter().enumerate().map(|(k, (id, name, _))| {
                let failed = run_jobs(k)
                    .into_iter()
                    .filter_map(|(job, step)| step.map(|step| json!({"job": job, "step": step})));
                json!({"run": id, "workflow": name, "failed": failed.collect::<Vec<_>>()})
            });
            Value::Array(runs.collect())
        },
    },
    Task {
        name: "unassigned_bugs_last_comment",
        question: "List the unassigned bugs, oldest first, with who commented last on each.",
        packs: &["github"],
        searches: &["repository issues", "issue comments"],
        api: issues,
        direct: |m| Box::pin(unassigned_bugs(m)),
        program: include_str!("../programs/unassigned_bugs_last_comment.js"),
        answer: || {
            let bugs = (0..BUG_TITLES.len()).map(|k| {
                let (number, title, _, commenters) = bug(k);
                json!({"number": number, "title": title, "last_comment_by": commenters.last()})
            });
            Value::Array(bugs.collect())
        },
    },
    Task {
        name: "release_notes_to_slack",
        question: "Post the notes of octo-org/hello-world's latest release to #releases.",
        packs: &["github", "slack"],
        searches: &["latest release", "post a slack message"],
        api: release,
        direct: |m| Box::pin(release_notes(m)),
        program: include_str!("../programs/release_notes_to_slack.js"),
        answer: || json!({"ts": "1773241331.000200"}),
    },
    Task {
        name: "repo_stars",
        question: "How many stars does octo-org/hello-world have?",
        packs: &["github"],
        searches: &["get a repository"],
        api: repo,
        direct: |m| Box::pin(repo_stars(m)),
        program: include_str!("../programs/repo_stars.js"),
        answer: || json!(1287),
    },
];

fn repo_args() -> Value {
    json!({"owner": "octo-org", "repo": "hello-world"})
}

fn with(mut base: Value, more: Value) -> Value {
    if let (Value::Object(base), Value::Object(more)) = (&mut base, more) {
        base.extend(more);
    }
    base
}

/// Path segments after `/repos/octo-org/hello-world/`.
fn repo_path(r: &Recorded) -> Option<Vec<&str>> {
    let rest = r.path.strip_prefix("/repos/octo-org/hello-world")?;
    Some(rest.split('/').filter(|s| !s.is_empty()).collect())
}

// --------------------------------------------------------------------------------------------

const PR_TITLES: &[&str] = &[
    "Cache the schema index across sessions",
    "Retry idempotent requests once on a dropped connection",
    "Fix the pagination cursor lost after a 429",
    "Bump tokio to 1.44",
    "Document the egress map",
    "Stream large responses instead of buffering them",
    "Refactor the scheduler's slots",
    "Add a Linear pack",
    "Clip echoed tool names to 100 characters",
    "Use the shared executor in the CLI",
    "Trim the ToolSearch description with many packs",
    "Support form bodies with nested arrays",
    "Log the bytes each projection saves",
    "Deny unknown keys in pins",
    "Add the Shopify 2026-10 schema",
    "Speed up the relevance index build",
    "Fix a panic on an empty YAML document",
    "Graceful shutdown: finish calls in flight",
    "Rate-limit per authenticated subject",
    "Read OAuth tokens from the store lazily",
    "Bump rmcp to 3.11",
    "Warn on deprecated GraphQL fields",
    "Drop the unused url dependency",
    "Test the stdio writer byte by byte",
];
const AUTHORS: &[&str] = &[
    "mona",
    "octocat",
    "defunkt",
    "hubot",
    "dependabot[bot]",
    "grace",
];

/// Pull request `k` (number 1420 - k): its title, author and requested reviewers.
fn pull(k: usize) -> (u64, &'static str, &'static str, Vec<&'static str>) {
    let reviewers = match k % 5 {
        0 | 3 => vec![AUTHORS[(k + 1) % 4]],
        2 => vec![AUTHORS[(k + 2) % 4], AUTHORS[(k + 3) % 4]],
        _ => Vec::new(),
    };
    (
        1420 - k as u64,
        PR_TITLES[k],
        AUTHORS[k % AUTHORS.len()],
        reviewers,
    )
}

/// The reviews submitted on pull request `k`: one on every third of them.
fn pull_reviews(k: usize) -> Vec<Value> {
    let number = 1420 - k as u64;
    match k % 3 {
        0 => vec![github_review(80_000 + number, number, "hubot", "APPROVED")],
        1 if k.is_multiple_of(2) => vec![
            github_review(81_000 + number, number, "mona", "COMMENTED"),
            github_review(82_000 + number, number, "octocat", "CHANGES_REQUESTED"),
        ],
        _ => Vec::new(),
    }
}

fn pulls(r: &Recorded) -> (u16, Value) {
    match repo_path(r).as_deref() {
        Some(["pulls"]) if query(r, "state").as_deref() == Some("open") => {
            let prs = (0..PR_TITLES.len()).map(|k| {
                let (number, title, author, reviewers) = pull(k);
                github_pr(number, title, author, &reviewers)
            });
            (200, Value::Array(prs.collect()))
        }
        Some(["pulls", n, "reviews"]) => {
            let k = 1420 - n.parse::<usize>().unwrap();
            (200, Value::Array(pull_reviews(k)))
        }
        _ => not_found(r),
    }
}

async fn prs_without_reviewer(m: &mut Direct) -> Value {
    let prs = m
        .call(
            "github_pulls_list",
            with(repo_args(), json!({"state": "open", "per_page": 100})),
        )
        .await;
    let unrequested: Vec<&Value> = prs
        .as_array()
        .unwrap()
        .iter()
        .filter(|pr| pr["requested_reviewers"].as_array().unwrap().is_empty())
        .collect();
    let calls = unrequested
        .iter()
        .map(|pr| {
            let args = with(repo_args(), json!({"pull_number": pr["number"]}));
            ("github_pulls_list_reviews", args)
        })
        .collect();
    let reviews = m.turn(calls).await;
    let answer = unrequested
        .iter()
        .zip(&reviews)
        .filter(|(_, reviews)| reviews.as_array().unwrap().is_empty())
        .map(|(pr, _)| json!({"number": pr["number"], "title": pr["title"]}));
    Value::Array(answer.collect())
}

// --------------------------------------------------------------------------------------------

const RUNS: &[(u64, &str, &str)] = &[
    (30433642, "CI", "2026-03-09T08:00:00Z"),
    (30433700, "Release", "2026-03-09T14:30:00Z"),
    (30433811, "CI", "2026-03-10T09:12:00Z"),
    (30434020, "Nightly", "2026-03-11T02:00:00Z"),
    (30434377, "CI", "2026-03-11T16:48:00Z"),
];

/// The jobs of run `k` of [`RUNS`]: (name, the step that failed).
fn run_jobs(k: usize) -> Vec<(&'static str, Option<&'static str>)> {
    let ci = |failed: [bool; 4]| {
        let names = [
            "lint",
            "test (ubuntu-latest)",
            "test (macos-latest)",
            "test (windows-latest)",
        ];
        let step = ["Build", "Test", "Test", "Test"];
        (0..4)
            .map(|j| (names[j], failed[j].then_some(step[j])))
            .collect::<Vec<_>>()
    };
    match k {
        0 => ci([false, true, false, false]),
        1 => vec![
            ("build-docs", None),
            ("publish", Some("Build")),
            ("announce", None),
        ],
        2 => ci([false, true, true, false]),
        3 => vec![
            ("fuzz (json)", Some("Test")),
            ("fuzz (yaml)", None),
            ("bench", None),
            ("request-check", Some("Test")),
            ("corpus", None),
        ],
        _ => ci([true, false, false, true]),
    }
}

fn runs(r: &Recorded) -> (u16, Value) {
    match repo_path(r).as_deref() {
        Some(["actions", "runs"])
            if query(r, "branch").as_deref() == Some("main")
                && query(r, "status").as_deref() == Some("failure") =>
        {
            let runs = RUNS
                .iter()
                .map(|(id, name, at)| github_run(*id, name, "failure", at));
            (200, github_runs(runs.collect()))
        }
        Some(["actions", "runs", id, "jobs"]) => {
            let run: u64 = id.parse().unwrap();
            let Some(k) = RUNS.iter().position(|r| r.0 == run) else {
                return not_found(r);
            };
            let jobs = run_jobs(k)
                .into_iter()
                .enumerate()
                .map(|(j, (name, failed))| github_job(run * 10 + j as u64, run, name, failed));
            (200, github_jobs(jobs.collect()))
        }
        _ => not_found(r),
    }
}

async fn failed_runs_jobs(m: &mut Direct) -> Value {
    let args = json!({"branch": "main", "status": "failure", "created": ">=2026-03-09"});
    let runs = m.call("github_runs_list", with(repo_args(), args)).await["workflow_runs"]
        .as_array()
        .unwrap()
        .clone();
    let calls = runs
        .iter()
        .map(|run| {
            let args = with(repo_args(), json!({"run_id": run["id"]}));
            ("github_runs_list_jobs", args)
        })
        .collect();
    let jobs = m.turn(calls).await;
    let answer = runs.iter().zip(&jobs).map(|(run, jobs)| {
        let failed: Vec<Value> = jobs["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|job| job["conclusion"] == "failure")
            .map(|job| {
                let step = job["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["conclusion"] == "failure")
                    .map_or(Value::Null, |s| s["name"].clone());
                json!({"job": job["name"], "step": step})
            })
            .collect();
        json!({"run": run["id"], "workflow": run["name"], "failed": failed})
    });
    Value::Array(answer.collect())
}

// --------------------------------------------------------------------------------------------

const BUG_TITLES: &[&str] = &[
    "Crash when the config file is empty",
    "Timeouts are ignored behind a proxy",
    "Wrong exit code on SIGTERM",
    "Unicode file names are mangled on Windows",
    "The progress bar overflows narrow terminals",
    "Retry-After in seconds is read as milliseconds",
    "Dates before 1970 print as 1970",
    "A trailing slash in the base URL doubles",
    "Memory grows when a stream is cancelled",
];
const COMMENTS: &[&str] = &[
    "I can reproduce this on 2.3.1.",
    "Same here, on Linux and macOS.",
    "The proxy path builds its own client, which is why.",
    "Is this NTFS or a network drive?",
    "Fixed in the branch, needs a test.",
    "Could you attach the log with RUST_LOG=debug?",
];

/// Bug `k`: its number, title, opening date, and the logins of its comments, oldest first.
fn bug(k: usize) -> (u64, &'static str, String, Vec<&'static str>) {
    let commenters = (0..(k * 7 + 2) % 5)
        .map(|c| AUTHORS[(k + 2 * c) % AUTHORS.len()])
        .collect();
    let opened = format!("2025-{:02}-{:02}T10:00:00Z", 3 + k, 2 + 3 * k);
    (1201 + 17 * k as u64, BUG_TITLES[k], opened, commenters)
}

fn issues(r: &Recorded) -> (u16, Value) {
    match repo_path(r).as_deref() {
        Some(["issues"])
            if query(r, "labels").as_deref() == Some("bug")
                && query(r, "assignee").as_deref() == Some("none") =>
        {
            let issues = (0..BUG_TITLES.len()).map(|k| {
                let (n, title, at, _) = bug(k);
                github_issue(n, title, None, &at)
            });
            (200, Value::Array(issues.collect()))
        }
        Some(["issues", n, "comments"]) => {
            let n: u64 = n.parse().unwrap();
            let Some(k) = (0..BUG_TITLES.len()).find(|k| bug(*k).0 == n) else {
                return not_found(r);
            };
            let comments = bug(k).3.into_iter().enumerate().map(|(c, login)| {
                let at = format!("2026-03-0{}T12:00:00Z", c + 1);
                let body = COMMENTS[(k + c) % COMMENTS.len()];
                github_comment(n * 100 + c as u64, n, login, body, &at)
            });
            (200, Value::Array(comments.collect()))
        }
        _ => not_found(r),
    }
}

async fn unassigned_bugs(m: &mut Direct) -> Value {
    let args =
        json!({"labels": ["bug"], "assignee": "none", "sort": "created", "direction": "asc"});
    let bugs = m.call("github_issues_list", with(repo_args(), args)).await;
    let bugs = bugs.as_array().unwrap();
    let calls = bugs
        .iter()
        .map(|issue| {
            let args = with(repo_args(), json!({"issue_number": issue["number"]}));
            ("github_issue_comments_list", args)
        })
        .collect();
    let comments = m.turn(calls).await;
    let answer = bugs.iter().zip(&comments).map(|(issue, comments)| {
        let last = comments
            .as_array()
            .unwrap()
            .last()
            .map_or(Value::Null, |c| c["user"]["login"].clone());
        json!({"number": issue["number"], "title": issue["title"], "last_comment_by": last})
    });
    Value::Array(answer.collect())
}

// --------------------------------------------------------------------------------------------

fn release(r: &Recorded) -> (u16, Value) {
    match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/repos/octo-org/hello-world/releases/latest") => (200, github_release()),
        ("POST", "/chat.postMessage") => (
            200,
            json!({
                "ok": true, "channel": "C0RELEASES", "ts": "1773241331.000200",
                "message": {"bot_id": "B0AGENT", "type": "message", "text": "(the release notes)",
                    "user": "U0AGENT", "ts": "1773241331.000200", "app_id": "A0AGENT",
                    "team": "T061EG9R6", "bot_profile": {"id": "B0AGENT", "deleted": false,
                    "name": "release-bot", "updated": 1766000000, "app_id": "A0AGENT",
                    "icons": {"image_36": "https://a.slack-edge.com/80588/img/plugins/app/bot_36.png"},
                    "team_id": "T061EG9R6"}},
                "warning": "missing_charset",
                "response_metadata": {"warnings": ["missing_charset"]}
            }),
        ),
        _ => not_found(r),
    }
}

async fn release_notes(m: &mut Direct) -> Value {
    let release = m.call("github_releases_get_latest", repo_args()).await;
    let text = format!(
        "*{}* is out: {}\n{}",
        release["name"].as_str().unwrap(),
        release["html_url"].as_str().unwrap(),
        release["body"].as_str().unwrap()
    );
    let posted = m
        .call(
            "slack_chat_post_message",
            json!({"channel": "#releases", "text": text}),
        )
        .await;
    json!({"ts": posted["ts"]})
}

// --------------------------------------------------------------------------------------------

fn repo(r: &Recorded) -> (u16, Value) {
    match repo_path(r).as_deref() {
        Some([]) => (200, github_repo()),
        _ => not_found(r),
    }
}

async fn repo_stars(m: &mut Direct) -> Value {
    let repo = m.call("github_repos_get", repo_args()).await;
    repo["stargazers_count"].clone()
}
