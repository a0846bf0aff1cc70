//! `charter egress`: the egress map of a session (SPEC §5).

use std::io::Write;
use std::process::ExitCode;

use charter_runtime::table::Table;

use crate::Failure;
use crate::args::EgressArgs;

pub(crate) fn run(
    args: EgressArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let _ = (args, tables, out);
    todo!("egress: waiting for the session branch's egress map API")
}
