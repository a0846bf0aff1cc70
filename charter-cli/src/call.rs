//! `charter call`: one tool call, printed exactly as the model would receive it.

use std::io::Write;
use std::process::ExitCode;

use charter_runtime::CallContext;
use charter_runtime::session::{SessionOptions, Source, ToolSession};
use charter_runtime::table::Table;
use serde_json::Value;

use crate::args::CallArgs;
use crate::{EXIT_FAILURE, Failure, runtime};

pub(crate) fn run(
    args: CallArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let arguments: Value = serde_json::from_str(&args.arguments).map_err(|e| {
        Failure::Usage(format!(
            "JSON-ARGS is not valid JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    // Every tool resident: a call names its tool directly, as a host would after loading it.
    let mut options = SessionOptions::new()
        .with_disclosure(charter_mcp::Disclosure::Eager)
        .with_http(crate::executor::LazyHttp::shared());
    if let Some(mode) = &args.mode {
        options = options.with_mode(mode.clone());
    }
    let session =
        ToolSession::with_options(tables.iter().map(|t| Source::Table(t)).collect(), options)?;
    let ctx = CallContext::new();
    let answer = runtime()?.block_on(session.dispatch(&args.tool, arguments, &ctx));
    match answer {
        Ok(output) => {
            writeln!(out, "{}", output.text)?;
            Ok(ExitCode::SUCCESS)
        }
        // What the model would see as an error result (isError: true).
        Err(error) => {
            writeln!(out, "{error}")?;
            Ok(ExitCode::from(EXIT_FAILURE))
        }
    }
}
