//! What a turn costs the loop before the network: writing the request body with every visible
//! tool. Compares the splice (schemas copied from their precomputed text) with what a loop that
//! re-serialises schemas would pay (parse each schema, build the tool object, serialise).
//!
//! The Gemini loop's body is measured too (the splice alone).
//!
//! `cargo bench -p charter-adapters --bench request_body`

use charter_adapters::gemini;
use charter_adapters::openai::{self, ChatMessage};
use charter_runtime::session::{SessionOptions, Source, ToolSession};
use charter_testkit::synthetic_catalogue;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};

fn plain_session(packs: usize) -> ToolSession {
    let sources = synthetic_catalogue(packs)
        .into_iter()
        .map(Source::Table)
        .collect();
    ToolSession::with_options(
        sources,
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap()
}

fn request_body(c: &mut Criterion) {
    let messages = vec![
        ChatMessage::system("be brief"),
        ChatMessage::user("list my open issues"),
    ];
    let extra = Map::new();
    let mut group = c.benchmark_group("openai_request_body");
    for packs in [1usize, 10] {
        let session = plain_session(packs);
        let tools = session.visible();
        let bytes = openai::request_body("m", &messages, &tools, &extra).len();
        eprintln!("{} tools: {bytes} bytes of request body", tools.len());
        group.bench_with_input(
            BenchmarkId::new("splice", tools.len()),
            &tools,
            |b, tools| b.iter(|| openai::request_body("m", &messages, tools, &extra)),
        );
        group.bench_with_input(BenchmarkId::new("reserialise", tools.len()), &tools, |b, tools| {
            b.iter(|| {
                let tools: Vec<Value> = tools
                    .iter()
                    .map(|t| {
                        let parameters: Value = serde_json::from_str(t.schema).unwrap();
                        json!({"type": "function", "function": {
                            "name": t.name, "description": t.description, "parameters": parameters}})
                    })
                    .collect();
                serde_json::to_vec(&json!({"model": "m", "messages": messages, "tools": tools})).unwrap()
            })
        });
    }
    group.finish();
}

/// The Gemini loop's body: the same splice into one `functionDeclarations` list.
fn gemini_request_body(c: &mut Criterion) {
    let contents = vec![gemini::Content::user("list my open issues")];
    let extra = Map::new();
    let mut group = c.benchmark_group("gemini_request_body");
    for packs in [1usize, 10] {
        let session = plain_session(packs);
        let tools = session.visible();
        let bytes = gemini::request_body(&contents, &tools, Some("be brief"), &extra).len();
        eprintln!(
            "{} tools: {bytes} bytes of Gemini request body",
            tools.len()
        );
        group.bench_with_input(
            BenchmarkId::new("splice", tools.len()),
            &tools,
            |b, tools| b.iter(|| gemini::request_body(&contents, tools, Some("be brief"), &extra)),
        );
    }
    group.finish();
}

criterion_group!(benches, request_body, gemini_request_body);
criterion_main!(benches);
