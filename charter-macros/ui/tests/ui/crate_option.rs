/// Greet someone.
#[charter::tool(crate = "not a path")]
fn greet(#[charter(desc = "The name.")] name: String) -> String {
    name
}

/// A colour.
#[derive(charter::Schema, serde::Deserialize)]
#[charter(crate = "charter", desc = "on the type")]
enum Colour {
    /// Red.
    Red,
}

fn main() {}
