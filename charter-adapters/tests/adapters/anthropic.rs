//! The Anthropic Messages loop against a scripted Messages server on 127.0.0.1, including the
//! deferred mode's `defer_loading` tools and `tool_reference` results.

use crate::support;

use charter_adapters::anthropic::{
    self, AnthropicClient, ContentBlock, Message, MessageContent, Options, ResultBlock, Role,
};
use charter_adapters::{Error, Stop};
use charter_runtime::session::{TOOL_SEARCH, ToolSession};
use serde_json::{Value, json};
use support::*;

const KEY: &str = "sk-ant-test-0123456789";

async fn server(replies: Vec<Reply>) -> (ScriptedServer, AnthropicClient) {
    let server = ScriptedServer::start(Wire::Anthropic, Some(KEY), replies).await;
    let client = AnthropicClient::new(&server.base_url(), Some(KEY)).unwrap();
    (server, client)
}

fn progressive() -> ToolSession {
    ToolSession::new(&[&DEMO]).unwrap()
}

/// `(tool_use_id, blocks, is_error)` of every tool_result in the transcript, in order.
fn tool_results(messages: &[Message]) -> Vec<(String, Vec<ResultBlock>, bool)> {
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .filter_map(|m| match &m.content {
            MessageContent::Blocks(blocks) => Some(blocks),
            MessageContent::Text(_) => None,
        })
        .flatten()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => Some((tool_use_id.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn text_of(blocks: &[ResultBlock]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            ResultBlock::Text(t) => t.clone(),
            other => panic!("expected text, got {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn progressive_turns_extend_the_tool_list_and_keep_its_prefix() {
    let (server, client) = server(vec![
        anthropic_calls(&[(
            "toolu_1",
            TOOL_SEARCH,
            json!({"query": "select:demo_weather,demo_time"}),
        )]),
        anthropic_calls(&[
            ("toolu_2", "demo_weather", json!({"city": "Paris"})),
            ("toolu_3", "demo_time", json!({"zone": "UTC"})),
        ]),
        anthropic_text("Sunny in Paris, noon in UTC."),
    ])
    .await;
    let session = progressive();
    let ctx = context("anthropic-progressive");
    let input = vec![Message::user("weather and time?")];
    let options = Options::default()
        .with_system("be brief")
        .with_max_tokens(512);
    let result = anthropic::run(&client, "claude-scripted", &input, &session, &ctx, &options)
        .await
        .unwrap();

    assert_eq!(result.stop, Stop::End);
    assert_eq!(result.turns, 3);
    assert_eq!(result.content, "Sunny in Paris, noon in UTC.");
    assert_eq!(result.messages[0], input[0]);
    assert_eq!(
        result.messages.len(),
        6,
        "user, assistant, user(results), assistant, user(results), assistant"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.headers["x-api-key"], KEY);
        assert_eq!(r.headers["anthropic-version"], "2023-06-01");
        assert_eq!(r.body["system"], "be brief");
        assert_eq!(r.body["max_tokens"], 512);
        assert_eq!(r.body["model"], "claude-scripted");
    }
    assert_list_extends(&requests);
    assert!(requests[1].raw.contains(&format!(
        r#""input_schema":{}}}"#,
        schema_of("demo_weather")
    )));
    assert!(
        requests.iter().all(|r| !r.raw.contains("defer_loading")),
        "no deferred loading unless asked"
    );

    let results = tool_results(&result.messages);
    assert_eq!(
        results.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["toolu_1", "toolu_2", "toolu_3"]
    );
    assert!(text_of(&results[0].1).contains("demo_weather"));
    let weather: Value = serde_json::from_str(&text_of(&results[1].1)).unwrap();
    assert_eq!(weather["forecast"], "sunny in Paris");
    assert_eq!(text_of(&results[2].1), "12:00 in UTC");
    assert!(results.iter().all(|r| !r.2));
    // Both results of turn 2 went back in one user message, in order.
    let last_user = &requests[2].body["messages"][4];
    assert_eq!(last_user["role"], "user");
    let ids: Vec<&str> = last_user["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["toolu_2", "toolu_3"]);
    assert!(
        activity("anthropic-progressive").max_in_flight >= 2,
        "a safe batch runs concurrently"
    );
}

#[tokio::test]
async fn parallel_tool_use_keeps_order_and_marks_errors() {
    let (server, client) = server(vec![
        anthropic_calls(&[(
            "s",
            TOOL_SEARCH,
            json!({"query": "select:demo_weather,demo_fail"}),
        )]),
        anthropic_calls(&[
            ("a", "demo_weather", json!({"city": "Oslo"})),
            ("b", "demo_fail", json!({"why": "test"})),
            ("c", "demo_weather", json!({"city": "Oslo"})),
        ]),
        anthropic_text("done"),
    ])
    .await;
    let session = progressive();
    let ctx = context("anthropic-parallel");
    let result = anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    let results = tool_results(&result.messages);
    assert_eq!(
        results.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["s", "a", "b", "c"]
    );
    assert!(!results[1].2);
    assert!(results[2].2, "a failing tool is an error result");
    assert!(text_of(&results[2].1).contains("the backend said boom"));
    assert_eq!(results[3].1, results[1].1);
    assert_eq!(
        activity("anthropic-parallel").calls.len(),
        2,
        "the repeated call ran once"
    );
    let sent = &server.requests()[2].body["messages"][4]["content"];
    assert_eq!(sent[1]["is_error"], true);
    assert!(sent[0].get("is_error").is_none());
}

#[tokio::test]
async fn an_unloaded_tool_gets_the_select_hint() {
    let (_server, client) = server(vec![
        anthropic_calls(&[("x", "demo_time", json!({"zone": "UTC"}))]),
        anthropic_text("ok"),
    ])
    .await;
    let session = progressive();
    let ctx = context("anthropic-unloaded");
    let result = anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    let results = tool_results(&result.messages);
    assert!(results[0].2);
    assert!(
        text_of(&results[0].1).contains("select:demo_time"),
        "{:?}",
        results[0].1
    );
    assert!(activity("anthropic-unloaded").calls.is_empty());
}

#[tokio::test]
async fn max_turns_stops_the_loop() {
    let (server, client) = server(vec![
        anthropic_calls(&[("a", TOOL_SEARCH, json!({"query": "weather"}))]),
        anthropic_text("unused"),
    ])
    .await;
    let result = anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &progressive(),
        &context("anthropic-max"),
        &Options::default().with_max_turns(1),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::MaxTurns);
    assert_eq!(result.turns, 1);
    assert_eq!(result.content, "Let me check.");
    assert_eq!(server.requests().len(), 1);
    assert_eq!(result.messages.last().unwrap().role, Role::User);
}

#[tokio::test]
async fn deferred_mode_sends_every_tool_deferred_and_answers_with_tool_references() {
    let (server, client) = server(vec![
        anthropic_calls(&[(
            "s1",
            TOOL_SEARCH,
            json!({"query": "select:demo_weather,demo_time"}),
        )]),
        anthropic_calls(&[
            ("w", "demo_weather", json!({"city": "Cairo"})),
            ("s2", TOOL_SEARCH, json!({"query": "zzzz"})),
        ]),
        anthropic_text("Sunny in Cairo."),
    ])
    .await;
    let session = progressive();
    let ctx = context("anthropic-deferred");
    let options = Options::default().with_deferred(true);
    let result = anthropic::run(
        &client,
        "m",
        &[Message::user("weather in Cairo?")],
        &session,
        &ctx,
        &options,
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    assert_eq!(result.content, "Sunny in Cairo.");

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // Every turn: ToolSearch (not deferred), then every tool of the session, deferred, in declaration order.
    let expected = [
        TOOL_SEARCH,
        "demo_weather",
        "demo_time",
        "demo_note",
        "demo_fail",
    ];
    for r in &requests {
        assert_eq!(r.tool_names(), expected);
        let tools = r.body["tools"].as_array().unwrap();
        assert!(
            tools[0].get("defer_loading").is_none(),
            "ToolSearch is never deferred"
        );
        assert!(
            tools[1..].iter().all(|t| t["defer_loading"] == true),
            "{tools:?}"
        );
    }
    // The whole tool list is byte-identical across turns: the cached prefix survives.
    assert_eq!(requests[1].raw_tools(), requests[0].raw_tools());
    assert_eq!(requests[2].raw_tools(), requests[0].raw_tools());
    let entries = requests[0].raw_tool_entries();
    assert_eq!(
        entries[1],
        format!(
            r#"{{"name":"demo_weather","description":"weather forecast for a city","input_schema":{},"defer_loading":true}}"#,
            schema_of("demo_weather")
        )
    );

    // ToolSearch answered with one tool_reference block per loaded tool.
    let turn2_results = &requests[1].body["messages"][2]["content"];
    assert_eq!(
        turn2_results,
        &json!([{"type": "tool_result", "tool_use_id": "s1", "content": [
            {"type": "tool_reference", "tool_name": "demo_weather"},
            {"type": "tool_reference", "tool_name": "demo_time"}
        ]}])
    );
    // The loaded tool ran; a search that loaded nothing answers with its text.
    let results = tool_results(&result.messages);
    assert_eq!(
        results.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["s1", "w", "s2"]
    );
    assert!(text_of(&results[1].1).contains("sunny in Cairo"));
    assert!(
        matches!(results[2].1.as_slice(), [ResultBlock::Text(_)]),
        "{:?}",
        results[2].1
    );
    assert_eq!(
        activity("anthropic-deferred").calls,
        [("demo_weather".to_owned(), json!({"city": "Cairo"}))]
    );
}

#[tokio::test]
async fn a_non_2xx_from_the_model_server_is_an_error() {
    let server = ScriptedServer::start(
        Wire::Anthropic,
        None,
        vec![Reply::Status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.into(),
        )],
    )
    .await;
    let client = AnthropicClient::new(&server.base_url(), Some(KEY)).unwrap();
    let err = anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &progressive(),
        &context("anthropic-529"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 529, body, .. } if body.contains("Overloaded")),
        "{err:?}"
    );

    let server = ScriptedServer::start(
        Wire::Anthropic,
        None,
        vec![Reply::Json(
            json!({"type": "error", "error": {"type": "api_error", "message": "boom"}}),
        )],
    )
    .await;
    let client = AnthropicClient::new(&server.base_url(), Some(KEY)).unwrap();
    let err = anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &progressive(),
        &context("anthropic-200-error"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { message, .. } if message.contains("boom")),
        "{err:?}"
    );
}

