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

mod combine;

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
