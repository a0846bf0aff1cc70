//! OpenAPI 3 import: an API document (JSON or YAML) → a YAML pack (docs/design.md §8, §10;
//! `docs/openapi-import.md`). What `charter import openapi` runs.
//!
//! Each selected operation becomes a tool, or is reported with the reason it could not; what
//! a tool had to give up (a cookie parameter, a multipart body, alternatives that cannot be
//! told apart...) is reported per operation. Nothing is dropped silently, and a document that
//! is not valid OpenAPI is an [`ImportError`] saying what is wrong and where (a JSON pointer).
//!
//! ```
//! use charter_openapi::{ImportOptions, import};
//!
//! let doc = r#"{"openapi": "3.0.0", "servers": [{"url": "https://api.example.com"}],
//!   "paths": {"/pets/{id}": {"get": {"operationId": "getPet", "summary": "Get a pet",
//!     "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}]}}}}"#;
//! let out = import(doc, &ImportOptions::new("pets")).unwrap();
//! assert_eq!(out.tools, 1);
//! assert!(out.yaml.contains("get_pet:"));
//! ```
//!
//! The stages are private modules: `doc` (parsing, version and `$ref` checks), `names` (tool
//! names within the length rule), `text` (descriptions), `schema` (schemas → shapes),
//! `operation` (operations → tools), `server` (the base URL), `auth`, `finish` (the post-pass
//! over tools and types), `pack` (selection, the whole pack, split by tag) and `yaml` (the
//! text). Their shared types are in `model`. The mapping rules are in
//! `docs/openapi-import.md`.
//!
//! [`results`] is the other direction: what each tool of an existing pack answers (its result
//! shape), from the document the pack was curated from, as the sidecar file
//! `packs/results/<label>.yaml` the pack compiler reads (private module `results`;
//! docs/openapi-import.md, "Result shapes").
//!
//! **Where it meets the pack compiler.** The importer writes pack text; it never calls the
//! compiler (`charter-build`), so a crate whose build script compiles packs does not build the
//! importer. The rules a written pack must follow and that the importer applies itself are
//! `charter-terms`'s, which the compiler checks with: pack labels and the qualified-name limit
//! (`charter_terms::names`), URL placeholders and header names (`charter_terms::http`), the
//! `CHARTER_<PACK>_BASE_URL` spelling (`charter_terms::names::pack_env`) and the largest pack
//! file (`charter_terms::names::MAX_PACK_BYTES`). That every import passes the compiler's checks
//! is this crate's tests' job (they load each pack with `charter_build::load_str`).

mod auth;
mod cut;
mod doc;
mod finish;
mod model;
mod names;
mod operation;
mod pack;
mod results;
mod schema;
mod server;
mod text;
mod yaml;

use std::fmt;
use std::sync::Arc;

pub use model::Stats;
pub use results::{Gap, GapCode, MissingKeep, Results, ResultsOptions, ShapeSize};

/// How far an import has got, for a progress bar on large documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Which stage is running.
    pub stage: Stage,
    /// Units done in this stage.
    pub done: usize,
    /// Units in this stage.
    pub total: usize,
}

/// A stage of an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The document is parsed and its references checked (`done == total == 1`).
    Parsed,
    /// Operations converted so far, of those selected.
    Operations,
    /// The YAML text is written (`done == total == tools`).
    Written,
}

/// The progress callback.
pub type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// What to import and how.
#[derive(Clone)]
pub struct ImportOptions {
    /// The pack label (`[a-z0-9-]+`): tools are published as `<pack>_<tool>`.
    pub pack: String,
    /// Keep only these operations (operation ids, or the tool names they become).
    pub ops: Vec<String>,
    /// Keep only operations carrying one of these tags (case-insensitive).
    pub tags: Vec<String>,
    /// Keep only operations whose path matches one of these globs (`*` within a segment,
    /// `**` across segments, `?` one character).
    pub paths: Vec<String>,
    /// The base URL, instead of the document's first server.
    pub base_url: Option<String>,
    /// The pack's description, instead of one made from the document's `info`.
    pub description: Option<String>,
    /// The longest tool description, in characters (cut at a sentence end).
    pub max_description: usize,
    /// The longest parameter or property description, in characters.
    pub max_field_description: usize,
    /// Drop an operation-id prefix every operation shares (`gmail.` in
    /// `gmail.users.messages.list`): the pack label already says it.
    pub strip_common_prefix: bool,
    /// Called as the import progresses.
    pub progress: Option<Arc<ProgressFn>>,
}

impl ImportOptions {
    /// Every operation, into a pack labelled `pack`, with the default limits.
    pub fn new(pack: impl Into<String>) -> Self {
        ImportOptions {
            pack: pack.into(),
            ops: Vec::new(),
            tags: Vec::new(),
            paths: Vec::new(),
            base_url: None,
            description: None,
            max_description: 400,
            max_field_description: 250,
            strip_common_prefix: true,
            progress: None,
        }
    }
}

