//! The batch scheduler (docs/design.md §7): order, serialisation, deduplication, the worker bound, shielding
//! and identities, observed by the units of work themselves.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use charter_runtime::scheduler::{
    Batch, CallResult, Slot, ToolCall, Work, argument_identity, argument_identity_of,
    concurrency_safe, concurrency_safe_annotations, run_tool_batch, runs_concurrently,
};
use charter_runtime::table::Annotations;
use proptest::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers: a probe the units report to, and units built on it.

/// What the units saw: how many ran, how many were in flight at once, in which order they started.
#[derive(Default)]
struct Probe {
    executions: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    started: Mutex<Vec<String>>,
}

impl Probe {
    fn enter(&self, id: &str) {
        self.executions.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.started.lock().unwrap().push(id.to_owned());
    }

    fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    fn executions(&self) -> usize {
        self.executions.load(Ordering::SeqCst)
    }

    fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    fn started(&self) -> Vec<String> {
        self.started.lock().unwrap().clone()
    }
}

fn ok(id: &str, content: impl Into<String>) -> CallResult {
    CallResult {
        id: id.to_owned(),
        content: content.into(),
        structured: None,
        is_error: false,
    }
}

/// A unit that reports to `probe`, sleeps `ms` (yielding to its neighbours) and answers
/// `"<id> run #<n>"`, where n counts executions across the probe.
fn timed<'a>(probe: &'a Probe, id: &str, ms: u64) -> Work<'a> {
    let id = id.to_owned();
    Box::new(move || {
        Box::pin(async move {
            probe.enter(&id);
            let n = probe.executions();
            tokio::time::sleep(Duration::from_millis(ms)).await;
            tokio::task::yield_now().await;
            probe.leave();
            ok(&id, format!("{id} run #{n}"))
        })
    })
}

fn slot<'a>(id: &str, concurrent: bool, key: Option<&str>, work: Work<'a>) -> Slot<'a> {
    Slot {
        id: id.to_owned(),
        concurrent,
        key: key.map(str::to_owned),
        work,
    }
}

fn ids(results: &[CallResult]) -> Vec<&str> {
    results.iter().map(|r| r.id.as_str()).collect()
}

// ---------------------------------------------------------------------------------------------
// concurrency_safe

#[test]
fn concurrency_safe_needs_both_hints_explicitly_true() {
    assert!(concurrency_safe(
        &json!({"readOnlyHint": true, "idempotentHint": true})
    ));
    assert!(concurrency_safe(
        &json!({"readOnlyHint": true, "idempotentHint": true, "destructiveHint": false})
    ));
    for no in [
        json!({"readOnlyHint": true}),
        json!({"idempotentHint": true}),
        json!({"readOnlyHint": true, "idempotentHint": false}),
        json!({"readOnlyHint": "true", "idempotentHint": "true"}),
        json!({"readOnlyHint": true, "idempotentHint": "true"}),
        json!({"readOnlyHint": true, "idempotentHint": null}),
        json!({"readOnlyHint": 1, "idempotentHint": 1}),
        json!({"read_only": true, "idempotent": true}),
        json!({}),
        json!(null),
        json!(true),
        json!([{"readOnlyHint": true, "idempotentHint": true}]),
    ] {
        assert!(!concurrency_safe(&no), "{no} must not be concurrency-safe");
    }
}

#[test]
fn concurrency_safe_annotations_needs_read_only_and_idempotent() {
    let a = |read_only, idempotent| {
        Annotations::new()
            .with_read_only(read_only)
            .with_idempotent(idempotent)
            .with_open_world(true)
    };
    assert!(concurrency_safe_annotations(&a(true, true)));
    assert!(!concurrency_safe_annotations(&a(true, false)));
    assert!(!concurrency_safe_annotations(&a(false, true)));
    assert!(!concurrency_safe_annotations(&a(false, false)));
}

// ---------------------------------------------------------------------------------------------
// argument_identity

