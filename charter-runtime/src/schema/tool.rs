//! What `#[charter::tool]` and `charter::pack!` generate against: the [`Tool`] trait, the const
//! helpers that qualify names, and the macros that evaluate the schema emitter in `const`
//! context.

use crate::table::{
    Annotations, Exec, Handler, ObjectShape, Output, SearchData, Shape, ToolDef, View,
};

#[doc(hidden)]
pub use charter_terms::modes::str_eq;

// ---------------------------------------------------------------------------------------------
// Tools and packs.

/// What `#[charter::tool]` generates for a function: everything its [`ToolDef`] needs except
/// the pack, which `charter::pack!` supplies.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a charter tool",
    label = "not annotated with `#[charter::tool]`"
)]
#[doc(hidden)]
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
    /// What the tool answers: its return type's schema, or [`Gap::UntypedReturn`](crate::table::Gap).
    const OUTPUT: Output;
    /// The generated entry point.
    const HANDLER: Handler;
}

/// The table entry of tool `T` in pack `pack` under its qualified name `name`.
#[doc(hidden)]
pub const fn tool_def<T: Tool>(pack: &'static str, name: &'static str) -> ToolDef {
    ToolDef {
        name,
        pack,
        tool: T::NAME,
        description: T::DESCRIPTION,
        annotations: T::ANNOTATIONS,
        mode: T::MODE,
        input: T::INPUT,
        require_one_of: &[],
        require_exactly_one_of: &[],
        views: T::VIEWS,
        search: T::SEARCH,
        output: T::OUTPUT,
        exec: Exec::Rust(T::HANDLER),
    }
}

/// The longest qualified name docs/design.md §2 allows (the rule is `charter_terms::names`).
#[doc(hidden)]
pub const MAX_NAME: usize = charter_terms::names::MAX_QUALIFIED_LEN;

/// The length of `<pack>_<tool>`.
#[doc(hidden)]
pub const fn qualified_len(pack: &str, tool: &str) -> usize {
    pack.len() + 1 + tool.len()
}

/// `<pack>_<tool>` as bytes; `L` must be [`qualified_len`].
#[doc(hidden)]
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

/// `bytes` as `&str`, in `const` context (panics at compile time on invalid UTF-8, which
/// generated code never produces).
#[doc(hidden)]
pub const fn utf8(bytes: &'static [u8]) -> &'static str {
    charter_schema::emit::utf8(bytes)
}

/// The schema text of one shape as bytes; `L` must be `charter_schema::emit::shape_measure`
/// of it (generated code: [`schema_text!`](crate::schema_text)).
#[doc(hidden)]
pub const fn shape_text<const L: usize>(shape: &crate::table::Shape) -> [u8; L] {
    let mut buf = [0u8; L];
    let n = charter_schema::emit::shape_write(shape, charter_schema::Target::Portable, &mut buf);
    assert!(n == L, "shape_text: L is not shape_measure of the shape");
    buf
}

/// The result schema text of one shape as bytes ([`Target::Result`](charter_schema::Target)); `L`
/// must be `charter_schema::emit::shape_measure` of it in that target (generated code:
/// `__const_output!`).
#[doc(hidden)]
pub const fn result_text<const L: usize>(shape: &crate::table::Shape) -> [u8; L] {
    let mut buf = [0u8; L];
    let n = charter_schema::emit::shape_write(shape, charter_schema::Target::Result, &mut buf);
    assert!(n == L, "result_text: L is not shape_measure of the shape");
    buf
}

/// A Rust tool's [`Output`](crate::table::Output), evaluated in `const` context from `$result`
/// (an `Option<&'static Shape>`: the return type's, [`Returned`]): its schema text written by the
/// emitter, or the named gap `untyped-return` (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_output {
    ($result:expr) => {{
        const __O: ::core::option::Option<&'static $crate::table::Shape> = $result;
        const __S: &'static $crate::table::Shape = match __O {
            ::core::option::Option::Some(s) => s,
            ::core::option::Option::None => &$crate::table::Shape::Any,
        };
        const __L: usize =
            $crate::__schema::emit::shape_measure(__S, $crate::__schema::Target::Result);
        const __B: [u8; __L] = $crate::schema::result_text::<__L>(__S);
        const __T: &str = $crate::schema::utf8(&__B);
        const __OS: $crate::table::OutputSchema =
            $crate::table::OutputSchema::new(__S, __T, $crate::text_tokens(__T));
        const __OUT: $crate::table::Output = match __O {
            ::core::option::Option::Some(_) => $crate::table::Output::Schema(&__OS),
            ::core::option::Option::None => {
                $crate::table::Output::Unknown($crate::table::Gap::UntypedReturn)
            }
        };
        __OUT
    }};
}

