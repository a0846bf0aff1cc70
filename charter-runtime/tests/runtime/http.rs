//! The HTTP executor against a real axum server on 127.0.0.1 that records every request: each
//! test asserts what went on the wire (method, raw path, raw query, headers, body) byte for byte.

use crate::http_support;

use std::time::{Duration, SystemTime};

use charter_runtime::http::{
    self, CredentialQuery, HttpExecutor, Secret, StaticCredentials, next_page,
};
use charter_runtime::session::HttpCaller;
use charter_runtime::table::*;
use charter_runtime::{CallContext, CharterError, ToolOutput};
use http_support::*;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Tables, hand-built as generated code would build them.

static OPEN: HttpPack = pack("open", Auth::None);
static BEARER: HttpPack = pack(
    "bearer",
    Auth::Bearer {
        env: "BEARER_TOKEN",
    },
);
static APIKEY: HttpPack = pack(
    "apikey",
    Auth::Header {
        name: "X-Api-Key",
        prefix: "Token ",
        env: "APIKEY_SECRET",
    },
);
static BASIC: HttpPack = pack(
    "basic",
    Auth::Basic {
        env: "BASIC_SECRET",
    },
);
static STATICS: HttpPack = pack("statics", Auth::None)
    .with_headers(&[
        ("Accept", "application/vnd.test+json"),
        ("X-Api-Version", "2024-01-01"),
    ])
    .with_query(&[("api-version", "2")])
    .with_body(&[
        ("source", "\"charter\""),
        ("options", "{\"dry_run\":false}"),
    ]);
static FORM_STATICS: HttpPack = pack("formstatics", Auth::None)
    .with_query(&[("api-version", "2")])
    .with_body(&[
        ("livemode", "false"),
        ("metadata", "{\"origin\":\"charter\"}"),
    ]);
static GQL: HttpPack =
    pack("gql", Auth::Bearer { env: "GQL_TOKEN" }).with_envelope(Envelope::GraphQl);
static SLACK: HttpPack =
    pack("slack", Auth::Bearer { env: "SLACK_TOKEN" }).with_envelope(Envelope::OkFlag {
        field: "ok",
        error_field: "error",
    });

// Path encoding.
static CONTENTS_FIELDS: ObjectShape = ObjectShape::of(&[
    field("owner", &STRING, Location::Path),
    field("repo", &STRING, Location::Path),
    field("path", &STRING, Location::Path).with_allow_slash(true),
    wired("git_ref", "ref", &STRING, Location::Query),
]);
static CONTENTS_ROUTE: Route = route(&OPEN, Method::Get, "/repos/{owner}/{repo}/contents/{path}");
static CONTENTS: ToolDef = tool("open_contents", &CONTENTS_FIELDS, &CONTENTS_ROUTE);

// Query lists.
static FILTER_SHAPE: Shape = Shape::Object(ObjectShape::of(&[
    wired("created_after", "createdAfter", &STRING, Location::Arg),
    field("state", &STRING, Location::Arg),
]));
static LIST_FIELDS: ObjectShape = ObjectShape::of(&[
    field("state", &STRING, Location::Query),
    field("labels", &STRINGS, Location::Query),
    wired("tags", "tag", &STRINGS, Location::Query).with_style(ListStyle::Brackets),
    field("ids", &INTEGERS, Location::Query).with_style(ListStyle::Comma),
    field("names", &STRINGS, Location::Query).with_style(ListStyle::Comma),
    wired("per_page", "perPage", &INTEGER, Location::Query),
    field("draft", &BOOL, Location::Query),
    field("filter", &FILTER_SHAPE, Location::Query),
    field("since", &STRING, Location::Query),
    wired("request_id", "X-Request-Id", &STRING, Location::Header),
]);
static LIST_ROUTE: Route = route(&OPEN, Method::Get, "/issues");
static LIST: ToolDef = tool("open_list", &LIST_FIELDS, &LIST_ROUTE);

// Form bodies.
static LINE_ITEM: Shape = Shape::Object(ObjectShape::of(&[
    field("price", &STRING, Location::Arg),
    field("quantity", &INTEGER, Location::Arg),
]));
static LINE_ITEMS: Shape = Shape::Array(ArrayRules::of(&LINE_ITEM));
static PAYMENT_DATA: Shape = Shape::Object(ObjectShape::of(&[
    wired("capture_method", "capture_method", &STRING, Location::Arg),
    wired(
        "statement_suffix",
        "statement_descriptor_suffix",
        &STRING,
        Location::Arg,
    ),
]));
static FORM_FIELDS: ObjectShape = ObjectShape::of(&[
    field("mode", &STRING, Location::Body),
    field("line_items", &LINE_ITEMS, Location::Body),
    field("metadata", &STRING_MAP, Location::Body),
    wired("customerEmail", "customer_email", &STRING, Location::Body),
    field("expand", &STRINGS, Location::Body),
    field("payment_intent_data", &PAYMENT_DATA, Location::Body),
    field("allow_promotion_codes", &BOOL, Location::Body),
    field("coupon", &STRING, Location::Body),
]);
static FORM_ROUTE: Route =
    route(&FORM_STATICS, Method::Post, "/v1/checkout/sessions").with_body(BodyEncoding::Form);
static FORM: ToolDef = tool("formstatics_checkout", &FORM_FIELDS, &FORM_ROUTE);

// JSON bodies.
static ASSIGNEE: Shape = Shape::Object(ObjectShape::of(&[
    wired("userId", "user_id", &INTEGER, Location::Arg),
    wired("displayName", "display_name", &STRING, Location::Arg),
]));
static CHECK_ITEM: Shape = Shape::Object(ObjectShape::of(&[
    wired("itemText", "item_text", &STRING, Location::Arg),
    field("done", &BOOL, Location::Arg),
]));
static CHECKLIST: Shape = Shape::Array(ArrayRules::of(&CHECK_ITEM));
static NULLABLE_STRING: Shape = Shape::Nullable(&STRING);
static JSON_FIELDS: ObjectShape = ObjectShape::of(&[
    field("project", &STRING, Location::Path),
    field("title", &STRING, Location::Body),
    wired("dueOn", "due_on", &STRING, Location::Body),
    field("assignee", &ASSIGNEE, Location::Body),
    field("checklist", &CHECKLIST, Location::Body),
    field("extra", &ANY, Location::Body),
    field("milestone", &NULLABLE_STRING, Location::Body),
    wired(
        "idempotency_key",
        "Idempotency-Key",
        &STRING,
        Location::Header,
    ),
]);
static JSON_ROUTE: Route =
    route(&OPEN, Method::Post, "/projects/{project}/issues").with_body(BodyEncoding::Json);
static JSON_TOOL: ToolDef = tool("open_create", &JSON_FIELDS, &JSON_ROUTE);

// A spread map: its members sit beside the other body fields (an open extension).
static EXTENSION_FIELDS: ObjectShape = ObjectShape::of(&[
    field("message_id", &STRING, Location::Path),
    wired("odata_type", "@odata.type", &STRING, Location::Body),
    wired("extension_name", "extensionName", &STRING, Location::Body),
    field("data", &ANY_MAP, Location::BodySpread),
]);
static ANY_MAP: Shape = Shape::Map(&ANY);
static EXTENSION_ROUTE: Route = route(&OPEN, Method::Post, "/me/messages/{message_id}/extensions")
    .with_body(BodyEncoding::Json);
static EXTENSION_TOOL: ToolDef = tool("open_extension", &EXTENSION_FIELDS, &EXTENSION_ROUTE);
static EXTENSION_FORM_ROUTE: Route =
    route(&OPEN, Method::Post, "/me/messages/{message_id}/extensions")
        .with_body(BodyEncoding::Form);
static EXTENSION_FORM_TOOL: ToolDef = tool(
    "open_extension_form",
    &EXTENSION_FIELDS,
    &EXTENSION_FORM_ROUTE,
);

// Static constants.
static STATIC_FIELDS: ObjectShape = ObjectShape::of(&[
    wired("api_version", "api-version", &STRING, Location::Query),
    field("q", &STRING, Location::Query),
    wired("version_header", "X-Api-Version", &STRING, Location::Header),
    field("source", &STRING, Location::Body),
    field("name", &STRING, Location::Body),
]);
static STATIC_ROUTE: Route = route(&STATICS, Method::Post, "/things").with_body(BodyEncoding::Json);
static STATIC_TOOL: ToolDef = tool("statics_create", &STATIC_FIELDS, &STATIC_ROUTE);
static FORM_STATIC_FIELDS: ObjectShape = ObjectShape::of(&[
    wired("api_version", "api-version", &STRING, Location::Query),
    field("livemode", &BOOL, Location::Body),
    field("metadata", &STRING_MAP, Location::Body),
    field("name", &STRING, Location::Body),
]);
static FORM_STATIC_ROUTE: Route =
    route(&FORM_STATICS, Method::Post, "/v1/customers").with_body(BodyEncoding::Form);
static FORM_STATIC_TOOL: ToolDef = tool(
    "formstatics_customer",
    &FORM_STATIC_FIELDS,
    &FORM_STATIC_ROUTE,
);

