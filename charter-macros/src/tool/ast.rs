//! What `#[charter::tool]` reads: its options and the function, with the span of every token
//! a later error may point at.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprArray, FnArg, Ident, ItemFn, LitStr, Pat, Type};

use crate::errors::{Errors, ident_name, skip_value};
use crate::text::{DocLine, description, doc_lines};
use crate::types::{TypeInfo, type_info};

/// The options of `#[charter::tool(...)]`.
#[derive(Default)]
pub struct ToolAttr {
    pub read_only: Option<Span>,
    pub idempotent: Option<Span>,
    pub destructive: Option<Span>,
    pub open_world: Option<Span>,
    pub mode: Option<LitStr>,
    pub name: Option<LitStr>,
    pub hints: Vec<LitStr>,
    /// `crate = "..."`: the facade's path when the dependency is renamed.
    pub krate: Option<syn::Path>,
}

pub fn parse_tool_attr(attr: TokenStream, errors: &mut Errors) -> ToolAttr {
    let mut out = ToolAttr::default();
    let parser = syn::meta::parser(|meta| {
        let span = meta.path.span();
        let flag = |slot: &mut Option<Span>, errors: &mut Errors| {
            if slot.is_some() {
                errors.at(span, "this annotation is already set");
            }
            *slot = Some(span);
        };
        if meta.path.is_ident("read_only") {
            flag(&mut out.read_only, errors);
        } else if meta.path.is_ident("idempotent") {
            flag(&mut out.idempotent, errors);
        } else if meta.path.is_ident("destructive") {
            flag(&mut out.destructive, errors);
        } else if meta.path.is_ident("open_world") {
            flag(&mut out.open_world, errors);
        } else if meta.path.is_ident("mode") {
            let lit: LitStr = meta.value()?.parse()?;
            if out.mode.is_some() {
                errors.at(span, "a tool has one author mode");
            }
            out.mode = Some(lit);
        } else if meta.path.is_ident("name") {
            let lit: LitStr = meta.value()?.parse()?;
            if out.name.is_some() {
                errors.at(span, "`name` is already set");
            }
            out.name = Some(lit);
        } else if meta.path.is_ident("crate") {
            let lit: LitStr = meta.value()?.parse()?;
            if out.krate.is_some() {
                errors.at(span, "`crate` is already set");
            }
            match crate::shape::crate_path(&lit) {
                Ok(path) => out.krate = Some(path),
                Err(e) => errors.push(e),
            }
        } else if meta.path.is_ident("hints") {
            let array: ExprArray = meta.value()?.parse()?;
            for elem in array.elems {
                match elem {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => out.hints.push(s),
                    other => errors.spanned(other, "a search hint is a string literal"),
                }
            }
        } else {
            errors.at(
                span,
                "unknown `charter::tool` option: expected `read_only`, `idempotent`, `destructive`, \
                 `open_world`, `mode = \"...\"`, `name = \"...\"`, `hints = [...]` or `crate = \"...\"`",
            );
            skip_value(&meta)?;
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        errors.push(e);
    }
    out
}

/// A model-visible parameter or a from-context one.
pub struct ValueParam {
    pub info: TypeInfo,
    pub desc: Option<(String, Span)>,
    pub modes: Vec<LitStr>,
    pub from_context: Option<LitStr>,
    pub default: Option<Span>,
}

pub enum ParamKind {
    /// `&CallContext`.
    Context,
    Value(Box<ValueParam>),
}

pub struct Param {
    pub ident: Ident,
    /// The property name (the identifier without `r#`).
    pub name: String,
    pub ty: Type,
    pub kind: ParamKind,
}

pub enum Returns {
    /// `Result<T, E>` (any path ending in `Result`): `E` becomes a tool error.
    Result,
    /// Any `T: Serialize`.
    Value,
}

/// A tool function as the macro reads it.
pub struct ToolFn {
    /// The function with charter's parameter attributes removed.
    pub item: ItemFn,
    pub ident: Ident,
    pub is_async: bool,
    /// The description: the doc comment without its `# Arguments` section.
    pub description: String,
    /// `(name, description, span)` read from the `# Arguments` section.
    pub doc_args: Vec<(String, String, Span)>,
    pub params: Vec<Param>,
    pub returns: Returns,
}

pub fn parse_tool_fn(mut item: ItemFn, errors: &mut Errors) -> ToolFn {
    let sig = &item.sig;
    if !sig.generics.params.is_empty() {
        let only_lifetimes = sig
            .generics
            .params
            .iter()
            .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
        if !only_lifetimes {
            errors.spanned(
                &sig.generics,
                "a tool cannot be generic: its schema is fixed at compile time, so every parameter needs a concrete type",
            );
        }
    }
    if let Some(c) = &sig.constness {
        errors.spanned(c, "a tool cannot be a `const fn`");
    }
    if let Some(u) = &sig.unsafety {
        errors.spanned(u, "a tool cannot be `unsafe`: the model calls it");
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(abi, "a tool cannot have an `extern` ABI");
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, "a tool cannot be variadic");
    }

    let lines = match doc_lines(&item.attrs) {
        Ok(lines) => lines,
        Err(e) => {
            errors.push(e);
            Vec::new()
        }
    };
    let (desc_lines, doc_args) = split_arguments(&lines, errors);

    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                errors.spanned(
                    &*r,
                    "a tool cannot take `self`: tools are free functions (pass state through `&CallContext` or a static)",
                );
                r.attrs.retain(|a| !a.path().is_ident("charter"));
            }
            FnArg::Typed(pt) => {
                let attrs = std::mem::take(&mut pt.attrs);
                let (charter, rest): (Vec<_>, Vec<_>) = attrs
                    .into_iter()
                    .partition(|a| a.path().is_ident("charter"));
                pt.attrs = rest;
                let ident = match &*pt.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                    other => {
                        errors.spanned(other, "a tool parameter must be a plain name: it becomes a property of the schema");
                        continue;
                    }
                };
                if let Some(param) = parse_param(ident, &pt.ty, &charter, errors) {
                    params.push(param);
                }
            }
        }
    }

    let returns = match &item.sig.output {
        syn::ReturnType::Type(_, ty) if is_result(ty) => Returns::Result,
        _ => Returns::Value,
    };

    ToolFn {
        ident: item.sig.ident.clone(),
        is_async: item.sig.asyncness.is_some(),
        description: description(&desc_lines),
        doc_args,
        params,
        returns,
        item,
    }
}

