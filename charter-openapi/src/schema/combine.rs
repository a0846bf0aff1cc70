//! Combinations: `allOf` merged into one shape, `oneOf`/`anyOf` alternatives simplified
//! into a `one_of` a pack can state (or merged, or accepted as any value, with an issue).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::super::NoteKind;
use super::super::doc;
use super::super::model::{Kind, Prop, Shape};
use super::{Conv, DEFINING, defines, is_null_schema};

impl Conv<'_> {
    pub(super) fn all_of(&mut self, obj: &Map<String, Value>, parts: &[Value], ptr: &str) -> Shape {
        let defining: Vec<usize> = (0..parts.len())
            .filter(|&i| parts[i].as_object().is_some_and(defines))
            .collect();
        let siblings_define = obj
            .keys()
            .any(|k| k != "allOf" && DEFINING.contains(&k.as_str()));
        // `allOf: [{$ref: X}]` with a description beside it: a reference to X.
        if defining.len() == 1 && !siblings_define && parts[defining[0]].get("$ref").is_some() {
            let i = defining[0];
            let mut shape = self.shape(&parts[i], &format!("{ptr}/allOf/{i}"));
            let described = obj.get("description").or_else(|| {
                parts
                    .iter()
                    .enumerate()
                    .find(|(j, _)| *j != i)
                    .and_then(|(_, p)| p.get("description"))
            });
            if let Some(d) = described.and_then(Value::as_str)
                && let Some(d) = self.describe(d)
            {
                shape.description = Some(d);
            }
            if obj.get("nullable") == Some(&Value::Bool(true))
                || parts
                    .iter()
                    .any(|p| p.get("nullable") == Some(&Value::Bool(true)))
            {
                shape.nullable = true;
            }
            return shape;
        }
        let mut merged: Map<String, Value> = obj.clone();
        merged.remove("allOf");
        let mut seen = HashSet::new();
        let mut conflict = None;
        self.merge_parts(&mut merged, parts, ptr, &mut seen, &mut conflict);
        if let Some(why) = conflict {
            self.issue(
                NoteKind::Unrepresentable,
                format!("the `allOf` at {ptr} combines incompatible schemas ({why}); accepted as any value"),
            );
            let mut s = Shape::any();
            s.description = merged
                .get("description")
                .and_then(Value::as_str)
                .and_then(|d| self.describe(d));
            return s;
        }
        self.plain(&merged, ptr)
    }

    /// Merges `allOf` parts (references followed, nested `allOf`s flattened) into `into`.
    pub(super) fn merge_parts(
        &mut self,
        into: &mut Map<String, Value>,
        parts: &[Value],
        ptr: &str,
        seen: &mut HashSet<String>,
        conflict: &mut Option<String>,
    ) {
        for (i, part) in parts.iter().enumerate() {
            let at = format!("{ptr}/allOf/{i}");
            let (part, pptr) = match doc::deref(self.root, part, &at) {
                Ok(x) => x,
                Err(e) => {
                    *conflict = Some(e.to_string());
                    return;
                }
            };
            if !seen.insert(pptr.clone()) || self.stack.contains(&pptr) {
                *conflict = Some(format!("{pptr} includes itself"));
                return;
            }
            let Some(part) = part.as_object() else {
                continue;
            };
            let mut part = part.clone();
            if let Some(Value::Array(nested)) = part.remove("allOf") {
                self.merge_parts(into, &nested, &pptr, seen, conflict);
            }
            merge_into(into, part, conflict);
        }
    }

    pub(super) fn alternatives(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
        alts: &[Value],
        ptr: &str,
    ) -> Shape {
        let mut nullable = false;
        let mut branches: Vec<(usize, &Value)> = Vec::new();
        for (i, a) in alts.iter().enumerate() {
            if is_null_schema(a) {
                nullable = true;
            } else {
                branches.push((i, a));
            }
        }
        let mut base = obj.clone();
        base.remove("oneOf");
        base.remove("anyOf");
        base.remove("description");
        base.remove("nullable");
        base.remove("deprecated");
        let base_defines = defines(&base);
        if base_defines
            && branches
                .iter()
                .all(|(_, a)| a.as_object().is_some_and(|a| !defines(a)))
        {
            // `oneOf: [{required: [a]}, {required: [b]}]`: which fields are required together.
            self.issue(
                NoteKind::ConstraintDropped,
                format!("the `{key}` at {ptr} only lists alternative required fields; every field is optional"),
            );
            let mut s = self.plain(&base, ptr);
            s.nullable |= nullable;
            return s;
        }
        let mut shapes = Vec::with_capacity(branches.len());
        for (i, a) in branches {
            let at = format!("{ptr}/{key}/{i}");
            let s = if base_defines {
                let mut merged = base.clone();
                let mut conflict = None;
                let mut seen = HashSet::new();
                self.merge_parts(
                    &mut merged,
                    std::slice::from_ref(a),
                    &at,
                    &mut seen,
                    &mut conflict,
                );
                if let Some(why) = conflict {
                    self.issue(
                        NoteKind::Unrepresentable,
                        format!("{at}: {why}; accepted as any value"),
                    );
                    Shape::any()
                } else {
                    self.plain(&merged, &at)
                }
            } else {
                self.shape(a, &at)
            };
            shapes.push(s);
        }
        let mut s = if shapes.is_empty() {
            Shape::any()
        } else {
            self.one_of(shapes, &format!("{ptr}/{key}"))
        };
        s.nullable |= nullable;
        s
    }

    /// Alternatives simplified until exactly one of them can match any value: nested
    /// alternatives flattened, duplicates merged, overlapping objects merged.
    pub(crate) fn one_of(&mut self, alts: Vec<Shape>, ptr: &str) -> Shape {
        let mut flat: Vec<Shape> = Vec::new();
        let mut nullable = false;
        for a in alts {
            nullable |= a.nullable;
            match a.kind {
                Kind::OneOf(inner) => flat.extend(inner),
                _ => flat.push(a),
            }
        }
        if let Some(pos) = flat.iter().position(|a| a.kind == Kind::Any) {
            let _ = pos;
            self.issue(
                NoteKind::OneOfAsAny,
                format!("an alternative at {ptr} accepts any value, so the alternatives cannot be told apart; accepted as any value"),
            );
            let mut s = Shape::any();
            s.nullable = nullable;
            s.description = Some("Accepts one of several shapes; see the API reference.".into());
            return s;
        }
        let mut out = merge_scalars(flat);
        // Objects (and maps) must be told apart by a required field; otherwise merge them.
        let objectish: Vec<usize> = (0..out.len())
            .filter(|&i| {
                matches!(
                    self.expand(out[i].clone()).kind,
                    Kind::Object(_) | Kind::Map(_)
                )
            })
            .collect();
        if objectish.len() > 1
            && !self.discriminated(
                &objectish
                    .iter()
                    .map(|&i| self.expand(out[i].clone()))
                    .collect::<Vec<_>>(),
            )
        {
            let merged = self.merge_objects(
                objectish
                    .iter()
                    .map(|&i| self.expand(out[i].clone()))
                    .collect(),
            );
            self.issue(
                NoteKind::ConstraintDropped,
                format!("the object alternatives at {ptr} overlap; merged into one object whose fields are required only where every alternative requires them"),
            );
            let first = objectish[0];
            let mut kept: Vec<Shape> = Vec::new();
            for (i, s) in out.into_iter().enumerate() {
                if i == first {
                    kept.push(merged.clone());
                } else if !objectish.contains(&i) {
                    kept.push(s);
                }
            }
            out = kept;
        }
        let out = self.merge_arrays(out, ptr);
        let mut out = out;
        let mut s = if out.len() == 1 {
            out.pop().unwrap_or_else(Shape::any)
        } else {
            Shape::new(Kind::OneOf(out))
        };
        s.nullable |= nullable;
        s
    }

    /// Array alternatives become one array whose items are the alternatives.
    fn merge_arrays(&mut self, mut out: Vec<Shape>, ptr: &str) -> Vec<Shape> {
        let arrays: Vec<usize> = (0..out.len())
            .filter(|&i| matches!(out[i].kind, Kind::Array(_)))
            .collect();
        if arrays.len() > 1 {
            let items: Vec<Shape> = arrays
                .iter()
                .map(|&i| match &out[i].kind {
                    Kind::Array(items) => (**items).clone(),
                    _ => Shape::any(),
                })
                .collect();
            let merged_items = self.one_of(items, &format!("{ptr}/items"));
            let first = arrays[0];
            let mut kept = Vec::new();
            for (i, s) in out.into_iter().enumerate() {
                if i == first {
                    kept.push(Shape::new(Kind::Array(Box::new(merged_items.clone()))));
                } else if !arrays.contains(&i) {
                    kept.push(s);
                }
            }
            out = kept;
        }
        out
    }

    /// Whether every object alternative has a required field that no other declares (or
    /// declares with a disjoint enum), so at most one of them can match.
    pub(super) fn discriminated(&self, objects: &[Shape]) -> bool {
        let props = |s: &Shape| -> Vec<Prop> {
            match &s.kind {
                Kind::Object(p) => p.clone(),
                _ => Vec::new(),
            }
        };
        let all: Vec<Vec<Prop>> = objects.iter().map(props).collect();
        if objects.iter().any(|s| matches!(s.kind, Kind::Map(_))) {
            return false;
        }
        (0..all.len()).all(|i| {
            all[i].iter().filter(|p| p.required).any(|p| {
                (0..all.len()).filter(|&j| j != i).all(|j| {
                    match all[j].iter().find(|q| q.name == p.name) {
                        None => true,
                        Some(q) => {
                            !p.shape.enum_values.is_empty()
                                && !q.shape.enum_values.is_empty()
                                && p.shape
                                    .enum_values
                                    .iter()
                                    .all(|v| !q.shape.enum_values.contains(v))
                        }
                    }
                })
            })
        })
    }

    pub(super) fn merge_objects(&self, objects: Vec<Shape>) -> Shape {
        if objects.iter().any(|s| matches!(s.kind, Kind::Map(_))) {
            return Shape::new(Kind::Map(None));
        }
        let n = objects.len();
        let mut merged: Vec<Prop> = Vec::new();
        let mut counts: HashMap<String, usize> = HashMap::new();
        for s in objects {
            let Kind::Object(props) = s.kind else {
                continue;
            };
            for p in props {
                if p.required {
                    *counts.entry(p.name.clone()).or_default() += 1;
                }
                match merged.iter_mut().find(|q| q.name == p.name) {
                    Some(q) => {
                        if q.shape.kind == p.shape.kind {
                            for v in p.shape.enum_values {
                                if !q.shape.enum_values.contains(&v)
                                    && !q.shape.enum_values.is_empty()
                                {
                                    q.shape.enum_values.push(v);
                                }
                            }
                            if q.shape.description.is_none() {
                                q.shape.description = p.shape.description;
                            }
                        } else {
                            q.shape = Shape {
                                description: q.shape.description.take(),
                                ..Shape::any()
                            };
                        }
                    }
                    None => merged.push(p),
                }
            }
        }
        for p in &mut merged {
            p.required = counts.get(&p.name).copied().unwrap_or(0) == n;
            if !p.shape.enum_values.is_empty()
                && let Some(d) = &p.shape.default
                && !p.shape.enum_values.contains(d)
            {
                p.shape.default = None;
            }
        }
        Shape::new(Kind::Object(merged))
    }
}

