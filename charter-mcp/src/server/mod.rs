//! The MCP server (docs/design.md §9): a session's tools, with annotations, over stdio or streamable HTTP.
//!
//! One [`McpServer`] is built per process from the static tables. Its `catalog` prepares each
//! tool once per process, on first use, and for an eager server (whose first list shows every
//! tool) on a background thread as serving starts, never before `initialize` is answered: over
//! HTTP as the parsed `Arc<JsonObject>` rmcp serialises (a `tools/list` answer clones `Arc`s),
//! over stdio as a check that each schema text is a JSON object, the text itself written into
//! the answer (`stdio.rs`). A progressive server prepares only what it lists. Each connection (a stdio
//! pipe, or an MCP session over HTTP) gets its own [`ToolSession`]:
//! what one conversation has loaded never leaks into another.
//!
//! - Eager (the default): every schema is listed; most MCP clients never re-list.
//! - Progressive, in one of two forms ([`Disclosure`], the session's own):
//!   - list-changed: only `ToolSearch` is listed, loaded tools join the list in load order and
//!     `notifications/tools/list_changed` follows each load;
//!   - search-and-call: `ToolSearch` and `CallTool` are listed and the list never changes;
//!     ToolSearch answers with the found tools' schemas and `CallTool` runs any tool by name.
//!
//!   A client on protocol `2026-07-28` (whose tool list must not vary as a side effect of other
//!   requests) always gets search-and-call; the other revisions get the form the server chose
//!   (list-changed by default).

pub mod auth;
mod catalog;
mod handler;
mod http;
pub mod limits;
mod memory;
#[cfg(target_os = "linux")]
mod pipe;
mod redact;
mod stdio;
#[cfg(feature = "otel")]
pub mod telemetry;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use charter_runtime::CallContext;
use charter_runtime::error::DeclarationError;
use charter_runtime::session::{HttpCaller, Ranking, SessionOptions, Source, ToolSession, Toolkit};

pub use charter_runtime::session::Disclosure;
use charter_runtime::table::Table;

use catalog::Catalog;
use handler::Connection;

pub use http::{HEALTH_PATH, HttpOptions, HttpServer};
pub use redact::{MaskSessionIds, mask_session_ids};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";
pub use limits::{CallLimits, HttpLimits};

/// How an [`McpServer`] serves its tools.
///
/// Built from [`ServerOptions::new`] with the `with_*` methods, each option defaulting as its
/// field says: the struct is `#[non_exhaustive]`, so an option added later gets a `with_*` and a
/// default, and every caller keeps compiling. The fields stay readable.
///
/// ```
/// use charter_mcp::{Disclosure, McpServer, ServerOptions, Transport};
///
/// let options = ServerOptions::new()
///     .with_disclosure(Disclosure::SearchAndCall)
///     .with_threshold(200)
///     .with_mode("pro")
///     .with_name("my-server");
/// assert_eq!(options.mode.as_deref(), Some("pro"));
///
/// let server = McpServer::new(&[], options).unwrap();
/// assert!(server.start_line(&Transport::Stdio).contains("search-and-call"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// How tools reach the model (default [`Disclosure::Eager`]: every schema listed, which is
    /// what most MCP clients can follow). [`Disclosure::ListChanged`] lists only `ToolSearch` at
    /// first and grows the list as tools load, on revisions that let a list change (2026-07-28
    /// gets search-and-call); [`Disclosure::SearchAndCall`] serves that on every revision;
    /// [`Disclosure::Code`] lists ToolSearch and RunCode on every revision (feature `code`).
    pub disclosure: Disclosure,
    /// In progressive forms, tools whose schema is at most this many tokens stay listed from the
    /// start (default 0: every tool deferred).
    pub threshold: u32,
    /// The session mode (tier, region, A/B arm) every connection is served under.
    pub mode: Option<String>,
    /// How ToolSearch ranks keyword queries (default [`Ranking::Hybrid`]).
    pub ranking: Ranking,
    /// Who executes HTTP-pack tools; `None` lets the session pick its default executor.
    pub http: Option<Arc<dyn HttpCaller>>,
    /// The per-call context every call runs with (credentials are still resolved per call).
    pub context: CallContext,
    /// The server name announced in `initialize` (default `charter`).
    pub name: String,
    /// Time and answer size of one tool call (`docs/limits.md`).
    pub call_limits: CallLimits,
    /// How code mode runs `RunCode` programs ([`ServerOptions::with_code`]). Not public: a field
    /// that only some feature sets have would change the struct's public shape with a feature.
    #[cfg(feature = "code")]
    code: charter_runtime::code::CodeRunner,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            disclosure: Disclosure::Eager,
            threshold: 0,
            mode: None,
            ranking: Ranking::default(),
            http: None,
            context: CallContext::default(),
            name: "charter".to_owned(),
            call_limits: CallLimits::default(),
            #[cfg(feature = "code")]
            code: charter_runtime::code::CodeRunner::default(),
        }
    }
}

