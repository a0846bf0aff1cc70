//! Schemas → result shapes: `$ref`s followed, `allOf` merged, `oneOf`/`anyOf` as `one_of`,
//! null folded into `nullable`, recursion and depth cut with `any` (docs/openapi-import.md,
//! "Result shapes").

use serde_json::{Map, Value};

use super::super::ImportError;
use super::super::doc;
use super::super::names::pointer_token;

/// What a value may be, in the pack's field syntax.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    Any,
    String,
    Integer,
    Number,
    Boolean,
    /// Properties in document order (never empty: an object without any is a map).
    Object(Vec<(String, Shape)>),
    Array(Box<Shape>),
    /// Free keys, with the shape of every value when known.
    Map(Option<Box<Shape>>),
    /// Two to `max_alternatives` alternatives, none of them `any` or a choice itself.
    OneOf(Vec<Shape>),
}

/// A result shape.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub kind: Kind,
    /// `null` is also an answer (written only where `lenient` does not cover it).
    pub nullable: bool,
    /// Why the shape was cut (to its outline or to `any`), when it was: for the counts, never
    /// written.
    pub cut: Option<Cut>,
}

/// Shapes are equal when they answer the same: why an `any` is one does not matter.
impl PartialEq for Shape {
    fn eq(&self, other: &Shape) -> bool {
        self.kind == other.kind && self.nullable == other.nullable
    }
}

/// Why a shape was cut to its outline (what kind of value it is, without what it holds) or,
/// when not even that is known, to `any`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// A `$ref` already being expanded.
    Recursion,
    /// An object deeper than the depth limit.
    Depth,
    /// A choice of too many alternatives, or of one that is any value.
    Choice,
    /// A member left out to fit the size budget.
    Size,
}

impl Shape {
    pub(crate) fn new(kind: Kind) -> Shape {
        Shape {
            kind,
            nullable: false,
            cut: None,
        }
    }

    pub(crate) fn any() -> Shape {
        Shape::new(Kind::Any)
    }

    /// `any`, cut for `why`.
    pub(crate) fn cut(why: Cut) -> Shape {
        Shape {
            cut: Some(why),
            ..Shape::any()
        }
    }

    /// The free object: what a cut object (or map) still says, for `why`.
    pub(crate) fn free_object(why: Cut) -> Shape {
        Shape {
            cut: Some(why),
            ..Shape::new(Kind::Map(None))
        }
    }

    /// What kind of value this is, without what it holds: objects and maps become free
    /// objects, lists keep their items' outline, alternatives theirs (`any` when they no longer
    /// differ enough to be a choice). A cut answer still says "an object" or "a string or an
    /// object" where `any` would say nothing, and takes a sixth of the schema text.
    pub(crate) fn outline(&self, why: Cut) -> Shape {
        let kind = match &self.kind {
            Kind::Object(_) | Kind::Map(_) => Kind::Map(None),
            Kind::Array(items) => Kind::Array(Box::new(items.outline(why))),
            Kind::OneOf(alts) => {
                let mut unique: Vec<Shape> = Vec::new();
                for a in alts.iter().map(|a| a.outline(why)) {
                    if !unique.contains(&a) {
                        unique.push(a);
                    }
                }
                match unique.len() {
                    1 => unique.remove(0).kind,
                    _ if unique.iter().any(Shape::is_any) => Kind::Any,
                    _ => Kind::OneOf(unique),
                }
            }
            k => k.clone(),
        };
        Shape {
            kind,
            nullable: self.nullable,
            cut: Some(why),
        }
    }

    fn is_any(&self) -> bool {
        self.kind == Kind::Any
    }

    /// How many shapes this one is made of (itself included).
    pub(crate) fn nodes(&self) -> usize {
        1 + match &self.kind {
            Kind::Object(props) => props.iter().map(|(_, s)| s.nodes()).sum(),
            Kind::Array(items) => items.nodes(),
            Kind::Map(Some(values)) => values.nodes(),
            Kind::OneOf(alts) => alts.iter().map(Shape::nodes).sum(),
            _ => 0,
        }
    }
}

/// What was cut in the shapes written, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cuts {
    pub recursion: usize,
    pub depth: usize,
    pub one_of: usize,
    pub size: usize,
}

