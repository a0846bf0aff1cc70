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
//! with [`Batch`] and runs it with `run_tool_batch`, exactly as
//! [`ToolSession::execute_tool_calls`](charter_runtime::ToolSession::execute_tool_calls) does;
//! the only input that differs is where the annotations come from: here, the server's own hints,
//! read by [`concurrency_safe`] (explicit `true` only).

mod convert;
mod names;

use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::Duration;

use charter_runtime::scheduler::{Batch, CallResult, ToolCall, concurrency_safe};
use charter_runtime::session::{DynamicTool, Source, Toolkit};
use charter_runtime::table::{BoxFuture, ToolOutput};
use charter_runtime::{CallContext, CharterError};
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, Tool};
use rmcp::service::{
    NotificationContext, Peer, QuitReason, RunningServiceCancellationToken, ServiceError,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use convert::Remote;
use names::Names;

pub use names::{MAX_LABEL, MAX_NAME, Rename, RenameReason, check_label, sanitise};

/// Where an MCP server is.
#[derive(Clone, PartialEq, Eq)]
pub enum Upstream {
    /// A program started as a child process, speaking MCP on its stdin/stdout.
    Command {
        /// The program (looked up on `PATH` when it has no `/`).
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the environment it inherits.
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`).
    Http {
        /// The endpoint URL.
        url: String,
    },
}

impl std::fmt::Debug for Upstream {
    /// Names the program or the endpoint only: arguments, environment values and URL credentials
    /// may hold secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Upstream {
    /// A program and its arguments.
    pub fn command<S: Into<String>>(
        program: impl Into<String>,
        args: impl IntoIterator<Item = S>,
    ) -> Self {
        Upstream::Command {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
        }
    }

    /// A streamable HTTP endpoint.
    pub fn http(url: impl Into<String>) -> Self {
        Upstream::Http { url: url.into() }
    }

    /// This command with one more environment variable (no effect on an HTTP endpoint).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Command { env, .. } = &mut self {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// Parses a command line as a shell would split it, without running a shell: words split on
    /// whitespace, `'…'` and `"…"` quote, `\` escapes, and leading `KEY=VALUE` words set the
    /// environment (`API_TOKEN=x node server.js --stdio`).
    pub fn parse_command_line(line: &str) -> Result<Self, BridgeError> {
        let bad = |reason: &str| BridgeError::Upstream {
            reason: reason.to_owned(),
        };
        let words = split_words(line).map_err(|reason| bad(&reason))?;
        let mut words = words.into_iter().peekable();
        let mut env = Vec::new();
        while let Some(word) = words.peek() {
            match word.split_once('=') {
                Some((key, value))
                    if !key.is_empty()
                        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !key.starts_with(|c: char| c.is_ascii_digit()) =>
                {
                    env.push((key.to_owned(), value.to_owned()));
                    words.next();
                }
                _ => break,
            }
        }
        let program = words
            .next()
            .ok_or_else(|| bad("no program to run; give a command such as `node server.js`"))?;
        Ok(Upstream::Command {
            program,
            args: words.collect(),
            env,
        })
    }

    /// What messages and logs call this server: the program's file name, or the URL without
    /// credentials or query (either may carry secrets).
    pub fn describe(&self) -> String {
        match self {
            Upstream::Command { program, .. } => {
                let name = program.rsplit('/').next().unwrap_or(program);
                format!("`{name}` (child process)")
            }
            Upstream::Http { url } => {
                let no_query = url.split(['?', '#']).next().unwrap_or(url);
                match no_query.split_once("://") {
                    Some((scheme, rest)) => {
                        let host_path = rest.rsplit_once('@').map_or(rest, |(_, after)| after);
                        format!("{scheme}://{host_path}")
                    }
                    None => no_query.to_owned(),
                }
            }
        }
    }
}

/// Splits a command line into words: whitespace separates, quotes group, `\` escapes.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a `'` quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a `\"` quote is not closed".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a `\"` quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("the line ends with a lone `\\`".into()),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

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

/// The rmcp client handler: passes list changes on to the re-list task.
struct Watcher {
    info: ClientConfig,
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        // The receiver is gone only when the toolkit is: nothing left to update.
        let _ = self.changed.send(());
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
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
    /// Connects to a server, completes `initialize` and lists its tools, each step within its
    /// timeout. Tools are published as `<label>_<sanitised remote name>`.
    pub async fn connect(
        label: &str,
        upstream: Upstream,
        options: ToolkitOptions,
    ) -> Result<Self, BridgeError> {
        check_label(label).map_err(BridgeError::Label)?;
        let server = format!("`{label}` {}", upstream.describe());
        let (changed_tx, changed_rx) = mpsc::unbounded_channel();
        let watcher = Watcher {
            info: ClientConfig::new(
                ClientCapabilities::default(),
                Implementation::new(options.client_name.clone(), env!("CARGO_PKG_VERSION")),
            ),
            changed: changed_tx,
        };
        let timed_out = |what| BridgeError::Timeout {
            server: server.clone(),
            what,
            after: options.connect_timeout,
        };
        let connect_error = |e: &dyn std::fmt::Display| BridgeError::Connect {
            server: server.clone(),
            reason: e.to_string(),
        };
        let (running, pid) = match &upstream {
            Upstream::Command { program, args, env } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
                // If the cleanup task never runs (the runtime is shutting down), dropping the
                // child still kills it.
                command.kill_on_drop(true);
                let stderr = if options.child_stderr {
                    Stdio::inherit()
                } else {
                    Stdio::null()
                };
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(stderr)
                    .spawn()
                    .map_err(|e| BridgeError::Spawn {
                        server: server.clone(),
                        reason: e.to_string(),
                    })?;
                let pid = transport.id();
                // On timeout the transport is dropped, which kills the child.
                let running =
                    tokio::time::timeout(options.connect_timeout, watcher.serve(transport))
                        .await
                        .map_err(|_| timed_out("initialize"))?
                        .map_err(|e| connect_error(&e))?;
                (running, pid)
            }
            Upstream::Http { url } => {
                let client = http_client(options.connect_timeout).map_err(|e| connect_error(&e))?;
                let transport = StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url.clone()),
                );
                let running =
                    tokio::time::timeout(options.connect_timeout, watcher.serve(transport))
                        .await
                        .map_err(|_| timed_out("initialize"))?
                        .map_err(|e| connect_error(&e))?;
                (running, None)
            }
        };
        let peer = running.peer().clone();
        let stop = running.cancellation_token();
        let inner = Arc::new(Inner {
            label: label.to_owned(),
            server,
            options,
            peer,
            pid,
            catalog: RwLock::new(Catalog::default()),
            names: Mutex::new(Names::default()),
            generation: watch::Sender::new(0),
            down: Mutex::new(None),
            stop: Mutex::new(Some(stop)),
            service_task: Mutex::new(None),
            relisting: tokio::sync::Mutex::new(()),
        });
        let weak = Arc::downgrade(&inner);
        let task = tokio::spawn(async move {
            let reason = match running.waiting().await {
                Ok(QuitReason::Cancelled) => "the connection was closed by this client".to_owned(),
                Ok(QuitReason::Closed) => {
                    "the server closed the connection (the process exited or the endpoint went away)"
                        .to_owned()
                }
                Ok(QuitReason::JoinError(e)) | Err(e) => format!("the connection failed: {e}"),
                Ok(other) => format!("the connection ended ({other:?})"),
            };
            if let Some(inner) = weak.upgrade() {
                tracing::warn!(server = %inner.server, %reason, "MCP server connection ended");
                inner.mark_down(reason);
            }
        });
        *lock(&inner.service_task) = Some(task);
        let toolkit = McpToolkit { inner };
        if let Err(error) = toolkit.refresh().await {
            toolkit.close().await;
            return Err(error);
        }
        // The first listing is the starting point, not a change (nobody has read it yet).
        toolkit.inner.generation.send_replace(0);
        spawn_relister(Arc::downgrade(&toolkit.inner), changed_rx);
        Ok(toolkit)
    }

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
    async fn call_remote(
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
                    kind_of(&other)
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

/// Re-lists on each list change (changes arriving during a re-list coalesce into one more),
/// until the toolkit or its connection is gone.
fn spawn_relister(toolkit: Weak<Inner>, mut changed: mpsc::UnboundedReceiver<()>) {
    tokio::spawn(async move {
        while changed.recv().await.is_some() {
            while changed.try_recv().is_ok() {}
            let Some(inner) = toolkit.upgrade() else {
                break;
            };
            let toolkit = McpToolkit { inner };
            if let Err(error) = toolkit.refresh().await {
                tracing::warn!(%error, "re-listing after notifications/tools/list_changed failed");
            }
        }
    });
}

/// The HTTP client for the streamable HTTP transport: rustls with the ring provider (this
/// workspace builds reqwest without a default one), Mozilla's roots, no redirects, and no idle
/// pooling (rmcp's advice: a reused connection can stall ~40 ms on delayed ACKs).
fn http_client(connect_timeout: Duration) -> Result<reqwest::Client, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .connect_timeout(connect_timeout)
        .build()
        .map_err(|e| format!("cannot set up the HTTP client: {e}"))
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

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let up = Upstream::parse_command_line(
            r#"TOKEN=a\ b  node "dist/my server.js" 'single quoted' a\"b --flag="x y""#,
        )
        .unwrap();
        assert_eq!(
            up,
            Upstream::Command {
                program: "node".into(),
                args: vec![
                    "dist/my server.js".into(),
                    "single quoted".into(),
                    "a\"b".into(),
                    "--flag=x y".into()
                ],
                env: vec![("TOKEN".into(), "a b".into())],
            }
        );
        assert!(Upstream::parse_command_line("  ").is_err());
        assert!(Upstream::parse_command_line("A=1").is_err());
        assert!(Upstream::parse_command_line("node 'open").is_err());
        // `=` later in the line is an argument, not the environment.
        let up = Upstream::parse_command_line("node --x=1").unwrap();
        assert!(matches!(up, Upstream::Command { ref env, .. } if env.is_empty()));
    }

    #[test]
    fn descriptions_hold_no_secrets() {
        let up =
            Upstream::parse_command_line("TOKEN=s3cret /usr/bin/node srv.js --key s3cret").unwrap();
        assert_eq!(up.describe(), "`node` (child process)");
        assert!(!format!("{up:?}").contains("s3cret"));
        let http = Upstream::http("https://user:pw@example.com:8443/mcp?token=s3cret");
        assert_eq!(http.describe(), "https://example.com:8443/mcp");
    }
}
