//! Tree → AST: structural checks (unknown and duplicate keys, kinds of values, closed lists).

mod values;

use super::tree::{Node, Value};
use super::*;
pub(crate) use values::suggest;
use values::*;

pub(super) mod oauth;
pub(super) mod results;

/// Where a [`Spec`] sits, which decides the keys it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Param,
    Property,
    Items,
    Values,
    Alternative,
    Type,
}

impl Role {
    fn what(self) -> &'static str {
        match self {
            Role::Param => "a parameter",
            Role::Property => "an object property",
            Role::Items => "`items`",
            Role::Values => "`values`",
            Role::Alternative => "a `one_of` alternative",
            Role::Type => "a type",
        }
    }
}

const SHAPE_KEYS: &[&str] = &[
    "type",
    "ref",
    "one_of",
    "description",
    "enum",
    "default",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "pattern",
    "format",
    "items",
    "min_items",
    "max_items",
    "properties",
    "values",
    "nullable",
    "require_one_of",
    "require_exactly_one_of",
];
const NAMED_KEYS: &[&str] = &["required", "wire", "modes"];
const PARAM_KEYS: &[&str] = &["in", "style", "allow_slash", "spread", "from_context"];

const PACK_KEYS: &[&str] = &[
    "pack",
    "description",
    "base_url",
    "auth",
    "casing",
    "headers",
    "query",
    "body",
    "envelope",
    "graphql_schema",
    "results",
    "types",
    "tools",
];
const TOOL_KEYS: &[&str] = &[
    "description",
    "method",
    "path",
    "params",
    "annotations",
    "mode",
    "body_encoding",
    "graphql",
    "graphql_deprecated",
    "hints",
    "timeout_ms",
    "require_one_of",
    "require_exactly_one_of",
    "redirects",
    "response",
    "headers",
    "query",
];

/// A mapping whose keys were checked.
pub(super) fn pack(s: &mut Sink, root: &Node) -> Option<Pack> {
    if !matches!(root.value, Value::Map(_)) {
        s.err(
            root.loc,
            format!(
                "a pack must be a YAML mapping with `pack`, `description`, `base_url` and `tools`, found {}",
                root.value.kind()
            ),
        );
        return None;
    }
    let o = obj(s, root, "the pack", PACK_KEYS, &|k| match k {
        "method" | "path" | "params" => Some(format!(
            "`{k}` belongs to a tool, under `tools: {{ <name>: ... }}`"
        )),
        _ => None,
    })?;
    let mut pack = Pack {
        file: s.file().to_owned(),
        label: None,
        description: None,
        base_url: None,
        auth: AuthDecl::default(),
        casing: Casing::Exact,
        headers: Vec::new(),
        query: Vec::new(),
        body: Vec::new(),
        envelope: None,
        graphql_schema: None,
        results: None,
        types: Vec::new(),
        tools: Vec::new(),
        tools_loc: o.loc,
    };
    for (key, hint) in [
        ("pack", "the label, `[a-z0-9-]+`"),
        ("description", "one line on what the pack is for"),
        ("base_url", "the URL every tool path is joined to"),
        ("tools", "the tools by name"),
    ] {
        if o.get(key).is_none() {
            s.err(o.loc, format!("missing `{key}`: add `{key}:` ({hint})"));
        }
    }
    for &(ref key, key_loc, value) in &o.entries {
        match key.as_str() {
            "pack" => pack.label = string(s, value, key),
            "description" => pack.description = string(s, value, key),
            "base_url" => pack.base_url = string(s, value, key),
            "auth" => pack.auth = auth(s, value),
            "casing" => {
                if let Some(c) = choice(
                    s,
                    value,
                    "casing",
                    &[
                        ("exact", Casing::Exact),
                        ("snake", Casing::Snake),
                        ("camel", Casing::Camel),
                    ],
                ) {
                    pack.casing = c.value;
                }
            }
            "headers" => pack.headers = string_pairs(s, value, "headers"),
            "query" => pack.query = string_pairs(s, value, "query"),
            "body" => {
                if let Some(list) = entries(s, value, "`body`") {
                    pack.body = list.into_iter().map(|(k, v)| (k, v.to_json())).collect();
                }
            }
            "envelope" => pack.envelope = envelope(s, value),
            "graphql_schema" => pack.graphql_schema = string(s, value, key),
            "results" => pack.results = string(s, value, key),
            "types" => {
                for (name, node) in entries(s, value, "`types`").unwrap_or_default() {
                    let spec = spec(s, node, Role::Type);
                    pack.types.push(TypeDecl { name, spec });
                }
            }
            "tools" => {
                pack.tools_loc = key_loc;
                for (name, node) in entries(s, value, "`tools`").unwrap_or_default() {
                    if let Some(t) = tool(s, name, node) {
                        pack.tools.push(t);
                    }
                }
            }
            _ => {}
        }
    }
    Some(pack)
}

