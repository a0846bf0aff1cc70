#[derive(charter::Schema, serde::Deserialize)]
struct Inner {
    /// A.
    a: u8,
}

#[derive(charter::Schema, serde::Deserialize)]
struct Outer {
    /// Flattened.
    #[serde(flatten)]
    inner: Inner,
}

fn main() {}
