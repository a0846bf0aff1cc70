//! Code mode's TypeScript signatures (docs/code-mode.md): from the same [`Root`] and view
//! [`Labels`] as a view's JSON Schema, the declaration of the tool's call as a program makes it,
//! `(args: {..}): Promise<..>`, with each argument's description as a doc comment and the result's
//! type where it is known ([`Returns`]): a pack's `response.keep` paths, a Rust tool's return
//! type's shape.
//!
//! The caller puts the tool's description and its access (`github.issues_list`) in front at
//! run time; both are per tool, this text is per view. Like the JSON Schema emitter it is a
//! pair of `const fn` passes over one code path (a length pass writing nowhere, then a write
//! pass into a buffer of exactly that size), so `#[charter::tool]` evaluates it in `const`
//! context and the pack compiler calls it natively.
//!
//! The layout, fixed so a session can drop a pinned argument's line without parsing types:
//! every top-level argument is one line, `  /** doc */ name?: type;`, its doc comment on one
//! line (line breaks become spaces, `*/` is written `*\/`), nested objects inline. Types say
//! what a program must send (`string`, `"a" | "b"`, `number`, `T[]`, `T | null`, objects,
//! `Record<string, T>`, unions of alternatives, a recursive type by name, declared after the
//! signature as `type Name = ..`); bounds, formats and defaults are left to the descriptions and
//! to validation, which refuses a wrong call with the direct call's message.

mod keep;
mod node;

use super::out::Out;
use super::{Labels, MAX_DEFS, Measure, Root};
use crate::shape::Named;

/// What a call answers, as the signature's `Promise<..>` says it.
#[derive(Debug, Clone, Copy)]
pub enum Returns<'a> {
    /// Unknown: `any` (a pack that keeps the API's whole answer, a Rust tool whose return type
    /// has no schema).
    Any,
    /// A pack's `response.keep` paths: `[number, user.login]` is `{number; user: {login}}`,
    /// members untyped (a path names fields, not types); on a list, each item's. None: `any`.
    Kept(&'a [&'a str]),
    /// A Rust tool's return type's shape (`T` of `T` or `Result<T, E>`), typed as arguments
    /// are, but an optional member is `name?: T | null`: the shape says what deserialising
    /// accepts, and an absent `Option` serialises as `null`.
    Shape(&'a crate::shape::Shape),
}

/// One pass's state.
pub(crate) struct Ts<'a, 'b> {
    pub(crate) out: Out<'b>,
    pub(crate) labels: Labels<'a>,
    pub(crate) defs: &'a [&'a Named],
    /// Which of `defs` this view reaches.
    pub(crate) used: [bool; MAX_DEFS],
    /// Writing the result's type (optional members may be `null`).
    pub(crate) result: bool,
    /// Objects open around the one being written (the result's depth limit counts them).
    pub(crate) depth: usize,
    /// How many object levels of the result are spelt out ([`result_depth`]).
    pub(crate) max_depth: usize,
}

/// The longest result type a signature spells out, in bytes. A longer one is written with
/// fewer object levels ([`result_depth`]): code mode's `ToolSearch` answers with the
/// declarations, and Stripe's invoices spelt to the last nested address made one answer longer
/// than the direct path's whole exchange (docs/code-mode.md, "Result types").
pub(crate) const RESULT_TYPE_BYTES: usize = 700;

/// How many object levels of the result `shape` the signature spells out (deeper objects are
/// `object`): two (an answer's members and its items': `page.data[0].amount_due`) when that
/// fits in [`RESULT_TYPE_BYTES`], else one, else none.
const fn result_depth(labels: Labels<'_>, defs: &[&Named], shape: &crate::shape::Shape) -> usize {
    let mut depth = 2;
    while depth > 0 {
        let mut nowhere: [u8; 0] = [];
        let mut t = Ts {
            out: Out::new(&mut nowhere),
            labels,
            defs,
            used: [false; MAX_DEFS],
            result: true,
            depth: 0,
            max_depth: depth,
        };
        node::ty(&mut t, shape);
        if t.out.len <= RESULT_TYPE_BYTES {
            return depth;
        }
        depth -= 1;
    }
    0
}

/// One pass: the declaration of the call with the arguments of `root` in this view, answering
/// `returns`.
const fn pass(
    root: &Root<'_>,
    labels: Labels<'_>,
    returns: Returns<'_>,
    text: &mut [u8],
) -> Measure {
    assert!(
        root.defs.len() <= MAX_DEFS,
        "a tool reaches more recursive types than the schema emitter holds (MAX_DEFS)"
    );
    let mut t = Ts {
        out: Out::new(text),
        labels,
        defs: root.defs,
        used: [false; MAX_DEFS],
        result: false,
        depth: 0,
        max_depth: 0,
    };
    node::arguments(&mut t, root);
    t.out.raw(": Promise<");
    match returns {
        Returns::Any => t.out.raw("any"),
        Returns::Kept(keep) => keep::result(&mut t.out, keep),
        Returns::Shape(shape) => {
            t.result = true;
            t.max_depth = result_depth(labels, root.defs, shape);
            node::ty(&mut t, shape);
            t.result = false;
        }
    }
    t.out.byte(b'>');
    node::declarations(&mut t);
    Measure {
        bytes: t.out.len,
        chars: t.out.chars,
        spans: 0,
        paths: 0,
        path_text: 0,
        defs: 0,
    }
}

/// The length pass: the signature's size (`bytes` and `chars`; no spans or paths).
pub const fn signature_measure(
    root: &Root<'_>,
    labels: Labels<'_>,
    returns: Returns<'_>,
) -> Measure {
    let mut none: [u8; 0] = [];
    pass(root, labels, returns, &mut none)
}

/// The write pass, into a buffer of exactly [`signature_measure`]'s `bytes`.
pub const fn signature_write(
    root: &Root<'_>,
    labels: Labels<'_>,
    returns: Returns<'_>,
    text: &mut [u8],
) -> Measure {
    pass(root, labels, returns, text)
}

/// A view's signature as constants: what `#[charter::tool]` evaluates, `B` being
/// [`signature_measure`]'s `bytes`.
#[derive(Debug)]
pub struct SignatureText<const B: usize> {
    /// The signature (UTF-8).
    pub text: [u8; B],
    /// `text_tokens` of the text (its characters divided by four).
    pub tokens: u32,
}

/// Evaluates one view's signature into constants (see [`SignatureText`]).
pub const fn signature_text<const B: usize>(
    root: &Root<'_>,
    labels: Labels<'_>,
    returns: Returns<'_>,
) -> SignatureText<B> {
    let mut s = SignatureText {
        text: [0; B],
        tokens: 0,
    };
    let m = signature_write(root, labels, returns, &mut s.text);
    assert!(
        m.bytes == B,
        "signature_text: B is not signature_measure()'s"
    );
    s.tokens = m.tokens();
    s
}

/// One view's signature and its size, with a heap buffer (the pack compiler, the test kit).
pub fn signature(root: &Root<'_>, labels: Labels<'_>, returns: Returns<'_>) -> (String, u32) {
    let m = signature_measure(root, labels, returns);
    let mut text = vec![0u8; m.bytes];
    let written = signature_write(root, labels, returns, &mut text);
    debug_assert_eq!(written, m, "the two passes agree");
    (
        String::from_utf8(text).expect("the emitter writes UTF-8"),
        m.tokens(),
    )
}

#[cfg(test)]
mod tests;