#[test]
fn identity_is_the_name_a_nul_and_compact_sorted_json() {
    let args = json!({"b": {"y": "s", "x": null}, "a": [2, 1], "c": 1.5, "d": "q\"\n\u{1}é"});
    assert_eq!(
        argument_identity("gh_get", &args).unwrap(),
        "gh_get\0{\"a\":[2,1],\"b\":{\"x\":null,\"y\":\"s\"},\"c\":1.5,\"d\":\"q\\\"\\n\\u0001é\"}"
    );
    assert_eq!(argument_identity("t", &json!(null)).unwrap(), "t\0null");
    assert_eq!(argument_identity("t", &json!({})).unwrap(), "t\0{}");
    assert_eq!(argument_identity("t", &json!([])).unwrap(), "t\0[]");
}

#[test]
fn identity_ignores_key_order_at_every_depth() {
    let one = json!({"a": 1, "b": {"x": [ {"p": 1, "q": 2} ], "y": 2}});
    let two = json!({"b": {"y": 2, "x": [ {"q": 2, "p": 1} ]}, "a": 1});
    // preserve_order is on: the two spellings really are different texts.
    assert_ne!(one.to_string(), two.to_string());
    assert_eq!(argument_identity("t", &one), argument_identity("t", &two));
}

#[test]
fn identity_keeps_array_order_and_the_name() {
    assert_ne!(
        argument_identity("t", &json!({"ids": [1, 2]})),
        argument_identity("t", &json!({"ids": [2, 1]}))
    );
    assert_ne!(
        argument_identity("t", &json!({"a": {"ids": ["x", "y"]}})),
        argument_identity("t", &json!({"a": {"ids": ["y", "x"]}}))
    );
    assert_ne!(
        argument_identity("a", &json!({})),
        argument_identity("b", &json!({}))
    );
    assert_ne!(
        argument_identity("t", &json!({"a": 1})),
        argument_identity("t", &json!({"a": "1"}))
    );
}

#[test]
fn a_name_holding_a_nul_gets_no_identity() {
    assert_eq!(argument_identity("a\0b", &json!({})), None);
}

/// A value with no JSON form: its serialisation always fails.
struct Opaque;

impl Serialize for Opaque {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("no JSON form"))
    }
}

#[derive(Serialize)]
struct Args {
    path: String,
    depth: u32,
}

#[test]
fn identity_of_serialisable_arguments() {
    assert_eq!(argument_identity_of("t", &Opaque), None);
    let mut by_tuple = HashMap::new();
    by_tuple.insert((1, 2), 3);
    assert_eq!(
        argument_identity_of("t", &by_tuple),
        None,
        "non-string map keys do not render"
    );
    assert_eq!(
        argument_identity_of(
            "t",
            &Args {
                path: "a".into(),
                depth: 2
            }
        ),
        argument_identity("t", &json!({"depth": 2, "path": "a"}))
    );
}

#[tokio::test]
async fn unrenderable_arguments_are_never_deduplicated() {
    let probe = Probe::default();
    let opaque = argument_identity_of("fs_read", &Opaque);
    let plain = argument_identity_of(
        "fs_read",
        &Args {
            path: "a".into(),
            depth: 1,
        },
    );
    assert!(opaque.is_none() && plain.is_some());
    let slots = vec![
        slot("o1", true, opaque.as_deref(), timed(&probe, "o1", 1)),
        slot("o2", true, opaque.as_deref(), timed(&probe, "o2", 1)),
        slot("p1", true, plain.as_deref(), timed(&probe, "p1", 1)),
        slot("p2", true, plain.as_deref(), timed(&probe, "p2", 1)),
    ];
    let results = run_tool_batch(slots, 4).await;
    assert_eq!(ids(&results), ["o1", "o2", "p1", "p2"]);
    // Both opaque calls ran; the two plain ones ran once.
    assert_eq!(probe.executions(), 3);
    assert_eq!(probe.started(), ["o1", "o2", "p1"]);
    assert_ne!(results[0].content, results[1].content);
    assert_eq!(results[3].content, results[2].content);
}

// ---------------------------------------------------------------------------------------------
// Serial batches

