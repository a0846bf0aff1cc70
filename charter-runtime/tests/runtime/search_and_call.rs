//! Search-and-call sessions (`SessionOptions::search_and_call`): a list that never changes,
//! ToolSearch answering with schemas, and `CallTool` running tools exactly as direct calls.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use charter_runtime::scheduler::ToolCall;
use charter_runtime::session::{
    CALL_TOOL, NAMES_BUDGET_TOKENS, SessionOptions, Source, TOOL_SEARCH, ToolSession,
};
use charter_runtime::table::BoxFuture;
use charter_runtime::{CallContext, CharterError, Table, ToolOutput};
use charter_testkit as testing;
use serde_json::{Value, json};

static READS: AtomicUsize = AtomicUsize::new(0);

fn read<'a>(args: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        READS.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(ToolOutput::json(json!({"read": args["key"]})))
    })
}

fn crm() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table_with(
            json!({
                "pack": "crm",
                "description": "A small CRM.",
                "tools": [
                    {"name": "contacts_create", "description": "Create a contact.",
                     "params": {
                        "name": {"type": "string", "required": true, "description": "Full name."},
                        "owner": {"type": "string", "description": "Owner id."},
                        "account": {"type": "string", "description": "Account id."},
                        "tier": {"type": "string", "modes": ["pro"], "description": "Pro only."}}},
                    {"name": "contacts_list", "description": "List contacts.",
                     "annotations": {"read_only": true, "idempotent": true},
                     "params": {"limit": {"type": "integer", "minimum": 1, "description": "How many."}}},
                    {"name": "notes_read", "description": "Read a note.", "handler": "read",
                     "annotations": {"read_only": true, "idempotent": true},
                     "params": {"key": {"type": "string", "required": true, "description": "The note key."}}}
                ]
            }),
            &[("read", read)],
        )
    })
}

fn session(search_and_call: bool, mode: Option<&str>) -> ToolSession {
    let mut options = SessionOptions::new().with_disclosure(if search_and_call {
        charter_runtime::Disclosure::SearchAndCall
    } else {
        charter_runtime::Disclosure::ListChanged
    });
    if let Some(mode) = mode {
        options = options.with_mode(mode);
    }
    let mut session = ToolSession::with_options(vec![Source::Table(crm())], options).unwrap();
    session
        .pin("crm_contacts_create", "owner", json!("u_1"))
        .unwrap();
    session
        .from_context("crm_contacts_create", "account", "account")
        .unwrap();
    session
}

fn names(session: &ToolSession) -> Vec<&str> {
    session.visible().iter().map(|t| t.name).collect()
}

fn ctx() -> CallContext {
    CallContext::new().with_value("account", json!("acc_9"))
}

#[tokio::test]
async fn the_list_is_toolsearch_and_calltool_and_searching_loads_nothing() {
    let session = session(true, None);
    assert!(session.is_search_and_call());
    assert_eq!(names(&session), [TOOL_SEARCH, CALL_TOOL]);
    let before = session.generation();
    let out = session
        .dispatch(TOOL_SEARCH, json!({"query": "create contact"}), &ctx())
        .await
        .unwrap();
    assert_eq!(names(&session), [TOOL_SEARCH, CALL_TOOL]);
    assert_eq!(session.generation(), before, "nothing loaded");
    assert!(session.loaded().is_empty());
    // The found tool's schema is the view's precomputed text, pins and context fields removed.
    let shown = session
        .all()
        .into_iter()
        .find(|t| t.name == "crm_contacts_create")
        .unwrap();
    assert!(
        out.text
            .contains(&format!(r#""inputSchema":{}"#, shown.schema)),
        "{}",
        out.text
    );
    let found: Value = serde_json::from_str(&out.text).unwrap();
    assert_eq!(found["tools"][0]["name"], "crm_contacts_create");
    assert_eq!(found["tools"][0]["description"], "Create a contact.");
    let properties = found["tools"][0]["inputSchema"]["properties"]
        .as_object()
        .unwrap();
    assert!(properties.contains_key("name"));
    assert!(!properties.contains_key("owner") && !properties.contains_key("account"));
    assert!(found["note"].as_str().unwrap().contains(CALL_TOOL));
}

#[tokio::test]
async fn call_tool_runs_a_tool_never_searched_with_pins_and_context() {
    let session = session(true, None);
    let out = session
        .dispatch(
            CALL_TOOL,
            json!({"name": "crm_contacts_create", "arguments": {"name": "Ada"}}),
            &ctx(),
        )
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"name": "Ada", "owner": "u_1", "account": "acc_9"}))
    );
    // Arguments sent as JSON text are read as the object they spell.
    let out = session
        .dispatch(
            CALL_TOOL,
            json!({"name": "crm_contacts_list", "arguments": "{\"limit\": 2}"}),
            &ctx(),
        )
        .await
        .unwrap();
    assert_eq!(out.structured, Some(json!({"limit": 2})));
}

#[tokio::test]
async fn bad_arguments_get_the_direct_call_message() {
    let through = session(true, Some("free"));
    let direct = ToolSession::with_options(
        vec![Source::Table(crm())],
        SessionOptions::new()
            .with_disclosure(charter_runtime::Disclosure::Eager)
            .with_mode("free"),
    )
    .unwrap();
    let mut direct = direct;
    direct
        .pin("crm_contacts_create", "owner", json!("u_1"))
        .unwrap();
    direct
        .from_context("crm_contacts_create", "account", "account")
        .unwrap();
    for bad in [
        json!({"name": 5}),
        json!({"name": "Ada", "owner": "u_2"}),
        json!({"name": "Ada", "tier": "gold"}),
        json!({}),
    ] {
        let a = through
            .dispatch(
                CALL_TOOL,
                json!({"name": "crm_contacts_create", "arguments": bad.clone()}),
                &ctx(),
            )
            .await
            .unwrap_err();
        let b = direct
            .dispatch("crm_contacts_create", bad.clone(), &ctx())
            .await
            .unwrap_err();
        assert_eq!(a.to_string(), b.to_string(), "{bad}");
        assert!(matches!(a, CharterError::Validation(_)), "{a}");
    }
}

