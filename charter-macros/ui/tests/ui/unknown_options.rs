/// Greet someone.
#[charter::tool(read_only, cached, destructive)]
fn greet(#[charter(desc = "The name.", secret)] name: &mut String) -> String {
    name.clone()
}

fn main() {}