/// The schema text of a type implementing [`Schema`](super::Schema), as a `&'static str`
/// constant built at compile time by the schema emitter: `charter::schema_text!(Vec<Note>)`.
#[macro_export]
macro_rules! schema_text {
    ($t:ty) => {{
        const __S: &$crate::table::Shape = &<$t as $crate::schema::Schema>::SHAPE;
        const __L: usize =
            $crate::__schema::emit::shape_measure(__S, $crate::__schema::Target::Portable);
        const __B: [u8; __L] = $crate::schema::shape_text::<__L>(__S);
        $crate::schema::utf8(&__B)
    }};
}

/// One view of a Rust tool, evaluated in `const` context by the schema emitter: `(schema text,
/// tokens, spans, paths, signature, signature tokens)` of the tool whose arguments are `$input`
/// (an `&'static ObjectShape`) with the labels `$active` in force, `$widest` when no mode is
/// (generated code). The signature is code mode's TypeScript declaration, its result typed by
/// `$result` (an `Option<&'static Shape>`: the return type's, [`Returned`]; `None`: `any`).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_view {
    ($input:expr, [$($active:expr),*], $widest:expr, $result:expr) => {{
        const __R: $crate::__schema::Root<'static> = $crate::__schema::Root::of($input);
        const __RT: $crate::__schema::emit::typescript::Returns<'static> = match $result {
            ::core::option::Option::Some(shape) => {
                $crate::__schema::emit::typescript::Returns::Shape(shape)
            }
            ::core::option::Option::None => $crate::__schema::emit::typescript::Returns::Any,
        };
        const __LB: $crate::__schema::Labels<'static> =
            $crate::__schema::Labels { active: &[$($active),*], widest: $widest };
        const __M: $crate::__schema::Measure =
            $crate::__schema::emit::measure(&__R, __LB, $crate::__schema::Target::Portable);
        const __V: $crate::__schema::emit::ViewText<
            { __M.bytes },
            { __M.spans },
            { __M.paths },
            { __M.path_text },
        > = $crate::__schema::emit::view_text(&__R, __LB, $crate::__schema::Target::Portable);
        const __T: [u8; __M.bytes] = __V.text;
        const __SP: [$crate::table::PropSpan; __M.spans] = __V.spans;
        const __PT: [u8; __M.path_text] = __V.path_text;
        const __P: [$crate::table::PathCost; __M.paths] =
            $crate::__schema::emit::path_costs(&__V.raw, &__PT);
        const __SM: $crate::__schema::Measure =
            $crate::__schema::emit::typescript::signature_measure(&__R, __LB, __RT);
        const __SV: $crate::__schema::emit::typescript::SignatureText<{ __SM.bytes }> =
            $crate::__schema::emit::typescript::signature_text(&__R, __LB, __RT);
        const __ST: [u8; __SM.bytes] = __SV.text;
        let __out: (
            &'static str,
            u32,
            &'static [$crate::table::PropSpan],
            &'static [$crate::table::PathCost],
            &'static str,
            u32,
        ) = (
            $crate::schema::utf8(&__T),
            __V.tokens,
            &__SP,
            &__P,
            $crate::schema::utf8(&__ST),
            __SV.tokens,
        );
        __out
    }};
}