pub(super) fn merge_into(
    into: &mut Map<String, Value>,
    part: Map<String, Value>,
    conflict: &mut Option<String>,
) {
    for (k, v) in part {
        match k.as_str() {
            "properties" => {
                let Value::Object(props) = v else { continue };
                let entry = into
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(target) = entry {
                    for (name, schema) in props {
                        target.entry(name).or_insert(schema);
                    }
                }
            }
            "required" => {
                let Value::Array(req) = v else { continue };
                let entry = into
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(target) = entry {
                    for r in req {
                        if !target.contains(&r) {
                            target.push(r);
                        }
                    }
                }
            }
            "type" => match into.get("type") {
                None => {
                    into.insert(k, v);
                }
                Some(t) if *t == v => {}
                Some(t) => {
                    let compatible = matches!(
                        (t.as_str(), v.as_str()),
                        (Some("integer"), Some("number")) | (Some("number"), Some("integer"))
                    );
                    if compatible {
                        into.insert(k, Value::String("integer".into()));
                    } else if conflict.is_none() {
                        *conflict = Some(format!("type {t} and type {v}"));
                    }
                }
            },
            "nullable" => {
                // Every part must allow null for the whole to.
                if into.get("nullable") != Some(&Value::Bool(true)) || v != Value::Bool(true) {
                    into.insert(k, Value::Bool(false));
                }
            }
            _ => {
                into.entry(k).or_insert(v);
            }
        }
    }
}