#[tokio::test]
async fn serial_batch_runs_in_order_and_a_read_sees_the_preceding_write() {
    let files: Mutex<HashMap<String, String>> = Mutex::new(HashMap::new());
    let probe = Probe::default();
    let files = &files;
    let probe = &probe;
    // The first write is slow: run beside the read, the read would find nothing.
    let write = |id: &'static str, text: &'static str, ms: u64| -> Work<'_> {
        Box::new(move || {
            Box::pin(async move {
                probe.enter(id);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                files.lock().unwrap().insert("a.txt".into(), text.into());
                probe.leave();
                ok(id, "written")
            })
        })
    };
    let read = |id: &'static str| -> Work<'_> {
        Box::new(move || {
            Box::pin(async move {
                probe.enter(id);
                tokio::task::yield_now().await;
                let text = files.lock().unwrap().get("a.txt").cloned();
                probe.leave();
                ok(id, text.unwrap_or_else(|| "<missing>".into()))
            })
        })
    };
    let key = argument_identity("fs_read", &json!({"path": "a.txt"}));
    let slots = vec![
        slot("w1", false, None, write("w1", "first", 30)),
        slot("r1", true, key.as_deref(), read("r1")),
        slot("w2", false, None, write("w2", "second", 0)),
        slot("r2", true, key.as_deref(), read("r2")),
    ];
    let results = run_tool_batch(slots, 4).await;
    assert_eq!(ids(&results), ["w1", "r1", "w2", "r2"]);
    assert_eq!(results[1].content, "first");
    assert_eq!(
        results[3].content, "second",
        "identical reads are not deduplicated when serial"
    );
    assert_eq!(probe.started(), ["w1", "r1", "w2", "r2"]);
    assert_eq!(probe.max_in_flight(), 1);
}

#[tokio::test]
async fn one_unsafe_slot_serialises_the_whole_batch() {
    let probe = Probe::default();
    let key = Some("fs_read\0{}");
    let mut slots: Vec<Slot<'_>> = (0..6)
        .map(|i| {
            slot(
                &format!("s{i}"),
                true,
                key,
                timed(&probe, &format!("s{i}"), 3),
            )
        })
        .collect();
    slots.insert(3, slot("unsafe", false, None, timed(&probe, "unsafe", 3)));
    assert!(!runs_concurrently(&slots, 4));
    let results = run_tool_batch(slots, 4).await;
    let expected = ["s0", "s1", "s2", "unsafe", "s3", "s4", "s5"];
    assert_eq!(ids(&results), expected);
    assert_eq!(probe.started(), expected);
    assert_eq!(probe.max_in_flight(), 1, "no two units overlapped");
    assert_eq!(
        probe.executions(),
        7,
        "identical keys still run once each when serial"
    );
}

#[tokio::test]
async fn an_all_safe_batch_does_overlap() {
    // The control for the test above: the same probe sees overlap when it happens.
    let probe = Probe::default();
    let slots: Vec<Slot<'_>> = (0..6)
        .map(|i| {
            let id = format!("s{i}");
            slot(&id, true, Some(&id), timed(&probe, &id, 3))
        })
        .collect();
    assert!(runs_concurrently(&slots, 4));
    let results = run_tool_batch(slots, 4).await;
    assert_eq!(ids(&results), ["s0", "s1", "s2", "s3", "s4", "s5"]);
    assert_eq!(probe.max_in_flight(), 4);
    assert_eq!(probe.executions(), 6);
}

