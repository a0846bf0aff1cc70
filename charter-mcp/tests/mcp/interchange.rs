//! The interchangeability test (docs/design.md §7): one toolkit of Rust-function tools that count
//! their executions, reached locally (a `ToolSession` over its static table) and reached over MCP
//! (charter's MCP server in a child process, through the bridge), answers the same batches with
//! equal results in equal order and equal execution counts.
//!
//! Three bridges are compared: the local session, `McpToolkit::execute_tool_calls`, and a session
//! holding the `McpToolkit` as a source (what an agent loop uses). One test function, because the
//! local counters are process-wide statics.

use crate::common;

use charter_runtime::CallContext;
use charter_runtime::scheduler::{CallResult, ToolCall};
use charter_runtime::session::{SessionOptions, Source, ToolSession};
use charter_testkit::kit;
use serde_json::{Value, json};

use common::*;

/// Runs one batch on all three bridges (counters zeroed before each) and answers their results
/// and counts.
struct Bridges {
    local: ToolSession,
    remote: charter_mcp::McpToolkit,
    remote_session: ToolSession,
}

struct Run {
    results: Vec<CallResult>,
    counts: Value,
}

impl Bridges {
    async fn local(&self, calls: &[ToolCall], concurrency: usize) -> Run {
        kit::zero();
        let ctx = CallContext::new();
        let results = self
            .local
            .execute_tool_calls(calls, &ctx, concurrency)
            .await;
        Run {
            results,
            counts: kit::counts(),
        }
    }

    async fn remote_counts(&self) -> Value {
        let ctx = CallContext::new();
        let answer = self
            .remote
            .execute_tool_calls(&[call("n", "up_kit_count", json!({}))], &ctx, 1)
            .await;
        assert!(!answer[0].is_error, "{}", answer[0].content);
        json_of(&answer[0])
    }

    async fn reset_remote(&self) {
        let ctx = CallContext::new();
        let answer = self
            .remote
            .execute_tool_calls(&[call("r", "up_kit_reset", json!({}))], &ctx, 1)
            .await;
        assert!(!answer[0].is_error, "{}", answer[0].content);
    }

    async fn remote(&self, calls: &[ToolCall], concurrency: usize) -> Run {
        self.reset_remote().await;
        let ctx = CallContext::new();
        let results = self
            .remote
            .execute_tool_calls(&renamed(calls, "up_"), &ctx, concurrency)
            .await;
        Run {
            results,
            counts: self.remote_counts().await,
        }
    }

    async fn remote_session(&self, calls: &[ToolCall], concurrency: usize) -> Run {
        self.reset_remote().await;
        let ctx = CallContext::new();
        let results = self
            .remote_session
            .execute_tool_calls(&renamed(calls, "up_"), &ctx, concurrency)
            .await;
        Run {
            results,
            counts: self.remote_counts().await,
        }
    }

    /// Runs `calls` on every bridge, asserts they agree, and answers the local run.
    async fn agree(&self, what: &str, calls: &[ToolCall], concurrency: usize) -> Run {
        let local = self.local(calls, concurrency).await;
        for (bridge, run) in [
            ("McpToolkit", self.remote(calls, concurrency).await),
            (
                "session over McpToolkit",
                self.remote_session(calls, concurrency).await,
            ),
        ] {
            assert_eq!(
                run.results.len(),
                local.results.len(),
                "{what} ({bridge}): one answer per call"
            );
            for (i, (l, r)) in local.results.iter().zip(&run.results).enumerate() {
                if calls[i].name == "kit_panic" {
                    // The local scheduler reports the panic's message; charter's MCP server
                    // deliberately keeps host panics out of tool text (a JSON-RPC internal error).
                    // Both are error results in the panicking call's slot.
                    assert_eq!(
                        (&l.id, l.is_error, &l.structured),
                        (&r.id, r.is_error, &r.structured)
                    );
                    assert!(
                        l.is_error && l.content.contains("panicked"),
                        "{}",
                        l.content
                    );
                    assert!(
                        r.content.contains("panicked"),
                        "{what} ({bridge}): {}",
                        r.content
                    );
                } else {
                    assert_eq!(l, r, "{what} ({bridge}): slot {i} differs");
                }
            }
            assert_eq!(
                run.counts, local.counts,
                "{what} ({bridge}): execution counts differ"
            );
        }
        local
    }
}

