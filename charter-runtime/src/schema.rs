//! Compile-time schemas for Rust tools (docs/design.md §1, §3): what `#[derive(charter::Schema)]`,
//! `#[charter::tool]` and `charter::pack!` expand to.
//!
//! A type's JSON schema cannot be one `&'static str` built generically: concatenating string
//! constants needs array lengths that depend on generic parameters, which `const` generics do not
//! allow. So a type's schema is a tree of [`Piece`]s that generic impls (`Vec<T>`, `Option<T>`,
//! maps, user generics) can assemble from their parameters' trees, and the tool macro, where every
//! type is concrete, flattens the tree of each mode view into one string in `const` context
//! ([`pieces_len`] then [`flatten`]). Sizes, property spans and path costs are then read off that
//! text by `const fn` scanners ([`spans`], [`paths`]), so a tool's [`ToolDef`] is a `static`
//! whose every schema byte and size is fixed at build time.
//!
//! The module also holds the small run-time helpers the generated handler calls ([`Args`],
//! [`output`]): they deserialise already validated arguments, never a schema.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Display;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::CallContext;
use crate::error::{CharterError, DeclarationError};
use crate::table::{
    Annotations, ArrayRules, Exec, Handler, NumberRules, ObjectShape, PathCost, PropSpan,
    SearchData, Shape, StringRules, ToolDef, View,
};

// ---------------------------------------------------------------------------------------------
// Pieces.

/// One piece of schema text: literal JSON text or a nested tree (another type's members).
#[derive(Debug, Clone, Copy)]
pub enum Piece {
    /// JSON text, already escaped.
    Str(&'static str),
    /// Another tree, spliced in place.
    Tree(&'static [Piece]),
    /// An unsigned number written in decimal (array lengths of `[T; N]`).
    Uint(u64),
}

const fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The length in bytes of the text a piece tree flattens to.
pub const fn pieces_len(pieces: &[Piece]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < pieces.len() {
        n += match pieces[i] {
            Piece::Str(s) => s.len(),
            Piece::Tree(t) => pieces_len(t),
            Piece::Uint(u) => digits(u),
        };
        i += 1;
    }
    n
}

const fn write_pieces(pieces: &[Piece], buf: &mut [u8], mut at: usize) -> usize {
    let mut i = 0;
    while i < pieces.len() {
        match pieces[i] {
            Piece::Str(s) => {
                let b = s.as_bytes();
                let mut j = 0;
                while j < b.len() {
                    buf[at] = b[j];
                    at += 1;
                    j += 1;
                }
            }
            Piece::Tree(t) => at = write_pieces(t, buf, at),
            Piece::Uint(mut u) => {
                let d = digits(u);
                let mut k = d;
                while k > 0 {
                    buf[at + k - 1] = b'0' + (u % 10) as u8;
                    u /= 10;
                    k -= 1;
                }
                at += d;
            }
        }
        i += 1;
    }
    at
}

/// The text of a piece tree as bytes; `N` must be [`pieces_len`] of the tree.
pub const fn flatten<const N: usize>(pieces: &[Piece]) -> [u8; N] {
    let mut buf = [0u8; N];
    let end = write_pieces(pieces, &mut buf, 0);
    assert!(end == N, "flatten: N is not pieces_len of the tree");
    buf
}

/// `bytes` as `&str`, in `const` context (panics at compile time on invalid UTF-8, which the
/// pieces, all built from Rust string literals, never produce).
pub const fn utf8(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("schema text is not UTF-8"),
    }
}

/// The text of a piece tree at run time, for tests and debugging: tables never call it.
pub fn render(pieces: &[Piece]) -> String {
    let mut buf = vec![0u8; pieces_len(pieces)];
    write_pieces(pieces, &mut buf, 0);
    String::from_utf8(buf).expect("pieces are UTF-8")
}

/// The schema text of a type implementing [`Schema`], as a `&'static str` constant built at
/// compile time: `charter::schema_text!(Vec<Note>)`.
#[macro_export]
macro_rules! schema_text {
    ($t:ty) => {
        $crate::__const_text!(&[
            $crate::schema::Piece::Str("{"),
            $crate::schema::Piece::Tree(<$t as $crate::schema::Schema>::MEMBERS),
            $crate::schema::Piece::Str("}"),
        ])
    };
}

/// Flattens a piece tree into a `&'static str` constant (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_text {
    ($pieces:expr) => {{
        const __P: &[$crate::schema::Piece] = $pieces;
        const __L: usize = $crate::schema::pieces_len(__P);
        const __B: [u8; __L] = $crate::schema::flatten::<__L>(__P);
        $crate::schema::utf8(&__B)
    }};
}

