/// Create a note.
#[charter::tool(name = "Create-Note")]
fn create_note(#[charter(desc = "The title.")] title: String) -> String {
    title
}

fn main() {}
