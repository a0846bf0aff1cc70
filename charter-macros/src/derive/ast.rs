//! What `#[derive(Schema)]` reads: the container, its fields and variants, and the serde
//! attributes that shape their JSON.

use proc_macro2::Span;
use syn::Token;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Type};

use crate::errors::{Errors, ident_name, skip_value};
use crate::text::{RenameRule, description, doc_lines};
use crate::types::option_inner;

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
pub(crate) struct ContainerOpts {
    rename_all: Option<RenameRule>,
    rename_all_fields: Option<RenameRule>,
    tag: Option<(String, Span)>,
    content: Option<Span>,
    untagged: Option<Span>,
    default: bool,
    transparent: Option<Span>,
}

pub(crate) fn parse_rule(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<Option<RenameRule>> {
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

pub(crate) fn check_rule(lit: &LitStr, errors: &mut Errors) -> Option<RenameRule> {
    let rule = RenameRule::parse(&lit.value());
    if rule.is_none() {
        errors.spanned(lit, "unknown rename rule");
    }
    rule
}

/// `rename = "x"` or `rename(deserialize = "x")`: the name arguments arrive under.
pub(crate) fn parse_rename(
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

pub(crate) fn unsupported_serde(
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

pub(crate) fn for_each_serde(
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
pub(crate) fn charter_field_opts(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
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

pub(crate) fn doc_desc(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    match doc_lines(attrs) {
        Ok(lines) => Some(description(&lines)).filter(|d| !d.is_empty()),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// The type's own `#[charter(crate = "...")]` (the facade's path when the dependency is
/// renamed); every other `#[charter(...)]` option goes on fields.
pub fn container_crate(attrs: &[Attribute], errors: &mut Errors) -> Option<syn::Path> {
    let mut krate = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("charter")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                if krate.is_some() {
                    errors.spanned(&meta.path, "`crate` is already set");
                }
                match crate::shape::crate_path(&lit) {
                    Ok(path) => krate = Some(path),
                    Err(e) => errors.push(e),
                }
            } else {
                errors.spanned(
                    &meta.path,
                    "on the type, `#[charter(...)]` takes only `crate = \"...\"`; other options go on fields",
                );
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = parsed {
            errors.push(e);
        }
    }
    krate
}

pub fn parse_derive(input: syn::DeriveInput, errors: &mut Errors) -> Container {
    let opts = container_opts(&input.attrs, errors);

    let tagging = tagging(&opts, errors);

    let ident = input.ident.clone();
    let data = match input.data {
        syn::Data::Struct(s) => {
            if let Some(span) = opts.tag.as_ref().map(|t| t.1).or(opts.untagged) {
                errors.at(span, "`tag`/`untagged` apply to enums");
            }
            struct_data(s.fields, &opts, &ident, errors)
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

/// The container's serde options.
fn container_opts(attrs: &[Attribute], errors: &mut Errors) -> ContainerOpts {
    let mut opts = ContainerOpts::default();
    for_each_serde(attrs, errors, |meta, errors| {
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
    opts
}

/// How an enum is tagged, refusing the combinations charter does not describe.
fn tagging(opts: &ContainerOpts, errors: &mut Errors) -> Tagging {
    match (&opts.tag, opts.untagged, opts.content) {
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
    }
}

/// A struct's fields: named, a newtype (transparent), or refused.
fn struct_data(
    fields: syn::Fields,
    opts: &ContainerOpts,
    ident: &Ident,
    errors: &mut Errors,
) -> Data {
    match fields {
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
                    ident,
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
                ident,
                "a unit struct has no useful schema (it is `null` on the wire)",
            );
            Data::Struct(Vec::new())
        }
    }
}

pub(crate) fn parse_fields(
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
pub(crate) fn mentions(ty: &Type, name: &Ident) -> bool {
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

pub(crate) fn parse_variant(
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
