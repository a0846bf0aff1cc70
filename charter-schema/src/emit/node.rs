//! One value's schema, by shape. Members go in one order everywhere: `type`, `description`,
//! then the kind's own (`enum`, `default`, bounds; `items`; `properties`, `required`, groups,
//! `additionalProperties`), a default last where the kind has no place for it earlier.

use super::{Emit, Target, Track, object};
use crate::shape::{ArrayRules, Named, NumberRules, Shape, StringRules};

/// The members of one schema object being written: whether a comma goes before the next.
pub(crate) struct Members {
    first: bool,
}

impl Members {
    pub(crate) const fn open(e: &mut Emit<'_, '_>) -> Members {
        e.out.byte(b'{');
        Members { first: true }
    }

    /// `"name":` (a comma first unless it opens the object).
    pub(crate) const fn key(&mut self, e: &mut Emit<'_, '_>, name: &str) {
        if !self.first {
            e.out.byte(b',');
        }
        self.first = false;
        e.out.byte(b'"');
        e.out.raw(name);
        e.out.raw("\":");
    }

    /// `"name":<JSON text>`.
    pub(crate) const fn raw(&mut self, e: &mut Emit<'_, '_>, name: &str, json: &str) {
        self.key(e, name);
        e.out.raw(json);
    }

    /// `"description":"..."` when there is one (an empty description says nothing).
    pub(crate) const fn description(&mut self, e: &mut Emit<'_, '_>, d: Option<&str>) {
        if let Some(d) = d
            && !d.is_empty()
        {
            self.key(e, "description");
            e.out.string(d);
        }
    }

    pub(crate) const fn default(&mut self, e: &mut Emit<'_, '_>, d: Option<&str>) {
        if let Some(d) = d {
            self.raw(e, "default", d);
        }
    }

    pub(crate) const fn uint(&mut self, e: &mut Emit<'_, '_>, name: &str, v: Option<u32>) {
        if let Some(v) = v {
            self.key(e, name);
            e.out.uint(v as u64);
        }
    }

    pub(crate) const fn close(self, e: &mut Emit<'_, '_>) {
        e.out.byte(b'}');
    }
}

/// The first of two optional texts (a use site's description or default wins over its type's).
pub(crate) const fn or<'x>(a: Option<&'x str>, b: Option<&'x str>) -> Option<&'x str> {
    match a {
        Some(_) => a,
        None => b,
    }
}

/// The schema of `shape` with this description and default (a field's, or an enclosing
/// [`Shape::Doc`]'s), tracking argument paths through it when `track` says where it sits.
pub(crate) const fn node(
    e: &mut Emit<'_, '_>,
    shape: &Shape,
    desc: Option<&str>,
    default: Option<&str>,
    track: Option<Track>,
) {
    match shape {
        Shape::Doc(d) => node(
            e,
            d.shape,
            or(desc, d.description),
            or(default, d.default),
            track,
        ),
        Shape::Named(n) if n.recursive => reference(e, n, desc, false),
        Shape::Named(n) => node(e, n.shape, desc, default, track),
        Shape::Nullable(inner) => nullable(e, inner, desc, default, track),
        Shape::Any => {
            let mut m = Members::open(e);
            m.description(e, desc);
            m.default(e, default);
            m.close(e);
        }
        Shape::Bool => {
            let mut m = Members::open(e);
            m.raw(e, "type", "\"boolean\"");
            m.description(e, desc);
            m.default(e, default);
            m.close(e);
        }
        Shape::Integer(r) => number(e, "\"integer\"", r, desc, default),
        Shape::Number(r) => number(e, "\"number\"", r, desc, default),
        Shape::String(r) => string(e, r, desc, default),
        Shape::Array(r) => array(e, r, desc, default, track),
        Shape::Object(o) => {
            let mut m = Members::open(e);
            m.raw(e, "type", "\"object\"");
            m.description(e, desc);
            object::body(e, &mut m, o, track);
            m.default(e, default);
            m.close(e);
        }
        Shape::Map(values) => {
            let mut m = Members::open(e);
            m.raw(e, "type", "\"object\"");
            m.description(e, desc);
            m.key(e, "additionalProperties");
            // A value schema that says nothing accepts anything: `true`, the one boolean schema
            // every dialect takes (as `additionalProperties`).
            if says_nothing(values) {
                e.out.raw("true");
            } else {
                node(e, values, None, None, None);
            }
            m.default(e, default);
            m.close(e);
        }
        Shape::OneOf(alts) => alternatives(e, "oneOf", alts, desc, default, false),
        Shape::AnyOf(alts) => alternatives(e, "anyOf", alts, desc, default, false),
    }
}

/// A value or `null`. The portable form (docs/design.md §3) never writes a `type` array:
/// `{"description":..,"anyOf":[{<the value>},{"type":"null"}],"default":..}`, the description
/// and default on the whole. Alternatives take `null` as one more alternative; `any` takes it
/// already; a recursive type is `anyOf` its `$ref` and `null`.
const fn nullable(
    e: &mut Emit<'_, '_>,
    inner: &Shape,
    desc: Option<&str>,
    default: Option<&str>,
    track: Option<Track>,
) {
    // What the value is, under the wrappers that only describe it.
    let (mut s, mut desc, mut default) = (inner, desc, default);
    loop {
        s = match s {
            Shape::Doc(d) => {
                desc = or(desc, d.description);
                default = or(default, d.default);
                d.shape
            }
            Shape::Named(n) if !n.recursive => n.shape,
            Shape::Nullable(x) => x,
            _ => break,
        };
    }
    match s {
        Shape::Any => node(e, s, desc, default, track),
        Shape::OneOf(alts) => alternatives(e, "oneOf", alts, desc, default, true),
        Shape::AnyOf(alts) => alternatives(e, "anyOf", alts, desc, default, true),
        Shape::Named(n) => reference(e, n, desc, true),
        _ => {
            let Target::Portable = e.target;
            let mut m = Members::open(e);
            m.description(e, desc);
            m.key(e, "anyOf");
            e.out.byte(b'[');
            node(e, s, None, None, track);
            e.out.raw(",{\"type\":\"null\"}]");
            m.default(e, default);
            m.close(e);
        }
    }
}

