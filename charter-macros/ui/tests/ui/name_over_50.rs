/// A tool whose name alone is too long.
#[charter::tool(name = "a_tool_name_that_is_much_too_long_to_qualify_in_any_pack")]
fn long() -> u8 {
    1
}

fn main() {}
