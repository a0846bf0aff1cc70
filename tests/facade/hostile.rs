//! Hostile input at the facade (SECURITY.md): real `#[charter::tool]` functions that
//! panic inside a concurrent batch, and every tool of the shipped packs against garbage
//! arguments, with an HTTP executor that proves nothing was sent.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use charter::session::{HttpCaller, SessionOptions, Source, ToolSession};
use charter::table::{BoxFuture, Route, ToolDef};
use charter::{CallContext, CharterError, ToolCall, ToolOutput};
use serde_json::{Value, json};

/// Multiply by ten, unless `n` is 2.
#[charter::tool(read_only, idempotent)]
fn explode(#[charter(desc = "The number.")] n: i64) -> i64 {
    if n == 2 {
        panic!("explode refuses n={n}");
    }
    n * 10
}

/// Multiply by ten after a pause, unless `n` is 5.
#[charter::tool(read_only, idempotent)]
async fn explode_later(#[charter(desc = "The number.")] n: i64) -> i64 {
    tokio::task::yield_now().await;
    if n == 5 {
        panic!("explode_later refuses n={n}");
    }
    n * 10
}

charter::pack!(
    /// Tools that panic on purpose.
    pub static BOOM = "boom", "Tools that panic.", [explode, explode_later]
);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_panicking_rust_tool_fails_only_its_own_slot_in_a_concurrent_batch() {
    let session = ToolSession::with_options(
        vec![Source::Table(&BOOM)],
        SessionOptions::new().with_disclosure(charter::Disclosure::Eager),
    )
    .unwrap();
    let calls: Vec<ToolCall> = (0..8)
        .map(|i| ToolCall {
            id: format!("c{i}"),
            name: if i % 2 == 0 {
                "boom_explode"
            } else {
                "boom_explode_later"
            }
            .into(),
            arguments: json!({ "n": i }),
        })
        .collect();
    let results = runtime().block_on(session.execute_tool_calls(&calls, &CallContext::new(), 4));
    assert_eq!(results.len(), 8);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.id, format!("c{i}"));
        match i {
            2 => assert!(
                r.is_error && r.content.contains("explode refuses n=2"),
                "{r:?}"
            ),
            5 => assert!(
                r.is_error && r.content.contains("explode_later refuses n=5"),
                "{r:?}"
            ),
            _ => {
                assert!(!r.is_error, "{r:?}");
                assert_eq!(r.content, (i * 10).to_string());
            }
        }
    }
    // The session goes on serving.
    let again =
        runtime().block_on(session.dispatch("boom_explode", json!({"n": 1}), &CallContext::new()));
    assert_eq!(again.unwrap().text, "10");
}

/// An HTTP executor that sends nothing and counts what it was asked to send.
#[derive(Default)]
struct Blocked(AtomicUsize);

impl HttpCaller for Blocked {
    fn call<'a>(
        &'a self,
        _tool: &'static ToolDef,
        _route: &'static Route,
        _arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Err(CharterError::Transport("blocked by the test".into())) })
    }
}

#[test]
fn every_shipped_tool_refuses_garbage_arguments_and_sends_nothing() {
    let blocked = Arc::new(Blocked::default());
    let session = ToolSession::with_options(
        charter::packs::ALL
            .iter()
            .map(|t| Source::Table(t))
            .collect(),
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(blocked.clone()),
    )
    .unwrap();
    let mut deep = Value::Null;
    for _ in 0..200 {
        deep = json!([deep]);
    }
    let garbage = [
        json!([]),
        json!(42),
        json!("not json at all"),
        json!("[1,2,3]"),
        json!({"__proto__": {"admin": true}}),
        json!({"": null}),
        json!({"zz_not_a_field": 1}),
        json!({ "zz_deep": deep }),
    ];
    let rt = runtime();
    let mut checked = 0;
    for entry in session.all() {
        for args in &garbage {
            let result =
                rt.block_on(session.dispatch(entry.name, args.clone(), &CallContext::new()));
            match result {
                Err(CharterError::Validation(m)) => {
                    assert!(
                        m.starts_with(&format!("Invalid arguments for `{}`", entry.name)),
                        "{m}"
                    )
                }
                other => panic!("{} accepted {args}: {other:?}", entry.name),
            }
            checked += 1;
        }
    }
    assert!(checked >= 8 * 70, "{checked}");
    assert_eq!(
        blocked.0.load(Ordering::SeqCst),
        0,
        "nothing reached the executor"
    );
}
