//! `charter::pack!`: a static [`Table`](../charter_runtime/table/struct.Table.html) of
//! `#[charter::tool]` functions under one pack label.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Path, Token, Visibility};

use crate::errors::Errors;
use crate::shape::{krate, private};

/// `pack!(#[doc] pub static NAME = "label", "description", [tool, module::tool, ...]);`, with
/// an optional leading `crate = "path";` (the facade's path when the dependency is renamed).
pub struct PackInput {
    pub krate: Option<Path>,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub label: LitStr,
    pub description: LitStr,
    pub tools: Vec<Path>,
}

impl Parse for PackInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut krate = None;
        if input.peek(Token![crate]) && input.peek2(Token![=]) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            krate = Some(crate::shape::crate_path(&input.parse::<LitStr>()?)?);
            input.parse::<Token![;]>()?;
        }
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
            krate,
            attrs,
            vis,
            ident,
            label,
            description,
            tools,
        })
    }
}

/// What is wrong with a pack label, worded for the macro's user (the rule is
/// `charter_terms::names`).
fn label_problem(label: &str) -> Option<String> {
    use charter_terms::names::NameProblem;
    match charter_terms::names::label_problem(label)? {
        NameProblem::Char(c) => {
            let why = if c == '_' {
                " (the first `_` of a qualified name splits pack from tool)"
            } else {
                ""
            };
            Some(format!(
                "invalid pack label `{label}`: `{c}` is not allowed, labels are `[a-z0-9-]+`{why}"
            ))
        }
        _ => Some("a pack label cannot be empty".into()),
    }
}

fn check(p: &PackInput, errors: &mut Errors) {
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

/// Expands `charter::pack!(...)`.
pub fn pack(input: TokenStream) -> TokenStream {
    let p: PackInput = match syn::parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let path = p.krate.clone();
    crate::shape::with_crate(path.as_ref(), || expand(p))
}

fn expand(p: PackInput) -> TokenStream {
    let mut errors = Errors::default();
    check(&p, &mut errors);
    let k = krate();
    let private = private();
    let PackInput {
        krate: _,
        attrs,
        vis,
        ident,
        label,
        description,
        tools,
    } = &p;
    if !errors.is_empty() {
        let errors = errors.to_compile_errors();
        return quote! {
            #(#attrs)*
            #vis static #ident: #k::Table = #k::Table::new(#label, #description, &[]);
            #errors
        };
    }
    let defs = tools.iter().map(|t| {
        let span = t.span();
        quote_spanned! {span=>
            #k::schema::tool_def::<#t>(#label, #private::const_qualified!(#label, <#t as #k::schema::Tool>::NAME))
        }
    });
    // Compile-time checks, each spanned on the tool it is about.
    let mut checks = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let span = t.span();
        checks.push(quote_spanned! {span=>
            if #k::schema::qualified_len(#label, <#t as #k::schema::Tool>::NAME) > #k::schema::MAX_NAME {
                ::core::panic!("this tool's qualified name `<pack>_<tool>` is longer than 50 characters (docs/design.md §2): shorten it with `#[charter::tool(name = \"...\")]`");
            }
        });
        for earlier in &tools[..i] {
            checks.push(quote_spanned! {span=>
                if #k::schema::str_eq(<#t as #k::schema::Tool>::NAME, <#earlier as #k::schema::Tool>::NAME) {
                    ::core::panic!("two tools of this pack have the same name: rename one with `#[charter::tool(name = \"...\")]`");
                }
            });
        }
    }
    quote! {
        #(#attrs)*
        #vis static #ident: #k::Table = #k::Table::new(#label, #description, &[#(#defs),*]);
        const _: () = {
            #(#checks)*
        };
    }
}
