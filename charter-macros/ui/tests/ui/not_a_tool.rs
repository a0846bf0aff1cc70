/// Not annotated.
fn plain() -> u8 {
    1
}

struct NotATool {}

charter::pack!(static TOOLS = "misc", "Misc.", [NotATool]);

fn main() {
    let _ = plain();
}
