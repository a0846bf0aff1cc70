//! The resolved form of a checked pack: names qualified, wire names cased, types resolved,
//! annotations and views decided. [`crate::schema`] and [`crate::generate`] read only this.

use std::collections::{BTreeSet, HashMap};

use crate::Diagnostic;
use crate::check::Checked;
use crate::mode::{self, ViewSpec};
use crate::pack::{
    AuthScheme, BodyEnc, Casing, EnvelopeDecl, FormatName, HttpMethod, In, Json, Kind, Number,
    Pack, PaginationDecl, Sp, Spec, Style, Tool, TypeDecl,
};

mod form;

pub use crate::graphql_syntax::default_annotations;
pub use charter_terms::http::Annotations;

/// How the pack authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthModel {
    /// No credential.
    None,
    /// Bearer token from `env`.
    Bearer {
        /// The variable.
        env: String,
    },
    /// A named header.
    Header {
        /// The header.
        name: String,
        /// Text before the secret.
        prefix: String,
        /// The variable.
        env: String,
    },
    /// HTTP basic.
    Basic {
        /// The variable.
        env: String,
    },
    /// An OAuth 2 access token, renewed at run time.
    OAuth2(Box<crate::oauth_model::OAuth2Model>),
}

/// How the body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyModel {
    /// No body.
    None,
    /// JSON.
    Json,
    /// Form-encoded.
    Form,
}

/// A resolved pack: what [`crate::load_str`] returns and [`crate::compile`] generates code
/// from. Opaque (its parts are the compiler's and change with it); [`crate::summary`] says what
/// it holds.
#[derive(Debug, Clone)]
pub struct PackModel {
    /// The file it came from.
    pub(crate) file: String,
    /// The label.
    pub(crate) label: String,
    /// One line on the pack.
    pub(crate) description: String,
    /// The base URL.
    pub(crate) base_url: String,
    /// `CHARTER_<PACK>_BASE_URL`.
    pub(crate) base_url_env: String,
    /// Auth.
    pub(crate) auth: AuthModel,
    /// Header constants.
    pub(crate) headers: Vec<(String, String)>,
    /// Query constants.
    pub(crate) query: Vec<(String, String)>,
    /// Body constants (name, JSON text).
    pub(crate) body: Vec<(String, String)>,
    /// The envelope.
    pub(crate) envelope: Option<EnvelopeDecl>,
    /// Named types.
    pub(crate) types: Vec<TypeModel>,
    /// Tools, in declaration order.
    pub(crate) tools: Vec<ToolModel>,
    /// What the checks found that works but should change (a GraphQL field its schema
    /// deprecates): printed as `cargo::warning=`, never fatal.
    pub(crate) warnings: Vec<Diagnostic>,
}

impl PackModel {
    /// The pack's label (`pack:`): its module's name and its tools' name prefix.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The file it was loaded from, as given to [`crate::load_str`].
    pub fn file(&self) -> &str {
        &self.file
    }
}

/// A named type.
#[derive(Debug, Clone)]
pub struct TypeModel {
    /// Its name.
    pub name: String,
    /// Its shape.
    pub node: Node,
    /// Whether it reaches itself through references (then schemas use `$defs`/`$ref`).
    pub recursive: bool,
    /// Whether some tool uses it.
    pub used: bool,
}

