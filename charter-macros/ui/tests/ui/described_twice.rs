/// Greet someone.
///
/// # Arguments
/// * `name` - Who to greet.
/// * `nobody` - Not a parameter.
#[charter::tool(read_only)]
fn greet(#[charter(desc = "The name.")] name: String) -> String {
    name
}

fn main() {}
