//! Operations → tools: parameters (path, query, header), the request body's top-level
//! properties as body parameters, the URL template, the description and pagination.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::names::{self, pointer_token};
use super::schema::{Conv, Issue, Kind, Shape};
use super::{ImportError, NoteKind, doc, text};

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

const METHODS: &[(&str, &str)] = &[
    ("get", "GET"),
    ("put", "PUT"),
    ("post", "POST"),
    ("delete", "DELETE"),
    ("options", "OPTIONS"),
    ("head", "HEAD"),
    ("patch", "PATCH"),
    ("trace", "TRACE"),
];

/// Every operation, in document order.
pub(crate) fn collect(root: &Value) -> Result<Vec<OpRef<'_>>, ImportError> {
    let mut out = Vec::new();
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return Ok(out);
    };
    for (path, item) in paths {
        let item_ptr = format!("/paths/{}", pointer_token(path));
        let (item, item_ptr) = doc::deref(root, item, &item_ptr)?;
        let Some(item) = item.as_object() else {
            return Err(ImportError::Invalid {
                pointer: item_ptr,
                message: format!("a path item must be an object, found {}", doc::kind(item)),
            });
        };
        for (key, op) in item {
            let Some(&(_, method)) = METHODS.iter().find(|(k, _)| k == key) else {
                continue;
            };
            let ptr = format!("{item_ptr}/{key}");
            let Some(op) = op.as_object() else {
                return Err(ImportError::Invalid {
                    pointer: ptr,
                    message: format!("an operation must be an object, found {}", doc::kind(op)),
                });
            };
            let operation_id = match op.get("operationId") {
                None => None,
                Some(Value::String(s)) if !s.trim().is_empty() => Some(s.as_str()),
                Some(Value::String(_)) => None,
                Some(v) => {
                    return Err(ImportError::Invalid {
                        pointer: format!("{ptr}/operationId"),
                        message: format!("`operationId` must be a string, found {}", doc::kind(v)),
                    });
                }
            };
            let id = operation_id.map_or_else(|| format!("{method} {path}"), str::to_owned);
            out.push(OpRef {
                path,
                method,
                ptr,
                op,
                item,
                item_ptr: item_ptr.clone(),
                id,
                operation_id,
            });
        }
    }
    Ok(out)
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

/// Header parameters the HTTP layer owns (OpenAPI says to ignore them as parameters).
const HTTP_HEADERS: &[&str] = &["accept", "content-type", "authorization", "content-length"];

/// Parameter names that carry a credential when described as one.
const CREDENTIAL_NAMES: &[&str] = &[
    "token",
    "access_token",
    "oauth_token",
    "api_key",
    "apikey",
    "key",
];