impl ServerOptions {
    /// The defaults ([`ServerOptions::default`]), to start a chain of `with_*` calls from.
    pub fn new() -> ServerOptions {
        ServerOptions::default()
    }

    /// How tools reach the model ([`ServerOptions::disclosure`]).
    pub fn with_disclosure(mut self, disclosure: Disclosure) -> ServerOptions {
        self.disclosure = disclosure;
        self
    }

    /// The size up to which a tool stays listed from the start in progressive forms
    /// ([`ServerOptions::threshold`]).
    pub fn with_threshold(mut self, threshold: u32) -> ServerOptions {
        self.threshold = threshold;
        self
    }

    /// The session mode every connection is served under ([`ServerOptions::mode`]); an empty
    /// label is refused when the server is built.
    pub fn with_mode(mut self, mode: impl Into<String>) -> ServerOptions {
        self.mode = Some(mode.into());
        self
    }

    /// How ToolSearch ranks keyword queries ([`ServerOptions::ranking`]).
    pub fn with_ranking(mut self, ranking: Ranking) -> ServerOptions {
        self.ranking = ranking;
        self
    }

    /// Who executes HTTP-pack tools ([`ServerOptions::http`]): a test double, or an executor
    /// with its own client, credentials or shared store.
    pub fn with_http(mut self, http: Arc<dyn HttpCaller>) -> ServerOptions {
        self.http = Some(http);
        self
    }

    /// The per-call context every call runs with ([`ServerOptions::context`]).
    pub fn with_context(mut self, context: CallContext) -> ServerOptions {
        self.context = context;
        self
    }

    /// The server name announced in `initialize` ([`ServerOptions::name`]).
    pub fn with_name(mut self, name: impl Into<String>) -> ServerOptions {
        self.name = name.into();
        self
    }

    /// Time and answer size of one tool call ([`ServerOptions::call_limits`]).
    pub fn with_call_limits(mut self, call_limits: CallLimits) -> ServerOptions {
        self.call_limits = call_limits;
        self
    }

    /// How code mode ([`Disclosure::Code`]) runs `RunCode` programs: their limits, and how many
    /// run at once across every session of the server (docs/code-mode.md). Default: a runner of
    /// its own with [`CodeLimits::default`](charter_runtime::code::CodeLimits::default).
    #[cfg(feature = "code")]
    pub fn with_code(mut self, code: charter_runtime::code::CodeRunner) -> ServerOptions {
        self.code = code;
        self
    }
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("disclosure", &self.disclosure)
            .field("threshold", &self.threshold)
            .field("mode", &self.mode)
            .field("ranking", &self.ranking)
            .field("http", &self.http.as_ref().map(|_| ".."))
            .field("name", &self.name)
            .field("call_limits", &self.call_limits)
            .finish_non_exhaustive()
    }
}

/// Which transport a server runs on, for its start line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// MCP over the process's stdin/stdout.
    Stdio,
    /// Streamable HTTP at this URL.
    Http(String),
}

