//! The macros' own small AST: what `#[charter::tool]`, `#[derive(Schema)]` and `pack!` read
//! from their input, with the span of every token a later error may point at.
//!
//! Parsing records problems in [`Errors`] and keeps going, so one expansion reports every
//! mistake it can see; [`crate::validate`] adds the checks that need the whole picture.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Expr, ExprArray, FnArg, GenericArgument, Ident, ItemFn, LitStr, Pat, Path,
    PathArguments, Token, Type, Visibility,
};

use crate::text::{DocLine, RenameRule, description, doc_lines};

/// Errors collected while reading one input, reported together.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, message));
    }

    pub fn spanned(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every error as `compile_error!` invocations.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}

/// Consumes the value of an option we refuse, so parsing can go on to the next one.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

fn ident_name(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

// ---------------------------------------------------------------------------------------------
// #[charter::tool]

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
                 `open_world`, `mode = \"...\"`, `name = \"...\"` or `hints = [...]`",
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

/// How a parsed parameter value reaches the function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// By value.
    Owned,
    /// `&value` (`&str` from a `String`, `&[T]` from a `Vec<T>`, `&T`).
    Ref,
    /// `value.as_deref()` (`Option<&str>`, `Option<&[T]>`).
    OptDeref,
    /// `value.as_ref()` (`Option<&T>`).
    OptRef,
}

