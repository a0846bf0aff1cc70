//! How far a program has gone towards each limit, and the tool calls it queued: what the
//! interrupt handler, the pack functions, `console` and the interpreter's loop share.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rquickjs::{Exception, Function};

use super::outcome::Limit;
use super::{CodeLimits, clock};

/// What the interrupt handler, the pack functions, `console` and the loop share: the limits and
/// how far the program has gone towards each.
pub(super) struct Watch {
    pub(super) limits: CodeLimits,
    stop: Arc<AtomicBool>,
    /// The thread's CPU time when the program started.
    cpu_start: Cell<Duration>,
    /// The first limit the program went over; once set it stays, and every check says stop.
    tripped: Cell<Option<Limit>>,
    /// Tool calls made so far.
    pub(super) calls: Cell<u32>,
    /// Bytes of arguments queued and not yet sent (held outside the interpreter's memory).
    pub(super) queued_bytes: Cell<usize>,
    /// The `console` lines so far, and their bytes.
    pub(super) output: RefCell<(Vec<String>, usize)>,
}

impl Watch {
    pub(super) fn new(limits: CodeLimits, stop: Arc<AtomicBool>) -> Self {
        Self {
            limits,
            stop,
            cpu_start: Cell::new(clock::thread_cpu()),
            tripped: Cell::new(None),
            calls: Cell::new(0),
            queued_bytes: Cell::new(0),
            output: RefCell::new((Vec::new(), 0)),
        }
    }

    /// Starts the CPU-time count (after the program is compiled and sealed: what is counted is
    /// the program's own running).
    pub(super) fn start_clock(&self) {
        self.cpu_start.set(clock::thread_cpu());
    }

    /// The interrupt handler's question: stop now? True once a limit was passed (the
    /// interpreter then raises an error the program cannot catch).
    pub(super) fn interrupt(&self) -> bool {
        if self.tripped.get().is_some() {
            return true;
        }
        if self.stop.load(Ordering::Relaxed) {
            self.trip(Limit::Cancelled);
            return true;
        }
        if clock::thread_cpu().saturating_sub(self.cpu_start.get()) > self.limits.cpu_time {
            self.trip(Limit::CpuTime);
            return true;
        }
        false
    }

    /// Records that the program went over `limit` (the first one passed is the one reported).
    pub(super) fn trip(&self, limit: Limit) {
        if self.tripped.get().is_none() {
            self.tripped.set(Some(limit));
        }
    }

    pub(super) fn tripped(&self) -> Option<Limit> {
        self.tripped.get()
    }

    pub(super) fn take_output(&self) -> Vec<String> {
        std::mem::take(&mut self.output.borrow_mut().0)
    }
}

/// A tool call the program made and has not had answered: what to send, and how to settle its
/// promise.
pub(super) struct Queued<'js> {
    pub(super) name: Rc<str>,
    pub(super) arguments: serde_json::Value,
    pub(super) resolve: Function<'js>,
    pub(super) reject: Function<'js>,
    /// Made where the call was, so a failure's stack gives the program's line.
    pub(super) error: Exception<'js>,
}

/// The calls queued since the last batch.
pub(super) type Queue<'js> = Rc<RefCell<Vec<Queued<'js>>>>;

/// Rejects a call's promise with an `Error` carrying the message a direct call gives, the
/// tool's name under `tool`, and the stack of the line that made the call.
pub(super) fn reject<'js>(queued: &Queued<'js>, message: &str) -> rquickjs::Result<()> {
    let error = queued.error.as_object();
    error.set("message", message)?;
    error.set("tool", &*queued.name)?;
    queued.reject.call::<_, ()>((queued.error.clone(),))
}