#[tokio::test]
async fn concurrency_one_and_single_slot_batches_take_the_serial_path() {
    // Width one: duplicates all run, in order, one at a time.
    let probe = Probe::default();
    let slots: Vec<Slot<'_>> = (0..5)
        .map(|i| {
            slot(
                &format!("s{i}"),
                true,
                Some("k"),
                timed(&probe, &format!("s{i}"), 1),
            )
        })
        .collect();
    assert!(!runs_concurrently(&slots, 1));
    assert!(!runs_concurrently(&slots, 0));
    assert!(runs_concurrently(&slots, 2));
    let results = run_tool_batch(slots, 1).await;
    assert_eq!(ids(&results), ["s0", "s1", "s2", "s3", "s4"]);
    assert_eq!(probe.started(), ["s0", "s1", "s2", "s3", "s4"]);
    assert_eq!(probe.executions(), 5);
    assert_eq!(probe.max_in_flight(), 1);
    let contents: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(
        contents,
        [
            "s0 run #1",
            "s1 run #2",
            "s2 run #3",
            "s3 run #4",
            "s4 run #5"
        ]
    );

    // Concurrency zero is serial too, not a batch that never runs.
    let probe = Probe::default();
    let slots = vec![
        slot("a", true, Some("k"), timed(&probe, "a", 0)),
        slot("b", true, Some("k"), timed(&probe, "b", 0)),
    ];
    let results = run_tool_batch(slots, 0).await;
    assert_eq!(ids(&results), ["a", "b"]);
    assert_eq!(probe.executions(), 2);

    // One slot is its own order.
    let probe = Probe::default();
    let slots = vec![slot("only", true, Some("k"), timed(&probe, "only", 1))];
    assert!(!runs_concurrently(&slots, 4));
    let results = run_tool_batch(slots, 4).await;
    assert_eq!(results, [ok("only", "only run #1")]);
    assert_eq!(probe.executions(), 1);

    // And an empty batch answers nothing.
    assert!(run_tool_batch(Vec::new(), 4).await.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Concurrent batches

#[tokio::test]
async fn dedup_happens_only_in_concurrent_batches_and_restamps_each_slot() {
    fn build(probe: &Probe, unsafe_at: Option<usize>) -> Vec<Slot<'_>> {
        let keys = [Some("a"), Some("b"), Some("a"), None, None, Some("a")];
        keys.iter()
            .enumerate()
            .map(|(i, key)| {
                let id = format!("call_{i}");
                slot(&id, unsafe_at != Some(i), *key, timed(probe, &id, 2))
            })
            .collect()
    }
    let want_ids = ["call_0", "call_1", "call_2", "call_3", "call_4", "call_5"];

    // Concurrent: a, b and the two keyless calls run; the other two a's are copies.
    let probe = Probe::default();
    let results = run_tool_batch(build(&probe, None), 4).await;
    assert_eq!(ids(&results), want_ids);
    assert_eq!(probe.executions(), 4);
    let mut started = probe.started();
    started.sort();
    assert_eq!(started, ["call_0", "call_1", "call_3", "call_4"]);
    for follower in [2, 5] {
        assert_eq!(
            results[follower],
            CallResult {
                id: want_ids[follower].into(),
                ..results[0].clone()
            }
        );
        assert!(results[follower].content.starts_with("call_0 run #"));
    }
    assert_ne!(
        results[3].content, results[4].content,
        "keyless calls never share an answer"
    );

    // The same batch with one unsafe slot: every call runs.
    let probe = Probe::default();
    let results = run_tool_batch(build(&probe, Some(4)), 4).await;
    assert_eq!(ids(&results), want_ids);
    assert_eq!(probe.executions(), 6);
    assert!(results[2].content.starts_with("call_2 run #"));

    // And at width one.
    let probe = Probe::default();
    let results = run_tool_batch(build(&probe, None), 1).await;
    assert_eq!(ids(&results), want_ids);
    assert_eq!(probe.executions(), 6);
}

#[tokio::test]
async fn in_flight_count_never_exceeds_the_bound() {
    for concurrency in 1..=6 {
        for (width, distinct) in [(12, 12), (12, 3), (2, 2)] {
            let probe = Probe::default();
            let slots: Vec<Slot<'_>> = (0..width)
                .map(|i| {
                    let id = format!("s{i}");
                    let key = format!("k{}", i % distinct);
                    slot(&id, true, Some(&key), timed(&probe, &id, 2))
                })
                .collect();
            let results = run_tool_batch(slots, concurrency).await;
            assert_eq!(results.len(), width);
            let bound = if concurrency > 1 {
                concurrency.min(distinct)
            } else {
                1
            };
            let max = probe.max_in_flight();
            assert!(
                max <= bound,
                "c={concurrency} width={width}: {max} in flight > {bound}"
            );
            // The pool starts all its workers at once, so the bound is also reached.
            assert_eq!(max, bound, "c={concurrency} width={width}");
            assert_eq!(
                probe.executions(),
                if concurrency > 1 { distinct } else { width }
            );
            assert_eq!(
                probe.in_flight.load(Ordering::SeqCst),
                0,
                "every unit finished on return"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_flight_bound_holds_on_a_multi_thread_runtime() {
    let probe = Probe::default();
    let slots: Vec<Slot<'_>> = (0..20)
        .map(|i| {
            let id = format!("s{i}");
            slot(&id, true, Some(&id), timed(&probe, &id, 1))
        })
        .collect();
    let results = run_tool_batch(slots, 3).await;
    assert_eq!(results.len(), 20);
    assert_eq!(probe.max_in_flight(), 3);
    assert_eq!(probe.executions(), 20);
}

// ---------------------------------------------------------------------------------------------
// Shielding

/// ok, a panic when called, a panic while polled, an error result, a non-string panic, ok.
fn troubled<'a>(probe: &'a Probe, concurrent: bool) -> Vec<Slot<'a>> {
    let panics_when_called: Work<'a> = Box::new(|| panic!("boom at call"));
    let panics_when_polled: Work<'a> = Box::new(move || {
        Box::pin(async move {
            probe.enter("p2");
            tokio::task::yield_now().await;
            panic!("boom while polled: {}", 42)
        })
    });
    let errs: Work<'a> = Box::new(move || {
        Box::pin(async move {
            probe.enter("e3");
            CallResult {
                id: "e3".into(),
                content: "HTTP 404 from /repos".into(),
                structured: Some(json!({"status": 404})),
                is_error: true,
            }
        })
    });
    let panics_any: Work<'a> = Box::new(|| std::panic::panic_any(7_u8));
    vec![
        slot("o0", concurrent, Some("k0"), timed(probe, "o0", 2)),
        slot("p1", concurrent, Some("k1"), panics_when_called),
        slot("p2", concurrent, Some("k2"), panics_when_polled),
        slot("e3", concurrent, Some("k3"), errs),
        slot("p4", concurrent, Some("k4"), panics_any),
        slot("o5", concurrent, Some("k5"), timed(probe, "o5", 2)),
    ]
}

