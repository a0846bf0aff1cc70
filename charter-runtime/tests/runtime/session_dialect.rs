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
        SessionOptions::new()
            .with_disclosure(disclosure)
            .with_dialect(dialect),
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

#[tokio::test]
async fn anthropic_strict_entries_go_strict_where_the_view_can() {
    let s = session(Disclosure::Eager, Dialect::AnthropicStrict);
    let entries = s.visible();
    assert_eq!(entries.len(), 1);
    let view = &crm().tools[0].views[0];
    let strict = view
        .anthropic_strict()
        .expect("a compiled view can go strict");
    assert_eq!(entries[0].dialect, Dialect::AnthropicStrict);
    assert_eq!(entries[0].schema, strict.schema);
    assert_eq!(
        Dialect::AnthropicStrict.for_view(view),
        Dialect::AnthropicStrict
    );
    // Optional properties stay optional (no `null` for absent), objects are closed.
    let schema: Value = serde_json::from_str(entries[0].schema).unwrap();
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let out = call(&s, "crm_contacts_create", json!({"name": "Ada"})).await;
    assert!(out.is_ok(), "{out:?}");
}

#[test]
fn a_view_that_cannot_go_strict_is_given_in_the_portable_form() {
    use charter_runtime::table::{View, ViewKey};
    static VIEW: View = View::new(ViewKey::Default, r#"{"type":"object","properties":{}}"#, 8);
    assert!(VIEW.anthropic_strict().is_none());
    assert_eq!(Dialect::AnthropicStrict.for_view(&VIEW), Dialect::Anthropic);
    assert_eq!(VIEW.schema_in(Dialect::AnthropicStrict), VIEW.schema);
    // Its arguments are read as the portable form's: JSON text stays text, a list stays a list;
    // a view that goes strict reads them back.
    let def = &loose().tools[0];
    let args = json!({"data": "[1]", "tags": [{"key": "a", "value": "1"}]});
    assert_eq!(
        Dialect::AnthropicStrict.restore_args(def, &VIEW, args.clone()),
        args
    );
    assert_eq!(
        Dialect::AnthropicStrict.restore_args(def, &def.views[0], args),
        json!({"data": [1], "tags": {"a": "1"}})
    );
}

fn loose() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "loose",
            "description": "Loose values.",
            "tools": [
                {"name": "put", "description": "Put a value.",
                 "params": {
                    "data": {"type": "any", "description": "Anything."},
                    "tags": {"type": "map", "values": {"type": "string"}, "description": "Tags."}}}
            ]
        }))
    })
}
