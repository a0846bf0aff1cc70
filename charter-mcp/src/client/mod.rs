//! The MCP client bridge (docs/design.md §9): an MCP server's tools as a [`Toolkit`] a
//! [`ToolSession`](charter_runtime::ToolSession) holds beside static packs, and its batches run
//! through the same scheduler as the local bridge's (docs/design.md §7).
//!
//! [`McpToolkit::connect`] starts a server as a child process (MCP over its stdin/stdout) or
//! reaches one over streamable HTTP, lists its tools (every page) and keeps each as charter keeps
//! a compiled tool: the schema as compact JSON text sized once on arrival and shared (`Arc<str>`),
//! the annotations as explicit booleans, the name qualified with a pack label the caller chooses
//! (`<label>_<tool>`, see [`Rename`]). In a session it is deferred like any other pack and found
//! by ToolSearch (`+label` filters by it).
//!
//! **List changes.** On `notifications/tools/list_changed` the toolkit re-lists in the
//! background and moves its [`generation`](McpToolkit::generation); a session built over it then
//! reports [`is_stale`](charter_runtime::ToolSession::is_stale) and
//! [`refreshed`](charter_runtime::ToolSession::refreshed) gives one over the new list, keeping
//! the loaded tools in load order. [`McpToolkit::subscribe`] wakes a host that wants to follow.
//!
//! **A dead server is an answer, not a hang.** Connecting, listing and calling each have a
//! timeout ([`ToolkitOptions`]); a crashed child, a closed pipe or an HTTP endpoint that went
//! away turns every later call into an error result that says so, promptly.
//!
//! **Interchangeable with the local bridge.** [`McpToolkit::execute_tool_calls`] builds its batch
//! with `Batch` and runs it with `run_tool_batch`, exactly as
//! [`ToolSession::execute_tool_calls`](charter_runtime::ToolSession::execute_tool_calls) does;
//! the only input that differs is where the annotations come from: here, the server's own hints,
//! read by `concurrency_safe` (explicit `true` only).

//!
//! The module is split by what each part handles: `upstream` (where the server is), `connect`
//! (starting it, listing, following list changes), `call` (batches and single calls), `names`
//! (qualified names for remote tools) and `convert` (remote tools as charter reads them).

mod call;
pub(crate) mod connect;
mod convert;
mod names;
mod upstream;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use charter_runtime::session::{DynamicTool, Source, Toolkit};
use charter_runtime::table::{BoxFuture, ToolOutput};
use charter_runtime::{CallContext, CharterError};
use rmcp::RoleClient;
use rmcp::model::Tool;
use rmcp::service::{Peer, RunningServiceCancellationToken};
use serde_json::Value;
use tokio::sync::watch;

use convert::Remote;
use names::Names;

pub use names::{MAX_LABEL, MAX_NAME, Rename, RenameReason, check_label, sanitise};
pub use upstream::Upstream;

/// How a toolkit talks to its server.
#[derive(Debug, Clone)]
pub struct ToolkitOptions {
    /// Starting the server and completing `initialize` (default 30 s).
    pub connect_timeout: Duration,
    /// One complete `tools/list`, every page (default 30 s).
    pub list_timeout: Duration,
    /// One `tools/call` (default 120 s); past it the call answers an error result.
    pub call_timeout: Duration,
    /// Pass a child server's stderr through to this process's (default true: its own error
    /// messages are what explains a failed start). False discards it.
    pub child_stderr: bool,
    /// The client name announced in `initialize` (default `charter`).
    pub client_name: String,
}

impl Default for ToolkitOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            list_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(120),
            child_stderr: true,
            client_name: "charter".to_owned(),
        }
    }
}

