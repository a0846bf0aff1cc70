//! Compile-time refusals of `#[charter::tool]`, `#[derive(charter::Schema)]` and `charter::pack!`:
//! each case's `.stderr` under `tests/ui/` points at the offending token.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