// Credentials.
static NO_FIELDS: ObjectShape = ObjectShape::of(&[]);
static WHOAMI_ROUTE: Route = route(&BEARER, Method::Get, "/user");
static WHOAMI: ToolDef = tool("bearer_whoami", &NO_FIELDS, &WHOAMI_ROUTE);
static APIKEY_ROUTE: Route = route(&APIKEY, Method::Get, "/me");
static APIKEY_TOOL: ToolDef = tool("apikey_me", &NO_FIELDS, &APIKEY_ROUTE);
static BASIC_ROUTE: Route = route(&BASIC, Method::Get, "/v1/balance");
static BASIC_TOOL: ToolDef = tool("basic_balance", &NO_FIELDS, &BASIC_ROUTE);

// Envelopes.
static GQL_FIELDS: ObjectShape = ObjectShape::of(&[field("login", &STRING, Location::Body)]);
static GQL_ROUTE: Route = route(&GQL, Method::Post, "/graphql")
    .with_graphql("query($login: String!) { user(login: $login) { name } }")
    .with_projection(&["data.user.name"]);
static GQL_TOOL: ToolDef = tool("gql_user", &GQL_FIELDS, &GQL_ROUTE);
// A GraphQL route in a pack that declares no envelope: `errors` is still the failure channel.
static GQL_BARE: HttpPack = pack("gqlbare", Auth::None);
static GQL_BARE_ROUTE: Route = route(&GQL_BARE, Method::Post, "")
    .with_graphql("query($login: String!) { user(login: $login) { name } }");
static GQL_BARE_TOOL: ToolDef = tool("gqlbare_user", &GQL_FIELDS, &GQL_BARE_ROUTE);
static SLACK_FIELDS: ObjectShape = ObjectShape::of(&[
    field("channel", &STRING, Location::Body),
    field("text", &STRING, Location::Body),
]);
static SLACK_ROUTE: Route =
    route(&SLACK, Method::Post, "/chat.postMessage").with_body(BodyEncoding::Json);
static SLACK_TOOL: ToolDef = tool("slack_post", &SLACK_FIELDS, &SLACK_ROUTE);

// Projection and pagination.
static PAGE_FIELDS: ObjectShape = ObjectShape::of(&[
    field("page", &INTEGER, Location::Query),
    field("per_page", &INTEGER, Location::Query),
]);
static ISSUES_ROUTE: Route = route(&OPEN, Method::Get, "/repos/o/r/issues")
    .with_projection(&["number", "title", "labels.name", "user.login"])
    .with_pagination(Pagination::Page {
        param: "page",
        size_param: Some("per_page"),
    });
static ISSUES: ToolDef = tool("open_issues", &PAGE_FIELDS, &ISSUES_ROUTE);
static MONITORS_ROUTE: Route =
    route(&OPEN, Method::Get, "/monitor").with_pagination(Pagination::Offset {
        param: "offset",
        size_param: Some("limit"),
    });
static UNSIZED_OFFSET_ROUTE: Route =
    route(&OPEN, Method::Get, "/monitor").with_pagination(Pagination::Offset {
        param: "offset",
        size_param: None,
    });
static CURSOR_FIELDS: ObjectShape = ObjectShape::of(&[
    field("limit", &INTEGER, Location::Query),
    field("starting_after", &STRING, Location::Query),
]);
static CUSTOMERS_ROUTE: Route = route(&OPEN, Method::Get, "/v1/customers")
    .with_projection(&["data.id", "data.email"])
    .with_pagination(Pagination::Cursor {
        next: "data.-1.id",
        param: "starting_after",
    });
static CUSTOMERS: ToolDef = tool("open_customers", &CURSOR_FIELDS, &CUSTOMERS_ROUTE);
// A GraphQL connection: Relay `pageInfo` keeps its `endCursor` on the last page.
static RELAY_ROUTE: Route = route(&GQL, Method::Post, "/graphql").with_graphql(
        "query($after: String) { issues(after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }",
    ).with_pagination(Pagination::Cursor {
        next: "data.issues.pageInfo.endCursor",
        param: "after",
    });

// Redirects, timeouts, bodies.
static REDIRECT_ROUTE: Route = route(&BEARER, Method::Get, "/start")
    .with_max_redirects(3)
    .with_headers(&[])
    .with_query(&[]);
static REDIRECT: ToolDef = tool("bearer_redirect", &NO_FIELDS, &REDIRECT_ROUTE);
static APIKEY_REDIRECT_ROUTE: Route = route(&APIKEY, Method::Get, "/start")
    .with_max_redirects(1)
    .with_headers(&[])
    .with_query(&[]);
static APIKEY_REDIRECT: ToolDef = tool("apikey_redirect", &NO_FIELDS, &APIKEY_REDIRECT_ROUTE);
static BASIC_REDIRECT_ROUTE: Route = route(&BASIC, Method::Get, "/start")
    .with_max_redirects(1)
    .with_headers(&[])
    .with_query(&[]);
static BASIC_REDIRECT: ToolDef = tool("basic_redirect", &NO_FIELDS, &BASIC_REDIRECT_ROUTE);
static POST_FIELDS: ObjectShape = ObjectShape::of(&[field("x", &STRING, Location::Body)]);
static POST_REDIRECT_ROUTE: Route = route(&BEARER, Method::Post, "/submit")
    .with_body(BodyEncoding::Json)
    .with_max_redirects(1)
    .with_headers(&[])
    .with_query(&[]);
static POST_REDIRECT: ToolDef = tool("bearer_submit", &POST_FIELDS, &POST_REDIRECT_ROUTE);
static NO_REDIRECT_ROUTE: Route = route(&BEARER, Method::Get, "/start");
static NO_REDIRECT: ToolDef = tool("bearer_noredirect", &NO_FIELDS, &NO_REDIRECT_ROUTE);
static SLOW_ROUTE: Route = route(&BEARER, Method::Get, "/slow").with_timeout_ms(200);
static SLOW: ToolDef = tool("bearer_slow", &NO_FIELDS, &SLOW_ROUTE);
static FILE_ROUTE: Route = route(&OPEN, Method::Get, "/file");
static DELETE_ROUTE: Route = route(&OPEN, Method::Delete, "/things/1");
static DELETE: ToolDef = tool("open_delete", &NO_FIELDS, &DELETE_ROUTE);

// ---------------------------------------------------------------------------------------------
// Helpers.

const CANARY: &str = "sk_canary_9f8e7d6c5b4a39281706";

fn executor(server: &Stub, packs: &[&str]) -> HttpExecutor {
    executor_with(server, packs, StaticCredentials::new())
}

fn executor_with(
    server: &Stub,
    packs: &[&str],
    credentials: impl http::CredentialProvider + 'static,
) -> HttpExecutor {
    let mut builder = HttpExecutor::builder().no_proxy().credentials(credentials);
    for pack in packs {
        builder = builder.base_url(*pack, server.base.clone());
    }
    builder.build().expect("executor")
}

fn all_secrets() -> StaticCredentials {
    StaticCredentials::new()
        .with("BEARER_TOKEN", CANARY)
        .with("APIKEY_SECRET", CANARY)
        .with("BASIC_SECRET", CANARY)
        .with("GQL_TOKEN", CANARY)
        .with("SLACK_TOKEN", CANARY)
}

async fn call(
    exec: &HttpExecutor,
    tool: &'static ToolDef,
    args: Value,
) -> Result<ToolOutput, CharterError> {
    call_ctx(exec, tool, args, &CallContext::new()).await
}

async fn call_ctx(
    exec: &HttpExecutor,
    tool: &'static ToolDef,
    args: Value,
    ctx: &CallContext,
) -> Result<ToolOutput, CharterError> {
    let Exec::Http(route) = tool.exec else {
        panic!("not an HTTP tool")
    };
    // Through the trait the session uses.
    HttpCaller::call(exec, tool, route, args, ctx).await
}

fn api_error(result: Result<ToolOutput, CharterError>) -> charter_runtime::ApiError {
    match result {
        Err(CharterError::Api(e)) => e,
        other => panic!("expected an API error, got {other:?}"),
    }
}

fn ok_server() -> impl Fn(&Recorded) -> Reply + Send + Sync + 'static {
    |_| Reply::json(200, json!({"ok": true}))
}

// ---------------------------------------------------------------------------------------------
// Path encoding and traversal.

#[tokio::test]
async fn path_arguments_are_percent_encoded() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["open"]);
    call(
        &exec,
        &CONTENTS,
        json!({"owner": "a b", "repo": "x/y?z#w", "path": "docs/read me/é.md", "git_ref": "feature/x&y"}),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(r.method, "GET");
    assert_eq!(
        r.path,
        "/repos/a%20b/x%2Fy%3Fz%23w/contents/docs/read%20me/%C3%A9.md"
    );
    assert_eq!(r.query.as_deref(), Some("ref=feature%2Fx%26y"));
    assert_eq!(r.body, b"");

    // Numbers go in as their JSON text; `/` stays encoded where the field does not allow it.
    call(
        &exec,
        &CONTENTS,
        json!({"owner": 42, "repo": "r", "path": "a/b/c"}),
    )
    .await
    .unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(last.path, "/repos/42/r/contents/a/b/c");
    assert_eq!(last.query, None);
}

