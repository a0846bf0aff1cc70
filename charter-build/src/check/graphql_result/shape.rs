//! The derived shape before it becomes a [`Spec`]: merged across the concrete types an
//! abstract selection may answer with, projected as the runtime projects the answer
//! (`response.keep`), and cut to a size budget.

use charter_terms::http::{link_cursor, path_segments};

use crate::diagnostic::Loc;
use crate::pack::{Field, Kind as SpecKind, PaginationDecl, Sp, Spec, Tool};

/// What a value of the answer may be.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    /// Any JSON value (a custom scalar not known to be text).
    Any,
    String,
    /// GraphQL's `ID`: a string by the specification, but some servers send a number.
    Id,
    Integer,
    Number,
    Boolean,
    /// Members by response key (alias, else field name), in document order.
    Object(Vec<Member>),
    Array(Box<Shape>),
}

/// A value shape, and whether `null` is also an answer.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Shape {
    pub(super) kind: Kind,
    pub(super) nullable: bool,
}

/// One member of an object: present in every answer (`required`) or only in some.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Member {
    pub(super) key: String,
    pub(super) shape: Shape,
    pub(super) required: bool,
}

impl Shape {
    pub(super) fn new(kind: Kind) -> Shape {
        Shape {
            kind,
            nullable: false,
        }
    }

    pub(super) fn any() -> Shape {
        Shape::new(Kind::Any)
    }

    /// What kind of value this is, without what it holds (as the OpenAPI importer cuts): an
    /// object without members (open: any members), a list of its items' outline.
    fn outline(&self) -> Shape {
        let kind = match &self.kind {
            Kind::Object(_) => Kind::Object(Vec::new()),
            Kind::Array(items) => Kind::Array(Box::new(items.outline())),
            k => k.clone(),
        };
        Shape {
            kind,
            nullable: self.nullable,
        }
    }

    /// How many shapes this one is made of (itself included), as the OpenAPI importer counts.
    pub(super) fn nodes(&self) -> usize {
        1 + match &self.kind {
            Kind::Object(members) => members.iter().map(|m| m.shape.nodes()).sum(),
            Kind::Array(items) => items.nodes(),
            _ => 0,
        }
    }

    /// Whether this holds structure worth cutting (an object, or a list of them).
    fn structured(&self) -> bool {
        match &self.kind {
            Kind::Object(members) => !members.is_empty(),
            Kind::Array(items) => items.structured(),
            _ => false,
        }
    }
}

/// One shape that accepts every answer either accepts: `null` if either allows it, objects
/// merged member by member (required only where both require), lists by their items; two
/// different kinds (which a valid document cannot give one response key) become `any`.
pub(super) fn merge(a: Shape, b: Shape) -> Shape {
    let nullable = a.nullable || b.nullable;
    let kind = match (a.kind, b.kind) {
        (Kind::Object(x), Kind::Object(y)) => Kind::Object(merge_members(vec![x, y])),
        (Kind::Array(x), Kind::Array(y)) => Kind::Array(Box::new(merge(*x, *y))),
        (x, y) if x == y => x,
        _ => Kind::Any,
    };
    Shape { kind, nullable }
}

/// The members of objects that are alternatives of one answer (one list per alternative): a
/// member is required only when every alternative has it and requires it. Order: first seen.
pub(super) fn merge_members(alternatives: Vec<Vec<Member>>) -> Vec<Member> {
    let count = alternatives.len();
    let mut out: Vec<(Member, usize)> = Vec::new();
    for members in alternatives {
        for m in members {
            match out.iter_mut().find(|(o, _)| o.key == m.key) {
                Some((o, seen)) => {
                    let shape = std::mem::replace(&mut o.shape, Shape::any());
                    o.shape = merge(shape, m.shape);
                    o.required &= m.required;
                    *seen += 1;
                }
                None => out.push((m, 1)),
            }
        }
    }
    out.into_iter()
        .map(|(mut m, seen)| {
            m.required &= seen == count;
            m
        })
        .collect()
}

/// The paths the runtime keeps of the answer (`charter_runtime`'s `projection_paths`): none
/// without `response.keep`; else the declared ones plus a body cursor's `next` path (its query
/// part and indices dropped) and `has_more`, so a projected page can still be walked.
pub(super) fn projection(tool: &Tool) -> Vec<String> {
    if tool.keep.is_empty() {
        return Vec::new();
    }
    let mut paths: Vec<String> = tool.keep.iter().map(|k| k.value.clone()).collect();
    if let Some(PaginationDecl::Cursor { next, .. }) = &tool.pagination
        && link_cursor(&next.value).is_none()
    {
        let next = next.value.split_once('?').map_or(&*next.value, |(p, _)| p);
        let kept: Vec<&str> = path_segments(next)
            .into_iter()
            .filter(|s| s.parse::<i64>().is_err())
            .collect();
        paths.push(kept.join("."));
        paths.push("has_more".to_owned());
    }
    paths
}

