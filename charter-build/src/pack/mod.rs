//! The pack AST: what one YAML pack file declares, every key and value with its `line:col`.
//!
//! [`parse`] reads a file into a [`Pack`], reporting structural mistakes (unknown or duplicate
//! keys, values of the wrong kind, unknown names in closed lists) and carrying on, so that the
//! semantic checks in [`crate::check`] still run over everything that could be read.

mod read;
pub(crate) use read::oauth::check as check_oauth2;
pub use read::oauth::{ClientAuthDecl, GrantDecl, OAuth2Decl};
mod queries;
pub(crate) use read::suggest;
pub mod tree;

use crate::diagnostic::{Diagnostic, Loc, Sink};

pub use serde_json::{Number, Value as Json};

/// A value and where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Sp<T> {
    /// The value.
    pub value: T,
    /// Where it is.
    pub loc: Loc,
}

impl<T> Sp<T> {
    /// A located value.
    pub fn new(value: T, loc: Loc) -> Self {
        Self { value, loc }
    }
}

/// One pack file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pack {
    /// The file, as given (used in diagnostics).
    pub file: String,
    /// `pack`: the label.
    pub label: Option<Sp<String>>,
    /// `description`.
    pub description: Option<Sp<String>>,
    /// `base_url`.
    pub base_url: Option<Sp<String>>,
    /// `auth`.
    pub auth: AuthDecl,
    /// `casing`.
    pub casing: Casing,
    /// `headers`: constants sent on every call.
    pub headers: Vec<(Sp<String>, Sp<String>)>,
    /// `query`: constants sent on every call.
    pub query: Vec<(Sp<String>, Sp<String>)>,
    /// `body`: JSON constants merged into every body.
    pub body: Vec<(Sp<String>, Json)>,
    /// `envelope`.
    pub envelope: Option<EnvelopeDecl>,
    /// `graphql_schema`: the API's schema (SDL, optionally gzipped), relative to the pack file.
    pub graphql_schema: Option<Sp<String>>,
    /// `results`: a results file (tools' result shapes and gaps), relative to the pack file.
    pub results: Option<Sp<String>>,
    /// `types`, in declaration order.
    pub types: Vec<TypeDecl>,
    /// `tools`, in declaration order.
    pub tools: Vec<Tool>,
    /// Where the `tools` key is (or the document start).
    pub tools_loc: Loc,
}

/// How the pack authenticates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuthDecl {
    /// `scheme` (default `none`).
    pub scheme: Option<Sp<AuthScheme>>,
    /// `env`: the variable holding the secret.
    pub env: Option<Sp<String>>,
    /// `header`: the header name (scheme `header`).
    pub header: Option<Sp<String>>,
    /// `prefix`: text before the secret (scheme `header`).
    pub prefix: Option<Sp<String>>,
    /// `oauth2`: where access tokens come from, when they are renewed.
    pub oauth2: Option<OAuth2Decl>,
    /// Where the `auth` mapping is.
    pub loc: Option<Loc>,
}

/// `auth.scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthScheme {
    /// No credential.
    None,
    /// `Authorization: Bearer`.
    Bearer,
    /// A named header.
    Header,
    /// HTTP basic.
    Basic,
}

/// `casing`: how a parameter name becomes its wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Casing {
    /// As written.
    #[default]
    Exact,
    /// `perPage` → `per_page`.
    Snake,
    /// `per_page` → `perPage`.
    Camel,
}

/// `envelope`.
#[derive(Debug, Clone, PartialEq)]
pub enum EnvelopeDecl {
    /// GraphQL `errors`.
    GraphQl,
    /// GraphQL `errors`, and a mutation payload's non-empty `userErrors`.
    GraphQlUserErrors,
    /// A boolean flag and an error member.
    OkFlag {
        /// The flag member (default `ok`).
        field: String,
        /// The error member (default `error`).
        error_field: String,
    },
}

/// A named reusable shape.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDecl {
    /// The name `ref:` uses.
    pub name: Sp<String>,
    /// The shape.
    pub spec: Spec,
}

/// HTTP methods (the rule crate's, so annotation defaults are decided in one place).
pub use charter_terms::http::Method as HttpMethod;

/// `body_encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEnc {
    /// JSON.
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
}