/// A resolved tool.
#[derive(Debug, Clone)]
pub struct ToolModel {
    /// Where the tool is declared (its name).
    pub loc: crate::Loc,
    /// `<pack>_<tool>`.
    pub name: String,
    /// The tool's own name.
    pub tool: String,
    /// Its description.
    pub description: String,
    /// Annotations after overrides.
    pub annotations: Annotations,
    /// The author mode.
    pub mode: Option<String>,
    /// The parameters.
    pub params: Vec<FieldModel>,
    /// The views, in table order.
    pub views: Vec<ViewSpec>,
    /// Search hints.
    pub hints: Vec<String>,
    /// The method.
    pub method: HttpMethod,
    /// The URL template.
    pub path: String,
    /// The body encoding.
    pub body: BodyModel,
    /// A fixed GraphQL document.
    pub graphql: Option<String>,
    /// Response projection.
    pub keep: Vec<String>,
    /// Pagination.
    pub pagination: Option<PaginationModel>,
    /// Timeout.
    pub timeout_ms: Option<u32>,
    /// "At least one of" groups of parameter names (model names).
    pub require_one_of: Vec<Vec<String>>,
    /// "Exactly one of" groups of parameter names (model names).
    pub require_exactly_one_of: Vec<Vec<String>>,
    /// Redirects to follow.
    pub redirects: u8,
    /// This tool's header constants (sent after the pack's, replacing them).
    pub headers: Vec<(String, String)>,
    /// This tool's query constants.
    pub query: Vec<(String, String)>,
    /// What the tool answers: its result shape, or why it declares none.
    pub result: Result<Ty, charter_terms::results::Gap>,
}

/// Pagination, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaginationModel {
    /// Cursor.
    Cursor {
        /// Dotted path of the cursor in the response.
        next: String,
        /// The argument.
        param: String,
    },
    /// Page number.
    Page {
        /// The argument.
        param: String,
        /// The size argument.
        size_param: Option<String>,
    },
    /// Item offset.
    Offset {
        /// The argument.
        param: String,
        /// The size argument.
        size_param: Option<String>,
    },
}

/// A parameter or object property.
#[derive(Debug, Clone)]
pub struct FieldModel {
    /// The name the model sends.
    pub name: String,
    /// The name on the wire.
    pub wire: String,
    /// The description (the field's own, or its type's).
    pub description: String,
    /// The shape.
    pub ty: Ty,
    /// Required.
    pub required: bool,
    /// Mode labels.
    pub modes: Vec<String>,
    /// The API's default.
    pub default: Option<Json>,
    /// Where a parameter goes (`None` for nested properties).
    pub location: Option<In>,
    /// Query list style.
    pub style: Style,
    /// Path parameters may hold `/`.
    pub allow_slash: bool,
    /// A `map` body parameter whose members go to the body's top level (`spread: true`).
    pub spread: bool,
    /// Filled by the host.
    pub from_context: Option<String>,
}

/// A shape: inline, or a named type.
#[derive(Debug, Clone)]
pub enum Ty {
    /// Declared here.
    Inline(Box<Node>),
    /// `ref: Name`.
    Ref {
        /// Index into [`PackModel::types`].
        index: usize,
        /// Also accepts `null`.
        nullable: bool,
        /// The description at the use site, overriding the type's.
        description: Option<String>,
    },
}

/// An inline shape.
#[derive(Debug, Clone)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Also accepts `null`.
    pub nullable: bool,
    /// Its description.
    pub description: Option<String>,
    /// The API's default.
    pub default: Option<Json>,
}

/// Bounds and enum of a number.
#[derive(Debug, Clone, Default)]
pub struct NumModel {
    /// `minimum`.
    pub minimum: Option<Number>,
    /// `maximum`.
    pub maximum: Option<Number>,
    /// `enum`.
    pub enum_values: Vec<Number>,
}

/// Constraints of a string.
#[derive(Debug, Clone, Default)]
pub struct StrModel {
    /// `enum`.
    pub enum_values: Vec<String>,
    /// `min_length`.
    pub min_length: Option<u32>,
    /// `max_length`.
    pub max_length: Option<u32>,
    /// `pattern`.
    pub pattern: Option<String>,
    /// `format`.
    pub format: Option<FormatName>,
}

/// `require_one_of` / `require_exactly_one_of` groups of an object's fields (model names).
#[derive(Debug, Clone, Default)]
pub struct GroupsModel {
    /// "At least one of".
    pub at_least_one: Vec<Vec<String>>,
    /// "Exactly one of".
    pub exactly_one: Vec<Vec<String>>,
}

