//! The example's tools called through their handlers, as a session would, and its binary run as
//! a user would.

use std::process::Command;

use charter::table::{Exec, ToolDef, ViewKey};
use charter::{CallContext, CharterError, ToolOutput};
use charter_example_notes::TOOLS;
use serde_json::{Value, json};

fn tool(name: &str) -> &'static ToolDef {
    TOOLS
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

async fn call(name: &str, args: Value, ctx: &CallContext) -> Result<ToolOutput, CharterError> {
    let Exec::Rust(handler) = tool(name).exec else {
        panic!("{name} is not a Rust tool")
    };
    handler(args, ctx).await
}

async fn json_of(name: &str, args: Value, ctx: &CallContext) -> Value {
    call(name, args, ctx)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .structured
        .expect("a JSON answer")
}

/// Each test acts for its own user: the store is per process, partitioned by user.
fn as_user(name: &str) -> CallContext {
    CallContext::new().for_user(name)
}

/// Anthropic's and OpenAI's documented rules for a tool definition hold for every view of every
/// tool (`charter_testkit::providers`).
#[test]
fn every_view_meets_the_model_apis_rules() {
    let problems = charter_testkit::providers::tool_problems(TOOLS.tools);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The providers' own SDKs accept every view of every tool in every dialect (docs/dialects.md;
/// `charter_testkit::judge`: openai-agents' `ensure_strict_json_schema`, anthropic's
/// `transform_schema` on every view that goes strict, google-genai's `types.Schema`, in a venv
/// under `target/python/judge`).
#[test]
fn every_view_is_accepted_by_the_providers_sdks() {
    let entries = charter_testkit::judge::entries(TOOLS.tools);
    let scratch = std::env::temp_dir().join(format!("notes-judge-{}.json", std::process::id()));
    let verdicts = charter_testkit::judge::judge(&entries, &scratch);
    let _ = std::fs::remove_file(&scratch);
    assert_eq!(
        verdicts.len(),
        charter::Dialect::ALL.len(),
        "every dialect judged: {verdicts:?}"
    );
    // `#[charter::tool]` writes every view in Anthropic's strict dialect (no recursive types).
    let strict = &verdicts["anthropic-strict"];
    assert_eq!(strict.strict, strict.judged, "every view goes strict");
    for (dialect, v) in &verdicts {
        println!("{dialect} {}/{} views accepted", v.accepted, v.judged);
        assert!(v.refused.is_empty(), "{dialect}: {}", v.refused.join("\n"));
    }
}

#[test]
fn table_and_annotations() {
    assert_eq!(TOOLS.pack, "notes");
    let names: Vec<_> = TOOLS.tools.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "notes_add",
            "notes_divide",
            "notes_create_note",
            "notes_get_note",
            "notes_update_note",
            "notes_list_notes",
            "notes_delete_note"
        ]
    );
    let a = |n| tool(n).annotations;
    for n in [
        "notes_add",
        "notes_divide",
        "notes_get_note",
        "notes_list_notes",
    ] {
        assert!(
            a(n).read_only && a(n).idempotent && !a(n).destructive,
            "{n}"
        );
    }
    assert!(!a("notes_create_note").read_only && !a("notes_create_note").idempotent);
    assert!(!a("notes_update_note").read_only && a("notes_update_note").idempotent);
    let d = a("notes_delete_note");
    assert!(d.destructive && d.idempotent && !d.read_only);
    // `include_body` is a pro-tier parameter: absent when a session mode other than `pro` is in force.
    let list = tool("notes_list_notes");
    assert_eq!(
        list.views.iter().map(|v| v.key).collect::<Vec<_>>(),
        [ViewKey::Default, ViewKey::Unmatched, ViewKey::Label("pro")]
    );
    assert!(list.views[0].schema.contains("\"include_body\""));
    assert!(!list.views[1].schema.contains("\"include_body\""));
    assert!(list.views[2].schema.contains("\"include_body\""));
    // The host-filled author never reaches the schema.
    assert!(
        tool("notes_create_note")
            .views
            .iter()
            .all(|v| !v.schema.contains("author"))
    );
}

