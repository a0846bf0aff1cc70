//! `#[charter::tool]`, `#[derive(charter::Schema)]` and `charter::pack!` end to end: the table
//! entries they produce, read and called as any adapter would.

use charter::table::{Exec, ViewKey};
use charter::{CallContext, CharterError, Table, ToolDef, ToolOutput};
use serde::Deserialize;
use serde_json::{Value, json};

/// Add two numbers.
#[charter::tool(read_only, idempotent)]
fn add(#[charter(desc = "The first term.")] a: f64, #[charter(desc = "The second term.")] b: f64) -> f64 {
    a + b
}

charter::pack!(pub static PACK = "calc", "Arithmetic.", [add]);

async fn call(def: &ToolDef, args: Value, ctx: &CallContext) -> Result<ToolOutput, CharterError> {
    match def.exec {
        Exec::Rust(handler) => handler(args, ctx).await,
        Exec::Http(_) => panic!("not a Rust tool"),
    }
}

#[tokio::test]
async fn add_is_a_table_entry() {
    let t: &Table = &PACK;
    let def = &t.tools[0];
    assert_eq!(def.name, "calc_add");
    assert_eq!(def.views[0].key, ViewKey::Default);
    assert_eq!(
        def.views[0].schema,
        r#"{"type":"object","properties":{"a":{"type":"number","description":"The first term."},"b":{"type":"number","description":"The second term."}},"required":["a","b"],"additionalProperties":false}"#
    );
    let out = call(def, json!({"a": 1.5, "b": 2}), &CallContext::new()).await.unwrap();
    assert_eq!(out.text, "3.5");
    let _ = Deserialize::deserialize(json!(1)).map(|_: u8| ());
}
