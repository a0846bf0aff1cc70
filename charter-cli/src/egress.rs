//! `charter egress`: the egress map of a session (docs/design.md §5), as the text report a reviewer diffs
//! or as JSON.

use std::io::Write;
use std::process::ExitCode;

use charter_runtime::egress_map;
use charter_runtime::session::{SessionOptions, Source, ToolSession};
use charter_runtime::table::Table;

use crate::args::EgressArgs;
use crate::{Failure, packs};

pub(crate) fn run(
    args: EgressArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let tables = packs::select(tables, &args.packs)?;
    // Every tool resident: the map is about what each tool exposes, not when it is loaded.
    let mut options = SessionOptions::new().with_disclosure(charter_mcp::Disclosure::Eager);
    if let Some(mode) = &args.mode {
        options = options.with_mode(mode.clone());
    }
    let session =
        ToolSession::with_options(tables.iter().map(|t| Source::Table(t)).collect(), options)?;
    let map = egress_map(&session);
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &map.to_json()).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        out.write_all(map.to_text().as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
