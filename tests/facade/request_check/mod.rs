//! The independent request check (docs/request-check.md): every shipped pack whose API
//! description is vendored under `openapi/` (named in the pack's header comment) has calls
//! generated for each tool from the tool's own published schema, sent through the real
//! `HttpExecutor` to Stoplight Prism's mock server (`prism mock --errors <document>`) on
//! 127.0.0.1, which judges each request against the API's description. Form bodies (Stripe) are
//! also decoded and checked against the operation's schema, which Prism reads one level deep.
//!
//! Every violation fails the check unless `openapi/validator-quirks.yaml` lists it, with a
//! reason, as a document quirk or a validator limitation.
//!
//! Environment: `CHARTER_REQUEST_CHECK=all` runs every variant with four seeds (the default is
//! three calls per tool, one seed); `CHARTER_REQUEST_CHECK_SEED` changes the seed;
//! `CHARTER_REQUEST_CHECK_PACKS=github,stripe` limits the packs.

#![cfg(feature = "http")]

mod answers;
mod document;
mod form;
mod generate;
mod graphql;
mod mock;
mod prism;
mod quirks;
mod sdk_client;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials};
use charter::table::{Auth, Exec, Table, ToolDef};
use charter::{CallContext, SessionOptions, Source, ToolSession};
use serde_json::{Value, json};

use generate::{Gen, Variant};
use prism::{Exchange, Prism, Recorder, Violation};
use quirks::{Kind, Quirk};

const DEFAULT_SEED: u64 = 19;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The vendored description a pack names in its header comment (`openapi/<name>.json.gz`).
fn vendored_document(label: &str) -> Option<String> {
    let text = std::fs::read_to_string(root().join(format!("packs/{label}.yaml"))).ok()?;
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| {
            let start = l.find("openapi/")? + "openapi/".len();
            let end = l[start..].find(".json.gz")? + start;
            Some(l[start..end].to_owned())
        })
        .filter(|name| root().join(format!("openapi/{name}.json.gz")).is_file())
}

/// What to run.
struct Settings {
    seeds: Vec<u64>,
    variants: Vec<Variant>,
    packs: Option<Vec<String>>,
    /// How full the mocked answers are: by default each call's answer is generated in the call's
    /// own variant (only what the description requires, every member with two items a list, or
    /// nulls and empty or longer lists); `CHARTER_REQUEST_CHECK_ANSWERS=minimal|full|edge`
    /// answers every call in one.
    answers: Option<Variant>,
}