#[tokio::test]
async fn dot_segments_are_refused_in_every_spelling_and_nothing_is_sent() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["open"]);
    let cases = [
        json!({"owner": "..", "repo": "r", "path": "f"}),
        json!({"owner": ".", "repo": "r", "path": "f"}),
        json!({"owner": "o", "repo": "%2e%2e", "path": "f"}),
        json!({"owner": "o", "repo": "%2E%2e", "path": "f"}),
        json!({"owner": "o", "repo": "%252e%252e", "path": "f"}),
        json!({"owner": "o", "repo": "a/../b", "path": "f"}),
        json!({"owner": "o", "repo": "r", "path": "docs/../../etc/passwd"}),
        json!({"owner": "o", "repo": "r", "path": "docs/%2e%2e/secret"}),
        json!({"owner": "o", "repo": "r", "path": "docs/./x"}),
        json!({"owner": "o", "repo": "r", "path": "..\\windows"}),
    ];
    for args in cases {
        let err = call(&exec, &CONTENTS, args.clone()).await.unwrap_err();
        assert!(err.is_validation(), "{args}: {err:?}");
        let text = err.to_string();
        assert!(text.contains("`.` or `..` segment"), "{text}");
        let field = ["owner", "repo", "path"]
            .into_iter()
            .find(|f| {
                args[f]
                    .as_str()
                    .is_some_and(|v| v.contains('.') || v.contains('%'))
            })
            .unwrap();
        assert!(
            text.contains(&format!("`{field}`")),
            "names the field: {text}"
        );
    }
    // Missing and empty path arguments are reported together.
    let err = call(&exec, &CONTENTS, json!({"owner": "", "path": "a//b"}))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("`owner`: a path argument may not be empty"),
        "{text}"
    );
    assert!(text.contains("`repo`: required"), "{text}");
    assert!(text.contains("`path`: empty path segments"), "{text}");
    assert!(
        server.requests().is_empty(),
        "nothing may leave: {:?}",
        server.requests()
    );

    // Dots inside a name are fine.
    call(
        &exec,
        &CONTENTS,
        json!({"owner": "o", "repo": "v1.2...x", "path": "a/.hidden/file.tar.gz"}),
    )
    .await
    .unwrap();
    assert_eq!(
        server.only().path,
        "/repos/o/v1.2...x/contents/a/.hidden/file.tar.gz"
    );
}

// ---------------------------------------------------------------------------------------------
// Query strings.

#[tokio::test]
async fn query_lists_repeat_bracket_or_comma_as_declared() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["open"]);
    call(
        &exec,
        &LIST,
        json!({
            // Model order differs from declaration order: the query follows the declaration.
            "filter": {"state": "open", "created_after": "2026-01-01T00:00:00Z"},
            "names": ["a,b", "c d"],
            "ids": [1, 2, 3],
            "tags": ["x", "y&z"],
            "labels": ["bug", "good first issue"],
            "state": "open",
            "per_page": 50,
            "draft": false,
            "request_id": "req-1"
        }),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(r.path, "/issues");
    assert_eq!(
        r.query.as_deref(),
        Some(
            "state=open&labels=bug&labels=good%20first%20issue&tag[]=x&tag[]=y%26z&ids=1,2,3&names=a%2Cb,c%20d\
             &perPage=50&draft=false&filter[createdAfter]=2026-01-01T00%3A00%3A00Z&filter[state]=open"
        )
    );
    assert_eq!(
        r.headers_sorted(),
        vec![
            ("accept", "*/*"),
            ("user-agent", concat!("charter/", env!("CARGO_PKG_VERSION"))),
            ("x-request-id", "req-1"),
        ]
    );

    // Unset optionals are not sent at all; an empty list sends nothing.
    call(&exec, &LIST, json!({"labels": [], "state": "closed"}))
        .await
        .unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(last.query.as_deref(), Some("state=closed"));
    assert_eq!(last.header("x-request-id"), None);
}

// ---------------------------------------------------------------------------------------------
// Bodies.

#[tokio::test]
async fn form_bodies_use_bracket_notation_for_nested_keys_and_arrays() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["formstatics"]);
    call(
        &exec,
        &FORM,
        json!({
            "mode": "payment",
            "line_items": [{"price": "price_1", "quantity": 2}, {"quantity": 1, "price": "price 2"}],
            "metadata": {"order": "A&B=1", "note": "é"},
            "customerEmail": "x@example.com",
            "expand": ["line_items", "customer"],
            "payment_intent_data": {"statement_suffix": "SUF", "capture_method": "manual"},
            "allow_promotion_codes": true
        }),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/checkout/sessions");
    assert_eq!(r.query.as_deref(), Some("api-version=2"));
    assert_eq!(
        r.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    // The pack's static `metadata` replaces the model's whole member (constants are applied
    // last and cannot be overridden); `livemode` is added after the arguments.
    assert_eq!(
        r.text(),
        "mode=payment&line_items[0][price]=price_1&line_items[0][quantity]=2\
         &line_items[1][price]=price%202&line_items[1][quantity]=1\
         &customer_email=x%40example.com&expand[0]=line_items&expand[1]=customer\
         &payment_intent_data[capture_method]=manual&payment_intent_data[statement_descriptor_suffix]=SUF\
         &allow_promotion_codes=true&livemode=false&metadata[origin]=charter"
    );
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str())
    );
}

#[tokio::test]
async fn a_spread_map_puts_its_members_beside_the_other_body_fields() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["open"]);
    let args = json!({
        "data": {"referrer": "Ada", "expiresInDays": 7, "vip": true, "nested": {"a": [1]}},
        "extension_name": "Com.Contoso.Referral",
        "message_id": "AAMk",
        "odata_type": "microsoft.graph.openTypeExtension"
    });
    call(&exec, &EXTENSION_TOOL, args.clone()).await.unwrap();
    let r = server.only();
    assert_eq!(r.path, "/me/messages/AAMk/extensions");
    assert_eq!(
        r.text(),
        r#"{"@odata.type":"microsoft.graph.openTypeExtension","extensionName":"Com.Contoso.Referral","referrer":"Ada","expiresInDays":7,"vip":true,"nested":{"a":[1]}}"#
    );
    // Absent or empty: nothing of it is sent.
    call(
        &exec,
        &EXTENSION_TOOL,
        json!({"message_id": "AAMk", "data": {}}),
    )
    .await
    .unwrap();
    call(&exec, &EXTENSION_TOOL, json!({"message_id": "AAMk"}))
        .await
        .unwrap();
    let sent: Vec<String> = server.requests()[1..]
        .iter()
        .map(|r| r.text().to_owned())
        .collect();
    assert_eq!(sent, ["{}", "{}"]);
    // A form body spreads the same way, in bracket notation below the top level.
    call(&exec, &EXTENSION_FORM_TOOL, args).await.unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(
        last.text(),
        "%40odata.type=microsoft.graph.openTypeExtension&extensionName=Com.Contoso.Referral\
         &referrer=Ada&expiresInDays=7&vip=true&nested[a][0]=1"
    );
}

#[tokio::test]
async fn json_bodies_use_wire_names_at_every_depth_and_a_fixed_shape() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["open"]);
    call(
        &exec,
        &JSON_TOOL,
        json!({
            "checklist": [{"done": false, "itemText": "write"}, {"itemText": "ship", "done": true}],
            "assignee": {"displayName": "Ada", "userId": 7},
            "dueOn": "2026-11-30",
            "title": "Crash on start",
            "extra": {"freeForm": [1, {"keptAsIs": true}]},
            "milestone": null,
            "project": "CORE",
            "idempotency_key": "k-1"
        }),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/projects/CORE/issues");
    assert_eq!(r.query, None);
    let expected = r#"{"title":"Crash on start","due_on":"2026-11-30","assignee":{"user_id":7,"display_name":"Ada"},"checklist":[{"item_text":"write","done":false},{"item_text":"ship","done":true}],"extra":{"freeForm":[1,{"keptAsIs":true}]},"milestone":null}"#;
    assert_eq!(r.text(), expected);
    assert_eq!(
        r.headers_sorted(),
        vec![
            ("accept", "*/*"),
            ("content-length", expected.len().to_string().as_str()),
            ("content-type", "application/json"),
            ("idempotency-key", "k-1"),
            ("user-agent", concat!("charter/", env!("CARGO_PKG_VERSION"))),
        ]
    );

    // The body's shape depends on the declared body fields, not on what this call filled: a
    // call with no body argument still sends a JSON object.
    call(&exec, &JSON_TOOL, json!({"project": "CORE"}))
        .await
        .unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(last.text(), "{}");
    assert_eq!(last.header("content-type"), Some("application/json"));
    assert_eq!(last.header("idempotency-key"), None);

    // No body on a route without one.
    call(&exec, &DELETE, json!({})).await.unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(last.method, "DELETE");
    assert_eq!(last.body, b"");
    assert_eq!(last.header("content-type"), None);
}

