//! OpenAPI schemas → pack shapes.
//!
//! A pack field has exactly one shape (`type`, `ref` or `one_of`) and a few constraints; an
//! OpenAPI schema may combine `$ref`, `allOf`, `oneOf`/`anyOf`, type lists and `nullable`.
//! This module resolves the combinations into what a pack can state, and records an
//! [`Issue`] wherever it had to give something up (never silently).
//!
//! Component schemas that are objects (or alternatives) become named `types`, which keeps
//! a big document's pack readable; the pack compiler inlines them again, so the model sees the
//! same schema. A schema that reaches itself becomes a named type in any case: that is the only
//! way a pack states recursion.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Number, Value};

use super::NoteKind;
use super::doc;
use super::model::{Issue, Kind, Prop, Shape, Stats, TypeDef};
use super::names;
use super::text;

const MAX_DEPTH: usize = 128;

/// Schema keywords that say what a value is (as opposed to annotating it).
const DEFINING: &[&str] = &[
    "type",
    "properties",
    "items",
    "additionalProperties",
    "enum",
    "const",
    "$ref",
    "allOf",
    "oneOf",
    "anyOf",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
];

/// Converts schemas of one document, sharing named types across every operation.
pub(crate) struct Conv<'d> {
    root: &'d Value,
    pub types: Vec<TypeDef>,
    by_ptr: HashMap<String, usize>,
    type_names: HashSet<String>,
    cache: HashMap<String, (Shape, Vec<Issue>)>,
    stack: Vec<String>,
    /// Issues of the shape being converted; the caller drains them.
    pub issues: Vec<Issue>,
    pub stats: Stats,
    field_max: usize,
}

impl<'d> Conv<'d> {
    pub(crate) fn new(root: &'d Value, field_max: usize) -> Self {
        Conv {
            root,
            types: Vec::new(),
            by_ptr: HashMap::new(),
            type_names: HashSet::new(),
            cache: HashMap::new(),
            stack: Vec::new(),
            issues: Vec::new(),
            stats: Stats::default(),
            field_max,
        }
    }

    fn issue(&mut self, kind: NoteKind, message: impl Into<String>) {
        self.issues.push(Issue {
            kind,
            message: message.into(),
        });
    }

    /// A description cleaned and cut to the field limit.
    pub(crate) fn describe(&mut self, raw: &str) -> Option<String> {
        let cleaned = text::full_stop(text::clean(raw));
        if cleaned.is_empty() {
            return None;
        }
        let short = text::shorten(&cleaned, self.field_max);
        if short.len() < cleaned.len() {
            self.stats.shortened_descriptions += 1;
        }
        Some(short)
    }

    /// The shape of schema `s`, found at pointer `ptr`.
    pub(crate) fn shape(&mut self, s: &Value, ptr: &str) -> Shape {
        let obj = match s {
            Value::Object(obj) => obj,
            Value::Bool(true) => return Shape::any(),
            other => {
                self.issue(
                    NoteKind::Unrepresentable,
                    format!(
                        "the schema at {ptr} is {}; accepted as any value",
                        doc::kind(other)
                    ),
                );
                return Shape::any();
            }
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            return self.reference(r, obj, ptr);
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            return self.all_of(obj, parts, ptr);
        }
        self.plain(obj, ptr)
    }

