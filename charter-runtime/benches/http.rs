//! HTTP execution costs.
//!
//! - `overhead/*`: per-call work without the network: building the exact request from validated
//!   arguments, and shaping a recorded response (parse, envelope, projection). Target: ≤ 10 µs
//!   for a typical call (build + one recorded resource).
//! - `loopback/*`: whole calls over loopback keep-alive against a local axum server (one client,
//!   connection reuse), reported as calls per second.
//!
//! `cargo bench -p charter-runtime --bench http`

use std::hint::black_box;
use std::time::Duration;

use charter_runtime::CallContext;
use charter_runtime::http::{HttpExecutor, build_request, shape_response};
use charter_runtime::table::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

static STRING: Shape = Shape::String(StringRules::NONE);
static INTEGER: Shape = Shape::Integer(NumberRules::NONE);
static STRINGS: Shape = Shape::Array(ArrayRules::of(&STRING));
static STRING_MAP: Shape = Shape::Map(&STRING);
static LINE_ITEM: Shape = Shape::Object(ObjectShape::of(&[
    field("price", &STRING, Location::Arg),
    field("quantity", &INTEGER, Location::Arg),
]));
static LINE_ITEMS: Shape = Shape::Array(ArrayRules::of(&LINE_ITEM));

const fn field(name: &'static str, shape: &'static Shape, location: Location) -> Field {
    Field::new(name, "A field.", shape).with_location(location)
}

const fn tool(name: &'static str, input: &'static ObjectShape, route: &'static Route) -> ToolDef {
    ToolDef::new(name, route.pack.label, name, "A tool.", Exec::Http(route))
        .with_annotations(charter_runtime::Annotations::for_method(route.method))
        .with_input(input)
        .with_views(&[])
        .with_search(SearchData::new("", &[]))
}

static GITHUB: HttpPack = HttpPack::new(
    "github",
    "https://api.github.com",
    "CHARTER_GITHUB_BASE_URL",
    Auth::Bearer {
        env: "GITHUB_TOKEN",
    },
)
.with_headers(&[
    ("Accept", "application/vnd.github+json"),
    ("X-GitHub-Api-Version", "2022-11-28"),
]);
static STRIPE: HttpPack = HttpPack::new(
    "stripe",
    "https://api.stripe.com",
    "CHARTER_STRIPE_BASE_URL",
    Auth::Basic {
        env: "STRIPE_API_KEY",
    },
)
.with_headers(&[("Stripe-Version", "2024-06-20")]);

static ISSUE_FIELDS: ObjectShape = ObjectShape::of(&[
    field("owner", &STRING, Location::Path).with_required(true),
    field("repo", &STRING, Location::Path).with_required(true),
    field("issue_number", &INTEGER, Location::Path).with_required(true),
]);
static ISSUE_ROUTE: Route = Route::new(
    &GITHUB,
    Method::Get,
    "/repos/{owner}/{repo}/issues/{issue_number}",
)
.with_projection(&[
    "number",
    "title",
    "state",
    "body",
    "labels.name",
    "user.login",
    "assignees.login",
    "comments",
]);
static ISSUE: ToolDef = tool("github_issue_get", &ISSUE_FIELDS, &ISSUE_ROUTE);

static LIST_FIELDS: ObjectShape = ObjectShape::of(&[
    field("owner", &STRING, Location::Path).with_required(true),
    field("repo", &STRING, Location::Path).with_required(true),
    field("state", &STRING, Location::Query),
    field("labels", &STRINGS, Location::Query).with_style(ListStyle::Comma),
    field("per_page", &INTEGER, Location::Query),
    field("page", &INTEGER, Location::Query),
]);
static LIST_ROUTE: Route = Route::new(&GITHUB, Method::Get, "/repos/{owner}/{repo}/issues")
    .with_projection(&["number", "title", "state", "labels.name", "user.login"])
    .with_pagination(Pagination::Page {
        param: "page",
        size_param: Some("per_page"),
    });
static LIST: ToolDef = tool("github_issues_list", &LIST_FIELDS, &LIST_ROUTE);