/// Why a toolkit could not be set up. (Once connected, failures are call results.)
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The pack label breaks the name rules.
    #[error("invalid pack label for an MCP server: {0}")]
    Label(String),
    /// The command line could not be read (it is not repeated here: it may hold secrets).
    #[error("invalid MCP server command line: {reason}")]
    Upstream {
        /// What is wrong with it.
        reason: String,
    },
    /// The child process could not be started.
    #[error("cannot start MCP server {server}: {reason}")]
    Spawn {
        /// Which server.
        server: String,
        /// What the system said.
        reason: String,
    },
    /// `initialize` failed.
    #[error("MCP server {server} did not complete initialize: {reason}")]
    Connect {
        /// Which server.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// A step took longer than its timeout.
    #[error("MCP server {server} did not answer {what} within {} s", after.as_secs_f64())]
    Timeout {
        /// Which server.
        server: String,
        /// Which step (`initialize`, `tools/list`).
        what: &'static str,
        /// The timeout in force.
        after: Duration,
    },
    /// `tools/list` failed.
    #[error("MCP server {server} could not list its tools: {reason}")]
    List {
        /// Which server.
        server: String,
        /// What went wrong.
        reason: String,
    },
}

/// The tools as last listed, in the server's order.
#[derive(Default)]
struct Catalog {
    tools: Vec<Remote>,
    by_local: HashMap<Arc<str>, usize>,
}

/// What every handle of one toolkit shares.
struct Inner {
    label: String,
    server: String,
    options: ToolkitOptions,
    peer: Peer<RoleClient>,
    pid: Option<u32>,
    catalog: RwLock<Catalog>,
    names: Mutex<Names>,
    generation: watch::Sender<u64>,
    /// Why the connection ended, once it has.
    down: Mutex<Option<String>>,
    /// Cancels the rmcp service (which closes the pipe and stops the child).
    stop: Mutex<Option<RunningServiceCancellationToken>>,
    /// The task that owns the running service and notices its end.
    service_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Serialises re-lists, so the newest listing is the one kept.
    relisting: tokio::sync::Mutex<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(stop) = lock(&self.stop).take() {
            stop.cancel();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section is a single assignment or swap: a poisoned lock holds sound data.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An MCP server's tools as a [`Toolkit`]; cheap to clone (one shared connection).
///
/// The [`CallContext`] of a call is not forwarded: its values are host-only (credentials,
/// from-context fields), and the remote server has its own configuration.
///
/// Dropping the last handle closes the connection and stops a child server;
/// [`close`](Self::close) does it and waits.
#[derive(Clone)]
pub struct McpToolkit {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpToolkit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolkit")
            .field("label", &self.inner.label)
            .field("server", &self.inner.server)
            .field("tools", &self.read().tools.len())
            .field("generation", &self.generation())
            .field("down", &*lock(&self.inner.down))
            .finish()
    }
}

impl McpToolkit {
    /// The pack label its tools are qualified with.
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// The child server's process id (`None` over HTTP, or when the system gave none).
    pub fn child_pid(&self) -> Option<u32> {
        self.inner.pid
    }

    /// The tools as last listed, in the server's order.
    pub fn dynamic_tools(&self) -> Vec<DynamicTool> {
        self.read().tools.iter().map(|r| r.tool.clone()).collect()
    }

    /// The server's own name for a qualified tool name.
    pub fn remote_name(&self, local: &str) -> Option<String> {
        let catalog = self.read();
        catalog
            .by_local
            .get(local)
            .map(|i| catalog.tools[*i].remote.to_string())
    }

    /// The annotations exactly as the server sent them (`{}` when it sent none).
    pub fn remote_annotations(&self, local: &str) -> Option<Value> {
        let catalog = self.read();
        catalog
            .by_local
            .get(local)
            .map(|i| catalog.tools[*i].hints.clone())
    }

    /// Every remote tool published under a changed name, with why.
    pub fn renames(&self) -> Vec<Rename> {
        lock(&self.inner.names).renames().to_vec()
    }

    /// How many times the tool list changed (0 after connecting).
    pub fn generation(&self) -> u64 {
        *self.inner.generation.borrow()
    }

    /// A receiver woken whenever the tool list changes (its value is the generation).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.generation.subscribe()
    }

    /// Why the connection ended, if it has: calls then answer error results saying so.
    pub fn down(&self) -> Option<String> {
        lock(&self.inner.down).clone()
    }

