//! Compiles `packs/*.yaml` into `OUT_DIR/packs.rs` (included as `charter::packs`).
//!
//! Only the packs whose cargo feature `pack-<label>` is enabled are compiled (none by default;
//! `all-packs` turns every one on).
//! Mistakes are reported as `cargo::error=file:line:col: message`, which fails the build.

fn feature_enabled(label: &str) -> bool {
    let var = format!(
        "CARGO_FEATURE_PACK_{}",
        label.to_ascii_uppercase().replace('-', "_")
    );
    std::env::var_os(var).is_some()
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // Errors were already printed as `cargo::error=` lines, which fail the build on their own.
    let _ = charter_build::Builder::new()
        .runtime_path("crate")
        .packs_from_dir("packs")
        .enabled(feature_enabled)
        .compile();
}
