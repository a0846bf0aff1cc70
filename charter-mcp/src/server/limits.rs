//! Resource limits of the HTTP transport, and of every tool call a server answers.
//!
//! One server serves a team: a caller that floods it, opens sessions without end, or calls a
//! tool that never answers must not take the server from the others. Each limit here answers
//! with a clear error to the one caller over it and leaves the others untouched. The values and
//! their flags are in `docs/limits.md`.
//!
//! Who "the caller" is ([`Caller`]): the authenticated subject when an authentication layer in
//! front of these limits put one in the request's extensions, else the MCP session
//! (`Mcp-Session-Id`), else the peer's IP address.
//!
//! With a shared store (`--store`), the rate is counted across the fleet (`store::rate`); while
//! the store is unreachable each instance counts alone, as without one.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::store::rate::FleetRate;

/// Concurrent MCP sessions by default (`--max-sessions`).
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// Requests per second per caller by default (`--rate-limit`); twice as many may come at once.
pub const DEFAULT_REQUESTS_PER_SECOND: u32 = 50;
/// Largest request body by default (`--max-body`): 4 MiB, room for the 1 MiB of arguments a
/// call may carry (`validate::MAX_ARGUMENT_BYTES`) with JSON-RPC around it.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Time one tool call may take by default (`--call-timeout`), waiting for the API included.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// Largest tool answer handed to the model by default (`--max-result`): the result budget,
/// about 8,000 tokens (`charter_runtime::budget`). A JSON answer over it is fitted (its list
/// shortened, with how to get the rest), anything else cut.
pub const DEFAULT_MAX_RESULT_BYTES: usize = charter_runtime::budget::DEFAULT_RESULT_BUDGET;
/// How long a stopping server lets calls in flight finish by default (`--shutdown-grace`).
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The header naming an MCP session (legacy revisions; 2026-07-28 has no sessions).
const SESSION_HEADER: &str = "mcp-session-id";

/// Limits on one tool call, on every transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// How long one call may run; over it the model gets an error result and the call is
    /// dropped (its HTTP request to the API with it).
    pub timeout: Duration,
    /// The most bytes of text one result hands the model (its budget): a longer JSON answer
    /// keeps the items of its largest list that fit and says how to get the rest; other text
    /// is cut at a character boundary and ends with a notice saying how to narrow the call.
    pub max_result_bytes: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_CALL_TIMEOUT,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
        }
    }
}

impl CallLimits {
    /// The error text of a call that ran out of time.
    pub(crate) fn timed_out(&self, tool: &str) -> String {
        format!(
            "tool `{tool}` did not answer within {} s (the server's call timeout) and was \
             stopped; try a narrower call, or again later",
            self.timeout.as_secs_f64()
        )
    }

    /// `text` cut to the result limit, with a notice; `None` when it fits.
    pub(crate) fn cut(&self, text: &str) -> Option<String> {
        if text.len() <= self.max_result_bytes {
            return None;
        }
        let notice = format!(
            "\n\n[cut: this answer is {} bytes, over the server's limit of {} bytes for one \
             result; the rest is not shown. Narrow the call: ask for fewer items (a limit or page \
             size argument), filter, or select fewer fields]",
            text.len(),
            self.max_result_bytes
        );
        let mut end = self.max_result_bytes.saturating_sub(notice.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Some(format!("{}{notice}", &text[..end]))
    }
}

/// Limits of the HTTP transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// MCP sessions open at once (legacy sessions, plus 2026-07-28 requests in flight, which
    /// have no session); one more is answered 503.
    pub max_sessions: usize,
    /// Requests per second per caller (twice as many may come in a burst); over it, 429 with
    /// `Retry-After`.
    pub requests_per_second: NonZeroU32,
    /// Largest request body; over it, 413.
    pub max_body_bytes: usize,
    /// How long a stopping server waits for calls in flight.
    pub shutdown_grace: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_sessions: DEFAULT_MAX_SESSIONS,
            requests_per_second: NonZeroU32::new(DEFAULT_REQUESTS_PER_SECOND)
                .unwrap_or(NonZeroU32::MIN),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

/// Who a request is counted against. An authentication layer that runs before the limits
/// inserts the authenticated subject as a `Caller` into the request's extensions; without one,
/// the MCP session or the peer's address stands in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller(pub Arc<str>);

impl Caller {
    /// The caller of `request`: the subject put there by authentication, else its session,
    /// else its peer's IP.
    fn of(request: &Request) -> Caller {
        if let Some(caller) = request.extensions().get::<Caller>() {
            return caller.clone();
        }
        if let Some(session) = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            return Caller(format!("session:{session}").into());
        }
        match request.extensions().get::<ConnectInfo<SocketAddr>>() {
            Some(ConnectInfo(peer)) => Caller(format!("peer:{}", peer.ip()).into()),
            None => Caller("peer:unknown".into()),
        }
    }
}