/// `oneOf` / `anyOf` of alternatives (paths do not go into them), `null` last when nullable.
const fn alternatives(
    e: &mut Emit<'_, '_>,
    key: &str,
    alts: &[Shape],
    desc: Option<&str>,
    default: Option<&str>,
    nullable: bool,
) {
    let mut m = Members::open(e);
    m.description(e, desc);
    m.key(e, key);
    e.out.byte(b'[');
    let mut i = 0;
    while i < alts.len() {
        if i > 0 {
            e.out.byte(b',');
        }
        node(e, &alts[i], None, None, None);
        i += 1;
    }
    if nullable {
        if !alts.is_empty() {
            e.out.byte(b',');
        }
        e.out.raw("{\"type\":\"null\"}");
    }
    e.out.byte(b']');
    m.default(e, default);
    m.close(e);
}

/// A recursive type's use: `{"$ref":"#/$defs/Name","description":..}`, or with `null`
/// `{"description":..,"anyOf":[{"$ref":..},{"type":"null"}]}`. The description is the use
/// site's, else the type's own.
const fn reference(e: &mut Emit<'_, '_>, n: &Named, desc: Option<&str>, nullable: bool) {
    object::mark_used(e, n);
    e.refs += 1;
    let desc = or(desc, own_description(n.shape));
    let mut m = Members::open(e);
    if nullable {
        m.description(e, desc);
        m.key(e, "anyOf");
        e.out.raw("[{\"$ref\":");
        defs_pointer(e, n.name);
        e.out.raw("},{\"type\":\"null\"}]");
    } else {
        m.key(e, "$ref");
        defs_pointer(e, n.name);
        m.description(e, desc);
    }
    m.close(e);
}

const fn defs_pointer(e: &mut Emit<'_, '_>, name: &str) {
    e.out.raw("\"#/$defs/");
    e.out.escaped(name);
    e.out.byte(b'"');
}

/// The description a shape carries itself (a named type's own, on its [`Shape::Doc`]).
pub(crate) const fn own_description(shape: &Shape) -> Option<&str> {
    match shape {
        Shape::Doc(d) => match d.description {
            Some(_) => d.description,
            None => own_description(d.shape),
        },
        _ => None,
    }
}

/// Whether a value schema would be `{}`: anything, described by nothing.
const fn says_nothing(shape: &Shape) -> bool {
    match shape {
        Shape::Any => true,
        Shape::Nullable(s) => says_nothing(s),
        Shape::Named(n) if !n.recursive => says_nothing(n.shape),
        Shape::Doc(d) => d.description.is_none() && d.default.is_none() && says_nothing(d.shape),
        _ => false,
    }
}

/// An integer or number: type, description, enum, default, bounds.
const fn number(
    e: &mut Emit<'_, '_>,
    ty: &str,
    r: &NumberRules,
    desc: Option<&str>,
    default: Option<&str>,
) {
    let mut m = Members::open(e);
    m.raw(e, "type", ty);
    m.description(e, desc);
    if !r.enum_values.is_empty() {
        m.key(e, "enum");
        e.out.byte(b'[');
        let mut i = 0;
        while i < r.enum_values.len() {
            if i > 0 {
                e.out.byte(b',');
            }
            e.out.raw(r.enum_values[i].text);
            i += 1;
        }
        e.out.byte(b']');
    }
    m.default(e, default);
    if let Some(n) = r.minimum {
        m.raw(e, "minimum", n.text);
    }
    if let Some(n) = r.maximum {
        m.raw(e, "maximum", n.text);
    }
    m.close(e);
}

/// A string: type, description, enum, default, format, pattern, lengths.
const fn string(e: &mut Emit<'_, '_>, r: &StringRules, desc: Option<&str>, default: Option<&str>) {
    let mut m = Members::open(e);
    m.raw(e, "type", "\"string\"");
    m.description(e, desc);
    if !r.enum_values.is_empty() {
        m.key(e, "enum");
        e.out.byte(b'[');
        let mut i = 0;
        while i < r.enum_values.len() {
            if i > 0 {
                e.out.byte(b',');
            }
            e.out.string(r.enum_values[i]);
            i += 1;
        }
        e.out.byte(b']');
    }
    m.default(e, default);
    if let Some(f) = r.format {
        m.key(e, "format");
        e.out.string(f.as_str());
    }
    if let Some(p) = r.pattern {
        m.key(e, "pattern");
        e.out.string(p);
    }
    m.uint(e, "minLength", r.min_length);
    m.uint(e, "maxLength", r.max_length);
    m.close(e);
}

/// A list: type, description, items (which keep the list's path: items are not a path of their
/// own), bounds, uniqueness.
const fn array(
    e: &mut Emit<'_, '_>,
    r: &ArrayRules,
    desc: Option<&str>,
    default: Option<&str>,
    track: Option<Track>,
) {
    let mut m = Members::open(e);
    m.raw(e, "type", "\"array\"");
    m.description(e, desc);
    m.key(e, "items");
    node(e, r.items, None, None, track);
    m.uint(e, "minItems", r.min_items);
    m.uint(e, "maxItems", r.max_items);
    if r.unique_items {
        m.raw(e, "uniqueItems", "true");
    }
    m.default(e, default);
    m.close(e);
}
