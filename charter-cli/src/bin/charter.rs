//! The `charter` command over the shipped packs.

fn main() -> std::process::ExitCode {
    charter_cli::main_with(charter::packs::ALL)
}
