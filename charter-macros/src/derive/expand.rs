//! Code generation for `#[derive(Schema)]`: the type's shape. Its schema text is the schema
//! emitter's, written from that shape where a tool uses the type.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{self, Container, Data, Field, Style, Tagging};
use super::validate;
use crate::errors::Errors;
use crate::shape::{FieldTokens, described, krate, schema_shape};

/// Expands `#[derive(charter::Schema)]`.
pub fn derive(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let path = ast::container_crate(&input.attrs, &mut errors);
    crate::shape::with_crate(path.as_ref(), || expand_derive(input, errors))
}

fn expand_derive(input: syn::DeriveInput, mut errors: Errors) -> TokenStream {
    let c = ast::parse_derive(input, &mut errors);
    validate::container(&c, &mut errors);
    let k = krate();
    let shape = if errors.is_empty() {
        container_shape(&c)
    } else {
        // A placeholder keeps uses of the type from adding errors of their own.
        quote!(#k::table::Shape::Any)
    };
    let mut generics = c.generics.clone();
    let type_params: Vec<_> = generics.type_params().map(|t| t.ident.clone()).collect();
    if !type_params.is_empty() {
        let where_clause = generics.make_where_clause();
        for t in type_params {
            where_clause
                .predicates
                .push(syn::parse_quote!(#t: #k::schema::Schema));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let ident = &c.ident;
    let errors = errors.to_compile_errors();
    quote! {
        impl #impl_generics #k::schema::Schema for #ident #ty_generics #where_clause {
            const SHAPE: #k::table::Shape = #shape;
        }
        #errors
    }
}

pub(crate) fn string_enum_shape(names: &[&str]) -> TokenStream {
    let k = krate();
    quote! {
        #k::table::Shape::String(#k::table::StringRules::NONE.with_enum_values(&[#(#names),*]))
    }
}

pub(crate) fn object_shape(fields: &[Field], tag: Option<(&str, &str)>) -> TokenStream {
    let k = krate();
    let mut out = Vec::new();
    if let Some((tag, variant)) = tag {
        out.push(
            FieldTokens {
                name: tag,
                description: "",
                shape: {
                    let s = string_enum_shape(&[variant]);
                    quote!(&#s)
                },
                required: true,
                modes: Vec::new(),
                from_context: None,
            }
            .into_token_stream(),
        );
    }
    for f in fields {
        out.push(
            FieldTokens {
                name: &f.name,
                description: f.desc.as_deref().unwrap_or(""),
                shape: schema_shape(&f.ty),
                required: f.required,
                modes: Vec::new(),
                from_context: None,
            }
            .into_token_stream(),
        );
    }
    quote!(#k::table::Shape::Object(#k::table::ObjectShape::of(&[#(#out),*])))
}

/// `SHAPE` of a valid container.
pub(crate) fn container_shape(c: &Container) -> TokenStream {
    let k = krate();
    match &c.data {
        Data::Struct(fields) => object_shape(fields, None),
        Data::Transparent(ty) => {
            let span = ty.span();
            quote_spanned!(span=> <#ty as #k::schema::Schema>::SHAPE)
        }
        Data::Enum(variants) => match &c.tagging {
            Tagging::External => external_enum(variants),
            Tagging::Internal(tag, _) => {
                // Each variant an object whose tag property names it, documented by its doc
                // comment; exactly one fits.
                let shapes = variants.iter().map(|v| {
                    let fields: &[Field] = match &v.style {
                        Style::Struct(fields) => fields,
                        _ => &[],
                    };
                    described(object_shape(fields, Some((tag, &v.name))), &v.desc)
                });
                quote!(#k::table::Shape::OneOf(&[#(#shapes),*]))
            }
            Tagging::Untagged => {
                // The first variant that fits wins (serde's order): `anyOf`.
                let shapes = variants.iter().map(|v| {
                    let shape = match &v.style {
                        Style::Newtype(ty) => {
                            let span = ty.span();
                            quote_spanned!(span=> <#ty as #k::schema::Schema>::SHAPE)
                        }
                        Style::Struct(fields) => object_shape(fields, None),
                        Style::Unit => unreachable!("refused while parsing"),
                    };
                    described(shape, &v.desc)
                });
                quote!(#k::table::Shape::AnyOf(&[#(#shapes),*]))
            }
        },
    }
}

/// serde's default representation, laid out as schemars lays it out: undocumented unit variants
/// share one string `enum`; documented ones are a one-value `enum` each, with the variant's doc
/// comment; data variants are `{"Name": ...}` objects.
pub(crate) fn external_enum(variants: &[ast::Variant]) -> TokenStream {
    let k = krate();
    let plain: Vec<&str> = variants
        .iter()
        .filter(|v| matches!(v.style, Style::Unit) && v.desc.is_none())
        .map(|v| v.name.as_str())
        .collect();
    if plain.len() == variants.len() {
        return string_enum_shape(&plain);
    }
    let mut shapes = Vec::new();
    if !plain.is_empty() {
        shapes.push(string_enum_shape(&plain));
    }
    for v in variants {
        match &v.style {
            Style::Unit if v.desc.is_none() => {}
            Style::Unit => shapes.push(described(string_enum_shape(&[&v.name]), &v.desc)),
            Style::Newtype(_) | Style::Struct(_) => {
                let inner_shape = match &v.style {
                    Style::Newtype(ty) => schema_shape(ty),
                    Style::Struct(fields) => {
                        let s = object_shape(fields, None);
                        quote!(&#s)
                    }
                    Style::Unit => unreachable!(),
                };
                let field = FieldTokens {
                    name: &v.name,
                    description: "",
                    shape: inner_shape,
                    required: true,
                    modes: Vec::new(),
                    from_context: None,
                };
                let object =
                    quote!(#k::table::Shape::Object(#k::table::ObjectShape::of(&[#field])));
                shapes.push(described(object, &v.desc));
            }
        }
    }
    quote!(#k::table::Shape::OneOf(&[#(#shapes),*]))
}
