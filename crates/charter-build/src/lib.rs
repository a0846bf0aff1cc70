//! The charter pack compiler (work in progress).
