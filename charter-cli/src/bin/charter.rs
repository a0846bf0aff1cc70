//! The `charter` command over the shipped packs.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[path = "charter/math.rs"]
mod math;

fn main() -> std::process::ExitCode {
    charter_cli::main_with(charter::packs::ALL)
}
