//! The build-script entry point: find packs, compile the enabled ones, write the output only
//! when it changed, and talk to cargo (`rerun-if-changed`, one `cargo::error` per mistake).

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::generate::{self, GenerateError};
use crate::model::PackModel;

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Mistakes in the packs, every one of them.
    #[error("{} mistake(s) in the packs:\n{}", .0.len(), render(.0))]
    Pack(Vec<Diagnostic>),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What happened.
        source: std::io::Error,
    },
    /// Generation failed.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// No output file was given and `OUT_DIR` is not set.
    #[error("no output file: call `Builder::out_file` or run from a build script (OUT_DIR)")]
    NoOutput,
}

fn render(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// What [`Builder::compile`] did.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The labels compiled, in output order.
    pub packs: Vec<String>,
    /// The labels found but not enabled.
    pub skipped: Vec<String>,
    /// Where the code went.
    pub out_file: PathBuf,
    /// Whether the file was (re)written; `false` when it already held this code.
    pub written: bool,
    /// What works but should change, `file:line:col` each (a GraphQL field the pack's schema
    /// deprecates); printed as `cargo::warning=` lines, never fatal.
    pub warnings: Vec<crate::Diagnostic>,
}

type Filter = Box<dyn Fn(&str) -> bool>;

/// Compiles YAML packs into a Rust file, from a build script.
///
/// ```no_run
/// // build.rs
/// charter_build::Builder::new()
///     .packs_from_dir("packs")
///     .compile()
///     .ok(); // mistakes were reported through `cargo::error=`
/// // src/lib.rs: pub mod packs { include!(concat!(env!("OUT_DIR"), "/packs.rs")); }
/// ```
pub struct Builder {
    runtime: String,
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
    enabled: Option<Filter>,
    out: Option<PathBuf>,
    cargo: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A builder with runtime path `::charter`, no packs, output to `OUT_DIR/packs.rs`.
    pub fn new() -> Self {
        Self {
            runtime: "::charter".to_owned(),
            dirs: Vec::new(),
            files: Vec::new(),
            enabled: None,
            out: None,
            cargo: true,
        }
    }

    /// The path generated code names the runtime by: `::charter` (default, for user crates),
    /// `crate` inside the facade, `::charter_runtime` for a crate using the runtime directly.
    pub fn runtime_path(mut self, path: &str) -> Self {
        self.runtime = path.to_owned();
        self
    }

    /// Compiles every `*.yaml` / `*.yml` directly in `dir` (sorted by file name). A missing
    /// directory holds no packs.
    pub fn packs_from_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dirs.push(dir.as_ref().to_owned());
        self
    }

    /// Compiles one pack file.
    pub fn pack_file(mut self, file: impl AsRef<Path>) -> Self {
        self.files.push(file.as_ref().to_owned());
        self
    }

    /// Compiles only the packs whose label passes `filter` (e.g. a cargo feature per pack).
    pub fn enabled(mut self, filter: impl Fn(&str) -> bool + 'static) -> Self {
        self.enabled = Some(Box::new(filter));
        self
    }

    /// Where to write the code (default `OUT_DIR/packs.rs`).
    pub fn out_file(mut self, path: impl AsRef<Path>) -> Self {
        self.out = Some(path.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo::` directives (default true; turn off outside build scripts).
    pub fn cargo_directives(mut self, on: bool) -> Self {
        self.cargo = on;
        self
    }

    fn files(&self) -> Result<Vec<PathBuf>, BuildError> {
        let mut out = self.files.clone();
        for dir in &self.dirs {
            if self.cargo {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
            let entries = match std::fs::read_dir(dir) {
                Ok(e) => e,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(BuildError::Io {
                        path: dir.clone(),
                        source,
                    });
                }
            };
            let mut found = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|source| BuildError::Io {
                    path: dir.clone(),
                    source,
                })?;
                let path = entry.path();
                let yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
                if yaml && path.is_file() {
                    found.push(path);
                }
            }
            found.sort();
            out.extend(found);
        }
        Ok(out)
    }

    fn fail(&self, err: BuildError) -> BuildError {
        if self.cargo {
            match &err {
                BuildError::Pack(diags) => {
                    for d in diags {
                        // One line per directive: a newline would end the message.
                        println!("cargo::error={}", d.to_string().replace('\n', " "));
                    }
                }
                other => println!("cargo::error={}", other.to_string().replace('\n', " ")),
            }
        }
        err
    }

    /// Compiles the packs and writes the output if it changed. On mistakes, prints one
    /// `cargo::error=file:line:col: message` per mistake (which fails the cargo build) and
    /// returns them all.
    pub fn compile(&self) -> Result<Compiled, BuildError> {
        self.compile_inner().map_err(|e| self.fail(e))
    }

    fn compile_inner(&self) -> Result<Compiled, BuildError> {
        let out_file = match &self.out {
            Some(p) => p.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(BuildError::NoOutput)?)
                .join("packs.rs"),
        };
        let files = self.files()?;
        let mut sources = Vec::with_capacity(files.len());
        for f in &files {
            if self.cargo {
                println!("cargo::rerun-if-changed={}", f.display());
            }
            let text = crate::pack::read_file(f).map_err(|source| BuildError::Io {
                path: f.clone(),
                source,
            })?;
            sources.push((f.display().to_string(), text));
        }
        let filter = |label: &str| self.enabled.as_ref().is_none_or(|f| f(label));
        let (models, skipped) =
            crate::load_filtered(&sources, &filter).map_err(BuildError::Pack)?;
        let code = generate::file(&models, &self.runtime)?;
        let written = write_if_changed(&out_file, &code)?;
        let warnings: Vec<crate::Diagnostic> =
            models.iter().flat_map(|m| m.warnings.clone()).collect();
        if self.cargo {
            for w in &warnings {
                println!("cargo::warning={}", w.to_string().replace('\n', " "));
            }
        }
        Ok(Compiled {
            packs: models.iter().map(|m: &PackModel| m.label.clone()).collect(),
            skipped,
            out_file,
            written,
            warnings,
        })
    }
}

/// Writes `text` to `path` unless it already holds exactly that (keeps mtimes, so nothing
/// downstream rebuilds for nothing).
pub fn write_if_changed(path: &Path, text: &str) -> Result<bool, BuildError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|source| BuildError::Io {
            path: dir.to_owned(),
            source,
        })?;
    }
    std::fs::write(path, text).map_err(|source| BuildError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(true)
}
