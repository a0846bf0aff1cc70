//! Const scanners over compact schema text (the text the macros generate: no whitespace):
//! property spans and path costs.

use super::pieces::utf8;
use crate::table::{PathCost, PropSpan};

// ---------------------------------------------------------------------------------------------
// Const scanners over compact schema text (the text the macros generate: no whitespace).

pub(super) const fn skip_string(s: &[u8], mut i: usize) -> usize {
    i += 1;
    while s[i] != b'"' {
        i += if s[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

pub(super) const fn skip_value(s: &[u8], mut i: usize) -> usize {
    match s[i] {
        b'"' => skip_string(s, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match s[i] {
                    b'"' => {
                        i = skip_string(s, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            while i < s.len() && !matches!(s[i], b',' | b'}' | b']') {
                i += 1;
            }
            i
        }
    }
}

/// One member of an object: `"key":value`, as byte offsets.
#[derive(Clone, Copy)]
pub(super) struct Member {
    key: usize,
    key_end: usize,
    value: usize,
    end: usize,
}

/// The member after `at` (the offset of `{` or of the `,` ending the previous member).
pub(super) const fn member_at(s: &[u8], at: usize) -> Option<Member> {
    if s[at] == b'}' || s[at] == b']' || s[at + 1] == b'}' {
        return None;
    }
    let key = at + 1;
    let key_end = skip_string(s, key);
    let value = key_end + 1;
    let end = skip_value(s, value);
    Some(Member {
        key,
        key_end,
        value,
        end,
    })
}

pub(super) const fn bytes_eq(s: &[u8], from: usize, to: usize, other: &[u8]) -> bool {
    if to - from != other.len() {
        return false;
    }
    let mut i = 0;
    while i < other.len() {
        if s[from + i] != other[i] {
            return false;
        }
        i += 1;
    }
    true
}

pub(super) const fn count_chars(s: &[u8], from: usize, to: usize) -> usize {
    let mut n = 0;
    let mut i = from;
    while i < to {
        if s[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

pub(super) const fn sub(s: &'static [u8], from: usize, to: usize) -> &'static str {
    let (_, rest) = s.split_at(from);
    let (mid, _) = rest.split_at(to - from);
    utf8(mid)
}

/// Byte range of an item (an object member or an array entry) with one adjacent comma: the one
/// after it, or before it for the last; none when it is the only one.
pub(super) const fn with_comma(
    first: bool,
    last: bool,
    (start, end): (usize, usize),
    prev_end: usize,
) -> (usize, usize) {
    if first && last {
        (start, end)
    } else if !last {
        (start, end + 1)
    } else {
        (prev_end, end)
    }
}

/// The members of an object schema the scanners read, found in one pass over its members.
#[derive(Clone, Copy)]
pub(super) struct Keys {
    properties: Option<Member>,
    required: Option<Member>,
    items: Option<Member>,
}

pub(super) const fn keys(s: &[u8], obj: usize) -> Keys {
    let mut k = Keys {
        properties: None,
        required: None,
        items: None,
    };
    let mut at = obj;
    while let Some(m) = member_at(s, at) {
        if bytes_eq(s, m.key + 1, m.key_end - 1, b"properties") {
            k.properties = Some(m);
        } else if bytes_eq(s, m.key + 1, m.key_end - 1, b"required") {
            k.required = Some(m);
        } else if bytes_eq(s, m.key + 1, m.key_end - 1, b"items") {
            k.items = Some(m);
        }
        at = m.end;
    }
    k
}

pub(super) const fn count_members(s: &[u8], obj: usize) -> usize {
    let mut n = 0;
    let mut at = obj;
    while let Some(m) = member_at(s, at) {
        n += 1;
        at = m.end;
    }
    n
}

/// The `required` entry for the property whose key is `s[key..key_end]`, with one adjacent
/// comma; the whole `,"required":[..]` member when it is the only entry.
pub(super) const fn required_range(
    s: &[u8],
    req: Member,
    key: usize,
    key_end: usize,
) -> Option<(usize, usize)> {
    let mut p = req.value + 1;
    let mut prev = p;
    while s[p] == b'"' {
        let e = skip_string(s, p);
        let (first, last) = (p == req.value + 1, s[e] == b']');
        if bytes_eq(s, p, e, sub_bytes(s, key, key_end)) {
            return Some(if first && last {
                // `required` always follows `"type"`, so a comma precedes it.
                (req.key - 1, req.end)
            } else {
                with_comma(first, last, (p, e), prev)
            });
        }
        prev = e;
        p = if last { e } else { e + 1 };
    }
    None
}

pub(super) const fn sub_bytes(s: &[u8], from: usize, to: usize) -> &[u8] {
    let (_, rest) = s.split_at(from);
    let (mid, _) = rest.split_at(to - from);
    mid
}

/// How many top-level properties the object schema `schema` declares.
pub const fn prop_count(schema: &str) -> usize {
    let s = schema.as_bytes();
    match keys(s, 0).properties {
        Some(p) => count_members(s, p.value),
        None => 0,
    }
}

/// Where each top-level property of `schema` sits; `N` must be [`prop_count`] of it.
pub const fn spans<const N: usize>(schema: &'static str) -> [PropSpan; N] {
    let s = schema.as_bytes();
    let mut out = [PropSpan {
        name: "",
        property: (0, 0),
        required: None,
    }; N];
    let k = keys(s, 0);
    let props = match k.properties {
        Some(p) => p.value,
        None => return out,
    };
    let mut at = props;
    let mut prev_end = props + 1;
    let mut i = 0;
    while let Some(m) = member_at(s, at) {
        let property = with_comma(i == 0, s[m.end] == b'}', (m.key, m.end), prev_end);
        let required = match k.required {
            Some(req) => required_range(s, req, m.key, m.key_end),
            None => None,
        };
        out[i] = PropSpan {
            name: sub(s, m.key + 1, m.key_end - 1),
            property: (property.0 as u32, property.1 as u32),
            required: match required {
                Some((a, b)) => Some((a as u32, b as u32)),
                None => None,
            },
        };
        prev_end = m.end;
        at = m.end;
        i += 1;
    }
    out
}

/// One path found by the walk, its name a range of the path text (generated code).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct RawCost {
    start: usize,
    len: usize,
    depth: u8,
    saves: u32,
}

pub(super) struct Walk<'a> {
    total_chars: usize,
    ascii: bool,
    count: usize,
    text_len: usize,
    text: &'a mut [u8],
    raw: &'a mut [RawCost],
}

/// Every property of the object schema whose members are `k`, then into each property's schema.
/// One pass per object: the whole walk is linear in the text times the nesting depth.
pub(super) const fn walk_object(
    s: &[u8],
    k: Keys,
    parent: (usize, usize),
    depth: u8,
    w: &mut Walk<'_>,
) {
    let props = match k.properties {
        Some(p) => p.value,
        None => return,
    };
    let mut at = props;
    let mut prev_end = props + 1;
    let mut first = true;
    while let Some(m) = member_at(s, at) {
        let property = with_comma(first, s[m.end] == b'}', (m.key, m.end), prev_end);
        let mut removed = chars(s, property, w.ascii);
        if let Some(req) = k.required
            && let Some(r) = required_range(s, req, m.key, m.key_end)
        {
            removed += chars(s, r, w.ascii);
        }
        let saves = (w.total_chars / 4 - (w.total_chars - removed) / 4) as u32;

        // The dotted path: the parent's path (already in the text), a dot, the name.
        let start = w.text_len;
        let name_len = m.key_end - 1 - (m.key + 1);
        let len = if depth == 1 {
            name_len
        } else {
            parent.1 + 1 + name_len
        };
        if !w.text.is_empty() {
            let mut j = 0;
            if depth > 1 {
                while j < parent.1 {
                    w.text[start + j] = w.text[parent.0 + j];
                    j += 1;
                }
                w.text[start + j] = b'.';
                j += 1;
            }
            let mut c = 0;
            while c < name_len {
                w.text[start + j + c] = s[m.key + 1 + c];
                c += 1;
            }
        }
        if !w.raw.is_empty() {
            w.raw[w.count] = RawCost {
                start,
                len,
                depth,
                saves,
            };
        }
        w.count += 1;
        w.text_len += len;

        descend(s, m.value, (start, len), depth + 1, w);
        prev_end = m.end;
        at = m.end;
        first = false;
    }
}

pub(super) const fn chars(s: &[u8], (from, to): (usize, usize), ascii: bool) -> usize {
    if ascii {
        to - from
    } else {
        count_chars(s, from, to)
    }
}

/// Into a property's schema: its own properties, or through array items (array items are not
/// separate paths).
pub(super) const fn descend(
    s: &[u8],
    value: usize,
    path: (usize, usize),
    depth: u8,
    w: &mut Walk<'_>,
) {
    if s[value] != b'{' {
        return;
    }
    let k = keys(s, value);
    if k.properties.is_some() {
        walk_object(s, k, path, depth, w);
    } else if let Some(items) = k.items {
        descend(s, items.value, path, depth, w);
    }
}

pub(super) const fn run_walk(schema: &str, text: &mut [u8], raw: &mut [RawCost]) -> (usize, usize) {
    let s = schema.as_bytes();
    let total_chars = count_chars(s, 0, s.len());
    let ascii = total_chars == s.len();
    let mut w = Walk {
        total_chars,
        ascii,
        count: 0,
        text_len: 0,
        text,
        raw,
    };
    walk_object(s, keys(s, 0), (0, 0), 1, &mut w);
    (w.count, w.text_len)
}

/// How many selectable argument paths `schema` has (at every depth), and the total length of
/// their dotted names.
pub const fn path_sizes(schema: &str) -> (usize, usize) {
    run_walk(schema, &mut [], &mut [])
}

/// The paths of `schema` found by one walk: their dotted names concatenated, and where each
/// one's name sits in that text (generated code).
#[doc(hidden)]
pub struct PathWalk<const N: usize, const L: usize> {
    /// Every dotted path, concatenated.
    pub text: [u8; L],
    /// The paths, in walk order.
    pub raw: [RawCost; N],
}

/// Walks `schema` once; `(N, L)` must be [`path_sizes`] of it.
pub const fn path_walk<const N: usize, const L: usize>(schema: &str) -> PathWalk<N, L> {
    let mut w = PathWalk {
        text: [0u8; L],
        raw: [RawCost {
            start: 0,
            len: 0,
            depth: 0,
            saves: 0,
        }; N],
    };
    if N > 0 {
        run_walk(schema, &mut w.text, &mut w.raw);
    }
    w
}

/// The selectable paths with what dropping each saves, most expensive first (ties in
/// declaration order),
/// from one [`path_walk`]: `raw` its paths and `text` its path text.
pub const fn paths<const N: usize>(raw: &[RawCost; N], text: &'static [u8]) -> [PathCost; N] {
    let mut out = [PathCost {
        path: "",
        depth: 0,
        saves: 0,
    }; N];
    let mut i = 0;
    while i < N {
        let r = raw[i];
        out[i] = PathCost {
            path: sub(text, r.start, r.start + r.len),
            depth: r.depth,
            saves: r.saves,
        };
        i += 1;
    }
    // Stable insertion sort, saves descending: ties keep declaration order (parents before their
    // fields), as the pack compiler orders them.
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 {
            let (a, b) = (out[j - 1], out[j]);
            if b.saves <= a.saves {
                break;
            }
            out[j - 1] = b;
            out[j] = a;
            j -= 1;
        }
        i += 1;
    }
    out
}
