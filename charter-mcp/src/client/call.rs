//! Running calls on the server: batches through the shared scheduler, and one call with its
//! timeout and the server's answer turned into charter's.

use charter_runtime::scheduler::{Batch, CallResult, ToolCall, concurrency_safe};
use charter_runtime::validate::json_kind;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;

use super::*;

impl McpToolkit {
    /// Runs a batch of the model's calls through the batch scheduler, concurrently only when
    /// every call is of a tool the server annotated read-only **and** idempotent (explicit
    /// `true`). Identical calls in a concurrent batch execute once; answers come back in the
    /// calls' order, one per call, under each call's id; a failed call (an `isError` result, a
    /// refused request, a dead server, a timeout) is an `is_error` result, never a panic.
    pub async fn execute_tool_calls(
        &self,
        calls: &[ToolCall],
        ctx: &CallContext,
        concurrency: usize,
    ) -> Vec<CallResult> {
        let safe: HashSet<Arc<str>> = {
            let catalog = self.read();
            catalog
                .tools
                .iter()
                .filter(|r| concurrency_safe(&r.hints))
                .map(|r| r.tool.name.clone())
                .collect()
        };
        Batch::from_calls(
            calls,
            |call| safe.contains(call.name.as_str()),
            move |call| {
                Box::pin(async move {
                    match self
                        .call_remote(&call.name, call.arguments.clone(), ctx)
                        .await
                    {
                        Ok(output) => CallResult {
                            id: call.id.clone(),
                            content: output.text,
                            structured: output.structured,
                            is_error: false,
                        },
                        Err(error) => CallResult {
                            id: call.id.clone(),
                            content: error.to_string(),
                            structured: None,
                            is_error: true,
                        },
                    }
                })
            },
        )
        .run(concurrency)
        .await
    }

    /// One `tools/call` of a qualified name, within the call timeout.
    pub(super) async fn call_remote(
        &self,
        tool: &str,
        arguments: Value,
        _ctx: &CallContext,
    ) -> Result<ToolOutput, CharterError> {
        let inner = &self.inner;
        let Some(remote) = self.remote_name(tool) else {
            let names: Vec<String> = self
                .read()
                .tools
                .iter()
                .map(|r| r.tool.name.to_string())
                .collect();
            return Err(CharterError::Validation(format!(
                "Unknown tool `{tool}`. The MCP server {} offers: {}.",
                inner.server,
                if names.is_empty() {
                    "nothing".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        };
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(CharterError::Validation(format!(
                    "`{tool}` takes a JSON object of arguments, not {}",
                    json_kind(&other)
                )));
            }
        };
        if let Some(reason) = self.down() {
            return Err(inner.unreachable(tool, &reason));
        }
        let mut params = CallToolRequestParams::new(remote);
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let answer =
            tokio::time::timeout(inner.options.call_timeout, inner.peer.call_tool(params)).await;
        match answer {
            Err(_) => Err(CharterError::Transport(format!(
                "the MCP server {} did not answer `{tool}` within {} s",
                inner.server,
                inner.options.call_timeout.as_secs_f64()
            ))),
            Ok(Ok(result)) if result.is_error == Some(true) => {
                Err(CharterError::Tool(convert::text_of(&result)))
            }
            Ok(Ok(result)) => Ok(convert::output(result)),
            Ok(Err(ServiceError::McpError(error))) => Err(CharterError::Tool(format!(
                "the MCP server {} refused the call of `{tool}`: {}",
                inner.server, error.message
            ))),
            Ok(Err(error @ (ServiceError::TransportClosed | ServiceError::TransportSend(_)))) => {
                let reason = self.down().unwrap_or_else(|| error_chain(&error));
                Err(inner.unreachable(tool, &reason))
            }
            Ok(Err(error)) => Err(CharterError::Transport(format!(
                "the call of `{tool}` on the MCP server {} failed: {error}",
                inner.server
            ))),
        }
    }
}
