//! The one schema emitter (docs/design.md §3): from a tool's argument [`ObjectShape`], one view
//! (the labels in force) and one [`Target`], the compact JSON Schema text, its size, where each
//! top-level property sits in it ([`PropSpan`]) and what dropping each argument path saves
//! (`PathCost`).
//!
//! Every function here is a `const fn`, so the same code runs in two places: `#[charter::tool]`
//! evaluates it in `const` context (a Rust tool's views are constants), and the pack compiler
//! and the test kit call it natively and write or leak the results. It runs in two passes over
//! the same code: a length pass that writes nowhere and counts bytes, characters, spans and
//! paths ([`measure`]), then a write pass into buffers of exactly those sizes (`write`). Spans
//! and path savings are recorded while writing, from the structure being written, never read
//! back off the text.
//!
//! - `out`: the writer both passes share (bytes, characters, JSON string escaping).
//! - `node`: one value's schema, by shape.
//! - `object`: properties, `required`, spans, paths and groups of an object.
//! - `paths`: the savings of argument paths, and their order.
//! - `native`: the same functions with heap buffers, for the compiler and the test kit.
//! - [`typescript`]: code mode's TypeScript signature of a view, from the same tree.

mod native;
mod node;
mod out;
mod paths;
pub mod typescript;

pub use native::{Emitted, PathSaving, emit, emit_shape};
pub use paths::path_costs;

use crate::shape::{Named, ObjectShape, Shape};
use crate::view::{PropSpan, RawPath};
use out::Out;

/// The schema dialect written (docs/dialects.md): the portable form every model API and MCP
/// client accepts, and the per-provider dialects that need more or less of it. Code mode's
/// TypeScript signatures are a further target of this emitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// docs/design.md §3 "The portable form": root `type: object` with no combinator (a tool's
    /// groups are a sentence in the root's `description`), nullable values as `anyOf` with
    /// `null`, never a `type` array.
    Portable,
    /// OpenAI's strict mode (`strict: true`): every object closed and every property required,
    /// an optional one nullable (`null` meaning absent); a map as a list of `{key, value}`
    /// objects; a value of any type as JSON text; `oneOf` as `anyOf`; a `$ref` alone in its
    /// object; what strict mode does not take (`default`, `minLength`/`maxLength`,
    /// `uniqueItems`, formats other than date-time, date, email and uuid, an object's groups)
    /// told in the description instead, or left to validation.
    OpenAiStrict,
    /// Gemini's function declarations (`parameters`: the OpenAPI 3.0 subset that the
    /// `google-genai` SDK's `types.Schema` holds): `nullable: true` instead of `anyOf` with
    /// `null`, string enums only (a number's values told in the description), `anyOf` for
    /// `oneOf`, `ref`/`defs` for `$ref`/`$defs`, no `additionalProperties` (a map is a list of
    /// `{key, value}` objects), no `uniqueItems`, string formats other than date-time told in the
    /// description.
    Gemini,
    /// Anthropic's strict tool use (`strict: true`): what the Anthropic SDK's `transform_schema`
    /// leaves unchanged. Every object closed (optional properties stay optional); a map as a list
    /// of `{key, value}` objects; a value of any type as JSON text; `oneOf` as `anyOf`; an
    /// `enum` without its `type`; what strict mode does not take told in the description
    /// (`default`, `minimum`/`maximum`, `pattern`, `maxItems`, a `minItems` over 1, formats
    /// other than its ten) or left to validation (`minLength`/`maxLength`, `uniqueItems`). A view
    /// that reaches a recursive type cannot go strict ([`Measure::defs`]).
    AnthropicStrict,
    /// What a tool answers (MCP's `outputSchema`, docs/results.md): the portable form with every
    /// object open, since an API adds members without notice and a declared result must never
    /// make a correct answer fail a client's validation; alternatives as `anyOf`, since open
    /// objects overlap and "exactly one" would refuse a correct answer. Its root may be any
    /// shape.
    Result,
}