/// The annotation overrides of a tool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnnotationOverrides {
    /// `read_only`.
    pub read_only: Option<Sp<bool>>,
    /// `idempotent`.
    pub idempotent: Option<Sp<bool>>,
    /// `destructive`.
    pub destructive: Option<Sp<bool>>,
    /// `open_world`.
    pub open_world: Option<Sp<bool>>,
}

/// `response.pagination`.
#[derive(Debug, Clone, PartialEq)]
pub enum PaginationDecl {
    /// A cursor read from the response.
    Cursor {
        /// Dotted path of the cursor in the response.
        next: Sp<String>,
        /// The argument that takes it.
        param: Sp<String>,
    },
    /// A page number.
    Page {
        /// The page argument.
        param: Sp<String>,
        /// The page size argument.
        size_param: Option<Sp<String>>,
    },
    /// An item offset (items skipped), for APIs that page by position (`offset` + `limit`).
    Offset {
        /// The offset argument.
        param: Sp<String>,
        /// The page size argument.
        size_param: Option<Sp<String>>,
    },
}

impl Tool {
    /// Whether `key` was written (maybe with a wrong value, maybe misspelled).
    pub fn mentions(&self, key: &str) -> bool {
        self.mentioned.iter().any(|k| k == key)
    }
}

/// One tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The tool's own name (published as `<pack>_<name>`).
    pub name: Sp<String>,
    /// `description`.
    pub description: Option<Sp<String>>,
    /// `method` (defaults to POST for a `graphql` tool).
    pub method: Option<Sp<HttpMethod>>,
    /// `path`: the URL template.
    pub path: Option<Sp<String>>,
    /// `params`, in schema order.
    pub params: Vec<Field>,
    /// `annotations`.
    pub annotations: AnnotationOverrides,
    /// `mode`: the author mode.
    pub mode: Option<Sp<String>>,
    /// `body_encoding`.
    pub body_encoding: Option<Sp<BodyEnc>>,
    /// `graphql`: a fixed document.
    pub graphql: Option<Sp<String>>,
    /// Where the `graphql` document's text starts, to place diagnostics inside it.
    pub graphql_origin: Option<DocOrigin>,
    /// `hints`: search hints.
    pub hints: Vec<Sp<String>>,
    /// `graphql_deprecated`: the deprecated parts of the schema the document uses knowingly,
    /// named as the build's warning names them (`Mutation.collectionAddProducts`).
    pub graphql_deprecated: Vec<Sp<String>>,
    /// `timeout_ms`.
    pub timeout_ms: Option<Sp<u32>>,
    /// `require_one_of`: "at least one of" groups of top-level parameter names.
    pub require_one_of: Vec<Sp<Vec<Sp<String>>>>,
    /// `require_exactly_one_of`: "exactly one of" groups of top-level parameter names.
    pub require_exactly_one_of: Vec<Sp<Vec<Sp<String>>>>,
    /// `redirects`.
    pub redirects: Option<Sp<u8>>,
    /// `response.keep`.
    pub keep: Vec<Sp<String>>,
    /// `response.pagination`.
    pub pagination: Option<PaginationDecl>,
    /// `response.shape`, or the tool's entry in the pack's results file: what it answers.
    pub result: Option<Spec>,
    /// The tool's entry under `gaps` in the results file: why it declares no result shape.
    pub result_gap: Option<Sp<charter_terms::results::Gap>>,
    /// The results file `result` or `result_gap` comes from (`None`: the pack file itself), so
    /// a mistake in it is reported there.
    pub result_file: Option<String>,
    /// `headers`: this tool's constants, sent after the pack's (and replacing them).
    pub headers: Vec<(Sp<String>, Sp<String>)>,
    /// `query`: this tool's query constants, likewise.
    pub query: Vec<(Sp<String>, Sp<String>)>,
    /// Every key written here, valid or not, plus the keys misspellings were taken for.
    pub mentioned: Vec<String>,
}

/// A named field: a parameter or an object property.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The name the model sends.
    pub name: Sp<String>,
    /// Its declaration.
    pub spec: Spec,
}

/// The value types a field may declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `string`
    String,
    /// `integer`
    Integer,
    /// `number`
    Number,
    /// `boolean`
    Boolean,
    /// `object`
    Object,
    /// `array`
    Array,
    /// `map`
    Map,
    /// `any`
    Any,
}

