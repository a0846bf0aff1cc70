//! Search-and-call (docs/design.md §4, §9): progressive disclosure with a list that never changes.
//!
//! A session built with [`SessionOptions::search_and_call`](super::SessionOptions) lists exactly
//! `ToolSearch` and [`CALL_TOOL`] (and any resident tools) on every turn. ToolSearch loads
//! nothing: its answer carries each found tool's name, description and parameter schema (the
//! session mode's view, its precomputed text spliced in), and `CallTool` runs any tool of the
//! session by name, validated exactly as a direct call. Nothing is remembered between calls, so a
//! tool never searched still works, a stateless MCP request can be served by a fresh session,
//! and the list is legal on protocol revisions that forbid it from varying (MCP 2026-07-28).
//!
//! The tool is named `CallTool`, not `ToolCall`: a verb-first name says what it does, and
//! "tool call" is what every provider already calls the model's own request (`tool_calls`), which
//! would make "a ToolCall tool call" ambiguous to the model and to readers.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::{Kind, ToolSession};
use crate::context::CallContext;
use crate::error::CharterError;
use crate::scheduler::{Batch, CallResult, ToolCall, concurrency_safe_annotations};
use crate::search::TOOL_SEARCH;
use crate::table::{BoxFuture, ToolOutput};
use crate::validate::{self, Issue};

/// The name of the call tool of a search-and-call session.
pub const CALL_TOOL: &str = "CallTool";

/// How many workers a `CallTool` batch (`calls`) runs concurrency-safe calls on.
pub const CALL_TOOL_CONCURRENCY: usize = 4;

/// The parameter schema of [`CALL_TOOL`]: one call (`name`, `arguments`) or several (`calls`).
pub const CALL_TOOL_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"#,
    r#""name":{"type":"string","description":"The exact name of the tool to call, as ToolSearch gave it."},"#,
    r#""arguments":{"type":"object","description":"The tool's arguments, valid against the inputSchema ToolSearch gave for it."},"#,
    r#""calls":{"type":"array","minItems":1,"description":"Several calls at once, instead of name and arguments: one result each, in this order.","#,
    r#""items":{"type":"object","properties":{"name":{"type":"string","description":"The tool's exact name."},"#,
    r#""arguments":{"type":"object","description":"Its arguments."}},"required":["name"],"additionalProperties":false}}"#,
    r#"},"additionalProperties":false}"#
);

/// [`CALL_TOOL_SCHEMA`] in Gemini's dialect: no `additionalProperties`, and the arguments as JSON
/// text (its `Schema` refuses an `OBJECT` without properties; `CallTool` reads JSON text as the
/// object it holds).
pub const CALL_TOOL_SCHEMA_GEMINI: &str = concat!(
    r#"{"type":"object","properties":{"#,
    r#""name":{"type":"string","description":"The exact name of the tool to call, as ToolSearch gave it."},"#,
    r#""arguments":{"type":"string","description":"The tool's arguments as JSON object text, valid against the inputSchema ToolSearch gave for it."},"#,
    r#""calls":{"type":"array","minItems":1,"description":"Several calls at once, instead of name and arguments: one result each, in this order.","#,
    r#""items":{"type":"object","properties":{"name":{"type":"string","description":"The tool's exact name."},"#,
    r#""arguments":{"type":"string","description":"Its arguments as JSON object text."}},"required":["name"]}}"#,
    r#"}}"#
);

/// The description of [`CALL_TOOL`].
pub const CALL_TOOL_DESCRIPTION: &str = "Calls a tool that ToolSearch found: {\"name\": \"<tool \
name>\", \"arguments\": {...}} with arguments valid against the inputSchema ToolSearch returned \
for it. For several independent calls at once send {\"calls\": [{\"name\": ..., \"arguments\": \
{...}}, ...]} instead: they run as one batch and each gets its own result, in order. Any tool of \
the catalogue can be called, searched before or not.";

