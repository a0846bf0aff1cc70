/// Fine on its own, too long with the pack label.
#[charter::tool(read_only)]
fn list_every_open_issue_of_the_repository_now() -> u8 {
    1
}

charter::pack!(static TOOLS = "github-enterprise", "GitHub.", [list_every_open_issue_of_the_repository_now]);

fn main() {}