impl Kind {
    /// The kind with its article, for messages ("is not an integer").
    pub(crate) fn article(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Integer => "an integer",
            Kind::Number => "a number",
            Kind::Boolean => "a boolean",
            Kind::Object => "an object",
            Kind::Array => "a list",
            Kind::Map => "a mapping",
            Kind::Any => "a value",
        }
    }
}

impl Kind {
    /// The name as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::Map => "map",
            Kind::Any => "any",
        }
    }
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum In {
    /// A URL placeholder.
    Path,
    /// The query string.
    Query,
    /// A header.
    Header,
    /// The body.
    Body,
}

impl In {
    /// The name as written.
    pub fn as_str(self) -> &'static str {
        match self {
            In::Path => "path",
            In::Query => "query",
            In::Header => "header",
            In::Body => "body",
        }
    }
}

/// `style` of a query list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `a=1&a=2`
    Repeat,
    /// `a[]=1&a[]=2`
    Brackets,
    /// `a=1,2`
    Comma,
}

/// String formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatName {
    /// `date-time`
    DateTime,
    /// `date`
    Date,
    /// `date-time-local`
    DateTimeLocal,
    /// `email`
    Email,
    /// `uri`
    Uri,
    /// `uuid`
    Uuid,
    /// `base64url`
    Base64Url,
}

/// The declaration of one value shape (a parameter, a property, list items, map values, a
/// `one_of` alternative or a named type). Which keys are allowed depends on where it sits.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Spec {
    /// Where the declaration starts.
    pub loc: Loc,
    /// `type`.
    pub kind: Option<Sp<Kind>>,
    /// `ref`: a name from `types`.
    pub reference: Option<Sp<String>>,
    /// `one_of`: alternatives.
    pub one_of: Option<Sp<Vec<Spec>>>,
    /// `description`.
    pub description: Option<Sp<String>>,
    /// `required`.
    pub required: Option<Sp<bool>>,
    /// `enum`.
    pub enum_values: Option<Sp<Vec<Sp<Json>>>>,
    /// `default`.
    pub default: Option<Sp<Json>>,
    /// `minimum`.
    pub minimum: Option<Sp<Number>>,
    /// `maximum`.
    pub maximum: Option<Sp<Number>>,
    /// `min_length`.
    pub min_length: Option<Sp<u32>>,
    /// `max_length`.
    pub max_length: Option<Sp<u32>>,
    /// `pattern`.
    pub pattern: Option<Sp<String>>,
    /// `format`.
    pub format: Option<Sp<FormatName>>,
    /// `items`.
    pub items: Option<Box<Spec>>,
    /// `min_items`.
    pub min_items: Option<Sp<u32>>,
    /// `max_items`.
    pub max_items: Option<Sp<u32>>,
    /// `properties`.
    pub properties: Option<Sp<Vec<Field>>>,
    /// `values`.
    pub values: Option<Box<Spec>>,
    /// `require_one_of` on an object with `properties`: "at least one of" groups of them.
    pub require_one_of: Vec<Sp<Vec<Sp<String>>>>,
    /// `require_exactly_one_of` on an object with `properties`: "exactly one of" groups.
    pub require_exactly_one_of: Vec<Sp<Vec<Sp<String>>>>,
    /// `nullable`.
    pub nullable: Option<Sp<bool>>,
    /// `wire`.
    pub wire: Option<Sp<String>>,
    /// `style`.
    pub style: Option<Sp<Style>>,
    /// `allow_slash`.
    pub allow_slash: Option<Sp<bool>>,
    /// `spread`: a `map` body parameter whose members go to the body's top level.
    pub spread: Option<Sp<bool>>,
    /// `modes`.
    pub modes: Option<Sp<Vec<Sp<String>>>>,
    /// `from_context`.
    pub from_context: Option<Sp<String>>,
    /// `in`.
    pub location: Option<Sp<In>>,
    /// Every key written here, valid or not, plus the keys misspellings were taken for: a
    /// missing-key check stays quiet when the key was written but wrong (already reported).
    pub mentioned: Vec<String>,
}

impl Spec {
    /// Whether `key` was written (maybe with a wrong value, maybe misspelled).
    pub fn mentions(&self, key: &str) -> bool {
        self.mentioned.iter().any(|k| k == key)
    }