/// The parameter schema of ToolSearch in a search-and-call session (it finds; nothing loads).
pub const SEARCH_AND_CALL_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"query":{"type":"string","description":"#,
    r#""select:name_a,name_b finds exactly those tools; keywords find the best matches; +term requires the name to contain term.""#,
    r#"},"max_results":{"type":"integer","description":"How many keyword matches to return (default 5). Ignored by select:.""#,
    r#"}},"required":["query"],"additionalProperties":false}"#
);

/// [`SEARCH_AND_CALL_SCHEMA`] in Gemini's dialect: its `Schema` has no `additionalProperties`.
pub const SEARCH_AND_CALL_SCHEMA_GEMINI: &str = concat!(
    r#"{"type":"object","properties":{"query":{"type":"string","description":"#,
    r#""select:name_a,name_b finds exactly those tools; keywords find the best matches; +term requires the name to contain term.""#,
    r#"},"max_results":{"type":"integer","description":"How many keyword matches to return (default 5). Ignored by select:.""#,
    r#"}},"required":["query"]}"#
);

/// The usage text of ToolSearch in a search-and-call session.
pub const SEARCH_AND_CALL_USAGE: &str = "Finds tools. Every tool found comes back with its name, \
description and inputSchema; call it with CallTool ({\"name\", \"arguments\"}). Query forms: \
`select:name_a,name_b` finds exactly those tools; keywords (`calendar event`) find the best \
matches by name and description, up to max_results (default 5); `+term` keeps only tools whose \
name contains term and ranks them by the other keywords (`+stripe refund`). Every name starts \
with its pack (`<pack>_<tool>`), so `+pack` lists a pack's tools.";

/// One call a `CallTool` request asks for.
struct Wanted {
    name: String,
    arguments: Value,
}

impl ToolSession {
    /// Whether this session lists ToolSearch and [`CALL_TOOL`] instead of loading tools (the
    /// form in force is [`Disclosure::SearchAndCall`](super::Disclosure::SearchAndCall)).
    pub fn is_search_and_call(&self) -> bool {
        self.disclosure.in_force() == super::Disclosure::SearchAndCall
    }

