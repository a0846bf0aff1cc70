//! The pack's named types: cycles without structure in between.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::Sink;
use crate::pack::{Pack, Spec, TypeDecl};

/// Reports types that refer to themselves without structure in between (`one_of` alone):
/// such a type has no finite shape and validation would never finish.
pub(super) fn type_cycles(
    s: &mut Sink,
    pack: &Pack,
    types: &HashMap<&str, &TypeDecl>,
) -> HashSet<String> {
    let mut out = HashSet::new();
    fn direct<'a>(spec: &'a Spec, out: &mut Vec<&'a str>) {
        if let Some(r) = &spec.reference {
            out.push(&r.value);
        }
        if let Some(alts) = &spec.one_of {
            for a in &alts.value {
                direct(a, out);
            }
        }
    }
    for t in &pack.types {
        // Depth-first over unguarded edges from t, looking for t.
        let mut stack: Vec<&str> = Vec::new();
        direct(&t.spec, &mut stack);
        let mut seen: HashSet<&str> = HashSet::new();
        while let Some(name) = stack.pop() {
            if name == t.name.value {
                s.err(
                    t.name.loc,
                    format!(
                        "type `{}` refers to itself through `one_of`/`ref` alone, so it has no finite shape; put the recursion inside an object property, array `items` or map `values`",
                        t.name.value
                    ),
                );
                out.insert(t.name.value.clone());
                break;
            }
            if seen.insert(name)
                && let Some(next) = types.get(name)
            {
                direct(&next.spec, &mut stack);
            }
        }
    }
    out
}
