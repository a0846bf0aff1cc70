//! Code mode's signatures of Rust tools (docs/code-mode.md, "TypeScript signatures"): a tool
//! whose return type has a schema declares its result, computed in `const` context as its
//! arguments are; any other return type keeps `Promise<any>`. Then ToolSearch in a code-mode
//! session shows the typed result and a `RunCode` program uses it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use charter::session::{RUN_CODE, SessionOptions, Source, TOOL_SEARCH, ToolSession};
use charter::table::ToolDef;
use charter::{CallContext, Disclosure, Schema, text_tokens};
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize, Schema)]
struct Task {
    /// The task's title.
    title: String,
    /// Whether it is done.
    done: bool,
    /// Whom it is assigned to, if anyone.
    assignee: Option<String>,
    /// How urgent it is.
    priority: Priority,
}

#[derive(Debug, Clone, Copy, Serialize, Schema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    High,
}

/// Serialises, but has no charter schema.
#[derive(Serialize)]
struct Opaque {
    value: u32,
}

fn all() -> Vec<Task> {
    let task = |title: &str, done, assignee: Option<&str>, priority| Task {
        title: title.to_owned(),
        done,
        assignee: assignee.map(str::to_owned),
        priority,
    };
    vec![
        task("Write the docs", false, Some("ana"), Priority::High),
        task("Fix the build", true, None, Priority::High),
        task("Tidy the README", false, None, Priority::Low),
    ]
}

/// List the tasks.
#[charter::tool(read_only, idempotent)]
fn list() -> Vec<Task> {
    all()
}

/// Get one task by its position.
#[charter::tool(read_only, idempotent)]
async fn get(
    #[charter(desc = "Its position, from 0.")] index: usize,
) -> Result<Option<Task>, String> {
    Ok(all().get(index).cloned())
}

/// Count the open tasks per priority.
#[charter::tool(read_only, idempotent)]
fn counts() -> anyhow_like::Result<BTreeMap<String, u32>> {
    let mut counts = BTreeMap::new();
    for t in all().iter().filter(|t| !t.done) {
        *counts
            .entry(format!("{:?}", t.priority).to_lowercase())
            .or_insert(0) += 1;
    }
    Ok(counts)
}

/// A greeting.
#[charter::tool(read_only)]
fn hello<'a>() -> &'a str {
    "hello"
}

/// Something without a schema.
#[charter::tool(read_only)]
fn opaque() -> Opaque {
    Opaque { value: 7 }
}

/// Something named only by its trait.
#[charter::tool(read_only)]
fn hidden() -> impl Serialize {
    [1, 2]
}

/// A borrowed-or-owned text (`Cow` has no charter schema).
#[charter::tool(read_only)]
fn cow() -> Result<Cow<'static, str>, String> {
    Ok(Cow::Borrowed("moo"))
}

/// Nothing back.
#[charter::tool]
fn nothing() {}

/// A one-parameter `Result` alias, as `anyhow::Result` is.
mod anyhow_like {
    pub type Result<T> = std::result::Result<T, String>;
}

charter::pack!(
    static TASKS = "tasks", "A task list.",
    [list, get, counts, hello, opaque, hidden, cow, nothing]
);

fn tool(name: &str) -> &'static ToolDef {
    TASKS
        .tools
        .iter()
        .find(|t| t.name == format!("tasks_{name}"))
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// The `Promise<..>` of a tool's only view.
fn result(name: &str) -> &'static str {
    let view = &tool(name).views[0];
    let (_, promise) = view.signature.split_once("): Promise<").expect("a promise");
    promise
        .strip_suffix('>')
        .expect("the promise closes the text")
}

const TASK_TYPE: &str = "{/** The task's title. */ title: string; /** Whether it is done. */ done: boolean; /** Whom it is assigned to, if anyone. */ assignee?: string; /** How urgent it is. */ priority: \"low\" | \"high\"}";

#[test]
fn a_return_type_with_a_schema_is_the_declared_result() {
    assert_eq!(result("list"), format!("{TASK_TYPE}[]"));
    // `T` of `Result<T, E>`; an `Option` may be null.
    assert_eq!(result("get"), format!("{TASK_TYPE} | null"));
    // Any path ending in `Result` with `T` first.
    assert_eq!(result("counts"), "Record<string, number>");
    // Lifetimes of the signature are not in the way.
    assert_eq!(result("hello"), "string");
}

#[test]
fn a_return_type_without_one_is_any() {
    for name in ["opaque", "hidden", "cow", "nothing"] {
        assert_eq!(result(name), "any", "{name}");
    }
}

#[test]
fn the_stored_sizes_are_the_texts() {
    for def in TASKS.tools {
        for view in def.views {
            assert_eq!(
                view.signature_tokens,
                text_tokens(view.signature),
                "{}",
                def.name
            );
        }
    }
    // The arguments are declared as before, the result after them.
    assert_eq!(
        tool("get").views[0].signature,
        format!(
            "(args: {{\n  /** Its position, from 0. */ index: number;\n}}): Promise<{TASK_TYPE} | null>"
        )
    );
}

fn session() -> ToolSession {
    ToolSession::with_options(
        vec![Source::Table(&TASKS)],
        SessionOptions::new().with_disclosure(Disclosure::Code),
    )
    .unwrap()
}

#[tokio::test]
async fn tool_search_shows_the_typed_result_and_a_program_uses_it() {
    let session = session();
    let ctx = CallContext::new();
    let found = session
        .dispatch(
            TOOL_SEARCH,
            json!({"query": "select:tasks_list,tasks_opaque"}),
            &ctx,
        )
        .await
        .unwrap();
    assert!(
        found
            .text
            .contains(&format!("tasks.list(): Promise<{TASK_TYPE}[]>")),
        "{}",
        found.text
    );
    assert!(
        found.text.contains("tasks.opaque(): Promise<any>"),
        "{}",
        found.text
    );

    // A program written from that declaration: the fields it names are the ones there.
    let program = r#"
        const list = await tasks.list();
        const open = list.filter(t => !t.done);
        const first = await tasks.get({ index: 0 });
        const none = await tasks.get({ index: 9 });
        return {
          open: open.map(t => t.title),
          unassigned: open.filter(t => t.assignee === null).length,
          high: open.filter(t => t.priority === "high").map(t => t.title),
          first: first.title,
          none,
          counts: await tasks.counts(),
          hello: await tasks.hello(),
        };
    "#;
    let out = session
        .dispatch(RUN_CODE, json!({ "code": program }), &ctx)
        .await
        .unwrap();
    let value: Value = out.structured.unwrap_or(Value::String(out.text));
    assert_eq!(
        value,
        json!({
            "open": ["Write the docs", "Tidy the README"],
            "unassigned": 1,
            "high": ["Write the docs"],
            "first": "Write the docs",
            "none": null,
            "counts": {"high": 1, "low": 1},
            "hello": "hello",
        })
    );
}