#[tokio::test]
async fn static_constants_are_applied_last_and_the_model_cannot_override_them() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["statics", "formstatics"]);
    let ctx = CallContext::new()
        .with_header("X-Trace", "t-1")
        .with_header("X-Api-Version", "from-host")
        .with_header("Accept", "text/html");
    call_ctx(
        &exec,
        &STATIC_TOOL,
        json!({"name": "n", "source": "model", "api_version": "999", "version_header": "model", "q": "a b"}),
        &ctx,
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(r.query.as_deref(), Some("q=a%20b&api-version=2"));
    let expected = r#"{"name":"n","source":"charter","options":{"dry_run":false}}"#;
    assert_eq!(r.text(), expected);
    assert_eq!(
        r.headers_sorted(),
        vec![
            ("accept", "application/vnd.test+json"),
            ("content-length", expected.len().to_string().as_str()),
            ("content-type", "application/json"),
            ("user-agent", concat!("charter/", env!("CARGO_PKG_VERSION"))),
            ("x-api-version", "2024-01-01"),
            ("x-trace", "t-1"),
        ]
    );

    // Form bodies too: the model's `livemode` and `metadata` are replaced, whole.
    call(
        &exec,
        &FORM_STATIC_TOOL,
        json!({"livemode": true, "metadata": {"origin": "model", "other": "x"}, "name": "c", "api_version": "1"}),
    )
    .await
    .unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(last.path, "/v1/customers");
    assert_eq!(last.query.as_deref(), Some("api-version=2"));
    assert_eq!(
        last.text(),
        "name=c&livemode=false&metadata[origin]=charter"
    );
}

// ---------------------------------------------------------------------------------------------
// Credentials.

#[tokio::test]
async fn credentials_resolve_per_end_user() {
    let server = Stub::start(ok_server()).await;
    let provider = http::from_fn(
        |q: &CredentialQuery| match (q.pack, q.env, q.user.as_deref()) {
            ("bearer", "BEARER_TOKEN", Some("alice")) => Some(Secret::from("tok-alice")),
            ("bearer", "BEARER_TOKEN", Some("bob")) => Some(Secret::from("tok-bob")),
            _ => None,
        },
    );
    let exec = executor_with(&server, &["bearer"], provider);
    for user in ["alice", "bob", "alice"] {
        call_ctx(
            &exec,
            &WHOAMI,
            json!({}),
            &CallContext::new().for_user(user),
        )
        .await
        .unwrap();
    }
    let auth: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.header("authorization").unwrap().to_owned())
        .collect();
    assert_eq!(
        auth,
        ["Bearer tok-alice", "Bearer tok-bob", "Bearer tok-alice"]
    );

    // The async form, and the static one with per-user entries.
    let provider = http::from_async_fn(|q: CredentialQuery| async move {
        tokio::task::yield_now().await;
        Ok(q.user.map(|u| Secret::new(format!("vault-{u}"))))
    });
    let exec = executor_with(&server, &["bearer"], provider);
    call_ctx(
        &exec,
        &WHOAMI,
        json!({}),
        &CallContext::new().for_user("carol"),
    )
    .await
    .unwrap();
    assert_eq!(
        server.requests().pop().unwrap().header("authorization"),
        Some("Bearer vault-carol")
    );

    let provider = StaticCredentials::new()
        .with("BEARER_TOKEN", "shared")
        .with_user("dave", "bearer", "dave-own");
    let exec = executor_with(&server, &["bearer"], provider);
    call_ctx(
        &exec,
        &WHOAMI,
        json!({}),
        &CallContext::new().for_user("dave"),
    )
    .await
    .unwrap();
    call_ctx(
        &exec,
        &WHOAMI,
        json!({}),
        &CallContext::new().for_user("erin"),
    )
    .await
    .unwrap();
    let log = server.requests();
    assert_eq!(
        log[log.len() - 2].header("authorization"),
        Some("Bearer dave-own")
    );
    assert_eq!(
        log[log.len() - 1].header("authorization"),
        Some("Bearer shared")
    );
}

#[tokio::test]
async fn header_and_basic_schemes() {
    let server = Stub::start(ok_server()).await;
    let provider = StaticCredentials::new()
        .with("APIKEY_SECRET", "k123")
        .with("BASIC_SECRET", "sk_test_abc")
        .with_user("u2", "BASIC_SECRET", "user:pa:ss");
    let exec = executor_with(&server, &["apikey", "basic"], provider);
    call(&exec, &APIKEY_TOOL, json!({})).await.unwrap();
    call(&exec, &BASIC_TOOL, json!({})).await.unwrap();
    call_ctx(
        &exec,
        &BASIC_TOOL,
        json!({}),
        &CallContext::new().for_user("u2"),
    )
    .await
    .unwrap();
    let log = server.requests();
    assert_eq!(log[0].header("x-api-key"), Some("Token k123"));
    assert_eq!(log[0].header("authorization"), None);
    // A bare key is the user name with an empty password (Stripe): base64("sk_test_abc:").
    assert_eq!(
        log[1].header("authorization"),
        Some("Basic c2tfdGVzdF9hYmM6")
    );
    // `user:password` is split at the first colon: base64("user:pa:ss").
    assert_eq!(
        log[2].header("authorization"),
        Some("Basic dXNlcjpwYTpzcw==")
    );
}