static CHECKOUT_FIELDS: ObjectShape = ObjectShape::of(&[
    field("mode", &STRING, Location::Body),
    field("line_items", &LINE_ITEMS, Location::Body),
    field("metadata", &STRING_MAP, Location::Body),
    field("success_url", &STRING, Location::Body),
    field("expand", &STRINGS, Location::Body),
]);
static CHECKOUT_ROUTE: Route = Route::new(&STRIPE, Method::Post, "/v1/checkout/sessions")
    .with_body(BodyEncoding::Form)
    .with_projection(&["id", "url", "status"]);
static CHECKOUT: ToolDef = tool("stripe_checkout_create", &CHECKOUT_FIELDS, &CHECKOUT_ROUTE);

/// A GitHub issue as the API returns it (about 2.5 kB).
fn recorded_issue(n: u64) -> Value {
    let user = |login: &str, id: u64| {
        json!({
            "login": login, "id": id, "node_id": "MDQ6VXNlcjE=", "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
            "gravatar_id": "", "url": format!("https://api.github.com/users/{login}"), "html_url": format!("https://github.com/{login}"),
            "followers_url": format!("https://api.github.com/users/{login}/followers"), "type": "User", "site_admin": false
        })
    };
    json!({
        "url": format!("https://api.github.com/repos/octocat/Hello-World/issues/{n}"),
        "repository_url": "https://api.github.com/repos/octocat/Hello-World",
        "labels_url": format!("https://api.github.com/repos/octocat/Hello-World/issues/{n}/labels{{/name}}"),
        "comments_url": format!("https://api.github.com/repos/octocat/Hello-World/issues/{n}/comments"),
        "html_url": format!("https://github.com/octocat/Hello-World/issues/{n}"),
        "id": 1_000_000 + n, "node_id": "MDU6SXNzdWUx", "number": n,
        "title": "Found a bug in the parser when the input ends early",
        "user": user("octocat", 1),
        "labels": [
            {"id": 208045946, "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=", "url": "https://api.github.com/repos/octocat/Hello-World/labels/bug", "name": "bug", "description": "Something isn't working", "color": "f29513", "default": true},
            {"id": 208045947, "node_id": "MDU6TGFiZWwyMDgwNDU5NDc=", "url": "https://api.github.com/repos/octocat/Hello-World/labels/parser", "name": "parser", "description": "The parser", "color": "a2eeef", "default": false}
        ],
        "state": "open", "locked": false,
        "assignee": user("hubot", 2), "assignees": [user("hubot", 2)],
        "milestone": null, "comments": 4,
        "created_at": "2026-04-10T20:09:31Z", "updated_at": "2026-04-11T08:00:00Z", "closed_at": null,
        "author_association": "COLLABORATOR", "active_lock_reason": null,
        "body": "Steps to reproduce:\n1. Feed the parser a truncated document.\n2. Observe the panic.\n\nExpected an error instead.",
        "reactions": {"url": format!("https://api.github.com/repos/octocat/Hello-World/issues/{n}/reactions"), "total_count": 3, "+1": 2, "-1": 0, "laugh": 0, "hooray": 1, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
        "timeline_url": format!("https://api.github.com/repos/octocat/Hello-World/issues/{n}/timeline"),
        "performed_via_github_app": null, "state_reason": null
    })
}

fn overhead(c: &mut Criterion) {
    let ctx = CallContext::new().for_user("u1");
    let base = "https://api.github.com";
    let issue_args = json!({"owner": "octocat", "repo": "Hello-World", "issue_number": 1347});
    let list_args = json!({"owner": "octocat", "repo": "Hello-World", "state": "open", "labels": ["bug", "ui"], "per_page": 30, "page": 2});
    let checkout_args = json!({
        "mode": "payment",
        "line_items": [{"price": "price_1", "quantity": 2}, {"price": "price_2", "quantity": 1}],
        "metadata": {"order_id": "6735", "channel": "web"},
        "success_url": "https://example.com/success?session_id={CHECKOUT_SESSION_ID}",
        "expand": ["line_items"]
    });
    let issue_body = recorded_issue(1347).to_string().into_bytes();
    let list_body = Value::Array((1..=30).map(recorded_issue).collect())
        .to_string()
        .into_bytes();
    let checkout_body = json!({
        "id": "cs_test_a1", "object": "checkout.session", "url": "https://checkout.stripe.com/c/pay/cs_test_a1",
        "status": "open", "amount_total": 2000, "currency": "usd", "livemode": false, "metadata": {"order_id": "6735"},
        "payment_status": "unpaid", "mode": "payment", "expires_at": 1_700_000_000
    })
    .to_string()
    .into_bytes();
    eprintln!(
        "recorded bodies: issue {} B, list of 30 {} B, checkout {} B",
        issue_body.len(),
        list_body.len(),
        checkout_body.len()
    );

    let mut g = c.benchmark_group("overhead");
    // Context, not charter: what parsing the recorded issue into a serde_json::Value costs.
    g.bench_function("baseline/serde_json_parse_issue", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&issue_body)).unwrap())
    });
    g.bench_function("build_request/github_issue_get", |b| {
        b.iter(|| build_request(&ISSUE, &ISSUE_ROUTE, base, black_box(&issue_args), &ctx).unwrap())
    });
    g.bench_function("build_request/github_issues_list", |b| {
        b.iter(|| build_request(&LIST, &LIST_ROUTE, base, black_box(&list_args), &ctx).unwrap())
    });
    g.bench_function("build_request/stripe_checkout_form", |b| {
        b.iter(|| {
            build_request(
                &CHECKOUT,
                &CHECKOUT_ROUTE,
                "https://api.stripe.com",
                black_box(&checkout_args),
                &ctx,
            )
            .unwrap()
        })
    });
    g.bench_function("shape_response/github_issue_2.5kB", |b| {
        b.iter(|| {
            shape_response(
                &ISSUE_ROUTE,
                200,
                Some("application/json; charset=utf-8"),
                black_box(&issue_body),
            )
            .unwrap()
        })
    });
    g.bench_function("shape_response/stripe_checkout", |b| {
        b.iter(|| {
            shape_response(
                &CHECKOUT_ROUTE,
                200,
                Some("application/json"),
                black_box(&checkout_body),
            )
            .unwrap()
        })
    });
    g.bench_function("shape_response/github_list_30_issues", |b| {
        b.iter(|| {
            shape_response(
                &LIST_ROUTE,
                200,
                Some("application/json"),
                black_box(&list_body),
            )
            .unwrap()
        })
    });
    g.bench_function("call/github_issue_get (build + shape)", |b| {
        b.iter(|| {
            let req =
                build_request(&ISSUE, &ISSUE_ROUTE, base, black_box(&issue_args), &ctx).unwrap();
            let out = shape_response(
                &ISSUE_ROUTE,
                200,
                Some("application/json"),
                black_box(&issue_body),
            )
            .unwrap();
            (req, out)
        })
    });
    g.bench_function("call/stripe_checkout (build + shape)", |b| {
        b.iter(|| {
            let req = build_request(
                &CHECKOUT,
                &CHECKOUT_ROUTE,
                "https://api.stripe.com",
                black_box(&checkout_args),
                &ctx,
            )
            .unwrap();
            let out = shape_response(
                &CHECKOUT_ROUTE,
                200,
                Some("application/json"),
                black_box(&checkout_body),
            )
            .unwrap();
            (req, out)
        })
    });
    g.finish();
}

fn loopback(c: &mut Criterion) {
    // The server runs on its own runtime thread, as a remote API would.
    let issue_body = recorded_issue(1347).to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let app = axum::Router::new().fallback(move || {
                let body = issue_body.clone();
                async move { ([("content-type", "application/json")], body) }
            });
            axum::serve(listener, app).await.unwrap();
        });
    });
    let addr = rx.recv().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let exec = HttpExecutor::builder()
        .no_proxy()
        .credentials(
            charter_runtime::http::StaticCredentials::new().with("GITHUB_TOKEN", "ghp_bench"),
        )
        .base_url("github", format!("http://{addr}"))
        .build()
        .unwrap();
    let ctx = CallContext::new();
    let args = json!({"owner": "octocat", "repo": "Hello-World", "issue_number": 1347});

    let mut g = c.benchmark_group("loopback");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("keep_alive_call/github_issue_get", |b| {
        b.iter(|| {
            rt.block_on(exec.execute(&ISSUE, &ISSUE_ROUTE, args.clone(), &ctx))
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, overhead, loopback);
criterion_main!(benches);
