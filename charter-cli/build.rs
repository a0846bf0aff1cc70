//! Link options of the `charter` binary.
//!
//! The binary is position-independent, so the loader patches every pointer in its static tool
//! tables at start: about 100,000 relocations, 2.3 MiB of relocation entries read from the file
//! on every start (resident memory of a server that lists nothing yet). Packed relative
//! relocations (`DT_RELR`) describe the same patches in a few KiB. They need a glibc of 2.36 or
//! later where the binary runs, so they are used only when building on Linux for the same Linux
//! (`cargo run`, `cargo install`) and its glibc is new enough; `CHARTER_NO_RELR=1` turns them off.
//! A linker without the option ignores it with a warning.

use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CHARTER_NO_RELR");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if native && linux_gnu && var("CHARTER_NO_RELR").is_empty() && glibc_has_relr() {
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