impl Target {
    /// Whether this is the portable form (or [`Target::Result`], the portable form of an answer).
    pub const fn is_portable(self) -> bool {
        matches!(self, Target::Portable | Target::Result)
    }

    /// Whether every property is required (a `null` standing for an absent optional one).
    pub const fn all_required(self) -> bool {
        matches!(self, Target::OpenAiStrict)
    }

    /// Whether `default` is a keyword here (the strict dialects tell it in the description).
    pub const fn takes_default(self) -> bool {
        matches!(self, Target::Portable | Target::Gemini | Target::Result)
    }

    /// Whether `minLength` / `maxLength` are keywords here (the strict dialects leave them to
    /// validation).
    pub const fn takes_lengths(self) -> bool {
        matches!(self, Target::Portable | Target::Gemini | Target::Result)
    }

    /// Whether `minimum`, `maximum`, `pattern`, `maxItems` and any `minItems` are keywords here
    /// (Anthropic's strict mode takes a `minItems` of 0 or 1 only, and none of the others: they
    /// are told in the description).
    pub const fn takes_bounds(self) -> bool {
        !matches!(self, Target::AnthropicStrict)
    }

    /// Whether every object is `additionalProperties: false` (Gemini's subset has no closed
    /// objects; an answer's objects stay open).
    pub const fn closes_objects(self) -> bool {
        !matches!(self, Target::Gemini | Target::Result)
    }
}

/// The labels in force in one view (docs/design.md §5).
#[derive(Debug, Clone, Copy)]
pub struct Labels<'a> {
    /// The labels in force (the tool's author mode, then the session mode).
    pub active: &'a [&'a str],
    /// No mode at all is in force: every custom-labelled field is shown.
    pub widest: bool,
}

impl Labels<'_> {
    /// The widest view of a tool without an author mode.
    pub const WIDEST: Labels<'static> = Labels {
        active: &[],
        widest: true,
    };
}

/// A tool's own "at least one of" / "exactly one of" groups of its top-level parameters.
#[derive(Debug, Clone, Copy)]
pub struct Groups<'a> {
    /// "At least one of" (`require_one_of`).
    pub at_least_one: &'a [&'a [&'a str]],
    /// "Exactly one of" (`require_exactly_one_of`).
    pub exactly_one: &'a [&'a [&'a str]],
}

impl Groups<'_> {
    /// No groups.
    pub const NONE: Groups<'static> = Groups {
        at_least_one: &[],
        exactly_one: &[],
    };
}

/// What one tool's schema is written from.
#[derive(Debug, Clone, Copy)]
pub struct Root<'a> {
    /// The tool's arguments.
    pub input: &'a ObjectShape,
    /// The tool's own groups (told in the root's `description`).
    pub groups: Groups<'a>,
    /// Every recursive named type the tool may reach, in declaration order: those a view
    /// reaches are written under `$defs` in this order. Empty where nothing is recursive (Rust
    /// tools).
    pub defs: &'a [&'a Named],
}

impl<'a> Root<'a> {
    /// A tool's arguments without groups or recursive types.
    pub const fn of(input: &'a ObjectShape) -> Root<'a> {
        Root {
            input,
            groups: Groups::NONE,
            defs: &[],
        }
    }
}

/// What the length pass counts: the sizes of the write pass's buffers, and the size itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    /// Bytes of schema text.
    pub bytes: usize,
    /// Characters of schema text (`tokens` is this divided by four).
    pub chars: usize,
    /// Top-level properties shown (one [`PropSpan`] each).
    pub spans: usize,
    /// Selectable argument paths (one [`PathCost`](crate::PathCost) each).
    pub paths: usize,
    /// Bytes of all dotted path names together.
    pub path_text: usize,
    /// Recursive types written under `$defs` (a view with any cannot go strict in Anthropic's
    /// dialect, whose grammar takes no recursion).
    pub defs: usize,
}