/// A parameter's type taken apart.
pub struct TypeInfo {
    /// `Option<_>` at the top: an optional property.
    pub optional: bool,
    /// The type whose `Schema` describes the property (Option and references removed,
    /// lifetimes made `'static`).
    pub schema_ty: Type,
    /// The owned type serde deserialises.
    pub deser_ty: Type,
    pub pass: Pass,
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

fn is_result(ty: &Type) -> bool {
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
fn split_arguments(
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

fn parse_bullet(rest: &str) -> Option<(String, String)> {
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

fn parse_param(ident: Ident, ty: &Type, attrs: &[Attribute], errors: &mut Errors) -> Option<Param> {
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

fn is_call_context(ty: &Type) -> bool {
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

/// Lifetimes become `'static` so the type can be named in the generated constants.
struct StaticLifetimes;

impl VisitMut for StaticLifetimes {
    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        *lt = syn::Lifetime::new("'static", lt.span());
    }
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        r.lifetime = Some(syn::Lifetime::new("'static", r.and_token.span));
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
}

fn static_type(ty: &Type) -> Type {
    let mut ty = ty.clone();
    StaticLifetimes.visit_type_mut(&mut ty);
    ty
}

/// `Option<T>` (as `Option`, `std::option::Option` or `core::option::Option`): `T`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let segs: Vec<_> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let is_option = match segs.as_slice() {
        [o] => o == "Option",
        [a, b, o] => (a == "std" || a == "core") && b == "option" && o == "Option",
        _ => false,
    };
    if !is_option {
        return None;
    }
    match &p.path.segments.last()?.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn check_supported(ty: &Type) -> syn::Result<()> {
    let bad = |what: &str| {
        Err(syn::Error::new_spanned(
            ty,
            format!(
                "{what} cannot be a tool parameter: its JSON schema is not supported; use a struct deriving `charter::Schema`"
            ),
        ))
    };
    match ty {
        Type::Tuple(t) if t.elems.is_empty() => bad("`()`"),
        Type::Tuple(_) => bad("a tuple"),
        Type::ImplTrait(_) => bad("`impl Trait`"),
        Type::TraitObject(_) => bad("a trait object"),
        Type::BareFn(_) => bad("a function pointer"),
        Type::Ptr(_) => bad("a raw pointer"),
        Type::Never(_) => bad("`!`"),
        Type::Infer(_) => bad("`_`"),
        Type::Macro(_) => bad("a macro type"),
        Type::Paren(p) => check_supported(&p.elem),
        Type::Group(g) => check_supported(&g.elem),
        Type::Reference(r) => check_supported(&r.elem),
        Type::Slice(s) => check_supported(&s.elem),
        Type::Array(a) => check_supported(&a.elem),
        Type::Path(p) => {
            if p.qself.is_some() {
                return bad("a qualified path type");
            }
            for seg in &p.path.segments {
                if seg.ident == "Self" {
                    return bad("`Self`");
                }
                if let PathArguments::AngleBracketed(args) = &seg.arguments {
                    for arg in &args.args {
                        if let GenericArgument::Type(t) = arg {
                            check_supported(t)?;
                        }
                    }
                }
            }
            Ok(())
        }
        _ => bad("this type"),
    }
}

/// What the handler deserialises and what the schema describes for a parameter type.
pub fn type_info(ty: &Type) -> syn::Result<TypeInfo> {
    check_supported(ty)?;
    let (optional, inner) = match option_inner(ty) {
        Some(inner) => (true, inner),
        None => (false, ty),
    };
    let (schema_ty, deser_ty, by_ref, deref) = match inner {
        Type::Reference(r) => {
            if let Some(m) = &r.mutability {
                return Err(syn::Error::new_spanned(
                    m,
                    "a tool parameter cannot be `&mut`: arguments come from the model",
                ));
            }
            let elem = static_type(&r.elem);
            match &elem {
                Type::Path(p) if p.path.is_ident("str") => (
                    elem.clone(),
                    syn::parse_quote!(::std::string::String),
                    true,
                    true,
                ),
                Type::Slice(s) => {
                    let item = &s.elem;
                    (
                        elem.clone(),
                        syn::parse_quote!(::std::vec::Vec<#item>),
                        true,
                        true,
                    )
                }
                _ => (elem.clone(), elem, true, false),
            }
        }
        Type::Slice(_) => {
            return Err(syn::Error::new_spanned(
                inner,
                "take a slice by reference (`&[T]`) or use `Vec<T>`",
            ));
        }
        Type::Path(p) if p.path.is_ident("str") => {
            return Err(syn::Error::new_spanned(
                inner,
                "take a string as `&str` or `String`",
            ));
        }
        other => {
            let t = static_type(other);
            (t.clone(), t, false, false)
        }
    };
    let pass = match (optional, by_ref, deref) {
        (_, false, _) => Pass::Owned,
        (false, true, _) => Pass::Ref,
        (true, true, true) => Pass::OptDeref,
        (true, true, false) => Pass::OptRef,
    };
    Ok(TypeInfo {
        optional,
        schema_ty,
        deser_ty,
        pass,
    })
}

// ---------------------------------------------------------------------------------------------
// #[derive(Schema)]

#[derive(Debug, Clone)]
pub enum Tagging {
    External,
    Internal(String, Span),
    Untagged,
}

pub struct Container {
    pub ident: Ident,
    pub generics: syn::Generics,
    pub data: Data,
    pub tagging: Tagging,
}

pub enum Data {
    Struct(Vec<Field>),
    /// A newtype struct or `#[serde(transparent)]`: the inner type's schema.
    Transparent(Type),
    Enum(Vec<Variant>),
}

pub struct Field {
    pub ident: Ident,
    /// The wire name after `rename`/`rename_all`.
    pub name: String,
    pub name_span: Span,
    /// The type whose schema describes the field (Option removed).
    pub ty: Type,
    pub required: bool,
    pub desc: Option<String>,
}

pub enum Style {
    Unit,
    Newtype(Type),
    Struct(Vec<Field>),
}

pub struct Variant {
    pub name: String,
    pub name_span: Span,
    pub desc: Option<String>,
    pub style: Style,
}

/// Container-level serde options that shape the fields.
#[derive(Default)]
struct ContainerOpts {
    rename_all: Option<RenameRule>,
    rename_all_fields: Option<RenameRule>,
    tag: Option<(String, Span)>,
    content: Option<Span>,
    untagged: Option<Span>,
    default: bool,
    transparent: Option<Span>,
}

fn parse_rule(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Option<RenameRule>> {
    let span = meta.path.span();
    if meta.input.peek(syn::token::Paren) {
        // rename_all(serialize = "...", deserialize = "..."): arguments are deserialised.
        let mut rule = None;
        meta.parse_nested_meta(|inner| {
            let lit: LitStr = inner.value()?.parse()?;
            if inner.path.is_ident("deserialize") {
                rule = check_rule(&lit, errors);
            } else if !inner.path.is_ident("serialize") {
                errors.at(inner.path.span(), "expected `serialize` or `deserialize`");
            }
            Ok(())
        })?;
        return Ok(rule);
    }
    let lit: LitStr = meta.value()?.parse()?;
    let _ = span;
    Ok(check_rule(&lit, errors))
}

fn check_rule(lit: &LitStr, errors: &mut Errors) -> Option<RenameRule> {
    let rule = RenameRule::parse(&lit.value());
    if rule.is_none() {
        errors.spanned(lit, "unknown rename rule");
    }
    rule
}

/// `rename = "x"` or `rename(deserialize = "x")`: the name arguments arrive under.
fn parse_rename(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<Option<(String, Span)>> {
    if meta.input.peek(syn::token::Paren) {
        let mut name = None;
        meta.parse_nested_meta(|inner| {
            let lit: LitStr = inner.value()?.parse()?;
            if inner.path.is_ident("deserialize") {
                name = Some((lit.value(), lit.span()));
            } else if !inner.path.is_ident("serialize") {
                errors.at(inner.path.span(), "expected `serialize` or `deserialize`");
            }
            Ok(())
        })?;
        return Ok(name);
    }
    let lit: LitStr = meta.value()?.parse()?;
    Ok(Some((lit.value(), lit.span())))
}

fn unsupported_serde(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    why: &str,
) -> syn::Result<()> {
    let name = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    errors.at(
        meta.path.span(),
        format!("`#[serde({name})]` is not supported by `charter::Schema`: {why}"),
    );
    skip_value(meta)
}

fn for_each_serde(
    attrs: &[Attribute],
    errors: &mut Errors,
    mut f: impl FnMut(&ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        if let Err(e) = attr.parse_nested_meta(|meta| f(&meta, errors)) {
            errors.push(e);
        }
    }
}

/// Charter's own options on a field: `#[charter(desc = "...")]`.
fn charter_field_opts(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    let mut desc = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("charter")) {
        let r = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("desc") || meta.path.is_ident("description") {
                let lit: LitStr = meta.value()?.parse()?;
                desc = Some(lit.value().trim().to_owned());
            } else if meta.path.is_ident("mode") {
                errors.at(
                    meta.path.span(),
                    "mode labels are supported on tool parameters, not on nested fields: make this a separate parameter",
                );
                skip_value(&meta)?;
            } else {
                errors.at(meta.path.span(), "unknown `charter` option here: expected `desc = \"...\"`");
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    desc
}

fn doc_desc(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    match doc_lines(attrs) {
        Ok(lines) => Some(description(&lines)).filter(|d| !d.is_empty()),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

pub fn parse_derive(input: syn::DeriveInput, errors: &mut Errors) -> Container {
    let mut opts = ContainerOpts::default();
    for_each_serde(&input.attrs, errors, |meta, errors| {
        let p = &meta.path;
        if p.is_ident("rename") {
            parse_rename(meta, errors)?; // the type's own name is not in its schema
        } else if p.is_ident("rename_all") {
            opts.rename_all = parse_rule(meta, errors)?;
        } else if p.is_ident("rename_all_fields") {
            opts.rename_all_fields = parse_rule(meta, errors)?;
        } else if p.is_ident("tag") {
            let lit: LitStr = meta.value()?.parse()?;
            opts.tag = Some((lit.value(), lit.span()));
        } else if p.is_ident("content") {
            opts.content = Some(p.span());
            skip_value(meta)?;
        } else if p.is_ident("untagged") {
            opts.untagged = Some(p.span());
        } else if p.is_ident("default") {
            opts.default = true;
            skip_value(meta)?;
        } else if p.is_ident("transparent") {
            opts.transparent = Some(p.span());
        } else if p.is_ident("deny_unknown_fields") {
            // Every charter object refuses unknown keys already.
        } else if p.is_ident("bound") || p.is_ident("crate") || p.is_ident("expecting") {
            skip_value(meta)?; // no effect on the wire shape
        } else if p.is_ident("from") || p.is_ident("try_from") {
            unsupported_serde(
                meta,
                errors,
                "the wire shape is another type's; derive `Schema` on that type and take it as the parameter",
            )?;
        } else if p.is_ident("into") {
            skip_value(meta)?; // serialisation only
        } else if p.is_ident("remote") {
            unsupported_serde(meta, errors, "remote derives describe another type")?;
        } else {
            unsupported_serde(meta, errors, "it may change the wire shape")?;
        }
        Ok(())
    });
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("charter")) {
        errors.spanned(
            attr,
            "`#[charter(...)]` options go on fields, not on the type",
        );
    }

    let tagging = match (&opts.tag, opts.untagged, opts.content) {
        (_, _, Some(span)) => {
            errors.at(span, "adjacently tagged enums (`tag` + `content`) are not supported by `charter::Schema`");
            Tagging::External
        }
        (Some(_), Some(span), _) => {
            errors.at(
                span,
                "an enum is either `tag = \"...\"` or `untagged`, not both",
            );
            Tagging::External
        }
        (Some((tag, span)), None, None) => Tagging::Internal(tag.clone(), *span),
        (None, Some(_), None) => Tagging::Untagged,
        (None, None, None) => Tagging::External,
    };

    let ident = input.ident.clone();
    let data = match input.data {
        syn::Data::Struct(s) => {
            if let Some(span) = opts.tag.as_ref().map(|t| t.1).or(opts.untagged) {
                errors.at(span, "`tag`/`untagged` apply to enums");
            }
            match s.fields {
                syn::Fields::Named(named) => {
                    if let Some(span) = opts.transparent {
                        let fields: Vec<_> = named.named.iter().collect();
                        if fields.len() == 1 {
                            Data::Transparent(fields[0].ty.clone())
                        } else {
                            errors.at(span, "`transparent` needs exactly one field");
                            Data::Struct(Vec::new())
                        }
                    } else {
                        Data::Struct(parse_fields(
                            &named.named,
                            opts.rename_all,
                            opts.default,
                            &ident,
                            errors,
                        ))
                    }
                }
                syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                    Data::Transparent(unnamed.unnamed[0].ty.clone())
                }
                syn::Fields::Unnamed(unnamed) => {
                    errors.spanned(
                        &unnamed,
                        "tuple structs are not supported by `charter::Schema` (their schema is a positional array): use named fields",
                    );
                    Data::Struct(Vec::new())
                }
                syn::Fields::Unit => {
                    errors.spanned(
                        &ident,
                        "a unit struct has no useful schema (it is `null` on the wire)",
                    );
                    Data::Struct(Vec::new())
                }
            }
        }
        syn::Data::Enum(e) => {
            if opts.default {
                errors.spanned(&ident, "`#[serde(default)]` applies to structs");
            }
            let mut variants = Vec::new();
            for v in &e.variants {
                if let Some(v) = parse_variant(v, &opts, &tagging, &ident, errors) {
                    variants.push(v);
                }
            }
            if variants.is_empty() {
                errors.spanned(
                    &ident,
                    "an enum needs at least one variant the model can send",
                );
            }
            Data::Enum(variants)
        }
        syn::Data::Union(u) => {
            errors.spanned(
                u.union_token,
                "unions are not supported by `charter::Schema`",
            );
            Data::Struct(Vec::new())
        }
    };
    if let (Some(span), Data::Enum(_)) = (opts.transparent, &data) {
        errors.at(span, "`transparent` applies to structs");
    }
    Container {
        ident,
        generics: input.generics,
        data,
        tagging,
    }
}

fn parse_fields(
    fields: &Punctuated<syn::Field, Token![,]>,
    rule: Option<RenameRule>,
    container_default: bool,
    container: &Ident,
    errors: &mut Errors,
) -> Vec<Field> {
    let mut out = Vec::new();
    for f in fields {
        let Some(ident) = f.ident.clone() else {
            continue;
        };
        let mut rename = None;
        let mut skip = false;
        let mut default = container_default;
        for_each_serde(&f.attrs, errors, |meta, errors| {
            let p = &meta.path;
            if p.is_ident("rename") {
                rename = parse_rename(meta, errors)?;
            } else if p.is_ident("default") {
                default = true;
                skip_value(meta)?;
            } else if p.is_ident("skip") || p.is_ident("skip_deserializing") {
                skip = true;
            } else if p.is_ident("alias")
                || p.is_ident("skip_serializing")
                || p.is_ident("skip_serializing_if")
                || p.is_ident("serialize_with")
                || p.is_ident("borrow")
                || p.is_ident("bound")
            {
                skip_value(meta)?; // accepted under another name, or serialisation only
            } else if p.is_ident("flatten") {
                unsupported_serde(
                    meta,
                    errors,
                    "flattened fields would need their properties merged; declare the fields here",
                )?;
            } else if p.is_ident("with") || p.is_ident("deserialize_with") {
                unsupported_serde(
                    meta,
                    errors,
                    "a custom deserializer accepts a shape the field's type does not describe",
                )?;
            } else {
                unsupported_serde(meta, errors, "it may change the wire shape")?;
            }
            Ok(())
        });
        let desc = charter_field_opts(&f.attrs, errors);
        if skip {
            continue;
        }
        if mentions(&f.ty, container) {
            errors.spanned(
                &f.ty,
                "recursive types are not supported by `charter::Schema` (their schema would need `$ref`)",
            );
            continue;
        }
        let desc = desc.or_else(|| doc_desc(&f.attrs, errors));
        let (name, name_span) = match rename {
            Some((n, span)) => (n, span),
            None => {
                let n = ident_name(&ident);
                (
                    rule.map(|r| r.apply_to_field(&n)).unwrap_or(n),
                    ident.span(),
                )
            }
        };
        let (optional, ty) = match option_inner(&f.ty) {
            Some(inner) => (true, inner.clone()),
            None => (false, f.ty.clone()),
        };
        out.push(Field {
            ident,
            name,
            name_span,
            ty,
            required: !optional && !default,
            desc,
        });
    }
    out
}

/// Whether a type mentions `name` or `Self` (a recursive type).
fn mentions(ty: &Type, name: &Ident) -> bool {
    struct Finder<'a> {
        name: &'a Ident,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
            if seg.ident == *self.name || seg.ident == "Self" {
                self.found = true;
            }
            syn::visit::visit_path_segment(self, seg);
        }
    }
    let mut f = Finder { name, found: false };
    syn::visit::Visit::visit_type(&mut f, ty);
    f.found
}

fn parse_variant(
    v: &syn::Variant,
    opts: &ContainerOpts,
    tagging: &Tagging,
    container: &Ident,
    errors: &mut Errors,
) -> Option<Variant> {
    let mut rename = None;
    let mut skip = false;
    let mut rule = opts.rename_all_fields;
    for_each_serde(&v.attrs, errors, |meta, errors| {
        let p = &meta.path;
        if p.is_ident("rename") {
            rename = parse_rename(meta, errors)?;
        } else if p.is_ident("rename_all") {
            rule = parse_rule(meta, errors)?;
        } else if p.is_ident("skip") || p.is_ident("skip_deserializing") {
            skip = true;
        } else if p.is_ident("alias")
            || p.is_ident("skip_serializing")
            || p.is_ident("serialize_with")
            || p.is_ident("borrow")
            || p.is_ident("bound")
        {
            skip_value(meta)?;
        } else if p.is_ident("other") {
            unsupported_serde(
                meta,
                errors,
                "a catch-all variant accepts names the schema cannot list",
            )?;
        } else if p.is_ident("untagged") {
            unsupported_serde(
                meta,
                errors,
                "mixing tagged and untagged variants is not supported; use `#[serde(untagged)]` on the enum",
            )?;
        } else {
            unsupported_serde(meta, errors, "it may change the wire shape")?;
        }
        Ok(())
    });
    for attr in v.attrs.iter().filter(|a| a.path().is_ident("charter")) {
        errors.spanned(
            attr,
            "`#[charter(...)]` options are not supported on variants: document the variant instead",
        );
    }
    if skip {
        return None;
    }
    let desc = doc_desc(&v.attrs, errors);
    let (name, name_span) = match rename {
        Some(r) => r,
        None => {
            let n = ident_name(&v.ident);
            (
                opts.rename_all.map(|r| r.apply_to_variant(&n)).unwrap_or(n),
                v.ident.span(),
            )
        }
    };
    let style = match &v.fields {
        syn::Fields::Unit => {
            if matches!(tagging, Tagging::Untagged) {
                errors.spanned(&v.ident, "a unit variant of an untagged enum is `null` on the wire, which charter's shapes cannot express");
                return None;
            }
            Style::Unit
        }
        syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
            if let Tagging::Internal(..) = tagging {
                errors.spanned(
                    &v.fields,
                    "newtype variants of internally tagged enums are not supported by `charter::Schema`: use a struct variant",
                );
                return None;
            }
            let ty = u.unnamed[0].ty.clone();
            if mentions(&ty, container) {
                errors.spanned(&ty, "recursive types are not supported by `charter::Schema` (their schema would need `$ref`)");
                return None;
            }
            Style::Newtype(ty)
        }
        syn::Fields::Unnamed(u) => {
            errors.spanned(
                u,
                "tuple variants are not supported by `charter::Schema`: use a struct variant",
            );
            return None;
        }
        syn::Fields::Named(n) => {
            Style::Struct(parse_fields(&n.named, rule, false, container, errors))
        }
    };
    Some(Variant {
        name,
        name_span,
        desc,
        style,
    })
}

// ---------------------------------------------------------------------------------------------
// pack!

/// `pack!(#[doc] pub static NAME = "label", "description", [tool, module::tool, ...]);`
pub struct PackInput {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub label: LitStr,
    pub description: LitStr,
    pub tools: Vec<Path>,
}

impl Parse for PackInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![static]>()?;
        let ident: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let label: LitStr = input.parse()?;
        input.parse::<Token![,]>()?;
        let description: LitStr = input.parse()?;
        input.parse::<Token![,]>()?;
        let content;
        syn::bracketed!(content in input);
        let tools = Punctuated::<Path, Token![,]>::parse_terminated(&content)?
            .into_iter()
            .collect();
        let _ = input.parse::<Option<Token![,]>>()?;
        let _ = input.parse::<Option<Token![;]>>()?;
        Ok(Self {
            attrs,
            vis,
            ident,
            label,
            description,
            tools,
        })
    }
}
