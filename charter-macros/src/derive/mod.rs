//! `#[derive(Schema)]`: read the container ([`ast`]), check it ([`validate`]), generate its
//! schema pieces and shape ([`expand`]).

mod ast;
mod expand;
mod validate;

pub use expand::derive;
