/// Add.
#[charter::tool(read_only)]
fn add(#[charter(desc = "A.")] a: i64, #[charter(desc = "B.")] b: i64) -> i64 {
    a + b
}

charter::pack!(static TOOLS = "my_calc", "A calculator.", [add]);

fn main() {}
