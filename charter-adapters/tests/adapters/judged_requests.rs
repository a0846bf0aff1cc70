//! Each loop's request body judged by the providers' own code (docs/dialects.md): `openai::run`
//! (strict, and with strict mode off), `anthropic::run` (also in its deferred mode, and with
//! strict tool use) and
//! `gemini::run` run over four shipped packs (github, linear, notion, stripe: the ten tools whose
//! groups once sat at the schema's root among them) against the scripted model servers on
//! 127.0.0.1, eagerly and after ToolSearch has loaded those ten; every tool definition in the
//! bodies the servers received goes, exactly as sent, to the judges of `charter_testkit::judge`
//! (openai-agents' `ensure_strict_json_schema` on an OpenAI strict definition, anthropic's
//! `transform_schema` on an Anthropic strict one, google-genai's
//! `types.FunctionDeclaration`, the SDKs' request types, each API's root rules).

use crate::support;

use std::collections::BTreeSet;

use charter::table::Table;
use charter_adapters::{Stop, anthropic, gemini, openai};
use charter_runtime::session::{SessionOptions, Source, TOOL_SEARCH, ToolSession};
use charter_runtime::{Dialect, Disclosure};
use charter_testkit::judge::{self, Verdict};
use serde_json::{Value, json};
use support::*;

/// The ten tools whose groups the portable form moved below the root.
const NAMED: [&str; 10] = [
    "github_pulls_request_reviewers",
    "github_pages_create",
    "github_pages_update",
    "github_gists_update",
    "linear_reactions_create",
    "linear_customer_needs_create",
    "linear_notifications_mark_read",
    "linear_notifications_mark_unread",
    "linear_favorites_create",
    "notion_comments_create",
];

const PACKS: [&Table; 4] = [
    &charter::packs::github::TOOLS,
    &charter::packs::linear::TOOLS,
    &charter::packs::notion::TOOLS,
    &charter::packs::stripe::TOOLS,
];

