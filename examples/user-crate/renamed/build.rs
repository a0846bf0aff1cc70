//! The tracker pack of the crate beside this one, compiled for a crate that names the facade
//! `tools`: generated code says `::tools::...` instead of `::charter::...`.

fn main() {
    let _ = charter_build::Builder::new()
        .runtime_path("::tools")
        .packs_from_dir("../packs")
        .compile();
}
