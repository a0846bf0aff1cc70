//! docs/design.md §5 and §6: mode views, pins, from-context fields, HTTP routing and the egress map.

use crate::common;

use std::sync::{Arc, Mutex};

use charter_runtime::session::{HttpCaller, SessionOptions, Source, ToolSession};
use charter_runtime::table::{BoxFuture, Route};
use charter_runtime::{CallContext, CharterError, ToolDef, ToolOutput, egress_map, text_tokens};
use charter_testkit as testing;
use common::*;
use serde_json::{Value, json};

fn schema_of(s: &ToolSession, name: &str) -> Value {
    let all = s.all();
    let entry = all.iter().find(|e| e.name == name).expect("tool");
    assert_eq!(
        entry.tokens,
        text_tokens(entry.schema),
        "tokens measure the text on the wire"
    );
    serde_json::from_str(entry.schema).expect("schema is JSON")
}

fn props(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn no_mode_is_the_widest_view() {
    let s = session(&[tracker()], options(false, 0, None));
    let list = schema_of(&s, "tracker_issues_list");
    assert_eq!(
        props(&list),
        ["project", "state", "per_page", "internal_score", "region"]
    );
    let create = schema_of(&s, "tracker_issues_create");
    let create_props = props(&create);
    assert!(create_props.contains(&"priority".to_owned()));
    assert!(
        !create_props.contains(&"server_id".to_owned()),
        "response_only is never shown"
    );
    assert!(
        !create_props.contains(&"customer_id".to_owned()),
        "from-context is never shown"
    );
    assert!(
        create["properties"]["assignee"]["properties"]
            .get("legacy_flag")
            .is_none(),
        "disabled never shown"
    );
    // Every labelled field is settable.
    let out = call(
        &s,
        "tracker_issues_list",
        json!({"project": "A", "internal_score": 0.5, "region": "eu-1"}),
    );
    assert!(out.is_ok(), "{out:?}");
}

#[test]
fn a_label_adds_only_its_fields() {
    let s = session(&[tracker()], options(false, 0, Some("pro")));
    assert_eq!(s.mode(), Some("pro"));
    assert_eq!(
        props(&schema_of(&s, "tracker_issues_list")),
        ["project", "state", "per_page", "internal_score"]
    );
    assert!(
        call(
            &s,
            "tracker_issues_list",
            json!({"project": "A", "internal_score": 0.5})
        )
        .is_ok()
    );
    let m = validation_message(call(
        &s,
        "tracker_issues_list",
        json!({"project": "A", "region": "eu-1"}),
    ));
    assert!(m.contains("/region: expected no `region`"), "{m}");
    // The same label on every tool: issues_create gains priority under pro.
    assert!(props(&schema_of(&s, "tracker_issues_create")).contains(&"priority".to_owned()));
    // Unlabelled tools are unchanged.
    assert_eq!(
        schema_of(&s, "tracker_issues_delete"),
        serde_json::from_str::<Value>(tracker().tools[2].views[0].schema).unwrap()
    );

    let eu = session(&[tracker()], options(false, 0, Some("eu")));
    assert_eq!(
        props(&schema_of(&eu, "tracker_issues_list")),
        ["project", "state", "per_page", "region"]
    );
}

#[test]
fn an_unknown_label_fails_closed_and_withheld_fields_are_refused() {
    let s = session(&[tracker()], options(false, 0, Some("gold")));
    assert_eq!(
        props(&schema_of(&s, "tracker_issues_list")),
        ["project", "state", "per_page"]
    );
    let m = validation_message(call(
        &s,
        "tracker_issues_list",
        json!({"project": "A", "internal_score": 0.5, "region": "eu-1"}),
    ));
    assert!(m.contains("2 problems"), "{m}");
    assert!(m.contains("/internal_score: expected no `internal_score`: unknown field; this object takes only project, state, per_page"), "{m}");
    assert!(m.contains("/region"), "{m}");
}

#[test]
fn the_mode_resolves_once_and_partitions_on_the_resolved_sizes() {
    let widest = tracker().tools[0].views[0].tokens;
    let gold = tracker().tools[0].views[1].tokens;
    assert!(gold < widest);
    // A threshold between the two sizes: resident only under the narrower view.
    let s = session(&[tracker()], options(true, gold, Some("gold")));
    assert!(s.is_callable("tracker_issues_list"));
    let s = session(&[tracker()], options(true, gold, None));
    assert!(!s.is_callable("tracker_issues_list"));
}

#[test]
fn an_empty_label_is_refused() {
    for label in ["", " "] {
        let err = ToolSession::with_options(
            vec![Source::Table(tracker())],
            options(true, 0, Some(label)),
        )
        .unwrap_err();
        assert!(err.message.contains("empty label"), "{err}");
    }
}

fn strict() -> &'static charter_runtime::Table {
    testing::table(json!({
        "pack": "strict",
        "tools": [{
            "name": "orders_create",
            "description": "Create an order.",
            "params": {
                "sku": {"type": "string", "required": true, "modes": ["pro"], "description": "Only pro sees it."},
                "line": {"type": "object", "description": "A line.", "properties": {
                    "qty": {"type": "integer", "required": true, "modes": ["wholesale"], "description": "Quantity."}
                }}
            }
        }]
    }))
}

