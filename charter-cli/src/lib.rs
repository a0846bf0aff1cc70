//! The `charter` command (docs/design.md §10) as a library entry point over any tool tables.
//!
//! The `charter` binary is `charter_cli::main_with(charter::packs::ALL)`, built only with the
//! `shipped-packs` feature: the library itself carries no pack. A crate that compiles
//! its own packs (or `#[charter::tool]` functions) gets the same commands over its own tables
//! with a three-line binary:
//!
//! ```no_run
//! # mod my_tools { pub static ALL: &[&charter_runtime::Table] = &[]; }
//! fn main() -> std::process::ExitCode {
//!     charter_cli::main_with(my_tools::ALL)
//! }
//! ```

mod args;
mod auth;
mod call;
mod check;
mod egress;
mod executor;
mod import;
mod logging;
mod packs;
mod search;
mod serve;
mod telemetry;
mod tools;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use charter_runtime::table::Table;

use args::{Cli, Command};

/// Exit status of a command that ran and failed (a check error, a tool error, a bind failure).
pub const EXIT_FAILURE: u8 = 1;
/// Exit status of a usage error (clap's convention).
pub const EXIT_USAGE: u8 = 2;

/// Runs the command line of this process over `tables`, writing to stdout and stderr: a
/// binary's whole `main`.
///
/// As the process's own entry point it does what only a process's owner may: it installs the
/// log subscriber (stderr, `RUST_LOG`), and `charter mcp --http` hands the allocator's free
/// pages back after sessions close ([`HttpOptions::release_memory`]). [`run`] and [`run_to`],
/// which run inside an embedder's process, do neither.
///
/// [`HttpOptions::release_memory`]: charter_mcp::HttpOptions::release_memory
pub fn main_with(tables: &[&'static Table]) -> ExitCode {
    logging::init();
    // Unlocked handles, as in `run`.
    run_with(
        std::env::args_os(),
        tables,
        &mut io::stdout(),
        &mut io::stderr(),
        Process::Own,
    )
}

/// Runs one command line (`args[0]` is the program name) over `tables`, writing to the
/// process's stdout and stderr. Installs no log subscriber: the host's, if any, gets the lines.
pub fn run<I, T>(args: I, tables: &[&'static Table]) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Unlocked handles: `charter mcp` speaks MCP on stdout from tokio's blocking pool, and logs
    // go to stderr from any thread, so no lock may be held for the whole run.
    run_to(args, tables, &mut io::stdout(), &mut io::stderr())
}

/// Runs one command line over `tables` with explicit output streams (tests capture them).
/// `charter mcp` over stdio still speaks MCP on the process's own stdin/stdout.
pub fn run_to<I, T>(
    args: I,
    tables: &[&'static Table],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with(args, tables, out, err, Process::Shared)
}

/// Whose process a command line runs in: only a process's own command line may act on it
/// ([`main_with`]); `run` and `run_to` serve embedders' and tests' command lines in processes
/// that are not theirs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Process {
    /// The command line of this process ([`main_with`]).
    Own,
    /// A command line run inside a process that has its own.
    Shared,
}

fn run_with<I, T>(
    args: I,
    tables: &[&'static Table],
    out: &mut dyn Write,
    err: &mut dyn Write,
    process: Process,
) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match parse(args, tables) {
        Ok(cli) => cli,
        Err(e) => {
            let text = e.render().to_string();
            let _ = if e.use_stderr() {
                err.write_all(text.as_bytes())
            } else {
                out.write_all(text.as_bytes())
            };
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    let name = subcommand_name(&cli.command);
    let result = match cli.command {
        Command::Mcp(a) => serve::run(a, tables, err, process),
        Command::Tools(a) => tools::run(a, tables, out),
        Command::Search(a) => search::run(a, tables, out),
        Command::Egress(a) => egress::run(a, tables, out),
        Command::Check(a) => check::run(a, out, err),
        Command::Call(a) => call::run(a, tables, out),
        Command::Import(args::ImportCommand::Openapi(a)) => import::run(a, out, err),
        Command::Auth(a) => auth::run(a, tables, out),
    };
    match result {
        Ok(code) => code,
        // `charter tools | head`: the reader left; not an error.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            let text = usage_error(name, &message);
            let _ = err.write_all(text.as_bytes());
            ExitCode::from(EXIT_USAGE)
        }
        Err(failure) => {
            let _ = writeln!(err, "charter: {failure}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// Parses the command line; `--version` names the packs compiled into this binary.
fn parse<I, T>(args: I, tables: &[&'static Table]) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command()
        .version(version_line(tables))
        .try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// `0.1.0 (2 packs: notes, tracker)`: which build this is and which tables it serves.
fn version_line(tables: &[&'static Table]) -> String {
    let labels: Vec<&str> = tables.iter().map(|t| t.pack).collect();
    let noun = if labels.len() == 1 { "pack" } else { "packs" };
    format!(
        "{} ({} {noun}: {})",
        env!("CARGO_PKG_VERSION"),
        labels.len(),
        if labels.is_empty() {
            "none".to_owned()
        } else {
            labels.join(", ")
        }
    )
}

/// Why a command could not do its job.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The command line is wrong in a way clap cannot see (an unknown pack).
    #[error("{0}")]
    Usage(String),
    /// The deployment is wrong (a bad mode label, duplicate names).
    #[error(transparent)]
    Declaration(#[from] charter_runtime::DeclarationError),
    /// Serving failed (bad or busy address).
    #[error(transparent)]
    Serve(#[from] charter_mcp::ServeError),
    /// An upstream MCP server could not be reached.
    #[error(transparent)]
    Upstream(#[from] charter_mcp::BridgeError),
    /// A credential could not be obtained or stored (`charter auth`).
    #[error("{0}")]
    Credential(String),
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A usage error in clap's format, with the subcommand's usage line.
fn usage_error(subcommand: &str, message: &str) -> String {
    use clap::CommandFactory;
    let mut cli = Cli::command();
    cli.build();
    let kind = clap::error::ErrorKind::InvalidValue;
    let error = match cli.find_subcommand_mut(subcommand) {
        Some(sub) => sub.error(kind, message),
        None => cli.error(kind, message),
    };
    error.render().to_string()
}

fn subcommand_name(command: &Command) -> &'static str {
    match command {
        Command::Mcp(_) => "mcp",
        Command::Tools(_) => "tools",
        Command::Search(_) => "search",
        Command::Egress(_) => "egress",
        Command::Check(_) => "check",
        Command::Call(_) => "call",
        Command::Import(_) => "import",
        Command::Auth(_) => "auth",
    }
}

/// A current-thread runtime: the server is I/O-bound and starts faster without a pool.
pub(crate) fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}
