//! Schema emission shared by `#[charter::tool]` and `#[derive(Schema)]`: every schema is a
//! [`Piece`] tree of string literals and the parameter types' `Schema::MEMBERS`, which
//! `charter_runtime::schema` flattens in `const` context, so nothing is built at run time.
//!
//! [`Piece`]: ../../charter_runtime/schema/enum.Piece.html

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

/// The facade crate generated code names.
pub(crate) fn krate() -> TokenStream {
    quote!(::charter)
}

/// A piece tree under construction: adjacent text is merged into one literal.
#[derive(Default)]
pub(crate) struct Pieces {
    parts: Vec<Part>,
}

pub(crate) enum Part {
    Str(String),
    /// `<T as Schema>::MEMBERS`, spanned on the type so a missing impl points there.
    Tree(Type),
}

impl Pieces {
    pub(crate) fn s(&mut self, text: &str) {
        if let Some(Part::Str(last)) = self.parts.last_mut() {
            last.push_str(text);
        } else {
            self.parts.push(Part::Str(text.to_owned()));
        }
    }

    pub(crate) fn tree(&mut self, ty: &Type) {
        self.parts.push(Part::Tree(ty.clone()));
    }

    pub(crate) fn append(&mut self, other: Pieces) {
        for part in other.parts {
            match part {
                Part::Str(s) => self.s(&s),
                Part::Tree(t) => self.parts.push(Part::Tree(t)),
            }
        }
    }

    /// `&[Piece, ...]`
    pub(crate) fn to_tokens(&self) -> TokenStream {
        let k = krate();
        let items = self.parts.iter().map(|p| match p {
            Part::Str(s) => quote!(#k::schema::Piece::Str(#s)),
            Part::Tree(ty) => {
                let span = ty.span();
                quote_spanned!(span=> #k::schema::Piece::Tree(<#ty as #k::schema::Schema>::MEMBERS))
            }
        });
        quote!(&[#(#items),*])
    }
}

pub(crate) fn schema_shape(ty: &Type) -> TokenStream {
    let k = krate();
    let span = ty.span();
    quote_spanned!(span=> &<#ty as #k::schema::Schema>::SHAPE)
}

pub(crate) struct FieldTokens<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) shape: TokenStream,
    pub(crate) required: bool,
    pub(crate) modes: Vec<String>,
    pub(crate) from_context: Option<String>,
}

impl ToTokens for FieldTokens<'_> {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let k = krate();
        let FieldTokens {
            name,
            description,
            shape,
            required,
            modes,
            from_context,
        } = self;
        let from_context = match from_context {
            Some(key) => quote!(::core::option::Option::Some(#key)),
            None => quote!(::core::option::Option::None),
        };
        tokens.extend(quote! {
            #k::table::Field {
                name: #name,
                wire: #name,
                description: #description,
                shape: #shape,
                required: #required,
                modes: &[#(#modes),*],
                default: ::core::option::Option::None,
                location: #k::table::Location::Arg,
                style: #k::table::ListStyle::Repeat,
                allow_slash: false,
                from_context: #from_context,
            }
        });
    }
}