/// The kinds of inline shapes.
#[derive(Debug, Clone)]
pub enum NodeKind {
    /// Anything.
    Any,
    /// A boolean.
    Bool,
    /// A whole number.
    Integer(NumModel),
    /// A number.
    Number(NumModel),
    /// A string.
    String(StrModel),
    /// A list.
    Array {
        /// Items.
        items: Ty,
        /// `min_items`.
        min_items: Option<u32>,
        /// `max_items`.
        max_items: Option<u32>,
    },
    /// An object with declared fields, and its groups of them.
    Object(Vec<FieldModel>, GroupsModel),
    /// Free keys.
    Map(Ty),
    /// Exactly one of.
    OneOf(Vec<Ty>),
}

/// `CHARTER_<PACK>_BASE_URL`.
pub fn base_url_env(label: &str) -> String {
    charter_terms::names::pack_env(label, "base_url")
}

struct Resolver<'a> {
    index: HashMap<&'a str, usize>,
    types: &'a [TypeDecl],
    casing: Casing,
}

impl Resolver<'_> {
    fn ty(&self, spec: &Spec, description: Option<String>) -> Ty {
        if let Some(r) = &spec.reference {
            // Checked: the type exists. Fall back to `any` rather than panic on bad input.
            if let Some(&index) = self.index.get(r.value.as_str()) {
                return Ty::Ref {
                    index,
                    nullable: spec.is_nullable(),
                    description,
                };
            }
            return Ty::Inline(Box::new(Node {
                kind: NodeKind::Any,
                nullable: false,
                description,
                default: None,
            }));
        }
        Ty::Inline(Box::new(self.node(spec, description)))
    }

    fn node(&self, spec: &Spec, description: Option<String>) -> Node {
        let kind = if let Some(alts) = &spec.one_of {
            NodeKind::OneOf(
                alts.value
                    .iter()
                    .map(|a| self.ty(a, a.description.as_ref().map(|d| d.value.clone())))
                    .collect(),
            )
        } else {
            match spec.kind.as_ref().map_or(Kind::Any, |k| k.value) {
                Kind::Any => NodeKind::Any,
                Kind::Boolean => NodeKind::Bool,
                k @ (Kind::Integer | Kind::Number) => {
                    let num = NumModel {
                        minimum: spec.minimum.as_ref().map(|n| n.value.clone()),
                        maximum: spec.maximum.as_ref().map(|n| n.value.clone()),
                        enum_values: spec
                            .enum_values
                            .iter()
                            .flat_map(|e| e.value.iter())
                            .filter_map(|v| v.value.as_number().cloned())
                            .collect(),
                    };
                    if k == Kind::Integer {
                        NodeKind::Integer(num)
                    } else {
                        NodeKind::Number(num)
                    }
                }
                Kind::String => NodeKind::String(StrModel {
                    enum_values: spec
                        .enum_values
                        .iter()
                        .flat_map(|e| e.value.iter())
                        .filter_map(|v| v.value.as_str().map(str::to_owned))
                        .collect(),
                    min_length: spec.min_length.as_ref().map(|v| v.value),
                    max_length: spec.max_length.as_ref().map(|v| v.value),
                    pattern: spec.pattern.as_ref().map(|v| v.value.clone()),
                    format: spec.format.as_ref().map(|v| v.value),
                }),
                Kind::Array => NodeKind::Array {
                    items: match &spec.items {
                        Some(items) => {
                            self.ty(items, items.description.as_ref().map(|d| d.value.clone()))
                        }
                        None => Ty::Inline(Box::new(Node {
                            kind: NodeKind::Any,
                            nullable: false,
                            description: None,
                            default: None,
                        })),
                    },
                    min_items: spec.min_items.as_ref().map(|v| v.value),
                    max_items: spec.max_items.as_ref().map(|v| v.value),
                },
                Kind::Object => NodeKind::Object(
                    spec.properties
                        .iter()
                        .flat_map(|p| p.value.iter())
                        .map(|f| self.field(&f.name.value, &f.spec, None))
                        .collect(),
                    GroupsModel {
                        at_least_one: group_names(&spec.require_one_of),
                        exactly_one: group_names(&spec.require_exactly_one_of),
                    },
                ),
                Kind::Map => NodeKind::Map(match &spec.values {
                    Some(v) => self.ty(v, v.description.as_ref().map(|d| d.value.clone())),
                    None => Ty::Inline(Box::new(Node {
                        kind: NodeKind::Any,
                        nullable: false,
                        description: None,
                        default: None,
                    })),
                }),
            }
        };
        Node {
            kind,
            nullable: spec.is_nullable(),
            description,
            default: spec.default.as_ref().map(|d| d.value.clone()),
        }
    }

    fn field(&self, name: &str, spec: &Spec, location: Option<In>) -> FieldModel {
        let description = spec
            .description
            .as_ref()
            .map(|d| d.value.clone())
            .or_else(|| {
                let r = spec.reference.as_ref()?;
                let i = *self.index.get(r.value.as_str())?;
                self.types[i]
                    .spec
                    .description
                    .as_ref()
                    .map(|d| d.value.clone())
            })
            .unwrap_or_default();
        let mut ty = self.ty(spec, Some(description.clone()));
        if non_empty(location, spec.is_required()) {
            require_text(&mut ty);
        }
        FieldModel {
            name: name.to_owned(),
            wire: self
                .casing
                .wire_name(name, spec.wire.as_ref().map(|w| w.value.as_str())),
            ty,
            description,
            required: spec.is_required(),
            modes: spec.mode_labels().map(|m| m.value.clone()).collect(),
            default: spec.default.as_ref().map(|d| d.value.clone()),
            location,
            style: spec.style.as_ref().map_or(Style::Repeat, |s| s.value),
            allow_slash: spec.allow_slash.as_ref().is_some_and(|a| a.value),
            spread: spec.spread.as_ref().is_some_and(|a| a.value),
            from_context: spec.from_context.as_ref().map(|f| f.value.clone()),
        }
    }
}

