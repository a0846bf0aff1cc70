//! Compile-time refusals of `#[charter::tool]`, `#[derive(charter::Schema)]` and `charter::pack!`:
//! each case's `.stderr` under `tests/ui/` points at the offending token. In a package of
//! their own, so that trybuild compiles only the facade and serde for them (see Cargo.toml).

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
