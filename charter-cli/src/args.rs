//! The command line (docs/design.md §10), declared with clap.

use std::path::PathBuf;

use charter_runtime::session::Ranking;
use clap::{Args, Parser, Subcommand};

/// LLM tools declared, not implemented: serve, list, search and check charter tool packs.
#[derive(Debug, Parser)]
#[command(name = "charter", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve packs to an MCP client (stdio by default, or streamable HTTP with --http).
    Mcp(McpArgs),
    /// List every tool with its annotations and schema size.
    Tools(ToolsArgs),
    /// Run one ToolSearch query and print the JSON answer the model would read.
    Search(SearchArgs),
    /// Print the egress map: per tool, what the model can see and set, and what is withheld.
    Egress(EgressArgs),
    /// Run the pack compiler's checks on YAML pack files, without building.
    Check(CheckArgs),
    /// Run one tool call and print exactly what the model would receive (or the error it would see).
    Call(CallArgs),
    /// Import an API description into a YAML pack.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Log in to OAuth 2 packs (a refresh token stored for `charter mcp`), show or remove logins.
    #[command(subcommand)]
    Auth(AuthCommand),
}

/// `charter auth`
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Log in to a pack in the browser (authorization code with PKCE, loopback redirect) and
    /// store its refresh token in a file only you can read.
    Login(AuthLoginArgs),
    /// Show which credential each pack would use (never a secret).
    Status(PackArgs),
    /// Delete a pack's stored login.
    Logout(AuthPackArg),
}

/// `charter auth login`
#[derive(Debug, Args)]
pub struct AuthLoginArgs {
    /// The pack (`gmail`).
    #[arg(value_name = "PACK")]
    pub pack: String,
    /// Seconds to wait for the browser's redirect.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,
}

/// `charter auth logout`
#[derive(Debug, Args)]
pub struct AuthPackArg {
    /// The pack (`gmail`).
    #[arg(value_name = "PACK")]
    pub pack: String,
}

/// What `charter import` reads.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Write a YAML pack from an OpenAPI 3 document (JSON or YAML): every operation becomes a
    /// tool or is reported with the reason it could not.
    Openapi(ImportOpenapiArgs),
}

/// `charter import openapi`
#[derive(Debug, Args)]
pub struct ImportOpenapiArgs {
    /// The OpenAPI document.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// The pack label (`[a-z0-9-]+`); tools are published as `<pack>_<tool>`.
    #[arg(long)]
    pub pack: String,
    /// Keep only these operations (operation ids or tool names), comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["tags", "paths"])]
    pub ops: Vec<String>,
    /// Keep only operations carrying one of these tags, comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with = "paths")]
    pub tags: Vec<String>,
    /// Keep only operations whose path matches one of these globs, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub paths: Vec<String>,
    /// The base URL, instead of the document's first server.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Write the pack here instead of stdout.
    #[arg(long, short, value_name = "FILE.yaml", conflicts_with = "split_by")]
    pub output: Option<PathBuf>,
    /// Write one pack per group instead of one (`tag`: an operation goes with its first tag),
    /// each under the pack size limit, as `<pack>-<tag>.yaml` in `--output-dir`.
    #[arg(long, value_name = "GROUP", value_parser = ["tag"], requires = "output_dir")]
    pub split_by: Option<String>,
    /// The directory `--split-by` writes its packs to.
    #[arg(long, value_name = "DIR", requires = "split_by")]
    pub output_dir: Option<PathBuf>,
}

/// Which packs a command works on.
#[derive(Debug, Clone, Args)]
pub struct PackArgs {
    /// Packs to use, comma-separated or repeated (default: every pack).
    #[arg(long = "pack", value_name = "PACK", value_delimiter = ',')]
    pub packs: Vec<String>,
}