#[tokio::test]
async fn a_missing_credential_names_the_variable_and_sends_nothing() {
    let server = Stub::start(ok_server()).await;
    let exec = executor_with(
        &server,
        &["bearer", "apikey", "basic"],
        StaticCredentials::new(),
    );
    for (tool, var) in [
        (&WHOAMI, "BEARER_TOKEN"),
        (&APIKEY_TOOL, "APIKEY_SECRET"),
        (&BASIC_TOOL, "BASIC_SECRET"),
    ] {
        let err = call_ctx(&exec, tool, json!({}), &CallContext::new().for_user("zoe"))
            .await
            .unwrap_err();
        let CharterError::Credential(message) = &err else {
            panic!("expected a credential error, got {err:?}")
        };
        assert!(message.contains(var), "{message}");
        assert!(message.contains(&format!("`{}`", tool.pack)), "{message}");
    }
    // A provider's own error passes through.
    let failing = http::from_async_fn(|_q| async {
        Err(CharterError::Credential("vault unreachable".into()))
    });
    let exec = executor_with(&server, &["bearer"], failing);
    let err = call(&exec, &WHOAMI, json!({})).await.unwrap_err();
    assert_eq!(err.to_string(), "credential error: vault unreachable");
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// API errors.

#[tokio::test]
async fn status_401_is_an_api_error_with_a_truncated_body() {
    let long = format!(
        "{{\"message\":\"Bad credentials\",\"detail\":\"{}\"}}",
        "é".repeat(400)
    );
    let server = Stub::start(move |_| {
        Reply::status(401)
            .header("content-type", "application/json")
            .body(long.clone())
    })
    .await;
    let exec = executor_with(
        &server,
        &["bearer"],
        StaticCredentials::new().with("BEARER_TOKEN", "t0k3n-x"),
    );
    let err = api_error(call(&exec, &WHOAMI, json!({})).await);
    assert_eq!(err.status, 401);
    assert_eq!(err.method, "GET");
    assert_eq!(err.url_template, "/user");
    assert_eq!(err.retry_after_secs, None);
    assert!(
        err.body.starts_with("{\"message\":\"Bad credentials\""),
        "{}",
        err.body
    );
    assert!(err.body.ends_with('…'));
    assert!(err.body.len() <= 300 + '…'.len_utf8(), "{}", err.body.len());
    let text = CharterError::Api(err).to_string();
    assert!(
        text.starts_with("GET /user failed with HTTP 401: {\"message\":\"Bad credentials\""),
        "{text}"
    );
}

#[tokio::test]
async fn status_429_and_rate_limits_carry_retry_after() {
    let reset = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 120;
    let date = httpdate_in(3600);
    let server = Stub::start(move |r| match r.query.as_deref() {
        Some("case=seconds") => Reply::status(429)
            .header("retry-after", "7")
            .body("slow down"),
        Some("case=date") => Reply::status(503)
            .header("retry-after", &date)
            .body("maintenance"),
        Some("case=github") => Reply::status(403)
            .header("x-ratelimit-remaining", "0")
            .header("x-ratelimit-reset", &reset.to_string())
            .body(r#"{"message":"API rate limit exceeded"}"#),
        _ => Reply::status(500).body("boom"),
    })
    .await;
    let exec = executor(&server, &["open"]);
    static CASE_FIELDS: ObjectShape = ObjectShape::of(&[field("case", &STRING, Location::Query)]);
    static CASE_ROUTE: Route = route(&OPEN, Method::Get, "/limited");
    static CASE: ToolDef = tool("open_limited", &CASE_FIELDS, &CASE_ROUTE);

    let err = api_error(call(&exec, &CASE, json!({"case": "seconds"})).await);
    assert_eq!(
        (err.status, err.retry_after_secs, err.body.as_str()),
        (429, Some(7), "slow down")
    );
    assert_eq!(
        CharterError::Api(err).to_string(),
        "GET /limited failed with HTTP 429 (retry after 7 s): slow down"
    );
    let err = api_error(call(&exec, &CASE, json!({"case": "date"})).await);
    assert_eq!(err.status, 503);
    let secs = err.retry_after_secs.expect("an HTTP-date Retry-After");
    assert!((3590..=3600).contains(&secs), "{secs}");
    let err = api_error(call(&exec, &CASE, json!({"case": "github"})).await);
    assert_eq!(err.status, 403);
    let secs = err.retry_after_secs.expect("x-ratelimit-reset");
    assert!((110..=120).contains(&secs), "{secs}");
    let err = api_error(call(&exec, &CASE, json!({"case": "other"})).await);
    assert_eq!((err.status, err.retry_after_secs), (500, None));
}

fn httpdate_in(secs: u64) -> String {
    // An IMF-fixdate, computed by hand to keep the test independent of the parser under test.
    let t = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + secs;
    let (days, rem) = (t / 86400, t % 86400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    // Civil-from-days (Howard Hinnant).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let name = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][(month - 1) as usize];
    format!("{weekday}, {d:02} {name} {year} {h:02}:{m:02}:{s:02} GMT")
}

#[tokio::test]
async fn envelope_failures_inside_a_200_are_api_errors() {
    let server = Stub::start(|r| match (r.path.as_str(), r.text()) {
        ("/graphql", body) if body.contains("\"nobody\"") => Reply::json(200, json!({
            "data": {"user": null},
            "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a User with the login of 'nobody'."}]
        })),
        ("/graphql", _) => Reply::json(200, json!({"data": {"user": {"name": "Octo Cat", "id": "U_1"}}, "errors": []})),
        ("/chat.postMessage", body) if body.contains("#nowhere") => {
            Reply::json(200, json!({"ok": false, "error": "channel_not_found"}))
        }
        _ => Reply::json(200, json!({"ok": true, "ts": "1.2"})),
    })
    .await;
    let exec = executor_with(
        &server,
        &["gql", "slack"],
        StaticCredentials::new()
            .with("GQL_TOKEN", "g")
            .with("SLACK_TOKEN", "s"),
    );

    let out = call(&exec, &GQL_TOOL, json!({"login": "octocat"}))
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"data": {"user": {"name": "Octo Cat"}}}))
    );
    let r = server.only();
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/graphql"));
    assert_eq!(
        r.text(),
        r#"{"query":"query($login: String!) { user(login: $login) { name } }","variables":{"login":"octocat"}}"#
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("authorization"), Some("Bearer g"));

    let err = api_error(call(&exec, &GQL_TOOL, json!({"login": "nobody"})).await);
    assert_eq!(
        (err.status, err.method, err.url_template),
        (200, "POST", "/graphql")
    );
    assert!(
        err.body.contains("Could not resolve to a User"),
        "{}",
        err.body
    );

    let err = api_error(
        call(
            &exec,
            &SLACK_TOOL,
            json!({"channel": "#nowhere", "text": "hi"}),
        )
        .await,
    );
    assert_eq!((err.status, err.body.as_str()), (200, "channel_not_found"));
    assert_eq!(
        CharterError::Api(err).to_string(),
        "POST /chat.postMessage failed with HTTP 200: channel_not_found"
    );
    let out = call(
        &exec,
        &SLACK_TOOL,
        json!({"channel": "#general", "text": "hi"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured, Some(json!({"ok": true, "ts": "1.2"})));
}

#[tokio::test]
async fn a_graphql_route_checks_errors_without_a_declared_envelope() {
    let server = Stub::start(|r| {
        if r.text().contains("\"ghost\"") {
            Reply::json(200, json!({
                "data": null,
                "errors": [
                    {"message": "Entity not found", "path": ["user"], "extensions": {"code": "NOT_FOUND"}},
                    {"message": "Second problem", "path": ["user", "name", 0]},
                    {"extensions": {"code": "NO_MESSAGE"}}
                ]
            }))
        } else {
            Reply::json(200, json!({"data": {"user": {"name": "Ghost"}}}))
        }
    })
    .await;
    let exec = executor_with(&server, &["gqlbare"], StaticCredentials::new());

    let out = call(&exec, &GQL_BARE_TOOL, json!({"login": "someone"}))
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"data": {"user": {"name": "Ghost"}}}))
    );
    // The empty path posts to the base URL itself.
    assert_eq!(server.only().path, "/");

    let err = api_error(call(&exec, &GQL_BARE_TOOL, json!({"login": "ghost"})).await);
    assert_eq!((err.status, err.method), (200, "POST"));
    assert_eq!(
        err.body,
        r#"GraphQL errors: Entity not found (at user); Second problem (at user.name.0); {"extensions":{"code":"NO_MESSAGE"}}"#
    );
}

// ---------------------------------------------------------------------------------------------
// Responses.

#[tokio::test]
async fn projection_keeps_declared_fields_and_the_event_reports_bytes_before_and_after() {
    let issues: Vec<Value> = (1..=30)
        .map(|n| {
            json!({
                "url": format!("https://api.example/repos/o/r/issues/{n}"),
                "number": n,
                "title": format!("Issue {n}"),
                "body": "A long body that the model does not need. ".repeat(10),
                "labels": [{"id": 1, "name": "bug", "color": "d73a4a", "default": true}],
                "user": {"login": "octo", "id": 1, "avatar_url": "https://avatars.example/u/1"},
                "reactions": {"+1": 3, "-1": 0}
            })
        })
        .collect();
    let raw = Value::Array(issues).to_string();
    let raw_len = raw.len();
    let server = Stub::start(move |_| {
        Reply::status(200)
            .header("content-type", "application/json; charset=utf-8")
            .body(raw.clone())
    })
    .await;
    let exec = executor(&server, &["open"]);

    let captured = capture_tracing();
    let out = call(&exec, &ISSUES, json!({"page": 2, "per_page": 30}))
        .await
        .unwrap();
    assert_eq!(server.only().query.as_deref(), Some("page=2&per_page=30"));
    let items = out.structured.as_ref().unwrap().as_array().unwrap();
    assert_eq!(items.len(), 30);
    assert_eq!(
        items[0],
        json!({"number": 1, "title": "Issue 1", "labels": [{"name": "bug"}], "user": {"login": "octo"}})
    );
    assert_eq!(out.text, out.structured.as_ref().unwrap().to_string());

    let logs = captured.text();
    let events: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("http call") && l.contains("tool=\"open_issues\""))
        .collect();
    assert_eq!(events.len(), 1, "one INFO event per call: {events:#?}");
    let line = events[0];
    assert!(line.contains(" INFO "), "{line}");
    assert!(line.contains("tool=\"open_issues\""), "{line}");
    assert!(line.contains("method=\"GET\""), "{line}");
    assert!(line.contains("url=\"/repos/o/r/issues\""), "{line}");
    assert!(line.contains("status=200"), "{line}");
    assert!(line.contains("elapsed_ms="), "{line}");
    assert!(
        line.contains(&format!("bytes_received={raw_len}")),
        "{line}"
    );
    assert!(
        line.contains(&format!("bytes_returned={}", out.text.len())),
        "{line}"
    );
    assert!(
        out.text.len() * 5 < raw_len,
        "{} -> {}",
        raw_len,
        out.text.len()
    );

    // Page-style pagination: the next call's arguments, never fetched on our own.
    let next = next_page(
        &ISSUES_ROUTE,
        &json!({"page": 2, "per_page": 30}),
        out.structured.as_ref().unwrap(),
    );
    assert_eq!(next, Some(json!({"page": 3, "per_page": 30})));
    let short = next_page(
        &ISSUES_ROUTE,
        &json!({"page": 2, "per_page": 50}),
        out.structured.as_ref().unwrap(),
    );
    assert_eq!(short, None, "a short page is the last");
    assert_eq!(next_page(&ISSUES_ROUTE, &json!({}), &json!([])), None);
    assert_eq!(server.requests().len(), 1, "never looped silently");
}

