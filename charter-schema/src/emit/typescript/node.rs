//! Argument types: the `(args: {..})` of a signature and every type inside it.

use super::Ts;
use crate::emit::Root;
use crate::shape::{Field, Named, ObjectShape, Shape};
use charter_terms::groups::{AT_LEAST_ONE, EXACTLY_ONE, OR};
use charter_terms::modes::str_eq;

/// `(args: {\n  /** doc */ name: type;\n ..})`, `(args?: ..)` when nothing is required, `()`
/// when nothing is shown; the tool's groups as a comment line first.
pub(crate) const fn arguments(t: &mut Ts<'_, '_>, root: &Root<'_>) {
    let o = root.input;
    let (mut shown, mut required) = (0usize, 0usize);
    let mut i = 0;
    while i < o.fields.len() {
        if shown_field(t, &o.fields[i]) {
            shown += 1;
            required += o.fields[i].required as usize;
        }
        i += 1;
    }
    if shown == 0 {
        t.out.raw("()");
        return;
    }
    t.out.raw(if required == 0 {
        "(args?: {\n"
    } else {
        "(args: {\n"
    });
    let lists: [(&str, &[&[&str]]); 4] = [
        (AT_LEAST_ONE, root.groups.at_least_one),
        (AT_LEAST_ONE, o.require_one_of),
        (EXACTLY_ONE, root.groups.exactly_one),
        (EXACTLY_ONE, o.require_exactly_one_of),
    ];
    let mut l = 0;
    while l < lists.len() {
        if !lists[l].1.is_empty() {
            t.out.raw("  // Give ");
            t.out.raw(lists[l].0);
            t.out.raw(": ");
            groups(t, lists[l].1);
            t.out.raw(".\n");
        }
        l += 1;
    }
    let mut i = 0;
    while i < o.fields.len() {
        let f = &o.fields[i];
        i += 1;
        if !shown_field(t, f) {
            continue;
        }
        t.out.raw("  ");
        member(t, f);
        t.out.raw(";\n");
    }
    t.out.raw("})");
}

/// `a and b, or c`.
const fn groups(t: &mut Ts<'_, '_>, list: &[&[&str]]) {
    let mut g = 0;
    while g < list.len() {
        if g > 0 {
            t.out.raw(OR);
        }
        let mut i = 0;
        while i < list[g].len() {
            if i > 0 {
                t.out.raw(" and ");
            }
            t.out.raw(list[g][i]);
            i += 1;
        }
        g += 1;
    }
}

const fn shown_field(t: &Ts<'_, '_>, f: &Field) -> bool {
    f.visible_in(t.labels.active, t.labels.widest)
}

/// `/** doc */ name?: type` (the doc when the field or its type says something); in a result,
/// `name?: type | null`.
const fn member(t: &mut Ts<'_, '_>, f: &Field) {
    let desc = if f.description.is_empty() {
        own_description(f.shape)
    } else {
        Some(f.description)
    };
    if let Some(d) = desc {
        doc(t, d);
    }
    key(t, f.name);
    if !f.required {
        t.out.byte(b'?');
    }
    t.out.raw(": ");
    // In a result, `?` says "absent or `null`" (what serde writes for a `None`, what a lenient
    // results file allows): no `| null` beside it, on every member of every answer.
    match (t.result && !f.required, undocumented(f.shape)) {
        (true, Shape::Nullable(inner)) => ty(t, inner),
        _ => ty(t, f.shape),
    }
}

/// The shape under its descriptions (not under names: a recursive type stays one).
const fn undocumented(shape: &Shape) -> &Shape {
    match shape {
        Shape::Doc(d) => undocumented(d.shape),
        other => other,
    }
}

/// `/** text */ ` on one line: line breaks become spaces, `*/` is written `*\/`.
const fn doc(t: &mut Ts<'_, '_>, text: &str) {
    t.out.raw("/** ");
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' | b'\r' | b'\t' => t.out.byte(b' '),
            b'*' if i + 1 < b.len() && b[i + 1] == b'/' => t.out.raw("*\\"),
            c => t.out.byte(c),
        }
        i += 1;
    }
    t.out.raw(" */ ");
}

/// A property name: as is when an identifier, else a string literal.
const fn key(t: &mut Ts<'_, '_>, name: &str) {
    if identifier(name) {
        t.out.raw(name);
    } else {
        t.out.string(name);
    }
}

const fn identifier(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
            return false;
        }
        i += 1;
    }
    true
}

/// The description a shape carries itself (a named type's own, on its [`Shape::Doc`]).
const fn own_description(shape: &Shape) -> Option<&str> {
    match shape {
        Shape::Doc(d) => match d.description {
            Some(_) => d.description,
            None => own_description(d.shape),
        },
        Shape::Named(n) if !n.recursive => own_description(n.shape),
        _ => None,
    }
}

