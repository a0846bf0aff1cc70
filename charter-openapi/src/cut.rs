//! Tools a model can read. The pack compiler writes every non-recursive named type inline at
//! each use, and refuses a tool whose schema is over `charter_terms::tokens::MAX_VIEW_TOKENS`
//! tokens. Documents that share types deeply (DocuSign's envelope: recipients, tabs, each tab
//! kind with its metadata…) give tools of millions of tokens written out, so the importer cuts
//! such tools down before writing them, and says what it left out:
//!
//! 1. every named type that an over-large tool reaches and that is over half the budget written
//!    out is cut to that half, the types it uses first;
//! 2. a tool still over the budget is cut at its own parameters.
//!
//! A cut leaves out optional properties (parameters), largest first; where only required
//! ones are left, the largest is kept but accepts any value. Each cut is a `schema-cut` note on
//! the type (repeated on every tool that reaches it) or the tool, naming what was left out and
//! its size. Documents without such tools are not changed at all.
//!
//! Sizes are counted here the way the compiler counts them (each type once, its text written
//! out at every use), a little above the compiler's count, and the budget is half the
//! compiler's limit: what the importer writes, the checker accepts.

use std::collections::{BTreeSet, HashMap, HashSet};

use charter_terms::tokens::MAX_VIEW_TOKENS;

use super::NoteKind;
use super::model::{Issue, Kind, Param, Prop, Shape, Tool, TypeDef, refs};

/// The most characters of schema one imported tool may have: half the compiler's limit.
const TOOL_BUDGET: usize = MAX_VIEW_TOKENS as usize / 2 * 4;
/// The most characters one named type is cut to, when a tool over the budget reaches it.
const TYPE_BUDGET: usize = TOOL_BUDGET / 2;

/// Cuts the tools over the budget (and the types they reach) down to it; see the module.
pub(crate) fn cut_large(types: &mut [TypeDef], tools: &mut [Tool], recursive: &HashSet<String>) {
    let index: HashMap<String, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let order = post_order(types, &index, recursive);
    let mut sizes = Sizes {
        chars: HashMap::new(),
        recursive,
    };
    for &i in &order {
        let n = types[i].shape.as_ref().map_or(2, |s| sizes.shape(s));
        sizes.chars.insert(types[i].name.clone(), n);
    }
    let over: Vec<usize> = (0..tools.len())
        .filter(|&t| sizes.tool(&tools[t], types, &index) > TOOL_BUDGET)
        .collect();
    if over.is_empty() {
        return;
    }
    // 1. The types the tools over the budget reach, the types they use first.
    let mut reached: HashSet<usize> = HashSet::new();
    for &t in &over {
        reached.extend(reach(&tools[t], types, &index));
    }
    for &i in &order {
        let Some(shape) = types[i].shape.as_mut() else {
            continue;
        };
        let mut n = sizes.shape(shape);
        if reached.contains(&i) && n > TYPE_BUDGET {
            let left_out = sizes.cut(shape, TYPE_BUDGET);
            n = sizes.shape(shape);
            if !left_out.is_empty() {
                types[i].issues.push(note(&left_out, "the type", n));
            }
        }
        sizes.chars.insert(types[i].name.clone(), n);
    }
    // 2. The tools still over the budget, at their parameters.
    for t in over {
        let defs = sizes.defs(&tools[t], types, &index);
        if sizes.tool(&tools[t], types, &index) <= TOOL_BUDGET {
            continue;
        }
        let mut root = Shape::new(Kind::Object(
            tools[t]
                .params
                .iter()
                .map(|p| Prop {
                    name: p.name.clone(),
                    wire: None,
                    required: p.required,
                    shape: p.shape.clone(),
                })
                .collect(),
        ));
        let left_out = sizes.cut(&mut root, TOOL_BUDGET.saturating_sub(defs));
        if left_out.is_empty() {
            continue;
        }
        let Kind::Object(props) = root.kind else {
            unreachable!("the root stays an object")
        };
        let mut kept: HashMap<String, Shape> =
            props.into_iter().map(|p| (p.name, p.shape)).collect();
        tools[t]
            .params
            .retain_mut(|p: &mut Param| match kept.remove(&p.name) {
                Some(shape) => {
                    p.shape = shape;
                    true
                }
                None => false,
            });
        let n = sizes.tool(&tools[t], types, &index);
        tools[t].issues.push(note(&left_out, "the tool", n));
    }
}

