//! The size of every view of every tool, known before any schema is written, and the limit on
//! it (`charter_terms::tokens::MAX_VIEW_TOKENS`).
//!
//! A non-recursive named type is written inline at every use (docs/design.md §3), so a type
//! used by several fields of a type used by several fields… gives a schema that grows with the
//! product of those counts: DocuSign's document imports into tools of millions of tokens. The
//! size of a named type's body under a view's labels depends on nothing else (a use adds only
//! its own description around it), so it is counted once per type and view, and a view's size
//! costs time in the size of the pack, not of the schema. A view over the limit is refused here,
//! at the tool's `file:line:col`, before the emitter is asked to write it.
//!
//! The count is a lower bound of the emitter's text: it counts every name, description, enum
//! value, bound and the fixed keys and punctuation of each kind, but no escaping and no `$defs`
//! bodies. A view it refuses is certainly over the limit.

use std::collections::HashMap;

use charter_terms::tokens::{MAX_VIEW_TOKENS, chars_tokens};
use charter_terms::views::{ViewKey, ViewSpec};

use crate::diagnostic::Diagnostic;
use crate::model::{FieldModel, Node, NodeKind, NumModel, PackModel, Ty};

/// The size of one view, in `json_tokens` (at least; see the module documentation). [`check`]
/// counts every view of a pack with one memo per set of labels; this one view alone is what
/// the tests compare with the written schema.
#[cfg(test)]
pub fn view_tokens(model: &PackModel, tool: usize, view: &ViewSpec) -> u32 {
    Counter::new(model, view).root(&model.tools[tool].params)
}

/// Every tool with a view over [`MAX_VIEW_TOKENS`]: one diagnostic each, at the tool's name,
/// naming the tool, the size of its largest view and the limit.
pub fn check(model: &PackModel) -> Vec<Diagnostic> {
    // One counter (and its per-type memo) for each distinct set of labels in force.
    let mut counters: Vec<Counter<'_>> = Vec::new();
    let mut diags = Vec::new();
    for tool in &model.tools {
        let mut largest: Option<(u32, &ViewSpec)> = None;
        for view in &tool.views {
            let at = match counters.iter().position(|c| c.same_labels(view)) {
                Some(i) => i,
                None => {
                    counters.push(Counter::new(model, view));
                    counters.len() - 1
                }
            };
            let tokens = counters[at].root(&tool.params);
            if largest.is_none_or(|(t, _)| tokens > t) {
                largest = Some((tokens, view));
            }
        }
        let Some((tokens, view)) = largest else {
            continue;
        };
        if tokens <= MAX_VIEW_TOKENS {
            continue;
        }
        let which = if tool.views.len() > 1 {
            match &view.key {
                ViewKey::Default => " (the default view)".to_owned(),
                ViewKey::Unmatched => " (the view for other modes)".to_owned(),
                ViewKey::Label(l) => format!(" (the `{l}` view)"),
            }
        } else {
            String::new()
        };
        diags.push(Diagnostic::new(
            &model.file,
            tool.loc,
            format!(
                "tool `{}`: its parameter schema{which} is at least {tokens} tokens with every named type written out, over the limit of {MAX_VIEW_TOKENS} tokens a tool's schema may have (a model cannot use a schema that large): keep only the fields an agent needs, or declare a large shared type once as recursive-free smaller types",
                tool.name
            ),
        ));
    }
    diags
}

/// Counts characters of one view's schema text, each named type's body once.
struct Counter<'m> {
    model: &'m PackModel,
    active: Vec<String>,
    widest: bool,
    /// Characters of each non-recursive type's body without its description, by type index.
    memo: HashMap<usize, u64>,
}

/// `"description":"…",` around a text: the key, the quotes and a comma.
const DESCRIPTION: u64 = 17;

fn text(s: &str) -> u64 {
    s.chars().count() as u64
}

fn described(d: Option<&str>) -> u64 {
    d.filter(|d| !d.is_empty())
        .map_or(0, |d| DESCRIPTION + text(d))
}

impl<'m> Counter<'m> {
    fn new(model: &'m PackModel, view: &ViewSpec) -> Self {
        Counter {
            model,
            active: view.active.clone(),
            widest: view.widest,
            memo: HashMap::new(),
        }
    }

    fn same_labels(&self, view: &ViewSpec) -> bool {
        self.active == view.active && self.widest == view.widest
    }

    /// `{"type":"object","properties":{…},"required":[…],"additionalProperties":false}`.
    fn root(&mut self, params: &[FieldModel]) -> u32 {
        let chars = self.object(params);
        chars_tokens(usize::try_from(chars).unwrap_or(usize::MAX))
    }

