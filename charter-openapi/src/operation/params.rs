//! Path, query and header parameters: path-level ones merged with the operation's, each
//! converted to a tool parameter (or left out with a note), and the URL template checked
//! against the path parameters.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::super::model::{Cx, In, Issue, Kind, OpRef, Param, Shape};
use super::super::schema::Conv;
use super::super::{ImportError, NoteKind, doc, names};
use super::{Refusal, kind_name, note};

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

/// A declared parameter: where it is written, the object, whether the path item declares it.
pub(super) type Raw<'d> = (String, &'d Map<String, Value>, bool);

/// Path-level parameters, overridden by the operation's own (same name and `in`).
pub(super) fn declared<'d>(cx: &Cx<'d>, op: &OpRef<'d>) -> Result<Vec<Raw<'d>>, ImportError> {
    let mut raw: Vec<Raw<'d>> = Vec::new();
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
            let (pname, pin) = (key(p, &pptr, "name")?, key(p, &pptr, "in")?);
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
    Ok(raw)
}

fn key(p: &Map<String, Value>, pptr: &str, k: &str) -> Result<String, ImportError> {
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
            pointer: pptr.to_owned(),
            message: format!("a parameter needs `{k}`"),
        }),
    }
}

/// Converts the declared parameters, in order; `taken` collects the names used.
pub(super) fn convert(
    conv: &mut Conv<'_>,
    cx: &Cx<'_>,
    raw: &[Raw<'_>],
    path: &str,
    taken: &mut HashSet<String>,
    issues: &mut Vec<Issue>,
) -> Result<Vec<Param>, Refusal> {
    let mut params = Vec::new();
    for (pptr, p, shared) in raw {
        let pname = p.get("name").and_then(Value::as_str).unwrap_or_default();
        let pin = p.get("in").and_then(Value::as_str).unwrap_or_default();
        let required = pin == "path" || p.get("required") == Some(&Value::Bool(true));
        let raw_description = p
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if left_out(cx, pptr, pname, pin, required, raw_description, issues)? {
            continue;
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
        let style = match location {
            In::Path | In::Header => {
                scalar(&mut shape, pin, pname, issues);
                None
            }
            In::Query => query_style(p, &mut shape, pname, issues),
            In::Body => None,
        };
        // Names: valid, unique across locations; the API's spelling goes to `wire:`.
        let mut pretty = names::property(pname.strip_prefix('+').unwrap_or(pname));
        if taken.contains(&pretty) {
            pretty = names::unique(&pretty, location.as_str(), taken);
        }
        if pretty != pname && location != In::Path {
            note(
                issues,
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
                || path.contains(&format!("{{+{pname}}}"))
                || path.contains(&format!("{{{pname}+}}")));
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
    Ok(params)
}

/// Whether a parameter is left out (cookie, nameless, an HTTP header, a credential), with
/// its note; a required one that cannot be sent refuses the operation.
fn left_out(
    cx: &Cx<'_>,
    pptr: &str,
    pname: &str,
    pin: &str,
    required: bool,
    raw_description: &str,
    issues: &mut Vec<Issue>,
) -> Result<bool, Refusal> {
    if pin == "cookie" {
        if required {
            return Err(Refusal::Skip(format!(
                "required cookie parameter `{pname}`: a pack cannot send cookies"
            )));
        }
        note(
            issues,
            NoteKind::ParameterDropped,
            format!("cookie parameter `{pname}` left out: a pack cannot send cookies"),
        );
        return Ok(true);
    }
    if pname.trim().is_empty() {
        if required {
            return Err(Refusal::Skip(format!(
                "a required {pin} parameter without a name ({pptr})"
            )));
        }
        note(
            issues,
            NoteKind::ParameterDropped,
            format!("{pin} parameter without a name left out ({pptr})"),
        );
        return Ok(true);
    }
    let lower = pname.to_ascii_lowercase();
    if pin == "header" && HTTP_HEADERS.contains(&lower.as_str()) {
        note(
            issues,
            NoteKind::ParameterDropped,
            format!(
                "header parameter `{pname}` left out: the HTTP layer and the pack's auth set it"
            ),
        );
        return Ok(true);
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
                issues,
                NoteKind::ParameterDropped,
                format!(
                    "{pin} parameter `{pname}` left out: the credential comes from the pack's auth"
                ),
            );
            return Ok(true);
        }
    }
    Ok(false)
}

/// Path and header parameters are scalars: anything else is declared as a string.
fn scalar(shape: &mut Shape, pin: &str, pname: &str, issues: &mut Vec<Issue>) {
    if shape.kind == Kind::Any {
        shape.kind = Kind::String;
        // A default that fit "any value" may not fit a string.
        if shape.default.as_ref().is_some_and(|d| !d.is_string()) {
            shape.default = None;
        }
    } else if !shape.is_scalar() {
        note(
            issues,
            NoteKind::Unrepresentable,
            format!(
                "{pin} parameter `{pname}` is {}; declared as a string",
                kind_name(&shape.kind)
            ),
        );
        *shape = Shape {
            description: shape.description.take(),
            ..Shape::new(Kind::String)
        };
    }
}

/// The pack's list style for a query parameter's OpenAPI `style`/`explode`.
fn query_style(
    p: &Map<String, Value>,
    shape: &mut Shape,
    pname: &str,
    issues: &mut Vec<Issue>,
) -> Option<&'static str> {
    let st = p.get("style").and_then(Value::as_str).unwrap_or("form");
    let explode = p
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or(st == "form");
    match (&shape.kind, st) {
        (Kind::Array(_), "deepObject") => return Some("brackets"),
        (Kind::Array(_), "form") if !explode => return Some("comma"),
        (Kind::Array(_), "form") => {}
        (Kind::Array(_), "spaceDelimited" | "pipeDelimited") if explode => {}
        (Kind::Array(_), other) => {
            note(
                issues,
                NoteKind::Unrepresentable,
                format!(
                    "query parameter `{pname}` uses style `{other}`; declared as a string the model joins itself"
                ),
            );
            let d = shape.description.take();
            *shape = Shape::new(Kind::String);
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
            issues,
            NoteKind::Unrepresentable,
            format!(
                "object query parameter `{pname}` (style `{s}`) is sent in bracket notation (`{pname}[key]=value`)"
            ),
        ),
        _ => {}
    }
    None
}

/// The `{placeholder}` names of a URL template (the rule is `charter_terms::http`).
pub(crate) fn placeholders(path: &str) -> Result<Vec<String>, String> {
    let found = charter_terms::http::placeholders(path).map_err(|e| e.what().to_owned())?;
    let mut out: Vec<String> = Vec::with_capacity(found.len());
    for (_, name) in found {
        // `{+b}` (reserved expansion), AWS's greedy `{b+}` and `{b}` are the same parameter:
        // the pack declares the bare name once (found by the `openapi_import` fuzz target).
        if out.iter().any(|n| bare(n) == bare(name)) {
            return Err(format!("placeholder `{{{}}}` appears twice", bare(name)));
        }
        out.push(name.to_owned());
    }
    Ok(out)
}

/// A placeholder's parameter name: without the `+` of `{+b}` or `{b+}`.
fn bare(holder: &str) -> &str {
    holder.trim_start_matches('+').trim_end_matches('+')
}

/// Matches the URL template's placeholders with the path parameters: a placeholder without
/// a parameter gets a required string one, a path parameter without a placeholder is left
/// out; placeholders are renamed to the parameters' names. Returns the template.
pub(super) fn template(
    path: &str,
    holders: &[String],
    params: Vec<Param>,
    taken: &mut HashSet<String>,
    issues: &mut Vec<Issue>,
) -> (String, Vec<Param>) {
    let mut params = params;
    for raw_name in holders {
        let bare = bare(raw_name);
        // By the name on the wire only, as the placeholders are replaced below: a parameter
        // whose cleaned-up name happens to equal the placeholder (`b|x` becomes `b`) is not it.
        let found = params
            .iter()
            .any(|p| p.location == In::Path && p.wire.as_deref().unwrap_or(&p.name) == bare);
        if found {
            continue;
        }
        let mut pretty = names::property(bare);
        if taken.contains(&pretty) {
            pretty = names::unique(&pretty, "path", taken);
        }
        taken.insert(pretty.clone());
        note(
            issues,
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
            allow_slash: raw_name.starts_with('+') || raw_name.ends_with('+'),
            shape: Shape::new(Kind::String),
            shared: false,
        });
    }
    let original = path;
    let mut path = path.to_owned();
    let mut kept = Vec::with_capacity(params.len());
    for mut p in params {
        if p.location == In::Path {
            let wire = p.wire.take().unwrap_or_else(|| p.name.clone());
            let Some(holder) = holders.iter().find(|h| bare(h) == wire || **h == wire) else {
                note(
                    issues,
                    NoteKind::ParameterDropped,
                    format!(
                        "path parameter `{wire}` has no `{{{wire}}}` placeholder in `{original}`; left out"
                    ),
                );
                continue;
            };
            p.allow_slash |= holder.ends_with('+') && p.shape.kind == Kind::String;
            let replacement = format!("{{{}}}", p.name);
            path = path.replacen(&format!("{{{holder}}}"), &replacement, 1);
        }
        kept.push(p);
    }
    (path, kept)
}
