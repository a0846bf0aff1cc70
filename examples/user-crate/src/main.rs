//! `my-tools`: this crate's own tools, served by charter's command (`mcp`, `tools`, `call`, ...).
//!
//! Two sources, one kind of table: the `tracker` pack compiled from `packs/tracker.yaml` by
//! `build.rs`, and the Rust functions below collected by `charter::pack!`.

use std::process::ExitCode;

/// The packs `build.rs` compiled: `packs::tracker::TOOLS`.
mod packs {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}

/// Suggest a priority for a new issue from what it says.
#[charter::tool(read_only, idempotent, hints = ["severity", "triage"])]
fn triage(
    #[charter(desc = "The issue's one-line summary.")] title: String,
    #[charter(desc = "Whether customers are affected.")] customer_facing: bool,
) -> &'static str {
    let title = title.to_lowercase();
    let urgent = ["outage", "down", "data loss", "security"]
        .iter()
        .any(|word| title.contains(word));
    match (urgent, customer_facing) {
        (true, true) => "P0",
        (true, false) | (false, true) => "P1",
        (false, false) => "P2",
    }
}

charter::pack!(
    /// This crate's Rust-function tools.
    static TEAM = "team", "Helpers for this team's issue workflow.", [triage]
);

fn main() -> ExitCode {
    charter_cli::main_with(&[&packs::tracker::TOOLS, &TEAM])
}
