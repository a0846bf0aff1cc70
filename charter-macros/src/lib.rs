//! `#[charter::tool]`, `#[derive(charter::Schema)]` and `charter::pack!`: typed Rust functions
//! become the same `&'static` tool table entries a YAML pack produces (docs/design.md §1–§3, §5, §6).
//!
//! Use them through the `charter` facade (package `charter-tools`), which re-exports them;
//! generated code names `::charter`, or the path given by a `crate = "..."` option.
//!
//! One module per macro (`tool`, `derive`, `pack`), each reading its input into a small AST,
//! checking it as a whole (every mistake a `syn::Error` on the offending token, all reported at
//! once) and generating code; `errors`, `types`, `shape` and `text` are what they share. The
//! product's rules (names, labels, views, field visibility) come from `charter_terms`. Schemas are emitted as piece trees that `charter_runtime::schema` flattens in
//! `const` context: no schema is built at start-up or on the first call.

mod derive;
mod errors;
mod pack;
mod shape;
mod text;
mod tool;
mod types;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Turns a function into a tool: its doc comment is the description, its parameters the
/// properties of the schema.
///
/// ```ignore
/// use charter::{CallContext, tool};
///
/// /// Divide one number by another.
/// ///
/// /// # Arguments
/// /// * `a` - The dividend.
/// /// * `b` - The divisor (not zero).
/// #[tool(read_only, idempotent)]
/// fn divide(a: f64, b: f64) -> Result<f64, String> {
///     if b == 0.0 { Err("division by zero".into()) } else { Ok(a / b) }
/// }
/// ```
///
/// Options: `read_only`, `idempotent`, `destructive`, `open_world` (the MCP annotations, all
/// false unless given), `mode = "create"` (the author mode, docs/design.md §5), `name = "..."` (the tool
/// name inside its pack; default: the function name; `[a-z0-9_]+`, no `__`, at most 48
/// characters), `hints = ["...", ...]` (search hints), `crate = "path"` (how this crate names
/// the charter facade when it is not `::charter`: a renamed dependency such as
/// `my_charter = { package = "charter-tools", ... }`, or a crate re-exporting it; as serde's
/// `#[serde(crate = "...")]`).
///
/// Parameters:
/// - Each is described either by `#[charter(desc = "...")]` on it or by a line
///   ``* `name` - description`` (or `- name: description`) in a `# Arguments` section of the doc
///   comment; the section is not part of the tool's description. Describing one both ways, or not
///   at all, is an error.
/// - `Option<T>` is optional; `#[charter(default)]` makes any `T: Default` optional; everything
///   else is required. `&str`, `&[T]` and `&T` are deserialised into owned values and lent.
/// - `#[charter(mode = "pro")]` (repeatable) labels a parameter; `disabled` hides it. Views are
///   built as for YAML packs; a label that withholds a required parameter in any view is an error.
/// - `&CallContext` receives the call's context; `#[charter(from_context = "key")]` fills the
///   parameter from `CallContext::values["key"]`. Neither is in the schema.
///
/// The function may be `async` or not, and returns `Result<T, E>` (`E: Display` becomes the
/// tool error the model reads) or `T`; `T: Serialize` becomes text when it serialises to a JSON
/// string and JSON otherwise.
///
/// The macro keeps the function and adds a hidden type of the same name that `pack!` reads.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::tool(attr.into(), item.into()).into()
}

/// Derives `charter::Schema`: the type's JSON schema and validation shape as constants.
///
/// Structs with named fields (every field documented, or `#[charter(desc = "...")]`), newtype
/// structs, unit-only enums, and enums with unit, newtype and struct variants, externally
/// tagged (serde's default), internally tagged (`#[serde(tag = "...")]`, unit and struct
/// variants) or `#[serde(untagged)]` (newtype and struct variants). Honoured serde attributes:
/// `rename`, `rename_all`, `rename_all_fields`, `default`, `skip`, `skip_deserializing`,
/// `transparent`, `tag`, `untagged`; attributes that do not change what is accepted (`alias`,
/// `skip_serializing*`, `deny_unknown_fields`, `bound`, ...) are allowed. Any other serde
/// attribute is an error on it. Recursive types are refused (their schema would need `$ref`).
/// `#[charter(crate = "path")]` on the type names the facade when it is not `::charter`.
#[proc_macro_derive(Schema, attributes(charter, serde))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    derive::derive(input.into()).into()
}

/// Collects tools into a static table under a pack label:
///
/// ```ignore
/// charter::pack!(pub static TOOLS = "notes", "An in-memory notes store.", [create_note, calc::add]);
/// ```
///
/// A leading `crate = "path";` names the facade when it is not `::charter` (a renamed
/// dependency). Every tool is published as `<pack>_<tool>`. The label is `[a-z0-9-]+`; a qualified name over
/// 50 characters and two tools with the same name are compile-time errors on the tool.
#[proc_macro]
pub fn pack(input: TokenStream) -> TokenStream {
    pack::pack(input.into()).into()
}