#[test]
fn offset_pagination_skips_the_items_received_and_stops_on_a_short_page() {
    let page = |n: usize| json!({"success": true, "data": vec![json!({"id": "m"}); n]});
    // No offset yet counts as 0; the next offset is this one plus the items on the page.
    assert_eq!(
        next_page(&MONITORS_ROUTE, &json!({"limit": 2}), &page(2)),
        Some(json!({"limit": 2, "offset": 2}))
    );
    assert_eq!(
        next_page(
            &MONITORS_ROUTE,
            &json!({"limit": 2, "offset": 2, "status": "x"}),
            &page(2)
        ),
        Some(json!({"limit": 2, "offset": 4, "status": "x"}))
    );
    // A page shorter than the limit asked for is the last; so is an empty one.
    assert_eq!(
        next_page(&MONITORS_ROUTE, &json!({"limit": 2, "offset": 4}), &page(1)),
        None
    );
    assert_eq!(
        next_page(&MONITORS_ROUTE, &json!({"offset": 4}), &page(0)),
        None
    );
    // A top-level list is the page too.
    assert_eq!(
        next_page(&MONITORS_ROUTE, &json!({"offset": 1}), &json!([1, 2, 3])),
        Some(json!({"offset": 4}))
    );
    // No size asked for: the server's default is unknown, so only an empty page ends it.
    assert_eq!(
        next_page(&MONITORS_ROUTE, &json!({"offset": 10}), &page(1)),
        Some(json!({"offset": 11}))
    );
    assert_eq!(
        next_page(&UNSIZED_OFFSET_ROUTE, &json!({"limit": 5}), &page(1)),
        Some(json!({"limit": 5, "offset": 1}))
    );
    assert_eq!(next_page(&UNSIZED_OFFSET_ROUTE, &json!({}), &page(0)), None);
    // A response with no list, or `has_more: false`, has no next page.
    assert_eq!(
        next_page(&MONITORS_ROUTE, &json!({}), &json!({"id": 1})),
        None
    );
    assert_eq!(
        next_page(
            &MONITORS_ROUTE,
            &json!({}),
            &json!({"data": [1], "has_more": false})
        ),
        None
    );
}

#[test]
fn a_relay_page_info_ends_the_walk_when_there_is_no_next_page() {
    let page = |more: bool, cursor: Value| json!({"data": {"issues": {"nodes": [{"id": "a"}], "pageInfo": {"hasNextPage": more, "endCursor": cursor}}}});
    assert_eq!(
        next_page(&RELAY_ROUTE, &json!({"first": 1}), &page(true, json!("c1"))),
        Some(json!({"first": 1, "after": "c1"}))
    );
    // The last page still carries a cursor: `hasNextPage: false` wins.
    assert_eq!(
        next_page(
            &RELAY_ROUTE,
            &json!({"first": 1, "after": "c1"}),
            &page(false, json!("c2"))
        ),
        None
    );
    assert_eq!(
        next_page(&RELAY_ROUTE, &json!({}), &page(true, Value::Null)),
        None
    );
    // A cursor with no `hasNextPage` beside it is followed as before.
    assert_eq!(
        next_page(
            &RELAY_ROUTE,
            &json!({}),
            &json!({"data": {"issues": {"pageInfo": {"endCursor": "c3"}}}})
        ),
        Some(json!({"after": "c3"}))
    );
}

#[tokio::test]
async fn cursor_pagination_can_be_walked_by_the_host() {
    let server = Stub::start(|r| match r.query.as_deref() {
        Some("limit=2") => Reply::json(200, json!({
            "object": "list", "has_more": true, "url": "/v1/customers",
            "data": [{"id": "cus_1", "email": "a@x", "address": null}, {"id": "cus_2", "email": "b@x", "address": null}]
        })),
        Some("limit=2&starting_after=cus_2") => Reply::json(200, json!({
            "object": "list", "has_more": false, "url": "/v1/customers",
            "data": [{"id": "cus_3", "email": "c@x", "address": null}]
        })),
        other => Reply::status(400).body(format!("unexpected query {other:?}")),
    })
    .await;
    let exec = executor(&server, &["open"]);
    let mut args = json!({"limit": 2});
    let mut ids = Vec::new();
    let mut calls = 0;
    loop {
        let out = call(&exec, &CUSTOMERS, args.clone()).await.unwrap();
        calls += 1;
        let page = out.structured.unwrap();
        // The projection keeps what pagination reads (`has_more`) beside the declared fields.
        assert_eq!(
            page.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["has_more", "data"]
        );
        ids.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned()),
        );
        match next_page(&CUSTOMERS_ROUTE, &args, &page) {
            Some(next) => args = next,
            None => break,
        }
    }
    assert_eq!(ids, ["cus_1", "cus_2", "cus_3"]);
    assert_eq!(calls, 2);

    // Cursor paths: numeric segments index arrays, `-1` is the last; empty means done.
    static SLACK_LIST: Route =
        route(&OPEN, Method::Get, "/conversations.list").with_pagination(Pagination::Cursor {
            next: "response_metadata.next_cursor",
            param: "cursor",
        });
    let more = json!({"channels": [], "response_metadata": {"next_cursor": "dGVhbTpDMDYx"}});
    assert_eq!(
        next_page(&SLACK_LIST, &json!({"limit": 5}), &more),
        Some(json!({"limit": 5, "cursor": "dGVhbTpDMDYx"}))
    );
    let done = json!({"channels": [], "response_metadata": {"next_cursor": ""}});
    assert_eq!(next_page(&SLACK_LIST, &json!({}), &done), None);
    assert_eq!(
        next_page(&CUSTOMERS_ROUTE, &json!({}), &json!({"data": []})),
        None
    );
    assert_eq!(
        next_page(&FILE_ROUTE, &json!({}), &more),
        None,
        "no pagination declared"
    );
}

#[tokio::test]
async fn non_text_bodies_come_back_as_base64_and_text_as_text() {
    let png: Vec<u8> = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff];
    let png2 = png.clone();
    let server = Stub::start(move |r| match r.query.as_deref() {
        Some("kind=png") => Reply::status(200)
            .header("content-type", "image/png")
            .body(png2.clone()),
        Some("kind=text") => Reply::status(200)
            .header("content-type", "text/plain; charset=utf-8")
            .body("plain words"),
        Some("kind=unlabelled") => Reply::status(200).body(vec![0u8, 159, 146, 150]),
        Some("kind=empty") => Reply::status(204),
        _ => Reply::status(200)
            .header("content-type", "text/csv")
            .body("a,b\n1,2\n"),
    })
    .await;
    static KIND_FIELDS: ObjectShape = ObjectShape::of(&[field("kind", &STRING, Location::Query)]);
    static KIND: ToolDef = tool("open_file", &KIND_FIELDS, &FILE_ROUTE);
    let exec = executor(&server, &["open"]);

    let out = call(&exec, &KIND, json!({"kind": "png"})).await.unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"content_type": "image/png", "bytes": 10, "base64": "iVBORw0KGgoA/w=="}))
    );
    let out = call(&exec, &KIND, json!({"kind": "text"})).await.unwrap();
    assert_eq!((out.text.as_str(), out.structured), ("plain words", None));
    let out = call(&exec, &KIND, json!({"kind": "unlabelled"}))
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"content_type": "application/octet-stream", "bytes": 4, "base64": "AJ+Slg=="}))
    );
    let out = call(&exec, &KIND, json!({"kind": "empty"})).await.unwrap();
    assert_eq!(out.text, "HTTP 204: the API answered with an empty body.");
    let out = call(&exec, &KIND, json!({"kind": "csv"})).await.unwrap();
    assert_eq!(out.text, "a,b\n1,2\n");
}

#[tokio::test]
async fn responses_over_the_cap_are_refused_clearly() {
    let server = Stub::start(|r| {
        let reply = Reply::status(200)
            .header("content-type", "application/json")
            .body(format!("[{}]", "1,".repeat(2000) + "1"));
        if r.query.as_deref() == Some("kind=chunked") {
            reply.chunked()
        } else {
            reply
        }
    })
    .await;
    static KIND_FIELDS: ObjectShape = ObjectShape::of(&[field("kind", &STRING, Location::Query)]);
    static BIG: ToolDef = tool("open_file", &KIND_FIELDS, &FILE_ROUTE);
    let exec = HttpExecutor::builder()
        .no_proxy()
        .max_response_bytes(1024)
        .base_url("open", server.base.clone())
        .build()
        .unwrap();
    for kind in ["sized", "chunked"] {
        let err = call(&exec, &BIG, json!({"kind": kind})).await.unwrap_err();
        let CharterError::Transport(message) = &err else {
            panic!("{err:?}")
        };
        assert!(
            message.starts_with("GET /file: the response body ("),
            "{message}"
        );
        assert!(message.contains("exceeds the 1024-byte limit"), "{message}");
    }
}

// ---------------------------------------------------------------------------------------------
// Redirects.

#[tokio::test]
async fn a_same_origin_redirect_is_followed_with_the_credential() {
    let server = Stub::start(|r| match r.path.as_str() {
        "/start" => Reply::status(302).header("location", "/middle?x=1"),
        "/middle" => Reply::status(301).header("location", "/final"),
        _ => Reply::json(200, json!({"landed": true})),
    })
    .await;
    let exec = executor_with(
        &server,
        &["bearer"],
        StaticCredentials::new().with("BEARER_TOKEN", "same-origin"),
    );
    let out = call(&exec, &REDIRECT, json!({})).await.unwrap();
    assert_eq!(out.structured, Some(json!({"landed": true})));
    let log = server.requests();
    let hops: Vec<(&str, Option<&str>, Option<&str>)> = log
        .iter()
        .map(|r| {
            (
                r.path.as_str(),
                r.query.as_deref(),
                r.header("authorization"),
            )
        })
        .collect();
    assert_eq!(
        hops,
        [
            ("/start", None, Some("Bearer same-origin")),
            ("/middle", Some("x=1"), Some("Bearer same-origin")),
            ("/final", None, Some("Bearer same-origin")),
        ]
    );
}

