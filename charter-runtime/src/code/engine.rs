//! The interpreter thread of one program: a QuickJS runtime and context built for it, the loop
//! that runs its jobs and hands its queued tool calls out as batches, and the watch that stops
//! it at a limit.
//!
//! The loop: run every pending job (the program's synchronous start, then each continuation
//! its promises schedule); when none is left, the calls queued meanwhile go out as one batch and
//! the thread blocks until their answers come back, which settle their promises and schedule
//! more jobs. When nothing is queued and nothing can run, the program's promise says how it
//! ended; a promise still pending then waits on nothing that will ever settle it. Calls queued
//! after the program returned still run (as a `fetch` does in a script that does not await it),
//! and the answer is given once nothing is left to run.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Receiver;

use rquickjs::{Ctx, Promise, Runtime, Value};
use tokio::sync::mpsc::UnboundedSender;

use super::outcome::{Limit, Outcome};
use super::watch::{Queue, Queued, Watch, reject};
use super::{Bindings, CodeLimits, Event, JS_STACK_BYTES, sandbox};
use crate::scheduler::{CallResult, ToolCall};

/// The interpreter thread's own stack: the JavaScript stack, plus room for the interpreter's
/// and the bindings' Rust frames above it.
const THREAD_STACK_BYTES: usize = JS_STACK_BYTES + 2 * 1024 * 1024;

/// One program and the channels to the session that runs its calls.
pub(super) struct Program {
    pub(super) source: String,
    pub(super) bindings: Arc<Bindings>,
    pub(super) limits: CodeLimits,
    /// Set when the call was dropped: stop at the next check.
    pub(super) stop: Arc<AtomicBool>,
    pub(super) events: UnboundedSender<Event>,
    pub(super) answers: Receiver<Vec<CallResult>>,
    /// The runner's slot, given back when the thread ends (held, never read).
    #[allow(dead_code)]
    pub(super) slot: tokio::sync::OwnedSemaphorePermit,
}

/// Starts the program's thread; its outcome arrives as [`Event::Done`].
pub(super) fn spawn(program: Program) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("charter-runcode".to_owned())
        .stack_size(THREAD_STACK_BYTES)
        .spawn(move || {
            let events = program.events.clone();
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| execute(&program)))
                    .unwrap_or_else(|_| Outcome::Failed("the interpreter panicked".into()));
            // The runtime is gone by now: the session answers with memory already returned.
            let _ = events.send(Event::Done(outcome));
        })?;
    Ok(())
}

/// Builds the runtime and context, runs the program, and drops both before answering.
fn execute(program: &Program) -> Outcome {
    let runtime = match Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return Outcome::Failed(format!("no interpreter: {e}")),
    };
    runtime.set_memory_limit(program.limits.memory_bytes);
    runtime.set_max_stack_size(JS_STACK_BYTES);
    let watch = Rc::new(Watch::new(program.limits, program.stop.clone()));
    let interrupt = watch.clone();
    runtime.set_interrupt_handler(Some(Box::new(move || interrupt.interrupt())));
    let context = match sandbox::context(&runtime) {
        Ok(context) => context,
        Err(e) => return Outcome::Failed(format!("no interpreter context: {e}")),
    };
    let outcome = context.with(|ctx| {
        let queue: Queue<'_> = Rc::default();
        let outcome = drive(&ctx, program, &watch, &queue);
        // Nothing of the interpreter may outlive its runtime: pending promises' functions go
        // before the context does.
        queue.borrow_mut().clear();
        outcome
    });
    drop(context);
    drop(runtime);
    outcome
}

