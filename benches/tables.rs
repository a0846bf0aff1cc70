//! Reading the static tables costs microseconds: nothing is built or sized at run time.
//!
//! Sums the schema size of every tool and every view of `charter::packs::ALL` (the shipped
//! packs compiled in) plus the fixture pack compiled from `charter-build/tests/fixtures`
//! (`tests/golden/fixture_pack.rs`). Run: `cargo bench -p charter-tools --bench tables`.

use std::hint::black_box;

use charter::table::Table;
use criterion::{Criterion, criterion_group, criterion_main};

#[allow(dead_code)]
mod fixture {
    include!("../tests/golden/fixture_pack.rs");
}

fn tables() -> Vec<&'static Table> {
    charter::packs::ALL
        .iter()
        .copied()
        .chain(fixture::ALL.iter().copied())
        .collect()
}

/// Every tool's default size plus every view's size, as a session sizing its tools would read.
fn sum_sizes(tables: &[&'static Table]) -> (usize, usize, u64) {
    let (mut tools, mut views, mut tokens) = (0usize, 0usize, 0u64);
    for table in tables {
        for tool in table.tools {
            tools += 1;
            tokens += u64::from(charter::schema_tokens(tool));
            for view in tool.views {
                views += 1;
                tokens += u64::from(view.tokens);
            }
        }
    }
    (tools, views, tokens)
}

fn bench(c: &mut Criterion) {
    let tables = tables();
    let (tools, views, tokens) = sum_sizes(&tables);
    eprintln!(
        "{} tables, {tools} tools, {views} views, {tokens} tokens summed",
        tables.len()
    );
    c.bench_function(
        &format!("sum sizes of {tools} tools / {views} views"),
        |b| b.iter(|| sum_sizes(black_box(&tables))),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
