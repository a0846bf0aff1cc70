//! The `example` pack both loop examples serve: two Rust tools (add two numbers, read the
//! clock), written the way generated code writes them.

use std::time::{SystemTime, UNIX_EPOCH};

use charter_runtime::CallContext;
use charter_runtime::error::CharterError;
use charter_runtime::table::*;
use charter_runtime::tokens::text_tokens;
use serde_json::{Value, json};

/// What the examples ask when no prompt is given.
pub const PROMPT: &str = "What is 17.5 plus 24.25, and what time is it now (UTC)?";

/// What the examples tell the model first.
pub const INSTRUCTIONS: &str =
    "Use the tools. Search for the ones you need with ToolSearch first, then call them.";

/// The prompt from the command line, or [`PROMPT`].
pub fn prompt() -> String {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    if prompt.is_empty() {
        PROMPT.to_owned()
    } else {
        prompt
    }
}

/// `MAX_TURNS`, or the loops' default.
pub fn max_turns() -> Result<usize, String> {
    match std::env::var("MAX_TURNS") {
        Ok(text) => text.parse().map_err(|e| format!("MAX_TURNS={text}: {e}")),
        Err(_) => Ok(charter_adapters::DEFAULT_MAX_TURNS),
    }
}

fn add<'a>(args: Value, _ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        let (a, b) = (
            args["a"].as_f64().unwrap_or_default(),
            args["b"].as_f64().unwrap_or_default(),
        );
        Ok(ToolOutput::json(json!({"sum": a + b})))
    })
}

fn now<'a>(_args: Value, _ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| CharterError::Tool(format!("the system clock is before 1970: {e}")))?
            .as_secs();
        Ok(ToolOutput::json(
            json!({"unix_seconds": secs, "utc_time_of_day": format!("{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60)}),
        ))
    })
}

const NUMBER: Shape = Shape::Number(NumberRules::NONE);

const fn number(name: &'static str, description: &'static str) -> Field {
    Field::new(name, description, &NUMBER).with_required(true)
}

const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"number","description":"The first addend."},"b":{"type":"number","description":"The second addend."}},"required":["a","b"],"additionalProperties":false}"#;

/// The `example` pack.
pub static EXAMPLE: Table = Table::new(
    "example",
    "arithmetic and the clock",
    &[
        ToolDef::new(
            "example_add",
            "example",
            "add",
            "Add two numbers exactly.",
            Exec::Rust(add),
        )
        .with_annotations(
            Annotations::new()
                .with_read_only(true)
                .with_idempotent(true),
        )
        .with_input(&ObjectShape::of(&[
            number("a", "The first addend."),
            number("b", "The second addend."),
        ]))
        .with_views(&[
            View::new(ViewKey::Default, ADD_SCHEMA, text_tokens(ADD_SCHEMA)).with_widest(true),
            View::new(ViewKey::Unmatched, ADD_SCHEMA, text_tokens(ADD_SCHEMA)),
        ])
        .with_search(SearchData::new(
            "add two numbers exactly.",
            &["sum", "plus", "math"],
        )),
        // No arguments: `ToolDef::new`'s views are those of an empty object.
        ToolDef::new(
            "example_now",
            "example",
            "now",
            "The current time (UTC).",
            Exec::Rust(now),
        )
        .with_annotations(Annotations::new().with_read_only(true))
        .with_search(SearchData::new(
            "the current time (utc).",
            &["clock", "date"],
        )),
    ],
);
