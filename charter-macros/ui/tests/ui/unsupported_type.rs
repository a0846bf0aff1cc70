/// Move a point.
#[charter::tool]
fn shift(#[charter(desc = "The offset.")] by: (i32, i32)) -> i32 {
    by.0 + by.1
}

fn main() {}
