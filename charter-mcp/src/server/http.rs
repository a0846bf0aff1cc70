//! Streamable HTTP on axum, with DNS-rebinding protection.
//!
//! A page on another origin can make a browser send requests to `127.0.0.1` (directly, or
//! through a DNS name it rebinds there). So every request's `Host` must name this server (loopback
//! names by default) and its `Origin`, when present, must be a loopback origin: anything else is
//! refused with 403 before it reaches MCP. `--allow-host` / `--allow-origin` extend the lists
//! for a deliberate deployment.
//!
//! With an auth file (`HttpOptions::auth`), every request to `/mcp` is authenticated and its
//! caller authorised first (`auth/`); without one, a non-loopback bind is refused unless
//! waived (`insecure_no_auth`).

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::limits::{Gate, HttpLimits};
use super::{MCP_PATH, McpServer, ServeError};
use crate::store::sessions::FleetSessions;

/// The health check for load balancers: `200 ok` while the server takes requests, 503 once it
/// is stopping. No authentication, no MCP, no state.
pub const HEALTH_PATH: &str = "/healthz";

/// Who may reach the HTTP transport, beyond loopback.
///
/// Built from [`HttpOptions::new`] with the `with_*` methods, each option defaulting as its
/// field says: the struct is `#[non_exhaustive]`, so an option added later gets a `with_*` and a
/// default, and every caller keeps compiling. The fields stay readable.
///
/// ```
/// use charter_mcp::{AuthConfig, HttpLimits, HttpOptions};
///
/// let options = HttpOptions::new()
///     .with_allow_hosts(["mcp.example.com"])
///     .with_allow_origins(["https://app.example.com"])
///     .with_auth(AuthConfig::default())
///     .with_limits(HttpLimits::default());
/// assert_eq!(options.allow_hosts, ["mcp.example.com"]);
/// assert!(options.auth.is_some() && !options.insecure_no_auth);
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Extra `Host` values accepted (`example.com`, `example.com:8080`). Loopback names
    /// (`localhost`, `127.0.0.1`, `::1`) and the exact bound address are always accepted.
    pub allow_hosts: Vec<String>,
    /// Extra browser origins accepted (`https://app.example.com`, `http://host:*`). Loopback
    /// origins on any port are always accepted; requests without `Origin` (non-browser clients)
    /// pass.
    pub allow_origins: Vec<String>,
    /// Who may call, and what each caller gets (`--auth FILE`); `None`: no authentication,
    /// which is refused on a non-loopback address unless `insecure_no_auth`.
    pub auth: Option<super::auth::AuthConfig>,
    /// Serve without authentication on a non-loopback address (`--insecure-no-auth`).
    pub insecure_no_auth: bool,
    /// Sessions, request rate, body size and shutdown grace (`docs/limits.md`).
    pub limits: HttpLimits,
    /// A store shared with other instances (`--store redis://...`): the per-caller rate is
    /// counted fleet-wide and MCP sessions (with the tools a progressive session loaded) are
    /// served by any instance. Give the executor the same store's
    /// [`tokens`](crate::store::FleetStore::tokens) to share OAuth 2 tokens too
    /// (`docs/deployment.md`).
    pub store: Option<crate::store::FleetStore>,
    /// After sessions close, ask the allocator to hand its free pages back to the system
    /// (glibc's `malloc_trim`; nothing elsewhere). Off by default: the allocator is the host
    /// process's, so only its owner turns this on (the `charter` binary does, for
    /// `charter mcp --http`). Without it a server's resident memory stays near its peak after a
    /// burst of sessions, though none of it is still in use (docs/deployment.md).
    pub release_memory: bool,
}

impl HttpOptions {
    /// The defaults ([`HttpOptions::default`]), to start a chain of `with_*` calls from.
    pub fn new() -> HttpOptions {
        HttpOptions::default()
    }