#[tokio::test]
async fn a_cross_origin_redirect_loses_every_credential() {
    let elsewhere = Stub::start(|_| Reply::json(200, json!({"elsewhere": true}))).await;
    let target = format!("{}/landing", elsewhere.base);
    let origin = Stub::start(move |r| match r.path.as_str() {
        "/submit" => Reply::status(303).header("location", &target),
        _ => Reply::status(307).header("location", &target),
    })
    .await;
    let exec = executor_with(&origin, &["bearer", "apikey", "basic"], all_secrets());
    let ctx = CallContext::new()
        .with_header("Cookie", "session=abc")
        .with_header("X-Trace", "t");
    for tool in [&REDIRECT, &APIKEY_REDIRECT, &BASIC_REDIRECT] {
        let out = call_ctx(&exec, tool, json!({}), &ctx).await.unwrap();
        assert_eq!(out.structured, Some(json!({"elsewhere": true})));
    }
    // 303 after a POST continues as a GET without the body.
    call_ctx(&exec, &POST_REDIRECT, json!({"x": "payload"}), &ctx)
        .await
        .unwrap();

    let sent = origin.requests();
    assert_eq!(sent.len(), 4);
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {CANARY}").as_str())
    );
    assert_eq!(
        sent[1].header("x-api-key"),
        Some(format!("Token {CANARY}").as_str())
    );
    assert!(
        sent[2]
            .header("authorization")
            .unwrap()
            .starts_with("Basic ")
    );
    assert_eq!(sent[3].text(), r#"{"x":"payload"}"#);

    let landed = elsewhere.requests();
    assert_eq!(landed.len(), 4);
    for r in &landed {
        assert_eq!(r.path, "/landing");
        assert_eq!(r.header("authorization"), None, "{r:?}");
        assert_eq!(r.header("x-api-key"), None, "{r:?}");
        assert_eq!(r.header("cookie"), None, "{r:?}");
        assert_eq!(
            r.header("x-trace"),
            Some("t"),
            "other per-call headers stay"
        );
    }
    assert_eq!(
        (landed[3].method.as_str(), landed[3].body.as_slice()),
        ("GET", &b""[..])
    );
    assert_eq!(landed[3].header("content-type"), None);
}

#[tokio::test]
async fn redirects_are_not_followed_unless_declared() {
    let elsewhere = Stub::start(|_| Reply::json(200, json!({"should": "not arrive"}))).await;
    let target = format!("{}/landing?sig=secret-signature", elsewhere.base);
    let origin = Stub::start(move |_| Reply::status(302).header("location", &target)).await;
    let exec = executor_with(
        &origin,
        &["bearer"],
        StaticCredentials::new().with("BEARER_TOKEN", "t"),
    );
    let err = api_error(call(&exec, &NO_REDIRECT, json!({})).await);
    assert_eq!(err.status, 302);
    assert_eq!(
        err.body,
        format!(
            "redirect to {}/landing not followed: this tool declares no redirects",
            elsewhere.base
        )
    );
    assert!(!err.body.contains("secret-signature"));
    assert_eq!(origin.requests().len(), 1);
    assert!(elsewhere.requests().is_empty());

    // A declared limit is a limit.
    let looping = Stub::start(|_| Reply::status(302).header("location", "/start")).await;
    let exec = executor_with(
        &looping,
        &["bearer"],
        StaticCredentials::new().with("BEARER_TOKEN", "t"),
    );
    let err = api_error(call(&exec, &REDIRECT, json!({})).await);
    assert_eq!(err.status, 302);
    assert!(
        err.body.starts_with("more than 3 redirects"),
        "{}",
        err.body
    );
    assert_eq!(looping.requests().len(), 4);
}

// ---------------------------------------------------------------------------------------------
// Timeouts, base URL, transport.