#[test]
fn a_label_that_withholds_a_required_field_is_refused_at_build() {
    let t = strict();
    let err = ToolSession::with_options(vec![Source::Table(t)], options(true, 0, Some("free")))
        .unwrap_err();
    assert!(
        err.message.contains("withholds the required field `sku`"),
        "{err}"
    );
    assert!(err.message.contains("strict_orders_create"), "{err}");
    // Nested: under "pro", `line.qty` (wholesale only) is withheld inside a visible object.
    let err = ToolSession::with_options(vec![Source::Table(t)], options(true, 0, Some("pro")))
        .unwrap_err();
    assert!(err.message.contains("`line.qty`"), "{err}");
    // The widest view shows both.
    assert!(ToolSession::with_options(vec![Source::Table(t)], options(true, 0, None)).is_ok());
}

#[test]
fn pins_leave_the_view_reach_the_call_and_are_refused_from_the_model() {
    let mut s = session(&[tracker()], options(false, 0, None));
    let g = s.generation();
    s.pin("tracker_issues_list", "project", json!("CORE"))
        .unwrap();
    s.pin("tracker_issues_list", "per_page", json!(50)).unwrap();
    assert!(s.generation() > g);
    let schema = schema_of(&s, "tracker_issues_list");
    assert_eq!(props(&schema), ["state", "internal_score", "region"]);
    assert!(
        schema.get("required").is_none(),
        "the only required field was pinned: {schema}"
    );
    let full = tracker().tools[0].views[0].tokens;
    let all = s.all();
    assert!(all[0].tokens < full);

    let out = call(&s, "tracker_issues_list", json!({"state": "open"})).unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"state": "open", "project": "CORE", "per_page": 50}))
    );

    let m = validation_message(call(
        &s,
        "tracker_issues_list",
        json!({"project": "OTHER", "per_page": 1}),
    ));
    assert!(
        m.contains("/project: expected no `project`: the deployment fixes it"),
        "{m}"
    );
    assert!(m.contains("/per_page"), "{m}");
}

