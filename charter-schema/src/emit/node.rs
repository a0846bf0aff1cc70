//! One value's schema, by shape. Members go in one order everywhere: `type`, `description`,
//! then the kind's own (`enum`, `default`, bounds; `items`; `properties`, `required`, groups,
//! `additionalProperties`), a default last where the kind has no place for it earlier.

use super::{Emit, Target, Track};

// An object's members are values, and a value may be an object: the two recurse, so objects
// live inside this module.
pub(crate) mod object;
use crate::shape::{ArrayRules, Format, Named, Num, NumberRules, Shape, StringRules};
use charter_terms::groups::{AT_LEAST_ONE, EXACTLY_ONE};

/// The members of one schema object being written: whether a comma goes before the next.
pub(crate) struct Members {
    first: bool,
}

impl Members {
    pub(crate) const fn open(e: &mut Emit<'_, '_>) -> Members {
        e.out.byte(b'{');
        if e.nullable_next {
            e.nullable_next = false;
            e.out.raw("\"nullable\":true");
            return Members { first: false };
        }
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
        self.described(e, d, Notes::NONE);
    }

    /// The description followed by what the dialect cannot say in schema keywords (`notes`),
    /// each a sentence of its own; nothing when both are empty.
    pub(crate) const fn described(&mut self, e: &mut Emit<'_, '_>, d: Option<&str>, n: Notes<'_>) {
        let d = match d {
            Some(d) if !d.is_empty() => Some(d),
            _ => None,
        };
        if d.is_none() && n.is_empty() {
            return;
        }
        self.key(e, "description");
        e.out.byte(b'"');
        let mut first = true;
        if let Some(d) = d {
            e.out.escaped(d);
            first = false;
        }
        if n.json_text {
            first = sep(e, first);
            e.out.raw("Any JSON value, written as JSON text.");
        }
        if let Some(f) = n.format {
            first = sep(e, first);
            e.out.raw("Format: ");
            e.out.escaped(f.as_str());
            e.out.byte(b'.');
        }
        if !n.numbers.is_empty() {
            first = sep(e, first);
            e.out.raw("One of: ");
            let mut i = 0;
            while i < n.numbers.len() {
                if i > 0 {
                    e.out.raw(", ");
                }
                e.out.escaped(n.numbers[i].text);
                i += 1;
            }
            e.out.byte(b'.');
        }
        first = bounds(e, first, n.bounds);
        let mut l = 0;
        while l < n.groups.len() {
            let (rule, list) = n.groups[l];
            l += 1;
            if list.is_empty() {
                continue;
            }
            first = sep(e, first);
            object::group_sentence(e, rule, list);
        }
        if let Some(v) = n.default {
            sep(e, first);
            e.out.raw("Default: ");
            e.out.escaped(v);
            e.out.byte(b'.');
        }
        e.out.byte(b'"');
    }

    /// `"default":<JSON>` where the dialect takes one (the strict dialects do not: there it is
    /// a note in the description, [`Notes::default`]).
    pub(crate) const fn default(&mut self, e: &mut Emit<'_, '_>, d: Option<&str>) {
        if let Some(d) = d
            && e.target.takes_default()
        {
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

/// The bounds a dialect has no keyword for, a sentence each (`Minimum: 1.`); returns whether
/// nothing has been written yet.
const fn bounds(e: &mut Emit<'_, '_>, mut first: bool, b: Bounds<'_>) -> bool {
    let texts = [("Minimum: ", b.minimum), ("Maximum: ", b.maximum)];
    let mut i = 0;
    while i < texts.len() {
        if let Some(v) = texts[i].1 {
            first = sep(e, first);
            e.out.raw(texts[i].0);
            e.out.escaped(v);
            e.out.byte(b'.');
        }
        i += 1;
    }
    if let Some(p) = b.pattern {
        first = sep(e, first);
        e.out.raw("Pattern: ");
        e.out.escaped(p);
        e.out.byte(b'.');
    }
    let counts = [
        ("Minimum items: ", b.min_items),
        ("Maximum items: ", b.max_items),
    ];
    let mut i = 0;
    while i < counts.len() {
        if let Some(n) = counts[i].1 {
            first = sep(e, first);
            e.out.raw(counts[i].0);
            e.out.uint(n as u64);
            e.out.byte(b'.');
        }
        i += 1;
    }
    first
}

/// A value's bounds told in its description (Anthropic's strict mode has no keyword for them):
/// the JSON texts of `minimum` and `maximum`, the `pattern`, and item counts.
#[derive(Clone, Copy)]
pub(crate) struct Bounds<'x> {
    pub(crate) minimum: Option<&'x str>,
    pub(crate) maximum: Option<&'x str>,
    pub(crate) pattern: Option<&'x str>,
    pub(crate) min_items: Option<u32>,
    pub(crate) max_items: Option<u32>,
}

impl Bounds<'_> {
    const NONE: Bounds<'static> = Bounds {
        minimum: None,
        maximum: None,
        pattern: None,
        min_items: None,
        max_items: None,
    };