/// Why serving failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The `--http` address is not `HOST:PORT`.
    #[error("invalid HTTP address `{addr}`: {reason} (expected HOST:PORT, e.g. 127.0.0.1:8080)")]
    BadAddress {
        /// The address as given.
        addr: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The address could not be bound (in use, not local, no permission).
    #[error("cannot listen on {addr}: {reason}")]
    Bind {
        /// The address as given.
        addr: String,
        /// What the system said, with a hint.
        reason: String,
    },
    /// The connection failed before or while serving.
    #[error("MCP transport error: {0}")]
    Transport(String),
    /// No authentication on an address other machines can reach.
    #[error(
        "refusing to serve {addr} without authentication: anyone who can reach it could call \
         every tool. Give an auth file (--auth FILE, see docs/mcp.md), bind 127.0.0.1, or pass \
         --insecure-no-auth to serve it open anyway"
    )]
    AuthRequired {
        /// The address bound.
        addr: String,
    },
    /// The auth file cannot be applied to this server.
    #[error("authentication setup: {0}")]
    Auth(String),
}

/// Serves a fixed set of tables over MCP; cheap to clone (shared state).
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
}

/// What the background warm-up prepares: parsed tools for the HTTP transport (rmcp serialises
/// them); for stdio, which writes the texts as they are (`stdio.rs`), only the check that each
/// schema is a JSON object.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Warm {
    Parsed,
    Checked,
}

/// What every connection shares.
pub(crate) struct Shared {
    pub(crate) tables: Vec<&'static Table>,
    /// Tools built at run time (remote MCP servers through the bridge), served beside the
    /// tables behind the same ToolSearch.
    pub(crate) toolkits: Vec<Arc<dyn Toolkit>>,
    pub(crate) options: ServerOptions,
    pub(crate) catalog: Catalog,
    /// Whether the background schema parse has been started.
    warming: AtomicBool,
}

impl Shared {
    /// Starts preparing every schema on another thread, once per server: it runs while the
    /// first client initializes and asks for the list, so neither waits for it.
    pub(crate) fn warm_in_background(self: &Arc<Self>, form: Warm) {
        if self.warming.swap(true, Ordering::Relaxed) {
            return;
        }
        let shared = self.clone();
        let spawned = std::thread::Builder::new()
            .name("charter-schemas".to_owned())
            .spawn(move || {
                lower_priority();
                let warmed = match form {
                    Warm::Parsed => shared.catalog.warm(),
                    Warm::Checked => shared.catalog.check_json(),
                };
                if let Err(error) = warmed {
                    tracing::error!(%error, "a tool schema cannot be served");
                }
            });
        if let Err(error) = spawned {
            // Not fatal: every schema still parses on first use.
            tracing::debug!(%error, "no thread to parse schemas ahead of use");
        }
    }
}

