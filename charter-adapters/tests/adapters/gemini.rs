//! The Gemini loop against a scripted `generateContent` server on 127.0.0.1 that checks each
//! request as the API does (path, key header, declarations in the Gemini schema subset, every
//! function call answered one for one) and records it.

use crate::support;

use charter_adapters::gemini::{self, Content, GeminiClient, Options, Role};
use charter_adapters::{Error, Stop};
use charter_runtime::session::{SessionOptions, Source, TOOL_SEARCH, ToolSession};
use charter_runtime::{Dialect, Disclosure};
use serde_json::{Value, json};
use support::*;

const KEY: &str = "AIza-test-0123456789";
const MODEL: &str = "gemini-scripted";
const PATH: &str = "/v1beta/models/gemini-scripted:generateContent";

async fn server(replies: Vec<Reply>) -> (ScriptedServer, GeminiClient) {
    let server = ScriptedServer::start(Wire::Gemini, Some(KEY), replies).await;
    let client = GeminiClient::new(&server.base_url(), Some(KEY)).unwrap();
    (server, client)
}

/// A progressive session over the demo pack in Gemini's dialect.
fn progressive() -> ToolSession {
    demo_session(Disclosure::ListChanged, Dialect::Gemini)
}

async fn run(
    client: &GeminiClient,
    session: &ToolSession,
    run: &str,
    options: &Options,
) -> Result<charter_adapters::RunResult<Content>, Error> {
    gemini::run(
        client,
        MODEL,
        &[Content::user("go")],
        session,
        &context(run),
        options,
    )
    .await
}

/// `(id, name, response)` of every functionResponse in the transcript, in order.
fn responses(contents: &[Content]) -> Vec<(Option<String>, String, Value)> {
    contents
        .iter()
        .filter(|c| c.role == Role::User)
        .flat_map(|c| &c.parts)
        .filter_map(|p| p.function_response.as_ref())
        .map(|r| (r.id.clone(), r.name.clone(), r.response.clone()))
        .collect()
}

fn schema_in_gemini(name: &str) -> &'static str {
    schema_in(name, Dialect::Gemini)
}

/// A successful response's `output` as text: the tool's text, or its JSON written out.
fn output_text(response: &Value) -> String {
    match &response["output"] {
        Value::String(text) => text.clone(),
        Value::Null => panic!("not a success: {response}"),
        other => other.to_string(),
    }
}