impl Measure {
    /// `json_tokens` of the text: its characters divided by four (docs/design.md §3).
    pub const fn tokens(&self) -> u32 {
        charter_terms::tokens::chars_tokens(self.chars)
    }
}

/// The most recursive named types one tool may reach.
pub const MAX_DEFS: usize = 64;

/// Which property to leave out (what a path's saving is measured against when dropping it
/// also drops a `$defs` entry): the property `name` of the object whose path is the
/// `parent`th in walk order ([`ROOT`] for the top level).
#[derive(Clone, Copy)]
pub(crate) struct Omit<'a> {
    pub(crate) parent: usize,
    pub(crate) name: &'a str,
}

/// The walk index standing for the top level.
pub(crate) const ROOT: usize = usize::MAX - 1;
/// No walk index at all: nothing is left out.
pub(crate) const NOWHERE: usize = usize::MAX;

/// Where the object being written sits among the argument paths: its own walk index and dotted
/// name (a range of the path text), and its depth. `None` where paths do not apply (inside
/// `$defs`, alternatives and map values).
#[derive(Clone, Copy)]
pub(crate) struct Track {
    pub(crate) index: usize,
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) depth: u8,
}

/// One pass's state.
pub(crate) struct Emit<'a, 'b> {
    pub(crate) out: Out<'b>,
    pub(crate) labels: Labels<'a>,
    pub(crate) target: Target,
    pub(crate) defs: &'a [&'a Named],
    /// Which of `defs` this view reaches.
    pub(crate) used: [bool; MAX_DEFS],
    pub(crate) omit: Omit<'a>,
    /// `$ref`s written so far (a path whose text holds one is measured by a pass without it).
    pub(crate) refs: usize,
    pub(crate) spans: &'b mut [PropSpan],
    pub(crate) nspans: usize,
    pub(crate) raw: &'b mut [RawPath],
    pub(crate) npaths: usize,
    pub(crate) path_text: &'b mut [u8],
    pub(crate) path_len: usize,
    /// The next schema object opened is nullable (Gemini's `"nullable":true`, written first).
    pub(crate) nullable_next: bool,
}

/// One pass over `root`: writes into the buffers given (all empty: the length pass).
const fn pass<'a, 'b>(
    root: &Root<'a>,
    labels: Labels<'a>,
    target: Target,
    omit: Omit<'a>,
    buffers: (
        &'b mut [u8],
        &'b mut [PropSpan],
        &'b mut [RawPath],
        &'b mut [u8],
    ),
) -> Measure {
    assert!(
        root.defs.len() <= MAX_DEFS,
        "a tool reaches more recursive types than the schema emitter holds (MAX_DEFS)"
    );
    let (text, spans, raw, path_text) = buffers;
    let mut e = Emit {
        out: Out::new(text),
        labels,
        target,
        defs: root.defs,
        used: [false; MAX_DEFS],
        omit,
        refs: 0,
        spans,
        nspans: 0,
        raw,
        npaths: 0,
        path_text,
        path_len: 0,
        nullable_next: false,
    };
    node::object::root(&mut e, root);
    Measure {
        bytes: e.out.len,
        chars: e.out.chars,
        spans: e.nspans,
        paths: e.npaths,
        path_text: e.path_len,
        defs: node::object::count(&e.used),
    }
}

/// The length pass of one view: the sizes `write` needs, and the text's size.
pub const fn measure(root: &Root<'_>, labels: Labels<'_>, target: Target) -> Measure {
    measure_without(root, labels, target, NOWHERE, "")
}

/// The length pass with one property left out (see [`Omit`]).
pub(crate) const fn measure_without(
    root: &Root<'_>,
    labels: Labels<'_>,
    target: Target,
    parent: usize,
    name: &str,
) -> Measure {
    let (mut text, mut spans, mut raw, mut path_text): (
        [u8; 0],
        [PropSpan; 0],
        [RawPath; 0],
        [u8; 0],
    ) = ([], [], [], []);
    pass(
        root,
        labels,
        target,
        Omit { parent, name },
        (&mut text, &mut spans, &mut raw, &mut path_text),
    )
}