    /// The `CallTool` definition, if this session offers it.
    pub fn call_tool(&self) -> Option<super::ToolEntry<'_>> {
        let (schema, tokens) = self.own_schema(
            const { super::sized(CALL_TOOL_SCHEMA) },
            const { super::sized(CALL_TOOL_SCHEMA_GEMINI) },
        );
        self.is_search_and_call().then_some(super::ToolEntry {
            name: CALL_TOOL,
            description: CALL_TOOL_DESCRIPTION,
            schema,
            tokens,
            annotations: crate::table::Annotations::default(),
            dialect: self.own_dialect(),
            output: None,
        })
    }

    /// The ToolSearch answer of a search-and-call session as JSON text: the answer's fields, and
    /// under `tools` each found tool's name, description and parameter schema, the schema's
    /// precomputed text spliced in (never parsed or re-serialised).
    pub(super) fn found_json(&self, answer: &super::SearchAnswer) -> String {
        let mut out = String::from("{\"tools\":[");
        let found = answer
            .loaded
            .iter()
            .filter_map(|name| self.tools.lookup(name));
        for (n, i) in found.enumerate() {
            let entry = &self.tools.entries[i];
            if n > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"name\":{},\"description\":{},\"inputSchema\":{}}}",
                Value::from(entry.name()),
                Value::from(entry.description()),
                entry.schema()
            );
        }
        out.push(']');
        let rest = answer.to_json();
        if let Value::Object(rest) = rest {
            for (key, value) in rest {
                if key != "loaded" {
                    let _ = write!(out, ",{}:{value}", Value::from(key));
                }
            }
        }
        out.push('}');
        out
    }

    /// Runs a `CallTool` call: one tool (`name`, `arguments`) answered as that tool's own result,
    /// or several (`calls`) run as one scheduler batch and answered as `{"results": [...]}`.
    pub(super) fn call_tool_call<'a>(
        &'a self,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            match parse_call(arguments)? {
                Request::One(wanted) => self.call_found(&wanted.name, wanted.arguments, ctx).await,
                Request::Many(calls) => Ok(self.call_many(calls, ctx).await),
            }
        })
    }

    /// Whether a `CallTool` call may run beside others: every tool it names is read-only and
    /// idempotent (so two identical `CallTool` calls of one turn also run once).
    pub(super) fn call_tool_concurrent(&self, arguments: &Value) -> bool {
        let safe = |name: Option<&Value>| {
            name.and_then(Value::as_str)
                .and_then(|n| self.tools.lookup(n))
                .is_some_and(|i| concurrency_safe_annotations(&self.tools.entries[i].annotations()))
        };
        match arguments.get("calls") {
            Some(Value::Array(calls)) => {
                !calls.is_empty() && calls.iter().all(|c| safe(c.get("name")))
            }
            Some(_) => false,
            None => safe(arguments.get("name")),
        }
    }

    /// Runs one tool by name as a direct call would (same validation, pins, context fields and
    /// executor), whether or not it was searched for.
    pub(super) fn call_found<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            if name == TOOL_SEARCH || name == CALL_TOOL || name == super::RUN_CODE {
                return Err(CharterError::Validation(format!(
                    "`{name}` is called directly, not through {CALL_TOOL}."
                )));
            }
            let Some(i) = self.tools.lookup(name) else {
                return Err(CharterError::Validation(self.closest_message(name)));
            };
            if matches!(self.tools.entries[i].kind, Kind::Dynamic(_))
                && let Err(problem) = validate::check_limits(&arguments)
            {
                return Err(CharterError::Validation(validate::message_line(
                    name, &problem,
                )));
            }
            self.tools.execute(i, name, arguments, ctx).await
        })
    }

    /// Several calls as one scheduler batch: concurrently and deduplicated when every tool is
    /// read-only and idempotent, otherwise in order; one result each.
    async fn call_many(&self, calls: Vec<Wanted>, ctx: &CallContext) -> ToolOutput {
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .enumerate()
            .map(|(k, w)| ToolCall {
                id: k.to_string(),
                name: w.name,
                arguments: w.arguments,
            })
            .collect();
        let concurrent = |call: &ToolCall| {
            self.tools
                .lookup(&call.name)
                .is_some_and(|i| concurrency_safe_annotations(&self.tools.entries[i].annotations()))
        };
        let results = Batch::from_calls(&calls, concurrent, move |call| run_found(self, call, ctx))
            .run(CALL_TOOL_CONCURRENCY)
            .await;
        let results: Vec<Value> = results
            .into_iter()
            .zip(&calls)
            .map(|(result, call)| {
                let mut one = Map::new();
                one.insert("name".into(), Value::from(call.name.as_str()));
                one.insert("isError".into(), Value::Bool(result.is_error));
                let output = match result.structured {
                    Some(value) => value,
                    None => Value::String(result.content),
                };
                one.insert("output".into(), output);
                Value::Object(one)
            })
            .collect();
        ToolOutput::json(serde_json::json!({ "results": results }))
    }

    /// The answer to a name that does not exist: the closest names of the session.
    fn closest_message(&self, name: &str) -> String {
        let closest = self.closest_names(name, 5);
        let mut message = format!("Unknown tool `{}`.", validate::clip(name, 100));
        if closest.is_empty() {
            message.push_str(&format!(" Find tools with {TOOL_SEARCH}."));
        } else {
            message.push_str(&format!(
                " Closest names: {}. Use one of them, or find others with {TOOL_SEARCH}.",
                closest.join(", ")
            ));
        }
        message
    }

    /// Up to `n` names of the session closest to `name`: by edit distance (a misspelt or
    /// singular name finds its tool first), name parts in common breaking near-ties.
    pub fn closest_names(&self, name: &str, n: usize) -> Vec<&str> {
        self.tools.closest_names(name, n)
    }
}

