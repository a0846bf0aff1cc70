//! The rmcp handler of one connection, written by hand over a [`ToolSession`].

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use charter_runtime::session::{CALL_TOOL, TOOL_SEARCH, ToolSession};
use futures::FutureExt;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    DiscoverResult, Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    MetaObject, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, ServiceRole};
use rmcp::transport::streamable_http_server::session::SessionRestoreMarker;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use super::auth::{self, Caller};
use super::stdio::{Marks, RAW_LIST};
use super::{Disclosure, Shared, Warm, build_session};
use crate::store::sessions::FleetSessions;

/// The session of one connection and whether its list may change.
struct Live {
    session: Arc<ToolSession>,
    /// Progressive disclosure in force: loads grow the list and are announced.
    progressive: bool,
    /// The authenticated caller it was built for (over HTTP with `--auth`): its rule's tools,
    /// and no other caller may use this MCP session.
    caller: Option<Arc<Caller>>,
}

impl Live {
    /// The per-call context: the caller's rule may name the user pack calls act for.
    fn context<'a>(
        &'a self,
        shared: &'a Shared,
    ) -> std::borrow::Cow<'a, charter_runtime::CallContext> {
        match &self.caller {
            Some(caller) => std::borrow::Cow::Owned(caller.access.context(caller.user.as_deref())),
            None => std::borrow::Cow::Borrowed(&shared.options.context),
        }
    }
}

/// One MCP connection: a stdio pipe, or one MCP session over HTTP.
pub(crate) struct Connection {
    shared: Arc<Shared>,
    live: Mutex<Option<Arc<Live>>>,
    /// Set when the pipe writes `tools/list` answers from serialised tools (stdio, `stdio.rs`):
    /// how many marked answers it has yet to write.
    marks: Option<Marks>,
    /// The fleet's session store (HTTP with `--store`): the session's caller and loaded tools
    /// are kept there, so any instance serves its next request.
    fleet: Option<FleetSessions>,
    /// Whether this connection is a session another instance started, restored from the store.
    restored: AtomicBool,
}

/// How long (ms) a 2026-07-28 client may treat a `tools/list` answer as fresh: the list is
/// fixed for the server's life (eager or search-and-call); five minutes bounds how long a client
/// keeps a list after the server restarts with other packs. With upstream servers, whose lists
/// change, 0.
const LIST_TTL_MS: u64 = 300_000;

