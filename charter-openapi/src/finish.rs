//! The post-pass over the converted tools and types: aliases resolved, recursive types kept
//! out of alternatives, unused types pruned, every property described, type notes attached
//! to the tools that use them, and very large schemas flagged.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::NoteKind;
use super::model::{Issue, Kind, Shape, Stats, Tool, TypeDef, refs};

/// The post-pass: type aliases resolved, recursive types kept out of alternatives, unused
/// types pruned, every property described, type notes attached to the tools that use them.
pub(crate) fn finish(types: &mut Vec<TypeDef>, tools: &mut [Tool], stats: &mut Stats) {
    resolve_aliases(types, tools);
    let recursive = recursive_types(types);
    inline_recursive_alternatives(types, tools, &recursive);
    super::cut::cut_large(types, tools, &recursive);
    prune(types, tools);
    stats.generated_descriptions += describe_all(types, tools);
    flag_large(types, tools, &recursive);
}

/// Applies `f` to every type's shape and every tool parameter's, with the owner's issues.
fn each_shape(types: &mut [TypeDef], tools: &mut [Tool], f: &dyn Fn(&mut Shape, &mut Vec<Issue>)) {
    for t in types.iter_mut() {
        let mut issues = std::mem::take(&mut t.issues);
        if let Some(s) = t.shape.as_mut() {
            f(s, &mut issues);
        }
        t.issues = issues;
    }
    for tool in tools.iter_mut() {
        let mut issues = std::mem::take(&mut tool.issues);
        for p in &mut tool.params {
            f(&mut p.shape, &mut issues);
        }
        tool.issues = issues;
    }
}

/// A type whose shape is a plain reference is an alias of the other type: references go to
/// the end of the chain; a reference to no finite type becomes any value, with a note.
fn resolve_aliases(types: &mut Vec<TypeDef>, tools: &mut [Tool]) {
    let mut alias: HashMap<String, String> = HashMap::new();
    for t in types.iter() {
        if let Some(Shape {
            kind: Kind::Ref(other),
            ..
        }) = &t.shape
        {
            alias.insert(t.name.clone(), other.clone());
        }
    }
    let resolve = |name: &str| -> String {
        let mut cur = name.to_owned();
        for _ in 0..32 {
            match alias.get(&cur) {
                Some(next) if *next != cur => cur = next.clone(),
                _ => break,
            }
        }
        cur
    };
    types.retain(|t| !alias.contains_key(&t.name) && t.shape.is_some());
    let known: HashSet<String> = types.iter().map(|t| t.name.clone()).collect();
    let fix = |s: &mut Shape, issues: &mut Vec<Issue>| {
        walk_mut(s, &mut |s| {
            if let Kind::Ref(name) = &s.kind {
                let target = resolve(name);
                if known.contains(&target) {
                    s.kind = Kind::Ref(target);
                } else {
                    issues.push(Issue {
                        kind: NoteKind::Unrepresentable,
                        message: format!(
                            "type `{name}` has no finite shape; accepted as any value"
                        ),
                    });
                    s.kind = Kind::Any;
                }
            }
        });
    };
    each_shape(types, tools, &fix);
}

/// A `one_of` alternative may not be a recursive type: inline its shape one level.
fn inline_recursive_alternatives(
    types: &mut [TypeDef],
    tools: &mut [Tool],
    recursive: &HashSet<String>,
) {
    let bodies: HashMap<String, Shape> = types
        .iter()
        .filter(|t| recursive.contains(&t.name))
        .filter_map(|t| Some((t.name.clone(), t.shape.clone()?)))
        .collect();
    let inline_alts =
        |s: &mut Shape, issues: &mut Vec<Issue>| fix_alternatives(s, &bodies, issues, 0);
    each_shape(types, tools, &inline_alts);
}