impl fmt::Debug for ImportOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportOptions")
            .field("pack", &self.pack)
            .field("ops", &self.ops)
            .field("tags", &self.tags)
            .field("paths", &self.paths)
            .field("base_url", &self.base_url)
            .field("description", &self.description)
            .field("max_description", &self.max_description)
            .field("max_field_description", &self.max_field_description)
            .field("strip_common_prefix", &self.strip_common_prefix)
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .finish()
    }
}

/// The result of an import.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The pack label (the option's, or `<pack>-<tag>` for a pack of [`import_split`]).
    pub pack: String,
    /// The pack, in the format of `docs/pack-format.md`.
    pub yaml: String,
    /// How many tools the pack declares.
    pub tools: usize,
    /// How many operations were selected (`tools + skipped.len()`).
    pub operations: usize,
    /// Operations that did not become tools, each with the reason.
    pub skipped: Vec<Skipped>,
    /// What imported tools had to give up or change, per operation.
    pub notes: Vec<Note>,
    /// Pack-level remarks (auth, base URL).
    pub pack_notes: Vec<String>,
    /// Counters for adjustments made everywhere (generated descriptions, dropped formats...).
    pub stats: Stats,
}

impl Import {
    /// A plain-text report: counts, skipped operations and notes, one per line.
    pub fn report(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} operations: {} tools, {} skipped; {} notes",
            self.operations,
            self.tools,
            self.skipped.len(),
            self.notes.len()
        );
        for n in &self.pack_notes {
            let _ = writeln!(out, "pack: {n}");
        }
        for s in &self.skipped {
            let _ = writeln!(
                out,
                "skipped {} ({} {}): {}",
                s.operation, s.method, s.path, s.reason
            );
        }
        for n in &self.notes {
            let _ = writeln!(
                out,
                "note {} [{}] {}: {}",
                n.tool, n.kind, n.operation, n.message
            );
        }
        let s = &self.stats;
        let _ = writeln!(
            out,
            "generated descriptions: {}, shortened descriptions: {}, dropped formats: {}, dropped defaults: {}, dropped enums: {}, read-only properties left out: {}, free extra keys not declared: {}",
            s.generated_descriptions,
            s.shortened_descriptions,
            s.dropped_formats,
            s.dropped_defaults,
            s.dropped_enums,
            s.read_only_dropped,
            s.additional_properties_dropped
        );
        out
    }
}

/// An operation that did not become a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The operation id (or `METHOD path` when it has none).
    pub operation: String,
    /// The HTTP method, upper case.
    pub method: String,
    /// The path template.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// Something an imported tool gave up or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The operation id (or `METHOD path`).
    pub operation: String,
    /// The tool name it became.
    pub tool: String,
    /// What kind of change.
    pub kind: NoteKind,
    /// What and where.
    pub message: String,
}

/// The kinds of [`Note`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NoteKind {
    /// The operation id did not fit the 50-character rule and was shortened.
    NameShortened,
    /// Two operations came to the same tool name; this one got a suffix.
    NameCollision,
    /// A parameter or property was renamed (the API's spelling kept in `wire:`).
    Renamed,
    /// A parameter was left out (cookie, credential handled by auth, unusable name).
    ParameterDropped,
    /// The request body was left out.
    BodyDropped,
    /// A schema that cannot be stated exactly was accepted as any value.
    Unrepresentable,
    /// `oneOf`/`anyOf` alternatives that cannot be told apart, accepted as any value.
    OneOfAsAny,
    /// A constraint was relaxed or dropped (pattern, bounds, alternative required sets).
    ConstraintDropped,
    /// The operation declares its own server, which a pack cannot.
    Server,
    /// The tool's parameter schema is very large (every referenced type inlined): curate it.
    LargeSchema,
    /// The tool's schema (or a type it uses) was cut to fit a model: what was left out.
    SchemaCut,
}

impl fmt::Display for NoteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NoteKind::NameShortened => "name-shortened",
            NoteKind::NameCollision => "name-collision",
            NoteKind::Renamed => "renamed",
            NoteKind::ParameterDropped => "parameter-dropped",
            NoteKind::BodyDropped => "body-dropped",
            NoteKind::Unrepresentable => "unrepresentable",
            NoteKind::OneOfAsAny => "one-of-as-any",
            NoteKind::ConstraintDropped => "constraint-dropped",
            NoteKind::Server => "server",
            NoteKind::LargeSchema => "large-schema",
            NoteKind::SchemaCut => "schema-cut",
        })
    }
}

