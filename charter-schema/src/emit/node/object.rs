//! Objects: the root of a tool's schema and every object inside it. Writing an object's
//! properties is where the top-level spans and the argument paths are recorded: each property's
//! byte range and character count are known the moment it has been written.

use super::{Members, Notes, defs_key, node, nullable};
use crate::emit::{Emit, MAX_DEFS, ROOT, Root, Track};
use crate::shape::{Field, Named, ObjectShape, Shape};
use crate::view::{PropSpan, RawPath};
use charter_terms::groups::{AT_LEAST_ONE, EXACTLY_ONE, OR};
use charter_terms::modes::str_eq;

/// `{"type":"object","description":<groups>,"properties":{..},"required":[..],
/// "additionalProperties":false,"$defs":{..}}`.
pub(crate) const fn root(e: &mut Emit<'_, '_>, root: &Root<'_>) {
    let mut m = Members::open(e);
    m.raw(e, "type", "\"object\"");
    // No combinator at the root in any dialect (docs/design.md §3): the tool's groups are
    // told in the root's description, worded as the validation error that enforces them.
    let groups = [
        (AT_LEAST_ONE, root.groups.at_least_one),
        (AT_LEAST_ONE, root.input.require_one_of),
        (EXACTLY_ONE, root.groups.exactly_one),
        (EXACTLY_ONE, root.input.require_exactly_one_of),
    ];
    let notes = Notes {
        groups: &groups,
        ..Notes::NONE
    };
    m.described(e, None, notes);
    let track = Track {
        index: ROOT,
        start: 0,
        len: 0,
        depth: 0,
    };
    properties(e, &mut m, root.input, Some(track), true);
    closed(e, &mut m);
    defs(e, &mut m);
    m.close(e);
}

/// What follows an object's `type` and `description`: its properties and `required`, its
/// groups as `anyOf` / `oneOf` of `required` lists (below the root the portable form's APIs
/// take them; the other dialects tell them in the description) and `additionalProperties:
/// false`.
pub(crate) const fn body(
    e: &mut Emit<'_, '_>,
    m: &mut Members,
    o: &ObjectShape,
    track: Option<Track>,
) {
    properties(e, m, o, track, false);
    if e.target.is_portable() {
        required_lists(e, m, "anyOf", o.require_one_of);
        required_lists(e, m, "oneOf", o.require_exactly_one_of);
    }
    closed(e, m);
}

/// `"additionalProperties":false`, except for Gemini, whose subset has no closed objects
/// (validation refuses an undeclared key before anything is sent).
const fn closed(e: &mut Emit<'_, '_>, m: &mut Members) {
    if e.target.closes_objects() {
        m.raw(e, "additionalProperties", "false");
    }
}

/// Whether `f` is in `required`: OpenAI's strict mode requires every property.
const fn in_required(e: &Emit<'_, '_>, f: &Field) -> bool {
    f.required || e.target.all_required()
}

/// Whether `f` is written in this pass: shown in the view and not the property left out.
const fn written(e: &Emit<'_, '_>, f: &Field, track: Option<Track>) -> bool {
    if !f.visible_in(e.labels.active, e.labels.widest) {
        return false;
    }
    match track {
        Some(t) => !(t.index == e.omit.parent && str_eq(f.name, e.omit.name)),
        None => true,
    }
}

