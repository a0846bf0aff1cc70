//! What the runtime does to an answer before the model reads it, done to its shape: the
//! `response.keep` projection (charter-runtime's `project` and `projection_paths`) and the
//! `Link`-header cursor wrap (`with_link_cursor`).

use std::collections::BTreeSet;

use charter_terms::http::path_segments;

use super::shape::{Kind, Shape};

/// One path the projection keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Kept<'p> {
    /// Its segments ([`path_segments`]).
    pub segments: Vec<&'p str>,
    /// Written in `response.keep` (else implied by the cursor pagination: kept where the
    /// document has it, never added or reported when it does not).
    pub written: bool,
}

/// The projection in force (the runtime's `projection_paths`): the `keep` paths, plus, when
/// there are any and the pagination is a cursor read from the body (`next` not `link:`), that
/// path without its `?key` and numeric segments, and `has_more`.
pub(crate) fn projection<'p>(keep: &'p [String], body_cursor: Option<&'p str>) -> Vec<Kept<'p>> {
    let mut out: Vec<Kept<'p>> = keep
        .iter()
        .map(|p| Kept {
            segments: path_segments(p),
            written: true,
        })
        .collect();
    if out.is_empty() {
        return out;
    }
    if let Some(next) = body_cursor {
        let next = next.split_once('?').map_or(next, |(path, _)| path);
        let segments: Vec<&str> = path_segments(next)
            .into_iter()
            .filter(|s| s.parse::<i64>().is_err())
            .collect();
        if !segments.is_empty() {
            out.push(Kept {
                segments,
                written: false,
            });
        }
        out.push(Kept {
            segments: vec!["has_more"],
            written: false,
        });
    }
    out
}

/// `shape` as the projection on `paths` leaves it, and the indexes of the written paths that
/// name something the document lacks (each such path is kept as `any`: the API may send it).
pub(crate) fn project(shape: &Shape, paths: &[Kept<'_>]) -> (Shape, BTreeSet<usize>) {
    if paths.is_empty() {
        return (shape.clone(), BTreeSet::new());
    }
    let at: Vec<(usize, &[&str])> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.segments.as_slice()))
        .collect();
    let allowed: BTreeSet<usize> = paths
        .iter()
        .enumerate()
        .filter(|(_, p)| p.written)
        .map(|(i, _)| i)
        .collect();
    let mut missing = BTreeSet::new();
    let mut out = go(shape, &at, &allowed, &mut missing);
    no_empty_objects(&mut out);
    missing.retain(|i| allowed.contains(i));
    (out, missing)
}

/// An object of which nothing is kept, or a list of such objects.
fn hollow(s: &Shape) -> bool {
    match &s.kind {
        Kind::Object(p) => p.is_empty(),
        Kind::Array(items) => hollow(items),
        _ => false,
    }
}

/// Whether the object shape `full` accepts the hollow `h`'s answers (`{}`, `[{}]`...).
fn covers(full: &Shape, h: &Shape) -> bool {
    match (&full.kind, &h.kind) {
        (Kind::Object(_), Kind::Object(_)) => true,
        (Kind::Array(f), Kind::Array(h)) => covers(f, h),
        _ => false,
    }
}

/// An object of which nothing is kept is still an object the API sends (`{}`): a `map`.
fn no_empty_objects(s: &mut Shape) {
    match &mut s.kind {
        Kind::Object(p) if p.is_empty() => s.kind = Kind::Map(None),
        Kind::Object(p) => p.iter_mut().for_each(|(_, s)| no_empty_objects(s)),
        Kind::Array(items) => no_empty_objects(items),
        Kind::Map(Some(values)) => no_empty_objects(values),
        Kind::OneOf(alts) => alts.iter_mut().for_each(no_empty_objects),
        _ => {}
    }
}

