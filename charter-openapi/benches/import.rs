//! Import speed on the vendored OpenAPI documents (`openapi/*.json.gz` at the repository root):
//! `cargo bench -p charter-openapi --bench import`.

use charter_openapi::{ImportOptions, import};
use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("openapi_import");
    group.sample_size(10);
    for (file, label) in [
        ("github.json", "github"),
        ("stripe.json", "stripe"),
        ("slack.json", "slack"),
    ] {
        let text = charter_testkit::openapi::read(file);
        let options = ImportOptions::new(label);
        group.bench_function(file, |b| {
            b.iter(|| import(std::hint::black_box(&text), &options).expect("imports"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
