//! The rule that a view must not withhold a field a call needs (docs/design.md §5), over a whole
//! argument tree: the runtime asks it of every view a session serves, and the pack compiler of
//! every tool's narrowest view. The per-field rule is `charter_terms::modes::withholds_required`.

use crate::emit::Labels;
use crate::shape::{Field, ObjectShape, Shape};
use charter_terms::modes::{str_eq, withholds_required};

/// How deep the check follows objects (deeper nesting is still validated per call).
pub const MAX_DEPTH: usize = 24;

/// A required field a view withholds, and where.
#[derive(Debug, Clone, Copy)]
pub struct Withheld {
    /// The field.
    pub field: &'static Field,
    /// Property names from the root to it (`depth` of them).
    pub path: [&'static str; MAX_DEPTH],
    /// How many names of `path` are used.
    pub depth: usize,
}

impl Withheld {
    /// The dotted path (`filter.state`).
    pub fn dotted(&self) -> String {
        self.path[..self.depth].join(".")
    }
}

/// The first required field (in declaration order, depth first) that a view with these labels
/// withholds, following every shown field into objects, list items, map values, alternatives
/// and named types (a recursive one once per path).
pub const fn withheld_required(
    input: &'static ObjectShape,
    labels: Labels<'_>,
) -> Option<Withheld> {
    let mut w = Walk {
        labels,
        path: [""; MAX_DEPTH],
        seen: [""; MAX_DEPTH],
        nseen: 0,
    };
    w.object(input, 0)
}

struct Walk<'a> {
    labels: Labels<'a>,
    path: [&'static str; MAX_DEPTH],
    /// The recursive types on the current path.
    seen: [&'static str; MAX_DEPTH],
    nseen: usize,
}

impl Walk<'_> {
    const fn object(&mut self, o: &'static ObjectShape, depth: usize) -> Option<Withheld> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let mut i = 0;
        while i < o.fields.len() {
            let f = &o.fields[i];
            i += 1;
            self.path[depth] = f.name;
            if f.visible_in(self.labels.active, self.labels.widest) {
                if let Some(w) = self.shape(f.shape, depth + 1) {
                    return Some(w);
                }
            } else if withholds_required(
                f.modes,
                f.required,
                f.from_context.is_some(),
                self.labels.active,
                self.labels.widest,
            ) {
                return Some(Withheld {
                    field: f,
                    path: self.path,
                    depth: depth + 1,
                });
            }
        }
        None
    }

    const fn shape(&mut self, s: &'static Shape, depth: usize) -> Option<Withheld> {
        match s {
            Shape::Object(o) => self.object(o, depth),
            Shape::Array(r) => self.shape(r.items, depth),
            Shape::Map(s) | Shape::Nullable(s) => self.shape(s, depth),
            Shape::Doc(d) => self.shape(d.shape, depth),
            Shape::Named(n) if !n.recursive => self.shape(n.shape, depth),
            Shape::Named(n) => {
                let mut i = 0;
                while i < self.nseen {
                    if str_eq(self.seen[i], n.name) {
                        return None;
                    }
                    i += 1;
                }
                if self.nseen == MAX_DEPTH {
                    return None;
                }
                self.seen[self.nseen] = n.name;
                self.nseen += 1;
                let found = self.shape(n.shape, depth);
                self.nseen -= 1;
                found
            }
            Shape::OneOf(alts) | Shape::AnyOf(alts) => {
                let mut i = 0;
                while i < alts.len() {
                    if let Some(w) = self.shape(&alts[i], depth) {
                        return Some(w);
                    }
                    i += 1;
                }
                None
            }
            _ => None,
        }
    }
}