/// The [`PathCost`]s of a schema constant, sorted (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_paths {
    ($schema:expr) => {{
        const __S: &str = $schema;
        const __NL: (usize, usize) = $crate::schema::path_sizes(__S);
        const __N: usize = __NL.0;
        const __TL: usize = __NL.1;
        const __W: $crate::schema::PathWalk<__N, __TL> =
            $crate::schema::path_walk::<__N, __TL>(__S);
        const __T: [u8; __TL] = __W.text;
        const __PS: [$crate::table::PathCost; __N] = $crate::schema::paths::<__N>(&__W.raw, &__T);
        &__PS
    }};
}

/// The [`PropSpan`]s of a schema constant (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_spans {
    ($schema:expr) => {{
        const __S: &str = $schema;
        const __N: usize = $crate::schema::prop_count(__S);
        const __SP: [$crate::table::PropSpan; __N] = $crate::schema::spans::<__N>(__S);
        &__SP
    }};
}

/// The qualified name `<pack>_<tool>` as a `&'static str` constant (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_qualified {
    ($pack:expr, $tool:expr) => {{
        const __L: usize = $crate::schema::qualified_len($pack, $tool);
        const __B: [u8; __L] = $crate::schema::qualify::<__L>($pack, $tool);
        $crate::schema::utf8(&__B)
    }};
}

// ---------------------------------------------------------------------------------------------
// The trait.

/// A type whose JSON schema and validation shape are compile-time constants.
///
/// Derive it with `#[derive(charter::Schema)]` (structs with named fields, newtypes, unit enums,
/// externally/internally tagged and untagged enums, honouring the serde attributes that change
/// the wire shape). `Option<T>` as a parameter or a struct field makes the property optional and
/// uses `T`'s schema; elsewhere (`Vec<Option<T>>`) it is `anyOf` with `null`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no charter schema",
    label = "not a supported parameter type",
    note = "supported: integers, floats, bool, String/&str, char, Option, Vec, sets, arrays, \
            HashMap/BTreeMap with String keys, Box, and types deriving `charter::Schema`"
)]
pub trait Schema {
    /// The members of the type's schema object, without the braces (`"type":"string"`). Never
    /// empty, and never a `description`: the property holding the value adds its own.
    const MEMBERS: &'static [Piece];
    /// The validation shape mirroring the schema (a value, so enums can list it in
    /// [`Shape::OneOf`]; refer to it as `&T::SHAPE`).
    const SHAPE: Shape;
}

macro_rules! simple {
    ($($t:ty => $members:literal, $shape:expr;)*) => {$(
        impl Schema for $t {
            const MEMBERS: &'static [Piece] = &[Piece::Str($members)];
            const SHAPE: Shape = $shape;
        }
    )*};
}

const fn int(minimum: Option<f64>, maximum: Option<f64>) -> Shape {
    Shape::Integer(NumberRules {
        minimum,
        maximum,
        enum_values: &[],
    })
}

const STRING: Shape = Shape::String(StringRules {
    enum_values: &[],
    min_length: None,
    max_length: None,
    pattern: None,
    format: None,
});