fn check_troubled(results: &[CallResult]) {
    assert_eq!(ids(results), ["o0", "p1", "p2", "e3", "p4", "o5"]);
    assert!(!results[0].is_error && results[0].content.starts_with("o0 run #"));
    assert!(!results[5].is_error && results[5].content.starts_with("o5 run #"));
    assert!(results[1].is_error);
    assert_eq!(results[1].content, "the tool panicked: boom at call");
    assert!(results[2].is_error);
    assert_eq!(
        results[2].content,
        "the tool panicked: boom while polled: 42"
    );
    assert_eq!(
        results[3],
        CallResult {
            id: "e3".into(),
            content: "HTTP 404 from /repos".into(),
            structured: Some(json!({"status": 404})),
            is_error: true,
        },
        "an error result passes through unchanged"
    );
    assert!(results[4].is_error);
    assert!(results[4].content.starts_with("the tool panicked"));
}

#[tokio::test]
async fn panicking_and_erroring_units_become_error_results_in_a_serial_batch() {
    let probe = Probe::default();
    let results = run_tool_batch(troubled(&probe, false), 4).await;
    check_troubled(&results);
    assert_eq!(
        probe.started(),
        ["o0", "p2", "e3", "o5"],
        "every unit after a panic still ran, in order"
    );
}

#[tokio::test]
async fn panicking_and_erroring_units_become_error_results_in_a_concurrent_batch() {
    let probe = Probe::default();
    let slots = troubled(&probe, true);
    assert!(runs_concurrently(&slots, 3));
    let results = run_tool_batch(slots, 3).await;
    check_troubled(&results);
    let mut started = probe.started();
    started.sort();
    assert_eq!(started, ["e3", "o0", "o5", "p2"]);
}

#[tokio::test]
async fn a_panicking_leader_answers_its_followers_with_the_error() {
    let probe = Probe::default();
    let boom: Work<'_> = Box::new(|| panic!("boom"));
    let slots = vec![
        slot("a", true, Some("k"), boom),
        slot("b", true, Some("other"), timed(&probe, "b", 1)),
        slot("c", true, Some("k"), timed(&probe, "c", 1)),
    ];
    let results = run_tool_batch(slots, 2).await;
    assert_eq!(ids(&results), ["a", "b", "c"]);
    assert!(results[0].is_error && results[2].is_error);
    assert_eq!(results[2].content, results[0].content);
    assert!(!results[1].is_error);
    assert_eq!(probe.started(), ["b"], "the follower's own unit never ran");
}

// ---------------------------------------------------------------------------------------------
// Batch, borrowing and Send

