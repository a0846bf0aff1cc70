//! The charter pack compiler, as a plain library (like `prost-build`): parse YAML packs,
//! check them, and generate static tool tables that `charter-runtime` reads.
//!
//! A pack is compiled once, in a build script; nothing about it is parsed, derived or sized at
//! run time (docs/design.md §1). The public API is the entry points: [`Builder`] (a build
//! script's), [`load_str`], [`check_file`], [`compile_str`] and what they return
//! ([`PackModel`], [`Diagnostic`], [`BuildError`]). The stages behind them are modules named
//! after what they handle, private to the crate (they change as the compiler does; their tests
//! are unit tests beside them):
//!
//! - `pack`: the YAML file as an AST, every key and value with its `line:col`.
//! - `check`: the static checks; every mistake is a [`Diagnostic`] (`file:line:col: what to
//!   change`), and every mistake in a file is reported before the build fails.
//! - `mode`: the views of a tool (docs/design.md §5) and the checks that keep each callable.
//! - `model`: the checked pack, resolved (names qualified, types resolved, annotations set).
//! - `lower`: the resolved pack as `charter_schema` shapes, the tree schemas and tables come
//!   from.
//! - `size`: the size of every view, counted before any is written (each named type once),
//!   and the limit on it.
//! - `schema`: each view's compact JSON Schema text, its size, paths by cost, spans, written
//!   by `charter_schema`'s emitter (the one `#[charter::tool]` evaluates in `const` context).
//! - `generate`: Rust code (`quote` + `prettyplease`).
//!
//! ```no_run
//! // build.rs of a crate with its own packs; mistakes are printed as `cargo::error=` lines,
//! // which fail the build.
//! let _ = charter_build::Builder::new().packs_from_dir("packs").compile();
//! ```

mod builder;
// The stages: the crate's own, not part of the API a user depends on.
mod check;
mod diagnostic;
mod generate;
mod graphql_syntax;
mod lower;
mod mode;
mod model;
mod oauth_model;
mod pack;
mod schema;
mod size;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use builder::{BuildError, Builder, Compiled, write_if_changed};
pub use diagnostic::{Diagnostic, Loc};
pub use generate::GenerateError;
pub use model::PackModel;

/// Not API: what the workspace's other crates' tests and examples read of the compiler's
/// output beyond the entry points (each view's schema as the compiler writes it: the
/// YAML-versus-Rust identity test, the importer's size tests, the golden snapshots). Hidden
/// and exempt from semver, as serde's `__private` is; the stages themselves stay private.
#[doc(hidden)]
pub mod __private {
    pub use charter_schema::emit::Emitted as ViewSchema;
    pub use charter_terms::views::{ViewKey, ViewSpec};

    use crate::PackModel;

    /// One tool's views, each with its schema as the compiler writes it.
    #[derive(Debug, Clone)]
    pub struct ToolViews {
        /// The published name (`<pack>_<tool>`).
        pub name: String,
        /// The tool's own name, as the pack declares it.
        pub tool: String,
        /// Every view, in the order the tables list them.
        pub views: Vec<(ViewSpec, ViewSchema)>,
    }

    /// Each tool's result schema as the compiler writes it (`Target::Result`), or its gap.
    pub fn result_schemas(model: &PackModel) -> Vec<Result<String, charter_terms::results::Gap>> {
        let lowered = crate::lower::lower(model);
        model
            .tools
            .iter()
            .zip(&lowered.results)
            .map(|(t, shape)| match (shape, &t.result) {
                (Some(shape), _) => Ok(charter_schema::emit::emit_shape(
                    shape,
                    charter_schema::Target::Result,
                )),
                (None, Err(gap)) => Err(*gap),
                (None, Ok(_)) => Err(charter_terms::results::Gap::NotDeclared),
            })
            .collect()
    }

    /// Every tool of the pack, in declaration order.
    pub fn view_schemas(model: &PackModel) -> Vec<ToolViews> {
        let schemas = crate::schema::pack_schemas(model);
        model
            .tools
            .iter()
            .zip(schemas)
            .map(|(t, s)| ToolViews {
                name: t.name.clone(),
                tool: t.tool.clone(),
                views: t.views.iter().cloned().zip(s).collect(),
            })
            .collect()
    }
}

/// What `charter check` prints about a pack that passed every check.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackSummary {
    /// The label.
    pub label: String,
    /// The pack's description.
    pub description: String,
    /// Every tool, in declaration order.
    pub tools: Vec<ToolSummary>,
    /// What works but should change (a GraphQL field the pack's schema deprecates), each at
    /// its `file:line:col`.
    pub warnings: Vec<Diagnostic>,
}