/// The type of a value.
pub(crate) const fn ty(t: &mut Ts<'_, '_>, shape: &Shape) {
    match shape {
        Shape::Any => t.out.raw("any"),
        Shape::Bool => t.out.raw("boolean"),
        Shape::Integer(r) | Shape::Number(r) => {
            if r.enum_values.is_empty() {
                t.out.raw("number");
            } else {
                let mut i = 0;
                while i < r.enum_values.len() {
                    if i > 0 {
                        t.out.raw(" | ");
                    }
                    t.out.raw(r.enum_values[i].text);
                    i += 1;
                }
            }
        }
        Shape::String(r) => {
            if r.enum_values.is_empty() {
                t.out.raw("string");
            } else {
                let mut i = 0;
                while i < r.enum_values.len() {
                    if i > 0 {
                        t.out.raw(" | ");
                    }
                    t.out.string(r.enum_values[i]);
                    i += 1;
                }
            }
        }
        Shape::Array(r) => {
            let union = is_union(r.items);
            if union {
                t.out.byte(b'(');
            }
            ty(t, r.items);
            if union {
                t.out.byte(b')');
            }
            t.out.raw("[]");
        }
        Shape::Object(o) => object(t, o),
        Shape::Map(values) => {
            t.out.raw("Record<string, ");
            ty(t, values);
            t.out.byte(b'>');
        }
        Shape::Nullable(inner) => {
            ty(t, inner);
            if !matches!(inner.bare(), Shape::Any) {
                t.out.raw(" | null");
            }
        }
        Shape::OneOf(alts) | Shape::AnyOf(alts) => {
            if alts.is_empty() {
                t.out.raw("never");
            }
            let mut i = 0;
            let mut cut = false;
            while i < alts.len() {
                // Objects past the result's depth are all `object`: said once
                // (`string | object`, not Stripe's expandable `string | object | object`).
                let object = written_as_object(t, &alts[i]);
                if !(object && cut) {
                    if i > 0 {
                        t.out.raw(" | ");
                    }
                    ty(t, &alts[i]);
                }
                cut |= object;
                i += 1;
            }
        }
        Shape::Doc(d) => ty(t, d.shape),
        Shape::Named(n) if n.recursive => {
            if mark_used(t, n) {
                t.out.raw(n.name);
            } else {
                // A result's own recursive type, which the tool's `defs` do not declare.
                t.out.raw("any");
            }
        }
        Shape::Named(n) => ty(t, n.shape),
    }
}

/// Whether the type is written as the bare `object` of an object past the result's depth.
const fn written_as_object(t: &Ts<'_, '_>, shape: &Shape) -> bool {
    if !t.result || t.depth < t.max_depth {
        return false;
    }
    match shape {
        Shape::Object(_) => true,
        Shape::Doc(d) => written_as_object(t, d.shape),
        Shape::Named(n) if !n.recursive => written_as_object(t, n.shape),
        _ => false,
    }
}

/// Whether the type is written as a union (and needs parentheses as an array's items).
const fn is_union(shape: &Shape) -> bool {
    match shape {
        Shape::Integer(r) | Shape::Number(r) => r.enum_values.len() > 1,
        Shape::String(r) => r.enum_values.len() > 1,
        Shape::Nullable(inner) => !matches!(inner.bare(), Shape::Any),
        Shape::OneOf(alts) | Shape::AnyOf(alts) => alts.len() > 1,
        Shape::Doc(d) => is_union(d.shape),
        Shape::Named(n) if !n.recursive => is_union(n.shape),
        _ => false,
    }
}

/// A nested object, inline: `{/** doc */ a: string; b?: number}`.
const fn object(t: &mut Ts<'_, '_>, o: &ObjectShape) {
    if t.result && t.depth >= t.max_depth {
        t.out.raw("object");
        return;
    }
    t.depth += 1;
    t.out.byte(b'{');
    let mut first = true;
    let mut i = 0;
    while i < o.fields.len() {
        let f = &o.fields[i];
        i += 1;
        if !shown_field(t, f) {
            continue;
        }
        if !first {
            t.out.raw("; ");
        }
        first = false;
        member(t, f);
    }
    t.out.byte(b'}');
    t.depth -= 1;
}

/// Marks a recursive type as reached: false for a result's type outside `defs`.
const fn mark_used(t: &mut Ts<'_, '_>, n: &Named) -> bool {
    let mut i = 0;
    while i < t.defs.len() {
        if str_eq(t.defs[i].name, n.name) {
            t.used[i] = true;
            return true;
        }
        i += 1;
    }
    assert!(
        t.result,
        "a recursive type is used without its definition (Root::defs)"
    );
    false
}

/// `\ntype Name = ..` for every recursive type reached, each once (a declaration may reach
/// more; rounds in declaration order until none is new).
pub(crate) const fn declarations(t: &mut Ts<'_, '_>) {
    let mut written = [false; crate::emit::MAX_DEFS];
    let mut again = true;
    while again {
        again = false;
        let mut i = 0;
        while i < t.defs.len() {
            if t.used[i] && !written[i] {
                written[i] = true;
                again = true;
                let n = t.defs[i];
                t.out.raw("\ntype ");
                t.out.raw(n.name);
                t.out.raw(" = ");
                ty(t, n.shape);
            }
            i += 1;
        }
    }
}
