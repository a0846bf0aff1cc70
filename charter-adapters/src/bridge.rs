//! The step both loops share: the model's calls of one turn, run as one batch.
//!
//! Calls whose arguments are not JSON are answered here and never reach a tool; the rest go
//! together through [`ToolSession::execute_tool_calls`] (the local bridge onto the batch
//! scheduler, docs/design.md §7), and the answers are merged back in the model's order.

use charter_runtime::CallContext;
use charter_runtime::scheduler::{CallResult, ToolCall};
use charter_runtime::session::ToolSession;

/// One call of the model's turn.
pub(crate) enum Pending {
    /// A call with parsed arguments.
    Call(ToolCall),
    /// A call whose arguments could not be read; `message` is the tool result.
    Malformed {
        /// The model's call id.
        id: String,
        /// What to tell the model.
        message: String,
    },
}

impl Pending {
    /// Parses the argument text of an OpenAI-style call (a JSON object as a string). Blank text
    /// is taken as `{}`: some servers send it for a call without arguments.
    pub(crate) fn parse(id: String, name: String, arguments: &str) -> Pending {
        if arguments.trim().is_empty() {
            return Pending::Call(ToolCall {
                id,
                name,
                arguments: serde_json::Value::Object(Default::default()),
            });
        }
        match serde_json::from_str(arguments) {
            Ok(arguments) => Pending::Call(ToolCall {
                id,
                name,
                arguments,
            }),
            Err(e) => Pending::Malformed {
                message: format!(
                    "The arguments of this call to `{name}` are not valid JSON ({e}), so the tool was not run. \
                     Call it again with the arguments as one JSON object."
                ),
                id,
            },
        }
    }
}

/// Runs the turn's calls and answers one result per call, in the model's order.
pub(crate) async fn run_batch(
    session: &ToolSession,
    ctx: &CallContext,
    pending: Vec<Pending>,
    concurrency: usize,
) -> Vec<CallResult> {
    let calls: Vec<ToolCall> = pending
        .iter()
        .filter_map(|p| match p {
            Pending::Call(call) => Some(call.clone()),
            Pending::Malformed { .. } => None,
        })
        .collect();
    let mut answers = if calls.is_empty() {
        Vec::new()
    } else {
        session
            .execute_tool_calls(&calls, ctx, concurrency.max(1))
            .await
    }
    .into_iter();
    pending
        .into_iter()
        .map(|p| match p {
            Pending::Call(call) => answers.next().unwrap_or_else(|| {
                // The bridge answers every call; if it ever did not, the model still gets an
                // answer under the right id rather than a transcript the provider refuses.
                tracing::error!(id = %call.id, tool = %call.name, "the batch returned no result for a call");
                CallResult {
                    id: call.id,
                    content: format!("No result was produced for this call to `{}`.", call.name),
                    structured: None,
                    is_error: true,
                }
            }),
            Pending::Malformed { id, message } => CallResult { id, content: message, structured: None, is_error: true },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reads_json_blank_and_malformed() {
        match Pending::parse("c1".into(), "t".into(), r#"{"a":1}"#) {
            Pending::Call(call) => assert_eq!(call.arguments, serde_json::json!({"a": 1})),
            Pending::Malformed { .. } => panic!("valid JSON refused"),
        }
        match Pending::parse("c2".into(), "t".into(), "  ") {
            Pending::Call(call) => assert_eq!(call.arguments, serde_json::json!({})),
            Pending::Malformed { .. } => panic!("blank refused"),
        }
        match Pending::parse("c3".into(), "demo_x".into(), r#"{"a":"#) {
            Pending::Malformed { id, message } => {
                assert_eq!(id, "c3");
                assert!(
                    message.contains("not valid JSON") && message.contains("demo_x"),
                    "{message}"
                );
            }
            Pending::Call(_) => panic!("malformed accepted"),
        }
    }
}