impl McpServer {
    /// A server over these tables. Builds its sessions up front, so a bad deployment (an empty
    /// mode label, duplicate names) fails here, at start, rather than on the first connection.
    /// Schemas are parsed later (see [`McpServer::check_schemas`]).
    pub fn new(
        tables: &[&'static Table],
        options: ServerOptions,
    ) -> Result<Self, DeclarationError> {
        Self::with_toolkits(tables, Vec::new(), options)
    }

    /// A server over these tables and run-time toolkits (other MCP servers reached through the
    /// bridge, `charter mcp --upstream`): one list, one ToolSearch, so a client with one
    /// connection reaches every server. A toolkit's list changes reach each connection at its
    /// next request (its session is rebuilt with the order rules kept, and a progressive or
    /// eager list that changed is announced with `notifications/tools/list_changed`).
    pub fn with_toolkits(
        tables: &[&'static Table],
        toolkits: Vec<Arc<dyn Toolkit>>,
        options: ServerOptions,
    ) -> Result<Self, DeclarationError> {
        let tables = tables.to_vec();
        let eager = build_session(&tables, &toolkits, &options, Disclosure::Eager)?;
        let mut progressive = Vec::new();
        if options.disclosure.is_progressive() {
            // Both forms: a server with the list-changed default still serves search-and-call
            // to clients on 2026-07-28.
            for form in [Disclosure::ListChanged, Disclosure::SearchAndCall] {
                progressive.push(build_session(&tables, &toolkits, &options, form)?);
            }
        }
        let catalog = Catalog::build(
            &tables,
            &eager,
            &progressive,
            options.call_limits.max_result_bytes,
        );
        Ok(Self {
            shared: Arc::new(Shared {
                tables,
                toolkits,
                options,
                catalog,
                warming: AtomicBool::new(false),
            }),
        })
    }

    /// Parses every schema now (the server otherwise parses them on a background thread once it
    /// starts serving, and on first use) and reports the first that is not a JSON object.
    pub fn check_schemas(&self) -> Result<(), DeclarationError> {
        self.shared.catalog.warm()
    }

    /// How many tools the server serves (`ToolSearch` not counted).
    pub fn tool_count(&self) -> usize {
        self.shared.catalog.tool_count()
    }

    /// The pack labels served, in order.
    pub fn packs(&self) -> Vec<&'static str> {
        self.shared.tables.iter().map(|t| t.pack).collect()
    }

    /// The one line a server writes to stderr on start: how many tools from which packs, over
    /// which transport, eager or progressive, and which packs lack credentials.
    pub fn start_line(&self, transport: &Transport) -> String {
        let options = &self.shared.options;
        let over = match transport {
            Transport::Stdio => "stdio".to_owned(),
            Transport::Http(url) => format!("streamable HTTP at {url}"),
        };
        let resident = self.shared.catalog.resident_count();
        let small = if resident == 0 {
            String::new()
        } else {
            format!("{resident} small tools, ")
        };
        let how = match options.disclosure {
            Disclosure::Eager => "eager (every schema listed)".to_owned(),
            Disclosure::ListChanged => format!(
                "progressive: list-changed ({small}ToolSearch listed, tools join the list as \
                 they load) on revisions up to 2025-11-25, search-and-call ({small}ToolSearch \
                 and CallTool, a stable list) on 2026-07-28"
            ),
            Disclosure::SearchAndCall => format!(
                "progressive: search-and-call ({small}ToolSearch and CallTool, a stable list) \
                 on every revision"
            ),
            Disclosure::Code => format!(
                "code mode ({small}ToolSearch and RunCode, a stable list; a program calls the \
                 tools) on every revision"
            ),
        };
        let mode = match &options.mode {
            Some(mode) => format!(", mode `{mode}`"),
            None => String::new(),
        };
        let missing: Vec<String> = self
            .shared
            .tables
            .iter()
            .filter_map(|t| missing_credential(t).map(|env| format!("{} (set {env})", t.pack)))
            .collect();
        let creds = if missing.is_empty() {
            String::new()
        } else {
            format!(
                "; no credentials for {}: its calls will say what to set",
                missing.join(", ")
            )
        };
        let mut sources: Vec<String> = self.packs().iter().map(|p| p.to_string()).collect();
        sources.extend(
            self.shared
                .toolkits
                .iter()
                .map(|k| format!("{} (upstream MCP server)", k.pack())),
        );
        format!(
            "charter: serving {} tools from {} over MCP ({over}), {how}{mode}{creds}",
            self.tool_count(),
            sources.join(", "),
        )
    }

    /// Serves one MCP connection over the process's stdin/stdout until the client hangs up.
    /// Pipes and sockets are polled on the runtime's own thread (`pipe.rs`); anything else goes
    /// through tokio's stdio.
    pub async fn serve_stdio(&self) -> Result<(), ServeError> {
        #[cfg(target_os = "linux")]
        let (read, write) = (pipe::Input::stdin(), pipe::Output::stdout());
        #[cfg(not(target_os = "linux"))]
        let (read, write) = (tokio::io::stdin(), tokio::io::stdout());
        self.serve_io(read, write).await
    }

    /// Serves one MCP connection over any byte pipe pair until the client hangs up.
    pub async fn serve_io<R, W>(&self, read: R, write: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        use rmcp::ServiceExt;
        // The schemas are checked once `initialize` is answered (`Connection::on_initialized`).
        let marks = stdio::Marks::default();
        let write = stdio::ListWriter::new(write, self.shared.clone(), marks.clone());
        let connection = Connection::new(self.shared.clone(), Some(marks));
        #[cfg(feature = "otel")]
        let connection = telemetry::Traced::new(connection, "pipe");
        let running = handler::Boxed(connection)
            .serve((read, write))
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        Ok(())
    }

    /// Binds the streamable HTTP transport (`/mcp`) on `addr`; call [`HttpServer::run`] to
    /// serve. Binding first lets the caller report the real address (port 0 picks one).
    pub async fn bind_http(
        &self,
        addr: &str,
        options: HttpOptions,
    ) -> Result<HttpServer, ServeError> {
        // Only an eager list needs every tool ready; a progressive server prepares each tool
        // when it is first listed.
        if !self.shared.options.disclosure.is_progressive() {
            self.shared.warm_in_background(Warm::Parsed);
        }
        http::bind(self.clone(), addr, options).await
    }

    /// A fresh handler for one MCP session over HTTP (measured with feature `otel`), its state
    /// kept in the fleet's store when there is one.
    pub(crate) fn connection(
        &self,
        fleet: Option<crate::store::sessions::FleetSessions>,
    ) -> impl rmcp::ServerHandler + use<> {
        let connection = Connection::new(self.shared.clone(), None).with_fleet(fleet);
        #[cfg(feature = "otel")]
        let connection = telemetry::Traced::new(connection, "tcp");
        connection
    }
}

/// Parsing ahead of use should only take a core nobody else wants: on a busy machine the thread
/// answering `initialize` goes first (a list that needs a schema not parsed yet parses it).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; on Linux, PRIO_PROCESS with who = 0 sets the
    // nice value of the calling thread alone. A failure leaves the priority as it was.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// Builds a session over `tables` with the server's options, serving `form`.
pub(crate) fn build_session(
    tables: &[&'static Table],
    toolkits: &[Arc<dyn Toolkit>],
    options: &ServerOptions,
    form: Disclosure,
) -> Result<ToolSession, DeclarationError> {
    let mut session_options = SessionOptions::new()
        .with_disclosure(form)
        .with_threshold(options.threshold)
        .with_ranking(options.ranking);
    if let Some(mode) = &options.mode {
        session_options = session_options.with_mode(mode.clone());
    }
    if let Some(http) = &options.http {
        session_options = session_options.with_http(http.clone());
    }
    #[cfg(feature = "code")]
    let session_options = session_options.with_code(options.code.clone());
    ToolSession::with_options(
        tables
            .iter()
            .map(|t| Source::Table(t))
            .chain(toolkits.iter().map(|k| Source::Toolkit(k.clone())))
            .collect(),
        session_options,
    )
}

/// The credential variable a pack needs and the environment lacks, if any. An OAuth 2 pack
/// without a ready access token needs at least its client id (its refresh token may come from a
/// stored `charter auth login`).
fn missing_credential(table: &Table) -> Option<&'static str> {
    let unset = |env: &'static str| match std::env::var_os(env) {
        Some(v) if !v.is_empty() => None,
        _ => Some(env),
    };
    table.tools.iter().find_map(|tool| match tool.exec {
        charter_runtime::table::Exec::Http(route) => match route.pack.auth {
            charter_runtime::table::Auth::OAuth2(o) => {
                let has_token = route.pack.auth.env().is_some_and(|e| unset(e).is_none());
                if has_token {
                    None
                } else {
                    unset(o.client_id_env)
                }
            }
            auth => auth.env().and_then(unset),
        },
        charter_runtime::table::Exec::Rust(_) => None,
    })
}