#[test]
fn pins_are_refused_when_they_cannot_hold() {
    let mut s = session(&[tracker()], options(false, 0, Some("free")));
    let msg = |r: Result<(), charter_runtime::DeclarationError>| r.unwrap_err().message;
    let m = msg(s.pin("tracker_issues_list", "nope", json!(1)));
    assert!(
        m.contains("no top-level field `nope`") && m.contains("project, state"),
        "{m}"
    );
    let m = msg(s.pin("tracker_issues_create", "assignee.login", json!("ada")));
    assert!(m.contains("not a top-level field"), "{m}");
    let m = msg(s.pin("tracker_issues_list", "internal_score", json!(1.0)));
    assert!(m.contains("withheld") && m.contains("mode"), "{m}");
    let m = msg(s.pin("tracker_issues_create", "server_id", json!("x")));
    assert!(m.contains("response-only"), "{m}");
    let m = msg(s.pin("tracker_issues_create", "customer_id", json!("x")));
    assert!(m.contains("from-context"), "{m}");
    let m = msg(s.pin("tracker_issues_list", "per_page", json!(1000)));
    assert!(
        m.contains("/per_page: expected a number <= 100, got number 1000"),
        "{m}"
    );
    let m = msg(s.pin("tracker_nope", "x", json!(1)));
    assert!(m.contains("no tool named"), "{m}");
    s.pin("tracker_issues_list", "state", json!("all")).unwrap();
    let m = msg(s.pin("tracker_issues_list", "state", json!("open")));
    assert!(m.contains("already pinned"), "{m}");
    let m = msg(s.from_context("tracker_issues_list", "state", "k"));
    assert!(m.contains("already pinned"), "{m}");
    // A pinned object given as JSON text is stored parsed.
    s.pin(
        "tracker_issues_create",
        "assignee",
        json!("{\"login\":\"ada\"}"),
    )
    .unwrap();
    search_free_call_echo(&s);
}

fn search_free_call_echo(s: &ToolSession) {
    let ctx = CallContext::new().with_value("customer_id", json!("cus_1"));
    let out = call_with(
        s,
        "tracker_issues_create",
        json!({"project": "A", "title": "t"}),
        &ctx,
    )
    .unwrap();
    assert_eq!(out.structured.unwrap()["assignee"], json!({"login": "ada"}));
}

#[test]
fn from_context_fields_are_filled_per_call_and_refused_from_the_model() {
    let mut s = session(&[tracker()], options(false, 0, None));
    s.from_context("tracker_issues_create", "project", "project_key")
        .unwrap();
    let schema = schema_of(&s, "tracker_issues_create");
    assert!(!props(&schema).contains(&"project".to_owned()));
    assert_eq!(schema["required"], json!(["title"]));

    let alice = CallContext::new()
        .for_user("alice")
        .with_value("customer_id", json!("cus_A"))
        .with_value("project_key", json!("CORE"));
    let bob = CallContext::new()
        .for_user("bob")
        .with_value("customer_id", json!("cus_B"))
        .with_value("project_key", json!("WEB"));
    let a = call_with(&s, "tracker_issues_create", json!({"title": "t"}), &alice)
        .unwrap()
        .structured
        .unwrap();
    let b = call_with(&s, "tracker_issues_create", json!({"title": "t"}), &bob)
        .unwrap()
        .structured
        .unwrap();
    assert_eq!(
        (a["customer_id"].clone(), a["project"].clone()),
        (json!("cus_A"), json!("CORE"))
    );
    assert_eq!(
        (b["customer_id"].clone(), b["project"].clone()),
        (json!("cus_B"), json!("WEB"))
    );

    let m = validation_message(call_with(
        &s,
        "tracker_issues_create",
        json!({"title": "t", "customer_id": "cus_EVIL", "project": "X"}),
        &alice,
    ));
    assert!(
        m.contains("/customer_id: expected no `customer_id`: the host fills it"),
        "{m}"
    );
    assert!(
        m.contains("/project: expected no `project`: the host fills it"),
        "{m}"
    );

    // A missing context value is the developer's error, naming the key; never a panic.
    let err = call_with(
        &s,
        "tracker_issues_create",
        json!({"title": "t"}),
        &CallContext::new().with_value("customer_id", json!("c")),
    )
    .unwrap_err();
    match err {
        CharterError::Declaration(d) => assert!(d.message.contains("`project_key`"), "{d}"),
        other => panic!("{other:?}"),
    }
    // An optional table-declared from-context field without a value is simply not sent.
    let mut plain = session(&[tracker()], options(false, 0, None));
    plain
        .pin("tracker_issues_create", "project", json!("P"))
        .unwrap();
    let out = call(&plain, "tracker_issues_create", json!({"title": "t"}))
        .unwrap()
        .structured
        .unwrap();
    assert_eq!(out, json!({"title": "t", "project": "P"}));
}

