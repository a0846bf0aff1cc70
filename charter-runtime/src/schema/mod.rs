//! Compile-time schemas for Rust tools (docs/design.md §1, §3): what `#[derive(charter::Schema)]`,
//! `#[charter::tool]` and `charter::pack!` expand to.
//!
//! A Rust type's schema is its [`Shape`]: generic impls (`Vec<T>`, `Option<T>`, maps, user
//! generics) build theirs from their parameters' shapes, and the tool macro, where every type is
//! concrete, has `charter_schema`'s emitter write each mode view's text, size, spans and path
//! savings in `const` context (the very emitter the pack compiler runs natively for YAML
//! tools), so a tool's [`ToolDef`](crate::table::ToolDef) is a `static` whose every schema byte
//! and size is fixed at build time.
//!
//! The module also holds the small run-time helpers the generated handler calls (`Args`,
//! `output`): they deserialise already validated arguments, never a schema. Those, the `Tool`
//! trait, `tool_def` and the const helpers are for generated code only and hidden from the
//! documentation (`#[doc(hidden)]`, as serde's `__private`).
//!
//! - `tool`: the `Tool` trait and `tool_def`, the const macros generated code calls.
//! - `args`: `Args`, `output`, `tool_error`.

mod args;
mod tool;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use crate::table::{ArrayRules, NumberRules, Shape, StringRules};
use charter_schema::num;

pub use args::*;
pub use tool::*;

// ---------------------------------------------------------------------------------------------
// The trait.

/// A type whose argument shape (and so its JSON schema) is a compile-time constant.
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
    /// The shape of the type's values: what validation checks and what the schema emitter
    /// writes (a value, so enums can list it in [`Shape::OneOf`]; refer to it as `&T::SHAPE`).
    /// It never carries a description: the property holding the value has its own.
    const SHAPE: Shape;
}

macro_rules! simple {
    ($($t:ty => $shape:expr;)*) => {$(
        impl Schema for $t {
            const SHAPE: Shape = $shape;
        }
    )*};
}

const fn int(rules: NumberRules) -> Shape {
    Shape::Integer(rules)
}

const fn bounded(
    minimum: Option<charter_schema::Num>,
    maximum: Option<charter_schema::Num>,
) -> Shape {
    let mut rules = NumberRules::NONE;
    rules.minimum = minimum;
    rules.maximum = maximum;
    int(rules)
}

// Bounds follow schemars: 8- and 16-bit integers carry both, wider unsigned ones `minimum: 0`,
// wider signed ones none (a value out of the type's range is refused when the handler
// deserialises it).
simple! {
    bool => Shape::Bool;
    String => Shape::String(StringRules::NONE);
    str => Shape::String(StringRules::NONE);
    char => Shape::String(StringRules::NONE.with_min_length(1).with_max_length(1));
    f32 => Shape::Number(NumberRules::NONE);
    f64 => Shape::Number(NumberRules::NONE);
    i8 => bounded(Some(num!(-128)), Some(num!(127)));
    i16 => bounded(Some(num!(-32768)), Some(num!(32767)));
    i32 => int(NumberRules::NONE);
    i64 => int(NumberRules::NONE);
    isize => int(NumberRules::NONE);
    u8 => bounded(Some(num!(0)), Some(num!(255)));
    u16 => bounded(Some(num!(0)), Some(num!(65535)));
    u32 => bounded(Some(num!(0)), None);
    u64 => bounded(Some(num!(0)), None);
    usize => bounded(Some(num!(0)), None);
}

impl<T: Schema + ?Sized> Schema for &T {
    const SHAPE: Shape = T::SHAPE;
}

impl<T: Schema + ?Sized> Schema for Box<T> {
    const SHAPE: Shape = T::SHAPE;
}

impl<T: Schema> Schema for Option<T> {
    const SHAPE: Shape = Shape::Nullable(&T::SHAPE);
}

macro_rules! sequence {
    ($($t:ident),*) => {$(
        impl<T: Schema> Schema for $t<T> {
            const SHAPE: Shape = Shape::Array(ArrayRules::of(&T::SHAPE));
        }
    )*};
}
sequence!(Vec, VecDeque);

impl<T: Schema> Schema for [T] {
    const SHAPE: Shape = <Vec<T> as Schema>::SHAPE;
}

impl<T: Schema, const N: usize> Schema for [T; N] {
    const SHAPE: Shape = Shape::Array(
        ArrayRules::of(&T::SHAPE)
            .with_min_items(N as u32)
            .with_max_items(N as u32),
    );
}

impl<T: Schema, S> Schema for HashSet<T, S> {
    const SHAPE: Shape = Shape::Array(ArrayRules::of(&T::SHAPE).with_unique_items(true));
}

impl<T: Schema> Schema for BTreeSet<T> {
    const SHAPE: Shape = <HashSet<T> as Schema>::SHAPE;
}

impl<V: Schema, S> Schema for HashMap<String, V, S> {
    const SHAPE: Shape = Shape::Map(&V::SHAPE);
}

impl<V: Schema> Schema for BTreeMap<String, V> {
    const SHAPE: Shape = <HashMap<String, V> as Schema>::SHAPE;
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::context::CallContext;
    use crate::error::CharterError;
    use crate::table::ToolOutput;

    #[test]
    fn generic_shapes_write_in_const() {
        const S: &str = crate::schema_text!(Vec<Option<[u8; 12]>>);
        assert_eq!(
            S,
            r#"{"type":"array","items":{"anyOf":[{"type":"array","items":{"type":"integer","minimum":0,"maximum":255},"minItems":12,"maxItems":12},{"type":"null"}]}}"#
        );
        let v: Value = serde_json::from_str(S).unwrap();
        assert!(v.is_object());
        assert_eq!(
            crate::schema_text!(BTreeMap<String, bool>),
            r#"{"type":"object","additionalProperties":{"type":"boolean"}}"#
        );
        assert_eq!(
            crate::schema_text!(HashSet<String>),
            r#"{"type":"array","items":{"type":"string"},"uniqueItems":true}"#
        );
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
