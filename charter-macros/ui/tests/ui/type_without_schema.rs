#[derive(serde::Deserialize)]
struct Opaque {
    _x: u8,
}

/// Use an opaque value.
#[charter::tool]
fn consume(#[charter(desc = "The value.")] value: Opaque) -> u8 {
    value._x
}

fn main() {}
