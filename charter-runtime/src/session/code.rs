//! Code mode (docs/code-mode.md): a fixed list of `ToolSearch` and [`RUN_CODE`]. ToolSearch
//! finds tools and answers with their signatures, as a program calls them; `RunCode` runs a
//! program whose tool calls go through the same path as a direct call (validation with the same
//! message, the session mode's views, pins, from-context fields, credentials), each batch of
//! them through the scheduler. Like search-and-call, nothing is remembered between calls.

use serde_json::Value;

use super::ToolSession;
use super::entry::{Entry, Kind};
use crate::context::CallContext;
use crate::error::CharterError;
use crate::table::{BoxFuture, ToolOutput};
use crate::validate::{self, Issue};

/// The name of the code tool of a code-mode session.
pub const RUN_CODE: &str = "RunCode";

/// The parameter schema of [`RUN_CODE`].
pub const RUN_CODE_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"code":{"type":"string","description":"#,
    r#""The body of an async function: await calls, return the answer.""#,
    r#"}},"required":["code"],"additionalProperties":false}"#
);

/// [`RUN_CODE_SCHEMA`] in Gemini's dialect: its `Schema` has no `additionalProperties`.
pub const RUN_CODE_SCHEMA_GEMINI: &str = concat!(
    r#"{"type":"object","properties":{"code":{"type":"string","description":"#,
    r#""The body of an async function: await calls, return the answer.""#,
    r#"}},"required":["code"]}"#
);

/// The description of [`RUN_CODE`]. Sent with every request of a conversation, so each clause
/// says something no other text of the list says (docs/code-mode.md, "The fixed list").
pub const RUN_CODE_DESCRIPTION: &str = "Runs JavaScript that calls tools and returns only what \
is needed. Each pack is a global with one async function per tool, as ToolSearch declares it: \
`const prs = await github.pulls_list({owner, repo})`. A call returns the tool's JSON (or text) \
and throws its error; calls in one `Promise.all` run as one batch. Result: the returned value as \
JSON, plus console.log lines. No network, files, timers or modules.";

/// The usage text of ToolSearch in code mode: the query forms are explained here once, not
/// again in [`CODE_SEARCH_SCHEMA`].
pub(super) const CODE_SEARCH_USAGE: &str = "Finds tools for RunCode programs. Keywords \
(`calendar event`) find the best matches, up to max_results (default 5): the best comes back \
declared as a program calls it, `<pack>.<tool>(args)`, the others by name; \
`select:name_a,name_b` declares exactly those tools; `+term` keeps only tools whose name \
contains term (`+stripe refund`). Every name starts with its pack (`<pack>_<tool>`).";

/// The parameter schema of ToolSearch in code mode: its description ([`CODE_SEARCH_USAGE`])
/// already says what each form of query does and what max_results is.
pub(super) const CODE_SEARCH_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"query":{"type":"string","description":"#,
    r#""Keywords, select:name_a,name_b, or +term keywords.""#,
    r#"},"max_results":{"type":"integer"}},"required":["query"],"additionalProperties":false}"#
);

/// [`CODE_SEARCH_SCHEMA`] in Gemini's dialect: its `Schema` has no `additionalProperties`.
pub(super) const CODE_SEARCH_SCHEMA_GEMINI: &str = concat!(
    r#"{"type":"object","properties":{"query":{"type":"string","description":"#,
    r#""Keywords, select:name_a,name_b, or +term keywords.""#,
    r#"},"max_results":{"type":"integer"}},"required":["query"]}"#
);

impl ToolSession {
    /// Whether this session is in code mode ([`Disclosure::Code`](super::Disclosure::Code) is
    /// in force): it lists ToolSearch and [`RUN_CODE`].
    pub fn is_code_mode(&self) -> bool {
        self.disclosure.in_force() == super::Disclosure::Code
    }

