//! Logs to stderr (stdout is the MCP channel), with the subscriber built on the first line that
//! passes the filter.
//!
//! `tracing_subscriber`'s registry allocates and fills a table of 4,096 shard pointers (32 KiB,
//! eight pages) when it is built, and a server started with the default filter usually logs
//! nothing before it answers `initialize`, or at all: building it at start was a few percent of
//! a server's start-up pages (docs/mcp.md, "Little done before `initialize`"). With the default
//! filter, which names targets and levels only, the filter alone answers which callsites are
//! wanted, so the subscriber is built by the first span or event it lets through. `RUST_LOG`
//! may name spans and fields, which the filter matches by the callsites the subscriber has seen:
//! that subscriber is built at once, as it always was.

use std::any::TypeId;
use std::io;
use std::sync::OnceLock;

use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_core::span::Current;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::{Layer, Layered};
use tracing_subscriber::util::SubscriberInitExt;

/// What is logged when `RUST_LOG` does not say (or does not parse).
const DEFAULT_FILTER: &str = "warn,charter_mcp=info,charter_cli=info";

/// Installs the process's subscriber (and the `log` crate's bridge, as `try_init` does).
pub(crate) fn init() {
    // `try_init` fails only when a subscriber is already installed (a test's): that one stays.
    let _ = match EnvFilter::try_from_default_env() {
        Ok(filter) => Box::new(subscriber(filter)).try_init(),
        Err(_) => Lazy::new(EnvFilter::new(DEFAULT_FILTER), || {
            Box::new(subscriber(EnvFilter::new(DEFAULT_FILTER)))
        })
        .try_init(),
    };
}

type Built = Box<dyn Subscriber + Send + Sync>;

/// The subscriber every line goes through.
fn subscriber(filter: EnvFilter) -> impl Subscriber + Send + Sync {
    // rmcp logs MCP session ids, which grant their session: a digest is written instead.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| charter_mcp::server::MaskSessionIds(io::stderr()))
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .with_target(false)
        .finish()
}

/// A subscriber built on first use. Until then `gate` (the same filter over a subscriber that
/// wants everything) answers which callsites and levels are wanted; what it lets through builds
/// the subscriber first, so every span and event the subscriber would have seen, it sees. Spans
/// come only from it, so span calls before it exists have nothing to act on.
struct Lazy {
    gate: Layered<EnvFilter, Everything>,
    built: OnceLock<Built>,
    build: fn() -> Built,
}

impl Lazy {
    fn new(filter: EnvFilter, build: fn() -> Built) -> Self {
        Lazy {
            gate: filter.with_subscriber(Everything),
            built: OnceLock::new(),
            build,
        }
    }

    fn built(&self) -> &Built {
        self.built.get_or_init(self.build)
    }
}

impl Subscriber for Lazy {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        match self.built.get() {
            Some(built) => built.register_callsite(metadata),
            None => self.gate.register_callsite(metadata),
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        match self.built.get() {
            Some(built) => built.enabled(metadata),
            None => self.gate.enabled(metadata) && self.built().enabled(metadata),
        }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        match self.built.get() {
            Some(built) => built.max_level_hint(),
            None => self.gate.max_level_hint(),
        }
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.built().new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.built().record(span, values)
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.built().record_follows_from(span, follows)
    }

    fn event_enabled(&self, event: &Event<'_>) -> bool {
        self.built().event_enabled(event)
    }

    fn event(&self, event: &Event<'_>) {
        self.built().event(event)
    }

    fn enter(&self, span: &Id) {
        self.built().enter(span)
    }

    fn exit(&self, span: &Id) {
        self.built().exit(span)
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.built().clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.built().try_close(id)
    }

    fn current_span(&self) -> Current {
        match self.built.get() {
            Some(built) => built.current_span(),
            None => Current::none(),
        }
    }

    unsafe fn downcast_raw(&self, id: TypeId) -> Option<*const ()> {
        if id == TypeId::of::<Self>() {
            return Some(self as *const Self as *const ());
        }
        // SAFETY: forwarded as `Box<dyn Subscriber>` does; the subscriber lives as long as self.
        self.built
            .get()
            .and_then(|built| unsafe { built.downcast_raw(id) })
    }
}

/// The subscriber under the gate's filter: it wants whatever the filter lets through, and is
/// never given a span or event.
struct Everything;

impl Subscriber for Everything {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::always()
    }

    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    static OUT: OnceLock<Buffer> = OnceLock::new();

    fn to_buffer() -> Built {
        let out = OUT.get_or_init(Buffer::default).clone();
        Box::new(
            tracing_subscriber::fmt()
                .with_env_filter(EnvFilter::new(DEFAULT_FILTER))
                .with_writer(move || out.clone())
                .with_ansi(false)
                .without_time()
                .finish(),
        )
    }

    /// What was written since the last call.
    fn taken() -> String {
        let out = OUT.get_or_init(Buffer::default);
        String::from_utf8(std::mem::take(&mut *out.0.lock().unwrap())).unwrap()
    }

    /// Lines the filter drops, then a span and lines it lets through; `check` is told, after
    /// the dropped ones and after the span, whether anything has passed the filter yet.
    fn log(check: impl Fn(bool)) {
        tracing::info!(target: "rmcp::service", "not wanted");
        tracing::debug!(target: "charter_mcp::server", "not wanted either");
        let span = tracing::debug_span!(target: "charter_mcp::server", "quiet");
        let _quiet = span.enter();
        check(false);
        let span = tracing::info_span!(target: "charter_mcp::server", "session", id = 7);
        let _session = span.enter();
        check(true);
        tracing::info!(target: "charter_mcp::server", "served");
        tracing::warn!(target: "rmcp::service", "closed");
    }

    #[test]
    fn built_by_the_first_span_or_line_let_through_which_it_logs_as_if_built_at_start() {
        let eager = to_buffer();
        let hint = eager.max_level_hint();
        tracing::subscriber::with_default(eager, || log(|_| {}));
        let expected = taken();
        assert_eq!(
            expected,
            " INFO session{id=7}: charter_mcp::server: served\n WARN session{id=7}: \
             rmcp::service: closed\n"
        );
        let lazy = Arc::new(Lazy::new(EnvFilter::new(DEFAULT_FILTER), to_buffer));
        assert_eq!(lazy.max_level_hint(), hint);
        tracing::subscriber::with_default(lazy.clone(), || {
            log(|passed| assert_eq!(lazy.built.get().is_some(), passed, "built"))
        });
        assert_eq!(taken(), expected);
    }
}
