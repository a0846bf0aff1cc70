//! Import speed on the shared OpenAPI documents (`/work/shared/openapi/`, or
//! `$CHARTER_OPENAPI_DIR`): `cargo bench -p charter-build --bench openapi`.

use std::path::PathBuf;

use charter_build::openapi::{ImportOptions, import};
use criterion::{Criterion, criterion_group, criterion_main};

fn dir() -> PathBuf {
    std::env::var_os("CHARTER_OPENAPI_DIR")
        .map_or_else(|| PathBuf::from("/work/shared/openapi"), PathBuf::from)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("openapi_import");
    group.sample_size(10);
    for (file, label) in [
        ("github.json", "github"),
        ("stripe.json", "stripe"),
        ("slack.json", "slack"),
    ] {
        let Ok(text) = std::fs::read_to_string(dir().join(file)) else {
            eprintln!("{file} not found; skipped");
            continue;
        };
        let options = ImportOptions::new(label);
        group.bench_function(file, |b| {
            b.iter(|| import(std::hint::black_box(&text), &options).expect("imports"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
