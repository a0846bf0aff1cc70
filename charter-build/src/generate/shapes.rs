//! Shapes as Rust: the statics the table's validation reads, printed from the very tree the
//! view schemas were written from ([`crate::lower`]). A named type is a `static T_<Name>:
//! Named` that uses refer to by name, which is how a recursive one refers to itself.

use charter_schema::{
    Field, Format, ListStyle, Location, Named, Num, NumberRules, ObjectShape, Shape, StringRules,
};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{group_list, lit, s, strs, text, u_or_zero, with_chain};

/// The static holding a named type.
pub(super) fn type_static(name: &str) -> syn::Ident {
    format_ident!("T_{}", name)
}

/// `static T_<Name>: Named = Named::new(..);`
pub(super) fn named_static(n: &Named) -> TokenStream {
    let ident = type_static(n.name);
    let name = s(n.name);
    let shape = shape_ref(n.shape);
    let named = with_chain(
        quote!(Named::new(#name, #shape)),
        vec![("recursive", quote!(true), !n.recursive)],
    );
    let doc = format!(" The `{}` type.", n.name);
    quote! {
        #[doc = #doc]
        #[allow(non_upper_case_globals)]
        static #ident: Named = #named;
    }
}

/// An expression of type `&'static Shape`.
pub(super) fn shape_ref(shape: &Shape) -> TokenStream {
    let v = shape_value(shape);
    quote!(&#v)
}

/// An expression of type `Shape`.
pub(super) fn shape_value(shape: &Shape) -> TokenStream {
    match shape {
        Shape::Any => quote!(Shape::Any),
        Shape::Bool => quote!(Shape::Bool),
        Shape::Integer(r) => {
            let r = numbers(r);
            quote!(Shape::Integer(#r))
        }
        Shape::Number(r) => {
            let r = numbers(r);
            quote!(Shape::Number(#r))
        }
        Shape::String(r) => {
            let r = strings(r);
            quote!(Shape::String(#r))
        }
        Shape::Array(r) => {
            let items = shape_ref(r.items);
            let rules = with_chain(
                quote!(ArrayRules::of(#items)),
                vec![
                    ("min_items", u_or_zero(r.min_items), r.min_items.is_none()),
                    ("max_items", u_or_zero(r.max_items), r.max_items.is_none()),
                    ("unique_items", quote!(true), !r.unique_items),
                ],
            );
            quote!(Shape::Array(#rules))
        }
        Shape::Object(o) => {
            let o = object(o);
            quote!(Shape::Object(#o))
        }
        Shape::Map(v) => {
            let v = shape_ref(v);
            quote!(Shape::Map(#v))
        }
        Shape::Nullable(v) => {
            let v = shape_ref(v);
            quote!(Shape::Nullable(#v))
        }
        Shape::OneOf(alts) => {
            let alts = alts.iter().map(shape_value);
            quote!(Shape::OneOf(&[#(#alts),*]))
        }
        Shape::AnyOf(alts) => {
            let alts = alts.iter().map(shape_value);
            quote!(Shape::AnyOf(&[#(#alts),*]))
        }
        Shape::Doc(d) => {
            let inner = shape_ref(d.shape);
            let doc = with_chain(
                quote!(Doc::new(#inner)),
                vec![
                    (
                        "description",
                        lit(s(d.description.unwrap_or(""))),
                        d.description.is_none(),
                    ),
                    (
                        "default",
                        d.default.map_or(quote!(), |v| lit(text(v))),
                        d.default.is_none(),
                    ),
                ],
            );
            quote!(Shape::Doc(&#doc))
        }
        Shape::Named(n) => {
            let ident = type_static(n.name);
            quote!(Shape::Named(&#ident))
        }
    }
}

/// `ObjectShape::of(&[..])` and its groups.
pub(super) fn object(o: &ObjectShape) -> TokenStream {
    let fields = o.fields.iter().map(field);
    with_chain(
        quote!(ObjectShape::of(&[#(#fields),*])),
        vec![
            (
                "require_one_of",
                group_list(o.require_one_of),
                o.require_one_of.is_empty(),
            ),
            (
                "require_exactly_one_of",
                group_list(o.require_exactly_one_of),
                o.require_exactly_one_of.is_empty(),
            ),
        ],
    )
}

fn num(n: &Num) -> TokenStream {
    let v = n.value;
    let lit = Literal::f64_suffixed(v.abs());
    let value = if v.is_sign_negative() && v != 0.0 {
        quote!(-#lit)
    } else {
        quote!(#lit)
    };
    let t = s(n.text);
    quote!(Num { value: #value, text: #t })
}

fn numbers(r: &NumberRules) -> TokenStream {
    let values = r.enum_values.iter().map(num);
    with_chain(
        quote!(NumberRules::NONE),
        vec![
            (
                "minimum",
                r.minimum.as_ref().map_or(quote!(), num),
                r.minimum.is_none(),
            ),
            (
                "maximum",
                r.maximum.as_ref().map_or(quote!(), num),
                r.maximum.is_none(),
            ),
            (
                "enum_values",
                quote!(&[#(#values),*]),
                r.enum_values.is_empty(),
            ),
        ],
    )
}

fn strings(r: &StringRules) -> TokenStream {
    let values = strs(r.enum_values.iter().copied());
    let format = match r.format {
        Some(f) => {
            let v = format_ident!(
                "{}",
                match f {
                    Format::DateTime => "DateTime",
                    Format::Date => "Date",
                    Format::DateTimeLocal => "DateTimeLocal",
                    Format::Email => "Email",
                    Format::Uri => "Uri",
                    Format::Uuid => "Uuid",
                    Format::Base64Url => "Base64Url",
                }
            );
            quote!(Format::#v)
        }
        None => quote!(),
    };
    with_chain(
        quote!(StringRules::NONE),
        vec![
            ("enum_values", values, r.enum_values.is_empty()),
            (
                "min_length",
                u_or_zero(r.min_length),
                r.min_length.is_none(),
            ),
            (
                "max_length",
                u_or_zero(r.max_length),
                r.max_length.is_none(),
            ),
            (
                "pattern",
                lit(s(r.pattern.unwrap_or(""))),
                r.pattern.is_none(),
            ),
            ("format", format, r.format.is_none()),
        ],
    )
}

/// `Field::new(name, description, shape)` and what differs from its defaults.
pub(super) fn field(f: &Field) -> TokenStream {
    let name = s(f.name);
    let description = s(f.description);
    let shape = shape_ref(f.shape);
    let location = format_ident!("{}", format!("{:?}", f.location));
    let style = format_ident!("{}", format!("{:?}", f.style));
    with_chain(
        quote!(Field::new(#name, #description, #shape)),
        vec![
            ("wire", lit(s(f.wire)), f.wire == f.name),
            ("required", quote!(true), !f.required),
            ("modes", strs(f.modes.iter().copied()), f.modes.is_empty()),
            (
                "default",
                f.default.map_or(quote!(), |v| lit(text(v))),
                f.default.is_none(),
            ),
            (
                "location",
                quote!(Location::#location),
                f.location == Location::Arg,
            ),
            (
                "style",
                quote!(ListStyle::#style),
                f.style == ListStyle::Repeat,
            ),
            ("allow_slash", quote!(true), !f.allow_slash),
            (
                "from_context",
                lit(s(f.from_context.unwrap_or(""))),
                f.from_context.is_none(),
            ),
        ],
    )
}