/// Whether a protocol revision forbids the tool list from varying as a side effect of other
/// requests (2026-07-28 and later). rmcp knows the revision, so its negotiated version is used.
fn stable_list_required(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl Connection {
    pub(crate) fn new(shared: Arc<Shared>, marks: Option<Marks>) -> Self {
        Self {
            shared,
            live: Mutex::new(None),
            marks,
            fleet: None,
            restored: AtomicBool::new(false),
        }
    }

    /// This connection with its state kept in the fleet's store.
    pub(crate) fn with_fleet(mut self, fleet: Option<FleetSessions>) -> Self {
        self.fleet = fleet;
        self
    }

    /// The session of this connection, built on first use: only then is the protocol revision
    /// known, which decides whether progressive disclosure may be used. With a fleet store, the
    /// session is bound to its caller there and gets the tools it loaded on other instances.
    async fn live(&self, context: &RequestContext<RoleServer>) -> Result<Arc<Live>, McpError> {
        let caller = auth::caller_of(context);
        if let Some(live) = self.current() {
            let owner = live.caller.as_ref().map(|c| c.identity());
            if owner != caller.as_ref().map(|c| c.identity()) {
                return Err(another_caller());
            }
            return Ok(live);
        }
        let version = context.protocol_version();
        let form = self.form(stable_list_required(version.as_ref()));
        let progressive = form.list_changes();
        let session = match &caller {
            Some(caller) => {
                let access = &caller.access;
                build_session(&access.tables, &access.toolkits, &access.options, form)
            }
            None => build_session(
                &self.shared.tables,
                &self.shared.toolkits,
                &self.shared.options,
                form,
            ),
        }
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        if let Some((fleet, id)) = self.fleet_session(context) {
            self.attach(fleet, id, &session, caller.as_deref()).await?;
        }
        let built = Arc::new(Live {
            session: Arc::new(session),
            progressive,
            caller,
        });
        let mut slot = self
            .live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Another request of this session may have built it meanwhile: one session it is.
        Ok(slot.get_or_insert(built).clone())
    }

    fn current(&self) -> Option<Arc<Live>> {
        self.live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The fleet store and this request's MCP session id, when both exist.
    fn fleet_session<'a>(
        &'a self,
        context: &'a RequestContext<RoleServer>,
    ) -> Option<(&'a FleetSessions, &'a str)> {
        let fleet = self.fleet.as_ref()?;
        let id = context
            .extensions
            .get::<axum::http::request::Parts>()?
            .headers
            .get("mcp-session-id")?
            .to_str()
            .ok()?;
        Some((fleet, id))
    }

    /// Binds the session to its caller in the store (the first caller owns it) and loads what
    /// it loaded elsewhere. A session started here is served even while the store is
    /// unreachable; one restored from another instance is not, since whose it is and what it
    /// loaded are unknown.
    async fn attach(
        &self,
        fleet: &FleetSessions,
        id: &str,
        session: &ToolSession,
        caller: Option<&Caller>,
    ) -> Result<(), McpError> {
        let owner = caller.map(owner_digest);
        match fleet.attach(id, owner.as_deref()).await {
            Ok(record) => {
                if record.owner != owner {
                    return Err(another_caller());
                }
                load_missing(session, &record.loaded);
                Ok(())
            }
            Err(error) if self.restored.load(Ordering::SeqCst) => Err(McpError::internal_error(
                format!(
                    "{error}: this MCP session started on another instance and cannot be \
             restored until the store is back; retry later"
                ),
                None,
            )),
            Err(_) => Ok(()),
        }
    }

    /// Loads what other instances loaded into this session since this one last looked.
    async fn sync_loads(&self, live: &Live, context: &RequestContext<RoleServer>) {
        if !live.progressive {
            return;
        }
        if let Some((fleet, id)) = self.fleet_session(context)
            && let Ok(loaded) = fleet.loaded(id).await
        {
            load_missing(&live.session, &loaded);
        }
    }

    /// The session of this connection, rebuilt first when an upstream toolkit's list changed
    /// since it was built (loaded tools keep their order; new ones join the deferred
    /// catalogue), announcing the change where the protocol revision lets a list change.
    async fn fresh(&self, context: &RequestContext<RoleServer>) -> Result<Arc<Live>, McpError> {
        let live = self.live(context).await?;
        self.sync_loads(&live, context).await;
        if !live.session.is_stale() {
            return Ok(live);
        }
        let session = live
            .session
            .refreshed()
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let next = Arc::new(Live {
            session: Arc::new(session),
            progressive: live.progressive,
            caller: live.caller.clone(),
        });
        let current = {
            let mut slot = self
                .live
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match slot.as_ref() {
                // Another request refreshed first: use its session (it carries the same loads).
                Some(other) if !Arc::ptr_eq(other, &live) => other.clone(),
                _ => {
                    *slot = Some(next.clone());
                    next
                }
            }
        };
        if !stable_list_required(context.protocol_version().as_ref())
            && let Err(error) = context.peer.notify_tool_list_changed().await
        {
            tracing::warn!(%error, "could not send notifications/tools/list_changed");
        }
        Ok(current)
    }

    /// The list this connection is served with: the server's form, but search-and-call where
    /// the revision forbids a list that changes (`stable`) and the server's would.
    fn form(&self, stable: bool) -> Disclosure {
        match self.shared.options.disclosure {
            Disclosure::ListChanged if stable => Disclosure::SearchAndCall,
            form => form,
        }
    }

    fn info(&self, form: Disclosure) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        if form.list_changes()
            && let Some(tools) = capabilities.tools.as_mut()
        {
            tools.list_changed = Some(true);
        }
        let mut info = ServerConfig::new(capabilities).with_server_info(
            Implementation::new(self.shared.options.name.clone(), env!("CARGO_PKG_VERSION"))
                .with_title("charter"),
        );
        match form {
            Disclosure::Eager => {}
            Disclosure::ListChanged => {
                info = info.with_instructions(
                    "Tools are loaded on demand: call ToolSearch (`select:<name>` or keywords) to \
                     add the ones you need; the tool list then grows.",
                );
            }
            Disclosure::SearchAndCall => {
                info = info.with_instructions(
                    "Find tools with ToolSearch (`select:<name>` or keywords): each comes back \
                     with its input schema. Call one with CallTool {\"name\", \"arguments\"}.",
                );
            }
            Disclosure::Code => {
                info = info.with_instructions(
                    "Find tools with ToolSearch (`select:<name>` or keywords): each comes back \
                     declared as a program calls it. Run one JavaScript program with RunCode \
                     {\"code\"}: `const x = await <pack>.<tool>({...})`, then return only the \
                     answer.",
                );
            }
        }
        info
    }

    /// The error for a name no session of this server offers: the closest names (never the
    /// whole catalogue, which is hundreds of names), and ToolSearch when it is offered.
    fn unknown_tool(session: &ToolSession, name: &str) -> String {
        let shown: String = name.chars().take(100).collect();
        let mut message = format!("unknown tool `{shown}`");
        let closest = session.closest_names(name, 5);
        if !closest.is_empty() {
            message.push_str(&format!("; closest names: {}", closest.join(", ")));
        }
        if session.is_callable(TOOL_SEARCH) {
            message.push_str(&format!("; find tools with {TOOL_SEARCH}"));
        }
        message
    }
}