impl Cuts {
    /// Adds the cuts `shape` holds.
    pub(crate) fn count(&mut self, shape: &Shape) {
        match shape.cut {
            Some(Cut::Recursion) => self.recursion += 1,
            Some(Cut::Depth) => self.depth += 1,
            Some(Cut::Choice) => self.one_of += 1,
            Some(Cut::Size) => self.size += 1,
            None => {}
        }
        match &shape.kind {
            Kind::Object(props) => props.iter().for_each(|(_, s)| self.count(s)),
            Kind::Array(items) => self.count(items),
            Kind::Map(Some(values)) => self.count(values),
            Kind::OneOf(alts) => alts.iter().for_each(|s| self.count(s)),
            _ => {}
        }
    }
}

/// The keys that give a schema a shape; an alternative with none of them but `required` or
/// `not` (`{required: [a]}`) is a constraint, not a shape.
const STRUCTURAL: &[&str] = &[
    "$ref",
    "type",
    "properties",
    "items",
    "additionalProperties",
    "allOf",
    "oneOf",
    "anyOf",
    "enum",
    "const",
];

/// The most schemas one answer's conversion reads (hostile documents: 40 schemas of 40
/// properties each referring to the next would otherwise be 40^5 of them); the largest
/// shipped answer reads about 30,000 (Stripe's checkout session). Past it, what is left is `any`.
const MAX_VISITS: usize = 1_000_000;

/// The longest chain of `$ref`s expanded inside one another (a chain through list items
/// passes no object level): past it, `any`.
const MAX_REFS: usize = 64;

/// Converts the schemas of one document.
pub(crate) struct Converter<'d> {
    root: &'d Value,
    max_depth: usize,
    max_alternatives: usize,
    /// The `$ref`s being expanded, outermost first.
    stack: Vec<&'d str>,
    /// Schemas read for the current answer.
    visits: usize,
}

impl<'d> Converter<'d> {
    pub(crate) fn new(root: &'d Value, max_depth: usize, max_alternatives: usize) -> Self {
        Converter {
            root,
            max_depth,
            max_alternatives,
            stack: Vec::new(),
            visits: 0,
        }
    }

    /// The shape of one answer's schema (`at` its pointer).
    pub(crate) fn answer(&mut self, v: &'d Value, at: &str) -> Result<Shape, ImportError> {
        self.visits = 0;
        self.stack.clear();
        self.convert(v, at, 0)
    }