// Bounds follow schemars: 8- and 16-bit integers carry both, wider unsigned ones `minimum: 0`.
simple! {
    bool => "\"type\":\"boolean\"", Shape::Bool;
    String => "\"type\":\"string\"", STRING;
    str => "\"type\":\"string\"", STRING;
    char => "\"type\":\"string\",\"minLength\":1,\"maxLength\":1",
        Shape::String(StringRules { enum_values: &[], min_length: Some(1), max_length: Some(1), pattern: None, format: None });
    f32 => "\"type\":\"number\"", Shape::Number(NumberRules { minimum: None, maximum: None, enum_values: &[] });
    f64 => "\"type\":\"number\"", Shape::Number(NumberRules { minimum: None, maximum: None, enum_values: &[] });
    i8 => "\"type\":\"integer\",\"minimum\":-128,\"maximum\":127", int(Some(-128.0), Some(127.0));
    i16 => "\"type\":\"integer\",\"minimum\":-32768,\"maximum\":32767", int(Some(-32768.0), Some(32767.0));
    i32 => "\"type\":\"integer\"", int(Some(i32::MIN as f64), Some(i32::MAX as f64));
    i64 => "\"type\":\"integer\"", int(None, None);
    isize => "\"type\":\"integer\"", int(None, None);
    u8 => "\"type\":\"integer\",\"minimum\":0,\"maximum\":255", int(Some(0.0), Some(255.0));
    u16 => "\"type\":\"integer\",\"minimum\":0,\"maximum\":65535", int(Some(0.0), Some(65535.0));
    u32 => "\"type\":\"integer\",\"minimum\":0", int(Some(0.0), Some(u32::MAX as f64));
    u64 => "\"type\":\"integer\",\"minimum\":0", int(Some(0.0), None);
    usize => "\"type\":\"integer\",\"minimum\":0", int(Some(0.0), None);
}

impl<T: Schema + ?Sized> Schema for &T {
    const MEMBERS: &'static [Piece] = T::MEMBERS;
    const SHAPE: Shape = T::SHAPE;
}

impl<T: Schema + ?Sized> Schema for Box<T> {
    const MEMBERS: &'static [Piece] = T::MEMBERS;
    const SHAPE: Shape = T::SHAPE;
}

impl<T: Schema> Schema for Option<T> {
    const MEMBERS: &'static [Piece] = &[
        Piece::Str("\"anyOf\":[{"),
        Piece::Tree(T::MEMBERS),
        Piece::Str("},{\"type\":\"null\"}]"),
    ];
    const SHAPE: Shape = Shape::Nullable(&T::SHAPE);
}

macro_rules! sequence {
    ($($t:ident),*) => {$(
        impl<T: Schema> Schema for $t<T> {
            const MEMBERS: &'static [Piece] = &[
                Piece::Str("\"type\":\"array\",\"items\":{"),
                Piece::Tree(T::MEMBERS),
                Piece::Str("}"),
            ];
            const SHAPE: Shape =
                Shape::Array(ArrayRules { items: &T::SHAPE, min_items: None, max_items: None });
        }
    )*};
}
sequence!(Vec, VecDeque);

impl<T: Schema> Schema for [T] {
    const MEMBERS: &'static [Piece] = <Vec<T> as Schema>::MEMBERS;
    const SHAPE: Shape = <Vec<T> as Schema>::SHAPE;
}

impl<T: Schema, const N: usize> Schema for [T; N] {
    const MEMBERS: &'static [Piece] = &[
        Piece::Str("\"type\":\"array\",\"items\":{"),
        Piece::Tree(T::MEMBERS),
        Piece::Str("},\"minItems\":"),
        Piece::Uint(N as u64),
        Piece::Str(",\"maxItems\":"),
        Piece::Uint(N as u64),
    ];
    const SHAPE: Shape = Shape::Array(ArrayRules {
        items: &T::SHAPE,
        min_items: Some(N as u32),
        max_items: Some(N as u32),
    });
}

macro_rules! set {
    ($($t:ident),*) => {$(
        impl<T: Schema, S> Schema for $t<T, S> {
            const MEMBERS: &'static [Piece] = &[
                Piece::Str("\"type\":\"array\",\"items\":{"),
                Piece::Tree(T::MEMBERS),
                Piece::Str("},\"uniqueItems\":true"),
            ];
            const SHAPE: Shape =
                Shape::Array(ArrayRules { items: &T::SHAPE, min_items: None, max_items: None });
        }
    )*};
}
set!(HashSet);

