//! A toolkit whose list changes (an MCP server's `list_changed`): `ToolSession::is_stale`,
//! `refreshed` and `refresh` keep docs/design.md §4's order rules across the change.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use charter_runtime::session::{
    DynamicTool, SessionOptions, Source, TOOL_SEARCH, ToolSession, Toolkit,
};
use charter_runtime::table::{Annotations, BoxFuture, ToolOutput};
use charter_runtime::{CallContext, CharterError, text_tokens};
use charter_testkit as testing;
use serde_json::{Value, json};

/// A toolkit whose tools the test sets, with a generation that moves on each change.
struct Changing {
    tools: Mutex<Vec<DynamicTool>>,
    generation: AtomicU64,
}

fn tool(name: &str, schema: &str) -> DynamicTool {
    DynamicTool {
        name: name.into(),
        description: format!("the {name} tool").into(),
        schema: schema.into(),
        tokens: text_tokens(schema),
        annotations: Annotations::default(),
    }
}

impl Changing {
    fn new(names: &[&str]) -> Arc<Self> {
        Arc::new(Self {
            tools: Mutex::new(
                names
                    .iter()
                    .map(|n| tool(n, r#"{"type":"object"}"#))
                    .collect(),
            ),
            generation: AtomicU64::new(0),
        })
    }

    fn set(&self, tools: Vec<DynamicTool>) {
        *self.tools.lock().unwrap() = tools;
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

impl Toolkit for Changing {
    fn pack(&self) -> &str {
        "up"
    }
    fn tools(&self) -> Vec<DynamicTool> {
        self.tools.lock().unwrap().clone()
    }
    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            Ok(ToolOutput::json(
                json!({"tool": tool, "arguments": arguments}),
            ))
        })
    }
    fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }
}

/// A toolkit that never changes: the trait's default generation.
struct Fixed;

impl Toolkit for Fixed {
    fn pack(&self) -> &str {
        "fixed"
    }
    fn tools(&self) -> Vec<DynamicTool> {
        vec![tool("fixed_one", r#"{"type":"object"}"#)]
    }
    fn call<'a>(
        &'a self,
        _tool: &'a str,
        _arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async { Ok(ToolOutput::text("one")) })
    }
}

fn names<'a>(
    entries: impl IntoIterator<Item = charter_runtime::session::ToolEntry<'a>>,
) -> Vec<&'a str> {
    entries.into_iter().map(|e| e.name).collect()
}

#[tokio::test]
async fn a_changed_list_keeps_the_load_order_and_defers_new_tools() {
    let kit = Changing::new(&["up_a", "up_b", "up_c"]);
    let table = testing::table(json!({"pack": "local", "tools": [
        {"name": "send", "params": {
            "to": {"type": "string", "required": true, "description": "who"},
            "body": {"type": "string", "required": true, "description": "what"}
        }}
    ]}));
    let mut session = ToolSession::with_options(
        vec![
            Source::Table(table),
            Source::Toolkit(kit.clone()),
            Source::Toolkit(Arc::new(Fixed)),
        ],
        SessionOptions::default(),
    )
    .unwrap();
    session.pin("local_send", "to", json!("ops")).unwrap();
    session.search("select:up_c,local_send,up_a", None);
    assert_eq!(session.loaded(), ["up_c", "local_send", "up_a"]);
    assert!(!session.is_stale());
    assert!(!session.refresh().unwrap(), "nothing changed: no rebuild");

    // The server drops `up_a`, changes `up_c`'s schema and adds `up_d`.
    kit.set(vec![
        tool("up_b", r#"{"type":"object"}"#),
        tool(
            "up_c",
            r#"{"type":"object","properties":{"x":{"type":"string"}}}"#,
        ),
        tool("up_d", r#"{"type":"object"}"#),
    ]);
    assert!(session.is_stale());
    let generation = session.generation();
    let next = session.refreshed().unwrap();
    assert!(!next.is_stale());
    assert!(
        next.generation() > generation,
        "a caller comparing generations sees the change"
    );
    assert_eq!(
        next.loaded(),
        ["up_c", "local_send"],
        "loaded tools keep their order; a dropped one leaves"
    );
    assert_eq!(names(next.visible()), [TOOL_SEARCH, "up_c", "local_send"]);
    let c = next
        .visible()
        .into_iter()
        .find(|e| e.name == "up_c")
        .unwrap();
    assert!(
        c.schema.contains("\"x\""),
        "the new schema is in force: {}",
        c.schema
    );
    assert_eq!(
        next.deferred(),
        ["fixed_one", "local_send", "up_b", "up_c", "up_d"]
    );
    assert!(
        next.tool_search()
            .unwrap()
            .description
            .ends_with("up_b\nup_c\nup_d")
    );
    assert!(
        !next.is_callable("up_d"),
        "a new tool joins the deferred catalogue"
    );
    assert!(!next.is_callable("up_a"));

    // The pin carried over: the field is still out of the schema and still sent.
    let send = next
        .visible()
        .into_iter()
        .find(|e| e.name == "local_send")
        .unwrap();
    assert!(!send.schema.contains("\"to\""), "{}", send.schema);
    let ctx = CallContext::new();
    let sent = next
        .dispatch("local_send", json!({"body": "hi"}), &ctx)
        .await
        .unwrap();
    assert_eq!(sent.structured, Some(json!({"body": "hi", "to": "ops"})));

    // In place, too; loading after the change appends in order.
    assert!(session.refresh().unwrap());
    session.search("select:up_d", None);
    assert_eq!(session.loaded(), ["up_c", "local_send", "up_d"]);
    let answer = session
        .dispatch("up_d", json!({"k": 1}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        answer.structured,
        Some(json!({"tool": "up_d", "arguments": {"k": 1}}))
    );
}

#[test]
fn a_refresh_that_breaks_the_name_rules_is_refused() {
    let kit = Changing::new(&["up_a"]);
    let session = ToolSession::with_options(
        vec![Source::Toolkit(kit.clone())],
        SessionOptions::default(),
    )
    .unwrap();
    kit.set(vec![tool("up_a", "{}"), tool("up_a", "{}")]);
    let error = session.refreshed().unwrap_err();
    assert!(error.to_string().contains("up_a"), "{error}");
    // The session in use is untouched.
    assert_eq!(session.deferred(), ["up_a"]);
}

#[test]
fn an_eager_session_lists_new_tools_at_once() {
    let kit = Changing::new(&["up_a"]);
    let mut session = ToolSession::with_options(
        vec![Source::Toolkit(kit.clone())],
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap();
    kit.set(vec![tool("up_a", "{}"), tool("up_b", "{}")]);
    assert!(session.refresh().unwrap());
    assert_eq!(names(session.visible()), ["up_a", "up_b"]);
}