fn note(left_out: &[String], what: &str, chars: usize) -> Issue {
    Issue {
        kind: NoteKind::SchemaCut,
        message: format!(
            "cut to fit a model ({what} is now about {} tokens written out): {}",
            chars / 4,
            left_out.join(", ")
        ),
    }
}

/// Type indices in an order where every non-recursive type a type uses comes before it.
fn post_order(
    types: &[TypeDef],
    index: &HashMap<String, usize>,
    recursive: &HashSet<String>,
) -> Vec<usize> {
    fn visit(
        i: usize,
        types: &[TypeDef],
        index: &HashMap<String, usize>,
        recursive: &HashSet<String>,
        seen: &mut [bool],
        out: &mut Vec<usize>,
    ) {
        if seen[i] {
            return;
        }
        seen[i] = true;
        let mut uses = Vec::new();
        if let Some(s) = &types[i].shape {
            refs(s, &mut uses);
        }
        for name in uses {
            if let Some(&j) = index.get(&name)
                && !recursive.contains(&name)
            {
                visit(j, types, index, recursive, seen, out);
            }
        }
        out.push(i);
    }
    let mut seen = vec![false; types.len()];
    let mut out = Vec::with_capacity(types.len());
    for i in 0..types.len() {
        visit(i, types, index, recursive, &mut seen, &mut out);
    }
    out
}

/// Every type a tool reaches.
fn reach(tool: &Tool, types: &[TypeDef], index: &HashMap<String, usize>) -> BTreeSet<usize> {
    let mut stack = Vec::new();
    for p in &tool.params {
        refs(&p.shape, &mut stack);
    }
    let mut seen = BTreeSet::new();
    while let Some(name) = stack.pop() {
        if let Some(&i) = index.get(&name)
            && seen.insert(i)
            && let Some(s) = &types[i].shape
        {
            refs(s, &mut stack);
        }
    }
    seen
}

/// Characters of schema text, each type's counted once.
struct Sizes<'r> {
    /// Each non-recursive type's text written out; a recursive type's body alone.
    chars: HashMap<String, usize>,
    recursive: &'r HashSet<String>,
}

/// What a property or parameter takes beyond its schema: `"name":` and a comma, and its place
/// in `required`.
fn place(name: &str) -> usize {
    2 * name.len() + 8
}