/// A Rust tool's return type `T` (of `T` or `Result<T, E>`) probed for a schema in `const`
/// context (generated code): `{ use Untyped as _; <Returned<T>>::SHAPE }` is `Some(&T::SHAPE)`
/// where `T: Schema`, since an inherent constant shadows a trait's, and else `None` from the
/// [`Untyped`] fallback, without an error: a tool may return anything `Serialize`. The choice
/// needs a concrete `T` (a tool's return type is one; the macro leaves `impl Trait` out).
#[doc(hidden)]
pub struct Returned<T: ?Sized>(core::marker::PhantomData<T>);

/// The fallback of [`Returned`]: no shape.
#[doc(hidden)]
pub trait Untyped {
    /// `None`: the type has no schema.
    const SHAPE: Option<&'static Shape> = None;
}

impl<T: ?Sized> Untyped for Returned<T> {}

impl<T: super::Schema + ?Sized> Returned<T> {
    /// The type's shape.
    pub const SHAPE: Option<&'static Shape> = Some(&T::SHAPE);
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

/// One view of a Rust tool in the dialects whose text differs from the portable form
/// (docs/dialects.md), evaluated in `const` context by the schema emitter: a
/// `table::DialectSchemas` (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_dialects {
    ($input:expr, [$($active:expr),*], $widest:expr) => {
        $crate::table::DialectSchemas::new(
            $crate::__const_dialect!($input, [$($active),*], $widest, OpenAiStrict),
            $crate::__const_dialect!($input, [$($active),*], $widest, Gemini),
        )
        .with_anthropic_strict($crate::__const_anthropic_strict!($input, [$($active),*], $widest))
    };
}

/// One view in Anthropic's strict dialect: `None` when it reaches a recursive type (never for a
/// Rust tool, whose shapes are not recursive; decided the same way as the pack compiler's).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_anthropic_strict {
    ($input:expr, [$($active:expr),*], $widest:expr) => {{
        const __R: $crate::__schema::Root<'static> = $crate::__schema::Root::of($input);
        const __LB: $crate::__schema::Labels<'static> =
            $crate::__schema::Labels { active: &[$($active),*], widest: $widest };
        const __M: $crate::__schema::Measure = $crate::__schema::emit::measure(
            &__R,
            __LB,
            $crate::__schema::Target::AnthropicStrict,
        );
        const __S: $crate::table::DialectSchema =
            $crate::__const_dialect!($input, [$($active),*], $widest, AnthropicStrict);
        if __M.defs == 0 { Some(__S) } else { None }
    }};
}

/// One view in one dialect (`$target`, a `charter_schema::Target` variant): its text, tokens
/// and spans (paths are the portable form's only).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_dialect {
    ($input:expr, [$($active:expr),*], $widest:expr, $target:ident) => {{
        const __R: $crate::__schema::Root<'static> = $crate::__schema::Root::of($input);
        const __LB: $crate::__schema::Labels<'static> =
            $crate::__schema::Labels { active: &[$($active),*], widest: $widest };
        const __M: $crate::__schema::Measure =
            $crate::__schema::emit::measure(&__R, __LB, $crate::__schema::Target::$target);
        const __V: $crate::__schema::emit::ViewText<
            { __M.bytes },
            { __M.spans },
            { __M.paths },
            { __M.path_text },
        > = $crate::__schema::emit::view_text(&__R, __LB, $crate::__schema::Target::$target);
        const __T: [u8; __M.bytes] = __V.text;
        const __SP: [$crate::table::PropSpan; __M.spans] = __V.spans;
        $crate::table::DialectSchema::new($crate::schema::utf8(&__T), __V.tokens, &__SP)
    }};
}
