//! Parameter schemas (docs/design.md §3): one compact JSON Schema text per view, its size, the exact
//! saving of dropping each argument path, and where each top-level property sits in the text.
//!
//! The text is what goes on the wire: `{"type":"object","properties":{...},"required":[...],
//! "additionalProperties":false}`, no `$schema`, no titles, `additionalProperties: false` on
//! every object (a `map` uses `additionalProperties: <value schema>`), every property
//! described, subschemas inlined; `$defs`/`$ref` only for recursive types. The form is portable
//! (docs/design.md §3): a nullable field is `"anyOf":[{..},{"type":"null"}]`, never a `type`
//! array, and the root has no combinator (its groups are a sentence in its `description`).

use serde_json::{Map, Value};

use crate::mode::ViewSpec;
use crate::model::{FieldModel, Node, NodeKind, NumModel, StrModel, Ty, TypeModel};

mod groups;
use groups::object_groups;
pub use groups::tool_view_schema;

/// `json_tokens` of JSON text: its character count divided by 4 (docs/design.md §3; the rule is
/// `charter_terms::tokens`).
pub use charter_terms::tokens::text_tokens as tokens;

/// What dropping one argument path saves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathCost {
    /// Dotted path from the root.
    pub path: String,
    /// Levels deep (1 for a top-level property).
    pub depth: u8,
    /// `tokens(full) - tokens(without this path)`.
    pub saves: u32,
}

/// Byte ranges of one top-level property in the schema text (`start..end`).
///
/// Each range removes one property and leaves valid JSON. The comma it takes is the following
/// one for the first property and the preceding one otherwise, so neighbouring ranges share a
/// comma: to drop several properties at once, trim that comma off each range and rejoin what is
/// kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropSpan {
    /// The property name.
    pub name: String,
    /// `"name":{...}` with one adjacent comma.
    pub property: (u32, u32),
    /// The `"name"` entry of `required` with one adjacent comma, or the whole
    /// `,"required":[...]` member when it is the only entry.
    pub required: Option<(u32, u32)>,
}

/// One view's schema and what is precomputed about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewSchema {
    /// Compact JSON text.
    pub text: String,
    /// `tokens(text)`.
    pub tokens: u32,
    /// Every selectable path, most expensive first.
    pub paths: Vec<PathCost>,
    /// Top-level property spans, in schema order.
    pub spans: Vec<PropSpan>,
}

/// Emits one view of a parameter list, optionally without the property at `omit`.
struct Emitter<'a> {
    types: &'a [TypeModel],
    view: &'a ViewSpec,
    omit: Option<&'a [String]>,
    /// The property path of the object being emitted; `None` where paths do not apply
    /// (inside `$defs`, `oneOf` alternatives and map values).
    path: Option<Vec<String>>,
    /// Recursive types referenced so far, by index.
    defs: Vec<usize>,
    /// For every tracked property path: how many characters dropping it removes (its
    /// `"name":{...}`, one comma, its `required` entry) and whether its text holds a `$ref`
    /// (then dropping it may also drop a `$defs` entry, so the cost is measured by emitting).
    removals: Vec<(Vec<String>, usize, bool)>,
}

