//! The batch scheduler (docs/design.md §7): one function runs every batch of tool calls, for the
//! local bridge (a session's own tools) and the remote one (an MCP server's), so both answer a
//! batch identically: same order, same results, same number of executions.
//!
//! It lives in one place because the two bridges must be interchangeable (a toolkit reached
//! locally and the same toolkit reached over MCP answer alike), and "how a batch is executed" is
//! exactly the decision that drifts when it is written twice.
//!
//! **What it decides.** A batch runs strictly serially, in the caller's order, unless *every* call
//! in it is annotated read-only *and* idempotent ([`concurrency_safe`]); then the distinct calls
//! run on at most `concurrency` workers and the answers are reassembled in slot order. Nothing is
//! raced or returned lazily: by the time [`run_tool_batch`] returns, every unit has finished.
//!
//! **Why "every".** One mutating call makes the whole batch a sequence: an `fs_read` beside an
//! `fs_write` may be reading what that write just wrote, and a model that asked for both in one
//! turn is describing an order. The annotation is the only evidence that a call cannot be part of
//! such a sequence, so a batch is only widened when every one of its calls carries it.
//!
//! ```
//! use charter_runtime::scheduler::{Batch, CallResult, ToolCall};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let call = |id: &str| ToolCall {
//!     id: id.into(),
//!     name: "fs_read".into(),
//!     arguments: serde_json::json!({"path": "a"}),
//! };
//! let calls = vec![call("c1"), call("c2")];
//! // Concurrent only when the lookup says so; `run` may borrow the calls and the caller's state.
//! let results = Batch::from_calls(&calls, |_| true, |call| {
//!     Box::pin(async move {
//!         let id = call.id.clone();
//!         CallResult { id, content: "hello".into(), structured: None, is_error: false }
//!     })
//! })
//! .run(4)
//! .await;
//! assert_eq!(results[1].id, "c2"); // one read, answered under both ids
//! # });
//! ```

use std::any::Any;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, PoisonError};

use futures::FutureExt;
use serde::Serialize;
use serde_json::Value;

use crate::table::{Annotations, BoxFuture};

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
///
/// Called exactly once per distinct key in a concurrent batch and once per slot in a serial one.
/// Its answer should carry its slot's id; the scheduler only re-stamps deduplicated copies.
pub type Work<'a> = Box<dyn FnOnce() -> BoxFuture<'a, CallResult> + Send + 'a>;

/// One slot of a batch.
pub struct Slot<'a> {
    /// The model's call id; a deduplicated answer is re-stamped with it.
    pub id: String,
    /// Whether this call may run beside its neighbours (see [`concurrency_safe`]); one `false`
    /// makes the whole batch serial.
    pub concurrent: bool,
    /// The deduplication identity from [`argument_identity`]; `None` never deduplicates.
    pub key: Option<String>,
    /// The work.
    pub work: Work<'a>,
}

impl std::fmt::Debug for Slot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("id", &self.id)
            .field("concurrent", &self.concurrent)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// True only when `readOnlyHint` and `idempotentHint` are both explicitly boolean `true` in
/// MCP-style annotations (a JSON object).
///
/// Read-only alone is not enough: `readOnlyHint` promises the *world* is unchanged,
/// `idempotentHint` that *repeating* the call adds nothing, and the second is what makes
/// deduplication inside a batch honest. A tool that reads but is not idempotent (one that asks a
/// human a question, or hands out a fresh handle) is hostile to running twice at once, so it keeps
/// its place in the queue.
///
/// Anything but an explicit JSON `true` is a no: an absent hint, `null`, the string `"true"` from
/// a server that hand-rolled its JSON, or annotations that are not an object at all. Concurrency
/// is opted into, never inferred.
pub fn concurrency_safe(annotations: &Value) -> bool {
    let yes = |hint: &str| matches!(annotations.get(hint), Some(Value::Bool(true)));
    yes("readOnlyHint") && yes("idempotentHint")
}

/// [`concurrency_safe`] for a static table's annotations: read-only and idempotent.
///
/// Static tables hold plain booleans, so there is no "absent" or `"true"` case to refuse.
pub fn concurrency_safe_annotations(annotations: &Annotations) -> bool {
    annotations.read_only && annotations.idempotent
}

/// The name, a NUL, then the arguments as JSON with object keys sorted (array order kept).
///
/// Sorted keys make it an identity rather than a spelling: `{"a":1,"b":2}` and `{"b":2,"a":1}`
/// are the same call, while `[1,2]` is not `[2,1]`. Keys are sorted explicitly at every depth,
/// because this workspace builds `serde_json` with `preserve_order`.
///
/// The NUL is a separator no tool name may contain (MCP names are `[A-Za-z0-9_-]`, and JSON text
/// never holds a raw NUL), so no name-plus-arguments pair can collide with another by straddling
/// it. A name that does contain one gets no identity: never deduplicating is the safe direction.
///
/// Every [`Value`] renders, so for a valid name this is always `Some`; arguments that may not
/// render go through [`argument_identity_of`].
pub fn argument_identity(name: &str, arguments: &Value) -> Option<String> {
    if name.contains('\0') {
        return None;
    }
    let mut out = Vec::with_capacity(name.len() + 64);
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    write_canonical(&mut out, arguments, 0).ok()?;
    // Only whole UTF-8 strings were appended, so this never fails; `ok()` keeps it total anyway.
    String::from_utf8(out).ok()
}

