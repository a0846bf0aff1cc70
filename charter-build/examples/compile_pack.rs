//! Prints the Rust code (or the mistakes) of one pack: `cargo run -p charter-build --example
//! compile_pack -- PACK.yaml [RUNTIME_PATH]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: compile_pack PACK.yaml [RUNTIME_PATH]");
        std::process::exit(2);
    };
    let runtime = args.next().unwrap_or_else(|| "::charter".to_owned());
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(2);
        }
    };
    match charter_build::compile_str(&file, &text, &runtime) {
        Ok(code) => print!("{code}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
