//! `charter check`: the pack compiler's checks on YAML files, without building.

use std::io::Write;
use std::process::ExitCode;

use crate::Failure;
use crate::args::CheckArgs;

pub(crate) fn run(
    args: CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let _ = (args, out, err);
    todo!("check: waiting for charter_build::check_file")
}