#[tokio::test]
async fn progressive_turns_extend_the_declarations_and_keep_their_prefix() {
    let (server, client) = server(vec![
        gemini_calls(&[(
            Some("fc_1"),
            TOOL_SEARCH,
            json!({"query": "select:demo_weather,demo_time"}),
        )]),
        gemini_calls(&[(None, "demo_weather", json!({"city": "Paris"}))]),
        gemini_text("Sunny in Paris."),
    ])
    .await;
    let session = progressive();
    let ctx = context("gemini-progressive");
    let input = vec![Content::user("weather in Paris?")];
    let before = input.clone();
    let options = Options::default().with_system("be brief");
    let result = gemini::run(&client, MODEL, &input, &session, &ctx, &options)
        .await
        .unwrap();

    assert_eq!(result.stop, Stop::End);
    assert_eq!(result.turns, 3);
    assert_eq!(
        result.content, "Sunny in Paris.",
        "the thought is not the answer"
    );
    assert_eq!(input, before, "the caller's contents are not mutated");
    assert_eq!(result.messages[0], input[0]);
    // user, model(search), user(response), model(weather), user(response), model(final)
    assert_eq!(result.messages.len(), 6);
    assert_eq!(result.messages[5].role, Role::Model);

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(r.path, PATH);
        assert_eq!(r.headers["x-goog-api-key"], KEY);
        assert!(r.headers.get("authorization").is_none());
        assert_eq!(
            r.body["systemInstruction"],
            json!({"parts": [{"text": "be brief"}]})
        );
        assert!(r.body.get("model").is_none(), "the model is in the path");
    }
    let turn2 = assert_list_extends(&requests);
    assert_eq!(requests[2].raw_tools(), turn2);
    for name in ["demo_weather", "demo_time"] {
        assert!(
            requests[1]
                .raw
                .contains(&format!(r#""parameters":{}}}"#, schema_in_gemini(name))),
            "{name} schema not verbatim"
        );
    }
    // The model's turn goes back as it came: text, call, and the call's thought signature.
    let echoed = &requests[1].body["contents"][1];
    assert_eq!(echoed["role"], "model");
    assert_eq!(echoed["parts"][1]["thoughtSignature"], "c2lnbmF0dXJlLTE=");
    assert_eq!(echoed["parts"][1]["functionCall"]["id"], "fc_1");
    // The answers: the call's id when it had one, none when it had none.
    let answered = responses(&result.messages);
    assert_eq!(answered[0].0.as_deref(), Some("fc_1"));
    assert_eq!(answered[0].1, TOOL_SEARCH);
    let search = answered[0].2["output"].to_string();
    assert!(
        search.contains("demo_weather") && search.contains("demo_time"),
        "{search}"
    );
    assert_eq!(answered[1].0, None);
    assert_eq!(
        answered[1].2,
        json!({"output": {"city": "Paris", "forecast": "sunny in Paris"}})
    );
    assert!(
        requests[2].body["contents"][4]["parts"][0]["functionResponse"]
            .get("id")
            .is_none()
    );
    assert_eq!(
        activity("gemini-progressive").calls,
        [("demo_weather".to_owned(), json!({"city": "Paris"}))]
    );
    assert_eq!(server.unused(), 0);
}

#[tokio::test]
async fn function_calls_of_one_turn_are_one_scheduler_batch_answered_in_order() {
    let (server, client) = server(vec![
        gemini_calls(&[(
            None,
            TOOL_SEARCH,
            json!({"query": "select:demo_weather,demo_time,demo_note"}),
        )]),
        gemini_calls(&[
            (None, "demo_weather", json!({"city": "Paris"})),
            (None, "demo_time", json!({"zone": "Europe/Oslo"})),
            (None, "demo_weather", json!({"city": "Oslo"})),
            (None, "demo_weather", json!({"city": "Paris"})),
        ]),
        gemini_text("done"),
    ])
    .await;
    let session = progressive();
    let result = run(&client, &session, "gemini-parallel", &Options::default())
        .await
        .unwrap();
    assert_eq!(result.stop, Stop::End);
    let answered = responses(&result.messages);
    let names: Vec<&str> = answered.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(
        names,
        [
            TOOL_SEARCH,
            "demo_weather",
            "demo_time",
            "demo_weather",
            "demo_weather"
        ]
    );
    assert_eq!(answered[2].2, json!({"output": "12:00 in Europe/Oslo"}));
    assert_eq!(answered[3].2["output"]["forecast"], "sunny in Oslo");
    assert_eq!(
        answered[4].2, answered[1].2,
        "the duplicate gets the same answer"
    );
    assert_concurrent("gemini-parallel", 3);
    // One user content answers the four calls, in their order.
    let last = &server.requests()[2].body["contents"];
    let parts = last[4]["parts"].as_array().unwrap();
    assert_eq!(last[4]["role"], "user");
    assert_eq!(parts.len(), 4);
}

#[tokio::test]
async fn a_batch_with_a_writing_tool_runs_serially_and_in_order() {
    let (_server, client) = server(vec![
        gemini_calls(&[(
            None,
            TOOL_SEARCH,
            json!({"query": "select:demo_weather,demo_note"}),
        )]),
        gemini_calls(&[
            (None, "demo_weather", json!({"city": "Rome"})),
            (None, "demo_note", json!({"text": "a"})),
            (None, "demo_weather", json!({"city": "Rome"})),
        ]),
        gemini_text("ok"),
    ])
    .await;
    let result = run(
        &client,
        &progressive(),
        "gemini-serial",
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        responses(&result.messages)[2].2,
        json!({"output": "saved: a"})
    );
    assert_serial(
        "gemini-serial",
        &["demo_weather", "demo_note", "demo_weather"],
    );
}

#[tokio::test]
async fn charter_errors_become_error_responses() {
    let (_server, client) = server(vec![
        gemini_calls(&[(
            None,
            TOOL_SEARCH,
            json!({"query": "select:demo_fail,demo_weather"}),
        )]),
        gemini_calls(&[
            (Some("f"), "demo_fail", json!({"why": "x"})),
            (Some("v"), "demo_weather", json!({"town": "Paris"})),
            (Some("u"), "nope_nothing", json!({})),
            (Some("n"), "demo_weather", json!("not an object")),
        ]),
        gemini_text("sorry"),
    ])
    .await;
    let result = run(
        &client,
        &progressive(),
        "gemini-errors",
        &Options::default(),
    )
    .await
    .unwrap();
    let answered = responses(&result.messages);
    let error = |i: usize| answered[i].2["error"].as_str().unwrap().to_owned();
    assert!(error(1).contains("the backend said boom"), "{}", error(1));
    let invalid = error(2);
    assert!(
        invalid.starts_with("Invalid arguments for `demo_weather`")
            && invalid.contains("/town")
            && invalid.contains("/city"),
        "{invalid}"
    );
    assert!(
        error(3).contains("Unknown tool `nope_nothing`"),
        "{}",
        error(3)
    );
    assert!(error(4).contains("demo_weather"), "{}", error(4));
    assert!(answered[1..].iter().all(|r| r.2.get("output").is_none()));
    assert_eq!(result.stop, Stop::End);
    assert_eq!(ran("gemini-errors"), ["demo_fail"]);
}

#[tokio::test]
async fn an_unloaded_tool_gets_the_select_hint() {
    let (server, client) = server(vec![
        gemini_calls(&[(None, "demo_weather", json!({"city": "Paris"}))]),
        gemini_text("I will search first."),
    ])
    .await;
    let result = run(
        &client,
        &progressive(),
        "gemini-unloaded",
        &Options::default(),
    )
    .await
    .unwrap();
    let answered = responses(&result.messages);
    let error = answered[0].2["error"].as_str().unwrap();
    assert!(error.contains("select:demo_weather"), "{error}");
    assert!(activity("gemini-unloaded").calls.is_empty());
    assert_eq!(server.requests()[1].tool_names(), [TOOL_SEARCH]);
}

#[tokio::test]
async fn max_turns_stops_a_model_that_keeps_calling() {
    let (server, client) = server(vec![
        gemini_calls(&[(None, TOOL_SEARCH, json!({"query": "weather"}))]),
        gemini_calls(&[(None, TOOL_SEARCH, json!({"query": "time"}))]),
        gemini_text("never sent"),
    ])
    .await;
    let options = Options::default().with_max_turns(2);
    let result = run(&client, &progressive(), "gemini-max-turns", &options)
        .await
        .unwrap();
    assert_eq!(result.stop, Stop::MaxTurns);
    assert_eq!(result.turns, 2);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(server.unused(), 1);
    let last = result.messages.last().unwrap();
    assert_eq!(last.role, Role::User, "the last calls were answered");
    assert!(last.parts[0].function_response.is_some());
}

#[tokio::test]
async fn extra_members_pass_through_and_an_eager_session_declares_every_tool() {
    let (server, client) = server(vec![gemini_text("hi")]).await;
    let session = ToolSession::with_options(
        vec![Source::Table(&DEMO)],
        SessionOptions::new()
            .with_disclosure(Disclosure::Eager)
            .with_dialect(Dialect::Gemini),
    )
    .unwrap();
    let options = Options::default()
        .with_generation_config(json!({"temperature": 0.25}))
        .with_tool_config(json!({"functionCallingConfig": {"mode": "AUTO"}}))
        .with_extra("safetySettings", json!([]));
    let result = run(&client, &session, "gemini-extra", &options)
        .await
        .unwrap();
    assert_eq!(result.content, "hi");
    let body = &server.requests()[0].body;
    assert_eq!(body["generationConfig"]["temperature"], 0.25);
    assert_eq!(body["toolConfig"]["functionCallingConfig"]["mode"], "AUTO");
    assert_eq!(body["safetySettings"], json!([]));
    assert_eq!(
        server.requests()[0].tool_names(),
        ["demo_weather", "demo_time", "demo_note", "demo_fail"]
    );
}

#[tokio::test]
async fn nothing_visible_sends_no_tools_and_no_tool_config() {
    let (server, client) = server(vec![gemini_text("hi")]).await;
    let session = ToolSession::with_options(
        vec![Source::Table(&EMPTY)],
        SessionOptions::new().with_dialect(Dialect::Gemini),
    )
    .unwrap();
    let options =
        Options::default().with_tool_config(json!({"functionCallingConfig": {"mode": "ANY"}}));
    let result = run(&client, &session, "gemini-empty", &options)
        .await
        .unwrap();
    assert_eq!(result.content, "hi");
    let body = &server.requests()[0].body;
    assert!(
        body.get("tools").is_none() && body.get("toolConfig").is_none(),
        "{body}"
    );
}

#[tokio::test]
async fn a_non_2xx_is_an_error_with_the_apis_message_and_without_the_key() {
    let server = ScriptedServer::start(Wire::Gemini, Some(KEY), vec![gemini_text("unused")]).await;
    let wrong = "AIza-wrong-key-999";
    let client = GeminiClient::new(&server.base_url(), Some(wrong)).unwrap();
    let err = run(&client, &progressive(), "gemini-401", &Options::default())
        .await
        .unwrap_err();
    match &err {
        Error::Status { status, body, url } => {
            assert_eq!(*status, 401);
            assert!(
                body.starts_with("UNAUTHENTICATED: Incorrect API key"),
                "{body}"
            );
            assert!(url.ends_with(PATH), "{url}");
        }
        other => panic!("expected a status error, got {other:?}"),
    }
    assert!(
        !err.to_string().contains(wrong),
        "the echoed key is masked: {err}"
    );
    assert!(!format!("{err:?}").contains(wrong));

    let server = ScriptedServer::start(
        Wire::Gemini,
        None,
        vec![
            Reply::Status(
                503,
                gemini_error(503, "The model is overloaded.").to_string(),
            ),
            Reply::Status(500, "upstream exploded".into()),
        ],
    )
    .await;
    let client = GeminiClient::new(&server.base_url(), None).unwrap();
    let err = run(&client, &progressive(), "gemini-503", &Options::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 503, body, .. } if body == "UNAVAILABLE: The model is overloaded."),
        "{err:?}"
    );
    let err = run(&client, &progressive(), "gemini-500", &Options::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 500, body, .. } if body == "upstream exploded"),
        "a body that is not the API's error object is kept: {err:?}"
    );
}