    /// Extra `Host` values accepted, beyond loopback ([`HttpOptions::allow_hosts`]).
    pub fn with_allow_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> HttpOptions {
        self.allow_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Extra browser origins accepted, beyond loopback ([`HttpOptions::allow_origins`]).
    pub fn with_allow_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> HttpOptions {
        self.allow_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Who may call, and what each caller gets ([`HttpOptions::auth`]): every request to
    /// `/mcp` is then authenticated and authorised first.
    pub fn with_auth(mut self, auth: super::auth::AuthConfig) -> HttpOptions {
        self.auth = Some(auth);
        self
    }

    /// Serve without authentication on a non-loopback address
    /// ([`HttpOptions::insecure_no_auth`]).
    pub fn with_insecure_no_auth(mut self, insecure_no_auth: bool) -> HttpOptions {
        self.insecure_no_auth = insecure_no_auth;
        self
    }

    /// Sessions, request rate, body size and shutdown grace ([`HttpOptions::limits`]).
    pub fn with_limits(mut self, limits: HttpLimits) -> HttpOptions {
        self.limits = limits;
        self
    }

    /// A store shared with other instances ([`HttpOptions::store`]): the per-caller rate and
    /// MCP sessions are then fleet-wide.
    pub fn with_store(mut self, store: crate::store::FleetStore) -> HttpOptions {
        self.store = Some(store);
        self
    }

    /// Hand the allocator's free pages back to the system after sessions close
    /// ([`HttpOptions::release_memory`]); only the process's owner should turn this on.
    pub fn with_release_memory(mut self, release_memory: bool) -> HttpOptions {
        self.release_memory = release_memory;
        self
    }
}

/// A bound, not yet running, HTTP transport.
pub struct HttpServer {
    listener: TcpListener,
    router: axum::Router,
    local: SocketAddr,
    /// Where the protected-resource metadata is, with authentication on.
    metadata_url: Option<String>,
    gate: Arc<Gate>,
    /// Ends every MCP session and stream (rmcp's), once calls in flight are done.
    sessions_end: CancellationToken,
    grace: std::time::Duration,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// The address actually bound (the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The MCP endpoint's URL.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.local)
    }

    /// The protected-resource metadata URL (RFC 9728) clients are pointed at, with
    /// authentication on.
    pub fn metadata_url(&self) -> Option<&str> {
        self.metadata_url.as_deref()
    }

    /// Serves until Ctrl-C or SIGTERM.
    pub async fn run(self) -> Result<(), ServeError> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `shutdown` completes, then stops gracefully: stops accepting connections,
    /// refuses new requests (503), lets the calls in flight finish within the shutdown grace,
    /// ends the remaining MCP sessions and streams, and returns.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let stop = CancellationToken::new();
        let app = self
            .router
            .into_make_service_with_connect_info::<SocketAddr>();
        let serving = axum::serve(self.listener, app)
            .with_graceful_shutdown(stop.clone().cancelled_owned())
            .into_future();
        let mut serving = std::pin::pin!(serving);
        tokio::select! {
            result = &mut serving => return result.map_err(|e| ServeError::Transport(e.to_string())),
            () = shutdown => {}
        }
        tracing::info!("stopping: finishing the calls in flight");
        self.gate.drain();
        stop.cancel();
        let (gate, grace, sessions_end) = (self.gate, self.grace, self.sessions_end);
        let drain = async move {
            if !gate.idle(grace).await {
                tracing::warn!(
                    ?grace,
                    "calls still in flight at the end of the shutdown grace"
                );
            }
            sessions_end.cancel();
            // Connections close as their last answers are written; a peer that does not read
            // gets a second at most.
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        };
        tokio::select! {
            result = serving => result.map_err(|e| ServeError::Transport(e.to_string())),
            () = drain => Ok(()),
        }
    }
}