/// The admission state of one HTTP server: counts and the per-caller rate limiter.
pub(crate) struct Gate {
    limits: HttpLimits,
    sessions: Arc<LocalSessionManager>,
    /// Requests without a session in flight (each may open one, or is a sessionless call).
    opening: AtomicUsize,
    /// Requests without a session ever admitted: with the open count, how housekeeping learns
    /// that sessions came and went between two of its looks.
    opened: AtomicUsize,
    /// POST requests whose answer is not fully sent yet (the calls a shutdown waits for).
    in_flight: AtomicUsize,
    draining: AtomicBool,
    rate: DefaultKeyedRateLimiter<Caller>,
    /// The same rate counted fleet-wide, with a shared store.
    fleet: Option<FleetRate>,
}

impl Gate {
    pub(crate) fn new(
        limits: HttpLimits,
        sessions: Arc<LocalSessionManager>,
        store: Option<crate::store::FleetStore>,
        release_memory: bool,
    ) -> Arc<Self> {
        let burst = limits
            .requests_per_second
            .saturating_mul(NonZeroU32::new(2).unwrap_or(NonZeroU32::MIN));
        let quota = Quota::per_second(limits.requests_per_second).allow_burst(burst);
        let fleet = store.map(|store| FleetRate::new(store, limits.requests_per_second, burst));
        let gate = Arc::new(Self {
            limits,
            sessions,
            opening: AtomicUsize::new(0),
            opened: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            draining: AtomicBool::new(false),
            rate: RateLimiter::keyed(quota),
            fleet,
        });
        tokio::spawn(housekeeping(Arc::downgrade(&gate), release_memory));
        gate
    }

