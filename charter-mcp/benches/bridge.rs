//! A bridged call's overhead (docs/design.md §9): the same Rust tool (`kit_read` of the fixture kit) called
//! in a local `ToolSession`, and through `McpToolkit` to charter's MCP server in a child process
//! over stdio (and over streamable HTTP on 127.0.0.1). The overhead of the bridge is the
//! difference of the per-call times; a batch of 8 distinct concurrent reads shows how the stdio
//! pipe is shared.
//!
//! `cargo bench -p charter-mcp --bench bridge`

use std::hint::black_box;
use std::time::Duration;

use charter_mcp::{McpToolkit, ToolkitOptions, Upstream};
use charter_runtime::CallContext;
use charter_runtime::scheduler::ToolCall;
use charter_runtime::session::{SessionOptions, Source, ToolSession, Toolkit};
use charter_testkit::kit;
use charter_testkit::mcp::fixture;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tokio::io::AsyncBufReadExt;

fn batch(prefix: &str) -> Vec<ToolCall> {
    (0..8)
        .map(|i| ToolCall {
            id: format!("c{i}"),
            name: format!("{prefix}kit_read"),
            arguments: json!({"key": format!("k{i}")}),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let options = ToolkitOptions {
        child_stderr: false,
        ..ToolkitOptions::default()
    };
    let session = ToolSession::with_options(
        vec![Source::Table(&kit::KIT)],
        SessionOptions::new().with_disclosure(charter_mcp::Disclosure::Eager),
    )
    .unwrap();
    let stdio = rt
        .block_on(McpToolkit::connect(
            "up",
            Upstream::command(fixture(), Vec::<String>::new()),
            options.clone(),
        ))
        .expect("connect over stdio");
    let (mut http_server, http) = rt.block_on(async {
        let mut child = tokio::process::Command::new(fixture())
            .arg("--http")
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let url = lines.next_line().await.unwrap().unwrap();
        let kit = McpToolkit::connect("web", Upstream::http(url), options.clone())
            .await
            .expect("connect over HTTP");
        (child, kit)
    });
    let ctx = CallContext::new();
    let args = json!({"key": "a"});

    let mut group = c.benchmark_group("one call of kit_read");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("local session", |b| {
        b.iter(|| {
            rt.block_on(session.dispatch("kit_read", black_box(args.clone()), &ctx))
                .unwrap()
        })
    });
    group.bench_function("bridged over stdio", |b| {
        b.iter(|| {
            rt.block_on(stdio.call("up_kit_read", black_box(args.clone()), &ctx))
                .unwrap()
        })
    });
    group.bench_function("bridged over HTTP", |b| {
        b.iter(|| {
            rt.block_on(http.call("web_kit_read", black_box(args.clone()), &ctx))
                .unwrap()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("batch of 8 concurrent reads");
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(8));
    let local_calls = batch("");
    let remote_calls = batch("up_");
    group.bench_function("local session", |b| {
        b.iter(|| rt.block_on(session.execute_tool_calls(black_box(&local_calls), &ctx, 4)))
    });
    group.bench_function("bridged over stdio", |b| {
        b.iter(|| rt.block_on(stdio.execute_tool_calls(black_box(&remote_calls), &ctx, 4)))
    });
    group.finish();

    rt.block_on(async {
        stdio.close().await;
        http.close().await;
        let _ = http_server.kill().await;
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