    const fn is_empty(&self) -> bool {
        self.minimum.is_none()
            && self.maximum.is_none()
            && self.pattern.is_none()
            && self.min_items.is_none()
            && self.max_items.is_none()
    }
}

/// A space before every sentence of a description but the first; returns `false` (not first).
const fn sep(e: &mut Emit<'_, '_>, first: bool) -> bool {
    if !first {
        e.out.byte(b' ');
    }
    false
}

/// What a dialect tells in a description because it has no keyword for it (docs/dialects.md,
/// "Downgrades").
#[derive(Clone, Copy)]
pub(crate) struct Notes<'x> {
    /// A value of any type is given as JSON text.
    pub(crate) json_text: bool,
    /// A string format the dialect does not take.
    pub(crate) format: Option<Format>,
    /// A number's allowed values (Gemini's enums are strings only).
    pub(crate) numbers: &'x [Num],
    /// An object's groups, with the rule each is worded by.
    pub(crate) groups: &'x [(&'x str, &'x [&'x [&'x str]])],
    /// Bounds the dialect has no keyword for.
    pub(crate) bounds: Bounds<'x>,
    /// A default the dialect has no keyword for (JSON text).
    pub(crate) default: Option<&'x str>,
}

impl Notes<'_> {
    pub(crate) const NONE: Notes<'static> = Notes {
        json_text: false,
        format: None,
        numbers: &[],
        groups: &[],
        bounds: Bounds::NONE,
        default: None,
    };

    const fn is_empty(&self) -> bool {
        let mut groups = false;
        let mut l = 0;
        while l < self.groups.len() {
            groups = groups || !self.groups[l].1.is_empty();
            l += 1;
        }
        !self.json_text
            && self.format.is_none()
            && self.numbers.is_empty()
            && !groups
            && self.bounds.is_empty()
            && self.default.is_none()
    }
}

/// A default the dialect can only tell in the description (the strict dialects).
const fn default_note<'x>(e: &Emit<'_, '_>, default: Option<&'x str>) -> Option<&'x str> {
    if e.target.takes_default() {
        None
    } else {
        default
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
        Shape::Any if e.target.is_portable() => {
            let mut m = Members::open(e);
            m.description(e, desc);
            if let Target::Result = e.target {
                // An answer's "anything" is said outright, type by type: an untyped `{}` in an
                // outputSchema reads to clients as a forgotten schema (the Inspector flags it).
                m.raw(e, "anyOf", ANY_VALUE);
            }
            m.default(e, default);
            m.close(e);
        }
        Shape::Any => {
            // No dialect but the portable form takes a schema without a type: JSON text.
            let mut m = Members::open(e);
            m.raw(e, "type", "\"string\"");
            let notes = Notes {
                json_text: true,
                default,
                ..Notes::NONE
            };
            m.described(e, desc, notes);
            m.close(e);
        }
        Shape::Bool => {
            let mut m = Members::open(e);
            m.raw(e, "type", "\"boolean\"");
            m.described(e, desc, with_default(e, default));
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
            let mut notes = with_default(e, default);
            let groups = [
                (AT_LEAST_ONE, o.require_one_of),
                (EXACTLY_ONE, o.require_exactly_one_of),
            ];
            if !e.target.is_portable() {
                notes.groups = &groups;
            }
            m.described(e, desc, notes);
            object::body(e, &mut m, o, track);
            m.default(e, default);
            m.close(e);
        }
        Shape::Map(values) if e.target.is_portable() => {
            let mut m = Members::open(e);
            m.raw(e, "type", "\"object\"");
            m.description(e, desc);
            // A value schema that says nothing accepts anything: `true`, the one boolean schema
            // every dialect takes (as `additionalProperties`); an answer's objects are open
            // without it.
            match (says_nothing(values), e.target) {
                (true, Target::Result) => {}
                (true, _) => m.raw(e, "additionalProperties", "true"),
                (false, _) => {
                    m.key(e, "additionalProperties");
                    node(e, values, None, None, None);
                }
            }
            m.default(e, default);
            m.close(e);
        }
        Shape::Map(values) => entries(e, values, desc, default),
        Shape::OneOf(alts) => alternatives(e, "oneOf", alts, desc, default, false),
        Shape::AnyOf(alts) => alternatives(e, "anyOf", alts, desc, default, false),
    }
}

/// The notes of a value whose default the dialect may not take as a keyword.
const fn with_default<'x>(e: &Emit<'_, '_>, default: Option<&'x str>) -> Notes<'x> {
    Notes {
        default: default_note(e, default),
        ..Notes::NONE
    }
}