/// Installs the globals, compiles and runs the program, and answers how it ended.
fn drive<'js>(ctx: &Ctx<'js>, program: &Program, watch: &Rc<Watch>, queue: &Queue<'js>) -> Outcome {
    if let Err(error) = sandbox::install(ctx, &program.bindings, watch, queue) {
        return ended_early(ctx, watch, error);
    }
    let wrapper = match sandbox::compile(ctx, &program.source) {
        Ok(wrapper) => wrapper,
        Err(rquickjs::Error::Exception) => return Outcome::syntax(ctx, ctx.catch()),
        Err(error) => return ended_early(ctx, watch, error),
    };
    if let Err(error) = sandbox::seal(ctx) {
        return ended_early(ctx, watch, error);
    }
    watch.start_clock();
    let promise: Promise<'js> = match wrapper.call(()) {
        Ok(promise) => promise,
        Err(error) => return ended_early(ctx, watch, error),
    };
    loop {
        if let Some(limit) = watch.tripped() {
            return Outcome::Limit(limit, watch.take_output());
        }
        if ctx.execute_pending_job() {
            continue;
        }
        let pending: Vec<Queued<'js>> = std::mem::take(&mut *queue.borrow_mut());
        if !pending.is_empty() {
            watch.queued_bytes.set(0);
            if let Err(limit) = answer(ctx, program, pending) {
                watch.trip(limit);
            }
            continue;
        }
        let logs = watch.take_output();
        return match promise.result::<Value<'js>>() {
            Some(Ok(value)) => Outcome::returned(ctx, value, logs),
            Some(Err(_)) => Outcome::threw(ctx, ctx.catch(), logs),
            None => Outcome::Waiting(logs),
        };
    }
}

/// The outcome of an error before the program's promise existed: a limit if one was passed,
/// else the exception.
fn ended_early(ctx: &Ctx<'_>, watch: &Watch, error: rquickjs::Error) -> Outcome {
    let thrown = matches!(error, rquickjs::Error::Exception).then(|| ctx.catch());
    if let Some(limit) = watch.tripped() {
        return Outcome::Limit(limit, watch.take_output());
    }
    match thrown {
        Some(value) => Outcome::threw(ctx, value, watch.take_output()),
        None => Outcome::Failed(error.to_string()),
    }
}

/// Sends `pending` as one batch, waits for the answers and settles each promise. `Err` when the
/// session is gone (the call was dropped).
fn answer<'js>(ctx: &Ctx<'js>, program: &Program, pending: Vec<Queued<'js>>) -> Result<(), Limit> {
    let calls: Vec<ToolCall> = pending
        .iter()
        .enumerate()
        .map(|(k, q)| ToolCall {
            id: k.to_string(),
            name: q.name.to_string(),
            arguments: q.arguments.clone(),
        })
        .collect();
    program
        .events
        .send(Event::Batch(calls))
        .map_err(|_| Limit::Cancelled)?;
    let results = program.answers.recv().map_err(|_| Limit::Cancelled)?;
    let mut results = results.into_iter();
    for queued in pending {
        let settled = match results.next() {
            Some(result) if !result.is_error => resolve(ctx, &queued, result),
            Some(result) => reject(&queued, &result.content),
            None => reject(&queued, "the tool was not run"),
        };
        if settled.is_err() {
            // Settling failed inside the interpreter (out of memory): the program sees the
            // exception where it awaits, or the limit ends it.
            let _ = ctx.catch();
        }
    }
    Ok(())
}

/// Resolves a call's promise with the tool's JSON, or its text when it gave no JSON.
fn resolve<'js>(ctx: &Ctx<'js>, queued: &Queued<'js>, result: CallResult) -> rquickjs::Result<()> {
    let value = match result.structured {
        Some(json) => ctx.json_parse(json.to_string()),
        None => rquickjs::String::from_str(ctx.clone(), &result.content).map(Value::from),
    };
    match value {
        Ok(value) => queued.resolve.call::<_, ()>((value,)),
        Err(rquickjs::Error::Exception) => {
            let thrown = ctx.catch();
            queued.reject.call::<_, ()>((thrown,))
        }
        Err(error) => Err(error),
    }
}