fn ids(run: &Run) -> Vec<&str> {
    run.results.iter().map(|r| r.id.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_and_bridged_toolkits_answer_batches_alike() {
    let eager = || SessionOptions::new().with_disclosure(charter_mcp::Disclosure::Eager);
    let remote = kit("up", &[]).await;
    let bridges = Bridges {
        local: ToolSession::with_options(vec![Source::Table(&kit::KIT)], eager()).unwrap(),
        remote_session: ToolSession::with_options(vec![remote.source()], eager()).unwrap(),
        remote,
    };
    let names: Vec<String> = bridges
        .remote
        .dynamic_tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let local_names: Vec<String> = kit::TOOLS
        .iter()
        .map(|t| format!("up_{}", t.name))
        .collect();
    assert_eq!(names, local_names, "the bridge lists the kit in its order");

    // Serial: a mutating tool makes the batch a sequence; `writes` numbers prove the order.
    let serial = [
        call("c1", "kit_write", json!({"key": "a", "value": "1"})),
        call("c2", "kit_read", json!({"key": "a"})),
        call("c3", "kit_write", json!({"key": "b", "value": "2"})),
        call("c4", "kit_stat", json!({"key": "b"})),
        call("c5", "kit_write", json!({"key": "c", "value": "3"})),
    ];
    let run = bridges.agree("serial", &serial, 4).await;
    assert_eq!(ids(&run), ["c1", "c2", "c3", "c4", "c5"]);
    let writes: Vec<Value> = [0, 2, 4]
        .iter()
        .map(|i| json_of(&run.results[*i])["writes"].clone())
        .collect();
    assert_eq!(writes, [json!(1), json!(2), json!(3)]);
    assert_eq!(
        run.counts,
        json!({"read": 1, "stat": 1, "write": 3, "fail": 0, "panic": 0, "slow": 0})
    );

    // Concurrent: every call read-only and idempotent.
    let concurrent = [
        call("r1", "kit_read", json!({"key": "a"})),
        call("r2", "kit_stat", json!({"key": "a"})),
        call("r3", "kit_slow", json!({"ms": 30})),
        call("r4", "kit_read", json!({"key": "b"})),
        call("r5", "kit_slow", json!({"ms": 10})),
    ];
    let run = bridges.agree("concurrent", &concurrent, 4).await;
    assert_eq!(ids(&run), ["r1", "r2", "r3", "r4", "r5"]);
    assert_eq!(
        json_of(&run.results[3]),
        json!({"key": "b", "value": "value of b"})
    );
    assert_eq!(
        run.counts,
        json!({"read": 2, "stat": 1, "write": 0, "fail": 0, "panic": 0, "slow": 2})
    );

    // Duplicates in a concurrent batch run once and answer under each id.
    let duplicates = [
        call("d1", "kit_read", json!({"key": "a"})),
        call("d2", "kit_read", json!({"key": "a"})),
        call("d3", "kit_stat", json!({"key": "a"})),
        call("d4", "kit_read", json!({"key": "a"})),
        call("d5", "kit_stat", json!({"key": "a"})),
    ];
    let run = bridges.agree("concurrent duplicates", &duplicates, 4).await;
    assert_eq!(ids(&run), ["d1", "d2", "d3", "d4", "d5"]);
    assert_eq!(run.results[0].content, run.results[3].content);
    assert_eq!(
        run.counts,
        json!({"read": 1, "stat": 1, "write": 0, "fail": 0, "panic": 0, "slow": 0})
    );

    // The same duplicates beside a write: serial, so "asked twice" means twice.
    let mut serial_duplicates = duplicates.to_vec();
    serial_duplicates.insert(2, call("w", "kit_write", json!({"key": "a", "value": "x"})));
    let run = bridges
        .agree("serial duplicates", &serial_duplicates, 4)
        .await;
    assert_eq!(
        run.counts,
        json!({"read": 3, "stat": 2, "write": 1, "fail": 0, "panic": 0, "slow": 0})
    );

    // Width 1 is serial too, even for safe calls: duplicates execute each time.
    let run = bridges.agree("concurrency 1", &duplicates, 1).await;
    assert_eq!(
        run.counts,
        json!({"read": 3, "stat": 2, "write": 0, "fail": 0, "panic": 0, "slow": 0})
    );

    // A failing tool is an error result in its slot; its neighbours answer.
    let failing = [
        call("f1", "kit_read", json!({"key": "a"})),
        call("f2", "kit_fail", json!({"reason": "no disk"})),
        call("f3", "kit_fail", json!({"reason": "no disk"})),
        call("f4", "kit_read", json!({"key": "b"})),
    ];
    let run = bridges
        .agree("concurrent with a failure", &failing, 4)
        .await;
    assert!(!run.results[0].is_error && !run.results[3].is_error);
    assert!(run.results[1].is_error && run.results[2].is_error);
    assert_eq!(run.results[1].content, "kit_fail failed: no disk");
    assert_eq!(run.results[2].id, "f3");
    assert_eq!(
        run.counts["fail"],
        json!(1),
        "the duplicate failure ran once"
    );
    let mut serial_failing = failing.to_vec();
    serial_failing.push(call("f5", "kit_write", json!({"key": "z", "value": "z"})));
    let run = bridges
        .agree("serial with a failure", &serial_failing, 4)
        .await;
    assert_eq!(run.counts["fail"], json!(2));
    assert_eq!(json_of(&run.results[4])["writes"], json!(1));

    // A panicking tool is an error result in its slot; the batch goes on.
    let panicking = [
        call("p1", "kit_read", json!({"key": "a"})),
        call("p2", "kit_panic", json!({})),
        call("p3", "kit_read", json!({"key": "b"})),
    ];
    let run = bridges
        .agree("concurrent with a panic", &panicking, 4)
        .await;
    assert!(run.results[1].is_error && !run.results[2].is_error);
    assert_eq!(run.counts["panic"], json!(1));
    let mut serial_panicking = panicking.to_vec();
    serial_panicking.insert(
        0,
        call("p0", "kit_write", json!({"key": "a", "value": "1"})),
    );
    serial_panicking.push(call("p4", "kit_write", json!({"key": "b", "value": "2"})));
    let run = bridges
        .agree("serial with a panic", &serial_panicking, 4)
        .await;
    assert_eq!(json_of(&run.results[4])["writes"], json!(2));
    assert_eq!(
        run.counts,
        json!({"read": 2, "stat": 0, "write": 2, "fail": 0, "panic": 1, "slow": 0})
    );

    // Bad arguments: the same validation message, written for the model, from either side.
    let invalid = [
        call("v1", "kit_read", json!({})),
        call(
            "v2",
            "kit_write",
            json!({"key": 7, "value": "x", "extra": true}),
        ),
        call("v3", "kit_read", json!({"key": "ok"})),
    ];
    let run = bridges.agree("validation errors", &invalid, 4).await;
    assert!(run.results[0].is_error && run.results[1].is_error && !run.results[2].is_error);
    assert!(
        run.results[1].content.contains("extra"),
        "{}",
        run.results[1].content
    );
    assert_eq!(run.counts["write"], json!(0));

    bridges.remote.close().await;
}