/// A map where the dialect has no open object (OpenAI's strict mode closes every object; Gemini
/// refuses an object without properties): a list of `{key, value}` entries, turned back into
/// an object before validation (`charter_runtime::Dialect::restore_args`). Its default, an
/// object, is told in the description.
const fn entries(e: &mut Emit<'_, '_>, values: &Shape, desc: Option<&str>, default: Option<&str>) {
    let mut m = Members::open(e);
    m.raw(e, "type", "\"array\"");
    let notes = Notes {
        default,
        ..Notes::NONE
    };
    m.described(e, desc, notes);
    m.key(e, "items");
    let mut item = Members::open(e);
    item.raw(e, "type", "\"object\"");
    item.key(e, "properties");
    e.out.raw("{\"key\":{\"type\":\"string\"},\"value\":");
    node(e, values, None, None, None);
    e.out.raw("},\"required\":[\"key\",\"value\"]");
    if e.target.closes_objects() {
        e.out.raw(",\"additionalProperties\":false");
    }
    item.close(e);
    m.close(e);
}

/// A value or `null`. The portable form (docs/design.md §3) never writes a `type` array:
/// `{"description":..,"anyOf":[{<the value>},{"type":"null"}],"default":..}`, the description
/// and default on the whole. Alternatives take `null` as one more alternative; `any` takes it
/// already; a recursive type is `anyOf` its `$ref` and `null`. Gemini marks the value itself
/// `"nullable":true` instead.
pub(crate) const fn nullable(
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
    if let Target::Gemini = e.target {
        e.nullable_next = true;
        match s {
            Shape::Named(n) => reference(e, n, desc, false),
            _ => node(e, s, desc, default, track),
        }
        return;
    }
    match s {
        Shape::Any if e.target.is_portable() => node(e, s, desc, default, track),
        Shape::OneOf(alts) => alternatives(e, "oneOf", alts, desc, default, true),
        Shape::AnyOf(alts) => alternatives(e, "anyOf", alts, desc, default, true),
        Shape::Named(n) => reference(e, n, desc, true),
        _ => {
            let mut m = Members::open(e);
            m.described(e, desc, with_default(e, default));
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
/// No dialect but the portable form takes `oneOf`: there it is `anyOf`, validation still
/// holding a call to exactly one.
const fn alternatives(
    e: &mut Emit<'_, '_>,
    key: &str,
    alts: &[Shape],
    desc: Option<&str>,
    default: Option<&str>,
    nullable: bool,
) {
    // An answer's alternatives overlap (its objects are open): at least one must fit.
    let key = if matches!(e.target, Target::Portable) {
        key
    } else {
        "anyOf"
    };
    let mut m = Members::open(e);
    m.described(e, desc, with_default(e, default));
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
/// site's, else the type's own. OpenAI's strict mode takes a `$ref` only alone in its object
/// (`openai-agents` inlines one with siblings): there a described use is
/// `{"description":..,"anyOf":[{"$ref":..}]}`. Gemini writes `ref` to `#/defs/Name`.
const fn reference(e: &mut Emit<'_, '_>, n: &Named, desc: Option<&str>, nullable: bool) {
    object::mark_used(e, n);
    e.refs += 1;
    let desc = or(desc, own_description(n.shape));
    let described = match desc {
        Some(d) => !d.is_empty(),
        None => false,
    };
    let mut m = Members::open(e);
    if nullable || (e.target.all_required() && described) {
        m.description(e, desc);
        m.key(e, "anyOf");
        e.out.raw("[{\"$ref\":");
        defs_pointer(e, n.name);
        e.out.byte(b'}');
        if nullable {
            e.out.raw(",{\"type\":\"null\"}");
        }
        e.out.byte(b']');
    } else {
        m.key(e, ref_key(e.target));
        defs_pointer(e, n.name);
        m.description(e, desc);
    }
    m.close(e);
}

/// `$ref`, or Gemini's `ref`.
const fn ref_key(target: Target) -> &'static str {
    match target {
        Target::Gemini => "ref",
        _ => "$ref",
    }
}

/// `$defs`, or Gemini's `defs`.
pub(crate) const fn defs_key(target: Target) -> &'static str {
    match target {
        Target::Gemini => "defs",
        _ => "$defs",
    }
}

const fn defs_pointer(e: &mut Emit<'_, '_>, name: &str) {
    e.out.raw("\"#/");
    e.out.raw(defs_key(e.target));
    e.out.byte(b'/');
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

/// Every JSON type, one branch each: what [`Target::Result`] writes for [`Shape::Any`].
const ANY_VALUE: &str = r#"[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"object"},{"type":"array"},{"type":"null"}]"#;

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

/// An integer or number: type, description, enum, default, bounds. Gemini's enums are strings
/// only: a number's values are told in its description. Anthropic's strict mode has no numeric
/// bounds (told in the description) and takes an `enum` without its `type`.
const fn number(
    e: &mut Emit<'_, '_>,
    ty: &str,
    r: &NumberRules,
    desc: Option<&str>,
    default: Option<&str>,
) {
    let mut m = Members::open(e);
    let enumerated = !r.enum_values.is_empty();
    if !(enumerated && untyped_enums(e.target)) {
        m.raw(e, "type", ty);
    }
    let mut notes = with_default(e, default);
    let gemini = matches!(e.target, Target::Gemini);
    if gemini {
        notes.numbers = r.enum_values;
    }
    let (minimum, maximum) = (num_text(r.minimum), num_text(r.maximum));
    if !e.target.takes_bounds() {
        notes.bounds.minimum = minimum;
        notes.bounds.maximum = maximum;
    }
    m.described(e, desc, notes);
    if enumerated && !gemini {
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
    if e.target.takes_bounds() {
        if let Some(n) = minimum {
            m.raw(e, "minimum", n);
        }
        if let Some(n) = maximum {
            m.raw(e, "maximum", n);
        }
    }
    m.close(e);
}

const fn num_text(n: Option<Num>) -> Option<&'static str> {
    match n {
        Some(n) => Some(n.text),
        None => None,
    }
}

/// Whether an `enum` goes without its `type` (Anthropic's strict mode: `transform_schema`
/// keeps only the values of an enum of primitives).
const fn untyped_enums(target: Target) -> bool {
    matches!(target, Target::AnthropicStrict)
}

/// Whether the dialect takes this string format as a keyword (OpenAI's strict mode: date-time,
/// date, email, uuid of ours; Anthropic's also uri; Gemini: date-time only).
const fn takes_format(target: Target, f: Format) -> bool {
    match target {
        Target::Portable | Target::Result => true,
        Target::OpenAiStrict => matches!(
            f,
            Format::DateTime | Format::Date | Format::Email | Format::Uuid
        ),
        Target::AnthropicStrict => matches!(
            f,
            Format::DateTime | Format::Date | Format::Email | Format::Uuid | Format::Uri
        ),
        Target::Gemini => matches!(f, Format::DateTime),
    }
}

/// A string: type, description, enum, default, format, pattern, lengths (the strict dialects
/// take no lengths: validation holds them; Anthropic's tells a pattern in the description).
const fn string(e: &mut Emit<'_, '_>, r: &StringRules, desc: Option<&str>, default: Option<&str>) {
    let mut m = Members::open(e);
    if r.enum_values.is_empty() || !untyped_enums(e.target) {
        m.raw(e, "type", "\"string\"");
    }
    let mut notes = with_default(e, default);
    if !e.target.takes_bounds() {
        notes.bounds.pattern = r.pattern;
    }
    let format = match r.format {
        Some(f) if takes_format(e.target, f) => Some(f),
        Some(f) => {
            notes.format = Some(f);
            None
        }
        None => None,
    };
    m.described(e, desc, notes);
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
    if let Some(f) = format {
        m.key(e, "format");
        e.out.string(f.as_str());
    }
    if let Some(p) = r.pattern
        && e.target.takes_bounds()
    {
        m.key(e, "pattern");
        e.out.string(p);
    }
    if e.target.takes_lengths() {
        m.uint(e, "minLength", r.min_length);
        m.uint(e, "maxLength", r.max_length);
    }
    m.close(e);
}

/// A list: type, description, items (which keep the list's path: items are not a path of their
/// own), bounds, uniqueness (the portable form's only: validation holds it elsewhere).
const fn array(
    e: &mut Emit<'_, '_>,
    r: &ArrayRules,
    desc: Option<&str>,
    default: Option<&str>,
    track: Option<Track>,
) {
    let mut m = Members::open(e);
    m.raw(e, "type", "\"array\"");
    let mut notes = with_default(e, default);
    // Anthropic's strict mode takes a `minItems` of 0 or 1 only, and no `maxItems`.
    let (mut min_items, mut max_items) = (r.min_items, r.max_items);
    if !e.target.takes_bounds() {
        if let Some(n) = min_items
            && n > 1
        {
            notes.bounds.min_items = min_items;
            min_items = None;
        }
        notes.bounds.max_items = max_items;
        max_items = None;
    }
    m.described(e, desc, notes);
    m.key(e, "items");
    node(e, r.items, None, None, track);
    m.uint(e, "minItems", min_items);
    m.uint(e, "maxItems", max_items);
    if r.unique_items && e.target.is_portable() {
        m.raw(e, "uniqueItems", "true");
    }
    m.default(e, default);
    m.close(e);
}