/// Whether a string parameter must hold at least one character: a path placeholder (an empty
/// segment changes the URL) and a required query parameter (`q=` is a value the APIs refuse or
/// read as "absent"). The schema says so (`minLength: 1`) and validation refuses `""`.
pub fn non_empty(location: Option<In>, required: bool) -> bool {
    matches!(location, Some(In::Path)) || matches!(location, Some(In::Query)) && required
}

/// Raises an inline string's `min_length` to 1 (an enum already excludes `""` unless listed).
fn require_text(ty: &mut Ty) {
    if let Ty::Inline(node) = ty
        && let NodeKind::String(s) = &mut node.kind
        && s.enum_values.is_empty()
        && s.min_length.unwrap_or(0) == 0
    {
        s.min_length = Some(1);
    }
}

/// Resolves a pack that passed every check ([`crate::check::packs`] vouches for it).
pub fn resolve(checked: &Checked<'_>) -> PackModel {
    let pack = checked.pack();
    let recursive = pack.recursive_types();
    let r = Resolver {
        index: pack
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.value.as_str(), i))
            .collect(),
        types: &pack.types,
        casing: pack.casing,
    };
    let type_map: HashMap<&str, &TypeDecl> = pack
        .types
        .iter()
        .map(|t| (t.name.value.as_str(), t))
        .collect();
    let mut types: Vec<TypeModel> = pack
        .types
        .iter()
        .map(|t| TypeModel {
            name: t.name.value.clone(),
            node: r.node(
                &t.spec,
                t.spec.description.as_ref().map(|d| d.value.clone()),
            ),
            recursive: recursive.contains(&t.name.value),
            used: false,
        })
        .collect();
    let label = pack
        .label
        .as_ref()
        .map_or_else(String::new, |l| l.value.clone());
    let mut tools: Vec<ToolModel> = pack
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| tool(&r, &type_map, pack, &label, t, checked.derived_result(i)))
        .collect();
    form::non_empty_lists(&mut tools, &mut types);
    mark_used(&mut types, &tools);
    let auth = auth_model(&label, &pack.auth);
    PackModel {
        file: pack.file.clone(),
        base_url_env: base_url_env(&label),
        label,
        description: pack
            .description
            .as_ref()
            .map_or_else(String::new, |d| d.value.clone()),
        base_url: pack
            .base_url
            .as_ref()
            .filter(|u| !u.value.starts_with('$'))
            .map_or_else(String::new, |u| u.value.clone()),
        auth,
        headers: pairs(&pack.headers),
        query: pairs(&pack.query),
        body: pack
            .body
            .iter()
            .map(|(k, v)| (k.value.clone(), v.to_string()))
            .collect(),
        envelope: pack.envelope.clone(),
        warnings: checked.warnings().to_vec(),
        types,
        tools,
    }
}