impl Settings {
    fn from_env() -> Settings {
        let all = std::env::var("CHARTER_REQUEST_CHECK").is_ok_and(|v| v == "all");
        let seed = std::env::var("CHARTER_REQUEST_CHECK_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(DEFAULT_SEED);
        let seeds = if all {
            (0..4).map(|i| seed + i).collect()
        } else {
            vec![seed]
        };
        let packs = std::env::var("CHARTER_REQUEST_CHECK_PACKS")
            .ok()
            .map(|s| s.split(',').map(str::to_owned).collect());
        let answers = match std::env::var("CHARTER_REQUEST_CHECK_ANSWERS").as_deref() {
            Ok("minimal") => Some(Variant::Minimal),
            Ok("full") => Some(Variant::Full),
            Ok("edge") => Some(Variant::Edge),
            _ => None,
        };
        Settings {
            seeds,
            variants: vec![Variant::Minimal, Variant::Full, Variant::Edge],
            packs,
            answers,
        }
    }
}

/// One violation found, with the call that caused it.
struct Found {
    tool: &'static str,
    arguments: String,
    request: String,
    violation: Violation,
}

/// One pack's run.
#[derive(Default)]
struct PackRun {
    label: &'static str,
    document: String,
    calls: usize,
    rejected: Vec<(&'static str, String, String)>,
    unexplained: Vec<Found>,
    /// Quirk index -> violations it explained.
    explained: BTreeMap<usize, usize>,
    /// The answers of tools with a declared result, to judge against it.
    answers: Vec<answers::Answer>,
    /// Tools with a declared result that answered text (the clipped text).
    untyped: Vec<(&'static str, String)>,
    /// For each answered call: the API's answer, and what the model reads of it.
    sizes: Vec<Size>,
    /// The calls with an answer to judge, made again by the SDK's client over MCP.
    replayed: Option<sdk_client::Replay>,
    replay_calls: usize,
}

/// What one answer weighs: the bytes of the API's JSON body, and of the text the model reads
/// (the tool's `response.keep` applied, then fitted to the result budget).
struct Size {
    tool: &'static str,
    raw: usize,
    read: usize,
    /// The answer was over the budget and fitted (a shorter list and how to get the rest).
    fitted: bool,
    /// The fitted text is still over the budget: the server would cut it with no continuation.
    over: bool,
}

#[test]
fn every_request_is_one_the_api_accepts() {
    let settings = Settings::from_env();
    let quirks = Arc::new(quirks::load(&root().join("openapi/validator-quirks.yaml")));
    let mut packs: Vec<(&'static Table, String)> = charter::packs::ALL
        .iter()
        .filter(|t| {
            settings
                .packs
                .as_ref()
                .is_none_or(|p| p.iter().any(|l| l == t.pack))
        })
        .filter_map(|t| vendored_document(t.pack).map(|d| (*t, d)))
        .collect();
    assert!(!packs.is_empty(), "no pack with a vendored description");
    // The biggest documents first: they take longest to load.
    packs.sort_by_key(|(t, _)| std::cmp::Reverse(t.tools.len()));
    let prefix = prism::install();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let settings = Arc::new(settings);
    let runs: Vec<PackRun> = runtime.block_on(async {
        // Two packs at a time: Prism is one Node process per document, and CI has two cores.
        let gate = Arc::new(tokio::sync::Semaphore::new(2));
        let mut tasks = Vec::new();
        for (table, document) in packs {
            let (gate, prefix, quirks, settings) = (
                gate.clone(),
                prefix.clone(),
                quirks.clone(),
                settings.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let _permit = gate.acquire().await.unwrap();
                run_pack(&prefix, table, document, &quirks, &settings).await
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.expect("a pack run"));
        }
        out
    });
    let dir = root().join("target/request-check");
    std::fs::create_dir_all(&dir).unwrap();
    let all: Vec<&answers::Answer> = runs.iter().flat_map(|r| &r.answers).collect();
    let (checked, invalid) = answers::judge(&all, &charter_testkit::npm::node(&prefix), &dir);
    let mut report = summary(&runs, &quirks);
    let _ = writeln!(
        report,
        "answers judged by the MCP SDK's validator against each tool's outputSchema: {checked}, invalid: {}",
        invalid.len()
    );
    for (tool, why) in invalid.iter().take(200) {
        let _ = writeln!(report, "INVALID ANSWER {tool}: {}", clip(why, 400));
    }
    let sizes: Vec<&Size> = runs.iter().flat_map(|r| &r.sizes).collect();
    let _ = writeln!(report, "{}", size_report(&sizes));
    let over: Vec<&str> = sizes.iter().filter(|s| s.over).map(|s| s.tool).collect();
    for tool in &over {
        let _ = writeln!(
            report,
            "OVER BUDGET {tool}: fitted answer still over, no continuation"
        );
    }
    for r in &runs {
        if let Some(replay) = &r.replayed {
            let _ = writeln!(
                report,
                "SDK client over MCP, {}: {} tools listed, {} of {} calls answered, {} refused",
                r.label,
                replay.listed,
                replay.called,
                r.replay_calls,
                replay.failures.len()
            );
            for (tool, why) in replay.failures.iter().take(50) {
                let _ = writeln!(report, "SDK CLIENT REFUSED {tool}: {}", clip(why, 400));
            }
        }
    }
    for r in &runs {
        for (tool, text) in &r.untyped {
            let _ = writeln!(
                report,
                "TEXT ANSWER {tool} (a result schema promised JSON): {}",
                clip(text, 200)
            );
        }
    }
    std::fs::write(dir.join("summary.txt"), &report).unwrap();
    println!("{report}");
    let failures: usize = runs
        .iter()
        .map(|r| r.unexplained.len() + r.rejected.len())
        .sum();
    assert_eq!(
        failures, 0,
        "{failures} request(s) the API would refuse or the session refused (see above; a \
         violation that is not this project's goes in openapi/validator-quirks.yaml)"
    );
    let untyped: usize = runs.iter().map(|r| r.untyped.len()).sum();
    assert!(checked > 0, "no answer was judged against a result schema");
    assert!(
        over.is_empty(),
        "answers over the result budget without a continuation: {over:?}"
    );
    assert_eq!(
        (invalid.len(), untyped),
        (0, 0),
        "answers that do not match their tool's outputSchema, or text where it promised JSON (see above)"
    );
    let refused: usize = runs
        .iter()
        .filter_map(|r| r.replayed.as_ref())
        .map(|r| r.failures.len())
        .sum();
    let unanswered: Vec<&str> = runs
        .iter()
        .filter(|r| {
            r.replayed
                .as_ref()
                .is_none_or(|p| p.called != r.replay_calls)
        })
        .map(|r| r.label)
        .collect();
    assert_eq!(
        (refused, unanswered),
        (0, Vec::<&str>::new()),
        "the SDK's client over MCP refused answers, or did not make every call (see above)"
    );
}

async fn run_pack(
    prefix: &Path,
    table: &'static Table,
    document: String,
    quirks: &[Quirk],
    settings: &Settings,
) -> PackRun {
    let doc_text = read_document(&document);
    let dir = root().join("target/request-check");
    std::fs::create_dir_all(&dir).unwrap();
    let doc_path = dir.join(format!("{document}.json"));
    let doc: Value = serde_json::from_str(&doc_text).expect("a JSON document");
    std::fs::write(&doc_path, document::for_requests(&doc).to_string()).unwrap();
    let mut run = PackRun {
        label: table.pack,
        document,
        ..PackRun::default()
    };
    let prism = match Prism::start(prefix, &doc_path).await {
        Ok(prism) => prism,
        Err(e) => {
            run.rejected.push((table.pack, String::new(), e));
            return run;
        }
    };
    let recorder = Recorder::start(&prism.base).await;
    let local = local_prefix(table, &doc);
    let http = executor(table, &format!("{}{}", recorder.base, local));
    let session = session(table, http.clone());
    let mut again = Vec::new();
    let ctx = CallContext::new();
    for tool in table
        .tools
        .iter()
        .filter(|t| matches!(t.exec, Exec::Http(_)))
    {
        let schema = with_root_groups(tool);
        for &seed in &settings.seeds {
            for (i, &variant) in settings.variants.iter().enumerate() {
                let mut generator = Gen::new(&schema, variant, mix(seed, tool.name, i));
                let arguments = generator.value(&schema, 0);
                let shown = clip(&arguments.to_string(), 400);
                run.calls += 1;
                let mut raw = None;
                if let Exec::Http(route) = tool.exec {
                    let path = format!("{}{}", local, route.path);
                    let seed = mix(seed, tool.name, i + 100);
                    let kind = settings.answers.unwrap_or(variant);
                    let body = mock::answer(&doc, route.method.as_str(), &path, seed, kind);
                    // The byte figures are over full answers, the typical ones.
                    raw = body
                        .as_ref()
                        .filter(|_| kind == Variant::Full)
                        .map(|b| b.to_string().len());
                    recorder.answer_next(body);
                }
                let outcome = session.dispatch(tool.name, arguments.clone(), &ctx).await;
                // What an MCP server sends: the answer fitted to the result budget.
                let budget = charter::budget::DEFAULT_RESULT_BUDGET;
                let fitted = outcome
                    .as_ref()
                    .ok()
                    .map(|out| session.fit(tool.name, &arguments, out.clone(), budget));
                if let (Some(raw), Some(out), Some(fitted)) = (raw, outcome.as_ref().ok(), &fitted)
                {
                    run.sizes.push(Size {
                        tool: tool.name,
                        raw,
                        read: fitted.text.len(),
                        fitted: fitted.text.len() != out.text.len(),
                        over: fitted.text.len() > budget,
                    });
                }
                match fitted.as_ref().and_then(|out| answers::answer(tool, out)) {
                    Some(Ok(answer)) => {
                        again.push(sdk_client::Call {
                            tool: tool.name,
                            arguments: arguments.clone(),
                        });
                        run.answers.push(answer)
                    }
                    Some(Err(text)) => run.untyped.push((tool.name, text)),
                    None => {}
                }
                let exchanges = recorder.take();
                if exchanges.is_empty() {
                    let why = outcome
                        .err()
                        .map_or("no request sent".into(), |e| e.to_string());
                    run.rejected.push((tool.name, shown, why));
                    continue;
                }
                for x in &exchanges {
                    for v in judge(&doc, x) {
                        match quirks
                            .iter()
                            .position(|q| q.matches(table.pack, tool.name, &v))
                        {
                            Some(q) => *run.explained.entry(q).or_default() += 1,
                            None => run.unexplained.push(Found {
                                tool: tool.name,
                                arguments: shown.clone(),
                                request: request_line(x),
                                violation: v,
                            }),
                        }
                    }
                }
            }
        }
    }
    run.replay_calls = again.len();
    let node = charter_testkit::npm::node(prefix);
    run.replayed = Some(sdk_client::replay(table, http, &again, &node, &dir).await);
    prism.stop().await;
    run
}

/// Prism's violations, plus the form check's for a form body.
/// The tool's default view as the generator reads it: the portable form tells a tool's own
/// groups in the root's `description` (no combinator at the root, docs/design.md §3), so they are
/// put back as JSON Schema's `anyOf` / `oneOf` of `required` lists, which the generator fills.
fn with_root_groups(tool: &ToolDef) -> Value {
    let mut schema: Value = serde_json::from_str(tool.views[0].schema).unwrap();
    for (key, groups) in [
        ("anyOf", tool.require_one_of),
        ("oneOf", tool.require_exactly_one_of),
    ] {
        if !groups.is_empty() {
            let list: Vec<Value> = groups.iter().map(|g| json!({ "required": g })).collect();
            schema[key] = Value::Array(list);
        }
    }
    schema
}

fn judge(doc: &Value, x: &Exchange) -> Vec<Violation> {
    let mut found = prism::violations(x);
    if x.content_type
        .starts_with("application/x-www-form-urlencoded")
        && let Some(op) = form::operation(doc, &x.method, &x.path)
    {
        for mut v in form::check(doc, op, &x.body) {
            v.code = format!("form-{}", v.code);
            found.push(v);
        }
    }
    found
}

/// A non-progressive session over `table` with its base URL at `base` and a made-up credential.
/// The executor the check's calls go through: the pack's credentials (a stand-in token), its
/// base URL the recorder's.
fn executor(table: &'static Table, base: &str) -> Arc<HttpExecutor> {
    let mut creds = StaticCredentials::new();
    let auth = table.tools.iter().find_map(|t| match t.exec {
        Exec::Http(route) => Some(route.pack.auth),
        Exec::Rust(_) => None,
    });
    if let Some(env) = auth.as_ref().and_then(Auth::env) {
        creds = creds.with(env, "charter-request-check-token");
    }
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(creds)
        .base_url(table.pack, base)
        .build()
        .unwrap();
    Arc::new(http)
}

fn session(table: &'static Table, http: Arc<HttpExecutor>) -> ToolSession {
    ToolSession::with_options(
        vec![Source::Table(table)],
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(http),
    )
    .unwrap()
}

/// The part of the pack's base path that the document's server URL does not already hold
/// (the documents' paths are relative to their first server).
fn local_prefix(table: &Table, doc: &Value) -> String {
    let base = table
        .tools
        .iter()
        .find_map(|t| match t.exec {
            Exec::Http(route) => Some(route.pack.base_url),
            Exec::Rust(_) => None,
        })
        .unwrap_or_default();
    let path_of = |url: &str| {
        reqwest::Url::parse(url)
            .map(|u| u.path().trim_end_matches('/').to_owned())
            .unwrap_or_default()
    };
    let server = doc["servers"][0]["url"]
        .as_str()
        .map(path_of)
        .unwrap_or_default();
    let pack = path_of(base);
    pack.strip_prefix(&server).unwrap_or(&pack).to_owned()
}

fn request_line(x: &Exchange) -> String {
    let body = String::from_utf8_lossy(&x.body);
    let mut line = format!("{} {}", x.method, clip(&x.target, 300));
    if !body.is_empty() {
        let _ = write!(line, " body {}", clip(&body, 400));
    }
    line
}

/// A per-call seed: the run's seed, the tool, the variant.
fn mix(seed: u64, tool: &str, variant: usize) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in tool.bytes().chain([variant as u8]) {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The reduction (1 - read / raw) over every answer: median, 95th percentile and the total, and
/// the sizes read at the median and at the largest.
fn size_report(sizes: &[&Size]) -> String {
    if sizes.is_empty() {
        return "result bytes: no answer measured".into();
    }
    let mut cuts: Vec<f64> = sizes
        .iter()
        .map(|s| 1.0 - s.read as f64 / s.raw.max(1) as f64)
        .collect();
    cuts.sort_by(f64::total_cmp);
    let at = |q: f64| cuts[((cuts.len() - 1) as f64 * q).round() as usize] * 100.0;
    let raw: usize = sizes.iter().map(|s| s.raw).sum();
    let read: usize = sizes.iter().map(|s| s.read).sum();
    let mut reads: Vec<usize> = sizes.iter().map(|s| s.read).collect();
    reads.sort_unstable();
    format!(
        "result bytes over {} answers: raw {raw}, read {read} ({:.1} % fewer); reduction per \
         answer median {:.1} %, p95 {:.1} %; read bytes median {}, max {}; fitted to the \
         budget with a continuation: {}; over the budget without one: {}",
        sizes.len(),
        (1.0 - read as f64 / raw.max(1) as f64) * 100.0,
        at(0.5),
        at(0.95),
        reads[reads.len() / 2],
        reads[reads.len() - 1],
        sizes.iter().filter(|s| s.fitted).count(),
        sizes.iter().filter(|s| s.over).count()
    )
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        text.chars().take(max).chain("...".chars()).collect()
    }
}

fn summary(runs: &[PackRun], quirks: &[Quirk]) -> String {
    let mut out = String::from("request check (Prism --errors, form decoder)\n");
    let _ = writeln!(
        out,
        "{:<12} {:<18} {:>6} {:>9} {:>10} {:>9}",
        "pack", "document", "calls", "refused", "violations", "quirks"
    );
    let mut used: BTreeMap<usize, usize> = BTreeMap::new();
    for r in runs {
        let quirked: usize = r.explained.values().sum();
        for (q, n) in &r.explained {
            *used.entry(*q).or_default() += n;
        }
        let _ = writeln!(
            out,
            "{:<12} {:<18} {:>6} {:>9} {:>10} {:>9}",
            r.label,
            r.document,
            r.calls,
            r.rejected.len(),
            r.unexplained.len(),
            quirked
        );
    }
    let total: usize = runs.iter().map(|r| r.calls).sum();
    let _ = writeln!(out, "calls: {total}");
    for (q, n) in &used {
        let quirk = &quirks[*q];
        let kind = match quirk.kind {
            Kind::Document => "document",
            Kind::Validator => "validator",
            Kind::Open => "OPEN, this project's",
        };
        let _ = writeln!(
            out,
            "quirk ({kind}) {} {}: {n} violation(s): {}",
            quirk.pack,
            quirk.tool.as_deref().unwrap_or("*"),
            clip(&quirk.reason, 100)
        );
    }
    for (i, q) in quirks.iter().enumerate() {
        if !used.contains_key(&i) && runs.iter().any(|r| r.label == q.pack) {
            let _ = writeln!(out, "quirk not met this run: {} {:?}", q.pack, q.tool);
        }
    }
    let mut shown = 0;
    for r in runs {
        for (tool, args, why) in &r.rejected {
            if shown < 2000 {
                let _ = writeln!(out, "REFUSED {tool} {args}\n  {}", clip(why, 300));
            }
            shown += 1;
        }
        for f in &r.unexplained {
            if shown < 2000 {
                let v = &f.violation;
                let _ = writeln!(
                    out,
                    "VIOLATION {} [{}] {} {}\n  args {}\n  sent {}",
                    f.tool, v.code, v.location, v.message, f.arguments, f.request
                );
            }
            shown += 1;
        }
    }
    out
}

/// The text of a vendored document (`openapi/<name>.json.gz`).
fn read_document(name: &str) -> String {
    charter_testkit::openapi::read(&format!("{name}.json"))
}