/// Builds the tool for `op`, or the reason it cannot be one.
pub(crate) fn build(
    conv: &mut Conv<'_>,
    cx: &Cx<'_>,
    op: &OpRef<'_>,
    name: &str,
) -> Result<Result<Tool, String>, ImportError> {
    let method = op.method;
    if !matches!(method, "GET" | "PUT" | "POST" | "DELETE" | "PATCH" | "HEAD") {
        return Ok(Err(format!("{method} is not a method a pack can declare")));
    }
    let mut path = op.path.to_owned();
    if !path.starts_with('/') {
        return Ok(Err(format!("the path `{path}` does not start with `/`")));
    }
    if path.contains(['?', '#']) {
        return Ok(Err(format!(
            "the path `{path}` carries a query or fragment, which a pack declares as parameters; declare this tool by hand"
        )));
    }
    let holders: Vec<String> = match crate::openapi::pack::placeholders(&path) {
        Ok(h) => h,
        Err(e) => return Ok(Err(format!("malformed URL template `{path}`: {e}"))),
    };
    let mut issues: Vec<Issue> = Vec::new();
    let note = |issues: &mut Vec<Issue>, kind: NoteKind, message: String| {
        issues.push(Issue { kind, message })
    };

    // Parameters: path-level ones, overridden by the operation's own (same name and `in`).
    let mut raw: Vec<(String, &Map<String, Value>, bool)> = Vec::new();
    for (owner, owner_ptr, shared) in [(op.item, &op.item_ptr, true), (op.op, &op.ptr, false)] {
        let Some(list) = owner.get("parameters") else {
            continue;
        };
        let Some(list) = list.as_array() else {
            return Err(ImportError::Invalid {
                pointer: format!("{owner_ptr}/parameters"),
                message: format!("`parameters` must be a list, found {}", doc::kind(list)),
            });
        };
        for (i, p) in list.iter().enumerate() {
            let at = format!("{owner_ptr}/parameters/{i}");
            let (p, pptr) = doc::deref(cx.root, p, &at)?;
            let Some(p) = p.as_object() else {
                return Err(ImportError::Invalid {
                    pointer: pptr,
                    message: format!("a parameter must be an object, found {}", doc::kind(p)),
                });
            };
            let key = |p: &Map<String, Value>, k: &str| -> Result<String, ImportError> {
                match p.get(k) {
                    Some(Value::String(s)) => Ok(s.clone()),
                    Some(v) => Err(ImportError::Invalid {
                        pointer: format!("{pptr}/{k}"),
                        message: format!(
                            "a parameter's `{k}` must be a string, found {}",
                            doc::kind(v)
                        ),
                    }),
                    None => Err(ImportError::Invalid {
                        pointer: pptr.clone(),
                        message: format!("a parameter needs `{k}`"),
                    }),
                }
            };
            let (pname, pin) = (key(p, "name")?, key(p, "in")?);
            if !matches!(pin.as_str(), "path" | "query" | "header" | "cookie") {
                return Err(ImportError::Invalid {
                    pointer: format!("{pptr}/in"),
                    message: format!(
                        "`in` must be `path`, `query`, `header` or `cookie`, found `{pin}`"
                    ),
                });
            }
            let same = raw.iter().position(|(_, q, _)| {
                q.get("name").and_then(Value::as_str) == Some(pname.as_str())
                    && q.get("in").and_then(Value::as_str) == Some(pin.as_str())
            });
            match same {
                Some(i) => raw[i] = (pptr, p, shared),
                None => raw.push((pptr, p, shared)),
            }
        }
    }

    let mut params: Vec<Param> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    for (pptr, p, shared) in &raw {
        let pname = p.get("name").and_then(Value::as_str).unwrap_or_default();
        let pin = p.get("in").and_then(Value::as_str).unwrap_or_default();
        let required = pin == "path" || p.get("required") == Some(&Value::Bool(true));
        let raw_description = p
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if pin == "cookie" {
            if required {
                return Ok(Err(format!(
                    "required cookie parameter `{pname}`: a pack cannot send cookies"
                )));
            }
            note(
                &mut issues,
                NoteKind::ParameterDropped,
                format!("cookie parameter `{pname}` left out: a pack cannot send cookies"),
            );
            continue;
        }
        if pname.trim().is_empty() {
            if required {
                return Ok(Err(format!(
                    "a required {pin} parameter without a name ({pptr})"
                )));
            }
            note(
                &mut issues,
                NoteKind::ParameterDropped,
                format!("{pin} parameter without a name left out ({pptr})"),
            );
            continue;
        }
        let lower = pname.to_ascii_lowercase();
        if pin == "header" && HTTP_HEADERS.contains(&lower.as_str()) {
            note(
                &mut issues,
                NoteKind::ParameterDropped,
                format!(
                    "header parameter `{pname}` left out: the HTTP layer and the pack's auth set it"
                ),
            );
            continue;
        }
        if cx.has_auth && pin != "path" {
            let described = raw_description.to_ascii_lowercase();
            let credential = cx
                .auth_param
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(pname))
                || (CREDENTIAL_NAMES.contains(&lower.as_str())
                    && ["token", "api key", "credential", "auth"]
                        .iter()
                        .any(|w| described.contains(w)));
            if credential {
                note(
                    &mut issues,
                    NoteKind::ParameterDropped,
                    format!(
                        "{pin} parameter `{pname}` left out: the credential comes from the pack's auth"
                    ),
                );
                continue;
            }
        }
        let location = match pin {
            "path" => In::Path,
            "query" => In::Query,
            _ => In::Header,
        };
        let schema = p.get("schema").cloned().or_else(|| {
            p.get("content")
                .and_then(Value::as_object)
                .and_then(|c| c.values().next())
                .and_then(|m| m.get("schema"))
                .cloned()
        });
        let mut shape = match &schema {
            Some(s) => conv.shape(s, &format!("{pptr}/schema")),
            None => Shape::new(Kind::String),
        };
        issues.append(&mut conv.issues);
        if let Some(d) = conv.describe(raw_description) {
            shape.description = Some(d);
        }
        let mut style = None;
        match location {
            In::Path | In::Header => {
                if shape.kind == Kind::Any {
                    shape.kind = Kind::String;
                    // A default that fit "any value" may not fit a string.
                    if shape.default.as_ref().is_some_and(|d| !d.is_string()) {
                        shape.default = None;
                    }
                } else if !shape.is_scalar() {
                    note(
                        &mut issues,
                        NoteKind::Unrepresentable,
                        format!(
                            "{pin} parameter `{pname}` is {}; declared as a string",
                            kind_name(&shape.kind)
                        ),
                    );
                    shape = Shape {
                        description: shape.description.take(),
                        ..Shape::new(Kind::String)
                    };
                }
            }
            In::Query => {
                let st = p.get("style").and_then(Value::as_str).unwrap_or("form");
                let explode = p
                    .get("explode")
                    .and_then(Value::as_bool)
                    .unwrap_or(st == "form");
                match (&shape.kind, st) {
                    (Kind::Array(_), "deepObject") => style = Some("brackets"),
                    (Kind::Array(_), "form") if !explode => style = Some("comma"),
                    (Kind::Array(_), "form") => {}
                    (Kind::Array(_), "spaceDelimited" | "pipeDelimited") if explode => {}
                    (Kind::Array(_), other) => {
                        note(
                            &mut issues,
                            NoteKind::Unrepresentable,
                            format!(
                                "query parameter `{pname}` uses style `{other}`; declared as a string the model joins itself"
                            ),
                        );
                        let d = shape.description.take();
                        shape = Shape::new(Kind::String);
                        shape.description = Some(
                            format!(
                                "{} Values joined by `{}`.",
                                d.unwrap_or_default(),
                                if other == "pipeDelimited" { "|" } else { " " }
                            )
                            .trim()
                            .to_owned(),
                        );
                    }
                    (Kind::Object(_) | Kind::Map(_), s) if s != "deepObject" => note(
                        &mut issues,
                        NoteKind::Unrepresentable,
                        format!(
                            "object query parameter `{pname}` (style `{s}`) is sent in bracket notation (`{pname}[key]=value`)"
                        ),
                    ),
                    _ => {}
                }
            }
            In::Body => {}
        }
        // Names: valid, unique across locations; the API's spelling goes to `wire:`.
        let mut pretty = pname.strip_prefix('+').unwrap_or(pname).to_owned();
        pretty = names::property(&pretty);
        if taken.contains(&pretty) {
            pretty = names::unique(&pretty, location.as_str(), &taken);
        }
        if pretty != pname && location != In::Path {
            note(
                &mut issues,
                NoteKind::Renamed,
                format!("{pin} parameter `{pname}` is named `{pretty}` (wire name kept)"),
            );
        }
        taken.insert(pretty.clone());
        let allow_slash = location == In::Path
            && shape.kind == Kind::String
            && (pretty == "path"
                || pretty.ends_with("_path")
                || pretty == "ref"
                || path.contains(&format!("{{+{pname}}}")));
        params.push(Param {
            wire: (pretty != pname).then(|| pname.to_owned()),
            name: pretty,
            location,
            required,
            style,
            allow_slash,
            shape,
            shared: *shared,
        });
    }

    // The URL template against the path parameters.
    for raw_name in &holders {
        let bare = raw_name.trim_start_matches('+');
        // By the name on the wire only, as the placeholders are replaced below: a parameter
        // whose cleaned-up name happens to equal the placeholder (`b|x` becomes `b`) is not it.
        let found = params
            .iter()
            .position(|p| p.location == In::Path && p.wire.as_deref().unwrap_or(&p.name) == bare);
        if found.is_none() {
            let pretty = {
                let n = names::property(bare);
                if taken.contains(&n) {
                    names::unique(&n, "path", &taken)
                } else {
                    n
                }
            };
            taken.insert(pretty.clone());
            note(
                &mut issues,
                NoteKind::Unrepresentable,
                format!(
                    "placeholder `{{{raw_name}}}` has no declared parameter; declared as a required string"
                ),
            );
            params.push(Param {
                wire: (pretty != bare).then(|| bare.to_owned()),
                name: pretty,
                location: In::Path,
                required: true,
                style: None,
                allow_slash: raw_name.starts_with('+'),
                shape: Shape::new(Kind::String),
                shared: false,
            });
        }
    }
    let mut kept = Vec::with_capacity(params.len());
    for mut p in params {
        if p.location == In::Path {
            let wire = p.wire.take().unwrap_or_else(|| p.name.clone());
            let holder = holders
                .iter()
                .find(|h| h.trim_start_matches('+') == wire || **h == wire);
            let Some(holder) = holder else {
                note(
                    &mut issues,
                    NoteKind::ParameterDropped,
                    format!(
                        "path parameter `{wire}` has no `{{{wire}}}` placeholder in `{}`; left out",
                        op.path
                    ),
                );
                continue;
            };
            let replacement = format!("{{{}}}", p.name);
            path = path.replacen(&format!("{{{holder}}}"), &replacement, 1);
        }
        kept.push(p);
    }
    let mut params = kept;

    // The request body.
    let mut form = false;
    if let Some(body) = op.op.get("requestBody") {
        let at = format!("{}/requestBody", op.ptr);
        let (body, bptr) = doc::deref(cx.root, body, &at)?;
        let required = body.get("required") == Some(&Value::Bool(true));
        let content = body.get("content").and_then(Value::as_object);
        let types: Vec<&str> = content
            .map(|c| c.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let json = types.iter().find(|t| {
            let base = t.split(';').next().unwrap_or_default().trim();
            base == "application/json" || base.ends_with("+json")
        });
        let form_type = types
            .iter()
            .find(|t| t.starts_with("application/x-www-form-urlencoded"));
        let chosen = json
            .map(|t| (*t, false))
            .or_else(|| form_type.map(|t| (*t, true)));
        match chosen {
            None if types.is_empty() => {}
            None => {
                let mut listed = types
                    .iter()
                    .take(3)
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                if types.len() > 3 {
                    listed.push_str(&format!(" and {} more", types.len() - 3));
                }
                return Ok(Err(format!(
                    "the request body is {listed}, which a pack cannot send (JSON and form bodies only)"
                )));
            }
            Some((ctype, _)) if matches!(method, "GET" | "HEAD") => {
                if required {
                    return Ok(Err(format!(
                        "a {method} operation with a required request body, which a pack cannot send"
                    )));
                }
                // Stripe declares an empty form body on every GET: nothing is lost there.
                let declares = content
                    .and_then(|c| c.get(ctype))
                    .and_then(|m| m.get("schema"))
                    .and_then(|s| doc::deref(cx.root, s, "").ok())
                    .is_none_or(|(s, _)| {
                        s.get("properties")
                            .and_then(Value::as_object)
                            .is_none_or(|p| !p.is_empty())
                    });
                if declares {
                    note(
                        &mut issues,
                        NoteKind::BodyDropped,
                        format!("the optional request body of a {method} operation is left out"),
                    );
                }
            }
            Some((ctype, is_form)) => {
                let schema = content
                    .and_then(|c| c.get(ctype))
                    .and_then(|m| m.get("schema"));
                let sptr = format!("{bptr}/content/{}/schema", pointer_token(ctype));
                let shape = match schema {
                    Some(s) => conv.shape(s, &sptr),
                    None => Shape::new(Kind::Map(None)),
                };
                issues.append(&mut conv.issues);
                let shape = conv.expand(shape);
                let what = kind_name(&shape.kind);
                let empty_object = matches!(shape.kind, Kind::Map(None));
                let props = match shape.kind {
                    Kind::Object(props) => Some(props),
                    Kind::OneOf(alts) => {
                        let alts_len = alts.len();
                        let objects: Vec<Shape> = alts
                            .into_iter()
                            .map(|a| conv.expand(a))
                            .filter(|a| matches!(a.kind, Kind::Object(_)))
                            .collect();
                        if objects.is_empty() {
                            None
                        } else {
                            let others = alts_len - objects.len();
                            let message = match (objects.len(), others) {
                                (1, n) => format!("the body's {n} alternative(s) that are not objects (a list, a value) are left out; the object one is declared"),
                                (_, 0) => "the body's object alternatives are merged: a field is required only where every alternative requires it".to_owned(),
                                (_, n) => format!("the body's object alternatives are merged (a field is required only where every alternative requires it) and its {n} other alternative(s) left out"),
                            };
                            note(&mut issues, NoteKind::ConstraintDropped, message);
                            match merge_bodies(objects).kind {
                                Kind::Object(p) => Some(p),
                                _ => None,
                            }
                        }
                    }
                    _ => None,
                };
                match props {
                    Some(props) => {
                        form = is_form;
                        for prop in props {
                            let mut pname = prop.name.clone();
                            let mut wire = prop.wire.clone();
                            if taken.contains(&pname) {
                                let renamed = names::unique(&pname, "body", &taken);
                                note(
                                    &mut issues,
                                    NoteKind::Renamed,
                                    format!(
                                        "body field `{pname}` is named `{renamed}`: a path, query or header parameter has its name (wire name kept)"
                                    ),
                                );
                                wire = Some(wire.unwrap_or_else(|| pname.clone()));
                                pname = renamed;
                            } else if let Some(w) = &wire {
                                note(
                                    &mut issues,
                                    NoteKind::Renamed,
                                    format!("body field `{w}` is named `{pname}` (wire name kept)"),
                                );
                            }
                            taken.insert(pname.clone());
                            params.push(Param {
                                name: pname,
                                wire,
                                location: In::Body,
                                required: prop.required,
                                style: None,
                                allow_slash: false,
                                shape: prop.shape,
                                shared: false,
                            });
                        }
                    }
                    None => {
                        // An object that declares no field and allows no other (Stripe's
                        // DELETE bodies, Google's empty requests) loses nothing.
                        let free = schema
                            .and_then(|s| doc::deref(cx.root, s, "").ok())
                            .and_then(|(s, _)| s.get("additionalProperties"))
                            .is_some_and(|a| {
                                *a == Value::Bool(true)
                                    || a.as_object().is_some_and(|o| !o.is_empty())
                            });
                        if required && (!empty_object || free) {
                            return Ok(Err(format!(
                                "the request body is {what}, which a pack cannot declare field by field"
                            )));
                        }
                        if !empty_object || free {
                            note(
                                &mut issues,
                                NoteKind::BodyDropped,
                                format!(
                                    "the optional request body ({what}) cannot be declared field by field; no body is sent"
                                ),
                            );
                        }
                    }
                }
            }
        }
    }

    // Path parameters, the operation's own, the body's fields, then the shared ones.
    params.sort_by_key(|p| match (p.location, p.shared) {
        (In::Path, _) => 0,
        (In::Body, _) => 2,
        (_, false) => 1,
        (_, true) => 3,
    });

    // Operations served elsewhere.
    if let Some(Value::Array(servers)) = op.op.get("servers")
        && let Some(url) = servers
            .first()
            .and_then(|s| s.get("url"))
            .and_then(Value::as_str)
        && url.trim_end_matches('/') != cx.base_url
    {
        note(
            &mut issues,
            NoteKind::Server,
            format!(
                "the operation is served from `{url}`; the pack's base URL `{}` is used",
                cx.base_url
            ),
        );
    }

    let summary = op
        .op
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let long = op
        .op
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let full = text::tool_description(summary, long, usize::MAX);
    let mut description = text::shorten(&full, cx.max_description);
    if description.len() < full.len() {
        conv.stats.shortened_descriptions += 1;
    }
    if description.is_empty() {
        conv.stats.generated_descriptions += 1;
        description = format!("{method} {}.", op.path);
    }
    if op.op.get("deprecated") == Some(&Value::Bool(true)) {
        description = format!("Deprecated. {description}");
    }
    let pagination = pagination(cx.root, op, &params);
    Ok(Ok(Tool {
        name: name.to_owned(),
        operation: op.id.clone(),
        description,
        method,
        path,
        params,
        form,
        pagination,
        issues,
    }))
}

