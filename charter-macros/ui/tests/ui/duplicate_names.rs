/// List the notes.
#[charter::tool(read_only, name = "list")]
fn list_notes() -> Vec<String> {
    Vec::new()
}

/// List the tags.
#[charter::tool(read_only, name = "list")]
fn list_tags() -> Vec<String> {
    Vec::new()
}

charter::pack!(static TOOLS = "notes", "Notes.", [list_notes, list_tags]);

fn main() {}