#[tokio::test]
async fn deferred_mode_keeps_resident_tools_in_view_and_references_only_deferred_ones() {
    use charter_runtime::session::{SessionOptions, Source};
    // The smallest schema stays resident; the rest are deferred.
    let smallest = DEMO.tools.iter().map(|t| t.views[0].tokens).min().unwrap();
    let session = ToolSession::with_options(
        vec![Source::Table(&DEMO)],
        SessionOptions::new().with_threshold(smallest),
    )
    .unwrap();
    let resident: Vec<&str> = DEMO
        .tools
        .iter()
        .filter(|t| t.views[0].tokens <= smallest)
        .map(|t| t.name)
        .collect();
    let deferred: Vec<&str> = DEMO
        .tools
        .iter()
        .filter(|t| t.views[0].tokens > smallest)
        .map(|t| t.name)
        .collect();
    assert!(!resident.is_empty() && !deferred.is_empty());
    let query = format!("select:{},{}", resident[0], deferred[0]);
    let (server, client) = server(vec![
        anthropic_calls(&[("s", TOOL_SEARCH, json!({ "query": query }))]),
        anthropic_text("ok"),
    ])
    .await;
    let options = Options::default().with_deferred(true);
    anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &session,
        &context("anthropic-resident"),
        &options,
    )
    .await
    .unwrap();
    let requests = server.requests();
    let mut expected: Vec<&str> = resident.clone();
    expected.push(TOOL_SEARCH);
    expected.extend(&deferred);
    assert_eq!(requests[0].tool_names(), expected);
    let tools = requests[0].body["tools"].as_array().unwrap();
    for (tool, name) in tools.iter().zip(&expected) {
        let is_deferred = deferred.contains(name);
        assert_eq!(
            tool.get("defer_loading") == Some(&json!(true)),
            is_deferred,
            "{name}"
        );
    }
    // The search loaded (or re-named) both, but only the deferred one becomes a reference.
    assert_eq!(
        requests[1].body["messages"][2]["content"][0]["content"],
        json!([{"type": "tool_reference", "tool_name": deferred[0]}])
    );
}

