//! Link options of the `charter` binary: what a server maps of it is what it runs and serves.
//!
//! A server's memory is mostly pages of its own binary (docs/mcp.md, "Memory"). Three link
//! options keep those to the pages it uses:
//!
//! - **Not position-independent** (`-no-pie`). The tool tables hold about 100,000 pointers
//!   (every `&'static str` and slice of every pack). In a position-independent binary the loader
//!   writes each one at start, so every page of every pack's tables (2.3 MiB) becomes private
//!   memory of every server, whatever packs it serves. Linked at a fixed address the pointers are
//!   final in the file: the pages stay shared file pages, mapped only when read. The price is that
//!   the binary's own code and tables load at one fixed address (libraries, heap and stack are
//!   still randomised); `CHARTER_PIE=1` at build time keeps a position-independent binary (with
//!   packed relocations, `-z pack-relative-relocs`, where the glibc it runs on is 2.36 or later).
//! - **The functions a server runs first in the code** (`charter-cli/link/hot-code.txt`, written
//!   by `scripts/hot-code`). The kernel maps code 64 KiB around each page run; the functions
//!   `charter mcp` runs, about 1 MB, lie scattered over 17 MB, so a server mapped 8 MB of code.
//! - **Every pack's `Table` together** at the start of the tables: choosing `--pack slack` reads
//!   the label of each table until it finds slack, and each table used to lie beside its own
//!   pack's tools, 64 KiB apart.
//! - **What no listing reads apart from what it does**: the pack compiler puts code mode's
//!   signatures and the provider dialects' schemas in statics of their own sections
//!   (`charter_cold_text`, placed by the linker beside `.rodata` but outside it, and
//!   `.data.rel.ro.charter_cold`, gathered here into one run), so `tools/list` maps none of them;
//!   what it does read of the tables (each pack's `ToolDef`s, each tool's `View`s) goes in
//!   `.data.rel.ro.charter_listed`, gathered here after the `Table`s, not each beside its
//!   tool's shapes, paths and spans.
//!
//! The layout is a linker script in `OUT_DIR` that only orders sections (`INSERT`, so the
//! linker's own layout stays in force otherwise), for the linker Rust uses by default on Linux
//! (rust-lld, and GNU ld reads it too). It is left out when the build names another linker
//! (`-C linker=`, `-fuse-ld=`, `CARGO_TARGET_<TRIPLE>_LINKER`), in debug builds, and with
//! `CHARTER_NO_LAYOUT=1`. A name in the list the build does not hold matches nothing.

use std::process::Command;

const HOT_CODE: &str = "link/hot-code.txt";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={HOT_CODE}");
    for var in [
        "CHARTER_PIE",
        "CHARTER_NO_RELR",
        "CHARTER_NO_LAYOUT",
        "RUSTC_LINKER",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let target = var("TARGET");
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if !linux_gnu {
        return;
    }
    if var("CHARTER_PIE").is_empty() {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    } else if target == var("HOST") && var("CHARTER_NO_RELR").is_empty() && glibc_has_relr() {
        // Where the binary runs, the loader must know packed relocations.
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let linker_var = format!(
        "CARGO_TARGET_{}_LINKER",
        target.to_ascii_uppercase().replace(['-', '.'], "_")
    );
    println!("cargo::rerun-if-env-changed={linker_var}");
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let other_linker = !var(&linker_var).is_empty()
        || !var("RUSTC_LINKER").is_empty()
        || flags
            .split('\x1f')
            .any(|f| f.contains("linker=") || f.contains("fuse-ld"));
    if var("PROFILE") != "release" || other_linker || !var("CHARTER_NO_LAYOUT").is_empty() {
        return;
    }
    let hot = std::fs::read_to_string(HOT_CODE).unwrap_or_default();
    let script = std::path::Path::new(&var("OUT_DIR")).join("layout.ld");
    if std::fs::write(&script, layout(&hot)).is_ok() {
        println!("cargo::rustc-link-arg-bins=-Wl,-T,{}", script.display());
    }
}

/// The linker script: the hot functions first in `.text` and their constants first in `.rodata`,
/// every pack's `Table` first in `.data.rel.ro`, then what `tools/list` reads of them (the
/// `ToolDef`s and `View`s, `.data.rel.ro.charter_listed`), then the descriptors no listing reads
/// (the dialects', `.data.rel.ro.charter_cold`), each in one run rather than one per object file
/// (the sections keep their names, so `.data.rel.ro` stays read-only after load).
fn layout(hot: &str) -> String {
    // Section names hold no blanks or parentheses; anything else is not a list entry.
    let names: Vec<&str> = hot
        .lines()
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with('#') && !n.contains([' ', '(', ')']))
        .collect();
    // Plain `.text` sections come from the C start-up files (`_start`): Rust code has one
    // section per function.
    let mut script = String::from("SECTIONS {\n  .text : {\n    *(.text)\n");
    for name in &names {
        // Cold paths LLVM recognises live in `.text.unlikely.<name>`.
        script.push_str(&format!("    *(.text.{name} .text.unlikely.{name})\n"));
    }
    script.push_str("    *(.text .text.*)\n  }\n} INSERT AFTER .eh_frame;\n");
    // A function's own constants (jump tables, mostly) sit in `.rodata.<its name>`.
    script.push_str("SECTIONS {\n  .rodata : {\n");
    for name in &names {
        script.push_str(&format!("    *(.rodata.{name})\n"));
    }
    script.push_str("    *(.rodata .rodata.*)\n  }\n} INSERT BEFORE .eh_frame;\n");
    script.push_str(
        "SECTIONS {\n  .data.rel.ro : {\n    *(.data.rel.ro._ZN7charter5packs*5TOOLS17h*)\n    \
         *(.data.rel.ro._ZN7charter5packs3ALL17h*)\n    *(.data.rel.ro.charter_listed)\n    \
         *(.data.rel.ro.charter_cold)\n    \
         *(.data.rel.ro .data.rel.ro.*)\n  }\n} INSERT AFTER .init_array;\n",
    );
    script
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
