//! Compiles `packs/*.yaml` into `OUT_DIR/packs.rs`, included by `src/main.rs`. A mistake in a
//! pack fails the build with `packs/<file>.yaml:line:col: what is wrong`.

fn main() {
    // The errors were already printed as `cargo::error=` lines, which fail the build.
    let _ = charter_build::Builder::new()
        .packs_from_dir("packs")
        .compile();
}
