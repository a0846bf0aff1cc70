//! docs/design.md §7 through the session: `ToolSession::execute_tool_calls`, the local bridge.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use charter_runtime::scheduler::ToolCall;
use charter_runtime::session::{SessionOptions, Source, TOOL_SEARCH, ToolSession};
use charter_runtime::table::BoxFuture;
use charter_runtime::{CallContext, CharterError, Table, ToolOutput};
use charter_testkit as testing;
use serde_json::{Value, json};

/// Per test (keyed by `ctx.values["run"]`): executions in start order, and the most at once.
#[derive(Debug, Default, Clone)]
struct Activity {
    calls: Vec<(String, Value)>,
    in_flight: usize,
    max_in_flight: usize,
}

static ACTIVITY: Mutex<BTreeMap<String, Activity>> = Mutex::new(BTreeMap::new());

fn ctx(run: &str) -> CallContext {
    CallContext::new().with_value("run", json!(run))
}

fn activity(run: &str) -> Activity {
    ACTIVITY
        .lock()
        .unwrap()
        .get(run)
        .cloned()
        .unwrap_or_default()
}

async fn track(tool: &str, args: &Value, ctx: &CallContext, pause: Duration) {
    let key = ctx.values["run"].as_str().unwrap().to_owned();
    {
        let mut all = ACTIVITY.lock().unwrap();
        let a = all.entry(key.clone()).or_default();
        a.calls.push((tool.to_owned(), args.clone()));
        a.in_flight += 1;
        a.max_in_flight = a.max_in_flight.max(a.in_flight);
    }
    tokio::time::sleep(pause).await;
    ACTIVITY.lock().unwrap().get_mut(&key).unwrap().in_flight -= 1;
}

fn read<'a>(args: Value, ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        track("kv_read", &args, ctx, Duration::from_millis(100)).await;
        Ok(ToolOutput::json(json!({"key": args["key"], "value": 1})))
    })
}

fn write<'a>(args: Value, ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        track("kv_write", &args, ctx, Duration::from_millis(20)).await;
        Ok(ToolOutput::text("written"))
    })
}

fn boom<'a>(args: Value, ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        track("kv_boom", &args, ctx, Duration::from_millis(1)).await;
        Err(CharterError::Tool("the store is down".into()))
    })
}

fn kv() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table_with(
            json!({
                "pack": "kv",
                "description": "A key-value store.",
                "tools": [
                    {"name": "read", "description": "Read a key.", "handler": "read",
                     "annotations": {"read_only": true, "idempotent": true},
                     "params": {"key": {"type": "string", "required": true, "description": "The key."}}},
                    {"name": "write", "description": "Write a key.", "handler": "write",
                     "params": {"key": {"type": "string", "required": true, "description": "The key."}}},
                    {"name": "boom", "description": "Always fails.", "handler": "boom",
                     "annotations": {"read_only": true, "idempotent": true}}
                ]
            }),
            &[("read", read), ("write", write), ("boom", boom)],
        )
    })
}

