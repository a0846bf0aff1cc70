//! One link option of the `charter` binary: packed relative relocations.
//!
//! The binary is position-independent (ASLR for its code and tables: it runs model-written
//! JavaScript and holds API tokens, SECURITY.md). Each pointer in its static tool tables is then
//! a relative relocation the loader applies at start; in the classic format each is a 24-byte
//! entry, about 3 MB of them that every process reads. `-z pack-relative-relocs` (`DT_RELR`)
//! writes the same relocations as a bitmap of a few kilobytes. The loader must know the format
//! (glibc 2.36 or later; the linker then marks the binary as needing it, so an older loader
//! refuses it at once rather than misloading it): it is used when the build runs where the binary
//! will (not a cross build) and this machine's glibc is that recent. Nothing else about the
//! layout is chosen here: what the tables cost is theirs (docs/benchmarks.md).

use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CHARTER_NO_RELR");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if linux_gnu
        && var("TARGET") == var("HOST")
        && var("CHARTER_NO_RELR").is_empty()
        && glibc_has_relr()
    {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether this machine's glibc (`getconf GNU_LIBC_VERSION`: `glibc 2.36`) loads `DT_RELR`.
fn glibc_has_relr() -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}
