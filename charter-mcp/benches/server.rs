//! What `charter mcp` spends before and while answering, over every shipped pack:
//! - building the server (its sessions checked; no schema parsed): what runs before
//!   `initialize` can be answered;
//! - parsing every schema once into rmcp's JSON objects (done on a background thread while the
//!   client initializes, or on first use);
//! - a `tools/list` round trip in process (rmcp client and server over a duplex pipe, so the
//!   figure counts both sides' JSON work but no other process).
//!
//! `cargo bench -p charter-mcp --bench server`

use std::hint::black_box;

use charter_mcp::{McpServer, ServerOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;

fn build(c: &mut Criterion) {
    let tables = charter::packs::ALL;
    let tools: usize = tables.iter().map(|t| t.tools.len()).sum();
    c.bench_function(&format!("McpServer::new eager ({tools} tools)"), |b| {
        b.iter(|| McpServer::new(black_box(tables), ServerOptions::default()).unwrap())
    });
    c.bench_function(
        &format!("McpServer::new progressive ({tools} tools)"),
        |b| {
            b.iter(|| {
                McpServer::new(
                    black_box(tables),
                    ServerOptions::new().with_disclosure(charter_mcp::Disclosure::ListChanged),
                )
                .unwrap()
            })
        },
    );
    c.bench_function(&format!("parse every schema ({tools} tools)"), |b| {
        b.iter_batched(
            || McpServer::new(tables, ServerOptions::default()).unwrap(),
            |server| server.check_schemas().unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
}

fn list(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = McpServer::new(charter::packs::ALL, ServerOptions::default()).unwrap();
    server.check_schemas().unwrap();
    let client = rt.block_on(async {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_io);
        let s = server.clone();
        tokio::spawn(async move { s.serve_io(read, write).await });
        ().serve(client_io).await.unwrap()
    });
    c.bench_function("tools/list round trip in process (every tool)", |b| {
        b.iter(|| rt.block_on(client.list_all_tools()).unwrap())
    });
}

criterion_group!(benches, build, list);
criterion_main!(benches);
