//! A Rust type taken apart: whether it is optional, what describes its schema, what serde
//! deserialises and how the value reaches the function (shared by `#[charter::tool]` parameters
//! and `#[derive(Schema)]` fields).

use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{GenericArgument, PathArguments, Type};

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

/// Lifetimes become `'static` so the type can be named in the generated constants.
pub(crate) struct StaticLifetimes;

impl VisitMut for StaticLifetimes {
    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        *lt = syn::Lifetime::new("'static", lt.span());
    }
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        r.lifetime = Some(syn::Lifetime::new("'static", r.and_token.span));
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
}

pub(crate) fn static_type(ty: &Type) -> Type {
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

pub(crate) fn check_supported(ty: &Type) -> syn::Result<()> {
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