/// Projects `shape` on `paths` (each with its index), adding an `any` member for a missing
/// path only when its index is `allowed`; every missing index goes into `missing`.
fn go(
    shape: &Shape,
    paths: &[(usize, &[&str])],
    allowed: &BTreeSet<usize>,
    missing: &mut BTreeSet<usize>,
) -> Shape {
    let kind = match &shape.kind {
        Kind::Array(items) => Kind::Array(Box::new(go(items, paths, allowed, missing))),
        Kind::Object(props) => {
            let mut out: Vec<(String, Shape)> = Vec::new();
            for (name, s) in props {
                if let Some(kept) = child(name, s, paths, allowed, missing) {
                    out.push((name.clone(), kept));
                }
            }
            for &(i, p) in paths {
                if props.iter().any(|(name, _)| name == p[0]) {
                    continue;
                }
                missing.insert(i);
                if allowed.contains(&i) && !out.iter().any(|(name, _)| name == p[0]) {
                    out.push((p[0].to_owned(), Shape::any()));
                }
            }
            Kind::Object(out)
        }
        Kind::Map(values) => {
            // The runtime matches the map's keys against the paths: the kept keys are known.
            let values = values.as_deref().cloned().unwrap_or_else(Shape::any);
            let mut out: Vec<(String, Shape)> = Vec::new();
            for &(_, p) in paths {
                if out.iter().any(|(name, _)| name == p[0]) {
                    continue;
                }
                if let Some(kept) = child(p[0], &values, paths, allowed, missing) {
                    out.push((p[0].to_owned(), kept));
                }
            }
            Kind::Object(out)
        }
        Kind::OneOf(alts) => {
            // A path is missing only when no alternative has it; only then is it added, to
            // every alternative.
            let mut truly: Option<BTreeSet<usize>> = None;
            for alt in alts {
                let mut here = BTreeSet::new();
                go(alt, paths, &BTreeSet::new(), &mut here);
                truly = Some(match truly {
                    None => here,
                    Some(t) => t.intersection(&here).copied().collect(),
                });
            }
            let truly = truly.unwrap_or_default();
            let add: BTreeSet<usize> = allowed.intersection(&truly).copied().collect();
            let mut out: Vec<Shape> = Vec::new();
            for alt in alts {
                let p = go(alt, paths, &add, &mut BTreeSet::new());
                if !out.contains(&p) {
                    out.push(p);
                }
            }
            // An alternative of which nothing is kept answers `{}` (or lists of them), which
            // the lenient shape of a kept object alternative (at the same list depth) accepts.
            let full: Vec<Shape> = out.iter().filter(|a| !hollow(a)).cloned().collect();
            out.retain(|a| !hollow(a) || !full.iter().any(|f| covers(f, a)));
            missing.extend(truly);
            match out.len() {
                0 => Kind::Object(Vec::new()),
                1 => out.remove(0).kind,
                _ => Kind::OneOf(out),
            }
        }
        Kind::Any => Kind::Any,
        scalar => {
            // A path through a scalar keeps the scalar; the document has nothing below it.
            missing.extend(paths.iter().map(|(i, _)| *i));
            scalar.clone()
        }
    };
    Shape {
        kind,
        nullable: shape.nullable,
        cut: shape.cut,
    }
}

/// The member `name` (of shape `s`) as the paths keep it: whole when a path ends at it, else
/// projected on the rest of the paths through it; `None` when no path names it, or nothing
/// under it is kept.
fn child(
    name: &str,
    s: &Shape,
    paths: &[(usize, &[&str])],
    allowed: &BTreeSet<usize>,
    missing: &mut BTreeSet<usize>,
) -> Option<Shape> {
    let through: Vec<(usize, &[&str])> = paths
        .iter()
        .filter(|(_, p)| p[0] == name)
        .map(|&(i, p)| (i, &p[1..]))
        .collect();
    if through.is_empty() {
        return None;
    }
    if through.iter().any(|(_, rest)| rest.is_empty()) {
        return Some(s.clone());
    }
    Some(go(s, &through, allowed, missing))
}

/// Where the runtime puts a list answer paged by a `Link` header cursor, and the cursor
/// (charter-runtime's `http/pagination.rs`).
const ITEMS: &str = "items";
const NEXT_CURSOR: &str = "next_cursor";

/// The answer of a tool whose cursor is in the `Link` header: a list becomes
/// `{items: [...], next_cursor}`, an object gets a `next_cursor` string member.
pub(crate) fn with_link_cursor(shape: Shape) -> Shape {
    let cursor = || (NEXT_CURSOR.to_owned(), Shape::new(Kind::String));
    let kind = match shape.kind {
        Kind::Array(_) => Kind::Object(vec![
            (
                ITEMS.to_owned(),
                Shape {
                    kind: shape.kind,
                    nullable: false,
                    cut: None,
                },
            ),
            cursor(),
        ]),
        Kind::Object(mut props) => {
            props.retain(|(name, _)| name != NEXT_CURSOR);
            props.push(cursor());
            Kind::Object(props)
        }
        // Free keys beside the cursor: the values may now be a string too.
        Kind::Map(_) => Kind::Map(None),
        Kind::OneOf(alts) => Kind::OneOf(alts.into_iter().map(with_link_cursor).collect()),
        other => other,
    };
    Shape {
        kind,
        nullable: shape.nullable,
        cut: shape.cut,
    }
}
