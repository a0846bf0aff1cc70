//! The model APIs' documented rules for a tool definition, applied to compiled tables: what
//! Anthropic's Messages API and OpenAI's Chat Completions / Responses APIs refuse outright, so a
//! test can say that every tool charter serves is accepted by both (docs/design.md §3, "The
//! portable form").
//!
//! The rules, as each API documents and enforces them (the error text each answers with):
//! - the root of the parameter schema is `"type": "object"` (Anthropic: `input_schema.type: Field
//!   required`, `Input should be 'object'`; OpenAI: `schema must be a JSON Schema of 'type:
//!   "object"'`);
//! - no `oneOf`, `anyOf` or `allOf` at the root (Anthropic: `input_schema does not support oneOf,
//!   allOf, or anyOf at the top level`), and neither `enum` nor `not` (OpenAI: `schema must have
//!   type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level`);
//! - every array schema has `items` (OpenAI: `array schema missing items`);
//! - the tool name matches `^[a-zA-Z0-9_-]{1,64}$` (both APIs), and so does the name an MCP host
//!   publishes it under, `mcp__<server>__<name>` (Claude Code; [`MCP_PREFIX`]).
//!
//! The MCP Inspector's schema-portability check (npm `@modelcontextprotocol/inspector`, run by
//! `charter-cli`'s `portability` test over the real binary) judges the rest: no `type` arrays, no
//! boolean or untyped subschemas.

use charter_runtime::table::ToolDef;
use serde_json::Value;

/// The prefix an MCP host puts before a tool's name, with the server key `charter`: Claude Code
/// publishes a server's tools as `mcp__<server>__<tool>`, and the APIs cap the whole at 64
/// characters. `charter` (7 characters) plus a qualified name of at most 50 makes 64.
pub const MCP_PREFIX: &str = "mcp__charter__";

/// What either API would refuse in this tool definition (empty: both accept it).
pub fn problems(name: &str, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for n in [name.to_owned(), format!("{MCP_PREFIX}{name}")] {
        let fits = !n.is_empty()
            && n.len() <= 64
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !fits {
            out.push(format!("the name `{n}` is not ^[a-zA-Z0-9_-]{{1,64}}$"));
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        other => out.push(format!("the root type is {other:?}, not \"object\"")),
    }
    for key in ["oneOf", "anyOf", "allOf", "enum", "not"] {
        if schema.get(key).is_some() {
            out.push(format!("`{key}` at the root"));
        }
    }
    arrays_have_items(schema, "", &mut out);
    out
}

/// Every view of every tool: `(tool name, view index, problem)` for each problem found.
pub fn tool_problems<'a>(tools: impl IntoIterator<Item = &'a ToolDef>) -> Vec<String> {
    let mut out = Vec::new();
    for tool in tools {
        for (i, view) in tool.views.iter().enumerate() {
            let schema: Value = match serde_json::from_str(view.schema) {
                Ok(v) => v,
                Err(e) => {
                    out.push(format!("{} view {i}: not JSON: {e}", tool.name));
                    continue;
                }
            };
            for p in problems(tool.name, &schema) {
                out.push(format!("{} view {i}: {p}", tool.name));
            }
        }
    }
    out
}

/// Walks the subschemas of `schema` (JSON Schema's applicators, not values such as `enum` or
/// `default`) and reports each array schema without `items`.
fn arrays_have_items(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(m) = schema else { return };
    let array = match m.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    };
    if array && !m.contains_key("items") {
        out.push(format!("an array without `items` at `{at}`"));
    }
    for (key, value) in m {
        let at = format!("{at}/{key}");
        match (key.as_str(), value) {
            ("items" | "additionalProperties" | "not", sub) => arrays_have_items(sub, &at, out),
            ("properties" | "$defs", Value::Object(subs)) => {
                for (name, sub) in subs {
                    arrays_have_items(sub, &format!("{at}/{name}"), out);
                }
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(subs)) => {
                for (i, sub) in subs.iter().enumerate() {
                    arrays_have_items(sub, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
}
