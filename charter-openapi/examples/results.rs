//! Writes a pack's result shapes (the sidecar `packs/results/<label>.yaml` the pack compiler
//! reads) from the OpenAPI document it was curated from:
//!
//! ```sh
//! cargo run -p charter-openapi --example results -- packs/github.yaml openapi/github.json.gz > packs/results/github.yaml
//! ```
//!
//! The file goes to stdout, the report (counts, gaps, `keep` paths the document lacks, the
//! largest shapes) to stderr. A `.gz` document is gunzipped. The header names the files by
//! their names under `packs/` and `openapi/`, so the text is the same from any directory.
//! `CHARTER_BLESS=1 cargo test -p charter-openapi --test openapi result_files::` rewrites
//! every sidecar the same way.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use charter_openapi::{ResultsOptions, results};

fn read(path: &Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file).read_to_string(&mut text)?;
    } else {
        std::io::BufReader::new(file).read_to_string(&mut text)?;
    }
    Ok(text)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pack_path, doc_path] = args.as_slice() else {
        eprintln!("usage: results PACK.yaml DOCUMENT.json[.gz] > packs/results/LABEL.yaml");
        return ExitCode::from(2);
    };
    let (pack_path, doc_path) = (Path::new(pack_path), Path::new(doc_path));
    let (pack, doc) = match (read(pack_path), read(doc_path)) {
        (Ok(pack), Ok(doc)) => (pack, doc),
        (Err(e), _) => {
            eprintln!("{}: {e}", pack_path.display());
            return ExitCode::FAILURE;
        }
        (_, Err(e)) => {
            eprintln!("{}: {e}", doc_path.display());
            return ExitCode::FAILURE;
        }
    };
    let label = pack_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (pack_name, doc_name) = (file_name(pack_path), file_name(doc_path));
    let options = ResultsOptions::new(
        format!("openapi/{doc_name}"),
        format!(
            "cargo run -p charter-openapi --example results -- packs/{pack_name} openapi/{doc_name} > packs/results/{label}.yaml"
        ),
    );
    match results(&pack, &doc, &options) {
        Ok(out) => {
            print!("{}", out.yaml);
            eprint!("{}", out.report());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", pack_path.display());
            ExitCode::FAILURE
        }
    }
}