    /// The shape of the schema `v` written at pointer `at`, `depth` object levels below the
    /// answer's root.
    fn convert(&mut self, v: &'d Value, at: &str, depth: usize) -> Result<Shape, ImportError> {
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return Ok(Shape::cut(Cut::Size));
        }
        let Value::Object(map) = v else {
            // `true`, `false` (3.1) or something that is no schema: nothing is known.
            return Ok(Shape::any());
        };
        if let Some(r) = map.get("$ref") {
            let Some(r) = r.as_str() else {
                return Err(ImportError::Invalid {
                    pointer: format!("{at}/$ref"),
                    message: format!("`$ref` must be a string, found {}", doc::kind(r)),
                });
            };
            let target = doc::lookup(self.root, r, &format!("{at}/$ref"))?;
            let why = if self.stack.contains(&r) {
                Some(Cut::Recursion)
            } else if self.stack.len() >= MAX_REFS {
                Some(Cut::Depth)
            } else {
                None
            };
            if let Some(why) = why {
                return Ok(match is_object(target) {
                    true => Shape::free_object(why),
                    false => Shape::cut(why),
                });
            }
            self.stack.push(r);
            let out = self.convert(target, r.trim_start_matches('#'), depth);
            self.stack.pop();
            return out;
        }
        let mut nullable = map.get("nullable") == Some(&Value::Bool(true))
            || map.get("x-nullable") == Some(&Value::Bool(true));
        let mut shape = self.own(map, at, depth, &mut nullable)?;
        if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
            for (i, part) in parts.iter().enumerate() {
                let part = self.convert(part, &format!("{at}/allOf/{i}"), depth)?;
                shape = merge(shape, part);
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(alts) = map.get(key).and_then(Value::as_array) {
                shape = self.choice(shape, alts, &format!("{at}/{key}"), depth)?;
            }
        }
        // Merging choices (`allOf` of two `oneOf`s) may have made too many alternatives.
        if let Kind::OneOf(alts) = &shape.kind
            && alts.len() > self.max_alternatives
        {
            shape = Shape::cut(Cut::Choice);
        }
        shape.nullable |= nullable;
        Ok(shape)
    }

    /// The shape the schema's own keys give (`type`, `properties`, `items`...): `any` when
    /// they give none, which merging with `allOf` parts and alternatives then refines.
    fn own(
        &mut self,
        map: &'d Map<String, Value>,
        at: &str,
        depth: usize,
        nullable: &mut bool,
    ) -> Result<Shape, ImportError> {
        let mut types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.contains(&"null") {
            *nullable = true;
            types.retain(|t| *t != "null");
        }
        let mut alts = Vec::new();
        if types.is_empty() && map.get("type").is_none() {
            types = inferred(map, nullable);
            // `items` without `type` constrains only a list, and says what one value is where
            // the API answers one: Slack's `objs_conversation` is `{items: {anyOf: [...]}}` and a
            // channel list holds conversations, objects, not lists. So the items' own shape.
            if let Some(items @ Value::Object(_)) = map.get("items")
                && types == ["array"]
            {
                types.clear();
                alts.push(self.convert(items, &format!("{at}/items"), depth)?);
            }
        }
        for t in types {
            let s = self.typed(t, map, at, depth)?;
            if !alts.contains(&s) {
                alts.push(s);
            }
        }
        Ok(self.simplify(alts))
    }

    fn typed(
        &mut self,
        t: &str,
        map: &'d Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<Shape, ImportError> {
        Ok(Shape::new(match t {
            "string" => Kind::String,
            "integer" => Kind::Integer,
            "number" => Kind::Number,
            "boolean" => Kind::Boolean,
            "array" => match map.get("items") {
                Some(items) => Kind::Array(Box::new(self.convert(
                    items,
                    &format!("{at}/items"),
                    depth,
                )?)),
                None => Kind::Array(Box::new(Shape::any())),
            },
            "object" => return self.object(map, at, depth),
            _ => Kind::Any,
        }))
    }

    fn object(
        &mut self,
        map: &'d Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<Shape, ImportError> {
        if depth > self.max_depth {
            return Ok(Shape::free_object(Cut::Depth));
        }
        let mut props = Vec::new();
        if let Some(Value::Object(declared)) = map.get("properties") {
            for (name, schema) in declared {
                let at = format!("{at}/properties/{}", pointer_token(name));
                props.push((name.clone(), self.convert(schema, &at, depth + 1)?));
            }
        }
        if !props.is_empty() {
            return Ok(Shape::new(Kind::Object(props)));
        }
        let values = match map.get("additionalProperties") {
            Some(extra @ Value::Object(_)) => {
                let at = format!("{at}/additionalProperties");
                Some(self.convert(extra, &at, depth + 1)?)
            }
            _ => None,
        };
        Ok(Shape::new(map_of(values)))
    }

    /// `oneOf`/`anyOf` beside the schema's own shape `base`.
    fn choice(
        &mut self,
        base: Shape,
        alts: &'d [Value],
        at: &str,
        depth: usize,
    ) -> Result<Shape, ImportError> {
        let mut base = base;
        let mut nullable = std::mem::take(&mut base.nullable);
        let mut shapes = Vec::new();
        let mut structural = false;
        for (i, alt) in alts.iter().enumerate() {
            let (resolved, _) = doc::deref(self.root, alt, &format!("{at}/{i}"))?;
            if is_null(resolved) {
                nullable = true;
                continue;
            }
            // `{required: [a]}` constrains the base; `{}` (or a description alone) is any value.
            let constraint = resolved.as_object().is_some_and(|m| {
                !STRUCTURAL.iter().any(|k| m.contains_key(*k))
                    && (m.contains_key("required") || m.contains_key("not"))
            });
            if constraint {
                continue;
            }
            structural = true;
            let mut s = self.convert(alt, &format!("{at}/{i}"), depth)?;
            nullable |= s.nullable;
            s.nullable = false;
            let s = if base.is_any() {
                s
            } else {
                merge(base.clone(), s)
            };
            match s.kind {
                Kind::OneOf(inner) => shapes.extend(inner),
                _ => shapes.push(s),
            }
        }
        if !structural {
            // Only constraints (`required` sets) or `null`: the base is the shape.
            base.nullable = nullable;
            return Ok(base);
        }
        let mut unique: Vec<Shape> = Vec::new();
        for s in shapes {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        let mut out = self.simplify(unique);
        out.nullable |= nullable;
        Ok(out)
    }

    /// One shape from alternatives: `any` for none, one that is `any`, or too many.
    fn simplify(&self, mut alts: Vec<Shape>) -> Shape {
        match alts.len() {
            0 => Shape::any(),
            1 => alts.remove(0),
            n if n > self.max_alternatives || alts.iter().any(Shape::is_any) => {
                Shape::cut(Cut::Choice)
            }
            _ => Shape::new(Kind::OneOf(alts)),
        }
    }
}

