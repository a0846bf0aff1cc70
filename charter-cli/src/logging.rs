//! Logs to stderr: stdout is the MCP channel.

use std::io;

use tracing_subscriber::EnvFilter;

/// What is logged when `RUST_LOG` does not say (or does not parse).
const DEFAULT_FILTER: &str = "warn,charter_mcp=info,charter_cli=info";

/// Installs the process's subscriber (and the `log` crate's bridge, as `try_init` does).
pub(crate) fn init() {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    // `try_init` fails only when a subscriber is already installed (a test's): that one stays.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // rmcp logs MCP session ids, which grant their session: a digest is written instead.
        .with_writer(|| charter_mcp::server::MaskSessionIds(io::stderr()))
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .with_target(false)
        .try_init();
}
