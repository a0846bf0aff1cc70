//! Scheduler overhead per slot (docs/design.md §7): a batch of trivial units run through `run_tool_batch`,
//! against the same units awaited one after another with no scheduler (`direct`). The overhead
//! per slot is the difference of the per-element times; the target is ≤ 2 µs.
//!
//! `cargo bench -p charter-runtime --bench scheduler`

use std::hint::black_box;

use charter_runtime::scheduler::{CallResult, Slot, argument_identity, run_tool_batch};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

/// `n` slots of trivial work; `dup` slots share a key (deduplicated when concurrent).
fn slots(n: usize, concurrent: bool, dup: bool) -> Vec<Slot<'static>> {
    (0..n)
        .map(|i| {
            let id = format!("call_{i}");
            let answer_id = id.clone();
            let key = if dup {
                "fs_read\0{}".to_owned()
            } else {
                format!("fs_read\0{{\"i\":{i}}}")
            };
            Slot {
                id,
                concurrent,
                key: Some(key),
                work: Box::new(move || {
                    Box::pin(async move {
                        CallResult {
                            id: answer_id,
                            content: String::new(),
                            structured: None,
                            is_error: false,
                        }
                    })
                }),
            }
        })
        .collect()
}

fn batches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("scheduler");
    for n in [1_usize, 10, 100] {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("direct/{n}"), |b| {
            b.iter_batched(
                || slots(n, false, false),
                |slots| {
                    runtime.block_on(async {
                        let mut out = Vec::with_capacity(slots.len());
                        for slot in slots {
                            out.push((slot.work)().await);
                        }
                        out
                    })
                },
                BatchSize::SmallInput,
            )
        });
        group.bench_function(format!("serial/{n}"), |b| {
            b.iter_batched(
                || slots(n, false, false),
                |slots| runtime.block_on(run_tool_batch(slots, 4)),
                BatchSize::SmallInput,
            )
        });
        group.bench_function(format!("concurrent/{n}"), |b| {
            b.iter_batched(
                || slots(n, true, false),
                |slots| runtime.block_on(run_tool_batch(slots, 4)),
                BatchSize::SmallInput,
            )
        });
        group.bench_function(format!("concurrent_dedup/{n}"), |b| {
            b.iter_batched(
                || slots(n, true, true),
                |slots| runtime.block_on(run_tool_batch(slots, 4)),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();

    let arguments = json!({
        "owner": "octo",
        "repo": "charter",
        "labels": ["bug", "p1"],
        "page": {"size": 50, "cursor": null},
    });
    c.bench_function("argument_identity/small", |b| {
        b.iter(|| argument_identity(black_box("github_list_issues"), black_box(&arguments)))
    });
}

criterion_group!(benches, batches);
criterion_main!(benches);