fn merge_bodies(objects: Vec<Shape>) -> Shape {
    let n = objects.len();
    let mut merged: Vec<super::schema::Prop> = Vec::new();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for o in objects {
        let Kind::Object(props) = o.kind else {
            continue;
        };
        for p in props {
            if p.required {
                *counts.entry(p.name.clone()).or_default() += 1;
            }
            if !merged.iter().any(|q| q.name == p.name) {
                merged.push(p);
            }
        }
    }
    for p in &mut merged {
        p.required = counts.get(&p.name).copied().unwrap_or(0) == n;
    }
    Shape::new(Kind::Object(merged))
}

pub(crate) fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::Any => "any value",
        Kind::String => "a string",
        Kind::Integer => "an integer",
        Kind::Number => "a number",
        Kind::Boolean => "a boolean",
        Kind::Object(_) => "an object",
        Kind::Array(_) => "a list",
        Kind::Map(_) => "a free-form object",
        Kind::Ref(_) => "a named type",
        Kind::OneOf(_) => "a choice of shapes",
    }
}

/// Pagination the parameters and the response imply: `page`/`per_page` pages, or a cursor
/// parameter whose next value the response carries.
fn pagination(root: &Value, op: &OpRef<'_>, params: &[Param]) -> Option<Pagination> {
    let int_param = |n: &str| {
        params
            .iter()
            .find(|p| p.name == n && p.location != In::Path && p.shape.kind == Kind::Integer)
            .map(|p| p.name.clone())
    };
    let has = |n: &str| params.iter().any(|p| p.name == n && p.location != In::Path);
    let props = response_properties(root, op);
    let prop = |n: &str| props.as_ref().is_some_and(|m| m.contains_key(n));
    let nested = |outer: &str, inner: &str| {
        props
            .as_ref()
            .and_then(|m| m.get(outer))
            .and_then(|v| doc::deref(root, v, "").ok())
            .and_then(|(v, _)| {
                v.get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.contains_key(inner))
            })
            .unwrap_or(false)
    };
    if has("pageToken") && prop("nextPageToken") {
        return Some(Pagination::Cursor {
            next: "nextPageToken".into(),
            param: "pageToken".into(),
        });
    }
    if has("cursor") && nested("response_metadata", "next_cursor") {
        return Some(Pagination::Cursor {
            next: "response_metadata.next_cursor".into(),
            param: "cursor".into(),
        });
    }
    if has("start_cursor") && prop("next_cursor") {
        return Some(Pagination::Cursor {
            next: "next_cursor".into(),
            param: "start_cursor".into(),
        });
    }
    if has("starting_after") && prop("has_more") && prop("data") {
        return Some(Pagination::Cursor {
            next: "data.-1.id".into(),
            param: "starting_after".into(),
        });
    }
    if let Some(page) = int_param("page") {
        let size = ["per_page", "page_size", "pageSize", "limit"]
            .iter()
            .find_map(|n| int_param(n));
        return Some(Pagination::Page {
            param: page,
            size_param: size,
        });
    }
    None
}

/// The top-level properties of the first 2xx JSON response, references followed.
pub(crate) fn response_properties<'d>(
    root: &'d Value,
    op: &OpRef<'d>,
) -> Option<&'d Map<String, Value>> {
    let responses = op.op.get("responses")?.as_object()?;
    let ok = responses
        .iter()
        .find(|(code, _)| code.starts_with('2'))
        .map(|(_, r)| r)?;
    let (ok, _) = doc::deref(root, ok, "").ok()?;
    let content = ok.get("content")?.as_object()?;
    let media = content
        .iter()
        .find(|(t, _)| t.starts_with("application/json"))
        .map(|(_, m)| m)?;
    let (schema, _) = doc::deref(root, media.get("schema")?, "").ok()?;
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        return Some(props);
    }
    // `allOf` of a reference: look one level in.
    schema.get("allOf")?.as_array()?.iter().find_map(|part| {
        let (part, _) = doc::deref(root, part, "").ok()?;
        part.get("properties").and_then(Value::as_object)
    })
}