pub(crate) fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Result")
        }
        Type::Paren(p) => is_result(&p.elem),
        Type::Group(g) => is_result(&g.elem),
        _ => false,
    }
}

/// Splits a tool's doc comment into its description and its `# Arguments` section.
///
/// The section is a markdown heading `# Arguments` followed by one bullet per parameter:
/// ``* `name` - what it is`` (also `-` bullets and `:` as separator); indented lines continue
/// the bullet above. It ends at the next heading.
pub(crate) fn split_arguments(
    lines: &[DocLine],
    errors: &mut Errors,
) -> (Vec<DocLine>, Vec<(String, String, Span)>) {
    let mut keep = Vec::new();
    let mut args: Vec<(String, String, Span)> = Vec::new();
    let mut in_section = false;
    for line in lines {
        let t = line.text.trim();
        if t.starts_with('#') {
            in_section = matches!(t.trim_start_matches('#').trim(), "Arguments" | "Parameters");
            if in_section {
                continue;
            }
        }
        if !in_section {
            keep.push(line.clone());
            continue;
        }
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("* ").or_else(|| t.strip_prefix("- ")) {
            match parse_bullet(rest) {
                Some((name, desc)) => args.push((name, desc, line.span)),
                None => errors.at(
                    line.span,
                    "cannot read this `# Arguments` line: write ``* `name` - what it is``",
                ),
            }
        } else if let Some(last) = args.last_mut() {
            if !last.1.is_empty() {
                last.1.push(' ');
            }
            last.1.push_str(t);
        } else {
            errors.at(
                line.span,
                "the `# Arguments` section lists parameters as ``* `name` - what it is``",
            );
        }
    }
    (keep, args)
}

pub(crate) fn parse_bullet(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_start();
    let (name, after) = if let Some(r) = rest.strip_prefix('`') {
        let end = r.find('`')?;
        (&r[..end], &r[end + 1..])
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (&rest[..end], &rest[end..])
    };
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let after = after.trim_start();
    let desc = after
        .strip_prefix("- ")
        .or_else(|| after.strip_prefix("– "))
        .or_else(|| after.strip_prefix(':'))
        .or_else(|| after.strip_prefix('-'))?;
    Some((name.to_owned(), desc.trim().to_owned()))
}

pub(crate) fn parse_param(
    ident: Ident,
    ty: &Type,
    attrs: &[Attribute],
    errors: &mut Errors,
) -> Option<Param> {
    let name = ident_name(&ident);
    if is_call_context(ty) {
        for a in attrs {
            errors.spanned(
                a,
                "the call context is not a schema property: it takes no `#[charter(...)]` options",
            );
        }
        return Some(Param {
            ident,
            name,
            ty: ty.clone(),
            kind: ParamKind::Context,
        });
    }
    if let Type::Path(p) = ty
        && p.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "CallContext")
    {
        errors.spanned(ty, "take the call context by reference: `&CallContext`");
        return None;
    }

    let mut desc = None;
    let mut modes = Vec::new();
    let mut from_context = None;
    let mut default = None;
    for attr in attrs {
        let r = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            if meta.path.is_ident("desc") || meta.path.is_ident("description") {
                let lit: LitStr = meta.value()?.parse()?;
                if desc.is_some() {
                    errors.at(span, "the description is already set");
                }
                desc = Some((lit.value().trim().to_owned(), lit.span()));
            } else if meta.path.is_ident("mode") {
                modes.push(meta.value()?.parse::<LitStr>()?);
            } else if meta.path.is_ident("from_context") {
                let lit: LitStr = meta.value()?.parse()?;
                from_context = Some(lit);
            } else if meta.path.is_ident("default") {
                default = Some(span);
            } else if meta.path.is_ident("response_only") {
                errors.at(
                    span,
                    "`response_only` means nothing on an input: a parameter the model never sees cannot be required of it",
                );
            } else {
                errors.at(
                    span,
                    "unknown parameter option: expected `desc = \"...\"`, `mode = \"...\"`, `from_context = \"...\"` or `default`",
                );
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }

    let info = match type_info(ty) {
        Ok(info) => info,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    Some(Param {
        ident,
        name,
        ty: ty.clone(),
        kind: ParamKind::Value(Box::new(ValueParam {
            info,
            desc,
            modes,
            from_context,
            default,
        })),
    })
}

pub(crate) fn is_call_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            Type::Path(p) => {
                p.qself.is_none()
                    && p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "CallContext")
            }
            _ => false,
        },
        _ => false,
    }
}