fn pairs(list: &[(Sp<String>, Sp<String>)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.value.clone(), v.value.clone()))
        .collect()
}

/// Marks the types the tools reach (directly or through other types).
fn mark_used(types: &mut [TypeModel], tools: &[ToolModel]) {
    let mut stack: Vec<usize> = Vec::new();
    fn refs_of_ty(ty: &Ty, out: &mut Vec<usize>) {
        match ty {
            Ty::Ref { index, .. } => out.push(*index),
            Ty::Inline(node) => refs_of_node(node, out),
        }
    }
    fn refs_of_node(node: &Node, out: &mut Vec<usize>) {
        match &node.kind {
            NodeKind::Array { items, .. } => refs_of_ty(items, out),
            NodeKind::Object(fields, _) => fields.iter().for_each(|f| refs_of_ty(&f.ty, out)),
            NodeKind::Map(v) => refs_of_ty(v, out),
            NodeKind::OneOf(alts) => alts.iter().for_each(|a| refs_of_ty(a, out)),
            _ => {}
        }
    }
    for t in tools {
        for p in &t.params {
            refs_of_ty(&p.ty, &mut stack);
        }
        if let Ok(result) = &t.result {
            refs_of_ty(result, &mut stack);
        }
    }
    while let Some(i) = stack.pop() {
        if !types[i].used {
            types[i].used = true;
            let node = types[i].node.clone();
            refs_of_node(&node, &mut stack);
        }
    }
}

/// How the pack authenticates, resolved.
fn tool(
    r: &Resolver<'_>,
    types: &HashMap<&str, &TypeDecl>,
    pack: &Pack,
    label: &str,
    t: &Tool,
    derived: Option<&Spec>,
) -> ToolModel {
    let method = t.method.as_ref().map_or(HttpMethod::Post, |m| m.value);
    let graphql = t.graphql.as_ref().map(|g| g.value.clone());
    let mut annotations = default_annotations(method, graphql.as_deref());
    let o = &t.annotations;
    for (slot, v) in [
        (&mut annotations.read_only, &o.read_only),
        (&mut annotations.idempotent, &o.idempotent),
        (&mut annotations.destructive, &o.destructive),
        (&mut annotations.open_world, &o.open_world),
    ] {
        if let Some(v) = v {
            *slot = v.value;
        }
    }
    let params: Vec<FieldModel> = t
        .params
        .iter()
        .map(|p| r.field(&p.name.value, &p.spec, t.param_in(p)))
        .collect();
    let has_body_params = params.iter().any(|p| p.location == Some(In::Body));
    let sends_body = graphql.is_some()
        || has_body_params
        || (!pack.body.is_empty()
            && matches!(
                method,
                HttpMethod::Post | HttpMethod::Put | HttpMethod::Patch
            ));
    let body = match (sends_body, t.body_encoding.as_ref().map(|b| b.value)) {
        (false, _) => BodyModel::None,
        (true, Some(BodyEnc::Form)) if graphql.is_none() => BodyModel::Form,
        (true, _) => BodyModel::Json,
    };
    let labels: BTreeSet<String> = t.custom_labels(types);
    let mode = t.mode.as_ref().map(|m| m.value.clone());
    ToolModel {
        loc: t.name.loc,
        name: charter_terms::names::qualified(label, &t.name.value),
        tool: t.name.value.clone(),
        description: t
            .description
            .as_ref()
            .map_or_else(String::new, |d| d.value.clone()),
        annotations,
        views: mode::views(mode.as_deref(), &labels),
        mode,
        params,
        hints: t.hints.iter().map(|h| h.value.clone()).collect(),
        method,
        path: t
            .path
            .as_ref()
            .map_or_else(String::new, |p| p.value.clone()),
        body,
        graphql,
        keep: t.keep.iter().map(|k| k.value.clone()).collect(),
        pagination: t.pagination.as_ref().map(|p| match p {
            PaginationDecl::Cursor { next, param } => PaginationModel::Cursor {
                next: next.value.clone(),
                param: param.value.clone(),
            },
            PaginationDecl::Page { param, size_param } => PaginationModel::Page {
                param: param.value.clone(),
                size_param: size_param.as_ref().map(|s| s.value.clone()),
            },
            PaginationDecl::Offset { param, size_param } => PaginationModel::Offset {
                param: param.value.clone(),
                size_param: size_param.as_ref().map(|s| s.value.clone()),
            },
        }),
        timeout_ms: t.timeout_ms.as_ref().map(|v| v.value),
        require_one_of: group_names(&t.require_one_of),
        require_exactly_one_of: group_names(&t.require_exactly_one_of),
        redirects: t.redirects.as_ref().map_or(0, |v| v.value),
        headers: pairs(&t.headers),
        query: pairs(&t.query),
        // A declared shape or gap wins; a derived one is only made for a tool without either.
        result: match (t.result.as_ref().or(derived), &t.result_gap) {
            (Some(shape), _) => {
                Ok(r.ty(shape, shape.description.as_ref().map(|d| d.value.clone())))
            }
            (None, Some(gap)) => Err(gap.value),
            (None, None) => Err(charter_terms::results::Gap::NotDeclared),
        },
    }
}

