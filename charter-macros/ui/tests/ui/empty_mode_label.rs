/// Score an item.
#[charter::tool]
fn score(#[charter(desc = "The weight.", mode = "")] weight: Option<f64>) -> f64 {
    weight.unwrap_or(1.0)
}

fn main() {}