    /// A named type's shape, following aliases; `None` while it is being converted.
    pub(crate) fn type_shape(&self, name: &str) -> Option<&Shape> {
        self.types
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.shape.as_ref())
    }

    /// `shape` with a reference replaced by the referenced type's shape (for request bodies,
    /// whose top-level properties become parameters).
    pub(crate) fn expand(&self, shape: Shape) -> Shape {
        let mut cur = shape;
        for _ in 0..16 {
            let Kind::Ref(name) = &cur.kind else {
                return cur;
            };
            let Some(t) = self.type_shape(name) else {
                return cur;
            };
            let mut next = t.clone();
            if cur.description.is_some() {
                next.description = cur.description.clone();
            }
            next.nullable |= cur.nullable;
            cur = next;
        }
        cur
    }

    fn new_type(&mut self, ptr: &str) -> usize {
        let last = ptr
            .rsplit('/')
            .next()
            .unwrap_or("Type")
            .replace("~1", "/")
            .replace("~0", "~");
        let base = names::type_name(&last);
        let mut name = base.clone();
        let mut n = 2;
        while self.type_names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.type_names.insert(name.clone());
        self.types.push(TypeDef {
            name,
            shape: None,
            issues: Vec::new(),
        });
        let i = self.types.len() - 1;
        self.by_ptr.insert(ptr.to_owned(), i);
        i
    }

    fn reference(&mut self, r: &str, site: &Map<String, Value>, ptr: &str) -> Shape {
        let target = match doc::lookup(self.root, r, &format!("{ptr}/$ref")) {
            Ok(t) => t,
            Err(e) => {
                self.issue(
                    NoteKind::Unrepresentable,
                    format!("{e}; accepted as any value"),
                );
                return Shape::any();
            }
        };
        let tptr = r.trim_start_matches('#').to_owned();
        let mut shape = if let Some(&i) = self.by_ptr.get(&tptr) {
            Shape::new(Kind::Ref(self.types[i].name.clone()))
        } else if self.stack.contains(&tptr) {
            let i = self.new_type(&tptr);
            Shape::new(Kind::Ref(self.types[i].name.clone()))
        } else if let Some((shape, issues)) = self.cache.get(&tptr) {
            let (shape, issues) = (shape.clone(), issues.clone());
            self.issues.extend(issues);
            shape
        } else if self.stack.len() >= MAX_DEPTH {
            self.issue(
                NoteKind::Unrepresentable,
                format!(
                    "references nest deeper than {MAX_DEPTH} levels at {ptr}; accepted as any value"
                ),
            );
            Shape::any()
        } else {
            self.stack.push(tptr.clone());
            let saved = std::mem::take(&mut self.issues);
            let inner = self.shape(target, &tptr);
            let issues = std::mem::replace(&mut self.issues, saved);
            self.stack.pop();
            if let Some(&i) = self.by_ptr.get(&tptr) {
                // It referred to itself while being converted: a recursive type.
                self.types[i].shape = Some(inner);
                self.types[i].issues = issues;
                Shape::new(Kind::Ref(self.types[i].name.clone()))
            } else if nameable(&tptr, &inner) {
                let i = self.new_type(&tptr);
                self.types[i].shape = Some(inner);
                self.types[i].issues = issues;
                Shape::new(Kind::Ref(self.types[i].name.clone()))
            } else {
                self.issues.extend(issues.iter().cloned());
                self.cache.insert(tptr, (inner.clone(), issues));
                inner
            }
        };
        // OpenAPI 3.1 lets a reference carry its own description (3.0 documents do it too).
        if let Some(d) = site.get("description").and_then(Value::as_str)
            && let Some(d) = self.describe(d)
        {
            shape.description = Some(d);
        }
        if site.get("nullable") == Some(&Value::Bool(true)) {
            shape.nullable = true;
        }
        shape
    }

    fn all_of(&mut self, obj: &Map<String, Value>, parts: &[Value], ptr: &str) -> Shape {
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
    fn merge_parts(
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

    fn plain(&mut self, obj: &Map<String, Value>, ptr: &str) -> Shape {
        let mut nullable = obj.get("nullable") == Some(&Value::Bool(true));
        let mut types: Vec<&str> = match obj.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if let Some(i) = types.iter().position(|t| *t == "null") {
            types.remove(i);
            nullable = true;
            if types.is_empty() {
                types.push("any");
            }
        }
        let alternatives = match (obj.get("oneOf"), obj.get("anyOf")) {
            (Some(Value::Array(a)), _) => Some(("oneOf", a)),
            (_, Some(Value::Array(a))) => Some(("anyOf", a)),
            _ => None,
        };
        let mut shape = if let Some((key, alts)) = alternatives {
            self.alternatives(obj, key, alts, ptr)
        } else if types.len() > 1 {
            let alts: Vec<Shape> = types.iter().map(|t| self.typed(obj, t, ptr)).collect();
            self.one_of(alts, ptr)
        } else {
            let t = types.first().copied().unwrap_or_else(|| infer(obj));
            self.typed(obj, t, ptr)
        };
        shape.nullable |= nullable;
        if shape.description.is_none()
            && let Some(d) = obj.get("description").and_then(Value::as_str)
        {
            shape.description = self.describe(d);
        }
        // Vendors often describe the first alternative rather than the field.
        if shape.description.is_none()
            && let Kind::OneOf(alts) = &mut shape.kind
            && let Some(a) = alts.iter_mut().find(|a| a.description.is_some())
        {
            shape.description = a.description.take();
        }
        if obj.get("deprecated") == Some(&Value::Bool(true)) {
            let d = shape.description.take().unwrap_or_default();
            shape.description = Some(format!("Deprecated. {d}").trim_end().to_owned());
        }
        shape
    }

    fn typed(&mut self, obj: &Map<String, Value>, t: &str, ptr: &str) -> Shape {
        let mut shape = match t {
            "string" => {
                let mut s = Shape::new(Kind::String);
                s.min_length = obj.get("minLength").and_then(Value::as_u64);
                s.max_length = obj.get("maxLength").and_then(Value::as_u64);
                if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
                    if regex_lite::Regex::new(p).is_ok() {
                        s.pattern = Some(p.to_owned());
                    } else {
                        self.issue(
                            NoteKind::ConstraintDropped,
                            format!("`pattern` `{p}` at {ptr} uses syntax the validator does not support; dropped"),
                        );
                    }
                }
                if let Some(f) = obj.get("format").and_then(Value::as_str) {
                    s.format = format(f);
                    if s.format.is_none() {
                        self.stats.dropped_formats += 1;
                    }
                }
                if let (Some(lo), Some(hi)) = (s.min_length, s.max_length)
                    && lo > hi
                {
                    s.min_length = None;
                    s.max_length = None;
                }
                s
            }
            "integer" | "number" => self.numeric(obj, t == "integer", ptr),
            "boolean" => Shape::new(Kind::Boolean),
            "object" => self.object(obj, ptr),
            "array" => {
                let items = match obj.get("items") {
                    Some(items) => self.shape(items, &format!("{ptr}/items")),
                    None => Shape::any(),
                };
                let mut s = Shape::new(Kind::Array(Box::new(items)));
                s.min_items = obj.get("minItems").and_then(Value::as_u64);
                s.max_items = obj.get("maxItems").and_then(Value::as_u64);
                if let (Some(lo), Some(hi)) = (s.min_items, s.max_items)
                    && lo > hi
                {
                    s.min_items = None;
                    s.max_items = None;
                }
                s
            }
            "any" => Shape::any(),
            other => {
                self.issue(
                    NoteKind::Unrepresentable,
                    format!("unknown type `{other}` at {ptr}; accepted as any value"),
                );
                Shape::any()
            }
        };
        self.enum_and_default(obj, &mut shape);
        shape
    }

    fn numeric(&mut self, obj: &Map<String, Value>, integer: bool, ptr: &str) -> Shape {
        let mut s = Shape::new(if integer { Kind::Integer } else { Kind::Number });
        let num = |k: &str| obj.get(k).and_then(Value::as_f64);
        let mut lo = num("minimum");
        let mut hi = num("maximum");
        // 3.0: `exclusiveMinimum: true` beside `minimum`; 3.1: the bound itself.
        match obj.get("exclusiveMinimum") {
            Some(Value::Bool(true)) if integer => lo = lo.map(|x| x.floor() + 1.0),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(0.0);
                lo = Some(if integer { x.floor() + 1.0 } else { x });
            }
            _ => {}
        }
        match obj.get("exclusiveMaximum") {
            Some(Value::Bool(true)) if integer => hi = hi.map(|x| x.ceil() - 1.0),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(0.0);
                hi = Some(if integer { x.ceil() - 1.0 } else { x });
            }
            _ => {}
        }
        if integer {
            lo = lo.map(f64::ceil);
            hi = hi.map(f64::floor);
        }
        if let (Some(a), Some(b)) = (lo, hi)
            && a > b
        {
            self.issue(
                NoteKind::ConstraintDropped,
                format!("`minimum` {a} is above `maximum` {b} at {ptr}; both dropped"),
            );
            lo = None;
            hi = None;
        }
        s.minimum = lo.and_then(|x| number(x, integer));
        s.maximum = hi.and_then(|x| number(x, integer));
        if obj.get("format").is_some() {
            // int32, int64, float, double, unix-time...: the JSON type already says it.
            self.stats.dropped_formats += 1;
        }
        s
    }

    fn object(&mut self, obj: &Map<String, Value>, ptr: &str) -> Shape {
        let required: HashSet<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut props = Vec::new();
        let mut taken = HashSet::new();
        if let Some(Value::Object(map)) = obj.get("properties") {
            for (name, ps) in map {
                if self.read_only(ps) {
                    self.stats.read_only_dropped += 1;
                    continue;
                }
                let at = format!("{ptr}/properties/{}", names::pointer_token(name));
                if name.trim().is_empty() {
                    // A pack cannot declare a field without a name on the wire.
                    self.issue(
                        NoteKind::Unrepresentable,
                        format!("a property without a name at {at} left out"),
                    );
                    continue;
                }
                let shape = self.shape(ps, &at);
                let mut pname = names::property(name);
                if taken.contains(&pname) {
                    pname = names::unique(&pname, "field", &taken);
                }
                taken.insert(pname.clone());
                let wire = (pname != *name).then(|| name.clone());
                props.push(Prop {
                    name: pname,
                    wire,
                    required: required.contains(name.as_str()),
                    shape,
                });
            }
        }
        let additional = obj.get("additionalProperties");
        if props.is_empty() {
            let values = match additional {
                Some(Value::Object(schema)) if !schema.is_empty() => {
                    let v = self.shape(
                        &Value::Object(schema.clone()),
                        &format!("{ptr}/additionalProperties"),
                    );
                    (v.kind != Kind::Any || v.nullable).then(|| Box::new(v))
                }
                _ => None,
            };
            return Shape::new(Kind::Map(values));
        }
        match additional {
            Some(Value::Bool(true)) => self.stats.additional_properties_dropped += 1,
            Some(Value::Object(o)) if !o.is_empty() => {
                self.stats.additional_properties_dropped += 1
            }
            _ => {}
        }
        Shape::new(Kind::Object(props))
    }

    /// Whether a property is `readOnly` (sent by the server only), following a reference.
    fn read_only(&self, s: &Value) -> bool {
        if s.get("readOnly") == Some(&Value::Bool(true)) {
            return true;
        }
        s.get("$ref").is_some()
            && doc::deref(self.root, s, "")
                .is_ok_and(|(t, _)| t.get("readOnly") == Some(&Value::Bool(true)))
    }

    fn alternatives(
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
        // Scalars of the same kind, and integer beside number.
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
        // Arrays: one array whose items are the alternatives.
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
        let mut s = if out.len() == 1 {
            out.pop().unwrap_or_else(Shape::any)
        } else {
            Shape::new(Kind::OneOf(out))
        };
        s.nullable |= nullable;
        s
    }

    /// Whether every object alternative has a required field that no other declares (or
    /// declares with a disjoint enum), so at most one of them can match.
    fn discriminated(&self, objects: &[Shape]) -> bool {
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

    fn merge_objects(&self, objects: Vec<Shape>) -> Shape {
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

    fn enum_and_default(&mut self, obj: &Map<String, Value>, s: &mut Shape) {
        let mut values: Vec<Value> = match (obj.get("enum"), obj.get("const")) {
            (Some(Value::Array(v)), _) => v.clone(),
            (_, Some(c)) => vec![c.clone()],
            _ => Vec::new(),
        };
        if values.iter().any(Value::is_null) {
            s.nullable = true;
            values.retain(|v| !v.is_null());
        }
        if !values.is_empty() {
            if matches!(s.kind, Kind::String | Kind::Integer | Kind::Number) {
                let mut kept: Vec<Value> = Vec::new();
                for v in values {
                    let v = coerce(&s.kind, v);
                    if fits(&s.kind, &v) && !kept.iter().any(|k| same(k, &v)) {
                        kept.push(v);
                    }
                }
                if kept.is_empty() {
                    self.stats.dropped_enums += 1;
                }
                s.enum_values = kept;
            } else {
                self.stats.dropped_enums += 1;
            }
        }
        if let Some(d) = obj.get("default") {
            let d = coerce(&s.kind, d.clone());
            let ok = !d.is_null()
                && match &s.kind {
                    Kind::Object(_) | Kind::Map(_) => d.is_object(),
                    Kind::Array(_) => d.is_array(),
                    Kind::Boolean => d.is_boolean(),
                    Kind::Any => true,
                    Kind::Ref(_) | Kind::OneOf(_) => false,
                    k => fits(k, &d),
                }
                && (s.enum_values.is_empty() || s.enum_values.iter().any(|v| same(v, &d)))
                && d.as_f64().is_none_or(|x| {
                    s.minimum
                        .as_ref()
                        .and_then(Number::as_f64)
                        .is_none_or(|m| x >= m)
                        && s.maximum
                            .as_ref()
                            .and_then(Number::as_f64)
                            .is_none_or(|m| x <= m)
                });
            if ok {
                s.default = Some(d);
            } else {
                self.stats.dropped_defaults += 1;
            }
        }
    }
}

/// Whether a converted shape deserves a name of its own in `types`.
fn nameable(ptr: &str, shape: &Shape) -> bool {
    let direct = ptr
        .strip_prefix("/components/schemas/")
        .is_some_and(|rest| !rest.contains('/'));
    direct
        && (matches!(&shape.kind, Kind::Object(p) if !p.is_empty())
            || matches!(shape.kind, Kind::OneOf(_)))
}

fn defines(obj: &Map<String, Value>) -> bool {
    obj.keys().any(|k| DEFINING.contains(&k.as_str()))
}

fn is_null_schema(v: &Value) -> bool {
    match v.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().all(|t| t == "null"),
        _ => v
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_null)),
    }
}