impl Emitter<'_> {
    fn visible<'f>(
        &self,
        fields: &'f [FieldModel],
    ) -> impl Iterator<Item = &'f FieldModel> + use<'f, '_> {
        fields
            .iter()
            .filter(|f| self.view.shows(&f.modes, f.from_context.is_some()))
    }

    fn omitted(&self, name: &str) -> bool {
        match (&self.path, self.omit) {
            (Some(path), Some(omit)) => {
                omit.len() == path.len() + 1
                    && omit[..path.len()] == path[..]
                    && omit[path.len()] == name
            }
            _ => false,
        }
    }

    /// Runs `f` with paths switched off (for parts no path can address).
    fn untracked<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.path.take();
        let out = f(self);
        self.path = saved;
        out
    }

    fn fields(&mut self, fields: &[FieldModel]) -> (Map<String, Value>, Vec<String>) {
        let mut props = Map::new();
        let mut required = Vec::new();
        let shown: Vec<&FieldModel> = self.visible(fields).collect();
        for f in shown {
            if self.omitted(&f.name) {
                continue;
            }
            if let Some(path) = &mut self.path {
                path.push(f.name.clone());
            }
            let schema = self.ty(&f.ty);
            if let Some(path) = &mut self.path {
                path.pop();
            }
            props.insert(f.name.clone(), schema);
            if f.required {
                required.push(f.name.clone());
            }
        }
        if let Some(path) = &self.path {
            // What dropping each property removes from the compact text: `"name":<schema>`, one
            // comma when it has siblings, and its `required` entry (`"name"` and a comma, or
            // the whole `,"required":["name"]` member when it is the only one).
            let n = props.len();
            for (name, schema) in &props {
                let key = json(name).chars().count();
                let text = json(schema);
                let mut removed = key + 1 + text.chars().count() + usize::from(n > 1);
                if required.contains(name) {
                    removed += if required.len() > 1 {
                        key + 1
                    } else {
                        key + 14
                    };
                }
                let mut at = path.clone();
                at.push(name.clone());
                self.removals.push((at, removed, text.contains("\"$ref\"")));
            }
        }
        (props, required)
    }

    fn ty(&mut self, ty: &Ty) -> Value {
        match ty {
            Ty::Inline(node) => self.node(node, node.description.as_deref(), false),
            Ty::Ref {
                index,
                nullable,
                description,
            } => {
                let t = &self.types[*index];
                let description = description.as_deref().or(t.node.description.as_deref());
                if !t.recursive {
                    let types = self.types;
                    return self.node(&types[*index].node, description, *nullable);
                }
                if !self.defs.contains(index) {
                    self.defs.push(*index);
                }
                let reference = Value::String(format!("#/$defs/{}", t.name));
                let mut m = Map::new();
                if *nullable && !t.node.nullable {
                    if let Some(d) = description {
                        m.insert("description".into(), d.into());
                    }
                    let mut r = Map::new();
                    r.insert("$ref".into(), reference);
                    let mut null = Map::new();
                    null.insert("type".into(), "null".into());
                    m.insert(
                        "anyOf".into(),
                        Value::Array(vec![Value::Object(r), Value::Object(null)]),
                    );
                } else {
                    m.insert("$ref".into(), reference);
                    if let Some(d) = description {
                        m.insert("description".into(), d.into());
                    }
                }
                Value::Object(m)
            }
        }
    }

    fn node(&mut self, node: &Node, description: Option<&str>, nullable: bool) -> Value {
        let nullable = nullable || node.nullable;
        // The portable form of a nullable value (docs/design.md §3): `anyOf` of the value and
        // `null`, never a `type` array, which single-type dialects refuse. The description and
        // the default stay outside, on the value as a whole. `any` already takes `null`; a
        // `one_of` lists `null` as one more alternative.
        if nullable && !matches!(node.kind, NodeKind::Any | NodeKind::OneOf(_)) {
            let value = self.value(node, None, false, None);
            let mut m = Map::new();
            describe(&mut m, description);
            m.insert(
                "anyOf".into(),
                Value::Array(vec![value, serde_json::json!({"type": "null"})]),
            );
            if let Some(d) = &node.default {
                m.insert("default".into(), d.clone());
            }
            return Value::Object(m);
        }
        self.value(node, description, nullable, node.default.as_ref())
    }

    /// A node's own schema: `nullable` only for kinds that carry `null` themselves (`one_of`).
    fn value(
        &mut self,
        node: &Node,
        description: Option<&str>,
        nullable: bool,
        default: Option<&Value>,
    ) -> Value {
        let mut m = Map::new();
        match &node.kind {
            NodeKind::Any => describe(&mut m, description),
            NodeKind::Bool => {
                typed(&mut m, "boolean");
                describe(&mut m, description);
            }
            NodeKind::Integer(n) | NodeKind::Number(n) => {
                let integer = matches!(node.kind, NodeKind::Integer(_));
                number(&mut m, n, integer, description, default);
            }
            NodeKind::String(s) => string(&mut m, s, description, default),
            NodeKind::Array {
                items,
                min_items,
                max_items,
            } => {
                typed(&mut m, "array");
                describe(&mut m, description);
                // Array items are not separate paths: an object inside keeps the array's path.
                let items = self.ty(items);
                m.insert("items".into(), items);
                if let Some(v) = min_items {
                    m.insert("minItems".into(), (*v).into());
                }
                if let Some(v) = max_items {
                    m.insert("maxItems".into(), (*v).into());
                }
            }
            NodeKind::Object(fields, groups) => {
                typed(&mut m, "object");
                describe(&mut m, description);
                let (props, required) = self.fields(fields);
                m.insert("properties".into(), Value::Object(props));
                if !required.is_empty() {
                    m.insert("required".into(), required.into());
                }
                object_groups(&mut m, groups);
                m.insert("additionalProperties".into(), false.into());
            }
            NodeKind::Map(values) => {
                typed(&mut m, "object");
                describe(&mut m, description);
                let v = self.untracked(|e| e.ty(values));
                // A value schema with nothing in it accepts anything.
                let v = if v.as_object().is_some_and(Map::is_empty) {
                    Value::Bool(true)
                } else {
                    v
                };
                m.insert("additionalProperties".into(), v);
            }
            NodeKind::OneOf(alts) => {
                describe(&mut m, description);
                let mut list: Vec<Value> =
                    self.untracked(|e| alts.iter().map(|a| e.ty(a)).collect());
                if nullable {
                    list.push(serde_json::json!({"type": "null"}));
                }
                m.insert("oneOf".into(), Value::Array(list));
            }
        }
        if !m.contains_key("default")
            && let Some(d) = default
            && !matches!(
                node.kind,
                NodeKind::Integer(_) | NodeKind::Number(_) | NodeKind::String(_)
            )
        {
            m.insert("default".into(), d.clone());
        }
        Value::Object(m)
    }

    /// The `$defs` of every recursive type reached, in declaration order; defs may reach more.
    fn defs(&mut self) -> Vec<(String, Value)> {
        let mut done: Vec<(usize, Value)> = Vec::new();
        let mut i = 0;
        while i < self.defs.len() {
            let index = self.defs[i];
            let types = self.types;
            let t = &types[index];
            let v = self.untracked(|e| e.node(&t.node, t.node.description.as_deref(), false));
            done.push((index, v));
            i += 1;
        }
        done.sort_by_key(|(i, _)| *i);
        done.into_iter()
            .map(|(i, v)| (self.types[i].name.clone(), v))
            .collect()
    }
}