#[tokio::test]
async fn an_unknown_name_gets_the_closest_names() {
    let session = session(true, None);
    let err = session
        .dispatch(CALL_TOOL, json!({"name": "crm_contact_list"}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("Unknown tool `crm_contact_list`. Closest names: crm_contacts_list"),
        "{err}"
    );
    assert_eq!(
        session.closest_names("crm_contacts_creat", 1),
        ["crm_contacts_create"]
    );
    assert!(session.closest_names("zzzz", 3).is_empty());
}

#[tokio::test]
async fn malformed_call_tool_requests_are_refused_with_every_problem() {
    let session = session(true, None);
    for (arguments, says) in [
        (
            json!({"name": "crm_contacts_list", "calls": []}),
            "not both",
        ),
        (json!({"calls": []}), "non-empty array"),
        (json!({"calls": "x"}), "non-empty array"),
        (json!({"name": 3}), "/name"),
        (json!({}), "/name"),
        (
            json!({"name": "crm_contacts_list", "arguments": [1]}),
            "/arguments",
        ),
        (json!({"name": "crm_contacts_list", "args": {}}), "/args"),
        (
            json!({"calls": [{"name": "crm_contacts_list", "x": 1}, 7]}),
            "/calls/1",
        ),
        (json!([1]), "an object"),
    ] {
        let err = session
            .dispatch(CALL_TOOL, arguments.clone(), &ctx())
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{arguments}: {err}");
        assert!(err.contains(CALL_TOOL), "{err}");
    }
    let nested = session
        .dispatch(CALL_TOOL, json!({"name": CALL_TOOL}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(nested.contains("called directly"), "{nested}");
}

#[tokio::test]
async fn a_batch_is_one_scheduler_batch_with_dedup_and_order() {
    let session = session(true, None);
    READS.store(0, Ordering::SeqCst);
    let out = session
        .dispatch(
            CALL_TOOL,
            json!({"calls": [
                {"name": "crm_notes_read", "arguments": {"key": "a"}},
                {"name": "crm_notes_read", "arguments": {"key": "b"}},
                {"name": "crm_notes_read", "arguments": {"key": "a"}},
                {"name": "crm_contacts_list", "arguments": {"limit": 0}}
            ]}),
            &ctx(),
        )
        .await
        .unwrap();
    let results = out.structured.unwrap()["results"].clone();
    assert_eq!(results[0]["output"], json!({"read": "a"}));
    assert_eq!(results[1]["output"], json!({"read": "b"}));
    assert_eq!(results[2], results[0]);
    assert_eq!(results[3]["isError"], true);
    assert!(results[3]["output"].as_str().unwrap().contains("/limit"));
    assert_eq!(READS.load(Ordering::SeqCst), 2, "the duplicate ran once");

    // Two identical CallTool calls of one turn: read-only tools, so deduplicated too.
    READS.store(0, Ordering::SeqCst);
    let call = |id: &str| ToolCall {
        id: id.into(),
        name: CALL_TOOL.into(),
        arguments: json!({"name": "crm_notes_read", "arguments": {"key": "z"}}),
    };
    let results = session
        .execute_tool_calls(&[call("1"), call("2")], &ctx(), 4)
        .await;
    assert_eq!(results[0].id, "1");
    assert_eq!(results[1].id, "2");
    assert_eq!(results[0].content, results[1].content);
    assert_eq!(READS.load(Ordering::SeqCst), 1);
}

#[test]
fn a_list_changed_or_plain_session_offers_no_call_tool() {
    let list_changed = session(false, None);
    assert_eq!(names(&list_changed), [TOOL_SEARCH]);
    assert!(list_changed.call_tool().is_none());
    let plain = ToolSession::with_options(
        vec![Source::Table(crm())],
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap();
    assert!(!plain.is_search_and_call());
    assert!(!names(&plain).contains(&CALL_TOOL));
}

#[test]
fn the_catalogue_lists_names_while_they_are_few_then_packs() {
    let small = session(false, None);
    let description = small.tool_search().unwrap().description;
    assert!(description.ends_with("crm_contacts_create\ncrm_contacts_list\ncrm_notes_read"));

    let tables = testing::synthetic_catalogue(10);
    let big = ToolSession::with_options(
        tables.iter().map(|t| Source::Table(t)).collect(),
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::SearchAndCall),
    )
    .unwrap();
    let names_tokens: usize = big.deferred().iter().map(|n| n.len() + 1).sum::<usize>() / 4;
    assert!(names_tokens > NAMES_BUDGET_TOKENS as usize);
    let search = big.tool_search().unwrap();
    assert!(
        search.description.len() / 4 < 1500,
        "{}",
        search.description
    );
    for table in &tables {
        let count = table.tools.len();
        assert!(
            search
                .description
                .contains(&format!("\n- {}: ", table.pack))
                && search.description.contains(&format!("({count} tools)")),
            "{}",
            search.description
        );
    }
    assert!(!search.description.contains(big.deferred()[0]));
}
