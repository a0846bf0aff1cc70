//! `#[charter::tool]`: read the function ([`ast`]), check it as a whole ([`validate`]),
//! generate its table entry and handler ([`expand`]).

mod ast;
mod expand;
mod validate;

pub use expand::tool;
