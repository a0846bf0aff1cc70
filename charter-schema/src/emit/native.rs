//! The emitter called at run time (by the pack compiler in a build script, and by the test kit):
//! the same `const fn`s, with buffers on the heap.

use super::{Labels, Root, Target, measure, shape_measure, shape_write, write};
use crate::shape::Shape;
use crate::view::{PropSpan, RawPath};

/// One view's schema and what is precomputed about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// Compact JSON text.
    pub text: String,
    /// `json_tokens` of the text (its characters divided by four).
    pub tokens: u32,
    /// Top-level property spans, in schema order.
    pub spans: Vec<PropSpan>,
    /// Every selectable path, most expensive first.
    pub paths: Vec<PathSaving>,
    /// Recursive types written under `$defs` ([`Measure::defs`](super::Measure::defs)).
    pub defs: usize,
}

/// What dropping one argument path saves ([`PathCost`](crate::PathCost) with an owned name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSaving {
    /// Dotted path from the root.
    pub path: String,
    /// Levels deep (1 for a top-level property).
    pub depth: u8,
    /// `tokens(full) - tokens(without this path)`.
    pub saves: u32,
}

/// Writes one view of a tool (see [`write`](super::write)).
pub fn emit(root: &Root<'_>, labels: Labels<'_>, target: Target) -> Emitted {
    let m = measure(root, labels, target);
    let mut text = vec![0u8; m.bytes];
    let mut spans = vec![PropSpan::EMPTY; m.spans];
    let mut raw = vec![RawPath::EMPTY; m.paths];
    let mut path_text = vec![0u8; m.path_text];
    let written = write(
        root,
        labels,
        target,
        &mut text,
        &mut spans,
        &mut raw,
        &mut path_text,
    );
    debug_assert_eq!(written, m, "the two passes agree");
    let paths = raw
        .iter()
        .map(|r| {
            let name = &path_text[r.start as usize..(r.start + r.len) as usize];
            PathSaving {
                path: String::from_utf8_lossy(name).into_owned(),
                depth: r.depth,
                saves: r.saves,
            }
        })
        .collect();
    Emitted {
        text: String::from_utf8(text).expect("the emitter writes UTF-8"),
        tokens: m.tokens(),
        spans,
        paths,
        defs: m.defs,
    }
}

/// The schema text of one shape on its own.
pub fn emit_shape(shape: &Shape, target: Target) -> String {
    let mut text = vec![0u8; shape_measure(shape, target)];
    shape_write(shape, target, &mut text);
    String::from_utf8(text).expect("the emitter writes UTF-8")
}