/// `"properties":{..}` and `,"required":[..]`, recording paths (under `track`) and, at the
/// root, spans.
const fn properties(
    e: &mut Emit<'_, '_>,
    m: &mut Members,
    o: &ObjectShape,
    track: Option<Track>,
    at_root: bool,
) {
    let fields = o.fields;
    let (mut shown, mut required) = (0usize, 0usize);
    let mut i = 0;
    while i < fields.len() {
        if written(e, &fields[i], track) {
            shown += 1;
            if in_required(e, &fields[i]) {
                required += 1;
            }
        }
        i += 1;
    }
    m.key(e, "properties");
    e.out.byte(b'{');
    let mut k = 0;
    let mut i = 0;
    while i < fields.len() {
        let f = &fields[i];
        i += 1;
        if !written(e, f, track) {
            continue;
        }
        if k > 0 {
            e.out.byte(b',');
        }
        let (start, start_chars) = (e.out.len, e.out.chars);
        e.out.string(f.name);
        let key_chars = e.out.chars - start_chars;
        e.out.byte(b':');
        let path = match track {
            Some(t) => Some(path_entry(e, t, f.name)),
            None => None,
        };
        let refs = e.refs;
        let desc = if f.description.is_empty() {
            None
        } else {
            Some(f.description)
        };
        let child = match path {
            Some((index, start, len)) => Some(Track {
                index,
                start,
                len,
                depth: match track {
                    Some(t) => t.depth + 1,
                    None => 1,
                },
            }),
            None => None,
        };
        if f.required || !e.target.all_required() {
            node(e, f.shape, desc, f.default, child);
        } else {
            // Required in strict mode: absent is `null`.
            nullable(e, f.shape, desc, f.default, child);
        }
        if let Some((index, _, _)) = path {
            // What dropping it removes: `"name":<schema>`, one comma when it has siblings, and
            // its `required` entry (`"name"` and a comma, or the whole `,"required":["name"]`).
            let mut removed = e.out.chars - start_chars + (shown > 1) as usize;
            if in_required(e, f) {
                removed += if required > 1 {
                    key_chars + 1
                } else {
                    key_chars + 14
                };
            }
            if index < e.raw.len() {
                e.raw[index].removed = removed as u32;
                e.raw[index].has_ref = e.refs != refs;
            }
        }
        if at_root && k < e.spans.len() {
            e.spans[k] = PropSpan {
                name: f.name,
                property: with_comma(k, shown, start, e.out.len),
                required: None,
            };
        }
        k += 1;
    }
    e.out.byte(b'}');
    if at_root {
        e.nspans = shown;
    }
    if required == 0 {
        if e.target.all_required() {
            // Strict mode's `required` lists every property, none included (the Agents SDK
            // writes `"required":[]` into an object without properties).
            e.out.raw(",\"required\":[]");
        }
        return;
    }
    required_list(e, fields, track, at_root, (shown, required));
}

/// `,"required":[..]` of the `required` of `shown` properties written, recording where each
/// entry sits in the root's spans. Written by hand (not through `Members`) to know where the
/// member starts.
const fn required_list(
    e: &mut Emit<'_, '_>,
    fields: &[Field],
    track: Option<Track>,
    at_root: bool,
    (shown, required): (usize, usize),
) {
    let member = e.out.len;
    e.out.raw(",\"required\":[");
    let (mut j, mut k) = (0, 0);
    let mut i = 0;
    while i < fields.len() {
        let f = &fields[i];
        i += 1;
        if !written(e, f, track) {
            continue;
        }
        if in_required(e, f) {
            if j > 0 {
                e.out.byte(b',');
            }
            let start = e.out.len;
            e.out.string(f.name);
            if at_root && k < e.spans.len() {
                e.spans[k].required = Some(with_comma(j, required, start, e.out.len));
            }
            j += 1;
        }
        k += 1;
    }
    e.out.byte(b']');
    if at_root && required == 1 {
        // The only entry: its range is the whole member.
        let mut k = 0;
        while k < e.spans.len() && k < shown {
            if e.spans[k].required.is_some() {
                e.spans[k].required = Some((member as u32, e.out.len as u32));
            }
            k += 1;
        }
    }
}

/// The byte range of entry `i` of `n` with one adjacent comma: the following one for the first,
/// the preceding one otherwise, none when alone.
const fn with_comma(i: usize, n: usize, start: usize, end: usize) -> (u32, u32) {
    if n == 1 {
        (start as u32, end as u32)
    } else if i == 0 {
        (start as u32, end as u32 + 1)
    } else {
        (start as u32 - 1, end as u32)
    }
}

/// Records the path of property `name` under `parent`: its walk index and the range of its
/// dotted name (`parent.name`) in the path text.
const fn path_entry(
    e: &mut Emit<'_, '_>,
    parent: Track,
    name: &'static str,
) -> (usize, usize, usize) {
    let index = e.npaths;
    let start = e.path_len;
    let len = if parent.depth == 0 {
        name.len()
    } else {
        parent.len + 1 + name.len()
    };
    if start + len <= e.path_text.len() {
        let mut j = 0;
        if parent.depth > 0 {
            while j < parent.len {
                e.path_text[start + j] = e.path_text[parent.start + j];
                j += 1;
            }
            e.path_text[start + j] = b'.';
            j += 1;
        }
        let b = name.as_bytes();
        let mut c = 0;
        while c < b.len() {
            e.path_text[start + j + c] = b[c];
            c += 1;
        }
    }
    if index < e.raw.len() {
        e.raw[index] = RawPath {
            start: start as u32,
            len: len as u32,
            depth: parent.depth + 1,
            saves: 0,
            removed: 0,
            has_ref: false,
            parent: parent.index,
            name,
        };
    }
    e.npaths += 1;
    e.path_len += len;
    (index, start, len)
}