fn scalar_overlap(a: &Shape, b: &Shape) -> bool {
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

/// The JSON type a schema without `type` implies.
fn infer(obj: &Map<String, Value>) -> &'static str {
    if obj.contains_key("properties") || obj.contains_key("additionalProperties") {
        return "object";
    }
    if obj.contains_key("items") {
        return "array";
    }
    let sample = obj
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.iter().find(|v| !v.is_null()))
        .or_else(|| obj.get("const"));
    if let Some(v) = sample {
        return match v {
            Value::String(_) => "string",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Array(_) => "array",
            _ => "any",
        };
    }
    if ["format", "pattern", "minLength", "maxLength"]
        .iter()
        .any(|k| obj.contains_key(*k))
    {
        return "string";
    }
    if obj.contains_key("minimum") || obj.contains_key("maximum") {
        return "number";
    }
    "any"
}

fn merge_into(
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

/// The supported `format`s, with the spellings vendors use for them.
fn format(f: &str) -> Option<&'static str> {
    match f {
        "date-time" | "google-datetime" => Some("date-time"),
        "date" => Some("date"),
        "email" => Some("email"),
        "uri" | "url" => Some("uri"),
        "uuid" => Some("uuid"),
        _ => None,
    }
}

fn number(x: f64, integer: bool) -> Option<Number> {
    if !x.is_finite() {
        return None;
    }
    if integer || (x.fract() == 0.0 && x.abs() < 9.0e15) {
        if x.abs() >= 9.0e18 {
            return None;
        }
        return Some(Number::from(x as i64));
    }
    Number::from_f64(x)
}

/// Vendors write `"10"` for an integer default or `"true"` for a boolean one.
fn coerce(kind: &Kind, v: Value) -> Value {
    let Value::String(s) = &v else { return v };
    match kind {
        Kind::Integer => s.parse::<i64>().map(Value::from).unwrap_or(v),
        Kind::Number => s
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .unwrap_or(v),
        Kind::Boolean => match s.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => v,
        },
        _ => v,
    }
}

fn fits(kind: &Kind, v: &Value) -> bool {
    match (kind, v) {
        (Kind::String, Value::String(_)) => true,
        (Kind::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Kind::Number, Value::Number(_)) => true,
        _ => false,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
