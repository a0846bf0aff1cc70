//! The batch scheduler (SPEC §7, seed 000): one function runs every batch of tool calls, for the
//! local bridge and the remote one, so both answer a batch identically.
//!
//! SKELETON: signatures are the contract other crates code against; bodies are being filled in.

use serde_json::Value;

use crate::table::BoxFuture;

/// One answer, provider-neutral: adapters map it to OpenAI, Anthropic or MCP.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The model's call id this answers.
    pub id: String,
    /// The text the model reads.
    pub content: String,
    /// The same answer as JSON, when it is JSON.
    pub structured: Option<Value>,
    /// Whether this is an error result.
    pub is_error: bool,
}

/// One call of a batch, as the model sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The model's call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub arguments: Value,
}

/// A unit of work: called at most once, on whichever worker the scheduler picked.
pub type Work<'a> = Box<dyn FnOnce() -> BoxFuture<'a, CallResult> + Send + 'a>;

/// One slot of a batch.
pub struct Slot<'a> {
    /// The model's call id; a deduplicated answer is re-stamped with it.
    pub id: String,
    /// Whether this call may run beside its neighbours (see [`concurrency_safe`]).
    pub concurrent: bool,
    /// The deduplication identity from [`argument_identity`]; `None` never deduplicates.
    pub key: Option<String>,
    /// The work.
    pub work: Work<'a>,
}

/// True only when `readOnlyHint` and `idempotentHint` are both explicitly boolean `true` in
/// MCP-style annotations (a JSON object).
pub fn concurrency_safe(annotations: &Value) -> bool {
    let _ = annotations;
    todo!("scheduler")
}

/// The name, a NUL, then the arguments as JSON with object keys sorted (array order kept).
pub fn argument_identity(name: &str, arguments: &Value) -> Option<String> {
    let _ = (name, arguments);
    todo!("scheduler")
}

/// Runs one batch and answers one result per slot, in slot order.
pub async fn run_tool_batch(slots: Vec<Slot<'_>>, concurrency: usize) -> Vec<CallResult> {
    let _ = (slots, concurrency);
    todo!("scheduler")
}