fn auth(s: &mut Sink, node: &Node) -> AuthDecl {
    let mut a = AuthDecl {
        loc: Some(node.loc),
        ..AuthDecl::default()
    };
    let Some(o) = obj(
        s,
        node,
        "`auth`",
        &["scheme", "env", "header", "prefix", "oauth2"],
        &no_misplaced,
    ) else {
        return a;
    };
    for &(ref key, _, value) in &o.entries {
        match key.as_str() {
            "scheme" => {
                a.scheme = choice(
                    s,
                    value,
                    "auth scheme",
                    &[
                        ("none", AuthScheme::None),
                        ("bearer", AuthScheme::Bearer),
                        ("header", AuthScheme::Header),
                        ("basic", AuthScheme::Basic),
                    ],
                )
            }
            "env" => a.env = string(s, value, "auth.env"),
            "header" => a.header = string(s, value, "auth.header"),
            "prefix" => a.prefix = string(s, value, "auth.prefix"),
            "oauth2" => a.oauth2 = oauth::lower(s, value),
            _ => {}
        }
    }
    a
}

fn envelope(s: &mut Sink, node: &Node) -> Option<EnvelopeDecl> {
    let o = obj(
        s,
        node,
        "`envelope`",
        &["kind", "field", "error_field"],
        &no_misplaced,
    )?;
    let Some(kind_node) = o.get("kind") else {
        s.err(
            o.loc,
            "missing `kind` in `envelope`: add `kind: graphql`, `kind: graphql_user_errors` or `kind: ok_flag`",
        );
        return None;
    };
    #[derive(Clone, Copy)]
    enum K {
        GraphQl,
        GraphQlUserErrors,
        OkFlag,
    }
    let kind = choice(
        s,
        kind_node,
        "envelope kind",
        &[
            ("graphql", K::GraphQl),
            ("graphql_user_errors", K::GraphQlUserErrors),
            ("ok_flag", K::OkFlag),
        ],
    )?;
    let field = o.get("field").and_then(|n| string(s, n, "envelope.field"));
    let error_field = o
        .get("error_field")
        .and_then(|n| string(s, n, "envelope.error_field"));
    match kind.value {
        K::GraphQl | K::GraphQlUserErrors => {
            for (key, v) in [("field", &field), ("error_field", &error_field)] {
                if let Some(v) = v {
                    s.err(
                        v.loc,
                        format!(
                            "`{key}` only applies to `kind: ok_flag`; remove it for a GraphQL envelope"
                        ),
                    );
                }
            }
            Some(match kind.value {
                K::GraphQlUserErrors => EnvelopeDecl::GraphQlUserErrors,
                _ => EnvelopeDecl::GraphQl,
            })
        }
        K::OkFlag => Some(EnvelopeDecl::OkFlag {
            field: field.map_or_else(|| "ok".to_owned(), |f| f.value),
            error_field: error_field.map_or_else(|| "error".to_owned(), |f| f.value),
        }),
    }
}