#[test]
fn from_context_declarations_are_checked() {
    let mut s = session(&[tracker()], options(false, 0, Some("free")));
    assert!(
        s.from_context("tracker_issues_create", "title", " ")
            .unwrap_err()
            .message
            .contains("empty context key")
    );
    assert!(
        s.from_context("tracker_issues_list", "region", "r")
            .unwrap_err()
            .message
            .contains("withheld")
    );
    s.from_context("tracker_issues_create", "title", "t")
        .unwrap();
    assert!(
        s.pin("tracker_issues_create", "title", json!("x"))
            .unwrap_err()
            .message
            .contains("already filled from context")
    );
}

#[test]
fn a_required_from_context_field_in_the_table_must_have_its_value() {
    let t = testing::table(json!({
        "pack": "ctx",
        "tools": [{"name": "who", "description": "Who am I.", "params": {
            "tenant": {"type": "string", "required": true, "from_context": "tenant", "description": "Tenant."},
            "filter": {"type": "object", "description": "Nested.", "properties": {
                "owner": {"type": "string", "from_context": "owner", "description": "Owner."},
                "q": {"type": "string", "description": "Query."}
            }}
        }}]
    }));
    let s = session(&[t], options(false, 0, None));
    let err = call(&s, "ctx_who", json!({})).unwrap_err();
    assert!(
        matches!(&err, CharterError::Declaration(d) if d.message.contains("`tenant`")),
        "{err:?}"
    );
    let ctx = CallContext::new()
        .with_value("tenant", json!("t1"))
        .with_value("owner", json!("o1"));
    let out = call_with(&s, "ctx_who", json!({"filter": {"q": "x"}}), &ctx)
        .unwrap()
        .structured
        .unwrap();
    assert_eq!(
        out,
        json!({"filter": {"q": "x", "owner": "o1"}, "tenant": "t1"}),
        "nested from-context filled too"
    );
    let m = validation_message(call_with(
        &s,
        "ctx_who",
        json!({"filter": {"owner": "me"}}),
        &ctx,
    ));
    assert!(
        m.contains("/filter/owner: expected no `owner`: the host fills it"),
        "{m}"
    );
}

// ---------------------------------------------------------------------------------------------
// HTTP tools.

/// What the executor received: tool, URL template, arguments, end user.
type SentCall = (String, String, Value, Option<String>);

#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<SentCall>>,
}

impl HttpCaller for Recorder {
    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        route: &'static Route,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            self.calls.lock().unwrap().push((
                tool.name.to_owned(),
                route.path.to_owned(),
                arguments,
                ctx.user.clone(),
            ));
            Ok(ToolOutput::text("sent"))
        })
    }
}

fn http_table() -> &'static charter_runtime::Table {
    testing::table(json!({
        "pack": "web",
        "tools": [{"name": "items_get", "description": "Get an item.", "http": {"method": "GET", "path": "/items/{id}"},
                   "params": {"id": {"in": "path", "type": "string", "required": true, "description": "Id."},
                              "org": {"in": "query", "type": "string", "required": true, "description": "Org."}}}]
    }))
}

#[test]
fn http_tools_go_to_the_configured_executor_with_pins_merged() {
    let recorder = Arc::new(Recorder::default());
    let mut s = ToolSession::with_options(
        vec![Source::Table(http_table())],
        SessionOptions::new()
            .with_disclosure(charter_runtime::Disclosure::Eager)
            .with_http(recorder.clone()),
    )
    .unwrap();
    s.pin("web_items_get", "org", json!("acme")).unwrap();
    let out = call_with(
        &s,
        "web_items_get",
        json!({"id": "7"}),
        &CallContext::new().for_user("u1"),
    )
    .unwrap();
    assert_eq!(out.text, "sent");
    let calls = recorder.calls.lock().unwrap();
    assert_eq!(
        calls.as_slice(),
        [(
            "web_items_get".to_owned(),
            "/items/{id}".to_owned(),
            json!({"id": "7", "org": "acme"}),
            Some("u1".to_owned())
        )]
    );
}