/// `"anyOf":[{"required":["a"]},{"required":["b","c"]}]` for an object's groups.
const fn required_lists(e: &mut Emit<'_, '_>, m: &mut Members, key: &str, groups: &[&[&str]]) {
    if groups.is_empty() {
        return;
    }
    m.key(e, key);
    e.out.byte(b'[');
    let mut g = 0;
    while g < groups.len() {
        if g > 0 {
            e.out.byte(b',');
        }
        e.out.raw("{\"required\":[");
        let mut i = 0;
        while i < groups[g].len() {
            if i > 0 {
                e.out.byte(b',');
            }
            e.out.string(groups[g][i]);
            i += 1;
        }
        e.out.raw("]}");
        g += 1;
    }
    e.out.byte(b']');
}

/// One group rule as a sentence, inside a JSON string: `Give at least one of: `a` and `b`, or
/// `c`.`, worded as `charter_terms::groups` words the validation error that enforces it.
pub(crate) const fn group_sentence(e: &mut Emit<'_, '_>, rule: &str, list: &[&[&str]]) {
    e.out.raw("Give ");
    e.out.escaped(rule);
    e.out.raw(": ");
    let mut g = 0;
    while g < list.len() {
        if g > 0 {
            e.out.escaped(OR);
        }
        let mut i = 0;
        while i < list[g].len() {
            if i > 0 {
                e.out.raw(" and ");
            }
            e.out.byte(b'`');
            e.out.escaped(list[g][i]);
            e.out.byte(b'`');
            i += 1;
        }
        g += 1;
    }
    e.out.byte(b'.');
}

/// Marks a recursive type as reached (its `$defs` entry is written).
pub(crate) const fn mark_used(e: &mut Emit<'_, '_>, n: &Named) {
    let i = def_index(e, n.name);
    e.used[i] = true;
}

const fn def_index(e: &Emit<'_, '_>, name: &str) -> usize {
    let mut i = 0;
    while i < e.defs.len() {
        if str_eq(e.defs[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("a recursive type is used without its definition (Root::defs)")
}

/// `,"$defs":{..}`: every recursive type this view reaches, from its properties or from other
/// definitions, in declaration order.
const fn defs(e: &mut Emit<'_, '_>, m: &mut Members) {
    // Close over the definitions: a reached type's body may reach more.
    let mut changed = true;
    while changed {
        changed = false;
        let mut i = 0;
        while i < e.defs.len() {
            if e.used[i] {
                let before = count(&e.used);
                let shape = e.defs[i].shape;
                reach(e, shape);
                changed = changed || count(&e.used) != before;
            }
            i += 1;
        }
    }
    if count(&e.used) == 0 {
        return;
    }
    m.key(e, defs_key(e.target));
    e.out.byte(b'{');
    let mut first = true;
    let mut i = 0;
    while i < e.defs.len() {
        if e.used[i] {
            if !first {
                e.out.byte(b',');
            }
            first = false;
            let n = e.defs[i];
            e.out.string(n.name);
            e.out.byte(b':');
            node(e, n.shape, None, None, None);
        }
        i += 1;
    }
    e.out.byte(b'}');
}

pub(crate) const fn count(used: &[bool; MAX_DEFS]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < MAX_DEFS {
        n += used[i] as usize;
        i += 1;
    }
    n
}

/// Marks the recursive types `shape` references in this view (without descending into them:
/// [`defs`] closes over them).
const fn reach(e: &mut Emit<'_, '_>, shape: &Shape) {
    match shape {
        Shape::Named(n) if n.recursive => mark_used(e, n),
        Shape::Named(n) => reach(e, n.shape),
        Shape::Doc(d) => reach(e, d.shape),
        Shape::Nullable(s) | Shape::Map(s) => reach(e, s),
        Shape::Array(r) => reach(e, r.items),
        Shape::Object(o) => {
            let mut i = 0;
            while i < o.fields.len() {
                if o.fields[i].visible_in(e.labels.active, e.labels.widest) {
                    let field = &o.fields[i];
                    reach(e, field.shape);
                }
                i += 1;
            }
        }
        Shape::OneOf(alts) | Shape::AnyOf(alts) => {
            let mut i = 0;
            while i < alts.len() {
                reach(e, &alts[i]);
                i += 1;
            }
        }
        _ => {}
    }
}