    /// Refuses new requests from now on (a stopping server).
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Waits until no POST is in flight, or `deadline` passes; true when none is left.
    pub(crate) async fn idle(&self, deadline: Duration) -> bool {
        let wait = async {
            while self.in_flight.load(Ordering::SeqCst) > 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(deadline, wait).await.is_ok()
    }

    /// The `/healthz` answer: 200 while serving, 503 once stopping (so a load balancer stops
    /// sending new clients here first).
    pub(crate) fn health(&self) -> (StatusCode, &'static str) {
        if self.draining.load(Ordering::SeqCst) {
            (StatusCode::SERVICE_UNAVAILABLE, "stopping\n")
        } else {
            (StatusCode::OK, "ok\n")
        }
    }

    /// `None` when `caller` may make one more request now, else how long it must wait: counted
    /// across the fleet when there is a reachable store, else here.
    async fn over_rate(&self, caller: &Caller) -> Option<Duration> {
        if let Some(fleet) = &self.fleet
            && let Ok(verdict) = fleet.check(&caller.0).await
        {
            return verdict;
        }
        self.rate
            .check_key(caller)
            .err()
            .map(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    async fn open_sessions(&self) -> usize {
        self.sessions.sessions.read().await.len()
    }
}

/// Every ten seconds while the server runs: forgets callers idle long enough to be back at a
/// full bucket, so the rate table does not grow with every session ever seen, and, when the
/// process's owner asked for it ([`HttpOptions::release_memory`]), hands the memory of sessions
/// closed lately back to the system (`memory.rs`).
///
/// [`HttpOptions::release_memory`]: super::HttpOptions::release_memory
///
/// A session closed since the last look is one fewer open than before plus those opened since:
/// sessions that open and close between two looks (a burst of short `RunCode` sessions, or
/// sessionless 2026-07-28 calls) leave the open count where it was, and comparing the counts
/// alone never gave their memory back.
async fn housekeeping(gate: std::sync::Weak<Gate>, release_memory: bool) {
    const EVERY: Duration = Duration::from_secs(10);
    let mut tick = tokio::time::interval(EVERY);
    let (mut open_before, mut opened_before) = (0, 0);
    let mut since_close: Option<Duration> = None;
    loop {
        tick.tick().await;
        let Some(gate) = gate.upgrade() else { return };
        gate.rate.retain_recent();
        gate.rate.shrink_to_fit();
        let open = gate.open_sessions().await;
        let opened = gate.opened.load(Ordering::Relaxed);
        drop(gate);
        if closed_between((open_before, opened_before), (open, opened)) {
            since_close = Some(Duration::ZERO);
        }
        (open_before, opened_before) = (open, opened);
        if let Some(elapsed) = since_close.filter(|_| release_memory) {
            let _ = tokio::task::spawn_blocking(super::memory::give_back).await;
            since_close = (elapsed < super::memory::TRIM_WINDOW).then_some(elapsed + EVERY);
        }
    }
}

/// Whether a session closed between two looks, each `(open now, session-opening requests ever)`:
/// fewer are open than were, plus those opened since.
fn closed_between(before: (usize, usize), now: (usize, usize)) -> bool {
    now.0 < before.0 + now.1.wrapping_sub(before.1)
}

/// Decrements a counter when the answer it counts is dropped (sent, or abandoned).
struct Held(Arc<Gate>, fn(&Gate) -> &AtomicUsize);

impl Held {
    fn new(gate: &Arc<Gate>, counter: fn(&Gate) -> &AtomicUsize) -> (Self, usize) {
        let now = counter(gate).fetch_add(1, Ordering::SeqCst) + 1;
        (Self(gate.clone(), counter), now)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        (self.1)(&self.0).fetch_sub(1, Ordering::SeqCst);
    }
}

/// The axum middleware in front of `/mcp`: draining, rate, and session checks, in that order.
pub(crate) async fn admit(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    if gate.draining.load(Ordering::SeqCst) {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down; reconnect (to another instance)",
            None,
        );
    }
    let caller = Caller::of(&request);
    if let Some(wait) = gate.over_rate(&caller).await {
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "too many requests: this server takes {} requests per second from one caller; \
                 retry after {secs} s",
                gate.limits.requests_per_second
            ),
            Some(secs.max(1)),
        );
    }
    let is_post = request.method() == axum::http::Method::POST;
    let mut held = Vec::with_capacity(2);
    if is_post && !request.headers().contains_key(SESSION_HEADER) {
        let (opening, now) = Held::new(&gate, |g| &g.opening);
        if gate.open_sessions().await + now > gate.limits.max_sessions {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "the server is serving its limit of {} MCP sessions; retry later, or close \
                     unused sessions",
                    gate.limits.max_sessions
                ),
                Some(1),
            );
        }
        held.push(opening);
        gate.opened.fetch_add(1, Ordering::Relaxed);
    }
    if is_post {
        held.push(Held::new(&gate, |g| &g.in_flight).0);
    }
    let response = next.run(request).await;
    if held.is_empty() {
        return response;
    }
    // Counted until the answer's last byte is sent: a call's result travels in the body.
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        let _counted = &held;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

/// A refusal as HTTP status plus a JSON-RPC error, so both HTTP-level and MCP-level clients
/// read why (the request id is not known before the body is read: `null`, as JSON-RPC allows).
pub(crate) fn refuse(status: StatusCode, message: &str, retry_after: Option<u64>) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32000, "message": message },
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(secs) = retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_that_came_and_went_between_two_looks_count_as_closed() {
        // 100 opened and closed between the looks: the open count alone did not move.
        assert!(closed_between((0, 5), (0, 105)));
        assert!(closed_between((3, 5), (2, 5)));
        // Opened and still open, or nothing happened: nothing to give back.
        assert!(!closed_between((0, 5), (100, 105)));
        assert!(!closed_between((4, 9), (4, 9)));
    }

    #[test]
    fn long_results_are_cut_at_a_char_boundary_with_a_notice() {
        let limits = CallLimits {
            max_result_bytes: 400,
            ..CallLimits::default()
        };
        assert_eq!(limits.cut("short"), None);
        let text = "é".repeat(1000);
        let cut = limits.cut(&text).unwrap();
        assert!(cut.len() <= 400, "{}", cut.len());
        assert!(cut.starts_with('é'));
        assert!(cut.contains("this answer is 2000 bytes"), "{cut}");
        assert!(cut.contains("Narrow the call"), "{cut}");
    }
}
