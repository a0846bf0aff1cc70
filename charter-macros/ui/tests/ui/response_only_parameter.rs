/// Fetch an item.
#[charter::tool(read_only)]
fn fetch(
    #[charter(desc = "The id.")] id: u64,
    #[charter(desc = "Set by the server.", mode = "response_only")] etag: Option<String>,
) -> String {
    format!("{id} {etag:?}")
}

fn main() {}
