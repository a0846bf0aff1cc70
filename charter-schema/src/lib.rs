//! The static shape of a tool's arguments and the one emitter of their JSON Schema
//! (docs/design.md §3).
//!
//! A tool declared in a YAML pack and the same tool declared as a Rust function become the same
//! [`Shape`] tree, and [`emit`] writes every view of it: the pack compiler calls it natively in
//! a build script, `#[charter::tool]` evaluates it in `const` context, and the test kit calls it
//! for tables written inline. So a tool's schema text, size, path savings and property spans
//! have one source, whatever declared it, and the tree validation reads is the tree the text
//! was written from.
//!
//! - [`shape`]: the tree ([`Shape`], [`ObjectShape`], [`Field`], the rules, [`Named`] types,
//!   [`Doc`] descriptions, [`Num`] numbers).
//! - [`emit`]: the emitter (`const fn`s), per [`Target`] dialect.
//! - [`view`]: what it records beside the text ([`PropSpan`], [`PathCost`]).
//! - [`withheld`]: the rule that a view must not withhold a required field.
//!
//! No dependency but `charter-terms` (the rules it applies), so build scripts use it cheaply;
//! `charter_runtime::table` re-exports the types.

pub mod emit;
pub mod shape;
pub mod view;
pub mod withheld;

pub use emit::{Groups, Labels, Measure, Root, Target};
pub use shape::{
    ArrayRules, Doc, Field, Format, ListStyle, Location, Named, Num, NumberRules, ObjectShape,
    Shape, StringRules,
};
pub use view::{PathCost, PropSpan, RawPath};