/// The write pass of one view, into buffers of exactly [`measure`]'s sizes: the text, the
/// top-level spans, the argument paths (their savings computed and sorted, most expensive
/// first, ties in walk order) and the text of their dotted names.
pub const fn write(
    root: &Root<'_>,
    labels: Labels<'_>,
    target: Target,
    text: &mut [u8],
    spans: &mut [PropSpan],
    raw: &mut [RawPath],
    path_text: &mut [u8],
) -> Measure {
    let omit = Omit {
        parent: NOWHERE,
        name: "",
    };
    let m = pass(
        root,
        labels,
        target,
        omit,
        (text, spans, &mut *raw, path_text),
    );
    paths::finish(root, labels, target, m.chars, raw);
    m
}

/// The schema text of one shape on its own (not a tool's root: no spans, no paths), as
/// `charter::schema_text!` shows a type's schema.
pub const fn shape_measure(shape: &Shape, target: Target) -> usize {
    let mut none: [u8; 0] = [];
    shape_pass(shape, target, &mut none)
}

/// Writes [`shape_measure`]`(shape)` bytes of one shape's schema text.
pub const fn shape_write(shape: &Shape, target: Target, text: &mut [u8]) -> usize {
    shape_pass(shape, target, text)
}

const fn shape_pass(shape: &Shape, target: Target, text: &mut [u8]) -> usize {
    let (mut spans, mut raw, mut path_text): ([PropSpan; 0], [RawPath; 0], [u8; 0]) = ([], [], []);
    let mut e = Emit {
        out: Out::new(text),
        labels: Labels::WIDEST,
        target,
        defs: &[],
        used: [false; MAX_DEFS],
        omit: Omit {
            parent: NOWHERE,
            name: "",
        },
        refs: 0,
        spans: &mut spans,
        nspans: 0,
        raw: &mut raw,
        npaths: 0,
        path_text: &mut path_text,
        path_len: 0,
        nullable_next: false,
    };
    node::node(&mut e, shape, None, None, None);
    e.out.len
}

/// A view's text, spans and paths as constants: what `#[charter::tool]` evaluates, `B`, `S`,
/// `P` and `L` being [`measure`]'s `bytes`, `spans`, `paths` and `path_text`.
#[derive(Debug)]
pub struct ViewText<const B: usize, const S: usize, const P: usize, const L: usize> {
    /// The schema text (UTF-8).
    pub text: [u8; B],
    /// `json_tokens` of the text.
    pub tokens: u32,
    /// The top-level spans.
    pub spans: [PropSpan; S],
    /// The paths, sorted, their names ranges of `path_text`.
    pub raw: [RawPath; P],
    /// Every dotted path name, concatenated.
    pub path_text: [u8; L],
}

/// Evaluates one view into constants (see [`ViewText`]).
pub const fn view_text<const B: usize, const S: usize, const P: usize, const L: usize>(
    root: &Root<'_>,
    labels: Labels<'_>,
    target: Target,
) -> ViewText<B, S, P, L> {
    let mut v = ViewText {
        text: [0; B],
        tokens: 0,
        spans: [PropSpan::EMPTY; S],
        raw: [RawPath::EMPTY; P],
        path_text: [0; L],
    };
    let m = write(
        root,
        labels,
        target,
        &mut v.text,
        &mut v.spans,
        &mut v.raw,
        &mut v.path_text,
    );
    assert!(
        m.bytes == B && m.spans == S && m.paths == P && m.path_text == L,
        "view_text: the sizes are not measure()'s"
    );
    v.tokens = m.tokens();
    v
}

/// `bytes` as `&str`, in `const` context (the emitter writes UTF-8 only).
pub const fn utf8(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("schema text is not UTF-8"),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod dialect_tests;
