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

#[test]
fn the_result_probed_is_the_returned_type_nameable_in_a_const() {
    let probed = |ret: TokenStream| {
        let out = tool(
            quote!(),
            quote! {
                /// A tool.
                fn t<'a>() -> #ret { todo!() }
            },
        )
        .to_string();
        let (_, rest) = out
            .split_once("const __CHARTER_RESULT")
            .expect("a result constant");
        let (value, _) = rest.split_once("; const __CHARTER_VIEW_0").unwrap();
        // Without spaces: how `>` tokens print (`>>` or `> >`) does not matter.
        let value: String = value.split_whitespace().collect();
        value
            .split_once("Returned<")
            .map(|(_, ty)| ty.rsplit_once(">>::SHAPE").unwrap().0.to_owned())
    };
    assert_eq!(probed(quote!(Vec<Task>)).as_deref(), Some("Vec<Task>"));
    // `T` of a `Result`, whatever the path, with `E` or without.
    assert_eq!(
        probed(quote!(std::result::Result<Option<Task>, Error>)).as_deref(),
        Some("Option<Task>")
    );
    assert_eq!(probed(quote!(anyhow::Result<u32>)).as_deref(), Some("u32"));
    // Every lifetime `'static`: the signature's are not in scope in a const.
    assert_eq!(
        probed(quote!(Result<&'a str, Cow<'_, str>>)).as_deref(),
        Some("&'staticstr")
    );
    assert_eq!(
        probed(quote!(Vec<&str>)).as_deref(),
        Some("Vec<&'staticstr>")
    );
    // What a const cannot name is `any` without a probe.
    for ret in [
        quote!(impl Serialize),
        quote!(Result<impl Serialize, String>),
        quote!(Vec<impl Serialize>),
        quote!(Self),
        quote!(fmt::Result),
    ] {
        assert_eq!(probed(ret.clone()), None, "{ret}");
    }
    let none = tool(
        quote!(),
        quote!(
            /** A tool. */
            fn t() {}
        ),
    )
    .to_string();
    let none: String = none.split_whitespace().collect();
    assert!(
        none.contains("const__CHARTER_RESULT:::core::option::Option<&'static::charter::table::Shape>=::core::option::Option::None;"),
        "{none}"
    );
}
