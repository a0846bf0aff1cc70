//! Times the compiler's steps on one pack: `cargo run -p charter-build --example phases -- PACK.yaml`.
use std::time::Instant;
fn main() {
    let file = std::env::args().nth(1).expect("usage: phases PACK.yaml");
    let text = std::fs::read_to_string(&file).expect("readable pack");
    let t = Instant::now();
    let model = charter_build::load_str(&file, &text).expect("a valid pack");
    let load = t.elapsed();
    let t = Instant::now();
    let mut n = 0;
    for tool in charter_build::__private::view_schemas(&model) {
        for (_, v) in tool.views {
            n += v.paths.len();
        }
    }
    let schemas = t.elapsed();
    let t = Instant::now();
    let code = charter_build::compile(std::slice::from_ref(&model), "crate").expect("generates");
    let generate = t.elapsed();
    println!(
        "load (parse, check, resolve) {load:?}, schemas+paths ({n} paths) {schemas:?}, generate (incl. schemas) {generate:?}, {} bytes",
        code.len()
    );
}