/// `charter mcp`
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The packs.
    #[command(flatten)]
    pub packs: PackArgs,
    /// Progressive disclosure, in one of three forms. `list-changed` (the default of a bare
    /// --progressive): only ToolSearch is listed at first and tools join the list as the model
    /// loads them (announced with notifications/tools/list_changed), on protocol revisions that
    /// let a list change; clients on 2026-07-28 get search-and-call. `search-and-call`:
    /// ToolSearch and CallTool, a list that never changes, on every revision. `code`: ToolSearch
    /// and RunCode, whose JavaScript program calls the tools (docs/code-mode.md), on every
    /// revision, under the --code-* limits.
    #[arg(
        long,
        value_name = "FORM",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "list-changed",
        value_parser = progressive_form
    )]
    pub progressive: Option<charter_mcp::Disclosure>,
    /// Serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// The session mode (tier, region, A/B arm) every connection is served under.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// With --progressive, tools whose schema is at most N tokens stay listed from the start.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threshold: u32,
    /// With --progressive, how ToolSearch ranks keywords: `hybrid` (keywords fused with the compiled
    /// semantic layer), `relevance` (keywords alone) or `classic` (the docs/design.md §4
    /// substring scoring, for strict compatibility).
    #[arg(long, value_name = "RANKING", default_value = "hybrid")]
    pub ranking: Ranking,
    /// With --http, also accept this Host header value (repeatable); loopback is always accepted.
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub allow_hosts: Vec<String>,
    /// With --http, also accept requests from this browser Origin (repeatable); loopback
    /// origins are always accepted.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub allow_origins: Vec<String>,
    /// With --http, authenticate every request (bearer JWTs from trusted issuers, API keys) and
    /// authorise each caller, as this YAML auth file says (docs/mcp.md, "Serving a team").
    #[arg(long, value_name = "FILE", requires = "http")]
    pub auth: Option<PathBuf>,
    /// With --http on a non-loopback address, serve WITHOUT authentication: anyone who can reach
    /// the port can call every tool. Refused otherwise; prints a warning.
    #[arg(long, requires = "http", conflicts_with = "auth")]
    pub insecure_no_auth: bool,
    /// With --http, share with the other instances using this Redis (redis://HOST:PORT): OAuth 2
    /// tokens (one instance renews at a time), the per-caller rate limit and MCP sessions, so
    /// any instance serves any request. Every token it keeps is sealed with the key in
    /// CHARTER_STORE_KEY (32 random bytes, base64), the same on every instance
    /// (docs/deployment.md).
    #[arg(long, value_name = "URL", requires = "http")]
    pub store: Option<String>,
    /// Also serve the tools of an MCP server started as a child process, behind the same
    /// ToolSearch: `'CMD ARGS'` or `label='CMD ARGS'` (repeatable; unlabelled ones are up1,
    /// up2, ...; leading `KEY=VALUE` words set its environment). Its tools are `<label>_<tool>`.
    #[arg(long = "upstream", value_name = "[LABEL=]COMMAND")]
    pub upstreams: Vec<String>,
    /// Also serve the tools of an MCP server reached over streamable HTTP: `URL` or `label=URL`
    /// (repeatable; numbered after the --upstream ones).
    #[arg(long = "upstream-http", value_name = "[LABEL=]URL")]
    pub upstream_urls: Vec<String>,
    /// Seconds an upstream may take to start and to list its tools.
    #[arg(long = "upstream-timeout", value_name = "SECS", default_value_t = 30)]
    pub upstream_timeout: u64,
    /// Limits of the server (docs/limits.md).
    #[command(flatten)]
    pub limits: ServeLimitArgs,
    /// Limits of code mode's programs (docs/limits.md).
    #[cfg(feature = "code")]
    #[command(flatten)]
    pub code_limits: CodeLimitArgs,
    /// OpenTelemetry export.
    #[command(flatten)]
    pub telemetry: TelemetryArgs,
}

#[derive(Debug, Args)]
pub struct TelemetryArgs {
    /// Export OpenTelemetry traces and metrics over OTLP/HTTP to this collector (its base URL,
    /// like OTEL_EXPORTER_OTLP_ENDPOINT, which is read when this flag is absent). Without
    /// either, nothing is recorded.
    #[arg(long = "otlp-endpoint", value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// Also record tool arguments and results on the spans (off: they may hold personal data).
    #[arg(long = "otel-record-content")]
    pub otel_record_content: bool,
}

/// `charter mcp` limits: each has a safe default; docs/limits.md says what answers a caller over
/// it.
#[derive(Debug, Args)]
pub struct ServeLimitArgs {
    /// Seconds one tool call may take; over it the model gets an error result.
    #[arg(long = "call-timeout", value_name = "SECS", default_value_t = charter_mcp::server::limits::DEFAULT_CALL_TIMEOUT.as_secs())]
    pub call_timeout: u64,
    /// Bytes of one tool answer handed to the model; a longer answer is cut, with a notice
    /// saying how to narrow the call.
    #[arg(long = "max-result", value_name = "BYTES", default_value_t = charter_mcp::server::limits::DEFAULT_MAX_RESULT_BYTES)]
    pub max_result: usize,
    /// With --http, MCP sessions open at once; one more is answered 503.
    #[arg(long = "max-sessions", value_name = "N", default_value_t = charter_mcp::server::limits::DEFAULT_MAX_SESSIONS, requires = "http")]
    pub max_sessions: usize,
    /// With --http, requests per second from one caller (bursts of twice as many); over it, 429
    /// with Retry-After.
    #[arg(long = "rate-limit", value_name = "N", default_value_t = charter_mcp::server::limits::DEFAULT_REQUESTS_PER_SECOND, value_parser = clap::value_parser!(u32).range(1..), requires = "http")]
    pub rate_limit: u32,
    /// With --http, bytes of one request body; over it, 413.
    #[arg(long = "max-body", value_name = "BYTES", default_value_t = charter_mcp::server::limits::DEFAULT_MAX_BODY_BYTES, requires = "http")]
    pub max_body: usize,
    /// With --http, seconds a stopping server (SIGTERM, Ctrl-C) lets calls in flight finish.
    #[arg(long = "shutdown-grace", value_name = "SECS", default_value_t = charter_mcp::server::limits::DEFAULT_SHUTDOWN_GRACE.as_secs(), requires = "http")]
    pub shutdown_grace: u64,
}