/// `map`, without `values` when they may be anything.
fn map_of(values: Option<Shape>) -> Kind {
    match values {
        Some(v) if !v.is_any() || v.nullable => Kind::Map(Some(Box::new(v))),
        _ => Kind::Map(None),
    }
}

/// The type a schema without `type` has, from its other keys.
fn inferred(map: &Map<String, Value>, nullable: &mut bool) -> Vec<&'static str> {
    if map.contains_key("properties") || map.contains_key("additionalProperties") {
        return vec!["object"];
    }
    if map.contains_key("items") {
        return vec!["array"];
    }
    let values: Vec<&Value> = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(list)), _) => list.iter().collect(),
        (_, Some(c)) => vec![c],
        _ => Vec::new(),
    };
    if !values.is_empty() {
        let mut types = Vec::new();
        for v in values {
            let t = match v {
                Value::Null => {
                    *nullable = true;
                    continue;
                }
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_f64() => "number",
                Value::Number(_) => "integer",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            if !types.contains(&t) {
                types.push(t);
            }
        }
        if types.contains(&"integer") && types.contains(&"number") {
            types.retain(|t| *t != "integer");
        }
        return types;
    }
    if ["format", "pattern", "minLength", "maxLength"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return vec!["string"];
    }
    if ["minimum", "maximum", "multipleOf"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return vec!["number"];
    }
    Vec::new()
}

/// A schema that says it is an object (by its `type` or its properties), without following it.
fn is_object(v: &Value) -> bool {
    match v.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(_) => false,
        None => v.get("properties").is_some() || v.get("additionalProperties").is_some(),
    }
}

/// A schema that only allows `null`.
fn is_null(v: &Value) -> bool {
    match v.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(list)) => !list.is_empty() && list.iter().all(|t| t == "null"),
        _ => {
            matches!(v.get("enum"), Some(Value::Array(list)) if !list.is_empty() && list.iter().all(Value::is_null))
        }
    }
}

/// Both shapes at once (`allOf`): objects' properties united (the same property merged),
/// `any` taking the other's shape, integer beside number an integer; incompatible ones `any`.
pub(crate) fn merge(a: Shape, b: Shape) -> Shape {
    let nullable = a.nullable || b.nullable;
    let kind = match (a.kind, b.kind) {
        (Kind::Any, k) | (k, Kind::Any) => k,
        (Kind::Object(mut p), Kind::Object(q)) => {
            for (name, s) in q {
                match p.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, existing)) => {
                        let old = std::mem::replace(existing, Shape::any());
                        *existing = merge(old, s);
                    }
                    None => p.push((name, s)),
                }
            }
            Kind::Object(p)
        }
        (Kind::Object(p), Kind::Map(_)) | (Kind::Map(_), Kind::Object(p)) => Kind::Object(p),
        (Kind::Map(x), Kind::Map(y)) => match (x, y) {
            (Some(x), Some(y)) => map_of(Some(merge(*x, *y))),
            (Some(v), None) | (None, Some(v)) => Kind::Map(Some(v)),
            (None, None) => Kind::Map(None),
        },
        (Kind::Array(x), Kind::Array(y)) => Kind::Array(Box::new(merge(*x, *y))),
        (Kind::Integer, Kind::Number) | (Kind::Number, Kind::Integer) => Kind::Integer,
        (Kind::OneOf(alts), other) | (other, Kind::OneOf(alts)) => {
            // An alternative the other part contradicts (a string beside an object) cannot
            // be the answer: it goes. Alternatives are never `any`, so only a contradiction
            // merges into one.
            let other = Shape::new(other);
            let mut merged: Vec<Shape> = Vec::new();
            for alt in alts {
                let m = merge(alt, other.clone());
                let flat = match m.kind {
                    Kind::OneOf(inner) => inner,
                    Kind::Any => Vec::new(),
                    _ => vec![m],
                };
                for s in flat {
                    if !merged.contains(&s) {
                        merged.push(s);
                    }
                }
            }
            match merged.len() {
                0 => Kind::Any,
                1 => merged.remove(0).kind,
                _ => Kind::OneOf(merged),
            }
        }
        (x, y) if x == y => x,
        _ => Kind::Any,
    };
    Shape {
        kind,
        nullable,
        cut: None,
    }
}