#[tokio::test]
async fn batch_builds_slots_from_calls_and_an_annotation_lookup() {
    let annotations: HashMap<&str, Annotations> = HashMap::from([
        (
            "fs_read",
            Annotations::new()
                .with_read_only(true)
                .with_idempotent(true),
        ),
        (
            "fs_write",
            Annotations::new()
                .with_idempotent(true)
                .with_destructive(true),
        ),
    ]);
    let call = |id: &str, name: &str, arguments: Value| ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    };
    let calls = vec![
        call("c1", "fs_read", json!({"path": "a", "n": 1})),
        call("c2", "fs_read", json!({"n": 1, "path": "a"})),
        call("c3", "fs_read", json!({"path": "b"})),
    ];
    // Local, non-'static state the work borrows: no spawn, so no 'static bound.
    let runs = AtomicUsize::new(0);
    let safe = |call: &ToolCall| {
        annotations
            .get(call.name.as_str())
            .is_some_and(concurrency_safe_annotations)
    };

    let batch = Batch::from_calls(&calls, safe, |call| {
        let runs = &runs;
        Box::pin(async move {
            runs.fetch_add(1, Ordering::SeqCst);
            ok(&call.id, format!("read {}", call.arguments["path"]))
        })
    });
    assert_eq!(batch.slots()[0].key, batch.slots()[1].key);
    assert!(batch.slots().iter().all(|s| s.concurrent));
    let results = batch.run(4).await;
    assert_eq!(
        results,
        [
            ok("c1", "read \"a\""),
            ok("c2", "read \"a\""),
            ok("c3", "read \"b\"")
        ]
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // A write in the batch: serial, nothing deduplicated, and unsafe slots carry no key.
    let mut calls = calls.clone();
    calls.push(call("c4", "fs_write", json!({"path": "a"})));
    runs.store(0, Ordering::SeqCst);
    let mut batch = Batch::with_capacity(calls.len());
    for call in &calls {
        let runs = &runs;
        batch.push(call, safe(call), move || {
            Box::pin(async move {
                runs.fetch_add(1, Ordering::SeqCst);
                ok(&call.id, call.name.clone())
            })
        });
    }
    assert_eq!(batch.slots()[3].key, None);
    assert!(batch.slots()[..3].iter().all(|s| s.key.is_some()));
    assert!(!runs_concurrently(batch.slots(), 4));
    let results = batch.run(4).await;
    assert_eq!(ids(&results), ["c1", "c2", "c3", "c4"]);
    assert_eq!(results[3].content, "fs_write");
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[test]
fn the_batch_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let probe = Probe::default();
    let future = run_tool_batch(vec![slot("a", true, None, timed(&probe, "a", 0))], 4);
    assert_send(&future);
}

// ---------------------------------------------------------------------------------------------
// Property tests

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Ok,
    Error,
    Panic,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![6 => Just(Kind::Ok), 1 => Just(Kind::Error), 1 => Just(Kind::Panic)]
}

#[derive(Debug, Clone)]
struct Case {
    key: Option<u8>,
    concurrent: bool,
    kind: Kind,
    yields: u8,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::option::weighted(0.8, 0..3_u8),
        proptest::bool::weighted(0.85),
        kind(),
        0..4_u8,
    )
        .prop_map(|(key, concurrent, kind, yields)| Case {
            key,
            concurrent,
            kind,
            yields,
        })
}

/// What slot `i`'s own unit answers.
fn expected_of(i: usize, case: &Case) -> (String, bool) {
    match case.kind {
        Kind::Ok => (format!("answer of slot {i}"), false),
        Kind::Error => (format!("error of slot {i}"), true),
        Kind::Panic => (format!("the tool panicked: unit {i}"), true),
    }
}