/// Keeps the types reached from the tools (in declaration order), attaching their notes to
/// the tools that reach them.
fn prune(types: &mut Vec<TypeDef>, tools: &mut [Tool]) {
    // 3. Types reached from the tools (in declaration order), with their notes.
    let index: HashMap<String, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let mut used: BTreeSet<usize> = BTreeSet::new();
    for tool in tools.iter_mut() {
        let mut reach: Vec<usize> = Vec::new();
        let mut stack: Vec<String> = Vec::new();
        for p in &tool.params {
            refs(&p.shape, &mut stack);
        }
        let mut seen = HashSet::new();
        while let Some(name) = stack.pop() {
            let Some(&i) = index.get(&name) else { continue };
            if !seen.insert(i) {
                continue;
            }
            reach.push(i);
            if let Some(s) = &types[i].shape {
                refs(s, &mut stack);
            }
        }
        reach.sort_unstable();
        for i in reach {
            used.insert(i);
            for issue in &types[i].issues {
                let message = format!("in type `{}`: {}", types[i].name, issue.message);
                if !tool.issues.iter().any(|x| x.message == message) {
                    tool.issues.push(Issue {
                        kind: issue.kind,
                        message,
                    });
                }
            }
        }
    }
    let mut i = 0;
    types.retain(|_| {
        let keep = used.contains(&i);
        i += 1;
        keep
    });
}

/// Describes every parameter and property that has no text ("The `name`."); returns how many.
fn describe_all(types: &mut [TypeDef], tools: &mut [Tool]) -> usize {
    let described: HashSet<String> = types
        .iter()
        .filter(|t| t.shape.as_ref().is_some_and(|s| s.description.is_some()))
        .map(|t| t.name.clone())
        .collect();
    let mut generated = 0;
    let mut describe = |name: &str, s: &mut Shape| {
        if s.description.is_none() && !matches!(&s.kind, Kind::Ref(t) if described.contains(t)) {
            s.description = Some(format!("The `{name}`."));
            generated += 1;
        }
    };
    for t in types.iter_mut() {
        if let Some(s) = t.shape.as_mut() {
            describe_props(s, &mut describe);
        }
    }
    for tool in tools.iter_mut() {
        for p in &mut tool.params {
            describe(&p.name, &mut p.shape);
            describe_props(&mut p.shape, &mut describe);
        }
    }
    generated
}

/// Tools whose schema (types inlined) is huge get a note: worth a curator's attention.
fn flag_large(types: &[TypeDef], tools: &mut [Tool], recursive: &HashSet<String>) {
    let shapes: HashMap<&str, &Shape> = types
        .iter()
        .filter_map(|t| Some((t.name.as_str(), t.shape.as_ref()?)))
        .collect();
    let mut memo: HashMap<String, usize> = HashMap::new();
    for tool in tools.iter_mut() {
        let chars: usize = tool
            .params
            .iter()
            .map(|p| p.name.len() + 6 + estimate(&p.shape, &shapes, recursive, &mut memo, 0))
            .sum();
        let tokens = chars / 4;
        if tokens > LARGE_SCHEMA_TOKENS {
            tool.issues.push(Issue {
                kind: NoteKind::LargeSchema,
                message: format!(
                    "the parameter schema is about {tokens} tokens with every type inlined; keep only the fields an agent needs"
                ),
            });
        }
    }
}

/// Above this many estimated schema tokens a tool gets a [`NoteKind::LargeSchema`] note.
const LARGE_SCHEMA_TOKENS: usize = 20_000;

/// The approximate length of a shape's JSON schema text, references to non-recursive types
/// inlined as the pack compiler does.
fn estimate(
    s: &Shape,
    types: &HashMap<&str, &Shape>,
    recursive: &HashSet<String>,
    memo: &mut HashMap<String, usize>,
    depth: usize,
) -> usize {
    let mut n = 20 + s.description.as_ref().map_or(0, |d| d.len() + 16);
    n += s
        .enum_values
        .iter()
        .map(|v| v.to_string().len() + 1)
        .sum::<usize>();
    if depth > 64 {
        return n;
    }
    n += match &s.kind {
        Kind::Object(props) => props
            .iter()
            .map(|p| p.name.len() + 4 + estimate(&p.shape, types, recursive, memo, depth + 1))
            .sum::<usize>(),
        Kind::Array(items) => estimate(items, types, recursive, memo, depth + 1),
        Kind::Map(Some(values)) => estimate(values, types, recursive, memo, depth + 1),
        Kind::OneOf(alts) => alts
            .iter()
            .map(|a| estimate(a, types, recursive, memo, depth + 1))
            .sum(),
        Kind::Ref(name) if !recursive.contains(name) => {
            if let Some(&m) = memo.get(name) {
                m
            } else {
                let m = types
                    .get(name.as_str())
                    .map_or(0, |t| estimate(t, types, recursive, memo, depth + 1));
                memo.insert(name.clone(), m);
                m
            }
        }
        _ => 0,
    };
    n
}

