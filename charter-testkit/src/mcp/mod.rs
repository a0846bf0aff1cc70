//! The MCP fixture servers the MCP bridge's tests and benchmark talk to over real pipes and real
//! HTTP, in a process of their own: this crate's `charter-mcp-fixture` binary.
//!
//! - `charter-mcp-fixture [--progressive]`: the counting kit ([`crate::kit`]) served by
//!   charter's own MCP server on stdio (progressive: only ToolSearch listed, list changes
//!   announced as tools load).
//! - `charter-mcp-fixture --http`: the same on streamable HTTP at `127.0.0.1:0`; the URL is the
//!   first line on stdout.
//! - `charter-mcp-fixture --paged`: a hand-written rmcp server whose `tools/list` answers two
//!   tools per page, with names in MCP's own spellings and annotations of every kind, and a
//!   `grow` tool that adds a tool and sends `notifications/tools/list_changed`.
//!
//! A test finds the binary with [`fixture`]. Cargo builds it in the run of `cargo test
//! --workspace` (this crate's own integration test needs it), so that run never builds twice;
//! a narrower run (`cargo test -p charter-mcp`) builds it on first use when it is missing or
//! older than the sources it is made of.

mod paged;

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::SystemTime;

use charter_mcp::{HttpOptions, McpServer, ServerOptions};
use rmcp::ServiceExt;

/// The binary's name.
const BIN: &str = "charter-mcp-fixture";

/// Runs the fixture server `args` asks for (see the module documentation) until its client goes.
pub async fn run_fixture(args: &[String]) {
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--paged") {
        let running = paged::Paged::new()
            .serve((tokio::io::stdin(), tokio::io::stdout()))
            .await
            .expect("paged fixture: initialize");
        let _ = running.waiting().await;
        return;
    }
    let options = ServerOptions::new()
        .with_disclosure(if has("--progressive") {
            charter_mcp::Disclosure::ListChanged
        } else {
            charter_mcp::Disclosure::Eager
        })
        .with_name(BIN);
    let server = McpServer::new(&[&crate::kit::KIT], options).expect("the kit is a valid table");
    if has("--http") {
        let http = server
            .bind_http("127.0.0.1:0", HttpOptions::default())
            .await
            .expect("bind 127.0.0.1:0");
        println!("{}", http.url());
        http.run().await.expect("serve HTTP");
    } else {
        server.serve_stdio().await.expect("serve stdio");
    }
}

/// The fixture binary's path: `CHARTER_MCP_FIXTURE` when set, else the one beside the running
/// test's own build (`target/<profile>/charter-mcp-fixture`), built first when it is missing or
/// stale.
pub fn fixture() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os("CHARTER_MCP_FIXTURE") {
            return path.into_string().expect("a UTF-8 CHARTER_MCP_FIXTURE");
        }
        let exe = std::env::current_exe().expect("the test's own path");
        // target/<profile>/deps/<test>-<hash> (a bench or test) or target/<profile>/<name>.
        let profile_dir = exe
            .ancestors()
            .find(|dir| dir.join(".fingerprint").is_dir())
            .unwrap_or_else(|| panic!("{} is not in a cargo target directory", exe.display()))
            .to_owned();
        let bin = profile_dir.join(BIN);
        if stale(&bin) {
            build(&profile_dir);
        }
        bin.into_os_string().into_string().expect("a UTF-8 path")
    })
}

/// Whether `bin` is missing or older than a source file of a crate it is built from.
fn stale(bin: &Path) -> bool {
    let Ok(built) = bin.metadata().and_then(|m| m.modified()) else {
        return true;
    };
    let root = crate::npm::workspace_root();
    let newest = [
        "charter-testkit",
        "charter-mcp",
        "charter-runtime",
        "charter-terms",
    ]
    .iter()
    .flat_map(|krate| {
        [
            root.join(krate).join("src"),
            root.join(krate).join("Cargo.toml"),
        ]
    })
    .chain([root.join("Cargo.lock")])
    .filter_map(|path| newest_modified(&path))
    .max();
    newest.is_some_and(|newest| newest > built)
}

/// The newest modification time of a file, or of any file under a folder.
fn newest_modified(path: &Path) -> Option<SystemTime> {
    let meta = path.metadata().ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|entry| newest_modified(&entry.ok()?.path()))
        .max()
}

/// `cargo build` of the binary into the target directory holding `profile_dir`.
fn build(profile_dir: &Path) {
    let target_dir = profile_dir.parent().expect("target/<profile>");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => panic!("no profile folder in {}", profile_dir.display()),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(crate::npm::workspace_root())
        .args([
            "build",
            "--quiet",
            "-p",
            "charter-testkit",
            "--features",
            "mcp",
        ])
        .args(["--bin", BIN, "--profile", profile, "--target-dir"])
        .arg(target_dir)
        .status()
        .expect("run cargo build");
    assert!(
        status.success(),
        "cargo build of the {BIN} binary failed (set CHARTER_MCP_FIXTURE to a built one)"
    );
}