/// [`argument_identity`] for arguments of any serialisable type.
///
/// Arguments that cannot be rendered (a handler-built value with no JSON form, a map with
/// non-string keys) get `None`, which every caller reads as "never deduplicate this one": the
/// safe direction.
pub fn argument_identity_of<T: Serialize + ?Sized>(name: &str, arguments: &T) -> Option<String> {
    let value = serde_json::to_value(arguments).ok()?;
    argument_identity(name, &value)
}

/// Compact JSON with object keys sorted at every depth and array order kept. Arguments nested
/// deeper than validation's own limit get no identity (never deduplicated) instead of a
/// recursion as deep as whoever built them chose: validation refuses them anyway.
fn write_canonical(out: &mut Vec<u8>, value: &Value, depth: usize) -> serde_json::Result<()> {
    if depth > crate::validate::MAX_ARGUMENT_DEPTH {
        return Err(serde::ser::Error::custom("nested too deep for an identity"));
    }
    match value {
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(out, item, depth + 1)?;
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key)?;
                out.push(b':');
                write_canonical(out, item, depth + 1)?;
            }
            out.push(b'}');
        }
        scalar => serde_json::to_writer(&mut *out, scalar)?,
    }
    Ok(())
}

/// Whether [`run_tool_batch`] would run these slots concurrently: more than one slot,
/// `concurrency > 1`, and every slot concurrency-safe.
///
/// Nothing to schedule, or nothing to gain, otherwise: one slot is its own order, and a width of
/// one is the serial loop spelled expensively.
pub fn runs_concurrently(slots: &[Slot<'_>], concurrency: usize) -> bool {
    concurrency > 1 && slots.len() > 1 && slots.iter().all(|slot| slot.concurrent)
}

/// Runs one batch and answers one result per slot, in slot order.
///
/// **Serial** (see [`runs_concurrently`]): each unit is called and awaited before the next one
/// starts, eagerly and in order, because tools have side effects and they happen here, inside the
/// call that asked for them.
///
/// **Concurrent**: two identical calls (same key) execute *once* and the answer is copied into
/// each slot under that slot's own id, so a model that reads one file twice in a turn pays for one
/// read: one file opened, one page fetched, one lot of tokens counted. That is confined to
/// concurrent batches on purpose: the annotation is the evidence that the second call could not
/// have seen anything different; without it, "the model asked twice" has to mean twice.
///
/// The distinct calls run on a fixed pool of `min(concurrency, distinct)` workers pulling from a
/// shared cursor, rather than one future per call behind a semaphore: the bound is then
/// structural (there are only ever that many workers) instead of something every unit has to
/// remember to respect; fifty annotated reads are four workers pulling from a queue. Workers are
/// driven together inside the caller's task (no `tokio::spawn`), so work may borrow from the
/// caller.
///
/// **Shielded**: a unit that panics, when called or while polled, becomes an error result for its
/// slot instead of taking the batch down, so "one tool failed" never turns into "the model has no
/// results at all". A unit's own error result passes through unchanged.
pub async fn run_tool_batch(slots: Vec<Slot<'_>>, concurrency: usize) -> Vec<CallResult> {
    if !runs_concurrently(&slots, concurrency) {
        let mut answers = Vec::with_capacity(slots.len());
        for slot in slots {
            answers.push(run_slot(&slot.id, slot.work).await);
        }
        return answers;
    }

    let count = slots.len();
    let mut ids = Vec::with_capacity(count);
    let mut keys = Vec::with_capacity(count);
    let mut works = Vec::with_capacity(count);
    for slot in slots {
        ids.push(slot.id);
        keys.push(slot.key);
        works.push(slot.work);
    }

    // Slot index => the slot whose unit answers for it: its own, unless an earlier slot has the
    // same key. A `None` key always leads itself.
    let mut leader_of: Vec<usize> = (0..count).collect();
    let mut queue = Vec::with_capacity(count);
    {
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(count);
        for (index, work) in works.into_iter().enumerate() {
            if let Some(key) = keys[index].as_deref() {
                if let Some(&leader) = first.get(key) {
                    leader_of[index] = leader;
                    continue; // A follower's unit is never called.
                }
                first.insert(key, index);
            }
            queue.push((index, work));
        }
    }

    // The shared cursor: one lock, held only to take the next unit, never across an await.
    let width = concurrency.min(queue.len());
    let queue = Mutex::new(queue.into_iter());
    let ids = &ids;
    let worker = |_| {
        let queue = &queue;
        async move {
            let mut done = Vec::new();
            loop {
                let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                let Some((index, work)) = next else { break };
                done.push((index, run_slot(&ids[index], work).await));
            }
            done
        }
    };
    // Each worker returns its own answers rather than writing into a shared array, so nothing is
    // written from two places at once. `join_all`, not a race: the answers are already indexed,
    // and what this waits for is every worker having drained the queue, so every unit has
    // finished on return.
    let finished = futures::future::join_all((0..width).map(worker)).await;

    let mut led: Vec<Option<CallResult>> = (0..count).map(|_| None).collect();
    for (index, answer) in finished.into_iter().flatten() {
        led[index] = Some(answer);
    }
    let mut answers: Vec<CallResult> = Vec::with_capacity(count);
    for (index, leader) in leader_of.into_iter().enumerate() {
        let answer = if leader == index {
            led[index].take()
        } else {
            // A leader always precedes its followers, so its answer is already in place.
            answers
                .get(leader)
                .map(|answer| restamp(answer, &ids[index]))
        };
        // Unreachable by construction (every queued unit is answered); an error result rather
        // than a panic keeps the batch total even so.
        answers.push(answer.unwrap_or_else(|| error_result(&ids[index], "the tool was not run")));
    }
    answers
}

/// One slot's unit, shielded: a panic when it is called or while it runs becomes an error result
/// filed under the slot's id. Both bridges promise never to panic, so this is belt and braces,
/// but it stops a future edit to either from killing the batch, and from surfacing as somebody
/// else's problem.
async fn run_slot(id: &str, work: Work<'_>) -> CallResult {
    let future = match catch_unwind(AssertUnwindSafe(work)) {
        Ok(future) => future,
        Err(payload) => return panicked(id, payload.as_ref()),
    };
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(answer) => answer,
        Err(payload) => panicked(id, payload.as_ref()),
    }
}