fn run_cases(cases: &[Case], concurrency: usize) -> (Vec<CallResult>, Probe, Vec<String>) {
    let probe = Probe::default();
    let ids: Vec<String> = (0..cases.len()).map(|i| format!("call-{i}")).collect();
    let keys: Vec<Option<String>> = cases
        .iter()
        .map(|c| c.key.map(|k| format!("tool\0{{\"k\":{k}}}")))
        .collect();
    let results = {
        let probe = &probe;
        let slots: Vec<Slot<'_>> = cases
            .iter()
            .enumerate()
            .map(|(i, case)| {
                let id = ids[i].clone();
                let concurrent = case.concurrent;
                let case = case.clone();
                let work: Work<'_> = Box::new(move || {
                    Box::pin(async move {
                        probe.enter(&i.to_string());
                        for _ in 0..case.yields {
                            tokio::task::yield_now().await;
                        }
                        probe.leave();
                        let (content, is_error) = expected_of(i, &case);
                        if case.kind == Kind::Panic {
                            panic!("unit {i}");
                        }
                        CallResult {
                            id,
                            content,
                            structured: Some(json!(i)),
                            is_error,
                        }
                    })
                });
                Slot {
                    id: ids[i].clone(),
                    concurrent,
                    key: keys[i].clone(),
                    work,
                }
            })
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(run_tool_batch(slots, concurrency))
    };
    (results, probe, ids)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_batches_keep_order_ids_and_execution_counts(
        cases in proptest::collection::vec(case(), 0..12),
        concurrency in 1..=6_usize,
    ) {
        let (results, probe, ids) = run_cases(&cases, concurrency);
        let wide = concurrency > 1 && cases.len() > 1 && cases.iter().all(|c| c.concurrent);

        prop_assert_eq!(results.len(), cases.len());
        let got: Vec<&String> = results.iter().map(|r| &r.id).collect();
        let want: Vec<&String> = ids.iter().collect();
        prop_assert_eq!(got, want);

        // Who answers for each slot: the first slot with its key, when the batch is concurrent.
        let leader_of: Vec<usize> = (0..cases.len())
            .map(|i| match cases[i].key {
                Some(k) if wide => cases.iter().position(|c| c.key == Some(k)).unwrap(),
                _ => i,
            })
            .collect();
        let mut leaders: Vec<usize> = leader_of.clone();
        leaders.sort();
        leaders.dedup();
        let distinct = cases.iter().filter(|c| c.key.is_none()).count()
            + cases.iter().filter_map(|c| c.key).collect::<std::collections::BTreeSet<_>>().len();
        if wide {
            prop_assert_eq!(probe.executions(), distinct);
            prop_assert_eq!(leaders.len(), distinct);
            prop_assert!(probe.max_in_flight() <= concurrency);
        } else {
            prop_assert_eq!(probe.executions(), cases.len());
            prop_assert!(probe.max_in_flight() <= 1);
            let order: Vec<String> = (0..cases.len()).map(|i| i.to_string()).collect();
            prop_assert_eq!(probe.started(), order);
        }
        let mut started: Vec<usize> = probe.started().iter().map(|s| s.parse().unwrap()).collect();
        started.sort();
        prop_assert_eq!(started, leaders, "exactly the leaders ran");

        for (i, result) in results.iter().enumerate() {
            let leader = leader_of[i];
            let (content, is_error) = expected_of(leader, &cases[leader]);
            prop_assert_eq!(&result.content, &content, "slot {} answered by {}", i, leader);
            prop_assert_eq!(result.is_error, is_error);
            let structured = (cases[leader].kind != Kind::Panic).then(|| json!(leader));
            prop_assert_eq!(&result.structured, &structured);
        }
        prop_assert_eq!(probe.in_flight.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn identity_matches_an_independent_sorted_rendering_and_ignores_key_order(
        value in arbitrary_json(),
        seed in any::<u64>(),
    ) {
        let id = argument_identity("t", &value).unwrap();
        prop_assert_eq!(&id, &format!("t\0{}", serde_json::to_string(&sorted(&value)).unwrap()));
        prop_assert_eq!(Some(id), argument_identity("t", &shuffled(&value, seed)));
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6..1e6_f64).prop_map(|f| json!(f)),
        "[a-zé\"\\\\\u{0}-\u{1f}]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec(("[a-e\"]{1,3}", inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// The value rebuilt with every object's keys inserted in sorted order (preserve_order keeps it).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// The value with every object's keys in a seed-dependent order; arrays untouched.
fn shuffled(value: &Value, seed: u64) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(|v| shuffled(v, seed)).collect()),
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by_key(|(k, _)| {
                k.bytes()
                    .fold(seed, |h, b| h.rotate_left(5) ^ u64::from(b))
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            });
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), shuffled(v, seed)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}
