//! What dropping each argument path saves (docs/design.md §3, "Path costs"), and their order.
//!
//! A path's saving is measured on what the write pass recorded while writing it: the characters
//! of its property, one comma and its `required` entry. Where that text holds a `$ref`,
//! dropping it may drop a `$defs` entry as well, so the saving is measured by a length pass
//! without that property instead (only pack tools have recursive types).

use super::{Labels, Root, Target, measure_without};
use crate::view::{PathCost, RawPath};
use charter_terms::tokens::chars_tokens;

/// Fills in every path's saving and sorts them, most expensive first (ties keep walk order:
/// parents before their fields).
pub(crate) const fn finish(
    root: &Root<'_>,
    labels: Labels<'_>,
    target: Target,
    chars: usize,
    raw: &mut [RawPath],
) {
    let full = chars_tokens(chars);
    let mut i = 0;
    while i < raw.len() {
        let r = raw[i];
        let without = if r.has_ref {
            measure_without(root, labels, target, r.parent, r.name).chars
        } else {
            chars - r.removed as usize
        };
        raw[i].saves = full - chars_tokens(without);
        i += 1;
    }
    // Stable insertion sort, savings descending.
    let mut i = 1;
    while i < raw.len() {
        let mut j = i;
        while j > 0 && raw[j].saves > raw[j - 1].saves {
            let t = raw[j];
            raw[j] = raw[j - 1];
            raw[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
}

/// The [`PathCost`]s of a view evaluated in `const` context: `raw` from
/// [`ViewText`](super::ViewText), `text` its path text (a `'static` constant).
pub const fn path_costs<const P: usize>(raw: &[RawPath; P], text: &'static [u8]) -> [PathCost; P] {
    let mut out = [PathCost {
        path: "",
        depth: 0,
        saves: 0,
    }; P];
    let mut i = 0;
    while i < P {
        let r = raw[i];
        let (_, rest) = text.split_at(r.start as usize);
        let (name, _) = rest.split_at(r.len as usize);
        out[i] = PathCost {
            path: super::utf8(name),
            depth: r.depth,
            saves: r.saves,
        };
        i += 1;
    }
    out
}
