//! The charter pack compiler (work in progress).

pub mod openapi;