    /// The `RunCode` definition, if this session offers it.
    pub fn run_code(&self) -> Option<super::ToolEntry<'_>> {
        let (schema, tokens) = self.own_schema(
            const { super::sized(RUN_CODE_SCHEMA) },
            const { super::sized(RUN_CODE_SCHEMA_GEMINI) },
        );
        self.is_code_mode().then_some(super::ToolEntry {
            name: RUN_CODE,
            description: RUN_CODE_DESCRIPTION,
            schema,
            tokens,
            annotations: crate::table::Annotations::default(),
            dialect: self.own_dialect(),
            output: None,
        })
    }

    /// The ToolSearch answer of a code-mode session: the note (when there is one), each found
    /// tool, then (when names were unknown or nothing matched) what exists.
    ///
    /// A `select:` query declares every tool it names. A keyword query declares its best match
    /// and names the others on one line, as a tool search's references do: a program can call
    /// only what it has seen declared, a keyword search's further matches are mostly not the
    /// tools the program calls, and every name says its pack, resource and verb
    /// (`github_issues_list`), so a description of each adds little for what it costs
    /// (docs/code-mode.md, "The answer"). `select:` declares a listed one.
    pub(super) fn found_signatures(&self, answer: &super::SearchAnswer, named: bool) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !answer.note.is_empty() {
            parts.push(answer.note.clone());
        }
        let found: Vec<usize> = answer
            .loaded
            .iter()
            .filter_map(|n| self.tools.lookup(n))
            .collect();
        let full = if named {
            found.len()
        } else {
            found.len().min(1)
        };
        let (declared, listed) = found.split_at(full);
        parts.extend(declared.iter().map(|i| self.tools.entries[*i].signature()));
        if !listed.is_empty() {
            let names: Vec<&str> = listed
                .iter()
                .map(|i| self.tools.entries[*i].name())
                .collect();
            parts.push(format!("Also found: {}", names.join(", ")));
        }
        if !answer.unknown.is_empty() {
            parts.push(format!("Unknown: {}", answer.unknown.join(", ")));
        }
        if !answer.available.is_empty() {
            parts.push(format!("Available: {}", answer.available.join(", ")));
        }
        if !answer.nearest.is_empty() {
            parts.push(format!("Nearest: {}", answer.nearest.join(", ")));
        }
        if !answer.packs.is_empty() {
            parts.push(format!("Packs:\n{}", answer.packs.join("\n")));
        }
        parts.join("\n\n")
    }

    /// Runs a `RunCode` call: `{"code": "..."}`, the body of an async function.
    pub(super) fn run_code_call<'a>(
        &'a self,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            let source = program(arguments)?;
            self.run_program(source, ctx).await
        })
    }

    #[cfg(feature = "code")]
    async fn run_program(
        &self,
        source: String,
        ctx: &CallContext,
    ) -> Result<ToolOutput, CharterError> {
        use crate::scheduler::{Batch, ToolCall, concurrency_safe_annotations};

        let bindings = self
            .tools
            .bindings
            .get_or_init(|| std::sync::Arc::new(self.bindings()))
            .clone();
        let batch = |calls: Vec<ToolCall>| -> BoxFuture<'_, Vec<crate::scheduler::CallResult>> {
            Box::pin(async move {
                let concurrent = |call: &ToolCall| {
                    self.tools.lookup(&call.name).is_some_and(|i| {
                        concurrency_safe_annotations(&self.tools.entries[i].annotations())
                    })
                };
                Batch::from_calls(&calls, concurrent, move |call| {
                    super::call::run_found(self, call, ctx)
                })
                .run(super::CALL_TOOL_CONCURRENCY)
                .await
            })
        };
        crate::code::run(&self.tools.code, source, bindings, batch).await
    }

    #[cfg(not(feature = "code"))]
    async fn run_program(
        &self,
        _source: String,
        _ctx: &CallContext,
    ) -> Result<ToolOutput, CharterError> {
        // Unreachable: a session in code mode is refused when it is built without the feature.
        Err(CharterError::Tool(
            "RunCode is not part of this build (charter-runtime's `code` feature)".into(),
        ))
    }

    /// One global per pack, one function per tool, in the session's order.
    #[cfg(feature = "code")]
    fn bindings(&self) -> crate::code::Bindings {
        let mut packs: Vec<crate::code::PackBinding> = Vec::new();
        for entry in &self.tools.entries {
            let (pack, tool) = entry.pack_and_tool();
            let global = charter_terms::script::pack_global(pack);
            let key = tool.to_owned();
            let name = entry.name().to_owned();
            match packs.iter_mut().find(|p| p.global == global) {
                Some(binding) => binding.tools.push((key, name)),
                None => packs.push(crate::code::PackBinding {
                    global,
                    tools: vec![(key, name)],
                }),
            }
        }
        crate::code::Bindings { packs }
    }
}

