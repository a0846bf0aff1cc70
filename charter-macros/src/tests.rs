//! Snapshots of what the three macros generate.

use proc_macro2::TokenStream;
use quote::quote;

use crate::derive::derive;
use crate::pack::pack;
use crate::tool::tool;

fn pretty(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => tokens.to_string(),
    }
}

#[test]
fn snapshot_async_tool_with_modes_and_context() {
    let out = tool(
        quote!(idempotent, mode = "update", hints = ["Memo"]),
        quote! {
            /// Update a note's title or body.
            ///
            /// # Arguments
            /// * `id` - The note to change.
            pub async fn update_note(
                id: u64,
                #[charter(desc = "The new title.")] title: Option<&str>,
                #[charter(desc = "Pin it to the top.", mode = "pro")] pinned: Option<bool>,
                #[charter(from_context = "workspace")] workspace: String,
                ctx: &CallContext,
            ) -> Result<Note, StoreError> {
                todo!()
            }
        },
    );
    insta::assert_snapshot!(pretty(out));
}

#[test]
fn snapshot_plain_fn_tool() {
    let out = tool(
        quote!(read_only, idempotent),
        quote! {
            /// Add two numbers.
            fn add(#[charter(desc = "The first term.")] a: f64, #[charter(desc = "The second term.")] b: f64) -> f64 {
                a + b
            }
        },
    );
    insta::assert_snapshot!(pretty(out));
}

#[test]
fn snapshot_derive_struct() {
    let out = derive(quote! {
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Filter<T> {
            /// Only these tags.
            tag_names: Vec<String>,
            /// Newest first?
            #[serde(default)]
            newest_first: bool,
            /// Extra.
            extra: Option<T>,
            #[serde(skip)]
            cache: u8,
        }
    });
    insta::assert_snapshot!(pretty(out));
}

#[test]
fn snapshot_derive_enums() {
    let external = derive(quote! {
        enum Shape {
            Empty,
            /// A circle.
            Circle { /// Radius.
                r: f64 },
            Named(String),
        }
    });
    let internal = derive(quote! {
        #[serde(tag = "kind", rename_all = "snake_case")]
        enum Event { Opened, Renamed { /// The new name.
            to: String } }
    });
    insta::assert_snapshot!(format!("{}\n{}", pretty(external), pretty(internal)));
}

#[test]
fn snapshot_pack() {
    let out = pack(quote!(
        /// The notes pack.
        pub static TOOLS = "notes", "Notes.", [add, notes::create_note]
    ));
    insta::assert_snapshot!(pretty(out));
}

#[test]
fn errors_keep_the_item_and_add_a_placeholder() {
    let out = pretty(tool(
        quote!(),
        quote! {
            fn undocumented(#[charter(mode = "")] x: u8) -> u8 { x }
        },
    ));
    assert!(out.contains("fn undocumented(x: u8) -> u8"), "{out}");
    assert!(
        out.contains("impl ::charter::schema::Tool for undocumented"),
        "{out}"
    );
    assert!(out.contains("a tool needs a doc comment"), "{out}");
    assert!(out.contains("an empty mode label is refused"), "{out}");
    assert!(out.contains("needs a description"), "{out}");
}
