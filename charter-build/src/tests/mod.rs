//! The stages against the shipped packs and their providers' documents: unit tests, since
//! they read what the compiler resolves and counts (tools, parameters, view sizes), which is
//! not API.

mod pack_documents;
mod view_sizes;