    /// Whether `required: true` is declared.
    pub fn is_required(&self) -> bool {
        self.required.as_ref().is_some_and(|r| r.value)
    }

    /// Whether `nullable: true` is declared.
    pub fn is_nullable(&self) -> bool {
        self.nullable.as_ref().is_some_and(|r| r.value)
    }

    /// The declared mode labels.
    pub fn mode_labels(&self) -> impl Iterator<Item = &Sp<String>> {
        self.modes.iter().flat_map(|m| m.value.iter())
    }
}

/// The largest pack the compiler reads (the rule is `charter_terms::names`); the YAML parser's
/// own budgets bound depth, nodes and alias expansion inside the limit.
pub use charter_terms::names::MAX_PACK_BYTES;

/// Reads a pack file, refusing one over [`MAX_PACK_BYTES`] without reading past the limit
/// (`ErrorKind::FileTooLarge`).
pub fn read_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_PACK_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_PACK_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            too_large_message(None),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the pack is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn too_large_message(size: Option<usize>) -> String {
    let size = size.map_or_else(|| "more than that".to_owned(), |n| format!("{n} bytes"));
    format!(
        "the pack is too large ({size}); a pack file may hold at most {MAX_PACK_BYTES} bytes (8 MiB): split it into several packs"
    )
}

/// Parses one pack file. Structural mistakes are reported and skipped; `None` only when the
/// file is not YAML or not a mapping at all, or is larger than [`MAX_PACK_BYTES`].
pub fn parse(file: &str, source: &str) -> (Option<Pack>, Vec<Diagnostic>) {
    if source.len() > MAX_PACK_BYTES {
        let d = Diagnostic::new(file, Loc::new(1, 1), too_large_message(Some(source.len())));
        return (None, vec![d]);
    }
    let root = match tree::parse(file, source) {
        Ok(root) => root,
        Err(d) => return (None, vec![d]),
    };
    let mut sink = Sink::new(file);
    let mut pack = read::pack(&mut sink, &root);
    if let Some(p) = &mut pack {
        read::results::read(p, &mut sink);
    }
    for tool in pack.iter_mut().flat_map(|p| p.tools.iter_mut()) {
        tool.graphql_origin = tool
            .graphql
            .as_ref()
            .map(|d| DocOrigin::find(source, d.loc));
    }
    (pack, sink.diags)
}

/// Where an embedded document's text starts in the pack file: the first content line of a
/// block scalar (`|`, `>`) and its indentation, or the first character of an inline one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocOrigin {
    start: Loc,
    block: bool,
}

impl DocOrigin {
    /// The origin of the scalar whose value YAML places at `loc` in `source`.
    pub fn find(source: &str, loc: Loc) -> Self {
        let mut lines = source.lines().skip(loc.line.saturating_sub(1) as usize);
        let first = lines.next().unwrap_or("");
        let col = loc.col.saturating_sub(1) as usize;
        let at = first.chars().nth(col);
        // YAML places a block scalar's value at its first content line.
        if first.chars().take(col).all(char::is_whitespace) {
            return Self {
                start: loc,
                block: true,
            };
        }
        match at {
            Some('|' | '>') => {
                let (offset, indent) = lines
                    .enumerate()
                    .find(|(_, l)| !l.trim().is_empty())
                    .map_or((0, 0), |(i, l)| (i + 1, l.len() - l.trim_start().len()));
                Self {
                    start: Loc::new(loc.line + offset as u32, indent as u32 + 1),
                    block: true,
                }
            }
            Some('"' | '\'') => Self {
                start: Loc::new(loc.line, loc.col + 1),
                block: false,
            },
            _ => Self {
                start: loc,
                block: false,
            },
        }
    }

    /// The pack position of a 1-based `line` and `col` of the document. Inside a folded inline
    /// scalar, any line past the first is placed at the scalar's start. (Only the check against
    /// a GraphQL schema places positions inside a document.)
    #[cfg(feature = "graphql-schema")]
    pub fn at(&self, line: usize, col: usize) -> Loc {
        let (line, col) = (line.max(1) as u32, col.max(1) as u32);
        if self.block {
            Loc::new(self.start.line + line - 1, self.start.col + col - 1)
        } else if line == 1 {
            Loc::new(self.start.line, self.start.col + col - 1)
        } else {
            self.start
        }
    }
}
