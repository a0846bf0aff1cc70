//! `charter mcp`: serve packs over MCP.

use std::io::Write;
use std::process::ExitCode;

use std::sync::Arc;
use std::time::Duration;

use charter_mcp::client::RenameReason;
use charter_mcp::{
    CallLimits, FleetStore, HttpLimits, HttpOptions, McpServer, McpToolkit, ServerOptions,
    StoreKey, ToolkitOptions, Transport, Upstream,
};
use charter_runtime::session::Toolkit;
use charter_runtime::table::Table;

use crate::args::McpArgs;
use crate::{Failure, Process, packs, runtime};

pub(crate) fn run(
    args: McpArgs,
    tables: &[&'static Table],
    err: &mut dyn Write,
    process: Process,
) -> Result<ExitCode, Failure> {
    let tables = packs::select(tables, &args.packs)?;
    let upstreams = upstreams(&args)?;
    // Flushed when dropped, after serving ends.
    let _telemetry = crate::telemetry::start(&args.telemetry)?;
    let rt = runtime()?;
    // The store's connection lives on the runtime.
    let _entered = rt.enter();
    let store = match &args.store {
        Some(url) => Some(open_store(url)?),
        None => None,
    };
    let http: Arc<dyn charter_runtime::table::HttpCaller> = match &store {
        // Built now: the store's tokens go in at construction.
        Some(store) => Arc::new(
            crate::executor::executor_sharing(Some(store.tokens()))
                .map_err(|e| Failure::Credential(e.to_string()))?,
        ),
        None => crate::executor::LazyHttp::shared(),
    };
    let mut toolkits: Vec<Arc<dyn Toolkit>> = Vec::with_capacity(upstreams.len());
    let options = ToolkitOptions {
        connect_timeout: Duration::from_secs(args.upstream_timeout),
        list_timeout: Duration::from_secs(args.upstream_timeout),
        ..ToolkitOptions::default()
    };
    for (label, upstream) in upstreams {
        let toolkit = rt.block_on(McpToolkit::connect(&label, upstream, options.clone()))?;
        for rename in toolkit.renames() {
            if rename.reason != RenameReason::Sanitised {
                writeln!(
                    err,
                    "charter: upstream `{label}`: tool `{}` is served as `{}` ({:?})",
                    rename.remote, rename.local, rename.reason
                )?;
            }
        }
        toolkits.push(Arc::new(toolkit));
    }
    let mut server_options = ServerOptions::new()
        .with_disclosure(args.progressive.unwrap_or(charter_mcp::Disclosure::Eager))
        .with_threshold(args.threshold)
        .with_ranking(args.ranking)
        .with_http(http)
        .with_call_limits(CallLimits {
            timeout: Duration::from_secs(args.limits.call_timeout),
            max_result_bytes: args.limits.max_result,
        });
    if let Some(mode) = &args.mode {
        server_options = server_options.with_mode(mode.clone());
    }
    #[cfg(feature = "code")]
    let server_options = server_options.with_code(code_runner(&args.code_limits));
    let server = McpServer::with_toolkits(&tables, toolkits, server_options)?;
    match &args.http {
        None => {
            writeln!(err, "{}", server.start_line(&Transport::Stdio))?;
            err.flush()?;
            rt.block_on(server.serve_stdio())?;
        }
        Some(addr) => {
            let mut options = HttpOptions::new()
                .with_allow_hosts(&args.allow_hosts)
                .with_allow_origins(&args.allow_origins)
                .with_insecure_no_auth(args.insecure_no_auth)
                .with_limits(http_limits(&args.limits))
                // The process's own `charter mcp --http` only: an embedder's allocator is theirs.
                .with_release_memory(process == Process::Own);
            if let Some(path) = &args.auth {
                options = options.with_auth(
                    charter_mcp::AuthConfig::load(path)
                        .map_err(|e| Failure::Usage(format!("--auth: {e}")))?,
                );
            }
            if let Some(store) = &store {
                options = options.with_store(store.clone());
            }
            let http = rt.block_on(server.bind_http(addr, options))?;
            writeln!(err, "{}", server.start_line(&Transport::Http(http.url())))?;
            if let Some(store) = &store {
                writeln!(err, "{}", store_line(&rt, store))?;
            }
            if let Some(line) = auth_line(&args, &http) {
                writeln!(err, "{line}")?;
            }
            err.flush()?;
            rt.block_on(http.run())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The shared store named by `--store`, sealing with the key in the environment.
fn open_store(url: &str) -> Result<FleetStore, Failure> {
    let key = StoreKey::from_env().map_err(|e| Failure::Usage(format!("--store: {e}")))?;
    FleetStore::connect(url, key).map_err(|e| Failure::Usage(e.to_string()))
}

/// The start line saying what the fleet shares, and whether the store answers now (a server
/// whose store is down still starts, and serves what does not need it).
fn store_line(rt: &tokio::runtime::Runtime, store: &FleetStore) -> String {
    let shared = "OAuth 2 tokens, the per-caller rate limit and MCP sessions";
    match rt.block_on(store.ping()) {
        Ok(()) => format!("charter: sharing {shared} through {}", store.url()),
        Err(error) => format!(
            "charter: WARNING: {error}; {shared} are shared once it answers (meanwhile, calls \
             that need it fail and the rest is served)"
        ),
    }
}

/// The second start line of an HTTP server: who may call it (loud when nobody is checked on an
/// address other machines reach).
fn auth_line(args: &McpArgs, http: &charter_mcp::HttpServer) -> Option<String> {
    if let Some(path) = &args.auth {
        return Some(format!(
            "charter: authentication on (as {} says); protected-resource metadata at {}",
            path.display(),
            http.metadata_url()?
        ));
    }
    (!http.local_addr().ip().is_loopback()).then(|| {
        format!(
            "charter: WARNING: serving {} WITHOUT AUTHENTICATION (--insecure-no-auth): anyone \
             who can reach this port can call every tool with this server's credentials",
            http.local_addr()
        )
    })
}

fn http_limits(args: &crate::args::ServeLimitArgs) -> HttpLimits {
    HttpLimits {
        max_sessions: args.max_sessions,
        requests_per_second: std::num::NonZeroU32::new(args.rate_limit)
            .unwrap_or(std::num::NonZeroU32::MIN),
        max_body_bytes: args.max_body,
        shutdown_grace: Duration::from_secs(args.shutdown_grace),
    }
}

/// The `--upstream` / `--upstream-http` servers with their labels: `label=...` or numbered
/// `up1`, `up2`, ... in the order given (commands first).
fn upstreams(args: &McpArgs) -> Result<Vec<(String, Upstream)>, Failure> {
    let mut out: Vec<(String, Upstream)> = Vec::new();
    let given = args
        .upstreams
        .iter()
        .map(|v| (v, false))
        .chain(args.upstream_urls.iter().map(|v| (v, true)));
    for (n, (value, http)) in given.enumerate() {
        let (label, rest) = match value.split_once('=') {
            Some((label, rest)) if charter_terms::names::valid_label(label) => {
                (label.to_owned(), rest)
            }
            _ => (format!("up{}", n + 1), value.as_str()),
        };
        charter_mcp::client::check_label(&label)
            .map_err(|e| Failure::Usage(format!("upstream #{}: {e}", n + 1)))?;
        if out.iter().any(|(l, _)| *l == label) {
            return Err(Failure::Usage(format!(
                "two upstreams are labelled `{label}`; give each its own `label=`"
            )));
        }
        let upstream = if http {
            if !(rest.starts_with("http://") || rest.starts_with("https://")) {
                return Err(Failure::Usage(format!(
                    "--upstream-http #{}: expected an http:// or https:// URL",
                    n + 1
                )));
            }
            Upstream::http(rest)
        } else {
            Upstream::parse_command_line(rest)
                .map_err(|e| Failure::Usage(format!("--upstream: {e}")))?
        };
        out.push((label, upstream));
    }
    Ok(out)
}

/// The runner of code mode's programs, with the limits the flags give.
#[cfg(feature = "code")]
fn code_runner(args: &crate::args::CodeLimitArgs) -> charter_runtime::code::CodeRunner {
    charter_runtime::code::CodeRunner::new(charter_runtime::code::CodeLimits {
        cpu_time: Duration::from_millis(args.cpu_ms),
        memory_bytes: args.memory,
        max_calls: args.max_calls,
        max_output_bytes: args.max_output,
        max_programs: usize::try_from(args.max_programs).unwrap_or(usize::MAX),
    })
}
