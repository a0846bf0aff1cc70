/// Echo anything.
#[charter::tool]
fn echo<T: serde::Serialize>(#[charter(desc = "The value.")] value: T) -> T {
    value
}

fn main() {}
