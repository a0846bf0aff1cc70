//! `#[charter::tool]` (work in progress).
