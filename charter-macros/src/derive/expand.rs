//! Code generation for `#[derive(Schema)]`: the type's schema pieces and its shape.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{self, Container, Data, Field, Style, Tagging};
use super::validate;
use crate::errors::Errors;
use crate::pieces::{FieldTokens, Pieces, krate, schema_shape};
use crate::text::json_str;

/// Expands `#[derive(charter::Schema)]`.
pub fn derive(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let path = ast::container_crate(&input.attrs, &mut errors);
    crate::pieces::with_crate(path.as_ref(), || expand_derive(input, errors))
}

fn expand_derive(input: syn::DeriveInput, mut errors: Errors) -> TokenStream {
    let c = ast::parse_derive(input, &mut errors);
    validate::container(&c, &mut errors);
    let k = krate();
    let (members, shape) = if errors.is_empty() {
        container_schema(&c)
    } else {
        // A placeholder keeps uses of the type from adding errors of their own.
        (
            quote!(&[#k::schema::Piece::Str("\"type\":\"object\"")]),
            quote!(#k::table::Shape::Any),
        )
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
            const MEMBERS: &'static [#k::schema::Piece] = #members;
            const SHAPE: #k::table::Shape = #shape;
        }
        #errors
    }
}

pub(crate) fn string_enum_shape(names: &[&str]) -> TokenStream {
    let k = krate();
    quote! {
        #k::table::Shape::String(#k::table::StringRules {
            enum_values: &[#(#names),*],
            min_length: ::core::option::Option::None,
            max_length: ::core::option::Option::None,
            pattern: ::core::option::Option::None,
            format: ::core::option::Option::None,
        })
    }
}

pub(crate) fn described(desc: &Option<String>) -> String {
    match desc {
        Some(d) => format!(",\"description\":{}", json_str(d)),
        None => String::new(),
    }
}

/// The members of an object schema over these fields, the tag property first if any.
pub(crate) fn object_members(fields: &[Field], tag: Option<(&str, &str)>) -> Pieces {
    let mut p = Pieces::default();
    p.s("\"type\":\"object\",\"properties\":{");
    let mut required = Vec::new();
    if let Some((tag, variant)) = tag {
        p.s(&format!(
            "{}:{{\"type\":\"string\",\"const\":{}}}",
            json_str(tag),
            json_str(variant)
        ));
        required.push(json_str(tag));
    }
    for (i, f) in fields.iter().enumerate() {
        if i > 0 || tag.is_some() {
            p.s(",");
        }
        p.s(&format!("{}:{{", json_str(&f.name)));
        p.tree(&f.ty);
        p.s(&format!("{}}}", described(&f.desc)));
        if f.required {
            required.push(json_str(&f.name));
        }
    }
    p.s("}");
    if !required.is_empty() {
        p.s(&format!(",\"required\":[{}]", required.join(",")));
    }
    p.s(",\"additionalProperties\":false");
    p
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
    quote!(#k::table::Shape::Object(#k::table::ObjectShape { fields: &[#(#out),*], require_one_of: &[], require_exactly_one_of: &[], }))
}

/// `(MEMBERS, SHAPE)` of a valid container.
pub(crate) fn container_schema(c: &Container) -> (TokenStream, TokenStream) {
    let k = krate();
    match &c.data {
        Data::Struct(fields) => (
            object_members(fields, None).to_tokens(),
            object_shape(fields, None),
        ),
        Data::Transparent(ty) => {
            let span = ty.span();
            (
                quote_spanned!(span=> <#ty as #k::schema::Schema>::MEMBERS),
                quote_spanned!(span=> <#ty as #k::schema::Schema>::SHAPE),
            )
        }
        Data::Enum(variants) => match &c.tagging {
            Tagging::External => external_enum(variants),
            Tagging::Internal(tag, _) => {
                let mut p = Pieces::default();
                p.s("\"oneOf\":[");
                let mut shapes = Vec::new();
                for (i, v) in variants.iter().enumerate() {
                    if i > 0 {
                        p.s(",");
                    }
                    let fields: &[Field] = match &v.style {
                        Style::Struct(fields) => fields,
                        _ => &[],
                    };
                    p.s("{");
                    p.append(object_members(fields, Some((tag, &v.name))));
                    p.s(&format!("{}}}", described(&v.desc)));
                    shapes.push(object_shape(fields, Some((tag, &v.name))));
                }
                p.s("]");
                (
                    p.to_tokens(),
                    quote!(#k::table::Shape::OneOf(&[#(#shapes),*])),
                )
            }
            Tagging::Untagged => {
                let mut p = Pieces::default();
                p.s("\"anyOf\":[");
                let mut shapes = Vec::new();
                for (i, v) in variants.iter().enumerate() {
                    if i > 0 {
                        p.s(",");
                    }
                    p.s("{");
                    match &v.style {
                        Style::Newtype(ty) => {
                            p.tree(ty);
                            let span = ty.span();
                            shapes.push(quote_spanned!(span=> <#ty as #k::schema::Schema>::SHAPE));
                        }
                        Style::Struct(fields) => {
                            p.append(object_members(fields, None));
                            shapes.push(object_shape(fields, None));
                        }
                        Style::Unit => unreachable!("refused while parsing"),
                    }
                    p.s(&format!("{}}}", described(&v.desc)));
                }
                p.s("]");
                (
                    p.to_tokens(),
                    quote!(#k::table::Shape::OneOf(&[#(#shapes),*])),
                )
            }
        },
    }
}

/// serde's default representation, laid out as schemars lays it out: undocumented unit variants
/// share one string `enum`; documented ones get a `const` each; data variants are
/// `{"Name": ...}` objects.
pub(crate) fn external_enum(variants: &[ast::Variant]) -> (TokenStream, TokenStream) {
    let k = krate();
    let plain: Vec<&str> = variants
        .iter()
        .filter(|v| matches!(v.style, Style::Unit) && v.desc.is_none())
        .map(|v| v.name.as_str())
        .collect();
    let names_json = |names: &[&str]| {
        names
            .iter()
            .map(|n| json_str(n))
            .collect::<Vec<_>>()
            .join(",")
    };
    if plain.len() == variants.len() {
        let mut p = Pieces::default();
        p.s(&format!(
            "\"type\":\"string\",\"enum\":[{}]",
            names_json(&plain)
        ));
        return (p.to_tokens(), string_enum_shape(&plain));
    }
    let mut p = Pieces::default();
    let mut shapes = Vec::new();
    p.s("\"oneOf\":[");
    let mut first = true;
    if !plain.is_empty() {
        p.s(&format!(
            "{{\"type\":\"string\",\"enum\":[{}]}}",
            names_json(&plain)
        ));
        shapes.push(string_enum_shape(&plain));
        first = false;
    }
    for v in variants {
        if matches!(v.style, Style::Unit) && v.desc.is_none() {
            continue;
        }
        if !first {
            p.s(",");
        }
        first = false;
        match &v.style {
            Style::Unit => {
                p.s(&format!(
                    "{{\"type\":\"string\",\"const\":{}{}}}",
                    json_str(&v.name),
                    described(&v.desc)
                ));
                shapes.push(string_enum_shape(&[&v.name]));
            }
            Style::Newtype(_) | Style::Struct(_) => {
                let name = json_str(&v.name);
                p.s(&format!("{{\"type\":\"object\",\"properties\":{{{name}:{{"));
                let inner_shape = match &v.style {
                    Style::Newtype(ty) => {
                        p.tree(ty);
                        schema_shape(ty)
                    }
                    Style::Struct(fields) => {
                        p.append(object_members(fields, None));
                        let s = object_shape(fields, None);
                        quote!(&#s)
                    }
                    Style::Unit => unreachable!(),
                };
                p.s(&format!(
                    "}}}},\"required\":[{name}],\"additionalProperties\":false{}}}",
                    described(&v.desc)
                ));
                let field = FieldTokens {
                    name: &v.name,
                    description: v.desc.as_deref().unwrap_or(""),
                    shape: inner_shape,
                    required: true,
                    modes: Vec::new(),
                    from_context: None,
                };
                shapes.push(
                    quote!(#k::table::Shape::Object(#k::table::ObjectShape { fields: &[#field], require_one_of: &[], require_exactly_one_of: &[], })),
                );
            }
        }
    }
    p.s("]");
    (
        p.to_tokens(),
        quote!(#k::table::Shape::OneOf(&[#(#shapes),*])),
    )
}
