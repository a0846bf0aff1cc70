/// Greet someone.
#[charter::tool(read_only)]
fn greet(name: String, #[charter(desc = "Shout it.")] loud: Option<bool>) -> String {
    if loud.unwrap_or(false) { name.to_uppercase() } else { name }
}

fn main() {}
