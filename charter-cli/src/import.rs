//! `charter import openapi`: an OpenAPI document into a YAML pack, through
//! `charter_build::openapi` (docs/openapi-import.md).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use charter_build::openapi::{ImportOptions, Stage, import};

use crate::args::ImportOpenapiArgs;
use crate::{EXIT_FAILURE, Failure};

/// Writes the pack (stdout or `--output`) and the report (tools, every skipped operation with its
/// reason, notes) on stderr; progress on stderr for large documents.
pub(crate) fn run(
    args: ImportOpenapiArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let text = match std::fs::read_to_string(&args.spec) {
        Ok(text) => text,
        Err(e) => {
            writeln!(err, "{}: {e}", args.spec.display())?;
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    let mut options = ImportOptions::new(args.pack);
    options.ops = args.ops;
    options.tags = args.tags;
    options.paths = args.paths;
    options.base_url = args.base_url;
    if text.len() > 1 << 20 {
        options.progress = Some(Arc::new(|p| {
            if matches!(p.stage, Stage::Operations) {
                eprint!("\rimporting: {}/{} operations", p.done, p.total);
            } else if matches!(p.stage, Stage::Written) {
                eprintln!();
            }
        }));
    }
    let imported = match import(&text, &options) {
        Ok(imported) => imported,
        Err(e) => {
            writeln!(err, "{}: {e}", args.spec.display())?;
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, &imported.yaml) {
                writeln!(err, "{}: {e}", path.display())?;
                return Ok(ExitCode::from(EXIT_FAILURE));
            }
        }
        None => out.write_all(imported.yaml.as_bytes())?,
    }
    write!(err, "{}", imported.report())?;
    Ok(ExitCode::SUCCESS)
}
