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
//!
//! - `pieces`: [`Piece`] trees and [`flatten`].
//! - `scan`: [`spans`] and [`paths`] read off the flattened text.
//! - `tool`: the [`Tool`] trait and [`tool_def`].
//! - `args`: [`Args`], [`output`], [`tool_error`].

mod args;
mod pieces;
mod scan;
mod tool;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use crate::table::{ArrayRules, NumberRules, Shape, StringRules};

pub use args::*;
pub use pieces::*;
pub use scan::*;
pub use tool::*;

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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::context::CallContext;
    use crate::error::CharterError;
    use crate::table::{PathCost, PropSpan, ToolOutput};

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
