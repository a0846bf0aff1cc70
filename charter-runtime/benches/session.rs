//! Session costs over a synthetic 700-tool catalogue (7 packs × 100 tools, built by
//! `charter_testkit`): building a session, ranking a keyword query (relevance, the
//! default, and classic), a `select:` of two tools, validating a typical call. Targets (README, Speed): build ≤ 100 µs, keyword query ≤ 20 µs,
//! validation ≤ 10 µs.
//!
//! `cargo bench -p charter-runtime --bench session`
//!
//! Times are this thread's CPU time: the machine is shared with other builds, and wall-clock time
//! there counts the time the thread waits for a core. `CHARTER_BENCH_WALL=1` measures wall-clock
//! time instead.

use std::hint::black_box;
use std::time::Duration;

use charter_runtime::session::{Ranking, SessionOptions, Source, ToolSession};
use charter_runtime::validate::{PatternCache, prepare_arguments};
use charter_runtime::{CallContext, Table};
use charter_testkit as testing;
use criterion::Criterion;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
struct ThreadCpu {
    wall: WallTime,
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }

    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(thread_cpu_ns().saturating_sub(start))
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

fn sources(tables: &[&'static Table]) -> Vec<Source> {
    tables.iter().map(|t| Source::Table(t)).collect()
}

fn options(threshold: u32) -> SessionOptions {
    SessionOptions::new().with_threshold(threshold)
}

fn bench<M: Measurement>(c: &mut Criterion<M>) {
    let tables = testing::synthetic_catalogue(7);
    let tools: usize = tables.iter().map(|t| t.tools.len()).sum();
    assert_eq!(tools, 700);

    let mut group = c.benchmark_group("session_700_tools");
    for threshold in [0u32, 200] {
        let s = ToolSession::with_options(sources(&tables), options(threshold)).unwrap();
        eprintln!(
            "threshold {threshold}: {} deferred of {tools}",
            s.deferred().len()
        );
        group.bench_function(format!("build_threshold_{threshold}"), |b| {
            b.iter(|| {
                ToolSession::with_options(black_box(sources(&tables)), options(threshold)).unwrap()
            })
        });
    }
    group.bench_function("build_mode_pro", |b| {
        b.iter(|| {
            let options = SessionOptions::new().with_mode("pro");
            ToolSession::with_options(black_box(sources(&tables)), options).unwrap()
        })
    });

    let s = ToolSession::with_options(sources(&tables), options(0)).unwrap();
    group.bench_function("keyword_query", |b| {
        b.iter(|| {
            let answer = s.search(black_box("create invoice"), None);
            s.reset();
            answer
        })
    });
    // The same query under the docs/design.md §4 classic ranking (the default is relevance).
    let classic =
        ToolSession::with_options(sources(&tables), options(0).with_ranking(Ranking::Classic))
            .unwrap();
    group.bench_function("keyword_query_classic", |b| {
        b.iter(|| {
            let answer = classic.search(black_box("create invoice"), None);
            classic.reset();
            answer
        })
    });
    group.bench_function("first_keyword_query_of_a_new_session", |b| {
        // Build + the one-off search index + the query: what the first search of a conversation
        // costs in total.
        b.iter(|| {
            let fresh = ToolSession::with_options(sources(&tables), options(0)).unwrap();
            fresh.search(black_box("create invoice"), None).loaded.len()
        })
    });
    group.bench_function("plus_pack_keyword_query", |b| {
        b.iter(|| {
            let answer = s.search(black_box("+stripe refund"), None);
            s.reset();
            answer
        })
    });
    group.bench_function("select_two", |b| {
        b.iter(|| {
            let answer = s.search(
                black_box("select:github_issues_create,stripe_refunds_list"),
                None,
            );
            s.reset();
            answer
        })
    });
    group.bench_function("visible_after_two_loads", |b| {
        s.search("select:github_issues_create,stripe_refunds_list", None);
        b.iter(|| black_box(s.visible()).len());
        s.reset();
    });

    let tool = tables[0]
        .tools
        .iter()
        .find(|t| t.name == "github_issues_create")
        .unwrap();
    let view = &tool.views[0];
    let patterns = PatternCache::new();
    let ctx = CallContext::new().with_value("customer_id", serde_json::json!("cus_1"));
    let arguments = testing::typical_create_arguments();
    prepare_arguments(tool, view, &[], arguments.clone(), &ctx, &patterns).expect("valid");
    group.bench_function("validate_typical_call", |b| {
        b.iter_batched(
            || arguments.clone(),
            |args| prepare_arguments(tool, view, &[], args, &ctx, &patterns).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    let update = tables[0]
        .tools
        .iter()
        .find(|t| t.name == "github_issues_update")
        .unwrap();
    let update_args = serde_json::json!({"workspace": "acme", "id": "I_42", "state": "closed", "labels": ["done"]});
    group.bench_function("validate_with_pattern", |b| {
        b.iter_batched(
            || update_args.clone(),
            |args| prepare_arguments(update, &update.views[0], &[], args, &ctx, &patterns).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn main() {
    if std::env::var_os("CHARTER_BENCH_WALL").is_some() {
        let mut c = Criterion::default().configure_from_args();
        bench(&mut c);
        c.final_summary();
    } else {
        let mut c = Criterion::default()
            .with_measurement(ThreadCpu { wall: WallTime })
            .configure_from_args();
        bench(&mut c);
        c.final_summary();
    }
}