fn tool(s: &mut Sink, name: Sp<String>, node: &Node) -> Option<Tool> {
    let what = format!("tool `{}`", name.value);
    let o = obj(s, node, &what, TOOL_KEYS, &|k| match k {
        "in" | "type" | "required" => Some(format!(
            "`{k}` belongs to a parameter, under `params: {{ <name>: {{ {k}: ... }} }}`"
        )),
        "keep" | "pagination" => Some(format!("`{k}` goes under `response:`")),
        "parameters" => Some("the key is `params`".to_owned()),
        _ => None,
    })?;
    let mut t = Tool {
        name,
        description: None,
        method: None,
        path: None,
        params: Vec::new(),
        annotations: AnnotationOverrides::default(),
        mode: None,
        body_encoding: None,
        graphql: None,
        graphql_origin: None,
        hints: Vec::new(),
        graphql_deprecated: Vec::new(),
        timeout_ms: None,
        require_one_of: Vec::new(),
        require_exactly_one_of: Vec::new(),
        redirects: None,
        keep: Vec::new(),
        pagination: None,
        result: None,
        result_gap: None,
        result_file: None,
        headers: Vec::new(),
        query: Vec::new(),
        mentioned: o.mentioned.clone(),
    };
    for &(ref key, _, value) in &o.entries {
        match key.as_str() {
            "description" => t.description = string(s, value, key),
            "method" => {
                t.method = choice(
                    s,
                    value,
                    "method",
                    &[
                        ("GET", HttpMethod::Get),
                        ("HEAD", HttpMethod::Head),
                        ("POST", HttpMethod::Post),
                        ("PUT", HttpMethod::Put),
                        ("PATCH", HttpMethod::Patch),
                        ("DELETE", HttpMethod::Delete),
                    ],
                )
            }
            "path" => t.path = string(s, value, key),
            "params" => {
                for (pname, pnode) in entries(s, value, "`params`").unwrap_or_default() {
                    let spec = spec(s, pnode, Role::Param);
                    t.params.push(Field { name: pname, spec });
                }
            }
            "annotations" => t.annotations = annotations(s, value),
            "mode" => t.mode = string(s, value, key),
            "body_encoding" => {
                t.body_encoding = choice(
                    s,
                    value,
                    "body_encoding",
                    &[("json", BodyEnc::Json), ("form", BodyEnc::Form)],
                )
            }
            "graphql" => t.graphql = string(s, value, key),
            "graphql_deprecated" => {
                t.graphql_deprecated = string_list(s, value, key)
                    .map(|l| l.value)
                    .unwrap_or_default()
            }
            "hints" => {
                t.hints = string_list(s, value, key)
                    .map(|l| l.value)
                    .unwrap_or_default()
            }
            "timeout_ms" => t.timeout_ms = whole(s, value, key, u32::MAX),
            "require_one_of" => t.require_one_of = groups(s, value, key),
            "require_exactly_one_of" => t.require_exactly_one_of = groups(s, value, key),
            "redirects" => t.redirects = whole(s, value, key, u8::MAX),
            "response" => response(s, value, &mut t),
            "headers" => t.headers = string_pairs(s, value, "headers"),
            "query" => t.query = string_pairs(s, value, "query"),
            _ => {}
        }
    }
    Some(t)
}

/// `require_one_of` / `require_exactly_one_of: [[a], [b, c]]`: a list of groups, each a list of
/// parameter names.
fn groups(s: &mut Sink, node: &Node, key: &str) -> Vec<Sp<Vec<Sp<String>>>> {
    let Value::Seq(items) = &node.value else {
        s.err(
            node.loc,
            format!(
                "`{key}` must be a list of parameter-name lists (`[[reviewers], [team_reviewers]]`), found {}",
                node.value.kind()
            ),
        );
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| string_list(s, item, key))
        .collect()
}

fn annotations(s: &mut Sink, node: &Node) -> AnnotationOverrides {
    let mut a = AnnotationOverrides::default();
    let allowed = ["read_only", "idempotent", "destructive", "open_world"];
    let Some(o) = obj(s, node, "`annotations`", &allowed, &|k| match k {
        "readOnlyHint" => Some("spell it `read_only`".to_owned()),
        "idempotentHint" => Some("spell it `idempotent`".to_owned()),
        "destructiveHint" => Some("spell it `destructive`".to_owned()),
        "openWorldHint" => Some("spell it `open_world`".to_owned()),
        _ => None,
    }) else {
        return a;
    };
    for &(ref key, _, value) in &o.entries {
        let v = boolean(s, value, key);
        match key.as_str() {
            "read_only" => a.read_only = v,
            "idempotent" => a.idempotent = v,
            "destructive" => a.destructive = v,
            "open_world" => a.open_world = v,
            _ => {}
        }
    }
    a
}