#[tokio::test]
async fn deferred_mode_without_toolsearch_sends_the_plain_list() {
    use charter_runtime::session::{SessionOptions, Source};
    let session = ToolSession::with_options(
        vec![Source::Table(&DEMO)],
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap();
    let (server, client) = server(vec![anthropic_text("ok")]).await;
    let options = Options::default().with_deferred(true);
    anthropic::run(
        &client,
        "m",
        &[Message::user("go")],
        &session,
        &context("anthropic-plain"),
        &options,
    )
    .await
    .unwrap();
    let request = &server.requests()[0];
    assert_eq!(
        request.tool_names(),
        ["demo_weather", "demo_time", "demo_note", "demo_fail"]
    );
    assert!(!request.raw.contains("defer_loading"));
}

#[tokio::test]
async fn search_and_call_sends_one_list_and_runs_found_tools_by_name() {
    use charter_runtime::session::CALL_TOOL;
    let (server, client) = server(vec![
        anthropic_calls(&[("toolu_1", TOOL_SEARCH, json!({"query": "select:demo_note"}))]),
        anthropic_calls(&[
            (
                "toolu_2",
                CALL_TOOL,
                json!({"calls": [
                    {"name": "demo_note", "arguments": {"text": "a"}},
                    {"name": "demo_weather", "arguments": {"city": "Oslo"}},
                    {"name": "demo_note", "arguments": {"text": "a"}}
                ]}),
            ),
            (
                "toolu_3",
                CALL_TOOL,
                json!({"name": "demo_note", "arguments": {"text": 3}}),
            ),
        ]),
        anthropic_text("Saved."),
    ])
    .await;
    let session = search_and_call();
    let ctx = context("anthropic-search-and-call");
    let result = anthropic::run(
        &client,
        "scripted-model",
        &[Message::user("save a")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_one_list(&requests, &[TOOL_SEARCH, CALL_TOOL]);
    let results = tool_results(&result.messages);
    assert!(text_of(&results[0].1).contains(schema_of("demo_note")));
    // A writing tool in the batch: serial, in order, the repeat executed again.
    let batch: Value = serde_json::from_str(&text_of(&results[1].1)).unwrap();
    let names: Vec<&str> = batch["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["demo_note", "demo_weather", "demo_note"]);
    assert_eq!(
        ran("anthropic-search-and-call"),
        ["demo_note", "demo_weather", "demo_note"]
    );
    // Bad arguments through CallTool: the direct call's message, as an error result.
    assert!(results[2].2);
    let direct = session
        .dispatch("demo_note", json!({"text": 3}), &ctx)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(text_of(&results[2].1), direct);
}

#[tokio::test]
async fn deferred_mode_and_search_and_call_are_refused_together() {
    let (_server, client) = server(vec![]).await;
    let err = anthropic::run(
        &client,
        "scripted-model",
        &[Message::user("hi")],
        &search_and_call(),
        &context("anthropic-both"),
        &Options::default().with_deferred(true),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
}

#[tokio::test]
async fn deferred_mode_and_code_mode_are_refused_together() {
    let (_server, client) = server(vec![]).await;
    let err = anthropic::run(
        &client,
        "scripted-model",
        &[Message::user("hi")],
        &code_mode(),
        &context("anthropic-code-deferred"),
        &Options::default().with_deferred(true),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
}

#[tokio::test]
async fn code_mode_runs_one_program_whose_calls_are_one_scheduler_batch() {
    use charter_runtime::session::RUN_CODE;
    let program = "const [a, t, b] = await Promise.all([demo.weather({city: 'Paris'}), demo.time({zone: 'UTC'}), demo.weather({city: 'Paris'})]);\nlet caught = '';\ntry { await demo.weather({}); } catch (e) { caught = e.message; }\nreturn {forecast: a.forecast, time: t, same: a.forecast === b.forecast, caught};";
    let (server, client) = server(vec![
        anthropic_calls(&[(
            "toolu_1",
            TOOL_SEARCH,
            json!({"query": "weather forecast city"}),
        )]),
        anthropic_calls(&[("toolu_2", RUN_CODE, json!({ "code": program }))]),
        anthropic_calls(&[("toolu_3", RUN_CODE, json!({"code": "while (true) {}"}))]),
        anthropic_text("Sunny in Paris."),
    ])
    .await;
    let ctx = context("anthropic-code-mode");
    let result = anthropic::run(
        &client,
        "scripted-model",
        &[Message::user("weather in Paris?")],
        &code_mode(),
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert_one_list(&requests, &[TOOL_SEARCH, RUN_CODE]);
    let results = tool_results(&result.messages);
    // The search answers with the tool's TypeScript declaration from the table.
    let found = text_of(&results[0].1);
    assert!(found.contains("demo.weather(args:"), "{found}");
    // The program: one batch, the duplicate run once, the refused call caught with the direct
    // call's message; only the program's answer reaches the model.
    assert!(!results[1].2, "{}", text_of(&results[1].1));
    let answer: Value = serde_json::from_str(&text_of(&results[1].1)).unwrap();
    assert_program_answer(&answer, "anthropic-code-mode");
    assert_eq!(answer["same"], true);
    assert!(
        answer["caught"]
            .as_str()
            .is_some_and(|m| m.contains("city")),
        "{answer}"
    );
    // An endless program is stopped at the CPU-time limit, as an error result; the loop goes on.
    assert!(results[2].2);
    assert!(
        text_of(&results[2].1).contains("CPU-time limit"),
        "{}",
        text_of(&results[2].1)
    );
}

#[tokio::test]
async fn the_portable_form_is_sent_and_another_dialect_is_refused() {
    use charter_runtime::{Dialect, Disclosure};
    let (server, client) = server(vec![anthropic_text("hi")]).await;
    anthropic::run(
        &client,
        "claude-scripted",
        &[Message::user("go")],
        &demo_session(Disclosure::Eager, Dialect::Anthropic),
        &context("anthropic-dialect"),
        &Options::default(),
    )
    .await
    .unwrap();
    assert!(server.requests()[0].raw.contains(&format!(
        r#""input_schema":{}}}"#,
        schema_in("demo_weather", Dialect::Anthropic)
    )));
    for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
        let err = anthropic::run(
            &client,
            "claude-scripted",
            &[Message::user("go")],
            &demo_session(Disclosure::Eager, dialect),
            &context("anthropic-dialect"),
            &Options::default(),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&err, Error::Config(m) if m.contains(dialect.as_str())),
            "{err:?}"
        );
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn strict_tool_use_is_opt_in_and_needs_the_strict_dialect() {
    use charter_runtime::{Dialect, Disclosure};
    let call = json!({"city": "Paris"});
    let (server, client) = server(vec![
        anthropic_calls(&[("t1", "demo_weather", call)]),
        anthropic_text("done"),
        anthropic_text("plain"),
    ])
    .await;
    let strict = demo_session(Disclosure::Eager, Dialect::AnthropicStrict);
    let result = anthropic::run(
        &client,
        "claude-scripted",
        &[Message::user("go")],
        &strict,
        &context("anthropic-strict"),
        &Options::default().with_strict(true),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    let first = &server.requests()[0].body;
    let tools = first["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    for t in tools {
        assert_eq!(t["strict"], json!(true), "{t}");
        let name = t["name"].as_str().unwrap();
        let sent: Value = serde_json::from_str(schema_in(name, Dialect::AnthropicStrict)).unwrap();
        assert_eq!(t["input_schema"], sent);
    }
    // The call ran and its result went back.
    assert_eq!(tool_results(&result.messages).len(), 1);
    // Off by default: the same session sends no `strict`.
    anthropic::run(
        &client,
        "claude-scripted",
        &[Message::user("go")],
        &strict,
        &context("anthropic-strict-off"),
        &Options::default(),
    )
    .await
    .unwrap();
    let last = server.requests().pop().unwrap().body;
    assert!(
        last["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("strict").is_none())
    );
    // Strict tool use on a session in the portable form is a configuration error.
    let err = anthropic::run(
        &client,
        "claude-scripted",
        &[Message::user("go")],
        &demo_session(Disclosure::Eager, Dialect::Anthropic),
        &context("anthropic-strict-portable"),
        &Options::default().with_strict(true),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, Error::Config(m) if m.contains("anthropic-strict") || m.contains("AnthropicStrict")),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 3);
}
