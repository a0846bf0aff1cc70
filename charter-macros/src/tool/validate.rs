//! The checks of `#[charter::tool]` that need the whole picture, and the plan expansion follows:
//! the tool's name, its parameters' descriptions and the views it has.

use std::collections::{BTreeSet, HashMap};

use charter_terms::modes;
use charter_terms::views::{self, ViewKey};
use proc_macro2::Span;

use super::ast::{ParamKind, ToolAttr, ToolFn};
use crate::errors::Errors;

/// One mode view: the labels in force and which parameters it shows.
#[derive(Debug, Clone)]
pub struct ViewPlan {
    pub key: ViewKey<String>,
    pub active: Vec<String>,
    pub widest: bool,
    /// Indices into [`ToolFn::params`] of the properties this view shows, in order.
    pub visible: Vec<usize>,
}

/// What expansion needs beyond the AST.
pub struct ToolPlan {
    pub name: String,
    /// Per parameter (by index): its description ("" for the call context).
    pub descriptions: Vec<String>,
    /// Per parameter: whether the model must send it.
    pub required: Vec<bool>,
    pub views: Vec<ViewPlan>,
}

/// What is wrong with a tool name, worded for the macro's user (the rule is
/// `charter_terms::names`).
pub(crate) fn tool_name_problem(name: &str) -> Option<String> {
    use charter_terms::names::{MAX_QUALIFIED_LEN, MAX_TOOL_NAME_LEN, NameProblem};
    match charter_terms::names::tool_name_problem(name) {
        Some(NameProblem::Empty) => Some("a tool name cannot be empty".into()),
        Some(NameProblem::Char(c)) => Some(format!(
            "invalid tool name `{name}`: `{c}` is not allowed (tool names are `[a-z0-9_]+`); set one with `name = \"...\"`"
        )),
        Some(NameProblem::LeadingUnderscore) => Some(format!(
            "invalid tool name `{name}`: it cannot start with `_` (the qualified name would hold `__`)"
        )),
        Some(NameProblem::DoubleUnderscore) => Some(format!(
            "invalid tool name `{name}`: `__` is reserved (hosts use it as a separator)"
        )),
        None if name.len() > MAX_TOOL_NAME_LEN => Some(format!(
            "tool name `{name}` is {} characters: with its pack label a qualified name would exceed {MAX_QUALIFIED_LEN} (docs/design.md §2)",
            name.len()
        )),
        None => None,
    }
}

pub fn tool(attr: &ToolAttr, f: &ToolFn, errors: &mut Errors) -> ToolPlan {
    let name = tool_name(attr, f, errors);
    let author = options(attr, f, errors);
    let doc_args = doc_arguments(f, errors);
    let (descriptions, required, labels) = params(f, &doc_args, errors);
    let views = view_plans(f, author.as_deref(), &labels);
    withheld_required(f, &required, &views, errors);
    ToolPlan {
        name,
        descriptions,
        required,
        views,
    }
}

/// The tool's name: `name = "..."` or the function's.
fn tool_name(attr: &ToolAttr, f: &ToolFn, errors: &mut Errors) -> String {
    match &attr.name {
        Some(lit) => {
            let n = lit.value();
            if let Some(p) = tool_name_problem(&n) {
                errors.spanned(lit, p);
            }
            n
        }
        None => {
            let n = f.ident.to_string();
            let n = n.strip_prefix("r#").unwrap_or(&n).to_owned();
            if let Some(p) = tool_name_problem(&n) {
                errors.spanned(&f.ident, p);
            }
            n
        }
    }
}

/// The description, annotations, hints and author mode.
fn options(attr: &ToolAttr, f: &ToolFn, errors: &mut Errors) -> Option<String> {
    if f.description.is_empty() {
        errors.spanned(
            &f.ident,
            "a tool needs a doc comment: it is the description the model reads to choose the tool",
        );
    }
    if let (Some(_), Some(d)) = (attr.read_only, attr.destructive) {
        errors.at(d, "a read-only tool cannot be destructive");
    }
    for hint in &attr.hints {
        if hint.value().trim().is_empty() {
            errors.spanned(hint, "a search hint cannot be empty");
        }
    }
    attr.mode.as_ref().map(|m| {
        let v = m.value();
        if v.trim().is_empty() {
            errors.spanned(m, "an empty mode label is refused (docs/design.md §5)");
        } else if modes::is_reserved(&v) {
            errors.spanned(m, format!("`{v}` is a field label, not an author mode"));
        }
        v
    })
}

/// Descriptions from the doc comment's `# Arguments` section, by parameter name.
fn doc_arguments<'f>(f: &'f ToolFn, errors: &mut Errors) -> HashMap<&'f str, (&'f str, Span)> {
    let mut doc_args: HashMap<&str, (&str, Span)> = HashMap::new();
    for (n, d, span) in &f.doc_args {
        let known = f
            .params
            .iter()
            .any(|p| p.name == *n && matches!(p.kind, ParamKind::Value(_)));
        if !known {
            errors.at(
                *span,
                format!("`# Arguments` lists `{n}`, which is not a parameter of this tool"),
            );
        } else if doc_args.insert(n.as_str(), (d.as_str(), *span)).is_some() {
            errors.at(*span, format!("`{n}` is listed twice in `# Arguments`"));
        } else if d.is_empty() {
            errors.at(*span, format!("the description of `{n}` is empty"));
        }
    }
    doc_args
}

