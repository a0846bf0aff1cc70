//! What code mode costs on top of the calls it makes (docs/code-mode.md): a `RunCode` program of
//! three tool calls (a fresh QuickJS runtime and context, the bindings, the program, its calls
//! through the session's path) against the same three calls dispatched directly, one after
//! another and as one batch; and a program that calls nothing (the interpreter's start alone).
//! The tool is in process and answers at once, so the difference is code mode's own cost.
//!
//! `cargo bench -p charter-runtime --features code --bench code`

use std::hint::black_box;
use std::sync::OnceLock;

use charter_runtime::scheduler::ToolCall;
use charter_runtime::session::{RUN_CODE, SessionOptions, Source};
use charter_runtime::table::BoxFuture;
use charter_runtime::{CallContext, CharterError, Disclosure, Table, ToolOutput, ToolSession};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

fn read<'a>(args: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        Ok(ToolOutput::json(
            json!({"key": args["key"], "text": "hello"}),
        ))
    })
}

fn table() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        charter_testkit::table_with(
            json!({
                "pack": "crm",
                "description": "A small CRM.",
                "tools": [
                    {"name": "notes_read", "description": "Read a note.", "handler": "read",
                     "annotations": {"read_only": true, "idempotent": true},
                     "params": {"key": {"type": "string", "required": true, "description": "The note key."}}}
                ]
            }),
            &[("read", read)],
        )
    })
}

fn session(disclosure: Disclosure) -> ToolSession {
    ToolSession::with_options(
        vec![Source::Table(table())],
        SessionOptions::new().with_disclosure(disclosure),
    )
    .expect("a session")
}

const SEQUENTIAL: &str = "const a = await crm.notes_read({key: 'a'});\n\
    const b = await crm.notes_read({key: a.key + 'b'});\n\
    const c = await crm.notes_read({key: b.key + 'c'});\n\
    return [a.key, b.key, c.key];";

const BATCH: &str = "const r = await Promise.all(['a', 'b', 'c'].map(key => crm.notes_read({key})));\n\
    return r.map(x => x.key);";

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let code = session(Disclosure::Code);
    let direct = session(Disclosure::Eager);
    let ctx = CallContext::new();
    let program = |source: &str| {
        let answer = runtime
            .block_on(code.dispatch(RUN_CODE, json!({ "code": source }), &ctx))
            .expect("the program runs");
        black_box(answer)
    };
    // Both paths answer alike before anything is timed.
    assert_eq!(program(SEQUENTIAL).text, r#"["a","ab","abc"]"#);
    assert_eq!(program(BATCH).text, r#"["a","b","c"]"#);

    let mut group = c.benchmark_group("code");
    group.bench_function("start: a program that calls nothing", |b| {
        b.iter(|| program("return 1;"))
    });
    group.bench_function("3 calls: program, one after another", |b| {
        b.iter(|| program(SEQUENTIAL))
    });
    group.bench_function("3 calls: dispatched, one after another", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut key = String::new();
                for k in ["a", "b", "c"] {
                    key.push_str(k);
                    let out = direct
                        .dispatch("crm_notes_read", json!({ "key": key }), &ctx)
                        .await
                        .expect("a call");
                    black_box(out);
                }
            })
        })
    });
    group.bench_function("3 calls: program, Promise.all", |b| {
        b.iter(|| program(BATCH))
    });
    let calls: Vec<ToolCall> = ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(i, key)| ToolCall {
            id: format!("c{i}"),
            name: "crm_notes_read".into(),
            arguments: json!({ "key": key }),
        })
        .collect();
    group.bench_function("3 calls: one batch", |b| {
        b.iter(|| black_box(runtime.block_on(direct.execute_tool_calls(&calls, &ctx, 4))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