pub(super) fn scalar_overlap(a: &Shape, b: &Shape) -> bool {
    use Kind::*;
    matches!(
        (&a.kind, &b.kind),
        (String, String)
            | (Integer, Integer)
            | (Number, Number)
            | (Integer, Number)
            | (Number, Integer)
            | (Boolean, Boolean)
    )
}

/// Scalar alternatives of the same kind (and integer beside number) merged into one, keeping
/// only the constraints they share.
fn merge_scalars(flat: Vec<Shape>) -> Vec<Shape> {
    let mut out: Vec<Shape> = Vec::new();
    for mut a in flat {
        a.nullable = false;
        let same = out.iter().position(|b| scalar_overlap(b, &a));
        match same {
            Some(i) => {
                let b = &mut out[i];
                if a.kind == Kind::Number {
                    b.kind = Kind::Number;
                }
                if b.enum_values.is_empty() || a.enum_values.is_empty() {
                    b.enum_values.clear();
                } else {
                    for v in a.enum_values {
                        if !b.enum_values.contains(&v) {
                            b.enum_values.push(v);
                        }
                    }
                }
                b.format = if b.format == a.format { b.format } else { None };
                b.pattern = if b.pattern == a.pattern {
                    b.pattern.take()
                } else {
                    None
                };
                b.min_length = None;
                b.max_length = None;
                b.minimum = None;
                b.maximum = None;
                b.default = None;
            }
            None => out.push(a),
        }
    }
    out
}
