//! Shapes as Rust: the statics the table's validation reads, printed from the very tree the
//! view schemas were written from ([`crate::lower`]). A named type is a `static T_<Name>:
//! Named` that uses refer to by name, which is how a recursive one refers to itself.

use charter_schema::{
    Field, Format, ListStyle, Location, Named, Num, NumberRules, ObjectShape, Shape, StringRules,
};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{group_list, opt_str, opt_u32, s, strs, struct_lit, text};

/// The static holding a named type.
pub(super) fn type_static(name: &str) -> syn::Ident {
    format_ident!("T_{}", name)
}

/// `static T_<Name>: Named = Named { .. };`
pub(super) fn named_static(n: &Named) -> TokenStream {
    let ident = type_static(n.name);
    let name = s(n.name);
    let shape = shape_ref(n.shape);
    let recursive = n.recursive;
    let doc = format!(" The `{}` type.", n.name);
    quote! {
        #[doc = #doc]
        #[allow(non_upper_case_globals)]
        static #ident: Named = Named { name: #name, shape: #shape, recursive: #recursive };
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
            let (min, max) = (opt_u32(r.min_items), opt_u32(r.max_items));
            let unique = r.unique_items;
            quote!(Shape::Array(ArrayRules { items: #items, min_items: #min, max_items: #max, unique_items: #unique }))
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
            let description = opt_str(d.description);
            let default = match d.default {
                Some(v) => {
                    let v = text(v);
                    quote!(Some(#v))
                }
                None => quote!(None),
            };
            let inner = shape_ref(d.shape);
            quote!(Shape::Doc(&Doc { description: #description, default: #default, shape: #inner }))
        }
        Shape::Named(n) => {
            let ident = type_static(n.name);
            quote!(Shape::Named(&#ident))
        }
    }
}

/// `ObjectShape { fields: &[..], .. }`.
pub(super) fn object(o: &ObjectShape) -> TokenStream {
    let fields = o.fields.iter().map(field);
    let (a, e) = (
        group_list(o.require_one_of),
        group_list(o.require_exactly_one_of),
    );
    quote!(ObjectShape { fields: &[#(#fields),*], require_one_of: #a, require_exactly_one_of: #e })
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
    let min = match &r.minimum {
        Some(n) => {
            let n = num(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    };
    let max = match &r.maximum {
        Some(n) => {
            let n = num(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    };
    let values = r.enum_values.iter().map(num);
    struct_lit(
        quote!(NumberRules),
        vec![
            ("minimum", min, r.minimum.is_none()),
            ("maximum", max, r.maximum.is_none()),
            (
                "enum_values",
                quote!(&[#(#values),*]),
                r.enum_values.is_empty(),
            ),
        ],
        "NUMBER",
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
            quote!(Some(Format::#v))
        }
        None => quote!(None),
    };
    struct_lit(
        quote!(StringRules),
        vec![
            ("enum_values", values, r.enum_values.is_empty()),
            ("min_length", opt_u32(r.min_length), r.min_length.is_none()),
            ("max_length", opt_u32(r.max_length), r.max_length.is_none()),
            ("pattern", opt_str(r.pattern), r.pattern.is_none()),
            ("format", format, r.format.is_none()),
        ],
        "STRING",
    )
}

/// A `Field` literal spelling out only what differs from `FIELD`.
pub(super) fn field(f: &Field) -> TokenStream {
    let name = s(f.name);
    let wire = s(f.wire);
    let description = s(f.description);
    let shape = shape_ref(f.shape);
    let required = f.required;
    let modes = strs(f.modes.iter().copied());
    let default = match f.default {
        Some(d) => {
            let d = text(d);
            quote!(Some(#d))
        }
        None => quote!(None),
    };
    let location = format_ident!("{}", format!("{:?}", f.location));
    let style = format_ident!("{}", format!("{:?}", f.style));
    let allow_slash = f.allow_slash;
    let from_context = opt_str(f.from_context);
    struct_lit(
        quote!(Field),
        vec![
            ("name", quote!(#name), false),
            ("wire", quote!(#wire), false),
            ("description", quote!(#description), false),
            ("shape", shape, false),
            ("required", quote!(#required), !f.required),
            ("modes", modes, f.modes.is_empty()),
            ("default", default, f.default.is_none()),
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
            ("allow_slash", quote!(#allow_slash), !f.allow_slash),
            ("from_context", from_context, f.from_context.is_none()),
        ],
        "FIELD",
    )
}