/// One tool of a [`PackSummary`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSummary {
    /// The published name.
    pub name: String,
    /// The HTTP method.
    pub method: &'static str,
    /// The URL template.
    pub path: String,
    /// `schema_tokens` of the default view.
    pub tokens: u32,
    /// How many views the tool has.
    pub views: usize,
}

fn sort(mut diags: Vec<Diagnostic>, order: &[String]) -> Vec<Diagnostic> {
    let rank = |f: &str| order.iter().position(|o| o == f).unwrap_or(usize::MAX);
    diags.sort_by(|a, b| {
        (rank(&a.file), a.loc, &a.message).cmp(&(rank(&b.file), b.loc, &b.message))
    });
    diags.dedup();
    diags
}

/// Parses, checks and resolves the packs (`(file, text)` pairs) whose label passes `enabled`;
/// also checks that no two tools publish the same name. Returns the models and the labels
/// skipped, or every mistake.
pub fn load_filtered(
    sources: &[(String, String)],
    enabled: &dyn Fn(&str) -> bool,
) -> Result<(Vec<PackModel>, Vec<String>), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut packs = Vec::new();
    let mut skipped = Vec::new();
    for (file, text) in sources {
        let (parsed, d) = pack::parse(file, text);
        let Some(parsed) = parsed else {
            diags.extend(d);
            continue;
        };
        if let Some(label) = &parsed.label
            && !enabled(&label.value)
        {
            skipped.push(label.value.clone());
            continue;
        }
        diags.extend(d);
        packs.push(parsed);
    }
    match check::packs(&packs, diags)
        .and_then(|checked| sized(checked.iter().map(model::resolve).collect()))
    {
        Ok(models) => Ok((models, skipped)),
        Err(diags) => {
            let order: Vec<String> = sources.iter().map(|(f, _)| f.clone()).collect();
            Err(sort(diags, &order))
        }
    }
}

/// Parses, checks and resolves one pack given as text (`file` is only used in diagnostics).
pub fn load_str(file: &str, text: &str) -> Result<PackModel, Vec<Diagnostic>> {
    let (parsed, diags) = pack::parse(file, text);
    let checked = match &parsed {
        Some(p) => check::alone(p, diags),
        None => Err(diags),
    };
    checked
        .and_then(|c| {
            let model = model::resolve(&c);
            let diags = size::check(&model);
            if diags.is_empty() {
                Ok(model)
            } else {
                Err(diags)
            }
        })
        .map_err(|diags| sort(diags, &[file.to_owned()]))
}

/// The resolved packs, or a diagnostic for every tool with a view over the size limit.
fn sized(models: Vec<PackModel>) -> Result<Vec<PackModel>, Vec<Diagnostic>> {
    let diags: Vec<Diagnostic> = models.iter().flat_map(size::check).collect();
    if diags.is_empty() {
        Ok(models)
    } else {
        Err(diags)
    }
}

/// Compiles one pack given as text into Rust source naming the runtime by `runtime_path`
/// (`::charter` for user crates, `crate` inside the facade). For tests and tools.
pub fn compile_str(file: &str, text: &str, runtime_path: &str) -> Result<String, BuildError> {
    let model = load_str(file, text).map_err(BuildError::Pack)?;
    compile(&[model], runtime_path)
}

/// Generates the Rust source of packs already loaded ([`load_str`], [`load_filtered`]): what
/// [`Builder::compile`] writes, for a tool that loads and generates as separate steps (and
/// times them apart, as the importer's corpus run does).
pub fn compile(models: &[PackModel], runtime_path: &str) -> Result<String, BuildError> {
    Ok(generate::file(models, runtime_path)?)
}

/// Checks one pack file without building anything (what `charter check FILE` runs).
pub fn check_file(path: impl AsRef<Path>) -> Result<PackSummary, Vec<Diagnostic>> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let text = pack::read_file(path).map_err(|e| {
        vec![Diagnostic::new(
            &file,
            Loc::new(1, 1),
            format!("cannot read the pack: {e}"),
        )]
    })?;
    let model = load_str(&file, &text)?;
    Ok(summary(&model))
}

/// What [`check_file`] reports about a resolved pack.
pub fn summary(model: &PackModel) -> PackSummary {
    let lowered = lower::lower(model);
    PackSummary {
        label: model.label.clone(),
        description: model.description.clone(),
        warnings: model.warnings.clone(),
        tools: model
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| ToolSummary {
                name: t.name.clone(),
                method: t.method.as_str(),
                path: t.path.clone(),
                tokens: t
                    .views
                    .first()
                    .map_or(0, |v| schema::tool_view_schema(&lowered, i, v).tokens),
                views: t.views.len(),
            })
            .collect(),
    }
}