impl ServerHandler for Connection {
    fn get_info(&self) -> ServerConfig {
        // Before `initialize` the revision is not known: describe the older revisions' list.
        let mut info = self.info(self.form(false));
        // Upstream servers may change their lists: say the list can change.
        if !self.shared.toolkits.is_empty()
            && let Some(tools) = info.capabilities.tools.as_mut()
        {
            tools.list_changed = Some(true);
        }
        info
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        // rmcp replays the `initialize` of a session another instance started, marked.
        if context.extensions.get::<SessionRestoreMarker>().is_some() {
            self.restored.store(true, Ordering::SeqCst);
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        // Over stdio an eager server checks every schema (its first list writes them all) on
        // another thread while the client asks for that list; started here, once `initialize`
        // is answered, the thread costs that answer nothing. A progressive server checks each
        // tool when it first lists it, and never reads the schemas of tools nobody loads.
        if self.marks.is_some() && !self.shared.options.disclosure.is_progressive() {
            self.shared.warm_in_background(Warm::Checked);
        }
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        // `server/discover` is the 2026-07-28 lifecycle: the list is stable, never announced.
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.info(self.form(true)),
        ))
    }

    // `tools/list` and `tools/call` return boxed futures, made in functions of their own (not
    // inlined, so the room to make each in stays in their frames, entered only by a list or a
    // call). Inline, a call's future (about 3 KB: the session's dispatch, the HTTP call, the
    // time limit) made rmcp's future for any request, `initialize` too, 9.5 KB with telemetry;
    // now 5 KB, which [`Boxed`] moves to the heap for each request.
    #[inline(never)]
    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, McpError>> + MaybeSendFuture + '_ {
        Box::pin(self.list(request, context))
    }

    #[inline(never)]
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, McpError>> + MaybeSendFuture + '_ {
        Box::pin(self.call(request, context))
    }
}

impl Connection {
    /// `tools/list` (boxed by [`ServerHandler::list_tools`]).
    async fn list(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let live = self.fresh(&context).await?;
        let visible = live.session.visible();
        let hints = |result: ListToolsResult| {
            if !stable_list_required(context.protocol_version().as_ref()) {
                return result;
            }
            // Without authentication the list is the same for every client of this server; with
            // it, the list is the caller's rule's, for this caller only.
            let ttl = if self.shared.toolkits.is_empty() {
                LIST_TTL_MS
            } else {
                0
            };
            let scope = if live.caller.is_some() {
                CacheScope::Private
            } else {
                CacheScope::Public
            };
            result.with_ttl_ms(ttl).with_cache_scope(scope)
        };
        if let Some(marks) = &self.marks
            && let Some(indices) = self.shared.catalog.serialised(&visible)
        {
            let indices = indices.map_err(|e| McpError::internal_error(e.to_string(), None))?;
            // An empty answer marked with what to list: the stdio pipe writes the tools.
            let mut result = hints(ListToolsResult::with_all_items(Vec::new()));
            let mut meta = MetaObject::default();
            meta.insert(RAW_LIST.to_owned(), Value::from(indices));
            result.meta = Some(meta);
            marks.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            return Ok(result);
        }
        let tools = self
            .shared
            .catalog
            .list(&visible)
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(hints(ListToolsResult::with_all_items(tools)))
    }

