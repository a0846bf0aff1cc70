#[derive(charter::Schema, serde::Deserialize)]
struct Comment {
    /// The text.
    body: String,
    /// Replies.
    replies: Vec<Comment>,
}

fn main() {}