/// One call of a `CallTool` batch (or a `RunCode` program's), as the scheduler's result under
/// its id.
pub(super) fn run_found<'a>(
    session: &'a ToolSession,
    call: &'a ToolCall,
    ctx: &'a CallContext,
) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let outcome = session
            .call_found(&call.name, call.arguments.clone(), ctx)
            .await;
        super::call_result(&call.id, outcome)
    })
}

/// What a `CallTool` call asks for.
enum Request {
    One(Wanted),
    Many(Vec<Wanted>),
}

/// Reads `CallTool` arguments, refusing malformed ones with every problem in one message.
fn parse_call(arguments: Value) -> Result<Request, CharterError> {
    let arguments = match arguments {
        Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        other => other,
    };
    let refuse =
        |issues: Vec<Issue>| CharterError::Validation(validate::message(CALL_TOOL, &issues));
    let Value::Object(mut map) = arguments else {
        return Err(refuse(vec![Issue {
            path: String::new(),
            expected: "an object {\"name\": string, \"arguments\": object} or {\"calls\": [...]}"
                .into(),
            got: validate::got(&arguments),
        }]));
    };
    let mut issues = Vec::new();
    let why = format!("{CALL_TOOL} takes name and arguments, or calls");
    validate::unexpected_keys(&map, &["name", "arguments", "calls"], "", &why, &mut issues);
    let request = match (map.remove("calls"), map.contains_key("name")) {
        (Some(_), true) => {
            issues.push(Issue {
                path: "/calls".into(),
                expected: "either name and arguments (one call) or calls (several), not both"
                    .into(),
                got: "both".into(),
            });
            None
        }
        (Some(Value::Array(calls)), false) if !calls.is_empty() => {
            if calls.len() > super::MAX_BATCH_CALLS {
                issues.push(Issue {
                    path: "/calls".into(),
                    expected: format!("at most {} calls", super::MAX_BATCH_CALLS),
                    got: format!("{} calls", calls.len()),
                });
            }
            let wanted: Vec<Wanted> = calls
                .into_iter()
                .enumerate()
                .filter_map(|(k, call)| wanted(call, &format!("/calls/{k}"), &mut issues))
                .collect();
            Some(Request::Many(wanted))
        }
        (Some(other), false) => {
            issues.push(Issue {
                path: "/calls".into(),
                expected: "a non-empty array of {\"name\", \"arguments\"}".into(),
                got: validate::got(&other),
            });
            None
        }
        (None, _) => wanted(Value::Object(map), "", &mut issues).map(Request::One),
    };
    match request {
        Some(request) if issues.is_empty() => Ok(request),
        _ => Err(refuse(issues)),
    }
}

/// One `{name, arguments}` at `path`, or the problems with it added to `issues`.
fn wanted(call: Value, path: &str, issues: &mut Vec<Issue>) -> Option<Wanted> {
    let Value::Object(mut map) = call else {
        issues.push(Issue {
            path: path.to_owned(),
            expected: "an object {\"name\": string, \"arguments\": object}".into(),
            got: validate::got(&call),
        });
        return None;
    };
    let before = issues.len();
    if !path.is_empty() {
        let why = "a call has name and arguments";
        validate::unexpected_keys(&map, &["name", "arguments"], path, why, issues);
    }
    let name = match map.remove("name") {
        Some(Value::String(name)) => Some(name),
        other => {
            issues.push(Issue {
                path: format!("{path}/name"),
                expected: "the tool's name, a string (required)".into(),
                got: other.as_ref().map_or("nothing".into(), validate::got),
            });
            None
        }
    };
    // A model that sends the arguments as JSON text meant the object.
    let arguments = match map.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                issues.push(Issue {
                    path: format!("{path}/arguments"),
                    expected: "an object".into(),
                    got: validate::got(&Value::String(text)),
                });
                Value::Null
            }
        },
        Some(value @ Value::Object(_)) => value,
        Some(other) => {
            issues.push(Issue {
                path: format!("{path}/arguments"),
                expected: "an object".into(),
                got: validate::got(&other),
            });
            Value::Null
        }
    };
    (issues.len() == before).then(|| Wanted {
        name: name.unwrap_or_default(),
        arguments,
    })
}