impl Entry {
    /// The tool as a program calls it, for ToolSearch's answer in code mode: its description,
    /// then its access and the view's TypeScript signature from the table
    /// (`github.issues_list(args: {..}): Promise<..>`), less the lines of arguments the
    /// deployment pinned or fills from context. A tool without one (a toolkit's, a hand-built
    /// view) shows its JSON schema as the argument type instead.
    pub(super) fn signature(&self) -> String {
        let (pack, tool) = self.pack_and_tool();
        let access = charter_terms::script::tool_access(pack, tool);
        let description = self.description().replace("*/", "*\\/");
        let declared = match &self.kind {
            Kind::Static { view, .. } if !view.signature.is_empty() => Some(view.signature),
            _ => None,
        };
        match (declared, &self.narrowing) {
            (Some(signature), None) => format!("/** {description} */\n{access}{signature}"),
            (Some(signature), Some(_)) => {
                let signature = without_arguments(signature, |name| self.narrowed(name).is_some());
                format!("/** {description} */\n{access}{signature}")
            }
            (None, _) => format!(
                "/** {description} */\n{access}(args: {}): Promise<any>",
                self.schema()
            ),
        }
    }
}

/// A signature without the lines of the top-level arguments `drop` names. Each argument is one
/// line, `  /** doc */ name?: type;`, its doc comment free of `*/` (the emitter's layout:
/// `charter_schema::emit::typescript`).
fn without_arguments(signature: &str, drop: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(signature.len());
    for line in signature.split_inclusive('\n') {
        let dropped = line.strip_prefix("  ").is_some_and(|member| {
            let member = match member.strip_prefix("/** ") {
                Some(doc) => doc.split_once(" */ ").map_or("", |(_, rest)| rest),
                None => member,
            };
            drop(&member_name(member))
        });
        if !dropped {
            out.push_str(line);
        }
    }
    out
}

/// Whether a ToolSearch call names its tools (`select:`) rather than searching by keywords.
pub(super) fn names_tools(arguments: &Value) -> bool {
    let select = |map: &serde_json::Map<String, Value>| {
        map.get("query")
            .and_then(Value::as_str)
            .is_some_and(|q| q.trim_start().starts_with("select:"))
    };
    match arguments {
        Value::Object(map) => select(map),
        // String-encoded arguments, as some clients send them.
        Value::String(text) => serde_json::from_str::<serde_json::Map<String, Value>>(text)
            .is_ok_and(|map| select(&map)),
        _ => false,
    }
}

/// The name a member line declares: an identifier, or a string literal.
fn member_name(member: &str) -> String {
    if member.starts_with('"') {
        let mut stream = serde_json::Deserializer::from_str(member).into_iter::<String>();
        return stream.next().and_then(Result::ok).unwrap_or_default();
    }
    member
        .split(['?', ':'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The program of a `RunCode` call, or the problems with its arguments.
fn program(arguments: Value) -> Result<String, CharterError> {
    let arguments = match arguments {
        Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        other => other,
    };
    let mut issues = Vec::new();
    let Value::Object(mut map) = arguments else {
        issues.push(Issue {
            path: String::new(),
            expected: "an object {\"code\": string}".into(),
            got: validate::got(&arguments),
        });
        return Err(CharterError::Validation(validate::message(
            RUN_CODE, &issues,
        )));
    };
    validate::unexpected_keys(&map, &["code"], "", "RunCode takes only code", &mut issues);
    match map.remove("code") {
        Some(Value::String(code)) if issues.is_empty() => Ok(code),
        Some(Value::String(_)) => Err(CharterError::Validation(validate::message(
            RUN_CODE, &issues,
        ))),
        other => {
            issues.push(Issue {
                path: "/code".into(),
                expected: "the program, a string (required)".into(),
                got: other.as_ref().map_or("nothing".into(), validate::got),
            });
            Err(CharterError::Validation(validate::message(
                RUN_CODE, &issues,
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_arguments_leave_the_signature_line_by_line() {
        let signature = "(args: {\n  // Give at least one of: owner, or repo.\n  /** The owner: x */ owner: string;\n  \"per-page\"?: number;\n  /** Repo. */ repo?: {a: string};\n}): Promise<any>";
        let kept = without_arguments(signature, |n| n == "owner" || n == "per-page");
        assert_eq!(
            kept,
            "(args: {\n  // Give at least one of: owner, or repo.\n  /** Repo. */ repo?: {a: string};\n}): Promise<any>"
        );
    }
}