/// Why a document could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// The text is neither JSON nor YAML.
    #[error("not valid {format} at line {line}, column {column}: {message}")]
    Parse {
        /// `JSON` or `YAML`.
        format: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The document breaks the OpenAPI structure.
    #[error("invalid OpenAPI document at `{pointer}`: {message}")]
    Invalid {
        /// JSON pointer of the offending value.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// A `$ref` points at nothing.
    #[error("dangling reference at `{pointer}`: `{target}` does not exist in the document")]
    DanglingRef {
        /// JSON pointer of the `$ref`.
        pointer: String,
        /// The reference as written.
        target: String,
    },
    /// Valid, but something this importer does not read (Swagger 2.0, external references).
    #[error("unsupported at `{pointer}`: {message}")]
    Unsupported {
        /// JSON pointer.
        pointer: String,
        /// What and what to do.
        message: String,
    },
    /// The options are wrong (pack label, base URL, selection).
    #[error("{0}")]
    Options(String),
}

/// Imports an OpenAPI 3 document (JSON or YAML text) as a YAML pack.
pub fn import(doc_text: &str, options: &ImportOptions) -> Result<Import, ImportError> {
    pack::import(doc_text, options)
}

/// The packs of [`import_split`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitImport {
    /// One pack per tag group (or part of one), in document order.
    pub packs: Vec<Import>,
    /// Operations of groups where no operation could be a tool (the packs' own reports hold
    /// the others).
    pub skipped: Vec<Skipped>,
}

/// Imports a document too large for one pack as one pack per tag group: an operation goes
/// with its first tag (untagged ones with `other`), each pack is labelled `<pack>-<tag>`, and
/// a group whose pack would exceed `max_bytes` (use [`charter_terms::names::MAX_PACK_BYTES`]) is cut into
/// parts `<pack>-<tag>-1`, `-2`... The options' selection applies first.
pub fn import_split(
    doc_text: &str,
    options: &ImportOptions,
    max_bytes: usize,
) -> Result<SplitImport, ImportError> {
    pack::import_split(doc_text, options, max_bytes)
}

/// The result shapes of a pack's tools, from the OpenAPI document (3.x, or Swagger 2.0) the
/// pack was curated from: the sidecar file `packs/results/<label>.yaml` the pack compiler
/// reads, with counts.
///
/// Each tool is matched to the operation with its method and path (the pack's base path plus
/// the tool's, less the document's server path; placeholders by position). Its shape is the
/// success response's JSON schema (references followed, `allOf` merged, `oneOf`/`anyOf` as
/// `one_of`, recursion and depth cut as `any`) as the tool's `response.keep` projects it, and
/// as a `link:` cursor wraps it (`{items, next_cursor}`). A tool without one is listed under
/// `gaps` with a [`GapCode`]. The rules: `docs/openapi-import.md`, "Result shapes".
///
/// ```
/// use charter_openapi::{GapCode, ResultsOptions, results};
///
/// let doc = r##"{"openapi": "3.0.0", "servers": [{"url": "https://api.example.com/v1"}],
///   "paths": {
///     "/pets": {"get": {"responses": {"200": {"description": "ok", "content": {
///       "application/json": {"schema": {"type": "array",
///         "items": {"$ref": "#/components/schemas/Pet"}}}}}}}},
///     "/pets/{id}": {"delete": {"responses": {"204": {"description": "gone"}}}}},
///   "components": {"schemas": {"Pet": {"type": "object", "properties": {
///     "id": {"type": "integer"}, "name": {"type": "string"},
///     "tags": {"type": "array", "items": {"type": "string"}}}}}}}"##;
/// let pack = r#"
/// pack: pets
/// description: Pets.
/// base_url: https://api.example.com/v1
/// tools:
///   pets_list:
///     description: List the pets.
///     method: GET
///     path: /pets
///     response: { keep: [id, name] }
///   pet_delete:
///     description: Delete a pet.
///     method: DELETE
///     path: /pets/{pet}
///     params:
///       pet: { in: path, type: integer, required: true, description: The pet. }
/// "#;
/// let options = ResultsOptions::new("pets.json", "make results");
/// let out = results(pack, doc, &options).unwrap();
/// assert_eq!(out.shaped, 1);
/// assert_eq!(out.gaps_of(GapCode::NotJson), 1);
/// assert!(out.yaml.ends_with("
/// lenient: true
/// tools:
///   pets_list:
///     type: array
///     items: { type: object, properties: { id: { type: integer }, name: { type: string } } }
/// gaps:
///   pet_delete: not-json
/// "), "{}", out.yaml);
/// ```
pub fn results(
    pack_yaml: &str,
    document: &str,
    options: &ResultsOptions,
) -> Result<Results, ImportError> {
    results::results(pack_yaml, document, options)
}
