//! A shape cut to a size budget: the members that hold structure (an object, a map's values,
//! a choice, a list of those), the deepest first and the largest first among those as deep,
//! each becoming its outline (a free object, a list of them, a choice of those), until the
//! shape has at most `max_nodes` nodes. The answer's root level (the root, its array items, the
//! alternatives of a root choice, and their scalar members) is never cut: its members stay
//! declared, however many there are.

use super::shape::{Cut, Kind, Shape};

/// A member that may be cut: its level (object levels above it, as the depth limit counts
/// them), its size and where it is (child indexes from the root).
struct Candidate {
    level: usize,
    size: usize,
    path: Vec<usize>,
}

/// Cuts `shape` to `max_nodes` nodes where it can.
pub(crate) fn fit(shape: &mut Shape, max_nodes: usize) {
    loop {
        let mut total = shape.nodes();
        if total <= max_nodes {
            return;
        }
        let mut found = Vec::new();
        collect(shape, 0, false, &mut Vec::new(), &mut found);
        let Some(deepest) = found.iter().map(|c| c.level).max() else {
            return;
        };
        // Members of one level never hold one another: cutting one takes exactly its size
        // (less the `any` left) off the total.
        found.retain(|c| c.level == deepest);
        found.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.path.cmp(&b.path)));
        for c in found {
            if total <= max_nodes {
                break;
            }
            if let Some(node) = at(shape, &c.path) {
                // The outline when it is smaller (a choice of scalars is its own outline).
                let outline = node.outline(Cut::Size);
                *node = match outline.nodes() < c.size {
                    true => outline,
                    false => Shape::cut(Cut::Size),
                };
                total -= c.size - node.nodes();
            }
        }
    }
}

/// The children of a node, in order, and whether each is a member (an object's property or a
/// map's values: one object level further down).
fn children(shape: &mut Shape) -> Vec<(&mut Shape, bool)> {
    match &mut shape.kind {
        Kind::Object(props) => props.iter_mut().map(|(_, s)| (s, true)).collect(),
        Kind::Array(items) => vec![(items.as_mut(), false)],
        Kind::Map(Some(values)) => vec![(values.as_mut(), true)],
        Kind::OneOf(alts) => alts.iter_mut().map(|s| (s, false)).collect(),
        _ => Vec::new(),
    }
}

/// Whether a shape holds structure worth cutting (more than scalars and lists of them).
fn structured(shape: &Shape) -> bool {
    match &shape.kind {
        Kind::Object(_) | Kind::Map(Some(_)) | Kind::OneOf(_) => true,
        Kind::Array(items) => structured(items),
        _ => false,
    }
}

fn collect(
    shape: &mut Shape,
    level: usize,
    member: bool,
    path: &mut Vec<usize>,
    out: &mut Vec<Candidate>,
) {
    if member && level > 0 && structured(shape) {
        out.push(Candidate {
            level,
            size: shape.nodes(),
            path: path.clone(),
        });
    }
    for (i, (child, is_member)) in children(shape).into_iter().enumerate() {
        path.push(i);
        collect(child, level + usize::from(is_member), is_member, path, out);
        path.pop();
    }
}

fn at<'s>(shape: &'s mut Shape, path: &[usize]) -> Option<&'s mut Shape> {
    let Some((first, rest)) = path.split_first() else {
        return Some(shape);
    };
    let child = children(shape).into_iter().nth(*first)?.0;
    at(child, rest)
}
