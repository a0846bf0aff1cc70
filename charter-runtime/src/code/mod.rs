//! Code mode's interpreter (docs/code-mode.md): runs one `RunCode` program, whose calls of the
//! session's tools the batch scheduler runs.
//!
//! A program is the body of an async JavaScript function. It runs in QuickJS (`rquickjs`) on an
//! OS thread of its own, in a runtime of its own built for it and dropped after it, so a program
//! that loops, recurses or allocates without end stops alone, with an error naming the limit,
//! while the server's async workers keep serving everyone else. Its only way out is the pack
//! objects: each tool call queues until the program has nothing left to run but waiting, then
//! the queue goes to the session as one scheduler batch (so `Promise.all` of reads is one
//! concurrent, deduplicated batch), and the answers settle the program's promises.
//!
//! - [`CodeLimits`], [`CodeRunner`]: the sandbox's limits, and the programs a server runs at
//!   once.
//! - `engine`: the interpreter thread (the runtime, the loop that drains jobs and hands out
//!   batches); `sandbox`: what a program's global scope holds; `outcome`: what the model reads.
//! - `clock`: the CPU time of the interpreter's thread.

mod clock;
mod engine;
mod outcome;
mod sandbox;
mod watch;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::CharterError;
use crate::scheduler::{CallResult, ToolCall};
use crate::table::{BoxFuture, ToolOutput};

pub(crate) use outcome::Outcome;

/// The JavaScript stack a program may use (1 MiB); deeper recursion throws `InternalError:
/// stack overflow`.
const JS_STACK_BYTES: usize = 1024 * 1024;

/// The limits of one program, each a flag of `charter mcp` (docs/limits.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLimits {
    /// CPU time the program may spend running JavaScript (waiting for its tool calls is not
    /// counted); over it the program stops.
    pub cpu_time: Duration,
    /// Memory the program's interpreter may allocate; an allocation over it fails, and a
    /// program that does not handle the failure stops with an error naming this limit.
    pub memory_bytes: usize,
    /// Tool calls one program may make; the one past it stops the program.
    pub max_calls: u32,
    /// Bytes of output: `console.log` lines past it stop the program, and a result longer than
    /// it is cut, with a notice.
    pub max_output_bytes: usize,
    /// Programs one [`CodeRunner`] runs at once (each on its own thread, with up to
    /// `memory_bytes`); more wait for a slot.
    pub max_programs: usize,
}

/// CPU time one program may run by default (2 s).
pub const DEFAULT_CPU_TIME: Duration = Duration::from_secs(2);
/// Memory one program may allocate by default (64 MiB).
pub const DEFAULT_MEMORY_BYTES: usize = 64 * 1024 * 1024;
/// Tool calls one program may make by default (256).
pub const DEFAULT_MAX_CALLS: u32 = 256;
/// Output of one program by default (64 KiB of text, about 16,000 tokens).
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// Programs run at once by default (32, so at most 2 GiB of interpreters at the default memory
/// limit).
pub const DEFAULT_MAX_PROGRAMS: usize = 32;

impl Default for CodeLimits {
    fn default() -> Self {
        Self {
            cpu_time: DEFAULT_CPU_TIME,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            max_calls: DEFAULT_MAX_CALLS,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_programs: DEFAULT_MAX_PROGRAMS,
        }
    }
}

/// Runs `RunCode` programs under one set of [`CodeLimits`], at most
/// [`max_programs`](CodeLimits::max_programs) at once. Cheap to clone: clones share the slots,
/// so every session a server builds from one runner counts against the same bound.
#[derive(Clone)]
pub struct CodeRunner {
    inner: Arc<Runner>,
}

struct Runner {
    limits: CodeLimits,
    /// One permit per program running; each is held by the program's thread until its
    /// interpreter is gone, so a program whose call was dropped counts until it has stopped.
    slots: Arc<tokio::sync::Semaphore>,
}

impl CodeRunner {
    /// A runner with these limits (a `max_programs` of 0 is taken as 1).
    pub fn new(limits: CodeLimits) -> Self {
        Self {
            inner: Arc::new(Runner {
                slots: Arc::new(tokio::sync::Semaphore::new(limits.max_programs.max(1))),
                limits,
            }),
        }
    }

    /// The limits every program of this runner runs under.
    pub fn limits(&self) -> &CodeLimits {
        &self.inner.limits
    }
}

impl Default for CodeRunner {
    fn default() -> Self {
        Self::new(CodeLimits::default())
    }
}

impl std::fmt::Debug for CodeRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeRunner")
            .field("limits", &self.inner.limits)
            .field("free_slots", &self.inner.slots.available_permits())
            .finish()
    }
}

/// The globals a program gets: one object per pack, one function per tool.
#[derive(Debug, Default)]
pub(crate) struct Bindings {
    pub(crate) packs: Vec<PackBinding>,
}

/// One pack's global object.
#[derive(Debug)]
pub(crate) struct PackBinding {
    /// The global's name (`charter_terms::script::pack_global`).
    pub(crate) global: String,
    /// `(property, qualified tool name)`, in the session's order.
    pub(crate) tools: Vec<(String, String)>,
}

/// What the interpreter thread tells the session.
pub(crate) enum Event {
    /// The program is waiting on these calls: run them as one batch, answer in order.
    Batch(Vec<ToolCall>),
    /// The program is over (its interpreter already dropped).
    Done(Outcome),
}

/// Runs one program: its interpreter on a thread of its own, its tool calls through `batch` (one
/// scheduler batch each time the program waits). Waits for a free slot of `runner` first.
pub(crate) async fn run<'a>(
    runner: &CodeRunner,
    source: String,
    bindings: Arc<Bindings>,
    batch: impl Fn(Vec<ToolCall>) -> BoxFuture<'a, Vec<CallResult>>,
) -> Result<ToolOutput, CharterError> {
    let limits = *runner.limits();
    let slot = runner
        .inner
        .slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| {
            CharterError::Tool("RunCode is shutting down; the program was not run".into())
        })?;
    let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let (answers, answers_rx) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    // Dropped when the call is (a timeout, a client gone): the program stops at its next
    // interrupt check, or when it next waits for answers that will not come.
    let _stop_on_drop = StopOnDrop(stop.clone());
    let program = engine::Program {
        source,
        bindings,
        limits,
        stop,
        events: events_tx,
        answers: answers_rx,
        slot,
    };
    engine::spawn(program).map_err(|e| {
        CharterError::Tool(format!(
            "RunCode could not start an interpreter thread: {e}"
        ))
    })?;
    loop {
        match events.recv().await {
            Some(Event::Batch(calls)) => {
                let results = batch(calls).await;
                // A closed channel means the program is over; its `Done` follows.
                let _ = answers.send(results);
            }
            Some(Event::Done(outcome)) => return outcome.into_output(&limits),
            None => {
                return Err(CharterError::Tool(
                    "RunCode's interpreter stopped without an answer".into(),
                ));
            }
        }
    }
}

/// Sets the stop flag when dropped.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
