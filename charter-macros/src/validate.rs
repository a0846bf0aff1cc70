//! The rules that need the whole input: names, descriptions, mode labels and views (docs/design.md §2,
//! §3, §5). Every violation is a `syn::Error` on the offending token; all are reported.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ast::{
    Container, Data, Errors, Field, PackInput, ParamKind, Style, Tagging, ToolAttr, ToolFn,
};
use crate::text::plain_name;

/// The longest tool name: a qualified name is at most 50 characters and the shortest pack label
/// plus `_` takes two.
pub const MAX_TOOL_NAME: usize = 48;

/// Which session mode a view answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewKey {
    Default,
    Unmatched,
    Label(String),
}

/// One mode view: the labels in force and which parameters it shows.
#[derive(Debug, Clone)]
pub struct ViewPlan {
    pub key: ViewKey,
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

fn tool_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a tool name cannot be empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
    {
        return Some(format!(
            "invalid tool name `{name}`: `{c}` is not allowed (tool names are `[a-z0-9_]+`); set one with `name = \"...\"`"
        ));
    }
    if name.starts_with('_') {
        return Some(format!(
            "invalid tool name `{name}`: it cannot start with `_` (the qualified name would hold `__`)"
        ));
    }
    if name.contains("__") {
        return Some(format!(
            "invalid tool name `{name}`: `__` is reserved (hosts use it as a separator)"
        ));
    }
    if name.len() > MAX_TOOL_NAME {
        return Some(format!(
            "tool name `{name}` is {} characters: with its pack label a qualified name would exceed 50 (docs/design.md §2)",
            name.len()
        ));
    }
    None
}

fn is_custom(label: &str) -> bool {
    label != "response_only" && label != "disabled"
}

/// Whether a parameter with these labels shows in a view (as [`Field::visible_in`] decides at
/// run time).
fn visible(modes: &[String], active: &[String], widest: bool) -> bool {
    if modes.is_empty() {
        return true;
    }
    if modes.iter().any(|m| !is_custom(m)) {
        return false;
    }
    widest || modes.iter().any(|m| active.contains(m))
}

pub fn tool(attr: &ToolAttr, f: &ToolFn, errors: &mut Errors) -> ToolPlan {
    // Name.
    let name = match &attr.name {
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
    };

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
    let author = attr.mode.as_ref().map(|m| {
        let v = m.value();
        if v.trim().is_empty() {
            errors.spanned(m, "an empty mode label is refused (docs/design.md §5)");
        } else if !is_custom(&v) {
            errors.spanned(m, format!("`{v}` is a field label, not an author mode"));
        }
        v
    });

    // Descriptions from the `# Arguments` section.
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
            } else if label == "response_only" {
                errors.spanned(
                    m,
                    "`response_only` means nothing on an input: the model could never send it",
                );
            } else if is_custom(&label) {
                labels.insert(label);
            }
        }
    }

    // Views, exactly as the pack compiler builds them.
    let author_active: Vec<String> = author.iter().cloned().collect();
    let mut keys = vec![
        (ViewKey::Default, author_active.clone(), author.is_none()),
        (ViewKey::Unmatched, author_active.clone(), false),
    ];
    for l in &labels {
        let mut active = author_active.clone();
        if !active.contains(l) {
            active.push(l.clone());
        }
        keys.push((ViewKey::Label(l.clone()), active, false));
    }
    let modes_of = |i: usize| -> Option<Vec<String>> {
        match &f.params[i].kind {
            ParamKind::Value(v) if v.from_context.is_none() => {
                Some(v.modes.iter().map(|m| m.value()).collect())
            }
            _ => None,
        }
    };
    let mut views = Vec::new();
    for (key, active, widest) in keys {
        let visible_params: Vec<usize> = (0..f.params.len())
            .filter(|&i| modes_of(i).is_some_and(|m| visible(&m, &active, widest)))
            .collect();
        views.push(ViewPlan {
            key,
            active,
            widest,
            visible: visible_params,
        });
    }
    // A required parameter any view withholds is refused, on the label that withholds it.
    for (i, p) in f.params.iter().enumerate() {
        let ParamKind::Value(v) = &p.kind else {
            continue;
        };
        if !required[i] || v.modes.is_empty() {
            continue;
        }
        if let Some(view) = views.iter().find(|view| !view.visible.contains(&i)) {
            let culprit = v
                .modes
                .iter()
                .find(|m| !is_custom(&m.value()))
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

    ToolPlan {
        name,
        descriptions,
        required,
        views,
    }
}

fn check_fields(fields: &[Field], reserved: Option<&str>, errors: &mut Errors) {
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for f in fields {
        if !plain_name(&f.name) {
            errors.at(
                f.name_span,
                format!(
                    "the property name {:?} needs JSON escapes; charter refuses it",
                    f.name
                ),
            );
        }
        if reserved == Some(f.name.as_str()) {
            errors.at(
                f.name_span,
                format!(
                    "`{}` is the enum's tag: a field cannot have the same name",
                    f.name
                ),
            );
        }
        if seen.insert(f.name.as_str(), f.name_span).is_some() {
            errors.at(
                f.name_span,
                format!("two fields are named `{}` on the wire", f.name),
            );
        }
        match &f.desc {
            Some(d) if !d.is_empty() => {}
            _ => errors.spanned(
                &f.ident,
                format!(
                    "field `{}` needs a doc comment: every property is described (docs/design.md §3)",
                    f.ident
                ),
            ),
        }
    }
}

pub fn container(c: &Container, errors: &mut Errors) {
    match &c.data {
        Data::Struct(fields) => check_fields(fields, None, errors),
        Data::Transparent(_) => {}
        Data::Enum(variants) => {
            let tag = match &c.tagging {
                Tagging::Internal(t, span) => {
                    if !plain_name(t) {
                        errors.at(*span, "the tag name needs JSON escapes; charter refuses it");
                    }
                    Some(t.as_str())
                }
                _ => None,
            };
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for v in variants {
                if !plain_name(&v.name) {
                    errors.at(
                        v.name_span,
                        format!(
                            "the variant name {:?} needs JSON escapes; charter refuses it",
                            v.name
                        ),
                    );
                }
                if seen.insert(v.name.as_str(), v.name_span).is_some() {
                    errors.at(
                        v.name_span,
                        format!("two variants are named `{}` on the wire", v.name),
                    );
                }
                if let Style::Struct(fields) = &v.style {
                    check_fields(fields, tag, errors);
                }
            }
        }
    }
}

fn label_problem(label: &str) -> Option<String> {
    if label.is_empty() {
        return Some("a pack label cannot be empty".into());
    }
    if let Some(c) = label
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        let why = if c == '_' {
            " (the first `_` of a qualified name splits pack from tool)"
        } else {
            ""
        };
        return Some(format!(
            "invalid pack label `{label}`: `{c}` is not allowed, labels are `[a-z0-9-]+`{why}"
        ));
    }
    None
}

pub fn pack(p: &PackInput, errors: &mut Errors) {
    if let Some(problem) = label_problem(&p.label.value()) {
        errors.spanned(&p.label, problem);
    }
    if p.description.value().trim().is_empty() {
        errors.spanned(&p.description, "a pack needs a description");
    }
    if p.tools.is_empty() {
        errors.at(p.ident.span(), "a pack needs at least one tool");
    }
    let mut seen: Vec<String> = Vec::new();
    for path in &p.tools {
        let key = quote::quote!(#path).to_string();
        if seen.contains(&key) {
            errors.at(path.span(), "this tool is listed twice");
        }
        seen.push(key);
    }
}