impl<T: Schema> Schema for BTreeSet<T> {
    const MEMBERS: &'static [Piece] = <HashSet<T> as Schema>::MEMBERS;
    const SHAPE: Shape = <HashSet<T> as Schema>::SHAPE;
}

impl<V: Schema, S> Schema for HashMap<String, V, S> {
    const MEMBERS: &'static [Piece] = &[
        Piece::Str("\"type\":\"object\",\"additionalProperties\":{"),
        Piece::Tree(V::MEMBERS),
        Piece::Str("}"),
    ];
    const SHAPE: Shape = Shape::Map(&V::SHAPE);
}

impl<V: Schema> Schema for BTreeMap<String, V> {
    const MEMBERS: &'static [Piece] = <HashMap<String, V> as Schema>::MEMBERS;
    const SHAPE: Shape = <HashMap<String, V> as Schema>::SHAPE;
}

// ---------------------------------------------------------------------------------------------
// Const scanners over compact schema text (the text the macros generate: no whitespace).

const fn skip_string(s: &[u8], mut i: usize) -> usize {
    i += 1;
    while s[i] != b'"' {
        i += if s[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

const fn skip_value(s: &[u8], mut i: usize) -> usize {
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
struct Member {
    key: usize,
    key_end: usize,
    value: usize,
    end: usize,
}

/// The member after `at` (the offset of `{` or of the `,` ending the previous member).
const fn member_at(s: &[u8], at: usize) -> Option<Member> {
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

const fn bytes_eq(s: &[u8], from: usize, to: usize, other: &[u8]) -> bool {
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

const fn count_chars(s: &[u8], from: usize, to: usize) -> usize {
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

const fn sub(s: &'static [u8], from: usize, to: usize) -> &'static str {
    let (_, rest) = s.split_at(from);
    let (mid, _) = rest.split_at(to - from);
    utf8(mid)
}

/// Byte range of an item (an object member or an array entry) with one adjacent comma: the one
/// after it, or before it for the last; none when it is the only one.
const fn with_comma(
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
struct Keys {
    properties: Option<Member>,
    required: Option<Member>,
    items: Option<Member>,
}

const fn keys(s: &[u8], obj: usize) -> Keys {
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

const fn count_members(s: &[u8], obj: usize) -> usize {
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
const fn required_range(
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

const fn sub_bytes(s: &[u8], from: usize, to: usize) -> &[u8] {
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

struct Walk<'a> {
    total_chars: usize,
    ascii: bool,
    count: usize,
    text_len: usize,
    text: &'a mut [u8],
    raw: &'a mut [RawCost],
}

/// Every property of the object schema whose members are `k`, then into each property's schema.
/// One pass per object: the whole walk is linear in the text times the nesting depth.
const fn walk_object(s: &[u8], k: Keys, parent: (usize, usize), depth: u8, w: &mut Walk<'_>) {
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

const fn chars(s: &[u8], (from, to): (usize, usize), ascii: bool) -> usize {
    if ascii {
        to - from
    } else {
        count_chars(s, from, to)
    }
}

/// Into a property's schema: its own properties, or through array items (array items are not
/// separate paths).
const fn descend(s: &[u8], value: usize, path: (usize, usize), depth: u8, w: &mut Walk<'_>) {
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

const fn run_walk(schema: &str, text: &mut [u8], raw: &mut [RawCost]) -> (usize, usize) {
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

// ---------------------------------------------------------------------------------------------
// Tools and packs.

/// What `#[charter::tool]` generates for a function: everything its [`ToolDef`] needs except
/// the pack, which `charter::pack!` supplies.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a charter tool",
    label = "not annotated with `#[charter::tool]`"
)]
pub trait Tool {
    /// The tool's own name inside its pack.
    const NAME: &'static str;
    /// The description (the doc comment, without its `# Arguments` section).
    const DESCRIPTION: &'static str;
    /// The search text.
    const SEARCH: SearchData;
    /// The MCP annotations.
    const ANNOTATIONS: Annotations;
    /// The author mode.
    const MODE: Option<&'static str>;
    /// Every parameter, including mode-labelled and from-context ones.
    const INPUT: &'static ObjectShape;
    /// The mode views, as for YAML packs.
    const VIEWS: &'static [View];
    /// The generated entry point.
    const HANDLER: Handler;
}

/// The table entry of tool `T` in pack `pack` under its qualified name `name`.
pub const fn tool_def<T: Tool>(pack: &'static str, name: &'static str) -> ToolDef {
    ToolDef {
        name,
        pack,
        tool: T::NAME,
        description: T::DESCRIPTION,
        annotations: T::ANNOTATIONS,
        mode: T::MODE,
        input: T::INPUT,
        views: T::VIEWS,
        search: T::SEARCH,
        exec: Exec::Rust(T::HANDLER),
    }
}

/// The longest qualified name docs/design.md §2 allows (the rule is `charter_terms::names`).
pub const MAX_NAME: usize = charter_terms::names::MAX_QUALIFIED_LEN;

/// The length of `<pack>_<tool>`.
pub const fn qualified_len(pack: &str, tool: &str) -> usize {
    pack.len() + 1 + tool.len()
}

/// `<pack>_<tool>` as bytes; `L` must be [`qualified_len`].
pub const fn qualify<const L: usize>(pack: &str, tool: &str) -> [u8; L] {
    let mut out = [b'_'; L];
    let (p, t) = (pack.as_bytes(), tool.as_bytes());
    let mut i = 0;
    while i < p.len() {
        out[i] = p[i];
        i += 1;
    }
    let mut j = 0;
    while j < t.len() {
        out[p.len() + 1 + j] = t[j];
        j += 1;
    }
    out
}

/// Whether two strings are equal, in `const` context.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && bytes_eq(a, 0, a.len(), b)
}

// ---------------------------------------------------------------------------------------------
// Run-time helpers of the generated handler.

/// The arguments of one call, taken apart parameter by parameter. Errors are collected so the
/// model reads all of them in one message, each with its field path.
#[derive(Debug)]
pub struct Args {
    map: Map<String, Value>,
    errors: Vec<String>,
    missing_context: Vec<String>,
}

impl Args {
    /// The arguments object (`null` counts as no arguments).
    pub fn new(arguments: Value) -> Result<Self, CharterError> {
        let map = match arguments {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(CharterError::validation(format!(
                    "invalid arguments: expected an object, got {}",
                    kind(&other)
                )));
            }
        };
        Ok(Self {
            map,
            errors: Vec::new(),
            missing_context: Vec::new(),
        })
    }

    fn decode<T: DeserializeOwned>(&mut self, name: &str, value: Value) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let path = e.path().to_string();
                let at = match path.as_str() {
                    "." => name.to_owned(),
                    p if p.starts_with('[') => format!("{name}{p}"),
                    p => format!("{name}.{p}"),
                };
                self.errors.push(format!("`{at}`: {}", e.into_inner()));
                None
            }
        }
    }

    /// A required parameter; `None` when it is missing or malformed (the error is recorded).
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            Some(value) => self.decode(name, value),
            None => {
                self.errors
                    .push(format!("`{name}`: missing required argument"));
                None
            }
        }
    }

    /// An optional parameter: `Some(None)` when absent or `null`.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => self.decode(name, value).map(Some),
        }
    }

    /// A parameter with a default: `T::default()` when absent.
    pub fn or_default<T: DeserializeOwned + Default>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            None => Some(T::default()),
            Some(value) => self.decode(name, value),
        }
    }

    /// A from-context parameter: `CallContext::values[key]` (or the value a session merged
    /// under the parameter's name). `Some(None)` when absent and `optional`.
    pub fn context<T: DeserializeOwned>(
        &mut self,
        ctx: &CallContext,
        name: &str,
        key: &str,
        optional: bool,
    ) -> Option<Option<T>> {
        let merged = self.map.remove(name);
        match ctx.values.get(key).cloned().or(merged) {
            Some(Value::Null) | None if optional => Some(None),
            Some(value) => match serde_path_to_error::deserialize::<_, T>(value) {
                Ok(v) => Some(Some(v)),
                Err(e) => {
                    self.missing_context.push(format!(
                        "context value `{key}` for `{name}` is malformed: {}",
                        e.into_inner()
                    ));
                    None
                }
            },
            None => {
                self.missing_context
                    .push(format!("context value `{key}` for `{name}` is missing"));
                None
            }
        }
    }

    /// Ends the parse: an error for the host if a context value is missing, otherwise one
    /// validation error listing every problem, extra keys included.
    pub fn finish(mut self) -> Result<(), CharterError> {
        if !self.missing_context.is_empty() {
            return Err(DeclarationError::new(self.missing_context.join("; ")).into());
        }
        for key in self.map.keys() {
            self.errors.push(format!("`{key}`: unexpected argument"));
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(CharterError::validation(format!(
                "invalid arguments: {}",
                self.errors.join("; ")
            )))
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A tool's return value as its answer: a JSON string becomes plain text, anything else JSON.
pub fn output<T: Serialize>(value: T) -> Result<ToolOutput, CharterError> {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => Ok(ToolOutput::text(text)),
        Ok(value) => Ok(ToolOutput::json(value)),
        Err(e) => Err(CharterError::Tool(format!(
            "the tool's result could not be serialised: {e}"
        ))),
    }
}

/// A tool's own error, displayed to the model.
pub fn tool_error<E: Display>(error: E) -> CharterError {
    CharterError::Tool(error.to_string())
}

use crate::table::ToolOutput;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_trees_flatten_in_const() {
        const S: &str = crate::schema_text!(Vec<Option<[u8; 12]>>);
        assert_eq!(
            S,
            r#"{"type":"array","items":{"anyOf":[{"type":"array","items":{"type":"integer","minimum":0,"maximum":255},"minItems":12,"maxItems":12},{"type":"null"}]}}"#
        );
        let v: Value = serde_json::from_str(S).unwrap();
        assert!(v.is_object());
        assert_eq!(
            render(<BTreeMap<String, bool> as Schema>::MEMBERS),
            r#""type":"object","additionalProperties":{"type":"boolean"}"#
        );
    }

    const TOOL: &str = r#"{"type":"object","properties":{"a":{"type":"string","description":"A é."},"p":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer","description":"X."},"y":{"type":"integer","description":"Y."}},"required":["x","y"],"additionalProperties":false},"description":"Points."},"b":{"type":"integer","description":"B."}},"required":["a","b"],"additionalProperties":false}"#;

    fn drop_range(s: &str, r: (u32, u32)) -> String {
        format!("{}{}", &s[..r.0 as usize], &s[r.1 as usize..])
    }

    #[test]
    fn spans_splice_to_valid_json() {
        const N: usize = prop_count(TOOL);
        const SP: [PropSpan; N] = spans::<N>(TOOL);
        assert_eq!(
            SP.iter().map(|s| s.name).collect::<Vec<_>>(),
            ["a", "p", "b"]
        );
        let full: Value = serde_json::from_str(TOOL).unwrap();
        for span in &SP {
            // Drop the required entry first (it sits after the property).
            let mut text = TOOL.to_owned();
            if let Some(r) = span.required {
                text = drop_range(&text, r);
            }
            text = drop_range(&text, span.property);
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let mut expect = full.clone();
            expect["properties"]
                .as_object_mut()
                .unwrap()
                .remove(span.name);
            let req = expect["required"].as_array_mut().unwrap();
            req.retain(|r| r != span.name);
            assert_eq!(v, expect, "{}", span.name);
        }
        // Only entry: the whole member goes.
        const ONE: &str = r#"{"type":"object","properties":{"a":{"type":"string","description":"A."}},"required":["a"],"additionalProperties":false}"#;
        const SP1: [PropSpan; 1] = spans::<1>(ONE);
        let t = drop_range(&drop_range(ONE, SP1[0].required.unwrap()), SP1[0].property);
        assert_eq!(
            t,
            r#"{"type":"object","properties":{},"additionalProperties":false}"#
        );
    }

    #[test]
    fn paths_are_exact() {
        const N: usize = path_sizes(TOOL).0;
        const L: usize = path_sizes(TOOL).1;
        const W: PathWalk<N, L> = path_walk::<N, L>(TOOL);
        const T: [u8; L] = W.text;
        const P: [PathCost; N] = paths::<N>(&W.raw, &T);
        let mut names: Vec<_> = P.iter().map(|p| (p.path, p.depth)).collect();
        names.sort();
        assert_eq!(
            names,
            [("a", 1), ("b", 1), ("p", 1), ("p.x", 2), ("p.y", 2)]
        );
        for w in P.windows(2) {
            assert!(w[0].saves >= w[1].saves);
        }
        let full: Value = serde_json::from_str(TOOL).unwrap();
        let tokens = crate::json_tokens(&full);
        for p in &P {
            let mut v = full.clone();
            let mut obj = &mut v;
            let parts: Vec<_> = p.path.split('.').collect();
            for part in &parts[..parts.len() - 1] {
                obj = &mut obj["properties"][*part];
                if obj.get("items").is_some() {
                    obj = &mut obj["items"];
                }
            }
            let last = parts[parts.len() - 1];
            obj["properties"].as_object_mut().unwrap().remove(last);
            if let Some(req) = obj.get_mut("required").and_then(Value::as_array_mut) {
                req.retain(|r| r != last);
                if req.is_empty() {
                    obj.as_object_mut().unwrap().remove("required");
                }
            }
            assert_eq!(p.saves, tokens - crate::json_tokens(&v), "{}", p.path);
        }
    }

    #[test]
    fn qualified_names() {
        const Q: &str = crate::__const_qualified!("notes", "create_note");
        assert_eq!(Q, "notes_create_note");
        assert!(str_eq(Q, "notes_create_note") && !str_eq(Q, "notes_create"));
    }

    #[test]
    fn args_collect_every_error_with_paths() {
        let mut args =
            Args::new(serde_json::json!({"a": 1, "p": [{"x": "no"}], "zz": true})).unwrap();
        let a: Option<String> = args.required("a");
        let p: Option<Vec<BTreeMap<String, u32>>> = args.required("p");
        let b: Option<Option<u8>> = args.optional("b");
        assert!(a.is_none() && p.is_none() && b == Some(None));
        let err = args.finish().unwrap_err();
        assert!(err.is_validation());
        let msg = err.to_string();
        assert!(
            msg.contains("`a`: invalid type: integer `1`, expected a string"),
            "{msg}"
        );
        assert!(
            msg.contains("`p[0].x`: invalid type: string \"no\""),
            "{msg}"
        );
        assert!(msg.contains("`zz`: unexpected argument"), "{msg}");
    }

    #[test]
    fn context_values_win_and_missing_ones_are_host_errors() {
        let ctx = CallContext::new().with_value("cust", serde_json::json!("c_1"));
        let mut args = Args::new(Value::Null).unwrap();
        let c: Option<Option<String>> = args.context(&ctx, "customer", "cust", false);
        assert_eq!(c, Some(Some("c_1".to_owned())));
        let d: Option<Option<String>> = args.context(&ctx, "region", "region", true);
        assert_eq!(d, Some(None));
        args.finish().unwrap();
        let mut args = Args::new(Value::Null).unwrap();
        let _: Option<Option<String>> = args.context(&ctx, "region", "region", false);
        assert!(matches!(args.finish(), Err(CharterError::Declaration(_))));
        assert!(Args::new(serde_json::json!([1])).is_err());
    }

    #[test]
    fn outputs() {
        assert_eq!(output("hi").unwrap(), ToolOutput::text("hi"));
        assert_eq!(
            output(vec![1, 2]).unwrap(),
            ToolOutput::json(serde_json::json!([1, 2]))
        );
        assert_eq!(tool_error("boom"), CharterError::Tool("boom".into()));
    }
}
