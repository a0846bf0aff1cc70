//! Link options of the `charter` binary: what a server maps of it is what it runs and serves.
//!
//! A server's memory is mostly pages of its own binary (docs/mcp.md, "Memory"). These link
//! options keep those to the pages it uses, and the loader's work at each start small:
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
//! - **The unwinder linked in** (`libgcc_eh.a`, as `cc -static-libgcc` links it), found through
//!   a `libgcc_s.so` in `OUT_DIR` that is a linker script naming it: the loader then opens,
//!   maps and relocates one library fewer at every start, and skips `libgcc_s.so.1`'s
//!   constructor, whose `cpuid` instructions trap in a virtual machine. Panics unwind and
//!   backtraces print as before (the same code). `CHARTER_SHARED_LIBGCC=1` keeps the shared
//!   library; a cross build keeps it too (the host's compiler names the archive).
//!
//! The layout is a linker script in `OUT_DIR` that only orders sections (`INSERT`, so the
//! linker's own layout stays in force otherwise), for the linker Rust uses by default on Linux
//! (rust-lld, and GNU ld reads it too). It is left out when the build names another linker
//! (`-C linker=`, `-fuse-ld=`, `CARGO_TARGET_<TRIPLE>_LINKER`), in debug builds, and with
//! `CHARTER_NO_LAYOUT=1`; so is the unwinder. A name in the list the build does not hold
//! matches nothing.

use std::process::Command;

const HOT_CODE: &str = "link/hot-code.txt";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={HOT_CODE}");
    for var in [
        "CHARTER_PIE",
        "CHARTER_NO_RELR",
        "CHARTER_NO_LAYOUT",
        "CHARTER_SHARED_LIBGCC",
        "RUSTC_LINKER",
        "CC",
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
    let out_dir = std::path::PathBuf::from(var("OUT_DIR"));
    if var("CHARTER_SHARED_LIBGCC").is_empty()
        && target == var("HOST")
        && let Some(dir) = static_unwinder(&out_dir)
    {
        println!("cargo::rustc-link-arg-bins=-L{}", dir.display());
    }
    let hot = std::fs::read_to_string(HOT_CODE).unwrap_or_default();
    let script = out_dir.join("layout.ld");
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
    // The C start-up files' code (`_start`) first. Other plain `.text` sections (assembly of
    // crypto crates, the unwinder) go after the hot functions: a server runs none of them, and
    // ahead of the hot code they were mapped with it (128 KiB of them resident).
    let mut script = String::from("SECTIONS {\n  .text : {\n    *crt*.o(.text)\n");
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

/// A directory holding a `libgcc_s.so` that is a linker script naming the C compiler's static
/// unwinder (`libgcc_eh.a`, what `cc -static-libgcc` links), searched before the system's: the
/// unwinder Rust's panics use is then linked in, and the loader neither opens nor relocates
/// `libgcc_s.so.1` (nor runs its constructor, whose `cpuid`s trap in a virtual machine) at each
/// start. `None` (the shared library stays) when the compiler knows no `libgcc_eh.a`.
fn static_unwinder(out_dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let out = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let archive = std::path::PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // An unknown file is printed back as its bare name; a script names files without quotes.
    let plain = !archive
        .to_string_lossy()
        .contains(|c: char| c.is_whitespace() || "()\"".contains(c));
    if !archive.is_absolute() || !archive.is_file() || !plain {
        return None;
    }
    let dir = out_dir.join("unwind");
    std::fs::create_dir_all(&dir).ok()?;
    let script = format!("INPUT({})\n", archive.display());
    std::fs::write(dir.join("libgcc_s.so"), script).ok()?;
    Some(dir)
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