    /// This toolkit as a session source (deferred like any pack).
    pub fn source(&self) -> Source {
        Source::Toolkit(Arc::new(self.clone()))
    }

    /// Lists the server's tools now (every page), within the list timeout; answers whether the
    /// list changed. The toolkit does this by itself on `notifications/tools/list_changed`.
    pub async fn refresh(&self) -> Result<bool, BridgeError> {
        let inner = &self.inner;
        let _one_at_a_time = inner.relisting.lock().await;
        let listed = tokio::time::timeout(inner.options.list_timeout, inner.peer.list_all_tools())
            .await
            .map_err(|_| BridgeError::Timeout {
                server: inner.server.clone(),
                what: "tools/list",
                after: inner.options.list_timeout,
            })?
            .map_err(|e| BridgeError::List {
                server: inner.server.clone(),
                reason: e.to_string(),
            })?;
        Ok(self.apply(&listed))
    }

    /// Closes the connection (a child server gets its stdin closed, then SIGTERM, then SIGKILL)
    /// and waits for that, at most a few seconds. Later calls answer error results.
    pub async fn close(&self) {
        if let Some(stop) = lock(&self.inner.stop).take() {
            stop.cancel();
        }
        let task = lock(&self.inner.service_task).take();
        if let Some(task) = task {
            // rmcp waits up to 3 s for a child to exit before it signals it.
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
        self.inner
            .mark_down("the connection was closed by this client".to_owned());
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Catalog> {
        self.inner
            .catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the catalogue with a listing; answers whether anything a session reads changed.
    fn apply(&self, listed: &[Tool]) -> bool {
        let inner = &self.inner;
        let mut names = lock(&inner.names);
        let mut catalog = inner
            .catalog
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let mut tools: Vec<Remote> = Vec::with_capacity(listed.len());
        let mut by_local = HashMap::with_capacity(listed.len());
        let mut seen = HashSet::with_capacity(listed.len());
        for tool in listed {
            if !seen.insert(tool.name.as_ref()) {
                tracing::warn!(server = %inner.server, tool = %tool.name, "the server lists this tool twice; the first is kept");
                continue;
            }
            let local = names.local(&inner.label, &tool.name);
            let previous = catalog.by_local.get(&local).map(|i| &catalog.tools[*i]);
            let remote = convert::remote(local.clone(), tool, previous);
            by_local.insert(local, tools.len());
            tools.push(remote);
        }
        let changed = tools.len() != catalog.tools.len()
            || tools.iter().zip(&catalog.tools).any(|(a, b)| {
                a.tool.name != b.tool.name
                    || a.tool.description != b.tool.description
                    || a.tool.schema != b.tool.schema
                    || a.tool.annotations != b.tool.annotations
                    || a.hints != b.hints
            });
        *catalog = Catalog { tools, by_local };
        drop(catalog);
        drop(names);
        if changed {
            inner.generation.send_modify(|g| *g += 1);
        }
        changed
    }
}

impl Inner {
    fn mark_down(&self, reason: String) {
        let mut down = lock(&self.down);
        if down.is_none() {
            *down = Some(reason);
        }
    }

    fn unreachable(&self, tool: &str, reason: &str) -> CharterError {
        CharterError::Transport(format!(
            "the MCP server {} is unreachable, so `{tool}` was not run: {reason}",
            self.server
        ))
    }
}

impl Toolkit for McpToolkit {
    fn pack(&self) -> &str {
        &self.inner.label
    }

    fn tools(&self) -> Vec<DynamicTool> {
        self.dynamic_tools()
    }

    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(self.call_remote(tool, arguments, ctx))
    }

    fn generation(&self) -> u64 {
        McpToolkit::generation(self)
    }
}

/// An error and its sources, without rmcp's type-name wrappers: what failed, down to the cause
/// (`error sending request for url (…): connection refused`).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let text = e.to_string();
        let wrapper = text.contains("rmcp::") || text.starts_with("Transport send error");
        if !wrapper && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    if parts.is_empty() {
        error.to_string()
    } else {
        parts.join(": ")
    }
}