    fn object(&mut self, fields: &[FieldModel]) -> u64 {
        // `{"type":"object","properties":{},"additionalProperties":false}`
        let mut n: u64 = 61;
        let (mut shown, mut required) = (0u64, 0u64);
        for f in fields {
            if !charter_terms::modes::field_visible(
                &f.modes,
                &self.active,
                self.widest,
                f.from_context.is_some(),
            ) {
                continue;
            }
            // `"name":<schema>` (a comma between two) and, when required, `"name"` in
            // `required` (a comma between two).
            let desc = Some(f.description.as_str());
            let default = f.default.as_ref().map(json_len);
            let schema = match &f.ty {
                Ty::Inline(node) => self.node(node, desc, default),
                Ty::Ref {
                    index, nullable, ..
                } => self.reference(*index, *nullable, desc, default),
            };
            n = n.saturating_add(text(&f.name) + 3).saturating_add(schema);
            shown += 1;
            if f.required {
                required = required.saturating_add(text(&f.name) + 3);
            }
        }
        n = n.saturating_add(shown.saturating_sub(1));
        if required > 0 {
            // `,"required":[]`, one comma fewer than names
            n = n.saturating_add(13 + required);
        }
        n
    }

    /// A shape that is not a field (items, map values, alternatives): its own description.
    fn ty(&mut self, ty: &Ty) -> u64 {
        match ty {
            Ty::Inline(node) => {
                let default = node.default.as_ref().map(json_len);
                self.node(node, node.description.as_deref(), default)
            }
            Ty::Ref {
                index,
                nullable,
                description,
            } => self.reference(*index, *nullable, description.as_deref(), None),
        }
    }

    /// A use of a named type: the use's description and default win over the type's.
    fn reference(
        &mut self,
        index: usize,
        nullable: bool,
        desc: Option<&str>,
        default: Option<u64>,
    ) -> u64 {
        let t = &self.model.types[index];
        let desc = desc
            .filter(|d| !d.is_empty())
            .or(t.node.description.as_deref());
        let default = default.or(t.node.default.as_ref().map(json_len));
        let extra = described(desc) + default.map_or(0, |d| 11 + d);
        if t.recursive {
            // `{"$ref":"#/$defs/Name"}` (the body is written once under `$defs`), or
            // `{"anyOf":[{"$ref":…},{"type":"null"}]}`.
            let null = if nullable { 28 } else { 0 };
            return 19 + text(&t.name) + extra + null;
        }
        let null = if nullable && !t.node.nullable {
            null_extra(&t.node.kind)
        } else {
            0
        };
        self.body(index).saturating_add(extra + null)
    }

    /// A non-recursive type's body without its description and default, counted once.
    fn body(&mut self, index: usize) -> u64 {
        if let Some(&n) = self.memo.get(&index) {
            return n;
        }
        let n = self.node(&self.model.types[index].node, None, None);
        self.memo.insert(index, n);
        n
    }

    /// An inline node with this description and default (of this many characters).
    fn node(&mut self, node: &Node, desc: Option<&str>, default: Option<u64>) -> u64 {
        let mut n = described(desc) + default.map_or(0, |d| 11 + d);
        if node.nullable {
            n += null_extra(&node.kind);
        }
        let kind = match &node.kind {
            NodeKind::Any => 2,
            NodeKind::Bool => 18,
            NodeKind::Integer(r) | NodeKind::Number(r) => 17 + numbers(r),
            NodeKind::String(s) => {
                let mut n = 17;
                if !s.enum_values.is_empty() {
                    n += 9 + s.enum_values.iter().map(|v| text(v) + 3).sum::<u64>();
                }
                n += s.pattern.as_deref().map_or(0, |p| 13 + text(p));
                n += s.format.map_or(0, |_| 15);
                n + [s.min_length, s.max_length].iter().flatten().count() as u64 * 14
            }
            // `{"type":"array","items":…}`
            NodeKind::Array { items, .. } => 25u64.saturating_add(self.ty(items)),
            NodeKind::Object(fields, _) => self.object(fields),
            // `{"type":"object","additionalProperties":…}`
            NodeKind::Map(values) => 41u64.saturating_add(self.ty(values)),
            // `{"oneOf":[…]}`, a comma between two
            NodeKind::OneOf(alts) => alts
                .iter()
                .fold(11u64, |acc, a| acc.saturating_add(1 + self.ty(a))),
        };
        n.saturating_add(kind)
    }
}

/// What accepting `null` adds: `null` as one more alternative, nothing to any value, else
/// `{"anyOf":[…,{"type":"null"}]}`.
fn null_extra(kind: &NodeKind) -> u64 {
    match kind {
        NodeKind::Any => 0,
        NodeKind::OneOf(_) => 16,
        _ => 28,
    }
}

fn json_len(v: &serde_json::Value) -> u64 {
    v.to_string().chars().count() as u64
}

fn numbers(r: &NumModel) -> u64 {
    let mut n = 0;
    if !r.enum_values.is_empty() {
        n += 9 + r
            .enum_values
            .iter()
            .map(|v| v.to_string().len() as u64 + 1)
            .sum::<u64>();
    }
    for b in [&r.minimum, &r.maximum].into_iter().flatten() {
        n += 11 + b.to_string().len() as u64;
    }
    n
}