/// How the pack authenticates, resolved (an `oauth2` block makes the token renewable).
fn auth_model(label: &str, a: &crate::pack::AuthDecl) -> AuthModel {
    let env = a.env.as_ref().map_or_else(String::new, |e| e.value.clone());
    let text = |v: &Option<crate::pack::Sp<String>>| {
        v.as_ref().map_or_else(String::new, |v| v.value.clone())
    };
    let scheme = a.scheme.as_ref().map_or(AuthScheme::None, |s| s.value);
    match (scheme, &a.oauth2) {
        (AuthScheme::None, _) => AuthModel::None,
        (AuthScheme::Bearer, Some(o)) => AuthModel::OAuth2(Box::new(crate::oauth_model::model(
            label,
            o,
            "Authorization".to_owned(),
            "Bearer ".to_owned(),
            env,
        ))),
        (AuthScheme::Header, Some(o)) => AuthModel::OAuth2(Box::new(crate::oauth_model::model(
            label,
            o,
            text(&a.header),
            text(&a.prefix),
            env,
        ))),
        (AuthScheme::Bearer, None) => AuthModel::Bearer { env },
        (AuthScheme::Basic, _) => AuthModel::Basic { env },
        (AuthScheme::Header, None) => AuthModel::Header {
            name: text(&a.header),
            prefix: text(&a.prefix),
            env,
        },
    }
}

/// The names of `require_one_of`-style groups, without their places.
fn group_names(groups: &[Sp<Vec<Sp<String>>>]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| g.value.iter().map(|n| n.value.clone()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graphql_document_of_queries_only_is_read_only_and_idempotent() {
        let read = Annotations::new()
            .with_read_only(true)
            .with_idempotent(true)
            .with_open_world(true);
        let write = Annotations::new().with_open_world(true);
        let post = |doc| default_annotations(HttpMethod::Post, Some(doc));
        assert_eq!(
            post("query Q($id: String!) { issue(id: $id) { id } }"),
            read
        );
        assert_eq!(post("{ viewer { id } }"), read);
        assert_eq!(
            post("fragment F on User { id } query Q { viewer { ...F } }"),
            read
        );
        assert_eq!(
            post("mutation M { issueArchive(id: \"x\") { success } }"),
            write
        );
        assert_eq!(post("query A { a } mutation B { b }"), write);
        // A malformed document is never taken for a query (the check reports it).
        assert_eq!(post("query { a "), write);
        // Without a document the method decides.
        assert_eq!(default_annotations(HttpMethod::Post, None), write);
        assert_eq!(default_annotations(HttpMethod::Get, None), read);
    }
}
