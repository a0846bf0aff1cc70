#[derive(charter::Schema, serde::Deserialize)]
struct Note {
    /// The title.
    title: String,
    body: String,
}

fn main() {}