fn response(s: &mut Sink, node: &Node, t: &mut Tool) {
    let Some(o) = obj(
        s,
        node,
        "`response`",
        &["keep", "pagination", "shape"],
        &no_misplaced,
    ) else {
        return;
    };
    if let Some(shape) = o.get("shape") {
        t.result = Some(spec(s, shape, Role::Type));
    }
    if let Some(keep) = o.get("keep") {
        t.keep = string_list(s, keep, "keep")
            .map(|l| l.value)
            .unwrap_or_default();
    }
    if let Some(p) = o.get("pagination") {
        t.pagination = pagination(s, p);
    }
}

fn pagination(s: &mut Sink, node: &Node) -> Option<PaginationDecl> {
    let o = obj(
        s,
        node,
        "`pagination`",
        &["style", "next", "param", "size_param"],
        &no_misplaced,
    )?;
    #[derive(Clone, Copy)]
    enum P {
        Cursor,
        Page,
        Offset,
    }
    let Some(style_node) = o.get("style") else {
        s.err(
            o.loc,
            "missing `style` in `pagination`: add `style: cursor`, `style: page` or `style: offset`",
        );
        return None;
    };
    let style = choice(
        s,
        style_node,
        "pagination style",
        &[
            ("cursor", P::Cursor),
            ("page", P::Page),
            ("offset", P::Offset),
        ],
    )?;
    let next = o.get("next").and_then(|n| string(s, n, "next"));
    let param = o.get("param").and_then(|n| string(s, n, "param"));
    let size_param = o.get("size_param").and_then(|n| string(s, n, "size_param"));
    let Some(param) = param else {
        if o.get("param").is_none() {
            s.err(
                o.loc,
                "missing `param` in `pagination`: name the argument that takes the next page",
            );
        }
        return None;
    };
    match style.value {
        P::Cursor => {
            if let Some(sp) = &size_param {
                s.err(
                    sp.loc,
                    "`size_param` only applies to `style: page` and `style: offset`; remove it",
                );
            }
            let Some(next) = next else {
                if o.get("next").is_none() {
                    s.err(
                        o.loc,
                        "missing `next` in `pagination`: give the dotted path of the next cursor in the response",
                    );
                }
                return None;
            };
            Some(PaginationDecl::Cursor { next, param })
        }
        P::Page | P::Offset => {
            if let Some(n) = &next {
                s.err(n.loc, "`next` only applies to `style: cursor`; remove it");
            }
            Some(match style.value {
                P::Offset => PaginationDecl::Offset { param, size_param },
                _ => PaginationDecl::Page { param, size_param },
            })
        }
    }
}

fn spec(s: &mut Sink, node: &Node, role: Role) -> Spec {
    let mut sp = Spec {
        loc: node.loc,
        ..Spec::default()
    };
    let mut allowed: Vec<&str> = SHAPE_KEYS.to_vec();
    if matches!(role, Role::Param | Role::Property) {
        allowed.extend_from_slice(NAMED_KEYS);
    }
    if role == Role::Param {
        allowed.extend_from_slice(PARAM_KEYS);
    }
    let misplaced = |k: &str| -> Option<String> {
        if PARAM_KEYS.contains(&k) {
            Some(format!(
                "`{k}` only goes on a tool's parameters, not on {}",
                role.what()
            ))
        } else if NAMED_KEYS.contains(&k) {
            Some(format!(
                "`{k}` only goes on parameters and object properties, not on {}",
                role.what()
            ))
        } else if k == "enum_values" || k == "enums" {
            Some("the key is `enum`".to_owned())
        } else {
            None
        }
    };
    let what = role.what();
    let Some(o) = obj(s, node, what, &allowed, &misplaced) else {
        return sp;
    };
    sp.mentioned = o.mentioned.clone();
    for &(ref key, _, value) in &o.entries {
        let k = key.as_str();
        if !shape_key(s, &mut sp, k, value) {
            placement_key(s, &mut sp, k, value);
        }
    }
    sp
}

