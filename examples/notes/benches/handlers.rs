//! What a call through a generated `Handler` costs: taking the JSON arguments apart into typed
//! parameters, calling the function and shaping its answer. (Schemas cost nothing at run time:
//! they are constants.)
//!
//! `cargo bench -p charter-example-notes --bench handlers`

use charter::CallContext;
use charter::table::{Exec, Handler};
use charter_example_notes::TOOLS;
use criterion::{Criterion, criterion_group, criterion_main};
use futures::executor::block_on;
use serde_json::json;
use std::hint::black_box;

fn handler(name: &str) -> Handler {
    let def = TOOLS.tools.iter().find(|t| t.name == name).expect("tool");
    match def.exec {
        Exec::Rust(h) => h,
        Exec::Http(_) => unreachable!(),
    }
}

fn handlers(c: &mut Criterion) {
    let ctx = CallContext::new().for_user("bench");
    let add = handler("notes_add");
    let args = json!({"a": 1.5, "b": 2.25});
    c.bench_function("handler/add", |b| {
        b.iter(|| block_on(add(black_box(args.clone()), &ctx)).unwrap())
    });

    let create = handler("notes_create_note");
    for i in 0..20 {
        block_on(create(
            json!({"title": format!("note {i}"), "body": "text", "tags": ["a", "b"]}),
            &ctx,
        ))
        .unwrap();
    }
    let list = handler("notes_list_notes");
    let args = json!({"filter": {"tag": "a"}, "order": "oldest", "limit": 10});
    c.bench_function("handler/list_notes_10_of_20", |b| {
        b.iter(|| block_on(list(black_box(args.clone()), &ctx)).unwrap())
    });

    let bad = json!({"a": "one", "b": 2, "c": true});
    c.bench_function("handler/add_invalid_arguments", |b| {
        b.iter(|| block_on(add(black_box(bad.clone()), &ctx)).unwrap_err())
    });
}

criterion_group!(benches, handlers);
criterion_main!(benches);
