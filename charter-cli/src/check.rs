//! `charter check`: the pack compiler's checks on YAML files, without building.

use std::io::Write;
use std::process::ExitCode;

use crate::args::CheckArgs;
use crate::{EXIT_FAILURE, Failure};

/// Checks every file (all of them, even after a failure) and reports each mistake as
/// `file:line:col: message` on stderr (a warning, which does not fail the check, as
/// `file:line:col: warning: message`); a summary of each good pack goes to stdout.
pub(crate) fn run(
    args: CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let mut failed = 0usize;
    for path in &args.files {
        match charter_build::check_file(path) {
            Ok(summary) => {
                for w in &summary.warnings {
                    let at = format!("{}:{}:{}", w.file, w.loc.line, w.loc.col);
                    writeln!(err, "{at}: warning: {}", w.message)?;
                }
                let tokens: u64 = summary.tools.iter().map(|t| u64::from(t.tokens)).sum();
                writeln!(
                    out,
                    "{}: ok: pack `{}`, {} tools, {tokens} schema tokens in the default views",
                    path.display(),
                    summary.label,
                    summary.tools.len(),
                )?;
            }
            Err(diagnostics) => {
                failed += 1;
                for d in &diagnostics {
                    writeln!(err, "{d}")?;
                }
                writeln!(
                    err,
                    "{}: {} error{}",
                    path.display(),
                    diagnostics.len(),
                    if diagnostics.len() == 1 { "" } else { "s" }
                )?;
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILURE)
    })
}
