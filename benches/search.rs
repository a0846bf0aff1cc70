//! ToolSearch over every shipped pack (`charter::packs::ALL`): a keyword query under each
//! ranking, the first keyword query of a fresh session (which builds the search index), and
//! building the session. Targets (README, Speed): a keyword query ≤ 20 µs (≤ 50 µs hybrid),
//! session build ≤ 100 µs.
//!
//! `cargo bench -p charter-tools --bench search`

use std::hint::black_box;

use charter::session::{Ranking, SessionOptions, Source, ToolSession};
use criterion::{Criterion, criterion_group, criterion_main};

fn sources() -> Vec<Source> {
    charter::packs::ALL
        .iter()
        .map(|t| Source::Table(t))
        .collect()
}

fn session(ranking: Ranking) -> ToolSession {
    ToolSession::with_options(sources(), SessionOptions::new().with_ranking(ranking))
        .expect("the shipped packs make a session")
}

/// Queries of the retrieval set's kinds: short, with synonyms, cross-service, `+pack`.
const QUERIES: [&str; 6] = [
    "open a PR",
    "refund a payment",
    "sprint progress",
    "list messages",
    "scrape a web page",
    "+stripe cancel subscription",
];

fn bench(c: &mut Criterion) {
    let tools: usize = charter::packs::ALL.iter().map(|t| t.tools.len()).sum();
    eprintln!("{} packs, {tools} tools", charter::packs::ALL.len());
    let mut group = c.benchmark_group(format!("search_{tools}_tools"));
    for ranking in [Ranking::Relevance, Ranking::Hybrid, Ranking::Classic] {
        let s = session(ranking);
        for query in QUERIES {
            group.bench_function(format!("{}/{query}", ranking.name()), |b| {
                b.iter(|| {
                    let answer = s.search(black_box(query), None);
                    s.reset();
                    answer
                })
            });
        }
        group.bench_function(
            format!("{}/first_query_of_a_new_session", ranking.name()),
            |b| {
                b.iter(|| {
                    let fresh = session(ranking);
                    fresh
                        .search(black_box("refund a payment"), None)
                        .loaded
                        .len()
                })
            },
        );
    }
    group.bench_function("build_session", |b| {
        b.iter(|| session(black_box(Ranking::Relevance)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