impl Sizes<'_> {
    /// A tool: its parameters, and the recursive types it reaches, written once each.
    fn tool(&self, tool: &Tool, types: &[TypeDef], index: &HashMap<String, usize>) -> usize {
        let params: usize = tool
            .params
            .iter()
            .map(|p| {
                self.shape(&p.shape)
                    .saturating_add(place(&p.name) + described(&p.name, &p.shape))
            })
            .fold(62usize, usize::saturating_add);
        params.saturating_add(self.defs(tool, types, index))
    }

    /// The `$defs` of a tool: every recursive type it reaches, once.
    fn defs(&self, tool: &Tool, types: &[TypeDef], index: &HashMap<String, usize>) -> usize {
        reach(tool, types, index)
            .into_iter()
            .filter(|&i| self.recursive.contains(&types[i].name))
            .map(|i| self.chars.get(&types[i].name).copied().unwrap_or(0) + place(&types[i].name))
            .fold(0usize, usize::saturating_add)
    }

    /// One shape's text, the types it uses written out (recursive ones as a `$ref`).
    fn shape(&self, s: &Shape) -> usize {
        let mut n = 2 + s.description.as_ref().map_or(0, |d| d.len() + 17);
        n += s.default.as_ref().map_or(0, |d| d.to_string().len() + 11);
        n += s
            .enum_values
            .iter()
            .map(|v| v.to_string().len() + 3)
            .sum::<usize>();
        n += s.pattern.as_ref().map_or(0, |p| p.len() + 13);
        n += if s.nullable { 28 } else { 0 };
        let kind = match &s.kind {
            Kind::Any => 0,
            Kind::String | Kind::Integer | Kind::Number | Kind::Boolean => 18,
            Kind::Object(props) => props.iter().fold(62usize, |acc, p| {
                acc.saturating_add(place(&p.name) + described(&p.name, &p.shape))
                    .saturating_add(self.shape(&p.shape))
            }),
            Kind::Array(items) => self.shape(items).saturating_add(25),
            Kind::Map(values) => values
                .as_ref()
                .map_or(4, |v| self.shape(v))
                .saturating_add(41),
            Kind::OneOf(alts) => alts.iter().fold(12usize, |acc, a| {
                acc.saturating_add(self.shape(a)).saturating_add(1)
            }),
            Kind::Ref(name) if self.recursive.contains(name) => 20 + name.len(),
            Kind::Ref(name) => self.chars.get(name).copied().unwrap_or(2),
        };
        n.saturating_add(kind)
    }

    /// Cuts `shape` to at most `budget` characters (see the module); returns what was left out.
    fn cut(&self, shape: &mut Shape, budget: usize) -> Vec<String> {
        let mut left_out = Vec::new();
        loop {
            let now = self.shape(shape);
            if now <= budget {
                break;
            }
            let mut found = Vec::new();
            self.candidates(shape, &mut Vec::new(), "", &mut found);
            // The largest optional property first; else the largest required one's shape.
            let pick = found
                .iter()
                .filter(|c| !c.required)
                .max_by_key(|c| c.size)
                .or_else(|| {
                    found
                        .iter()
                        .filter(|c| c.size > 200 && !c.any)
                        .max_by_key(|c| c.size)
                });
            let Some(c) = pick else { break };
            let Some(parent) = at(shape, &c.parent) else {
                break;
            };
            let Kind::Object(props) = &mut parent.kind else {
                break;
            };
            let tokens = c.size / 4;
            if c.required {
                let Some(p) = props.iter_mut().find(|p| p.name == c.name) else {
                    break;
                };
                let said = p.shape.description.take();
                let said = said.unwrap_or_else(|| format!("The `{}`.", p.name));
                p.shape = Shape {
                    description: Some(format!(
                        "{said} Its shape (about {tokens} tokens) is left out: any value is accepted."
                    )),
                    nullable: p.shape.nullable,
                    ..Shape::any()
                };
                left_out.push(format!(
                    "`{}`'s shape (about {tokens} tokens; any value is accepted)",
                    c.dotted
                ));
            } else {
                props.retain(|p| p.name != c.name);
                left_out.push(format!("`{}` (about {tokens} tokens)", c.dotted));
            }
        }
        left_out
    }

    /// Every property inside `s` (not through references), with its size.
    fn candidates(&self, s: &Shape, path: &mut Vec<Step>, dotted: &str, out: &mut Vec<Candidate>) {
        match &s.kind {
            Kind::Object(props) => {
                for p in props {
                    let name = if dotted.is_empty() {
                        p.name.clone()
                    } else {
                        format!("{dotted}.{}", p.name)
                    };
                    out.push(Candidate {
                        parent: path.clone(),
                        name: p.name.clone(),
                        dotted: name.clone(),
                        size: self.shape(&p.shape).saturating_add(place(&p.name)),
                        required: p.required,
                        any: matches!(p.shape.kind, Kind::Any),
                    });
                    path.push(Step::Prop(p.name.clone()));
                    self.candidates(&p.shape, path, &name, out);
                    path.pop();
                }
            }
            Kind::Array(items) => {
                path.push(Step::Items);
                self.candidates(items, path, dotted, out);
                path.pop();
            }
            Kind::Map(Some(values)) => {
                path.push(Step::Values);
                self.candidates(values, path, dotted, out);
                path.pop();
            }
            Kind::OneOf(alts) => {
                for (i, a) in alts.iter().enumerate() {
                    path.push(Step::Alt(i));
                    self.candidates(a, path, dotted, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// A generated description ("The `name`.") for a property that has none.
fn described(name: &str, s: &Shape) -> usize {
    if s.description.is_none() && !matches!(s.kind, Kind::Ref(_)) {
        name.len() + 26
    } else {
        0
    }
}

/// A property that may be left out.
struct Candidate {
    /// Where its object is.
    parent: Vec<Step>,
    name: String,
    dotted: String,
    size: usize,
    required: bool,
    /// Already any value.
    any: bool,
}

#[derive(Clone)]
enum Step {
    Prop(String),
    Items,
    Values,
    Alt(usize),
}

fn at<'s>(mut s: &'s mut Shape, path: &[Step]) -> Option<&'s mut Shape> {
    for step in path {
        s = match (step, &mut s.kind) {
            (Step::Prop(name), Kind::Object(props)) => {
                &mut props.iter_mut().find(|p| &p.name == name)?.shape
            }
            (Step::Items, Kind::Array(items)) => items,
            (Step::Values, Kind::Map(Some(values))) => values,
            (Step::Alt(i), Kind::OneOf(alts)) => alts.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(s)
}
