//! `charter search`: one ToolSearch query, answered as the model would read it.

use std::io::Write;
use std::process::ExitCode;

use charter_runtime::CallContext;
use charter_runtime::session::{SessionOptions, Source, TOOL_SEARCH, ToolSession};
use charter_runtime::table::Table;
use serde_json::{Value, json};

use crate::args::SearchArgs;
use crate::{EXIT_FAILURE, Failure, packs, runtime};

pub(crate) fn run(
    args: SearchArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let tables = packs::select(tables, &args.packs)?;
    let mut options = SessionOptions::new()
        .with_disclosure(charter_runtime::session::Disclosure::ListChanged)
        .with_threshold(0)
        .with_ranking(args.ranking);
    if let Some(mode) = &args.mode {
        options = options.with_mode(mode.clone());
    }
    let session =
        ToolSession::with_options(tables.iter().map(|t| Source::Table(t)).collect(), options)?;
    let mut arguments = json!({ "query": args.query });
    if let Some(n) = args.max_results {
        arguments["max_results"] = json!(n);
    }
    let ctx = CallContext::new();
    let answer = runtime()?.block_on(session.dispatch(TOOL_SEARCH, arguments, &ctx));
    match answer {
        Ok(output) => {
            let value = output
                .structured
                .or_else(|| serde_json::from_str::<Value>(&output.text).ok());
            match value {
                Some(value) => {
                    serde_json::to_writer_pretty(&mut *out, &value).map_err(std::io::Error::from)?
                }
                None => out.write_all(output.text.as_bytes())?,
            }
            writeln!(out)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            writeln!(out, "{error}")?;
            Ok(ExitCode::from(EXIT_FAILURE))
        }
    }
}