    /// `tools/call` (boxed by [`ServerHandler::call_tool`]).
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let live = self.fresh(&context).await?;
        let session = &live.session;
        let CallToolRequestParams {
            name, arguments, ..
        } = request;
        let name = name.as_ref();
        let offered = if name == TOOL_SEARCH || name == CALL_TOOL {
            session.is_callable(name)
        } else if live.caller.is_some() {
            // Only what the caller's rule holds (the catalog is every caller's).
            session.annotations(name).is_some()
        } else {
            // A toolkit tool listed after the server started is not in the prebuilt catalog.
            self.shared.catalog.knows(name) || session.annotations(name).is_some()
        };
        if !offered {
            return Err(McpError::invalid_params(
                Self::unknown_tool(session, name),
                None,
            ));
        }
        let arguments = Value::Object(arguments.unwrap_or_default());
        // Kept for the budget's continuation (the next call's arguments), when one is needed.
        let asked = arguments.clone();
        let before = session.generation();
        let loaded_before = session.loaded().len();
        let ctx = live.context(&self.shared);
        let limits = self.shared.options.call_limits;
        let call = AssertUnwindSafe(session.dispatch(name, arguments, &ctx)).catch_unwind();
        let Ok(outcome) = tokio::time::timeout(limits.timeout, call).await else {
            let text = limits.timed_out(name);
            return Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                ContentBlock::text(text),
            ])));
        };
        let result = match outcome {
            Ok(Ok(output)) => {
                let output = session.fit(name, &asked, output, limits.max_result_bytes);
                match limits.cut(&output.text) {
                    // The structured copy would carry the whole answer: the cut text only.
                    Some(cut) => CallToolResult::success(vec![ContentBlock::text(cut)]),
                    None => {
                        let mut result =
                            CallToolResult::success(vec![ContentBlock::text(output.text)]);
                        // MCP's structuredContent is an object: a tool with a declared result sends
                        // what its outputSchema describes (a list under `items`); without one, other
                        // JSON stays in the text.
                        result.structured_content = match session.output(name) {
                            Some(schema) => output.structured.map(|v| schema.structured(v)),
                            None => output.structured.filter(Value::is_object),
                        };
                        result
                    }
                }
            }
            // A charter error is for the model: it reads it and corrects itself.
            Ok(Err(error)) => CallToolResult::error(vec![ContentBlock::text(error.to_string())]),
            // A bug in host code is not fed to the model as text.
            Err(_) => {
                tracing::error!(tool = name, "tool call panicked");
                return Err(McpError::internal_error(
                    format!("tool `{name}` panicked"),
                    None,
                ));
            }
        };
        if live.progressive
            && session.generation() != before
            && let Some((fleet, id)) = self.fleet_session(&context)
        {
            let new: Vec<String> = session
                .loaded()
                .iter()
                .skip(loaded_before)
                .map(|n| (*n).to_owned())
                .collect();
            // Not fatal: this instance serves the session as loaded; others see it once the
            // store is back and the next load is written.
            let _ = fleet.push_loaded(id, &new).await;
        }
        if live.progressive && session.generation() != before {
            // Sent before the result, so a client sees the change no later than the answer.
            if let Err(error) = context.peer.notify_tool_list_changed().await {
                tracing::warn!(%error, "could not send notifications/tools/list_changed");
            }
        }
        Ok(CallToolResponse::Complete(result))
    }
}

/// A handler served as rmcp's `Service` with each request's future on the heap.
///
/// rmcp's `Service` for a `ServerHandler` is one future matching every request kind, and its
/// handshake awaits it inline. Over stdio the future that answers `initialize` is polled on the
/// main thread before anything else, and each frame of that poll (`block_on`, the scheduler's,
/// rmcp's `select!`) held a copy of it or room for one, every page of them probed: it was 14 KB
/// (9.5 of them the request's), 6 KB with the request's boxed, and the main thread's stack went
/// from 27 pages to 18 (docs/mcp.md, "Little done before `initialize`"). The request future is
/// made in [`Boxed::handle_request`]'s own frame (not inlined) and moved to the heap, one
/// allocation per request.
pub(crate) struct Boxed<H>(pub(crate) H);

impl<H: ServerHandler> rmcp::Service<RoleServer> for Boxed<H> {
    #[inline(never)]
    fn handle_request(
        &self,
        request: <RoleServer as ServiceRole>::PeerReq,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<<RoleServer as ServiceRole>::Resp, McpError>> + MaybeSendFuture + '_
    {
        Box::pin(rmcp::Service::handle_request(&self.0, request, context))
    }

    fn handle_notification(
        &self,
        notification: <RoleServer as ServiceRole>::PeerNot,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        rmcp::Service::handle_notification(&self.0, notification, context)
    }

    fn get_info(&self) -> <RoleServer as ServiceRole>::Info {
        rmcp::Service::get_info(&self.0)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        rmcp::Service::supported_protocol_versions(&self.0)
    }
}

/// The error for a session used by a caller other than the one that started it.
fn another_caller() -> McpError {
    McpError::invalid_request(
        "this MCP session was started by another caller; start a new session",
        None,
    )
}

/// Names a caller in the fleet's store without holding its subject: the rule that admitted it
/// and its subject, digested.
fn owner_digest(caller: &Caller) -> String {
    let (rule, subject) = caller.identity();
    let rule = rule.map_or_else(|| "-".to_owned(), |r| r.to_string());
    crate::store::digest(&["owner", &rule, subject.as_deref().unwrap_or("")])
}

/// Loads the tools of `names` this session has not loaded yet, in their order.
fn load_missing(session: &ToolSession, names: &[String]) {
    let have = session.loaded();
    let missing: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !have.contains(n))
        .collect();
    if !missing.is_empty() {
        session.search(&format!("select:{}", missing.join(",")), None);
    }
}