#[tokio::test]
async fn a_request_the_api_refuses_is_reported_with_its_reason() {
    // A transcript ending with the model's turn: the API refuses it, and the loop says so.
    let (_server, client) = server(vec![gemini_text("unused")]).await;
    let err = gemini::run(
        &client,
        MODEL,
        &[Content::model("a model turn cannot come last")],
        &progressive(),
        &context("gemini-400"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 400, body, .. } if body.contains("INVALID_ARGUMENT: the last content must be the user's")),
        "{err:?}"
    );
}

#[tokio::test]
async fn unusable_answers_are_errors_that_say_why() {
    let server = ScriptedServer::start(
        Wire::Gemini,
        None,
        vec![
            Reply::Raw("this is not json".into()),
            Reply::Json(json!({"candidates": []})),
            Reply::Json(json!({"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []}})),
            gemini_finish("SAFETY", None),
            gemini_finish(
                "MALFORMED_FUNCTION_CALL",
                Some("Malformed function call: demo_weather(city=)"),
            ),
            gemini_finish("STOP", None),
            Reply::Json(
                json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"args": {}}}]}}]}),
            ),
        ],
    )
    .await;
    let client = GeminiClient::new(&server.base_url(), None).unwrap();
    let session = progressive();
    type Kind = fn(&Error) -> bool;
    let expected: [(&str, Kind); 7] = [
        ("not a generateContent response", |e| {
            matches!(e, Error::Decode { .. })
        }),
        ("no candidates", |e| matches!(e, Error::Decode { .. })),
        (
            "(SAFETY): the prompt was blocked",
            |e| matches!(e, Error::Refused { reason, .. } if reason == "SAFETY"),
        ),
        ("(SAFETY): the candidate has no content", |e| {
            matches!(e, Error::Refused { .. })
        }),
        (
            "(MALFORMED_FUNCTION_CALL): Malformed function call: demo_weather(city=)",
            |e| matches!(e, Error::Refused { .. }),
        ),
        ("(STOP): the candidate has no content", |e| {
            matches!(e, Error::Refused { .. })
        }),
        ("missing field `name`", |e| {
            matches!(e, Error::Decode { .. })
        }),
    ];
    for (text, kind) in expected {
        let err = run(&client, &session, "gemini-bad", &Options::default())
            .await
            .unwrap_err();
        assert!(
            kind(&err) && err.to_string().contains(text),
            "{text}: {err}"
        );
    }
    assert!(activity("gemini-bad").calls.is_empty());
}