fn plain() -> ToolSession {
    ToolSession::with_options(
        vec![Source::Table(kv())],
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap()
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

#[tokio::test]
async fn a_safe_batch_runs_concurrently_deduplicates_and_answers_in_order() {
    let session = plain();
    let calls = [
        call("a", "kv_read", json!({"key": "x"})),
        call("b", "kv_read", json!({"key": "y"})),
        call("c", "kv_read", json!({"key": "x"})),
    ];
    let results = session
        .execute_tool_calls(&calls, &ctx("bridge-safe"), 4)
        .await;
    assert_eq!(
        results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert!(results.iter().all(|r| !r.is_error));
    assert_eq!(results[0].structured, Some(json!({"key": "x", "value": 1})));
    assert_eq!(results[1].structured, Some(json!({"key": "y", "value": 1})));
    assert_eq!(results[2].content, results[0].content);
    let a = activity("bridge-safe");
    assert_eq!(
        a.calls.len(),
        2,
        "the repeated read ran once: {:?}",
        a.calls
    );
    assert_eq!(a.max_in_flight, 2);
}

#[tokio::test]
async fn one_writing_call_makes_the_batch_serial() {
    let session = plain();
    let calls = [
        call("a", "kv_read", json!({"key": "x"})),
        call("b", "kv_write", json!({"key": "x"})),
        call("c", "kv_read", json!({"key": "x"})),
    ];
    let results = session
        .execute_tool_calls(&calls, &ctx("bridge-serial"), 4)
        .await;
    assert_eq!(
        results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert_eq!(results[1].content, "written");
    let a = activity("bridge-serial");
    let order: Vec<&str> = a.calls.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        order,
        ["kv_read", "kv_write", "kv_read"],
        "every call ran, in order"
    );
    assert_eq!(a.max_in_flight, 1);
}

#[tokio::test]
async fn concurrency_one_is_serial() {
    let session = plain();
    let calls = [
        call("a", "kv_read", json!({"key": "x"})),
        call("b", "kv_read", json!({"key": "y"})),
    ];
    session
        .execute_tool_calls(&calls, &ctx("bridge-width-1"), 1)
        .await;
    assert_eq!(activity("bridge-width-1").max_in_flight, 1);
}

#[tokio::test]
async fn charter_errors_become_error_results_for_their_call_only() {
    let session = plain();
    let calls = [
        call("a", "kv_boom", json!({})),
        call("b", "kv_read", json!({"key": 3})),
        call("c", "kv_nothing", json!({})),
        call("d", "kv_read", json!({"key": "z"})),
    ];
    let results = session
        .execute_tool_calls(&calls, &ctx("bridge-errors"), 4)
        .await;
    assert_eq!(
        results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c", "d"]
    );
    assert!(results[0].is_error && results[0].content.contains("the store is down"));
    assert!(
        results[1].is_error && results[1].content.contains("key"),
        "{}",
        results[1].content
    );
    assert!(
        results[2].is_error && results[2].content.contains("kv_nothing"),
        "{}",
        results[2].content
    );
    assert!(!results[3].is_error);
    assert!(results[..3].iter().all(|r| r.structured.is_none()));
    // Validation refused `b` before the handler; the unknown name made the batch serial.
    let a = activity("bridge-errors");
    assert_eq!(
        a.calls.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(),
        ["kv_boom", "kv_read"]
    );
    assert_eq!(a.max_in_flight, 1);
}

#[tokio::test]
async fn toolsearch_then_the_tool_it_loads_in_one_batch() {
    let session = ToolSession::new(&[kv()]).unwrap();
    let calls = [
        call("early", "kv_read", json!({"key": "x"})),
        call("s", TOOL_SEARCH, json!({"query": "select:kv_read"})),
        call("late", "kv_read", json!({"key": "x"})),
    ];
    let results = session
        .execute_tool_calls(&calls, &ctx("bridge-search"), 4)
        .await;
    assert!(
        results[0].is_error && results[0].content.contains("select:kv_read"),
        "{}",
        results[0].content
    );
    assert!(!results[1].is_error);
    assert_eq!(
        results[1].structured.as_ref().unwrap()["loaded"],
        json!(["kv_read"])
    );
    assert!(
        !results[2].is_error,
        "loaded by the search before it: {}",
        results[2].content
    );
    assert_eq!(activity("bridge-search").calls.len(), 1);
}

#[tokio::test]
async fn a_batch_with_toolsearch_is_serial_and_never_deduplicates() {
    // Two identical searches in a batch of otherwise safe calls: ToolSearch is never
    // concurrency-safe, so the batch is serial and both searches answer on their own.
    let session = ToolSession::new(&[kv()]).unwrap();
    let first = session
        .execute_tool_calls(
            &[call("s0", TOOL_SEARCH, json!({"query": "select:kv_read"}))],
            &ctx("bridge-dedup"),
            4,
        )
        .await;
    assert!(!first[0].is_error);
    let calls = [
        call("r1", "kv_read", json!({"key": "q"})),
        call("s1", TOOL_SEARCH, json!({"query": "select:kv_boom"})),
        call("s2", TOOL_SEARCH, json!({"query": "select:kv_boom"})),
        call("r2", "kv_read", json!({"key": "q"})),
    ];
    let results = session
        .execute_tool_calls(&calls, &ctx("bridge-dedup"), 4)
        .await;
    assert_eq!(
        results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["r1", "s1", "s2", "r2"]
    );
    let a = activity("bridge-dedup");
    assert_eq!(a.calls.len(), 2, "serial: the repeated read ran twice");
    assert_eq!(a.max_in_flight, 1);
}
