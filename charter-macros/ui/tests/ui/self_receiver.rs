struct Store;

impl Store {
    /// Count the notes.
    #[charter::tool(read_only)]
    fn count(&self) -> usize {
        0
    }
}

fn main() {}