/// Replaces `one_of` alternatives that are recursive types: at the first level by a copy of
/// the type's shape, inside such a copy (where the same alternative would come back) by any
/// value, with a note.
fn fix_alternatives(
    s: &mut Shape,
    bodies: &HashMap<String, Shape>,
    issues: &mut Vec<Issue>,
    depth: usize,
) {
    match &mut s.kind {
        Kind::OneOf(alts) => {
            for a in alts.iter_mut() {
                let body = match &a.kind {
                    Kind::Ref(name) => bodies.get(name).map(|b| (name.clone(), b)),
                    _ => None,
                };
                match body {
                    Some((name, body)) if depth == 0 && !matches!(body.kind, Kind::OneOf(_)) => {
                        let mut b = body.clone();
                        if a.description.is_some() {
                            b.description = a.description.take();
                        }
                        b.nullable |= a.nullable;
                        *a = b;
                        let _ = name;
                        fix_alternatives(a, bodies, issues, depth + 1);
                    }
                    Some((name, _)) => {
                        let message = format!(
                            "an alternative is the recursive type `{name}` again; accepted as any value there"
                        );
                        if !issues.iter().any(|i| i.message == message) {
                            issues.push(Issue {
                                kind: NoteKind::Unrepresentable,
                                message,
                            });
                        }
                        *a = Shape {
                            description: a.description.take(),
                            nullable: a.nullable,
                            ..Shape::any()
                        };
                    }
                    None => fix_alternatives(a, bodies, issues, depth),
                }
            }
        }
        Kind::Object(props) => props
            .iter_mut()
            .for_each(|p| fix_alternatives(&mut p.shape, bodies, issues, depth)),
        Kind::Array(items) => fix_alternatives(items, bodies, issues, depth),
        Kind::Map(Some(values)) => fix_alternatives(values, bodies, issues, depth),
        _ => {}
    }
}

fn describe_props(s: &mut Shape, f: &mut impl FnMut(&str, &mut Shape)) {
    match &mut s.kind {
        Kind::Object(props) => {
            for p in props {
                f(&p.name, &mut p.shape);
                describe_props(&mut p.shape, f);
            }
        }
        Kind::Array(items) => describe_props(items, f),
        Kind::Map(Some(values)) => describe_props(values, f),
        Kind::OneOf(alts) => {
            for a in alts {
                describe_props(a, f);
            }
        }
        _ => {}
    }
}

/// Applies `f` to `s` and every nested shape, outermost first.
fn walk_mut(s: &mut Shape, f: &mut impl FnMut(&mut Shape)) {
    f(s);
    match &mut s.kind {
        Kind::Object(props) => {
            for p in props {
                walk_mut(&mut p.shape, f);
            }
        }
        Kind::Array(items) => walk_mut(items, f),
        Kind::Map(Some(values)) => walk_mut(values, f),
        Kind::OneOf(alts) => {
            for a in alts {
                walk_mut(a, f);
            }
        }
        _ => {}
    }
}

/// Types that reach themselves through references.
fn recursive_types(types: &[TypeDef]) -> HashSet<String> {
    let index: HashMap<&str, &TypeDef> = types.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = HashSet::new();
    for t in types {
        let mut stack = Vec::new();
        if let Some(s) = &t.shape {
            refs(s, &mut stack);
        }
        let mut seen = HashSet::new();
        while let Some(name) = stack.pop() {
            if name == t.name {
                out.insert(t.name.clone());
                break;
            }
            if seen.insert(name.clone())
                && let Some(next) = index.get(name.as_str())
                && let Some(s) = &next.shape
            {
                refs(s, &mut stack);
            }
        }
    }
    out
}

/// Copies of the types the tools reach (with what those reach), in declaration order: a
/// document's converter is shared by the packs of a split, each pack gets its own types.
pub(crate) fn reachable(types: &[TypeDef], tools: &[Tool]) -> Vec<TypeDef> {
    let index: HashMap<&str, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect();
    let mut stack = Vec::new();
    for t in tools {
        for p in &t.params {
            refs(&p.shape, &mut stack);
        }
    }
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    while let Some(name) = stack.pop() {
        if let Some(&i) = index.get(name.as_str())
            && seen.insert(i)
            && let Some(s) = &types[i].shape
        {
            refs(s, &mut stack);
        }
    }
    seen.into_iter().map(|i| types[i].clone()).collect()
}
