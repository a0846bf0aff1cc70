//! Connecting to a server (child process or streamable HTTP), listing its tools, and following
//! its list changes in the background.

use std::process::Stdio;
use std::sync::{Arc, Weak};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, QuitReason};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::mpsc;

use super::*;

/// The rmcp client handler: passes list changes on to the re-list task.
pub(super) struct Watcher {
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
pub(crate) fn http_client(connect_timeout: Duration) -> Result<reqwest::Client, String> {
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
