//! Routing one call (docs/design.md §4, §6), and the local bridge's batches (§7).

use serde_json::Value;

use super::call::CALL_TOOL;
use super::code::RUN_CODE;
use super::entry::Kind;
use super::{Disclosure, MAX_BATCH_CALLS, ToolSession};
use crate::context::CallContext;
use crate::error::CharterError;
use crate::search::TOOL_SEARCH;
use crate::table::{BoxFuture, ToolOutput};
use crate::validate;

impl ToolSession {
    /// Routes one call: ToolSearch loads and answers JSON; a visible tool is validated and
    /// executed; anything else is a validation error written for the model.
    pub fn dispatch<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            let is_search = name == TOOL_SEARCH && self.is_own_tool(name);
            let is_call = name == CALL_TOOL && self.is_own_tool(name);
            let is_run = name == RUN_CODE && self.is_own_tool(name);
            // Static tools are measured by validation; the rest before anything reads them.
            let measured = is_search
                || is_call
                || is_run
                || self
                    .tools
                    .lookup(name)
                    .is_some_and(|i| matches!(self.tools.entries[i].kind, Kind::Dynamic { .. }));
            if measured && let Err(problem) = validate::check_limits(&arguments) {
                return Err(CharterError::Validation(validate::message_line(
                    name, &problem,
                )));
            }
            if is_search {
                let answer = self.tool_search_call(&arguments)?;
                return Ok(match self.disclosure.in_force() {
                    Disclosure::SearchAndCall => ToolOutput::text(self.found_json(&answer)),
                    Disclosure::Code => {
                        let named = super::code::names_tools(&arguments);
                        ToolOutput::text(self.found_signatures(&answer, named))
                    }
                    Disclosure::Eager | Disclosure::ListChanged => {
                        ToolOutput::json(answer.to_json())
                    }
                });
            }
            if is_call {
                return self.call_tool_call(arguments, ctx).await;
            }
            if is_run {
                return self.run_code_call(arguments, ctx).await;
            }
            let Some(i) = self.tools.lookup(name) else {
                return Err(CharterError::Validation(self.unknown_tool(name)));
            };
            if !self.is_callable(name) {
                return Err(CharterError::Validation(format!(
                    "Tool `{name}` is not loaded yet. Load it by calling {TOOL_SEARCH} with \
                     {{\"query\": \"select:{name}\"}}, then call it again."
                )));
            }
            self.tools.execute(i, name, arguments, ctx).await
        })
    }

    /// The local bridge: runs a batch of the model's calls through the scheduler, concurrently
    /// only when every call is of a read-only and idempotent tool (ToolSearch never is).
    ///
    /// Each call goes through [`dispatch`](Self::dispatch); a charter error becomes an
    /// `is_error` result carrying its message (written for the model), so one answer comes back
    /// per call, in the calls' order, under each call's id. An unknown or not-yet-loaded name has
    /// no annotations here, so it makes the batch serial: a ToolSearch earlier in the same batch
    /// then loads a tool before a later call of it runs.
    ///
    /// At most [`MAX_BATCH_CALLS`] calls of one batch run; each call past that gets an error
    /// result (under its own id, in its place) telling the model to send it again next turn, so
    /// nothing is silently dropped and one turn cannot queue unbounded work.
    pub async fn execute_tool_calls(
        &self,
        calls: &[crate::scheduler::ToolCall],
        ctx: &CallContext,
        concurrency: usize,
    ) -> Vec<crate::scheduler::CallResult> {
        use crate::scheduler::{Batch, CallResult, ToolCall, concurrency_safe_annotations};

        let (run, over) = calls.split_at(calls.len().min(MAX_BATCH_CALLS));
        let calls = run;
        let refused = over.iter().enumerate().map(|(k, call)| CallResult {
            id: call.id.clone(),
            content: format!(
                "Not run: one turn may make at most {MAX_BATCH_CALLS} tool calls and this was call #{} of {}. \
                 Call `{}` again in the next turn if you still need it.",
                MAX_BATCH_CALLS + 1 + k,
                MAX_BATCH_CALLS + over.len(),
                validate::clip(&call.name, 64),
            ),
            structured: None,
            is_error: true,
        });

        let concurrent = |call: &ToolCall| {
            if call.name == CALL_TOOL && self.is_own_tool(CALL_TOOL) {
                return self.call_tool_concurrent(&call.arguments);
            }
            call.name != TOOL_SEARCH
                && self.is_callable(&call.name)
                && self
                    .annotations(&call.name)
                    .is_some_and(|a| concurrency_safe_annotations(&a))
        };
        let mut results = Batch::from_calls(calls, concurrent, move |call| answer(self, call, ctx))
            .run(concurrency)
            .await;
        results.extend(refused);
        results
    }
}

/// One call of a local batch, answered as the scheduler's provider-neutral result: the tool's
/// output, or a charter error's message with `is_error` (its reader is the model).
fn answer<'a>(
    session: &'a ToolSession,
    call: &'a crate::scheduler::ToolCall,
    ctx: &'a CallContext,
) -> BoxFuture<'a, crate::scheduler::CallResult> {
    Box::pin(async move {
        let outcome = session
            .dispatch(&call.name, call.arguments.clone(), ctx)
            .await;
        super::call_result(&call.id, outcome)
    })
}