#[tokio::test]
async fn calculator() {
    let ctx = CallContext::new();
    assert_eq!(
        call("notes_add", json!({"a": 2, "b": 0.5}), &ctx)
            .await
            .unwrap()
            .text,
        "2.5"
    );
    assert_eq!(
        call("notes_divide", json!({"dividend": 9, "divisor": 3}), &ctx)
            .await
            .unwrap()
            .text,
        "3.0"
    );
    let err = call("notes_divide", json!({"dividend": 1, "divisor": 0}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err, CharterError::Tool("cannot divide by zero".into()));
    let err = call(
        "notes_divide",
        json!({"dividend": "one", "divisor": 2}),
        &ctx,
    )
    .await
    .unwrap_err();
    assert!(
        err.is_validation() && err.to_string().contains("`dividend`"),
        "{err}"
    );
}

#[tokio::test]
async fn create_update_list_delete() {
    let ctx = as_user("crud").with_value("display_name", json!("Ada"));
    let first = json_of(
        "notes_create_note",
        json!({"title": "Groceries", "body": "eggs", "tags": ["home"]}),
        &ctx,
    )
    .await;
    assert_eq!(
        first,
        json!({"id": 1, "title": "Groceries", "body": "eggs", "tags": ["home"], "author": "Ada"})
    );
    let second = json_of(
        "notes_create_note",
        json!({"title": "Standup", "body": "notes"}),
        &ctx,
    )
    .await;
    assert_eq!(second["id"], 2);

    let listed = json_of("notes_list_notes", json!({}), &ctx).await;
    assert_eq!(
        listed,
        json!([{"id": 2, "title": "Standup", "tags": []}, {"id": 1, "title": "Groceries", "tags": ["home"]}])
    );
    let filtered = json_of(
        "notes_list_notes",
        json!({"filter": {"tag": "home"}, "include_body": true}),
        &ctx,
    )
    .await;
    assert_eq!(
        filtered,
        json!([{"id": 1, "title": "Groceries", "tags": ["home"], "body": "eggs"}])
    );
    let oldest = json_of(
        "notes_list_notes",
        json!({"order": "oldest", "limit": 1}),
        &ctx,
    )
    .await;
    assert_eq!(oldest[0]["id"], 1);

    // Updating twice with the same arguments leaves the same note: idempotent.
    let args = json!({"id": 1, "body": "eggs, milk"});
    let once = json_of("notes_update_note", args.clone(), &ctx).await;
    let twice = json_of("notes_update_note", args, &ctx).await;
    assert_eq!(once, twice);
    assert_eq!(
        json_of("notes_get_note", json!({"id": 1}), &ctx).await["body"],
        "eggs, milk"
    );

    // Deleting twice: the second finds nothing and changes nothing.
    assert_eq!(
        json_of("notes_delete_note", json!({"id": 1}), &ctx).await,
        json!({"id": 1, "existed": true})
    );
    assert_eq!(
        json_of("notes_delete_note", json!({"id": 1}), &ctx).await,
        json!({"id": 1, "existed": false})
    );
    let err = call("notes_get_note", json!({"id": 1}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err, CharterError::Tool("there is no note 1".into()));
    let err = call("notes_update_note", json!({"id": 2, "title": " "}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        CharterError::Tool("a note's title cannot be empty".into())
    );
}

#[tokio::test]
async fn users_do_not_see_each_other() {
    let alice = as_user("alice");
    let bob = as_user("bob");
    json_of(
        "notes_create_note",
        json!({"title": "Alice's", "body": "secret"}),
        &alice,
    )
    .await;
    assert_eq!(
        json_of("notes_list_notes", json!({}), &bob).await,
        json!([])
    );
    assert!(
        call("notes_get_note", json!({"id": 1}), &bob)
            .await
            .is_err()
    );
    assert_eq!(
        json_of("notes_list_notes", json!({}), &alice)
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn binary_serves_its_tools_beside_the_packs_through_the_cli() {
    let bin = env!("CARGO_BIN_EXE_charter-example-notes");
    let out = Command::new(bin)
        .args(["tools", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for def in TOOLS.tools {
        assert!(names.contains(&def.name), "{} missing", def.name);
    }
    assert!(
        names.iter().any(|n| n.starts_with("github_")),
        "packs listed beside"
    );

    // One call through the CLI: what the model would receive.
    let out = Command::new(bin)
        .args(["call", "notes_add", r#"{"a": 2, "b": 3}"#])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5.0");

    // A refused call is the model's error, not a crash.
    let out = Command::new(bin)
        .args(["call", "notes_divide", r#"{"dividend": 1, "divisor": 0}"#])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("zero"), "{text}");
}
