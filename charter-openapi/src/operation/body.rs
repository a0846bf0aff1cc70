//! The request body: JSON (or form) object bodies become `in: body` parameters, field by
//! field; what a pack cannot send refuses the operation or is left out with a note.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::super::model::{Cx, In, Issue, Kind, OpRef, Param, Prop, Shape};
use super::super::schema::Conv;
use super::super::{NoteKind, doc, names};
use super::{Refusal, kind_name, note};

/// Adds the body's fields to `params`; returns whether the body is form-encoded.
pub(super) fn add(
    conv: &mut Conv<'_>,
    cx: &Cx<'_>,
    op: &OpRef<'_>,
    params: &mut Vec<Param>,
    taken: &mut HashSet<String>,
    issues: &mut Vec<Issue>,
) -> Result<bool, Refusal> {
    let Some(body) = op.op.get("requestBody") else {
        return Ok(false);
    };
    let at = format!("{}/requestBody", op.ptr);
    let (body, bptr) = doc::deref(cx.root, body, &at)?;
    let required = body.get("required") == Some(&Value::Bool(true));
    let content = body.get("content").and_then(Value::as_object);
    let types: Vec<&str> = content
        .map(|c| c.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let method = op.method;
    match chosen(&types) {
        None if types.is_empty() => Ok(false),
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
            Err(Refusal::Skip(format!(
                "the request body is {listed}, which a pack cannot send (JSON and form bodies only)"
            )))
        }
        Some((ctype, _)) if matches!(method, "GET" | "HEAD") => {
            if required {
                return Err(Refusal::Skip(format!(
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
                    issues,
                    NoteKind::BodyDropped,
                    format!("the optional request body of a {method} operation is left out"),
                );
            }
            Ok(false)
        }
        Some((ctype, is_form)) => {
            let schema = content
                .and_then(|c| c.get(ctype))
                .and_then(|m| m.get("schema"));
            let sptr = format!("{bptr}/content/{}/schema", names::pointer_token(ctype));
            let shape = match schema {
                Some(s) => conv.shape(s, &sptr),
                None => Shape::new(Kind::Map(None)),
            };
            issues.append(&mut conv.issues);
            let shape = conv.expand(shape);
            let what = kind_name(&shape.kind);
            let empty_object = matches!(shape.kind, Kind::Map(None));
            match properties(conv, shape, issues) {
                Some(props) => {
                    fields(props, params, taken, issues);
                    Ok(is_form)
                }
                None => {
                    not_field_by_field(cx, schema, required, empty_object, what, issues)?;
                    Ok(false)
                }
            }
        }
    }
}

/// The content type used: JSON first, else a form; with whether it is a form.
fn chosen<'t>(types: &[&'t str]) -> Option<(&'t str, bool)> {
    // Media types are case-insensitive (`application/JSON`).
    let base = |t: &str| {
        t.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    };
    let json = types.iter().find(|t| {
        let base = base(t);
        base == "application/json" || base.ends_with("+json")
    });
    let form = types
        .iter()
        .find(|t| base(t) == "application/x-www-form-urlencoded");
    json.map(|t| (*t, false))
        .or_else(|| form.map(|t| (*t, true)))
}

/// The body's top-level properties: an object's, or the merged object alternatives'.
fn properties(conv: &mut Conv<'_>, shape: Shape, issues: &mut Vec<Issue>) -> Option<Vec<Prop>> {
    match shape.kind {
        Kind::Object(props) => Some(props),
        Kind::OneOf(alts) => {
            let alts_len = alts.len();
            let objects: Vec<Shape> = alts
                .into_iter()
                .map(|a| conv.expand(a))
                .filter(|a| matches!(a.kind, Kind::Object(_)))
                .collect();
            if objects.is_empty() {
                return None;
            }
            let others = alts_len - objects.len();
            let message = match (objects.len(), others) {
                (1, n) => format!("the body's {n} alternative(s) that are not objects (a list, a value) are left out; the object one is declared"),
                (_, 0) => "the body's object alternatives are merged: a field is required only where every alternative requires it".to_owned(),
                (_, n) => format!("the body's object alternatives are merged (a field is required only where every alternative requires it) and its {n} other alternative(s) left out"),
            };
            note(issues, NoteKind::ConstraintDropped, message);
            match merge_bodies(objects).kind {
                Kind::Object(p) => Some(p),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Declares the body's properties as `in: body` parameters, renaming clashes.
fn fields(
    props: Vec<Prop>,
    params: &mut Vec<Param>,
    taken: &mut HashSet<String>,
    issues: &mut Vec<Issue>,
) {
    for prop in props {
        let mut pname = prop.name.clone();
        let mut wire = prop.wire.clone();
        if taken.contains(&pname) {
            let renamed = names::unique(&pname, "body", taken);
            note(
                issues,
                NoteKind::Renamed,
                format!(
                    "body field `{pname}` is named `{renamed}`: a path, query or header parameter has its name (wire name kept)"
                ),
            );
            wire = Some(wire.unwrap_or_else(|| pname.clone()));
            pname = renamed;
        } else if let Some(w) = &wire {
            note(
                issues,
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

/// A body that is not an object with properties: nothing lost when it is an empty closed
/// object; else left out with a note, or the operation refused when the body is required.
fn not_field_by_field(
    cx: &Cx<'_>,
    schema: Option<&Value>,
    required: bool,
    empty_object: bool,
    what: &str,
    issues: &mut Vec<Issue>,
) -> Result<(), Refusal> {
    // An object that declares no field and allows no other (Stripe's DELETE bodies, Google's
    // empty requests) loses nothing.
    let free = schema
        .and_then(|s| doc::deref(cx.root, s, "").ok())
        .and_then(|(s, _)| s.get("additionalProperties"))
        .is_some_and(|a| {
            *a == Value::Bool(true)
                || a.as_object()
                    .is_some_and(|o: &Map<String, Value>| !o.is_empty())
        });
    if required && (!empty_object || free) {
        return Err(Refusal::Skip(format!(
            "the request body is {what}, which a pack cannot declare field by field"
        )));
    }
    if !empty_object || free {
        note(
            issues,
            NoteKind::BodyDropped,
            format!(
                "the optional request body ({what}) cannot be declared field by field; no body is sent"
            ),
        );
    }
    Ok(())
}

fn merge_bodies(objects: Vec<Shape>) -> Shape {
    let n = objects.len();
    let mut merged: Vec<Prop> = Vec::new();
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