/// `charter mcp --progressive=code`: the limits of one `RunCode` program (docs/limits.md). Over
/// any of them the program stops with an error naming the limit; the server keeps serving.
#[cfg(feature = "code")]
#[derive(Debug, Args)]
pub struct CodeLimitArgs {
    /// With --progressive=code, milliseconds of CPU time one program may spend running
    /// JavaScript (waiting for its tool calls is not counted).
    #[arg(long = "code-cpu-ms", value_name = "MS", default_value_t = charter_runtime::code::DEFAULT_CPU_TIME.as_millis() as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub cpu_ms: u64,
    /// With --progressive=code, bytes of memory one program's interpreter may allocate.
    #[arg(long = "code-memory", value_name = "BYTES", default_value_t = charter_runtime::code::DEFAULT_MEMORY_BYTES)]
    pub memory: usize,
    /// With --progressive=code, tool calls one program may make.
    #[arg(long = "code-max-calls", value_name = "N", default_value_t = charter_runtime::code::DEFAULT_MAX_CALLS)]
    pub max_calls: u32,
    /// With --progressive=code, bytes of a program's output (console lines and result); a
    /// longer result is cut, with a notice.
    #[arg(long = "code-max-output", value_name = "BYTES", default_value_t = charter_runtime::code::DEFAULT_MAX_OUTPUT_BYTES)]
    pub max_output: usize,
    /// With --progressive=code, programs run at once (each on a thread of its own); more wait.
    #[arg(long = "code-max-programs", value_name = "N", default_value_t = charter_runtime::code::DEFAULT_MAX_PROGRAMS as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_programs: u64,
}

/// `charter tools`
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// The packs.
    #[command(flatten)]
    pub packs: PackArgs,
    /// Most expensive schema first.
    #[arg(long)]
    pub by_cost: bool,
    /// Print JSON: name, pack, description, annotations, and per view its key, schema and tokens.
    #[arg(long)]
    pub json: bool,
    /// The schemas (and sizes) as this API's adapter sends them: mcp, openai, openai-strict,
    /// anthropic, anthropic-strict or gemini (docs/dialects.md; in anthropic-strict each view
    /// says whether it goes with `strict: true`).
    #[arg(long, value_name = "NAME", default_value = "mcp")]
    pub dialect: charter_runtime::Dialect,
}

/// `charter search`
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query: `select:a,b`, keywords, or `+term` filters.
    pub query: String,
    /// The packs.
    #[command(flatten)]
    pub packs: PackArgs,
    /// The session mode to search under.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// How many tools a keyword query returns (default 5).
    #[arg(long, value_name = "N")]
    pub max_results: Option<u32>,
    /// How keywords are ranked: `hybrid` (the relevance ranking fused with the compiled semantic
    /// layer), `relevance` (stemmed whole words, field weights, synonyms) or `classic` (the
    /// docs/design.md §4 substring scoring, for strict compatibility).
    #[arg(long, value_name = "RANKING", default_value = "hybrid")]
    pub ranking: Ranking,
}

/// `charter egress`
#[derive(Debug, Args)]
pub struct EgressArgs {
    /// The packs.
    #[command(flatten)]
    pub packs: PackArgs,
    /// The session mode to report on.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// Print JSON instead of the text report.
    #[arg(long)]
    pub json: bool,
}

/// `charter check`
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The YAML pack files.
    #[arg(required = true, value_name = "FILE.yaml")]
    pub files: Vec<PathBuf>,
}

/// `charter call`
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool's qualified name (`github_issues_list`).
    pub tool: String,
    /// The arguments, as a JSON object (default `{}`).
    #[arg(default_value = "{}", value_name = "JSON-ARGS")]
    pub arguments: String,
    /// The session mode to call under.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
}

/// A `--progressive` form: every disclosure form but eager (which is no `--progressive`).
fn progressive_form(s: &str) -> Result<charter_mcp::Disclosure, String> {
    match s.parse()? {
        charter_mcp::Disclosure::Eager => Err(
            "`eager` is what serving without --progressive does; expected list-changed, \
             search-and-call or code"
                .into(),
        ),
        form => Ok(form),
    }
}