#[test]
fn http_tools_go_through_the_default_executor() {
    // No executor in the options: the shared default sends the request, and nothing listens
    // on 127.0.0.1:9, so the call fails as a transport error (not a panic, not a validation).
    let s = session(&[http_table()], options(false, 0, None));
    match call(&s, "web_items_get", json!({"id": "7", "org": "o"})) {
        Err(CharterError::Transport(_)) | Err(CharterError::Credential(_)) => {}
        other => panic!("{other:?}"),
    }
    // Validation still comes first.
    assert!(
        call(&s, "web_items_get", json!({}))
            .unwrap_err()
            .is_validation()
    );
}

// ---------------------------------------------------------------------------------------------
// The egress map.

#[test]
fn egress_map_lists_visible_and_withheld_paths_with_reasons() {
    let mut s = session(&[tracker()], options(true, 0, Some("pro")));
    s.pin("tracker_issues_list", "state", json!("open"))
        .unwrap();
    s.from_context("tracker_issues_create", "project", "project_key")
        .unwrap();
    let map = egress_map(&s);
    let json = map.to_json();
    assert_eq!(json["mode"], "pro");
    let tools = json["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "sorted by name");
    let list = tools
        .iter()
        .find(|t| t["name"] == "tracker_issues_list")
        .unwrap();
    assert_eq!(list["view"], "label:pro");
    assert_eq!(list["deferred"], true);
    assert_eq!(
        list["visible"],
        json!(["internal_score", "per_page", "project"])
    );
    assert_eq!(
        list["withheld"],
        json!([
            {"path": "region", "reason": "mode", "labels": ["eu"]},
            {"path": "state", "reason": "pinned"}
        ])
    );
    let create = tools
        .iter()
        .find(|t| t["name"] == "tracker_issues_create")
        .unwrap();
    let visible: Vec<&str> = create["visible"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        visible.contains(&"assignee.login")
            && visible.contains(&"assignee.notify")
            && visible.contains(&"priority")
    );
    assert!(!visible.contains(&"project"));
    let withheld = &create["withheld"];
    assert!(
        withheld
            .as_array()
            .unwrap()
            .contains(&json!({"path": "assignee.legacy_flag", "reason": "disabled"}))
    );
    assert!(
        withheld.as_array().unwrap().contains(
            &json!({"path": "customer_id", "reason": "from-context", "key": "customer_id"})
        )
    );
    assert!(
        withheld
            .as_array()
            .unwrap()
            .contains(&json!({"path": "project", "reason": "from-context", "key": "project_key"}))
    );
    assert!(
        withheld
            .as_array()
            .unwrap()
            .contains(&json!({"path": "server_id", "reason": "response-only"}))
    );

    let text = map.to_text();
    assert!(
        text.starts_with("# egress map: 5 tools, mode `pro`\n"),
        "{text}"
    );
    assert!(text.contains("\ntracker_issues_list [label:pro, deferred]\n  + internal_score\n  + per_page\n  + project\n  - region  (mode: shown only under eu)\n  - state  (pinned)\n"), "{text}");
    assert!(
        text.contains("  - customer_id  (from-context: filled by the host from `customer_id`)\n"),
        "{text}"
    );
    // Stable: the same deployment renders the same report.
    assert_eq!(egress_map(&s).to_text(), text);
    // Diffable: another mode changes exactly the mode lines.
    let eu = session(&[tracker()], options(true, 0, Some("eu")));
    let eu_text = egress_map(&eu).to_text();
    assert!(
        eu_text.contains("  + region\n")
            && eu_text.contains("  - internal_score  (mode: shown only under pro)\n"),
        "{eu_text}"
    );
}