#[tokio::test]
async fn a_slow_server_times_out_as_a_transport_error() {
    let server =
        Stub::start(|_| Reply::json(200, json!({"late": true})).delay(Duration::from_secs(5)))
            .await;
    let exec = executor_with(
        &server,
        &["bearer"],
        StaticCredentials::new().with("BEARER_TOKEN", "t"),
    );
    let err = call(&exec, &SLOW, json!({})).await.unwrap_err();
    assert_eq!(
        err,
        CharterError::Transport("GET /slow timed out after 200 ms".into())
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn the_base_url_can_be_overridden_through_the_api() {
    let server = Stub::start(ok_server()).await;
    let exec = HttpExecutor::builder().no_proxy().build().unwrap();
    assert_eq!(exec.base_url(&OPEN), "http://base-url.invalid");
    // `with_base_url` on a built executor; a path prefix in the base URL is kept.
    let exec = exec.with_base_url("open", format!("{}/api/v3/", server.base));
    assert_eq!(exec.base_url(&OPEN), format!("{}/api/v3/", server.base));
    call(&exec, &DELETE, json!({})).await.unwrap();
    assert_eq!(server.only().path, "/api/v3/things/1");
}

#[tokio::test]
async fn connection_failures_are_transport_errors_without_the_url() {
    // Bind then drop: nothing listens on this port any more.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let exec = HttpExecutor::builder()
        .no_proxy()
        .base_url("open", format!("http://127.0.0.1:{port}"))
        .build()
        .unwrap();
    let err = call(
        &exec,
        &CONTENTS,
        json!({"owner": "o", "repo": "r", "path": "p", "git_ref": "private-id"}),
    )
    .await
    .unwrap_err();
    let CharterError::Transport(message) = &err else {
        panic!("{err:?}")
    };
    assert!(
        message.starts_with("GET /repos/{owner}/{repo}/contents/{path}: cannot connect"),
        "{message}"
    );
    assert!(!message.contains("private-id"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// The canary: no credential reaches a log line, an error, an answer or a Debug output.

#[tokio::test]
async fn a_secret_canary_never_escapes() {
    let captured = capture_tracing();
    // Every server echoes back everything it received, headers included.
    let echo = |r: &Recorded, status: u16| {
        Reply::status(status)
            .header("content-type", "application/json")
            .header("retry-after", "3")
            .body(json!({"headers": r.headers, "path": r.path, "query": r.query}).to_string())
    };
    let elsewhere = Stub::start(move |r| echo(r, 200)).await;
    let target = format!("{}/landing", elsewhere.base);
    let server = Stub::start(move |r| match r.path.as_str() {
        "/user" => echo(r, 401),
        "/me" => echo(r, 429),
        "/v1/balance" => echo(r, 200),
        "/graphql" => Reply::json(
            200,
            json!({"errors": [{"message": "bad", "echo": r.headers}]}),
        ),
        "/chat.postMessage" => Reply::json(
            200,
            json!({"ok": false, "error": format!("{:?}", r.headers)}),
        ),
        "/slow" => Reply::status(200).delay(Duration::from_secs(5)),
        _ => Reply::status(307).header("location", &target),
    })
    .await;
    let provider = all_secrets();
    let exec = executor_with(
        &server,
        &["bearer", "apikey", "basic", "gql", "slack"],
        provider.clone(),
    );
    let ctx = CallContext::new().for_user("someone");

    let mut seen: Vec<String> = vec![
        format!("{exec:?}"),
        format!("{provider:?}"),
        format!("{:?}", Secret::from(CANARY)),
        Secret::from(CANARY).to_string(),
    ];
    let mut record = |result: Result<ToolOutput, CharterError>| match result {
        Ok(out) => seen.push(format!("{out:?} {}", out.text)),
        Err(e) => seen.push(format!("{e} {e:?}")),
    };
    record(call_ctx(&exec, &WHOAMI, json!({}), &ctx).await); // 401 echo
    record(call_ctx(&exec, &APIKEY_TOOL, json!({}), &ctx).await); // 429 echo
    record(call_ctx(&exec, &BASIC_TOOL, json!({}), &ctx).await); // 200 echo of the basic header
    record(call_ctx(&exec, &GQL_TOOL, json!({"login": "x"}), &ctx).await); // envelope
    record(
        call_ctx(
            &exec,
            &SLACK_TOOL,
            json!({"channel": "c", "text": "t"}),
            &ctx,
        )
        .await,
    ); // ok: false
    record(call_ctx(&exec, &REDIRECT, json!({}), &ctx).await); // cross-origin redirect
    record(call_ctx(&exec, &NO_REDIRECT, json!({}), &ctx).await); // undeclared redirect
    record(call_ctx(&exec, &SLOW, json!({}), &ctx).await); // timeout
    record(
        call_ctx(
            &exec,
            &CONTENTS,
            json!({"owner": "..", "repo": "r", "path": "p"}),
            &ctx,
        )
        .await,
    );
    let dead = HttpExecutor::builder()
        .no_proxy()
        .credentials(provider)
        .base_url("bearer", "http://127.0.0.1:9")
        .build()
        .unwrap();
    record(call_ctx(&dead, &WHOAMI, json!({}), &ctx).await); // connection refused
    seen.push(format!("{dead:?}"));

    // The canary did go out (to the origin only), so the test can fail.
    let sent: String = server
        .requests()
        .iter()
        .flat_map(|r| r.headers.iter().map(|(_, v)| v.clone()))
        .collect();
    assert!(sent.contains(CANARY), "the canary was sent");
    let landed: String = elsewhere
        .requests()
        .iter()
        .flat_map(|r| r.headers.iter().map(|(_, v)| v.clone()))
        .collect();
    assert!(!landed.contains(CANARY) && !landed.is_empty());

    use base64::Engine as _;
    let basic_b64 = base64::engine::general_purpose::STANDARD.encode(format!("{CANARY}:"));
    let logs = captured.text();
    for tool in [
        "bearer_whoami",
        "apikey_me",
        "basic_balance",
        "gql_user",
        "slack_post",
        "bearer_redirect",
        "bearer_slow",
    ] {
        assert!(
            logs.contains(&format!("tool=\"{tool}\"")),
            "the capture works: {tool}"
        );
    }
    for text in seen.iter().chain(std::iter::once(&logs)) {
        assert!(!text.contains(CANARY), "canary leaked: {text}");
        assert!(
            !text.contains(&basic_b64),
            "basic credential leaked: {text}"
        );
        assert!(
            !text.contains("sk_canary"),
            "part of the canary leaked: {text}"
        );
    }
    // The echoes were masked, not dropped.
    assert!(seen.iter().any(|t| t.contains("Bearer ***")), "{seen:#?}");
    assert!(seen.iter().any(|t| t.contains("Token ***")), "{seen:#?}");
    assert!(seen.iter().any(|t| t.contains("Basic ***")), "{seen:#?}");
}

#[test]
fn request_building_needs_no_network() {
    // The pure builder: what the bench measures.
    let req = http::build_request(
        &LIST,
        &LIST_ROUTE,
        "https://api.example/",
        &json!({"state": "open", "tags": ["a"]}),
        &CallContext::new(),
    )
    .unwrap();
    assert_eq!(req.method, axum::http::Method::GET);
    assert_eq!(req.url, "https://api.example/issues?state=open&tag[]=a");
    assert!(req.body.is_none());
    let err = http::build_request(
        &LIST,
        &LIST_ROUTE,
        "https://x",
        &json!([1]),
        &CallContext::new(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the arguments must be a JSON object, got an array"
    );
}

// ---------------------------------------------------------------------------------------------
// Tool constants (an operation told apart by a fixed header or query value) and a base URL
// left to run time.

static AWS: HttpPack = pack("aws", Auth::None)
    .with_headers(&[("Accept", "application/x-amz-json-1.0")])
    .with_query(&[("api", "pack")]);
static AWS_FIELDS: ObjectShape = ObjectShape::of(&[
    wired("action", "Action", &STRING, Location::Query),
    wired("target", "X-Amz-Target", &STRING, Location::Header),
    field("TableName", &STRING, Location::Body),
]);
static AWS_ROUTE: Route = route(&AWS, Method::Post, "/")
    .with_body(BodyEncoding::Json)
    .with_headers(&[("X-Amz-Target", "DynamoDB_20120810.GetItem")])
    .with_query(&[
        ("Action", "GetItem"),
        ("Version", "2012-08-10"),
        ("api", "tool"),
        ("uploads", ""),
    ]);
static AWS_TOOL: ToolDef = tool("aws_get_item", &AWS_FIELDS, &AWS_ROUTE);

#[tokio::test]
async fn tool_constants_are_sent_after_the_packs_and_replace_them() {
    let server = Stub::start(ok_server()).await;
    let exec = executor(&server, &["aws"]);
    call(
        &exec,
        &AWS_TOOL,
        json!({"TableName": "t", "action": "DeleteTable", "target": "DynamoDB_20120810.DeleteTable"}),
    )
    .await
    .unwrap();
    let r = server.only();
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/");
    // The pack's `api=pack` is replaced by the tool's; the model's `Action` is never written.
    assert_eq!(
        r.query.as_deref(),
        Some("Action=GetItem&Version=2012-08-10&api=tool&uploads=")
    );
    assert_eq!(r.text(), r#"{"TableName":"t"}"#);
    assert_eq!(
        r.headers_sorted(),
        vec![
            ("accept", "application/x-amz-json-1.0"),
            ("content-length", "17"),
            ("content-type", "application/json"),
            ("user-agent", concat!("charter/", env!("CARGO_PKG_VERSION"))),
            ("x-amz-target", "DynamoDB_20120810.GetItem"),
        ]
    );
}

static RUNTIME_URL: HttpPack =
    HttpPack::new("runtimeurl", "", "CHARTER_RUNTIMEURL_BASE_URL", Auth::None);
static RUNTIME_URL_ROUTE: Route = route(&RUNTIME_URL, Method::Get, "/things");
static RUNTIME_URL_TOOL: ToolDef = tool("runtimeurl_list", &NO_FIELDS, &RUNTIME_URL_ROUTE);

#[tokio::test]
async fn a_base_url_left_to_run_time_is_required_by_name() {
    let server = Stub::start(ok_server()).await;
    // No variable, no override: the error names the variable to set.
    let exec = executor(&server, &[]);
    let e = call(&exec, &RUNTIME_URL_TOOL, json!({})).await.unwrap_err();
    assert!(matches!(e, CharterError::Declaration(_)), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("CHARTER_RUNTIMEURL_BASE_URL") && text.contains("runtimeurl"),
        "{text}"
    );
    assert!(server.requests().is_empty());
    // Given through the API, the call goes there.
    let exec = executor(&server, &["runtimeurl"]);
    call(&exec, &RUNTIME_URL_TOOL, json!({})).await.unwrap();
    assert_eq!(server.only().path, "/things");
}

// ---------------------------------------------------------------------------------------------
// Connection reuse.

/// An API on 127.0.0.1 that counts its open connections and answers nobody until `burst`
/// requests are in, so a burst of calls holds that many connections at once.
async fn counting_api(burst: usize) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let open = Arc::new(AtomicUsize::new(0));
    let arrived = Arc::new(AtomicUsize::new(0));
    let counted = open.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let (open, arrived) = (counted.clone(), arrived.clone());
            open.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                loop {
                    // One request: a DELETE without a body ends at its blank line.
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => {
                                open.fetch_sub(1, Ordering::SeqCst);
                                return;
                            }
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    buf.clear();
                    arrived.fetch_add(1, Ordering::SeqCst);
                    while arrived.load(Ordering::SeqCst) < burst {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                    let reply = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                                 content-length: 11\r\n\r\n{\"ok\":true}";
                    if socket.write_all(reply.as_bytes()).await.is_err() {
                        open.fetch_sub(1, Ordering::SeqCst);
                        return;
                    }
                }
            });
        }
    });
    (base, open)
}

/// Waits (up to 5 s) for the API's open connections to settle at or under `at_most`, and
/// answers how many are open.
async fn settled(open: &std::sync::atomic::AtomicUsize, at_most: usize) -> usize {
    use std::sync::atomic::Ordering;
    for _ in 0..100 {
        if open.load(Ordering::SeqCst) <= at_most {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    open.load(Ordering::SeqCst)
}

/// `calls` concurrent calls, each on its own connection, through an executor `configure` set
/// up: the executor (its pool lives as long) and the API's count of open connections.
async fn burst(
    calls: usize,
    configure: impl FnOnce(http::HttpExecutorBuilder) -> http::HttpExecutorBuilder,
) -> (HttpExecutor, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let (base, open) = counting_api(calls).await;
    let exec = configure(HttpExecutor::builder().no_proxy().base_url("open", base))
        .build()
        .unwrap();
    let sent = (0..calls).map(|_| call(&exec, &DELETE, json!({})));
    for result in futures::future::join_all(sent).await {
        result.unwrap();
    }
    (exec, open)
}

#[tokio::test]
async fn after_a_burst_only_the_idle_limit_of_connections_stays_open() {
    const BURST: usize = 20;
    for (limit, kept) in [(Some(3), 3), (None, BURST)] {
        let (_exec, open) = burst(BURST, |builder| match limit {
            Some(limit) => builder.max_idle_per_host(limit),
            None => builder,
        })
        .await;
        // Every call had its own connection; the idle limit decides how many stay.
        assert_eq!(
            settled(&open, kept).await,
            kept,
            "limit {limit:?} (default {})",
            http::DEFAULT_MAX_IDLE_PER_HOST
        );
    }
}

#[tokio::test]
async fn idle_connections_close_after_the_idle_timeout() {
    const BURST: usize = 4;
    for (idle, kept) in [(Some(Duration::from_millis(200)), 0), (None, BURST)] {
        let (_exec, open) = burst(BURST, |builder| match idle {
            Some(idle) => builder.idle_timeout(idle),
            None => builder,
        })
        .await;
        // A connection closes within twice the idle timeout of its last call; the default
        // (30 s) keeps all of them this long.
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(
            settled(&open, kept).await,
            kept,
            "idle timeout {idle:?} (default {:?})",
            http::DEFAULT_IDLE_TIMEOUT
        );
    }
}