/// Per parameter: its description and whether it is required; and the custom labels the
/// parameters carry.
fn params(
    f: &ToolFn,
    doc_args: &HashMap<&str, (&str, Span)>,
    errors: &mut Errors,
) -> (Vec<String>, Vec<bool>, BTreeSet<String>) {
    let mut descriptions = Vec::new();
    let mut required = Vec::new();
    let mut labels = BTreeSet::new();
    for p in &f.params {
        let ParamKind::Value(v) = &p.kind else {
            descriptions.push(String::new());
            required.push(false);
            continue;
        };
        let desc = match (&v.desc, doc_args.get(p.name.as_str())) {
            (Some((_, span)), Some(_)) => {
                errors.at(
                    *span,
                    format!("`{}` is described twice: here and in `# Arguments`", p.name),
                );
                v.desc.as_ref().map(|d| d.0.clone()).unwrap_or_default()
            }
            (Some((d, span)), None) => {
                if d.is_empty() {
                    errors.at(
                        *span,
                        "an empty description is refused: every property is described (docs/design.md §3)",
                    );
                }
                d.clone()
            }
            (None, Some((d, _))) => (*d).to_owned(),
            (None, None) => {
                if v.from_context.is_none() {
                    errors.spanned(
                        &p.ident,
                        format!(
                            "parameter `{}` needs a description: `#[charter(desc = \"...\")]` or a line \
                             ``* `{}` - ...`` in the doc comment's `# Arguments` section",
                            p.name, p.name
                        ),
                    );
                }
                String::new()
            }
        };
        descriptions.push(desc);
        if let (Some(span), true) = (v.default, v.info.optional) {
            errors.at(
                span,
                "an `Option` parameter is optional already; `default` is for other types",
            );
        }
        required.push(!v.info.optional && v.default.is_none() && v.from_context.is_none());
        if let Some(key) = &v.from_context {
            if key.value().trim().is_empty() {
                errors.spanned(key, "a from-context key cannot be empty");
            }
            for m in &v.modes {
                errors.spanned(m, "a from-context parameter is never model-visible: mode labels mean nothing on it");
            }
            continue;
        }
        for m in &v.modes {
            let label = m.value();
            if label.trim().is_empty() {
                errors.spanned(m, "an empty mode label is refused (docs/design.md §5)");
            } else if label == charter_terms::modes::RESPONSE_ONLY {
                errors.spanned(
                    m,
                    "`response_only` means nothing on an input: the model could never send it",
                );
            } else if !modes::is_reserved(&label) {
                labels.insert(label);
            }
        }
    }
    (descriptions, required, labels)
}

/// The views (the rule crate enumerates them, as it does for the pack compiler) and the
/// parameters each shows.
fn view_plans(f: &ToolFn, author: Option<&str>, labels: &BTreeSet<String>) -> Vec<ViewPlan> {
    let keys = views::views(author, labels.iter().map(String::as_str));
    let modes_of = |i: usize| -> Option<Vec<String>> {
        match &f.params[i].kind {
            ParamKind::Value(v) if v.from_context.is_none() => {
                Some(v.modes.iter().map(|m| m.value()).collect())
            }
            _ => None,
        }
    };
    let mut views = Vec::new();
    for view in keys {
        let visible_params: Vec<usize> = (0..f.params.len())
            .filter(|&i| modes_of(i).is_some_and(|m| view.shows(&m, false)))
            .collect();
        views.push(ViewPlan {
            key: view.key,
            active: view.active,
            widest: view.widest,
            visible: visible_params,
        });
    }
    views
}

/// A required parameter any view withholds is refused, on the label that withholds it (the rule
/// is `charter_terms::modes::withholds_required`, as for packs and sessions).
fn withheld_required(f: &ToolFn, required: &[bool], views: &[ViewPlan], errors: &mut Errors) {
    for (i, p) in f.params.iter().enumerate() {
        let ParamKind::Value(v) = &p.kind else {
            continue;
        };
        let labels: Vec<String> = v.modes.iter().map(|m| m.value()).collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let withheld_in = |view: &&ViewPlan| {
            let active: Vec<&str> = view.active.iter().map(String::as_str).collect();
            modes::withholds_required(
                &labels,
                required[i],
                v.from_context.is_some(),
                &active,
                view.widest,
            )
        };
        if let Some(view) = views.iter().find(withheld_in) {
            let culprit = v
                .modes
                .iter()
                .find(|m| modes::is_reserved(&m.value()))
                .unwrap_or(&v.modes[0]);
            let which = match &view.key {
                ViewKey::Default => "the default view".to_owned(),
                ViewKey::Unmatched => {
                    "a session mode none of this tool's fields carries".to_owned()
                }
                ViewKey::Label(l) => format!("session mode `{l}`"),
            };
            errors.spanned(
                culprit,
                format!(
                    "mode label `{}` withholds the required parameter `{}` under {which}; make it `Option<_>` or `#[charter(default)]`",
                    culprit.value(),
                    p.name
                ),
            );
        }
    }
}
