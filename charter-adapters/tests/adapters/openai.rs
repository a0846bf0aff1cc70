//! The OpenAI-compatible loop against a scripted chat-completions server on 127.0.0.1.

use crate::support;

use charter_adapters::openai::{self, ChatMessage, OpenAiClient, Options, Role};
use charter_adapters::{Error, Stop};
use charter_runtime::session::{SessionOptions, Source, TOOL_SEARCH, ToolSession};
use serde_json::{Value, json};
use support::*;

const KEY: &str = "sk-test-0123456789";

async fn server(replies: Vec<Reply>) -> (ScriptedServer, OpenAiClient) {
    let server = ScriptedServer::start(Wire::OpenAi, Some(KEY), replies).await;
    let client = OpenAiClient::new(&server.base_url(), Some(KEY)).unwrap();
    (server, client)
}

fn progressive() -> ToolSession {
    ToolSession::new(&[&DEMO]).unwrap()
}

fn tool_messages(messages: &[ChatMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.clone().unwrap(), m.text()))
        .collect()
}

#[tokio::test]
async fn progressive_turns_extend_the_tool_list_and_keep_its_prefix() {
    let (server, client) = server(vec![
        openai_calls(&[(
            "call_1",
            TOOL_SEARCH,
            r#"{"query":"select:demo_weather,demo_time"}"#,
        )]),
        openai_calls(&[("call_2", "demo_weather", r#"{"city":"Paris"}"#)]),
        openai_text("Sunny in Paris."),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-progressive");
    let input = vec![
        ChatMessage::system("be brief"),
        ChatMessage::user("weather in Paris?"),
    ];
    let before = input.clone();

    let result = openai::run(
        &client,
        "scripted-model",
        &input,
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();

    assert_eq!(result.stop, Stop::End);
    assert_eq!(result.stop.as_str(), "end");
    assert_eq!(result.turns, 3);
    assert_eq!(result.content, "Sunny in Paris.");
    assert_eq!(input, before, "the caller's messages are not mutated");
    assert_eq!(
        &result.messages[..2],
        &input[..],
        "the transcript starts with the caller's messages"
    );
    // system, user, assistant(search), tool, assistant(weather), tool, assistant(final)
    assert_eq!(result.messages.len(), 7);
    assert_eq!(result.messages[6].role, Role::Assistant);

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests
            .iter()
            .all(|r| r.path == "/v1/chat/completions" && r.body["model"] == "scripted-model")
    );
    let turn2 = assert_list_extends(&requests);
    assert_eq!(
        requests[2].raw_tools(),
        turn2,
        "nothing loaded on turn 2, so turn 3's list is unchanged"
    );
    // Schemas go on the wire as the table's text, verbatim.
    for name in ["demo_weather", "demo_time"] {
        assert!(
            requests[1]
                .raw
                .contains(&format!(r#""parameters":{}}}"#, schema_of(name))),
            "{name} schema not verbatim"
        );
    }
    // The tool results reached the model under the right ids.
    let turn2_messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(turn2_messages.last().unwrap()["role"], "tool");
    assert_eq!(turn2_messages.last().unwrap()["tool_call_id"], "call_1");
    let tools = tool_messages(&result.messages);
    assert_eq!(tools[0].0, "call_1");
    assert!(
        tools[0].1.contains("demo_weather") && tools[0].1.contains("demo_time"),
        "{}",
        tools[0].1
    );
    assert_eq!(tools[1].0, "call_2");
    let weather: Value = serde_json::from_str(&tools[1].1).unwrap();
    assert_eq!(
        weather,
        json!({"city": "Paris", "forecast": "sunny in Paris"})
    );
    assert_eq!(
        activity("openai-progressive").calls,
        [("demo_weather".to_owned(), json!({"city": "Paris"}))]
    );
    assert_eq!(
        requests[0].headers["authorization"],
        format!("Bearer {KEY}")
    );
    assert_eq!(server.unused(), 0);
}

#[tokio::test]
async fn parallel_calls_run_through_the_scheduler_with_results_in_order() {
    let (server, client) = server(vec![
        openai_calls(&[(
            "s",
            TOOL_SEARCH,
            r#"{"query":"select:demo_weather,demo_time,demo_note"}"#,
        )]),
        // All read-only and idempotent: concurrent, and the repeated call runs once.
        openai_calls(&[
            ("w1", "demo_weather", r#"{"city":"Paris"}"#),
            ("t1", "demo_time", r#"{"zone":"Europe/Oslo"}"#),
            ("w2", "demo_weather", r#"{"city":"Oslo"}"#),
            ("w3", "demo_weather", r#"{ "city" : "Paris" }"#),
        ]),
        openai_text("done"),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-parallel");
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);

    let results = tool_messages(&result.messages);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["s", "w1", "t1", "w2", "w3"]);
    assert!(results[1].1.contains("sunny in Paris"));
    assert_eq!(results[2].1, "12:00 in Europe/Oslo");
    assert!(results[3].1.contains("sunny in Oslo"));
    assert_eq!(
        results[4].1, results[1].1,
        "the duplicate is answered with the same result under its own id"
    );

    assert_concurrent("openai-parallel", 3);
    // The request after the batch carries the tool messages in the model's order.
    let requests = server.requests();
    let sent: Vec<&str> = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["s", "w1", "t1", "w2", "w3"]);
}

#[tokio::test]
async fn a_batch_with_a_writing_tool_runs_serially_and_in_order() {
    let (_server, client) = server(vec![
        openai_calls(&[(
            "s",
            TOOL_SEARCH,
            r#"{"query":"select:demo_weather,demo_note"}"#,
        )]),
        openai_calls(&[
            ("w1", "demo_weather", r#"{"city":"Rome"}"#),
            ("n1", "demo_note", r#"{"text":"a"}"#),
            ("w2", "demo_weather", r#"{"city":"Rome"}"#),
        ]),
        openai_text("ok"),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-serial");
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    let results = tool_messages(&result.messages);
    assert_eq!(
        results.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["s", "w1", "n1", "w2"]
    );
    assert_eq!(results[2].1, "saved: a");
    assert_serial(
        "openai-serial",
        &["demo_weather", "demo_note", "demo_weather"],
    );
}

#[tokio::test]
async fn malformed_argument_json_becomes_a_tool_result_and_never_reaches_the_tool() {
    let (server, client) = server(vec![
        openai_calls(&[("s", TOOL_SEARCH, r#"{"query":"select:demo_weather"}"#)]),
        openai_calls(&[
            ("bad", "demo_weather", r#"{"city": "Par"#),
            ("good", "demo_weather", r#"{"city":"Lima"}"#),
        ]),
        openai_text("ok"),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-malformed");
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    let results = tool_messages(&result.messages);
    assert_eq!(results[1].0, "bad");
    assert!(results[1].1.contains("not valid JSON"), "{}", results[1].1);
    assert_eq!(results[2].0, "good");
    assert!(results[2].1.contains("sunny in Lima"));
    assert_eq!(
        activity("openai-malformed").calls,
        [("demo_weather".to_owned(), json!({"city": "Lima"}))]
    );
    // The malformed call's own text goes back to the model unchanged, as it was written.
    let echoed =
        &server.requests()[2].body["messages"][3]["tool_calls"][0]["function"]["arguments"];
    assert_eq!(echoed, r#"{"city": "Par"#);
}

#[tokio::test]
async fn an_unloaded_tool_gets_the_select_hint_as_its_result() {
    let (server, client) = server(vec![
        openai_calls(&[("c1", "demo_weather", r#"{"city":"Paris"}"#)]),
        openai_text("I will search first."),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-unloaded");
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    let results = tool_messages(&result.messages);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, "c1");
    assert!(
        results[0].1.contains("select:demo_weather"),
        "{}",
        results[0].1
    );
    assert!(
        activity("openai-unloaded").calls.is_empty(),
        "the tool never ran"
    );
    // Still not loaded: turn 2 offers only ToolSearch.
    assert_eq!(server.requests()[1].tool_names(), [TOOL_SEARCH]);
}

#[tokio::test]
async fn charter_errors_become_tool_results() {
    let (_server, client) = server(vec![
        openai_calls(&[(
            "s",
            TOOL_SEARCH,
            r#"{"query":"select:demo_fail,demo_weather"}"#,
        )]),
        openai_calls(&[
            ("f", "demo_fail", r#"{"why":"x"}"#),
            ("v", "demo_weather", r#"{"town":"Paris"}"#),
            ("u", "nope_nothing", "{}"),
        ]),
        openai_text("sorry"),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-errors");
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    let results = tool_messages(&result.messages);
    assert!(
        results[1].1.contains("the backend said boom"),
        "{}",
        results[1].1
    );
    // Validation is written for the model: every problem, by field path, in one message.
    let invalid = &results[2].1;
    assert!(
        invalid.starts_with("Invalid arguments for `demo_weather`")
            && invalid.contains("/town")
            && invalid.contains("/city"),
        "{invalid}"
    );
    assert!(
        results[3].1.contains("Unknown tool `nope_nothing`"),
        "{}",
        results[3].1
    );
    assert_eq!(result.stop, Stop::End);
    // Validation refused `v` before the tool; `u` names no tool.
    assert_eq!(ran("openai-errors"), ["demo_fail"]);
}

#[tokio::test]
async fn max_turns_stops_a_model_that_keeps_calling_tools() {
    let (server, client) = server(vec![
        openai_calls(&[("a", TOOL_SEARCH, r#"{"query":"weather"}"#)]),
        openai_calls(&[("b", TOOL_SEARCH, r#"{"query":"time"}"#)]),
        openai_text("never sent"),
    ])
    .await;
    let session = progressive();
    let ctx = context("openai-max-turns");
    let options = Options::default().with_max_turns(2);
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &ctx,
        &options,
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::MaxTurns);
    assert_eq!(result.stop.to_string(), "max_turns");
    assert_eq!(result.turns, 2);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(server.unused(), 1);
    // The last calls were answered, so the transcript can be continued as is.
    assert_eq!(result.messages.last().unwrap().role, Role::Tool);
    assert_eq!(
        result.messages.last().unwrap().tool_call_id.as_deref(),
        Some("b")
    );
}

#[tokio::test]
async fn extra_fields_pass_through_and_a_plain_session_sends_every_tool() {
    let (server, client) = server(vec![openai_text("hi")]).await;
    let session = ToolSession::with_options(
        vec![Source::Table(&DEMO)],
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap();
    let options = Options::default()
        .with_temperature(0.25)
        .with_tool_choice(json!("auto"))
        .with_extra("seed", json!(7));
    openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &context("openai-extra"),
        &options,
    )
    .await
    .unwrap();
    let body = &server.requests()[0].body;
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(body["seed"], 7);
    assert_eq!(
        server.requests()[0].tool_names(),
        ["demo_weather", "demo_time", "demo_note", "demo_fail"]
    );
}

#[tokio::test]
async fn tools_are_omitted_when_nothing_is_visible() {
    let (server, client) = server(vec![openai_text("hi")]).await;
    let session = ToolSession::new(&[&EMPTY]).unwrap();
    let options = Options::default().with_tool_choice(json!("auto"));
    let result = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &context("openai-empty"),
        &options,
    )
    .await
    .unwrap();
    assert_eq!(result.content, "hi");
    let body = &server.requests()[0].body;
    assert!(body.get("tools").is_none(), "{body}");
    assert!(
        body.get("tool_choice").is_none(),
        "tool_choice without tools is refused by servers"
    );
}

#[tokio::test]
async fn a_non_2xx_from_the_model_server_is_an_error_without_the_key() {
    let server = ScriptedServer::start(Wire::OpenAi, Some(KEY), vec![openai_text("unused")]).await;
    let wrong = "sk-wrong-key-999";
    let client = OpenAiClient::new(&server.base_url(), Some(wrong)).unwrap();
    let err = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &progressive(),
        &context("openai-401"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    match &err {
        Error::Status { status, body, url } => {
            assert_eq!(*status, 401);
            assert!(body.contains("Incorrect API key"), "{body}");
            assert!(url.ends_with("/v1/chat/completions"));
        }
        other => panic!("expected a status error, got {other:?}"),
    }
    assert!(
        !err.to_string().contains(wrong),
        "the key the server echoed is masked: {err}"
    );

    let server = ScriptedServer::start(
        Wire::OpenAi,
        None,
        vec![Reply::Status(503, "overloaded".into())],
    )
    .await;
    let client = OpenAiClient::new(&server.base_url(), None).unwrap();
    let err = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &progressive(),
        &context("openai-503"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Status { status: 503, .. }), "{err:?}");
}

#[tokio::test]
async fn malformed_model_json_is_an_error() {
    let server = ScriptedServer::start(
        Wire::OpenAi,
        None,
        vec![
            Reply::Raw("this is not json".into()),
            Reply::Json(json!({"choices": []})),
            Reply::Json(json!({"error": {"message": "quota exceeded"}})),
        ],
    )
    .await;
    let client = OpenAiClient::new(&server.base_url(), None).unwrap();
    let session = progressive();
    let ctx = context("openai-bad-json");
    for expected in ["not a chat completion", "no choices", "quota exceeded"] {
        let err = openai::run(
            &client,
            "m",
            &[ChatMessage::user("go")],
            &session,
            &ctx,
            &Options::default(),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&err, Error::Decode { message, .. } if message.contains(expected)),
            "{expected}: {err:?}"
        );
    }
}

#[tokio::test]
async fn an_unreachable_model_server_is_a_transport_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = OpenAiClient::new(&format!("http://127.0.0.1:{port}/v1"), Some(KEY)).unwrap();
    let err = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &progressive(),
        &context("openai-down"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(!err.to_string().contains(KEY));
}

#[tokio::test]
async fn search_and_call_keeps_one_tool_list_and_batches_calls_through_the_scheduler() {
    use charter_runtime::session::CALL_TOOL;
    let (server, client) = server(vec![
        openai_calls(&[("call_1", TOOL_SEARCH, r#"{"query":"weather forecast city"}"#)]),
        openai_calls(&[
            (
                "call_2",
                CALL_TOOL,
                r#"{"calls":[{"name":"demo_weather","arguments":{"city":"Paris"}},{"name":"demo_time","arguments":{"zone":"UTC"}},{"name":"demo_weather","arguments":{"city":"Paris"}}]}"#,
            ),
            (
                "call_3",
                CALL_TOOL,
                r#"{"name":"demo_wether","arguments":{"city":"Rome"}}"#,
            ),
        ]),
        openai_text("Sunny in Paris."),
    ])
    .await;
    let session = search_and_call();
    let ctx = context("openai-search-and-call");
    let result = openai::run(
        &client,
        "scripted-model",
        &[ChatMessage::user("weather in Paris?")],
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
    let tools = tool_messages(&result.messages);
    // The search hands over the found tool's schema text verbatim.
    let found: Value = serde_json::from_str(&tools[0].1).unwrap();
    assert_eq!(found["tools"][0]["name"], "demo_weather");
    assert!(
        tools[0]
            .1
            .contains(&format!(r#""inputSchema":{}"#, schema_of("demo_weather"))),
        "{}",
        tools[0].1
    );
    // The batch: results in the calls' order, the duplicate answered from one execution.
    let batch: Value = serde_json::from_str(&tools[1].1).unwrap();
    let results = batch["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["demo_weather", "demo_time", "demo_weather"]);
    assert_eq!(results[0], results[2]);
    assert_eq!(results[0]["output"]["forecast"], "sunny in Paris");
    assert_eq!(results[1]["output"], "12:00 in UTC");
    assert_concurrent("openai-search-and-call", 2);
    // The misspelt name: an error result with the closest names.
    assert_eq!(tools[2].0, "call_3");
    assert!(
        tools[2].1.contains("Closest names: demo_weather"),
        "{}",
        tools[2].1
    );
}

#[tokio::test]
async fn code_mode_runs_one_program_whose_calls_are_one_scheduler_batch() {
    use charter_runtime::session::RUN_CODE;
    let program = r#"{"code":"const [a, t, b] = await Promise.all([demo.weather({city: 'Paris'}), demo.time({zone: 'UTC'}), demo.weather({city: 'Paris'})]);\nlet caught = '';\ntry { await demo.weather({}); } catch (e) { caught = e.message; }\nreturn {forecast: a.forecast, time: t, same: a.forecast === b.forecast, caught};"}"#;
    let (server, client) = server(vec![
        openai_calls(&[(
            "call_1",
            TOOL_SEARCH,
            r#"{"query":"weather forecast city"}"#,
        )]),
        openai_calls(&[("call_2", RUN_CODE, program)]),
        openai_calls(&[("call_3", RUN_CODE, r#"{"code":"while (true) {}"}"#)]),
        openai_text("Sunny in Paris."),
    ])
    .await;
    let session = code_mode();
    let ctx = context("openai-code-mode");
    let result = openai::run(
        &client,
        "scripted-model",
        &[ChatMessage::user("weather in Paris?")],
        &session,
        &ctx,
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert_one_list(&requests, &[TOOL_SEARCH, RUN_CODE]);
    let tools = tool_messages(&result.messages);
    // The search answers with how a program calls the tool.
    assert!(tools[0].1.contains("demo.weather(args:"), "{}", tools[0].1);
    // The program: one batch, the duplicate run once, the refused call caught with the direct
    // call's message; only the program's answer reaches the model.
    let answer: Value = serde_json::from_str(&tools[1].1).unwrap();
    assert_program_answer(&answer, "openai-code-mode");
    assert_eq!(answer["same"], true);
    assert!(
        answer["caught"]
            .as_str()
            .is_some_and(|m| m.contains("city")),
        "{answer}"
    );
    // An endless program is stopped at the CPU-time limit; the loop goes on.
    assert!(tools[2].1.contains("CPU-time limit"), "{}", tools[2].1);
}

#[tokio::test]
async fn a_strict_session_sends_strict_definitions_with_strict_true_unless_turned_off() {
    use charter_runtime::{Dialect, Disclosure};
    let script = || {
        vec![
            openai_calls(&[("s", TOOL_SEARCH, r#"{"query":"select:demo_weather"}"#)]),
            openai_text("ok"),
        ]
    };
    let session = || demo_session(Disclosure::ListChanged, Dialect::OpenAiStrict);
    let (model, client) = server(script()).await;
    openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session(),
        &context("openai-strict"),
        &Options::default(),
    )
    .await
    .unwrap();
    let request = &model.requests()[1];
    assert_eq!(request.tool_names(), [TOOL_SEARCH, "demo_weather"]);
    let tools = request.body["tools"].as_array().unwrap();
    assert!(
        tools[0]["function"].get("strict").is_none(),
        "the session's own tools go without strict"
    );
    assert_eq!(tools[1]["function"]["strict"], true);
    let strict = schema_in("demo_weather", Dialect::OpenAiStrict);
    assert!(
        request
            .raw
            .contains(&format!(r#""parameters":{strict},"strict":true}}"#)),
        "{}",
        request.raw
    );

    let (model, client) = server(script()).await;
    openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session(),
        &context("openai-strict-off"),
        &Options::default().with_strict(false),
    )
    .await
    .unwrap();
    assert!(!model.requests()[1].raw.contains(r#""strict""#));

    // A portable session sends no strict flag; a Gemini one is refused.
    let (model, client) = server(script()).await;
    openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &progressive(),
        &context("openai-portable"),
        &Options::default(),
    )
    .await
    .unwrap();
    assert!(!model.requests()[1].raw.contains(r#""strict""#));
    let err = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &demo_session(Disclosure::ListChanged, Dialect::Gemini),
        &context("openai-gemini"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
}

#[tokio::test]
async fn more_tools_than_the_api_takes_are_refused_before_anything_is_sent() {
    let (server, client) = server(vec![openai_text("never sent")]).await;
    let github = &charter::packs::github::TOOLS;
    assert!(github.tools.len() > openai::OPENAI_MAX_TOOLS);
    let session = ToolSession::with_options(
        vec![Source::Table(github)],
        SessionOptions::new().with_disclosure(charter_runtime::Disclosure::Eager),
    )
    .unwrap();
    let shown = session.visible().len();
    let err = openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &context("openai-too-many"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    match err {
        Error::Config(m) => assert!(
            m.contains(&format!("{shown} tools")) && m.contains("at most 128"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(server.requests().is_empty(), "nothing reached the server");

    // A server without the limit takes them all.
    openai::run(
        &client,
        "m",
        &[ChatMessage::user("go")],
        &session,
        &context("openai-too-many"),
        &Options::default().with_max_tools(None),
    )
    .await
    .unwrap();
    assert_eq!(server.requests()[0].tool_names().len(), shown);
}
