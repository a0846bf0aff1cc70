/// Score an item.
#[charter::tool]
fn score(
    #[charter(desc = "The item.")] item: String,
    #[charter(desc = "The weight.", mode = "pro")] weight: f64,
) -> f64 {
    weight * item.len() as f64
}

fn main() {}