fn json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The root schema text of a parameter list in one view, with its top-level spans.
fn root(
    types: &[TypeModel],
    params: &[FieldModel],
    view: &ViewSpec,
    description: Option<&str>,
    omit: Option<&[String]>,
) -> Emitted {
    let mut e = Emitter {
        types,
        view,
        omit,
        path: Some(Vec::new()),
        defs: Vec::new(),
        removals: Vec::new(),
    };
    let (props, required) = e.fields(params);
    let removals = std::mem::take(&mut e.removals);
    let defs = e.defs();

    let mut text = String::from(r#"{"type":"object","#);
    if let Some(d) = description {
        text.push_str(r#""description":"#);
        text.push_str(&json(&d));
        text.push(',');
    }
    text.push_str(r#""properties":{"#);
    let mut prop_ranges: Vec<(String, usize, usize)> = Vec::new();
    for (i, (name, schema)) in props.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let start = text.len();
        text.push_str(&json(name));
        text.push(':');
        text.push_str(&json(schema));
        prop_ranges.push((name.clone(), start, text.len()));
    }
    text.push('}');
    let mut req_ranges: Vec<(String, usize, usize)> = Vec::new();
    let mut req_member = (0, 0);
    if !required.is_empty() {
        let member_start = text.len();
        text.push_str(r#","required":["#);
        for (i, name) in required.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            let start = text.len();
            text.push_str(&json(name));
            req_ranges.push((name.clone(), start, text.len()));
        }
        text.push(']');
        req_member = (member_start, text.len());
    }
    text.push_str(r#","additionalProperties":false"#);
    if !defs.is_empty() {
        text.push_str(r#","$defs":{"#);
        for (i, (name, schema)) in defs.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&json(name));
            text.push(':');
            text.push_str(&json(schema));
        }
        text.push('}');
    }
    text.push('}');

    // One adjacent comma: the following one for the first entry, the preceding one otherwise.
    let with_comma = |i: usize, n: usize, start: usize, end: usize| -> (u32, u32) {
        if n == 1 {
            (u32_of(start), u32_of(end))
        } else if i == 0 {
            (u32_of(start), u32_of(end + 1))
        } else {
            (u32_of(start - 1), u32_of(end))
        }
    };
    let n = prop_ranges.len();
    let spans = prop_ranges
        .iter()
        .enumerate()
        .map(|(i, (name, start, end))| {
            let required = req_ranges.iter().position(|(r, _, _)| r == name).map(|j| {
                let (_, rs, re) = &req_ranges[j];
                if req_ranges.len() == 1 {
                    (u32_of(req_member.0), u32_of(req_member.1))
                } else {
                    with_comma(j, req_ranges.len(), *rs, *re)
                }
            });
            PropSpan {
                name: name.clone(),
                property: with_comma(i, n, *start, *end),
                required,
            }
        })
        .collect();
    Emitted {
        text,
        spans,
        removals,
    }
}

/// One emitted view: its text, top-level spans, and what dropping each tracked path removes.
struct Emitted {
    text: String,
    spans: Vec<PropSpan>,
    removals: Vec<(Vec<String>, usize, bool)>,
}

/// The fields of the object a shape holds, for descending paths: through inline objects,
/// array items and non-recursive references (recursive ones are `$defs`, shared by every use).
fn object_fields<'a>(types: &'a [TypeModel], ty: &'a Ty) -> Option<&'a [FieldModel]> {
    let node = match ty {
        Ty::Inline(node) => node,
        Ty::Ref { index, .. } => {
            let t = &types[*index];
            if t.recursive {
                return None;
            }
            &t.node
        }
    };
    match &node.kind {
        NodeKind::Object(fields, _) => Some(fields),
        NodeKind::Array { items, .. } => object_fields(types, items),
        _ => None,
    }
}

fn collect_paths(
    types: &[TypeModel],
    view: &ViewSpec,
    fields: &[FieldModel],
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    for f in fields
        .iter()
        .filter(|f| view.shows(&f.modes, f.from_context.is_some()))
    {
        prefix.push(f.name.clone());
        out.push(prefix.clone());
        if let Some(inner) = object_fields(types, &f.ty) {
            collect_paths(types, view, inner, prefix, out);
        }
        prefix.pop();
    }
}

/// The schema of one view of a parameter list, its size, paths by cost and spans; the root
/// carries `description` when given (a tool's groups, see [`tool_view_schema`]).
///
/// A path's saving is measured on the text it removes (exactly what emitting the schema
/// without it would produce); a property whose schema holds a `$ref` is re-emitted instead,
/// since dropping it may also drop a `$defs` entry.
pub fn view_schema(
    types: &[TypeModel],
    params: &[FieldModel],
    view: &ViewSpec,
    description: Option<&str>,
) -> ViewSchema {
    let Emitted {
        text,
        spans,
        removals,
    } = root(types, params, view, description, None);
    let full = tokens(&text);
    let chars = text.chars().count();
    let mut all = Vec::new();
    collect_paths(types, view, params, &mut Vec::new(), &mut all);
    let mut paths: Vec<PathCost> = all
        .into_iter()
        .map(|p| {
            let removal = removals.iter().find(|(at, _, _)| *at == p);
            let without = match removal {
                Some((_, removed, false)) => {
                    charter_terms::tokens::chars_tokens(chars.saturating_sub(*removed)) as usize
                }
                _ => tokens(&root(types, params, view, description, Some(&p)).text) as usize,
            };
            PathCost {
                depth: u8::try_from(p.len()).unwrap_or(u8::MAX),
                path: p.join("."),
                saves: full.saturating_sub(u32::try_from(without).unwrap_or(u32::MAX)),
            }
        })
        .collect();
    // Stable: ties keep declaration order.
    paths.sort_by_key(|p| std::cmp::Reverse(p.saves));
    ViewSchema {
        tokens: full,
        text,
        paths,
        spans,
    }
}

/// The schema text of a view without the property at `path` (what [`PathCost::saves`] measures).
pub fn schema_without(
    types: &[TypeModel],
    params: &[FieldModel],
    view: &ViewSpec,
    description: Option<&str>,
    path: &[String],
) -> String {
    root(types, params, view, description, Some(path)).text
}

/// `"type": t`: one type, always (a nullable value is an `anyOf` with `null`, see
/// `Emitter::node`).
fn typed(m: &mut Map<String, Value>, t: &str) {
    m.insert("type".into(), Value::from(t));
}

fn describe(m: &mut Map<String, Value>, description: Option<&str>) {
    if let Some(d) = description {
        m.insert("description".into(), d.into());
    }
}

fn enumerate(m: &mut Map<String, Value>, values: Vec<Value>) {
    if !values.is_empty() {
        m.insert("enum".into(), Value::Array(values));
    }
}

/// An integer or number: type, description, enum, default, bounds.
fn number(
    m: &mut Map<String, Value>,
    n: &NumModel,
    integer: bool,
    description: Option<&str>,
    default: Option<&Value>,
) {
    typed(m, if integer { "integer" } else { "number" });
    describe(m, description);
    enumerate(
        m,
        n.enum_values.iter().cloned().map(Value::Number).collect(),
    );
    if let Some(d) = default {
        m.insert("default".into(), d.clone());
    }
    if let Some(v) = &n.minimum {
        m.insert("minimum".into(), Value::Number(v.clone()));
    }
    if let Some(v) = &n.maximum {
        m.insert("maximum".into(), Value::Number(v.clone()));
    }
}

/// A string: type, description, enum, default, format, pattern, lengths.
fn string(
    m: &mut Map<String, Value>,
    s: &StrModel,
    description: Option<&str>,
    default: Option<&Value>,
) {
    typed(m, "string");
    describe(m, description);
    enumerate(
        m,
        s.enum_values.iter().cloned().map(Value::String).collect(),
    );
    if let Some(d) = default {
        m.insert("default".into(), d.clone());
    }
    if let Some(f) = s.format {
        m.insert("format".into(), f.as_str().into());
    }
    if let Some(p) = &s.pattern {
        m.insert("pattern".into(), p.clone().into());
    }
    if let Some(v) = s.min_length {
        m.insert("minLength".into(), v.into());
    }
    if let Some(v) = s.max_length {
        m.insert("maxLength".into(), v.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PackModel;

    fn pack(tools: &str) -> PackModel {
        let yaml = format!(
            "pack: t\ndescription: Test.\nbase_url: https://t.example\ntypes:\n  Node:\n    type: object\n    description: A tree node.\n    properties:\n      name: {{ type: string, description: The name., required: true }}\n      children: {{ type: array, description: Subtrees., items: {{ ref: Node }} }}\n  Point:\n    type: object\n    description: A point.\n    properties:\n      x: {{ type: number, description: X., required: true }}\n      y: {{ type: number, description: Y., required: true }}\ntools:\n{tools}"
        );
        crate::load_str("t.yaml", &yaml).unwrap_or_else(|d| panic!("{d:#?}"))
    }

    fn default_view(m: &PackModel, i: usize) -> ViewSchema {
        view_schema(&m.types, &m.tools[i].params, &m.tools[i].views[0], None)
    }

    const TOOL: &str = "  a_b:\n    description: D.\n    method: POST\n    path: /a\n    params:\n";

    #[test]
    fn compact_text_exactly() {
        let m = pack(&format!(
            "{TOOL}      q: {{ in: query, type: string, enum: [x, y], default: x, description: Q. }}\n      n: {{ in: body, type: integer, minimum: 1, maximum: 9, required: true, description: N. }}\n"
        ));
        let v = default_view(&m, 0);
        assert_eq!(
            v.text,
            r#"{"type":"object","properties":{"q":{"type":"string","description":"Q.","enum":["x","y"],"default":"x"},"n":{"type":"integer","description":"N.","minimum":1,"maximum":9}},"required":["n"],"additionalProperties":false}"#
        );
        assert_eq!(v.tokens as usize, v.text.chars().count() / 4);
    }

    #[test]
    fn no_parameters() {
        let m = pack("  a_b:\n    description: D.\n    method: GET\n    path: /a\n");
        let v = default_view(&m, 0);
        assert_eq!(
            v.text,
            r#"{"type":"object","properties":{},"additionalProperties":false}"#
        );
        assert!(v.paths.is_empty() && v.spans.is_empty());
    }

    #[test]
    fn nullable_map_and_one_of() {
        let m = pack(&format!(
            "{TOOL}      s: {{ in: body, type: string, nullable: true, enum: [a], description: S. }}\n      m: {{ in: body, type: map, values: {{ type: integer }}, description: M. }}\n      f: {{ in: body, type: map, description: Free. }}\n      o: {{ in: body, nullable: true, one_of: [{{ type: string }}, {{ ref: Point }}], description: O. }}\n"
        ));
        let v: Value = serde_json::from_str(&default_view(&m, 0).text).unwrap();
        let p = &v["properties"];
        assert_eq!(
            p["s"],
            serde_json::json!({"description": "S.", "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]})
        );
        assert_eq!(
            p["m"],
            serde_json::json!({"type": "object", "description": "M.", "additionalProperties": {"type": "integer"}})
        );
        assert_eq!(p["f"]["additionalProperties"], true);
        assert_eq!(p["o"]["oneOf"][0], serde_json::json!({"type": "string"}));
        assert_eq!(
            p["o"]["oneOf"][1]["properties"]["x"]["type"], "number",
            "non-recursive refs are inlined"
        );
        assert_eq!(p["o"]["oneOf"][1]["additionalProperties"], false);
        assert_eq!(p["o"]["oneOf"][2], serde_json::json!({"type": "null"}));
        assert!(v.get("$defs").is_none(), "no $defs without recursion");
    }

    #[test]
    fn refs_inline_unless_recursive() {
        let m = pack(&format!(
            "{TOOL}      at: {{ in: body, ref: Point, description: Where. }}\n      tree: {{ in: body, ref: Node, nullable: true, description: The tree. }}\n      other: {{ in: body, ref: Node }}\n"
        ));
        let v: Value = serde_json::from_str(&default_view(&m, 0).text).unwrap();
        let p = &v["properties"];
        assert_eq!(
            p["at"]["description"], "Where.",
            "the use site's description wins"
        );
        assert_eq!(p["at"]["required"], serde_json::json!(["x", "y"]));
        assert_eq!(p["tree"]["anyOf"][0]["$ref"], "#/$defs/Node");
        assert_eq!(p["tree"]["anyOf"][1]["type"], "null");
        assert_eq!(
            p["other"],
            serde_json::json!({"$ref": "#/$defs/Node", "description": "A tree node."})
        );
        assert_eq!(
            v["$defs"]["Node"]["properties"]["children"]["items"]["$ref"],
            "#/$defs/Node"
        );
        assert_eq!(v["$defs"].as_object().unwrap().len(), 1);
    }

    /// Splices `(a, b)` out of `text`.
    fn splice(text: &str, (a, b): (u32, u32)) -> String {
        format!("{}{}", &text[..a as usize], &text[b as usize..])
    }

    #[test]
    fn every_span_splices_to_the_schema_without_that_property() {
        // 1, 2 and 3 properties; 0, 1, 2 and 3 of them required, in every position.
        let shapes = [
            "      a: { in: body, type: string, required: true, description: A. }\n",
            "      a: { in: body, type: string, description: A. }\n      b: { in: body, type: string, required: true, description: B. }\n",
            "      a: { in: body, type: string, required: true, description: A. }\n      b: { in: body, type: string, required: true, description: B. }\n",
            "      a: { in: body, type: string, required: true, description: A. }\n      b: { in: body, type: string, description: B. }\n      c: { in: body, type: string, required: true, description: C. }\n",
            "      a: { in: body, type: string, required: true, description: A. }\n      b: { in: body, type: integer, required: true, description: B. }\n      c: { in: body, type: boolean, required: true, description: C. }\n",
            "      a: { in: body, type: string, description: A. }\n      b: { in: body, type: string, description: B. }\n      c: { in: body, type: string, description: C. }\n",
        ];
        let mut spliced = 0;
        for params in shapes {
            let m = pack(&format!("{TOOL}{params}"));
            let tool = &m.tools[0];
            let view = &tool.views[0];
            let full = view_schema(&m.types, &tool.params, view, None);
            assert_eq!(full.spans.len(), tool.params.len());
            for span in &full.spans {
                let removed = (span.property.1 - span.property.0) as usize
                    + span.required.map_or(0, |(a, b)| (b - a) as usize);
                // The required range comes after the property range: cut it first.
                let text = match span.required {
                    Some(r) => splice(&full.text, r),
                    None => full.text.clone(),
                };
                let text = splice(&text, span.property);
                assert_eq!(
                    text.len(),
                    full.text.len() - removed,
                    "the spans do not overlap"
                );
                serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
                let expected = schema_without(
                    &m.types,
                    &tool.params,
                    view,
                    None,
                    std::slice::from_ref(&span.name),
                );
                assert_eq!(
                    text, expected,
                    "splicing `{}` = emitting without it",
                    span.name
                );
                let cost = full.paths.iter().find(|p| p.path == span.name).unwrap();
                assert_eq!(cost.saves, full.tokens - tokens(&text));
                spliced += 1;
            }
        }
        assert_eq!(spliced, 14);
    }

    #[test]
    fn nested_paths_save_exactly_what_dropping_them_saves() {
        let m = pack(&format!(
            "{TOOL}      filter:\n        in: body\n        type: object\n        description: F.\n        properties:\n          state: {{ type: string, enum: [open, closed, all], description: The state to match., required: true }}\n          range: {{ ref: Point, description: Where. }}\n          tags:\n            type: array\n            description: Tags.\n            items:\n              type: object\n              properties:\n                name: {{ type: string, description: The tag name. }}\n      tree: {{ in: body, ref: Node, description: A tree. }}\n"
        ));
        let tool = &m.tools[0];
        let view = &tool.views[0];
        let full = view_schema(&m.types, &tool.params, view, None);
        let paths: Vec<&str> = full.paths.iter().map(|p| p.path.as_str()).collect();
        for expected in [
            "filter",
            "filter.state",
            "filter.range",
            "filter.range.x",
            "filter.range.y",
            "filter.tags",
            "filter.tags.name",
            "tree",
        ] {
            assert!(paths.contains(&expected), "{expected} in {paths:?}");
        }
        assert!(
            !paths.iter().any(|p| p.starts_with("tree.")),
            "recursive types are not descended"
        );
        for p in &full.paths {
            let segments: Vec<String> = p.path.split('.').map(str::to_owned).collect();
            assert_eq!(p.depth as usize, segments.len());
            let without = schema_without(&m.types, &tool.params, view, None, &segments);
            let parsed: Value = serde_json::from_str(&without).unwrap();
            assert_eq!(p.saves, full.tokens - tokens(&without), "{}", p.path);
            assert!(without.len() < full.text.len(), "{}", p.path);
            if p.path == "filter.state" {
                assert!(
                    parsed["properties"]["filter"].get("required").is_none(),
                    "its required entry goes too"
                );
            }
        }
        assert!(full.paths.windows(2).all(|w| w[0].saves >= w[1].saves));
        assert_eq!(full.paths[0].path, "filter");
    }

    #[test]
    fn tokens_count_characters() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("abcd"), 1);
        assert_eq!(tokens("\"ééé\""), 1);
    }
}