#[tokio::test]
async fn an_unreachable_server_and_a_bad_model_name_are_errors() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = GeminiClient::new(&format!("http://127.0.0.1:{port}"), Some(KEY)).unwrap();
    let err = run(&client, &progressive(), "gemini-down", &Options::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(!err.to_string().contains(KEY));
    let err = gemini::run(
        &client,
        "../../v1/secrets",
        &[Content::user("go")],
        &progressive(),
        &context("gemini-model"),
        &Options::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
}

#[tokio::test]
async fn search_and_call_keeps_one_declaration_list_and_batches_through_the_scheduler() {
    use charter_runtime::session::CALL_TOOL;
    let (server, client) = server(vec![
        gemini_calls(&[(None, TOOL_SEARCH, json!({"query": "weather forecast city"}))]),
        gemini_calls(&[
            (
                None,
                CALL_TOOL,
                json!({"calls": [{"name": "demo_weather", "arguments": {"city": "Paris"}},
                                 {"name": "demo_time", "arguments": {"zone": "UTC"}}]}),
            ),
            (
                None,
                CALL_TOOL,
                json!({"name": "demo_wether", "arguments": {"city": "Rome"}}),
            ),
        ]),
        gemini_text("Sunny in Paris."),
    ])
    .await;
    let result = run(
        &client,
        &demo_session(Disclosure::SearchAndCall, Dialect::Gemini),
        "gemini-search-and-call",
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    let requests = server.requests();
    assert_one_list(&requests, &[TOOL_SEARCH, CALL_TOOL]);
    let answered = responses(&result.messages);
    let found = output_text(&answered[0].2);
    assert!(
        found.contains(&format!(
            r#""inputSchema":{}"#,
            schema_in_gemini("demo_weather")
        )),
        "{found}"
    );
    let batch: Value = serde_json::from_str(&output_text(&answered[1].2)).unwrap();
    assert_eq!(batch["results"][0]["output"]["forecast"], "sunny in Paris");
    assert_eq!(batch["results"][1]["output"], "12:00 in UTC");
    assert!(
        answered[2].2["error"]
            .as_str()
            .is_some_and(|e| e.contains("Closest names: demo_weather")),
        "{:?}",
        answered[2]
    );
    assert_concurrent("gemini-search-and-call", 2);
}

#[tokio::test]
async fn code_mode_runs_one_program_as_one_batch() {
    use charter_runtime::session::RUN_CODE;
    let program = "const [a, t] = await Promise.all([demo.weather({city: 'Paris'}), demo.time({zone: 'UTC'})]);\nreturn {forecast: a.forecast, time: t};";
    let (server, client) = server(vec![
        gemini_calls(&[(None, TOOL_SEARCH, json!({"query": "weather forecast city"}))]),
        gemini_calls(&[(None, RUN_CODE, json!({ "code": program }))]),
        gemini_text("Sunny in Paris."),
    ])
    .await;
    let result = run(
        &client,
        &demo_session(Disclosure::Code, Dialect::Gemini),
        "gemini-code-mode",
        &Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(result.stop, Stop::End);
    assert_one_list(&server.requests(), &[TOOL_SEARCH, RUN_CODE]);
    let answered = responses(&result.messages);
    let answer: Value = serde_json::from_str(&output_text(&answered[1].2)).unwrap();
    assert_program_answer(&answer, "gemini-code-mode");
}

#[test]
fn the_stub_refuses_what_the_gemini_schema_subset_refuses() {
    // The stub's own rules can fail: each construct the API refuses is caught.
    for (schema, what) in [
        (json!({"type": ["string", "null"]}), ".type"),
        (json!({"type": "string", "const": "x"}), "\"const\""),
        (json!({"oneOf": [{"type": "string"}]}), "\"oneOf\""),
        (json!({"type": "integer", "enum": [1, 2]}), ".enum"),
        (
            json!({"type": "object", "properties": {"a": {"not": {}}}}),
            "\"not\"",
        ),
        (
            json!({"type": "array", "items": {"$ref": "#/x"}}),
            "\"$ref\"",
        ),
    ] {
        let mut problems = Vec::new();
        gemini_schema_problems(&schema, "p", &mut problems);
        assert!(
            problems.iter().any(|p| p.contains(what)),
            "{schema}: {problems:?}"
        );
    }
    let mut problems = Vec::new();
    let portable = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "a"}},
                          "required": ["a"], "additionalProperties": false});
    gemini_schema_problems(&portable, "p", &mut problems);
    assert_eq!(
        problems,
        ["p: Unknown name \"additionalProperties\" (not a field of Schema)"]
    );
}

#[tokio::test]
async fn a_session_in_another_dialect_is_refused_before_any_request() {
    let (server, client) = server(vec![gemini_text("unused")]).await;
    let portable = ToolSession::new(&[&DEMO]).unwrap();
    let err = run(&client, &portable, "gemini-dialect", &Options::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Config(m) if m.contains("`mcp` dialect") && m.contains("Dialect::Gemini")),
        "{err:?}"
    );
    assert!(server.requests().is_empty());
}
