//! `charter import openapi`: an OpenAPI document into a YAML pack (or one pack per tag with
//! `--split-by tag`), through `charter_openapi` (docs/openapi-import.md).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use charter_openapi::{ImportOptions, Stage, import, import_split};
use charter_terms::names::MAX_PACK_BYTES;

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
    if let Some(dir) = &args.output_dir {
        return split(&text, &options, &args.spec, dir, err);
    }
    let imported = match import(&text, &options) {
        Ok(imported) => imported,
        Err(e) => {
            writeln!(err, "{}: {e}", args.spec.display())?;
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    if imported.yaml.len() > MAX_PACK_BYTES {
        writeln!(
            err,
            "{}: the pack would be {:.1} MB, over the {} MiB pack limit: pass `--split-by tag --output-dir DIR` (one pack per tag), or keep fewer operations with `--tags`/`--paths`/`--ops`",
            args.spec.display(),
            imported.yaml.len() as f64 / 1e6,
            MAX_PACK_BYTES >> 20
        )?;
        return Ok(ExitCode::from(EXIT_FAILURE));
    }
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

/// `--split-by tag`: one `<label>.yaml` per pack in `dir`, each pack's report after its name.
fn split(
    text: &str,
    options: &ImportOptions,
    spec: &Path,
    dir: &Path,
    err: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let imported = match import_split(text, options, MAX_PACK_BYTES) {
        Ok(imported) => imported,
        Err(e) => {
            writeln!(err, "{}: {e}", spec.display())?;
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        writeln!(err, "{}: {e}", dir.display())?;
        return Ok(ExitCode::from(EXIT_FAILURE));
    }
    for pack in &imported.packs {
        let path = dir.join(format!("{}.yaml", pack.pack));
        if let Err(e) = std::fs::write(&path, &pack.yaml) {
            writeln!(err, "{}: {e}", path.display())?;
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
        writeln!(err, "== {}", path.display())?;
        write!(err, "{}", pack.report())?;
    }
    for s in &imported.skipped {
        writeln!(
            err,
            "skipped {} ({} {}): {}",
            s.operation, s.method, s.path, s.reason
        )?;
    }
    writeln!(
        err,
        "{} packs written to {}",
        imported.packs.len(),
        dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
