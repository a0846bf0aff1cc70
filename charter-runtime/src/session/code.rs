//! Code mode (docs/code-mode.md): a fixed list of `ToolSearch` and [`RUN_CODE`]. ToolSearch
//! finds tools and answers with their signatures, as a program calls them; `RunCode` runs a
//! program whose tool calls go through the same path as a direct call (validation with the same
//! message, the session mode's views, pins, from-context fields, credentials), each batch of
//! them through the scheduler. Like search-and-call, nothing is remembered between calls.

use std::fmt::Write as _;

use serde_json::Value;

use super::ToolSession;
use super::entry::Entry;
use crate::context::CallContext;
use crate::error::CharterError;
use crate::table::{BoxFuture, ToolOutput};
use crate::validate::{self, Issue};

/// The name of the code tool of a code-mode session.
pub const RUN_CODE: &str = "RunCode";

/// The parameter schema of [`RUN_CODE`].
pub const RUN_CODE_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"code":{"type":"string","description":"#,
    r#""The body of an async JavaScript function: await tool calls, return the answer.""#,
    r#"}},"required":["code"],"additionalProperties":false}"#
);

/// The description of [`RUN_CODE`].
pub const RUN_CODE_DESCRIPTION: &str = "Runs a JavaScript program that calls tools and returns \
only what is needed. Each pack is a global object with one async function per tool, declared as \
ToolSearch shows it: `const prs = await github.pulls_list({owner, repo})`. A call returns the \
tool's JSON (or its text) and throws the tool's error. Calls awaited together (`Promise.all`) \
run as one batch. The result is the returned value as JSON, with any console.log lines. No \
network, files, timers or modules: only the tools.";

/// The usage text of ToolSearch in code mode.
pub(super) const CODE_SEARCH_USAGE: &str = "Finds tools for RunCode programs: each comes back \
declared as a program calls it, `<pack>.<tool>(args)`, with its arguments. Query forms: \
`select:name_a,name_b` finds exactly those tools; keywords (`calendar event`) find the best \
matches, up to max_results (default 5); `+term` keeps only tools whose name contains term \
(`+stripe refund`). Every name starts with its pack (`<pack>_<tool>`).";

impl ToolSession {
    /// Whether this session is in code mode ([`Disclosure::Code`](super::Disclosure::Code) is
    /// in force): it lists ToolSearch and [`RUN_CODE`].
    pub fn is_code_mode(&self) -> bool {
        self.disclosure.in_force() == super::Disclosure::Code
    }

    /// The `RunCode` definition, if this session offers it.
    pub fn run_code(&self) -> Option<super::ToolEntry<'_>> {
        self.is_code_mode().then_some(super::ToolEntry {
            name: RUN_CODE,
            description: RUN_CODE_DESCRIPTION,
            schema: RUN_CODE_SCHEMA,
            tokens: const { crate::tokens::text_tokens(RUN_CODE_SCHEMA) },
            annotations: crate::table::Annotations::default(),
        })
    }

    /// The ToolSearch answer of a code-mode session: the note, then each found tool's
    /// signature, then (when names were unknown or nothing matched) what exists.
    pub(super) fn found_signatures(&self, answer: &super::SearchAnswer) -> String {
        let mut out = answer.note.clone();
        for i in answer.loaded.iter().filter_map(|n| self.tools.lookup(n)) {
            out.push_str("\n\n");
            out.push_str(&self.tools.entries[i].signature());
        }
        if !answer.unknown.is_empty() {
            let _ = write!(out, "\n\nUnknown: {}", answer.unknown.join(", "));
        }
        if !answer.available.is_empty() {
            let _ = write!(out, "\n\nAvailable: {}", answer.available.join(", "));
        }
        if !answer.nearest.is_empty() {
            let _ = write!(out, "\n\nNearest: {}", answer.nearest.join(", "));
        }
        if !answer.packs.is_empty() {
            let _ = write!(out, "\n\nPacks:\n{}", answer.packs.join("\n"));
        }
        out
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
    /// The tool as a program calls it, for ToolSearch's answer in code mode.
    ///
    /// INTERIM: the TypeScript declaration of each view is to be generated at build time and
    /// stored in the tables with its size (docs/code-mode.md); until the tables carry it, this
    /// writes the call's form with the view's JSON schema as its argument type.
    pub(super) fn signature(&self) -> String {
        let (pack, tool) = self.pack_and_tool();
        let access = charter_terms::script::tool_access(pack, tool);
        let description = self.description().replace("*/", "*\\/");
        format!(
            "/** {description} */\n{access}(args: {}): Promise<any>",
            self.schema()
        )
    }
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
