//! The `charter` command (work in progress).
