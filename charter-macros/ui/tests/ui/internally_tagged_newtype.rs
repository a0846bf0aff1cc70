#[derive(charter::Schema, serde::Deserialize)]
struct Circle {
    /// Radius.
    r: f64,
}

#[derive(charter::Schema, serde::Deserialize)]
#[serde(tag = "kind")]
enum Shape {
    Circle(Circle),
    /// Nothing.
    Empty,
}

fn main() {}