/// The shape of the answer after the runtime's projection (`project` in charter-runtime): a
/// list projects each item, an object keeps the members a path names (whole when the path ends
/// there), anything else (a scalar, `null`, `any`) is kept as it is.
pub(super) fn project(shape: Shape, paths: &[&[&str]]) -> Shape {
    let kind = match shape.kind {
        Kind::Array(items) => Kind::Array(Box::new(project(*items, paths))),
        Kind::Object(members) => Kind::Object(
            members
                .into_iter()
                .filter_map(|m| {
                    let mut rest: Vec<&[&str]> = Vec::new();
                    for path in paths.iter().filter(|p| p[0] == m.key) {
                        if path.len() == 1 {
                            return Some(m);
                        }
                        rest.push(&path[1..]);
                    }
                    (!rest.is_empty()).then(|| Member {
                        shape: project(m.shape, &rest),
                        ..m
                    })
                })
                .collect(),
        ),
        other => other,
    };
    Shape { kind, ..shape }
}

/// Cuts `shape` to at most `max_nodes` nodes where it can, as the OpenAPI importer's `fit`
/// does: the structured members deepest first (largest first among those as deep) become
/// their outlines (an object without members, a list of those). The root's own members (`data`, the envelope) are never candidates, so the answer
/// keeps its top: the operation's root fields go last, after everything below them. Returns
/// how many members were cut.
pub(super) fn fit(shape: &mut Shape, max_nodes: usize) -> usize {
    let mut cuts = 0;
    loop {
        let mut total = shape.nodes();
        if total <= max_nodes {
            return cuts;
        }
        let mut found = Vec::new();
        candidates(shape, 0, &mut Vec::new(), &mut found);
        let Some(deepest) = found.iter().map(|c| c.0).max() else {
            return cuts;
        };
        // Members of one level never hold one another: cutting one takes exactly its size
        // (less its outline's) off the total.
        found.retain(|c| c.0 == deepest);
        found.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
        for (_, size, path) in found {
            if total <= max_nodes {
                break;
            }
            if let Some(node) = at(shape, &path) {
                *node = node.outline();
                total -= size - node.nodes();
                cuts += 1;
            }
        }
    }
}

/// `(level, size, path)` of every member that may be cut: a structured object member below
/// the root's own members (its level counts the objects above it).
fn candidates(
    shape: &Shape,
    level: usize,
    path: &mut Vec<usize>,
    out: &mut Vec<(usize, usize, Vec<usize>)>,
) {
    match &shape.kind {
        Kind::Object(members) => {
            for (i, m) in members.iter().enumerate() {
                path.push(i);
                if level >= 1 && m.shape.structured() {
                    out.push((level + 1, m.shape.nodes(), path.clone()));
                }
                candidates(&m.shape, level + 1, path, out);
                path.pop();
            }
        }
        Kind::Array(items) => {
            path.push(0);
            candidates(items, level, path, out);
            path.pop();
        }
        _ => {}
    }
}

fn at<'s>(shape: &'s mut Shape, path: &[usize]) -> Option<&'s mut Shape> {
    let Some((first, rest)) = path.split_first() else {
        return Some(shape);
    };
    let child = match &mut shape.kind {
        Kind::Object(members) => &mut members.get_mut(*first)?.shape,
        Kind::Array(items) => items.as_mut(),
        _ => return None,
    };
    at(child, rest)
}

impl Shape {
    /// The shape in the pack's field syntax, as `response.shape` would declare it (every key
    /// placed at `loc`, the tool's document: nothing here is reported).
    pub(super) fn spec(&self, loc: Loc) -> Spec {
        let typed = |k: SpecKind| Spec {
            loc,
            kind: Some(Sp::new(k, loc)),
            ..Spec::default()
        };
        let mut spec = match &self.kind {
            Kind::Any => typed(SpecKind::Any),
            Kind::String => typed(SpecKind::String),
            Kind::Integer => typed(SpecKind::Integer),
            Kind::Number => typed(SpecKind::Number),
            Kind::Boolean => typed(SpecKind::Boolean),
            Kind::Id => Spec {
                loc,
                one_of: Some(Sp::new(
                    vec![typed(SpecKind::String), typed(SpecKind::Integer)],
                    loc,
                )),
                ..Spec::default()
            },
            Kind::Array(items) => Spec {
                items: Some(Box::new(items.spec(loc))),
                ..typed(SpecKind::Array)
            },
            // A cut object: a map of any values, the free object.
            Kind::Object(members) if members.is_empty() => typed(SpecKind::Map),
            Kind::Object(members) => {
                let fields = members.iter().map(|m| {
                    let mut spec = m.shape.spec(loc);
                    if m.required {
                        spec.required = Some(Sp::new(true, loc));
                    }
                    Field {
                        name: Sp::new(m.key.clone(), loc),
                        spec,
                    }
                });
                Spec {
                    properties: Some(Sp::new(fields.collect(), loc)),
                    ..typed(SpecKind::Object)
                }
            }
        };
        // `any` already takes `null`.
        if self.nullable && self.kind != Kind::Any {
            spec.nullable = Some(Sp::new(true, loc));
        }
        spec
    }
}