/// A key that declares the shape (type, reference, bounds, nested shapes); false for others.
fn shape_key(s: &mut Sink, sp: &mut Spec, k: &str, value: &Node) -> bool {
    match k {
        "type" => {
            sp.kind = choice(
                s,
                value,
                "type",
                &[
                    ("string", Kind::String),
                    ("integer", Kind::Integer),
                    ("number", Kind::Number),
                    ("boolean", Kind::Boolean),
                    ("object", Kind::Object),
                    ("array", Kind::Array),
                    ("map", Kind::Map),
                    ("any", Kind::Any),
                ],
            )
        }
        "ref" => sp.reference = string(s, value, k),
        "require_one_of" => sp.require_one_of = groups(s, value, k),
        "require_exactly_one_of" => sp.require_exactly_one_of = groups(s, value, k),
        "one_of" => {
            if let Value::Seq(items) = &value.value {
                let alts = items
                    .iter()
                    .map(|n| spec(s, n, Role::Alternative))
                    .collect();
                sp.one_of = Some(Sp::new(alts, value.loc));
            } else {
                s.err(
                    value.loc,
                    format!(
                        "`one_of` must be a list of shapes, found {}",
                        value.value.kind()
                    ),
                );
            }
        }
        "description" => sp.description = string(s, value, k),
        "required" => sp.required = boolean(s, value, k),
        "enum" => {
            if let Value::Seq(items) = &value.value {
                let vals = items.iter().map(|n| Sp::new(n.to_json(), n.loc)).collect();
                sp.enum_values = Some(Sp::new(vals, value.loc));
            } else {
                s.err(
                    value.loc,
                    format!(
                        "`enum` must be a list of values, found {}",
                        value.value.kind()
                    ),
                );
            }
        }
        "default" => sp.default = Some(Sp::new(value.to_json(), value.loc)),
        "minimum" => sp.minimum = number(s, value, k),
        "maximum" => sp.maximum = number(s, value, k),
        "min_length" => sp.min_length = whole(s, value, k, u32::MAX),
        "max_length" => sp.max_length = whole(s, value, k, u32::MAX),
        "pattern" => sp.pattern = string(s, value, k),
        "format" => {
            sp.format = choice(
                s,
                value,
                "format",
                &[
                    ("date-time", FormatName::DateTime),
                    ("date", FormatName::Date),
                    ("date-time-local", FormatName::DateTimeLocal),
                    ("email", FormatName::Email),
                    ("uri", FormatName::Uri),
                    ("uuid", FormatName::Uuid),
                    ("base64url", FormatName::Base64Url),
                ],
            )
        }
        "items" => sp.items = Some(Box::new(spec(s, value, Role::Items))),
        "min_items" => sp.min_items = whole(s, value, k, u32::MAX),
        "max_items" => sp.max_items = whole(s, value, k, u32::MAX),
        "properties" => {
            let fields = entries(s, value, "`properties`")
                .unwrap_or_default()
                .into_iter()
                .map(|(name, n)| Field {
                    name,
                    spec: spec(s, n, Role::Property),
                })
                .collect();
            sp.properties = Some(Sp::new(fields, value.loc));
        }
        "values" => sp.values = Some(Box::new(spec(s, value, Role::Values))),
        "nullable" => sp.nullable = boolean(s, value, k),
        _ => return false,
    }
    true
}

/// A key that says where a field goes and who sets it (wire name, style, modes, location).
fn placement_key(s: &mut Sink, sp: &mut Spec, k: &str, value: &Node) {
    match k {
        "wire" => sp.wire = string(s, value, k),
        "style" => {
            sp.style = choice(
                s,
                value,
                "style",
                &[
                    ("repeat", Style::Repeat),
                    ("brackets", Style::Brackets),
                    ("comma", Style::Comma),
                ],
            )
        }
        "allow_slash" => sp.allow_slash = boolean(s, value, k),
        "spread" => sp.spread = boolean(s, value, k),
        "modes" => sp.modes = string_list(s, value, k),
        "from_context" => sp.from_context = string(s, value, k),
        "in" => {
            sp.location = choice(
                s,
                value,
                "location",
                &[
                    ("path", In::Path),
                    ("query", In::Query),
                    ("header", In::Header),
                    ("body", In::Body),
                ],
            )
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_keys() {
        assert_eq!(suggest("desciption", SHAPE_KEYS), Some("description"));
        assert_eq!(suggest("requird", NAMED_KEYS), Some("required"));
        assert_eq!(suggest("zzz", SHAPE_KEYS), None);
    }
}
