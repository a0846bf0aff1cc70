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

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod allocator;
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

/// Runs the command line of this process over `tables`, writing to stdout and stderr.
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
/// process's stdout and stderr.
pub fn run<I, T>(args: I, tables: &[&'static Table]) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    logging::init();
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

/// Whose process a command line runs in: only a process's own command line may restart it
/// (`charter mcp --http`, `allocator.rs`); `run` and `run_to` serve embedders' and tests'
/// command lines in processes that are not theirs.
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
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let asks_version = asks_version(&args);
    if !asks_version && let Some(cli) = parse_mcp_alone(&args) {
        return Ok(cli);
    }
    let mut cli = Cli::command();
    // Naming the packs reads every table's label, which lies beside that pack's tools: a server
    // of one pack would map pages of all sixteen. Only `--version` needs the names.
    if asks_version {
        cli = cli.version(version_line(tables));
    }
    let matches = cli.try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// `charter mcp ...` parsed by the `mcp` subcommand's arguments alone, or `None` to parse the
/// whole command line. Building every subcommand's arguments was a seventh of the instructions a
/// server runs before it answers `initialize`; a server is started far more often than any
/// other command. The arguments are the same declaration, so what parses here parses to the same
/// value; anything else (an error, `--help`) is left to the whole command line, whose messages
/// and usage lines stay the only ones printed.
fn parse_mcp_alone(args: &[OsString]) -> Option<Cli> {
    use clap::{Args, FromArgMatches};
    if args.get(1).is_none_or(|a| a != "mcp") {
        return None;
    }
    if let Some(packs) = packs_alone(&args[2..]) {
        return Some(Cli {
            command: Command::Mcp(args::McpArgs::serving(packs)),
        });
    }
    let mcp = args::McpArgs::augment_args(clap::Command::new("mcp").no_binary_name(true));
    let matches = mcp.try_get_matches_from(&args[2..]).ok()?;
    let mcp = args::McpArgs::from_arg_matches(&matches).ok()?;
    Some(Cli {
        command: Command::Mcp(mcp),
    })
}

/// The packs of `charter mcp --pack P [--pack P,Q ...]`, the line an MCP client's configuration
/// starts a server with, or `None` for any other line. Building even the `mcp` subcommand's
/// arguments was a quarter of the instructions a server ran before answering `initialize`, and
/// its argument list (about 30 arguments, grown by doubling) about ten pages of heap. Only the
/// plainest spelling is read here (values of non-empty, comma-separated names not starting with
/// `-`); anything else goes to clap, and a unit test holds the two to the same result.
fn packs_alone(args: &[OsString]) -> Option<Vec<String>> {
    let mut packs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let value = match arg.to_str()? {
            "--pack" => args.next()?.to_str()?,
            arg => arg.strip_prefix("--pack=")?,
        };
        if value.starts_with('-') || value.split(',').any(str::is_empty) {
            return None;
        }
        packs.extend(value.split(',').map(str::to_owned));
    }
    Some(packs)
}

/// Whether the command line may ask for `--version` / `-V` (a short-flag cluster holding `V`
/// counts; a false positive only costs reading the labels).
fn asks_version(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .map(|a| a.to_string_lossy())
        .take_while(|a| a != "--")
        .any(|a| {
            a == "--version" || (a.starts_with('-') && !a.starts_with("--") && a.contains('V'))
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What the whole command line parses `charter mcp ...` to, or its error's kind.
    fn whole(args: &[&str]) -> Result<String, clap::error::ErrorKind> {
        use clap::{CommandFactory, FromArgMatches};
        Cli::command()
            .try_get_matches_from(args)
            .and_then(|m| Cli::from_arg_matches(&m))
            .map(|cli| format!("{cli:?}"))
            .map_err(|e| e.kind())
    }

    #[test]
    fn mcp_alone_parses_as_the_whole_command_line_or_leaves_it() {
        let lines: &[&[&str]] = &[
            &["charter", "mcp"],
            &["charter", "mcp", "--pack", "slack"],
            &["charter", "mcp", "--pack=slack,github", "--pack", "notion"],
            &["charter", "mcp", "--pack", "slack", "--pack", "slack"],
            &["charter", "mcp", "--pack", "slack,"],
            &["charter", "mcp", "--pack", ",slack"],
            &["charter", "mcp", "--pack="],
            &["charter", "mcp", "--pack", ""],
            &["charter", "mcp", "--pack", "-x"],
            &["charter", "mcp", "--pack"],
            &["charter", "mcp", "--pack", "slack", "--"],
            &["charter", "mcp", "--pack", "slack", "--http", "127.0.0.1:0"],
            &["charter", "mcp", "--pack", "slack", "--pack"],
            &["charter", "mcp", "--packs", "slack"],
            &["charter", "mcp", "-p", "slack"],
            &[
                "charter", "mcp", "--pack", "slack", "--pack", "github", "--mode", "pro",
            ],
            &["charter", "mcp", "--progressive"],
            &[
                "charter",
                "mcp",
                "--progressive=search-and-call",
                "--threshold",
                "40",
            ],
            &[
                "charter",
                "mcp",
                "--http",
                "127.0.0.1:0",
                "--allow-host",
                "a.example",
            ],
            &[
                "charter",
                "mcp",
                "--upstream",
                "x=echo hi",
                "--upstream-timeout",
                "3",
            ],
            // Errors and help: left to the whole command line.
            &["charter", "mcp", "--allow-host", "a.example"],
            &["charter", "mcp", "--no-such-flag"],
            &["charter", "mcp", "--threshold", "many"],
            &["charter", "mcp", "--help"],
            &["charter", "mcp", "-h"],
            &["charter", "mcp", "extra"],
            &["charter", "tools"],
            &["charter"],
        ];
        for line in lines {
            let args: Vec<OsString> = line.iter().map(OsString::from).collect();
            let alone = parse_mcp_alone(&args).map(|cli| format!("{cli:?}"));
            match (alone, whole(line)) {
                (Some(alone), Ok(whole)) => assert_eq!(alone, whole, "{line:?}"),
                (None, Err(_)) => {}
                (None, Ok(_)) if line.get(1) != Some(&"mcp") => {}
                (alone, whole) => panic!("{line:?}: alone {alone:?}, whole {whole:?}"),
            }
        }
    }

    #[test]
    fn a_server_of_named_packs_is_read_without_clap_and_nothing_else_is() {
        let packs = |line: &[&str]| {
            let args: Vec<OsString> = line.iter().map(OsString::from).collect();
            packs_alone(&args)
        };
        assert_eq!(packs(&[]), Some(vec![]));
        assert_eq!(packs(&["--pack", "slack"]), Some(vec!["slack".to_owned()]));
        assert_eq!(
            packs(&["--pack=a,b", "--pack", "c"]),
            Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
        );
        for other in [
            &["--pack", "a,"][..],
            &["--pack="],
            &["--pack", "-x"],
            &["--pack"],
            &["--pack", "a", "--progressive"],
            &["--help"],
            &["--", "--pack", "a"],
        ] {
            assert_eq!(packs(other), None, "{other:?}");
        }
    }
}
