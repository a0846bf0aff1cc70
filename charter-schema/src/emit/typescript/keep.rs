//! The result's shape from the pack's `response.keep` paths: `[number, labels.name, user.login]`
//! becomes `{number; labels: {name}; user: {login}}`. A path names fields, not their types, so
//! members carry no type (TypeScript reads an untyped member as `any`); on a list the kept fields
//! are each item's, as the runtime's projection applies them. No paths: `any`.

use crate::emit::out::Out;

/// The result type of a tool that keeps these paths ([`super::Returns::Kept`]).
pub(crate) const fn result(out: &mut Out<'_>, keep: &[&str]) {
    if keep.is_empty() {
        out.raw("any");
    } else {
        members(out, keep, b"");
    }
}

/// `{..}` of the fields under `prefix` (empty, or ending in `.`), each once, in the order
/// first kept.
const fn members(out: &mut Out<'_>, keep: &[&str], prefix: &[u8]) {
    out.byte(b'{');
    let mut first = true;
    let mut i = 0;
    while i < keep.len() {
        let p = keep[i].as_bytes();
        i += 1;
        if !starts_with(p, prefix) {
            continue;
        }
        let seg = segment(p, prefix.len());
        // The field with its own prefix: `prefix` + `seg` + `.`.
        let (own, _) = p.split_at(prefix.len() + seg);
        if seen_before(keep, i - 1, own) {
            continue;
        }
        if !first {
            out.raw("; ");
        }
        first = false;
        write_bytes(out, own.split_at(prefix.len()).1);
        if let Some(deeper) = nested(keep, own) {
            out.raw(": ");
            let (with_dot, _) = keep[deeper].as_bytes().split_at(own.len() + 1);
            members(out, keep, with_dot);
        }
    }
    out.byte(b'}');
}

/// The length of the segment of `p` starting at `from` (up to the next `.` or the end).
const fn segment(p: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < p.len() && p[j] != b'.' {
        j += 1;
    }
    j - from
}

/// Whether a path before `index` names the field `own` (itself, or something under it).
const fn seen_before(keep: &[&str], index: usize, own: &[u8]) -> bool {
    let mut i = 0;
    while i < index {
        if names(keep[i].as_bytes(), own) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `p` is `own` or a path under it.
const fn names(p: &[u8], own: &[u8]) -> bool {
    starts_with(p, own) && (p.len() == own.len() || p[own.len()] == b'.')
}

/// The index of a path under `own` (`own.` followed by more), if any.
const fn nested(keep: &[&str], own: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < keep.len() {
        let p = keep[i].as_bytes();
        if p.len() > own.len() + 1 && names(p, own) {
            return Some(i);
        }
        i += 1;
    }
    None
}

const fn starts_with(p: &[u8], prefix: &[u8]) -> bool {
    if p.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if p[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn write_bytes(out: &mut Out<'_>, b: &[u8]) {
    let mut i = 0;
    while i < b.len() {
        out.byte(b[i]);
        i += 1;
    }
}