fn session(packs: &[&'static Table], disclosure: Disclosure, dialect: Dialect) -> ToolSession {
    ToolSession::with_options(
        packs.iter().map(|t| Source::Table(t)).collect(),
        SessionOptions::new()
            .with_disclosure(disclosure)
            .with_dialect(dialect),
    )
    .unwrap()
}

/// A progressive run first loads the ten with ToolSearch; then (as an eager run at once) the
/// model answers.
fn script(wire: Wire, progressive: bool) -> Vec<Reply> {
    let select = json!({"query": format!("select:{}", NAMED.join(","))});
    let mut replies = Vec::new();
    if progressive {
        replies.push(calls_in(wire, &[("call_1", TOOL_SEARCH, select)]));
    }
    replies.push(text_in(wire, "done"));
    replies
}

/// What the user asks in every run.
const ASK: &str = "Request reviewers on octo/hello#7.";

/// A model server speaking `wire` that answers [`script`].
async fn start(wire: Wire, progressive: bool) -> ScriptedServer {
    ScriptedServer::start(wire, None, script(wire, progressive)).await
}

/// What one run sent: the body of its last request (the widest tool list).
struct Sent {
    label: &'static str,
    body: Value,
}

async fn finish(label: &'static str, server: ScriptedServer, stop: Stop) -> Sent {
    assert_eq!(stop, Stop::End, "{label}");
    assert_eq!(server.unused(), 0, "{label}: every scripted reply used");
    let body = server.requests().pop().expect("a request").body;
    Sent { label, body }
}

async fn openai_run(
    label: &'static str,
    disclosure: Disclosure,
    dialect: Dialect,
    options: openai::Options,
) -> Sent {
    let server = start(Wire::OpenAi, disclosure != Disclosure::Eager).await;
    let client = openai::OpenAiClient::new(&server.base_url(), None).unwrap();
    let messages = [openai::ChatMessage::user(ASK)];
    let session = session(&PACKS, disclosure, dialect);
    let result = openai::run(
        &client,
        "gpt-scripted",
        &messages,
        &session,
        &context(label),
        &options,
    )
    .await
    .unwrap();
    finish(label, server, result.stop).await
}

async fn anthropic_run(label: &'static str, disclosure: Disclosure, deferred: bool) -> Sent {
    let options = anthropic::Options::default().with_deferred(deferred);
    anthropic_run_in(label, disclosure, Dialect::Anthropic, options).await
}

async fn anthropic_run_in(
    label: &'static str,
    disclosure: Disclosure,
    dialect: Dialect,
    options: anthropic::Options,
) -> Sent {
    let server = start(
        Wire::Anthropic,
        disclosure != Disclosure::Eager && !options.deferred,
    )
    .await;
    let client = anthropic::AnthropicClient::new(&server.base_url(), None).unwrap();
    let messages = [anthropic::Message::user(ASK)];
    let session = session(&PACKS, disclosure, dialect);
    let result = anthropic::run(
        &client,
        "claude-scripted",
        &messages,
        &session,
        &context(label),
        &options,
    )
    .await
    .unwrap();
    finish(label, server, result.stop).await
}

async fn gemini_run(label: &'static str, disclosure: Disclosure) -> Sent {
    let server = start(Wire::Gemini, disclosure != Disclosure::Eager).await;
    let client = gemini::GeminiClient::new(&server.base_url(), None).unwrap();
    let contents = [gemini::Content::user(ASK)];
    let session = session(&PACKS, disclosure, Dialect::Gemini);
    let options = gemini::Options::default();
    let result = gemini::run(
        &client,
        "gemini-scripted",
        &contents,
        &session,
        &context(label),
        &options,
    )
    .await
    .unwrap();
    finish(label, server, result.stop).await
}

/// Every tool definition of each body, as judge entries grouped by the run's label.
fn entries(runs: &[Sent]) -> Vec<Value> {
    let mut out = Vec::new();
    for run in runs {
        for mut e in judge::sent_entries(&run.body) {
            e["group"] = json!(run.label);
            out.push(e);
        }
    }
    out
}

fn run_judges(entries: &[Value], tag: &str) -> std::collections::BTreeMap<String, Verdict> {
    let scratch = std::env::temp_dir().join(format!(
        "charter-judged-requests-{tag}-{}.json",
        std::process::id()
    ));
    let verdicts = judge::judge(entries, &scratch);
    let _ = std::fs::remove_file(&scratch);
    verdicts
}

#[tokio::test]
async fn every_loops_request_body_is_accepted_by_the_providers_judges() {
    use Disclosure::{Eager, ListChanged};
    let runs = [
        // Four packs eager are more tools than OpenAI's API takes in one request (the loop
        // refuses them by default: tests/openai.rs); the definitions are what is judged here.
        openai_run(
            "openai strict, eager",
            Eager,
            Dialect::OpenAiStrict,
            openai::Options::default().with_max_tools(None),
        )
        .await,
        openai_run(
            "openai strict, progressive",
            ListChanged,
            Dialect::OpenAiStrict,
            Default::default(),
        )
        .await,
        openai_run(
            "openai, eager",
            Eager,
            Dialect::OpenAi,
            openai::Options::default().with_max_tools(None),
        )
        .await,
        openai_run(
            "openai strict text, strict off, progressive",
            ListChanged,
            Dialect::OpenAiStrict,
            openai::Options::default().with_strict(false),
        )
        .await,
        anthropic_run("anthropic, eager", Eager, false).await,
        anthropic_run("anthropic, progressive", ListChanged, false).await,
        anthropic_run("anthropic, deferred", ListChanged, true).await,
        anthropic_run_in(
            "anthropic strict, eager",
            Eager,
            Dialect::AnthropicStrict,
            anthropic::Options::default().with_strict(true),
        )
        .await,
        anthropic_run_in(
            "anthropic strict, progressive",
            ListChanged,
            Dialect::AnthropicStrict,
            anthropic::Options::default().with_strict(true),
        )
        .await,
        anthropic_run_in(
            "anthropic strict, deferred",
            ListChanged,
            Dialect::AnthropicStrict,
            anthropic::Options::default()
                .with_strict(true)
                .with_deferred(true),
        )
        .await,
        anthropic_run_in(
            "anthropic strict text, strict off, progressive",
            ListChanged,
            Dialect::AnthropicStrict,
            anthropic::Options::default(),
        )
        .await,
        gemini_run("gemini, eager", Eager).await,
        gemini_run("gemini, progressive", ListChanged).await,
    ];
    let entries = entries(&runs);
    let pack_tools: usize = PACKS.iter().map(|t| t.tools.len()).sum();
    for run in &runs {
        let sent: Vec<&Value> = entries.iter().filter(|e| e["group"] == run.label).collect();
        let names: BTreeSet<&str> = sent.iter().filter_map(|e| e["name"].as_str()).collect();
        for name in NAMED {
            assert!(names.contains(name), "{}: {name} not sent", run.label);
        }
        let loaded = if run.label.ends_with("progressive") {
            NAMED.len()
        } else {
            pack_tools
        };
        let from_packs = sent.iter().filter(|e| e["name"] != TOOL_SEARCH).count();
        assert_eq!(
            from_packs, loaded,
            "{}: every tool of the session sent",
            run.label
        );
        // Strict mode on: every pack tool goes with `"strict": true` (judged as openai-strict);
        // off, or in the portable dialect, none does.
        let strict = sent
            .iter()
            .filter(|e| e["dialect"] == "openai-strict")
            .count();
        let expect = if run.label.starts_with("openai strict,") {
            loaded
        } else {
            0
        };
        assert_eq!(strict, expect, "{}: strict definitions", run.label);
        // Anthropic's strict tool use: every pack tool goes with `"strict": true` (judged by
        // `transform_schema`) but those that reach a recursive type (`$defs`, served in the
        // portable form); strict off, or in another dialect, none does.
        let anthropic_strict = sent.iter().filter(|e| e["strict"] == true).count();
        let expect = if run.label.starts_with("anthropic strict,") {
            let recursive = sent
                .iter()
                .filter(|e| e["name"] != TOOL_SEARCH && e["schema"].get("$defs").is_some())
                .count();
            assert!(recursive < loaded, "{}: some tools go strict", run.label);
            loaded - recursive
        } else {
            0
        };
        assert_eq!(
            anthropic_strict, expect,
            "{}: Anthropic strict definitions",
            run.label
        );
    }
    let verdicts = run_judges(&entries, "all");
    let mut failures = Vec::new();
    for run in &runs {
        let v = &verdicts[run.label];
        let strict = if v.strict > 0 {
            format!(" ({} sent with strict: true)", v.strict)
        } else {
            String::new()
        };
        println!(
            "{}: {}/{} tool definitions accepted{strict}",
            run.label, v.accepted, v.judged
        );
        assert!(v.judged > 0, "{}: nothing judged", run.label);
        failures.extend(v.refused.iter().map(|r| format!("{}: {r}", run.label)));
    }
    assert!(
        failures.is_empty(),
        "{} refused:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The judges can fail: the same bodies, with the groups of `notion_comments_create` put back at
/// the root as they were before the portable form, are refused on every wire, that tool only.
#[tokio::test]
async fn a_body_with_a_root_any_of_is_refused() {
    const TOOL: &str = "notion_comments_create";
    let mut runs = [
        openai_run(
            "openai strict",
            Disclosure::Eager,
            Dialect::OpenAiStrict,
            openai::Options::default().with_max_tools(None),
        )
        .await,
        anthropic_run("anthropic", Disclosure::Eager, false).await,
        gemini_run("gemini", Disclosure::Eager).await,
    ];
    let groups = json!([{"required": ["parent"]}, {"required": ["discussion_id"]}]);
    for run in &mut runs {
        let schema = find_schema(&mut run.body, TOOL);
        schema["anyOf"] = groups.clone();
    }
    let verdicts = run_judges(&entries(&runs), "mutated");
    for run in &runs {
        let v = &verdicts[run.label];
        assert_eq!(v.judged - v.accepted, 1, "{}: {:?}", run.label, v.refused);
        assert!(
            v.refused[0].starts_with(TOOL) && v.refused[0].contains("`anyOf` at the root"),
            "{}: {:?}",
            run.label,
            v.refused
        );
    }
}

/// The schema of `name` in a request body of any of the three wires.
fn find_schema<'a>(body: &'a mut Value, name: &str) -> &'a mut Value {
    let tools = body["tools"].as_array_mut().unwrap();
    if tools[0].get("functionDeclarations").is_some() {
        let d = tools[0]["functionDeclarations"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|d| d["name"] == name)
            .unwrap();
        return &mut d["parameters"];
    }
    let t = tools
        .iter_mut()
        .find(|t| t["name"] == name || t["function"]["name"] == name)
        .unwrap();
    if t.get("input_schema").is_some() {
        &mut t["input_schema"]
    } else {
        &mut t["function"]["parameters"]
    }
}
