//! The importer's shared types: the shapes schemas become, the tools operations become, and
//! what the YAML writer needs. Every stage uses them; none of them does any work.

use serde_json::{Map, Number, Value};

use super::NoteKind;

/// The shape of a field, as the pack format states it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    Any,
    String,
    Integer,
    Number,
    Boolean,
    Object(Vec<Prop>),
    Array(Box<Shape>),
    Map(Option<Box<Shape>>),
    Ref(String),
    OneOf(Vec<Shape>),
}

/// A field's shape and constraints.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shape {
    pub kind: Kind,
    pub description: Option<String>,
    pub nullable: bool,
    pub enum_values: Vec<Value>,
    pub default: Option<Value>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub format: Option<&'static str>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
}

impl Shape {
    pub(crate) fn new(kind: Kind) -> Self {
        Shape {
            kind,
            description: None,
            nullable: false,
            enum_values: Vec::new(),
            default: None,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            pattern: None,
            format: None,
            min_items: None,
            max_items: None,
        }
    }

    pub(crate) fn any() -> Self {
        Shape::new(Kind::Any)
    }

    pub(crate) fn is_scalar(&self) -> bool {
        matches!(
            self.kind,
            Kind::String | Kind::Integer | Kind::Number | Kind::Boolean
        )
    }
}

/// An object property.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Prop {
    pub name: String,
    pub wire: Option<String>,
    pub required: bool,
    pub shape: Shape,
}

/// Something the importer could not represent exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Issue {
    pub kind: NoteKind,
    pub message: String,
}

/// A named type of the pack.
#[derive(Clone, Debug)]
pub(crate) struct TypeDef {
    pub name: String,
    /// `None` while the schema is still being converted (it refers to itself).
    pub shape: Option<Shape>,
    pub issues: Vec<Issue>,
}

/// Counters for what is adjusted everywhere and not worth a note each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Properties and parameters given a description generated from their name.
    pub generated_descriptions: usize,
    /// Descriptions cut to the length limit.
    pub shortened_descriptions: usize,
    /// `format`s other than the five the pack format validates (`int64`, `binary`...).
    pub dropped_formats: usize,
    /// Defaults that did not fit the type, the enum or the bounds (documentation only).
    pub dropped_defaults: usize,
    /// `readOnly` properties left out of request shapes.
    pub read_only_dropped: usize,
    /// Objects declaring both properties and free extra keys: the extra keys are not declared.
    pub additional_properties_dropped: usize,
    /// Enums on types that cannot carry one (booleans, objects) or with no value of the type.
    pub dropped_enums: usize,
}

impl Stats {
    /// What was counted since `before` (the packs of a split share one converter).
    pub(crate) fn since(&self, before: &Stats) -> Stats {
        Stats {
            generated_descriptions: self.generated_descriptions - before.generated_descriptions,
            shortened_descriptions: self.shortened_descriptions - before.shortened_descriptions,
            dropped_formats: self.dropped_formats - before.dropped_formats,
            dropped_defaults: self.dropped_defaults - before.dropped_defaults,
            read_only_dropped: self.read_only_dropped - before.read_only_dropped,
            additional_properties_dropped: self.additional_properties_dropped
                - before.additional_properties_dropped,
            dropped_enums: self.dropped_enums - before.dropped_enums,
        }
    }
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum In {
    Path,
    Query,
    Header,
    Body,
}

impl In {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            In::Path => "path",
            In::Query => "query",
            In::Header => "header",
            In::Body => "body",
        }
    }
}

/// A tool parameter.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub name: String,
    pub wire: Option<String>,
    pub location: In,
    pub required: bool,
    pub style: Option<&'static str>,
    pub allow_slash: bool,
    pub shape: Shape,
    /// Declared on the path item (every method of the path shares it).
    pub shared: bool,
}

/// Declared pagination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pagination {
    Page {
        param: String,
        size_param: Option<String>,
    },
    /// Items skipped (`offset` with `limit`).
    Offset {
        param: String,
        size_param: Option<String>,
    },
    Cursor {
        next: String,
        param: String,
    },
}

/// A tool, before it is written.
#[derive(Debug, Clone)]
pub(crate) struct Tool {
    pub name: String,
    pub operation: String,
    pub description: String,
    pub method: &'static str,
    pub path: String,
    pub params: Vec<Param>,
    pub form: bool,
    pub pagination: Option<Pagination>,
    pub issues: Vec<Issue>,
    /// Header constants the path fixes (`#X-Amz-Target=...`).
    pub headers: Vec<(String, String)>,
    /// Query constants the path fixes (`?Action=...`).
    pub query: Vec<(String, String)>,
}

/// One operation of the document.
pub(crate) struct OpRef<'d> {
    pub path: &'d str,
    pub method: &'static str,
    pub ptr: String,
    pub op: &'d Map<String, Value>,
    pub item: &'d Map<String, Value>,
    pub item_ptr: String,
    /// The operation id, or `METHOD path`.
    pub id: String,
    pub operation_id: Option<&'d str>,
}

/// What every tool of the pack shares.
pub(crate) struct Cx<'a> {
    pub root: &'a Value,
    /// Whether the pack declares auth (credential parameters are then left to it).
    pub has_auth: bool,
    /// The header or query parameter an API-key scheme uses.
    pub auth_param: Option<String>,
    pub base_url: &'a str,
    pub max_description: usize,
}

/// The pack's authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Auth {
    pub scheme: &'static str,
    pub env: String,
    pub header: Option<String>,
}

/// What the YAML writer needs.
pub(crate) struct PackOut<'a> {
    pub label: &'a str,
    pub description: String,
    pub base_url: String,
    pub auth: Option<Auth>,
    /// The field of an `ok_flag` envelope (Slack's `ok: false` inside a 200).
    pub envelope: Option<String>,
    pub types: Vec<TypeDef>,
    pub tools: Vec<Tool>,
    pub source: String,
    pub operations: usize,
}

/// The names of the types `s` refers to (not through them), in order.
pub(crate) fn refs(s: &Shape, out: &mut Vec<String>) {
    match &s.kind {
        Kind::Ref(name) => out.push(name.clone()),
        Kind::Object(props) => props.iter().for_each(|p| refs(&p.shape, out)),
        Kind::Array(items) => refs(items, out),
        Kind::Map(Some(values)) => refs(values, out),
        Kind::OneOf(alts) => alts.iter().for_each(|a| refs(a, out)),
        _ => {}
    }
}
