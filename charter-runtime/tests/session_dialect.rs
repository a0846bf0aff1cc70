//! A session's dialect (`SessionOptions::dialect`): its own tools' schemas in it, every entry
//! marked with it, and arguments in its shape read back before validation, directly and
//! through `CallTool`.

use std::sync::OnceLock;

use charter_runtime::session::{
    CALL_TOOL, CALL_TOOL_SCHEMA, CALL_TOOL_SCHEMA_GEMINI, SessionOptions, Source, TOOL_SEARCH,
    ToolSession,
};
use charter_runtime::{CallContext, Dialect, Disclosure, Table};
use charter_testkit as testing;
use serde_json::{Value, json};

fn crm() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "crm",
            "description": "A small CRM.",
            "tools": [
                {"name": "contacts_create", "description": "Create a contact.",
                 "params": {
                    "name": {"type": "string", "required": true, "description": "Full name."},
                    "owner": {"type": "string", "description": "Owner id."}}}
            ]
        }))
    })
}

fn session(disclosure: Disclosure, dialect: Dialect) -> ToolSession {
    ToolSession::with_options(
        vec![Source::Table(crm())],
        SessionOptions {
            disclosure,
            dialect,
            ..SessionOptions::default()
        },
    )
    .unwrap()
}

async fn call(session: &ToolSession, name: &str, args: Value) -> Result<Value, String> {
    session
        .dispatch(name, args, &CallContext::new())
        .await
        .map(|out| out.structured.unwrap_or(Value::Null))
        .map_err(|e| e.to_string())
}

#[test]
fn own_tools_and_entries_carry_the_sessions_dialect() {
    let gemini = session(Disclosure::SearchAndCall, Dialect::Gemini);
    assert_eq!(gemini.dialect(), Dialect::Gemini);
    let visible = gemini.visible();
    let names: Vec<&str> = visible.iter().map(|t| t.name).collect();
    assert_eq!(names, [TOOL_SEARCH, CALL_TOOL]);
    assert!(visible.iter().all(|t| t.dialect == Dialect::Gemini));
    assert_eq!(visible[1].schema, CALL_TOOL_SCHEMA_GEMINI);
    for t in &visible {
        assert!(!t.schema.contains("additionalProperties"), "{}", t.schema);
        assert_eq!(t.tokens, charter_runtime::tokens::text_tokens(t.schema));
    }
    assert!(gemini.all().iter().all(|t| t.dialect == Dialect::Gemini));

    let strict = session(Disclosure::SearchAndCall, Dialect::OpenAiStrict);
    let visible = strict.visible();
    assert_eq!(visible[1].schema, CALL_TOOL_SCHEMA);
    assert!(
        visible.iter().all(|t| t.dialect == Dialect::Mcp),
        "the session's own tools stay portable outside Gemini"
    );
    assert!(
        strict
            .all()
            .iter()
            .all(|t| t.dialect == Dialect::OpenAiStrict)
    );
    assert_eq!(
        ToolSession::new(&[crm()]).unwrap().dialect(),
        Dialect::Mcp,
        "the portable form by default"
    );
}

#[tokio::test]
async fn arguments_in_the_strict_shape_are_read_back_before_validation() {
    let strict = session(Disclosure::Eager, Dialect::OpenAiStrict);
    let sent = call(
        &strict,
        "crm_contacts_create",
        json!({"name": "Ada", "owner": null}),
    )
    .await
    .unwrap();
    assert_eq!(
        sent,
        json!({"name": "Ada"}),
        "null means absent in strict mode"
    );
    // The portable form takes no null for a string.
    let portable = session(Disclosure::Eager, Dialect::Mcp);
    let err = call(
        &portable,
        "crm_contacts_create",
        json!({"name": "Ada", "owner": null}),
    )
    .await
    .unwrap_err();
    assert!(err.contains("/owner"), "{err}");
}

#[tokio::test]
async fn call_tool_reads_back_each_call_in_the_dialect_and_takes_json_text() {
    let strict = session(Disclosure::SearchAndCall, Dialect::OpenAiStrict);
    let answer = call(
        &strict,
        CALL_TOOL,
        json!({"name": "crm_contacts_create", "arguments": {"name": "Ada", "owner": null}}),
    )
    .await
    .unwrap();
    assert_eq!(answer, json!({"name": "Ada"}), "{answer}");
    let gemini = session(Disclosure::SearchAndCall, Dialect::Gemini);
    let answer = call(
        &gemini,
        CALL_TOOL,
        json!({"name": "crm_contacts_create", "arguments": "{\"name\": \"Ada\", \"owner\": \"u1\"}"}),
    )
    .await
    .unwrap();
    assert_eq!(answer, json!({"name": "Ada", "owner": "u1"}), "{answer}");
}