fn panicked(id: &str, payload: &(dyn Any + Send)) -> CallResult {
    let text = if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.as_str()
    } else {
        "(no message)"
    };
    error_result(id, &format!("the tool panicked: {text}"))
}

fn error_result(id: &str, message: &str) -> CallResult {
    CallResult {
        id: id.to_owned(),
        content: message.to_owned(),
        structured: None,
        is_error: true,
    }
}

/// A deduplicated answer filed under the id of the call it answers: the model's own call id is
/// the only authority on that, and a result under any other id is a conversation the provider
/// rejects on the next request. A full copy (Rust owns its values): the text is cheap next to the
/// call it saved, and no consumer can see another slot's answer change under it.
fn restamp(answer: &CallResult, id: &str) -> CallResult {
    CallResult {
        id: id.to_owned(),
        ..answer.clone()
    }
}

/// Builds a batch's slots from the model's calls, so every bridge derives a slot's id,
/// concurrency and identity the same way.
#[derive(Debug, Default)]
pub struct Batch<'a> {
    slots: Vec<Slot<'a>>,
}

impl<'a> Batch<'a> {
    /// An empty batch with room for `capacity` calls.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            slots: Vec::with_capacity(capacity),
        }
    }

    /// Adds one call. `concurrent` comes from its tool's annotations ([`concurrency_safe`] or
    /// [`concurrency_safe_annotations`]); `work` must answer under `call.id`.
    ///
    /// A call that may not run concurrently gets no key: its batch is serial and never
    /// deduplicates, so rendering its arguments would be wasted work.
    pub fn push(
        &mut self,
        call: &ToolCall,
        concurrent: bool,
        work: impl FnOnce() -> BoxFuture<'a, CallResult> + Send + 'a,
    ) {
        let key = if concurrent {
            argument_identity(&call.name, &call.arguments)
        } else {
            None
        };
        self.slots.push(Slot {
            id: call.id.clone(),
            concurrent,
            key,
            work: Box::new(work),
        });
    }

    /// A batch of `calls`, where `concurrent` looks up whether a call's tool is
    /// concurrency-safe and `run` executes one call (answering under its id).
    pub fn from_calls<F>(
        calls: &'a [ToolCall],
        concurrent: impl Fn(&ToolCall) -> bool,
        run: F,
    ) -> Self
    where
        F: Fn(&'a ToolCall) -> BoxFuture<'a, CallResult> + Clone + Send + 'a,
    {
        let mut batch = Self::with_capacity(calls.len());
        for call in calls {
            let run = run.clone();
            batch.push(call, concurrent(call), move || run(call));
        }
        batch
    }

    /// The slots built so far.
    pub fn slots(&self) -> &[Slot<'a>] {
        &self.slots
    }

    /// The slots, for [`run_tool_batch`].
    pub fn into_slots(self) -> Vec<Slot<'a>> {
        self.slots
    }

    /// Runs the batch through [`run_tool_batch`].
    pub async fn run(self, concurrency: usize) -> Vec<CallResult> {
        run_tool_batch(self.slots, concurrency).await
    }
}
