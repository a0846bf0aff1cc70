#[charter::tool(read_only)]
fn undocumented(#[charter(desc = "A number.")] n: u32) -> u32 {
    n
}

fn main() {}