/// Checks `addr`, binds it, and mounts the MCP service with the allow-lists.
pub(crate) async fn bind(
    server: McpServer,
    addr: &str,
    options: HttpOptions,
) -> Result<HttpServer, ServeError> {
    check_address(addr)?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Bind {
            addr: addr.to_owned(),
            reason: explain_bind_error(&e),
        })?;
    let local = listener.local_addr().map_err(|e| ServeError::Bind {
        addr: addr.to_owned(),
        reason: e.to_string(),
    })?;

    let guard = match &options.auth {
        Some(config) => Some(super::auth::guard(&server.shared, config, local).await?),
        None => {
            super::auth::check_exposure(local, options.insecure_no_auth)?;
            None
        }
    };
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
    hosts.extend(
        options
            .auth
            .as_ref()
            .and_then(super::auth::resource_authority),
    );
    if !local.ip().is_unspecified() && !local.ip().is_loopback() {
        hosts.push(local.to_string());
    }
    hosts.extend(options.allow_hosts);
    let mut origins: Vec<String> = Vec::new();
    for scheme in ["http", "https"] {
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            origins.push(format!("{scheme}://{host}:*"));
        }
    }
    origins.extend(options.allow_origins.iter().map(|o| explicit_port(o)));

    let sessions_end = CancellationToken::new();
    let fleet = options.store.clone().map(FleetSessions);
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.limits.max_body_bytes)
        .with_cancellation_token(sessions_end.clone());
    if let Some(fleet) = &fleet {
        // An instance that does not know a session restores it from the store.
        config.session_store = Some(Arc::new(fleet.clone()));
    }
    let sessions = Arc::new(LocalSessionManager::default());
    let gate = Gate::new(
        options.limits,
        sessions.clone(),
        options.store.clone(),
        options.release_memory,
    );
    // One handler, hence one ToolSession, per MCP session.
    let service = StreamableHttpService::new(
        move || Ok(server.connection(fleet.clone())),
        sessions,
        config,
    );
    let health = gate.clone();
    // The limits sit inside authentication: a caller is known (and keyed) before it is counted.
    let mut router = axum::Router::new()
        .route_service(MCP_PATH, service)
        .route_layer(axum::middleware::from_fn_with_state(
            gate.clone(),
            super::limits::admit,
        ));
    let metadata_url = guard.as_ref().map(|g| g.metadata_url.clone());
    if let Some(guard) = guard {
        router = super::auth::protect(router, guard);
    }
    let router = router.route(
        HEALTH_PATH,
        axum::routing::get(move || std::future::ready(health.health())),
    );
    Ok(HttpServer {
        listener,
        router,
        local,
        metadata_url,
        gate,
        sessions_end,
        grace: options.limits.shutdown_grace,
    })
}

/// `HOST:PORT` with a numeric port; the host may be a name, an IPv4 or a bracketed IPv6.
fn check_address(addr: &str) -> Result<(), ServeError> {
    let bad = |reason: &str| ServeError::BadAddress {
        addr: addr.to_owned(),
        reason: reason.to_owned(),
    };
    let (host, port) = addr.rsplit_once(':').ok_or_else(|| bad("no port"))?;
    if host.is_empty() {
        return Err(bad("no host (use 127.0.0.1 for this machine only)"));
    }
    if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
        return Err(bad("an IPv6 host must be in brackets, e.g. [::1]:8080"));
    }
    port.parse::<u16>()
        .map_err(|_| bad("the port is not a number from 0 to 65535"))?;
    Ok(())
}

/// An origin as a browser sends it omits the scheme's default port; spell it out, so
/// `https://app.example` matches exactly `https://app.example:443` and no other port.
fn explicit_port(origin: &str) -> String {
    let origin = origin.trim().trim_end_matches('/');
    let Some((scheme, authority)) = origin.split_once("://") else {
        return origin.to_owned();
    };
    let has_port = match authority.rfind(']') {
        Some(end) => authority[end..].contains(':'),
        None => authority.contains(':'),
    };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    match default {
        Some(port) if !has_port && !authority.contains('/') => format!("{origin}:{port}"),
        _ => origin.to_owned(),
    }
}

fn explain_bind_error(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::AddrInUse => {
            "the address is already in use (is another server running on that port? pick another \
             port, or 0 for any free one)"
                .to_owned()
        }
        ErrorKind::AddrNotAvailable => "the address is not one of this machine's".to_owned(),
        ErrorKind::PermissionDenied => {
            "permission denied (ports below 1024 need privileges)".to_owned()
        }
        _ => e.to_string(),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_origins_name_their_port() {
        assert_eq!(
            explicit_port("https://app.example"),
            "https://app.example:443"
        );
        assert_eq!(
            explicit_port("http://app.example/"),
            "http://app.example:80"
        );
        assert_eq!(
            explicit_port("http://app.example:8080"),
            "http://app.example:8080"
        );
        assert_eq!(explicit_port("http://[::1]"), "http://[::1]:80");
        assert_eq!(explicit_port("http://[::1]:*"), "http://[::1]:*");
        assert_eq!(explicit_port("null"), "null");
    }

    #[test]
    fn addresses_are_checked_before_binding() {
        assert!(check_address("127.0.0.1:8080").is_ok());
        assert!(check_address("localhost:0").is_ok());
        assert!(check_address("[::1]:8080").is_ok());
        for (addr, says) in [
            ("8080", "no port"),
            (":8080", "no host"),
            ("127.0.0.1:http", "not a number"),
            ("127.0.0.1:70000", "not a number"),
            ("::1:8080", "brackets"),
        ] {
            let err = check_address(addr).unwrap_err().to_string();
            assert!(err.contains(says), "{addr}: {err}");
            assert!(err.contains(addr), "{addr}: {err}");
        }
    }
}
