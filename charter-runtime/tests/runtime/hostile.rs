//! Hostile input against the session, validation, ToolSearch and the batch scheduler (SECURITY.md):
//! whatever the model sends, the process does not crash, the session is not
//! corrupted, no result is lost and a field the deployment withholds cannot be set.
//!
//! No network here: tools run the `testing` echo handler (which answers with exactly the
//! arguments that reached execution) or handlers defined below. HTTP cases are in
//! `hostile_http.rs`.

use crate::common;

use std::sync::OnceLock;

use charter_runtime::scheduler::{ToolCall, argument_identity};
use charter_runtime::search::MAX_QUERY_TERMS;
use charter_runtime::session::{MAX_BATCH_CALLS, SessionOptions, Source, ToolSession};
use charter_runtime::table::{BoxFuture, Table};
use charter_runtime::validate::{MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH, MAX_DEPTH, check_limits};
use charter_runtime::{CallContext, CharterError, ToolOutput};
use charter_testkit as testing;
use common::{call, call_with, loaded, options, search, session, tracker, validation_message};
use serde_json::{Value, json};

/// A small stack (half a spawned thread's default): a recursion as deep as the hostile input
/// (10,000 levels, kilobytes per level in a debug build) would overflow it many times over, so
/// passing proves every walk stops at its limit.
const SMALL_STACK: usize = 1024 * 1024;

/// Runs `f` on a thread with [`SMALL_STACK`] bytes of stack and returns its answer; a stack
/// overflow would abort the whole test binary, so passing proves none happened.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic on the small stack")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn nested_objects(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

/// A value `depth` arrays deep, built without recursion.
fn deep_value(depth: usize) -> Value {
    let mut v = Value::Null;
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

/// A tool with a free-form field, so only the limits stop a deep or large value.
fn freeform() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "free",
            "tools": [{
                "name": "put",
                "annotations": {"read_only": true, "idempotent": true},
                "params": {
                    "data": {"type": "any", "description": "Anything."},
                    "nested": {"type": "object", "description": "An object.", "properties": {
                        "inner": {"type": "string", "description": "Text.", "enum": ["a", "b"]}
                    }}
                }
            }]
        }))
    })
}

fn eager(tables: &[&'static Table]) -> ToolSession {
    session(tables, options(false, 0, None))
}

// ---------------------------------------------------------------------------------------------
// Deep and large JSON.

#[test]
fn json_text_10000_arrays_deep_is_refused_by_the_parser_on_a_small_stack() {
    let err = on_small_stack(|| {
        serde_json::from_str::<Value>(&nested_arrays(10_000))
            .unwrap_err()
            .to_string()
    });
    assert!(err.contains("recursion limit"), "{err}");
}

#[test]
fn json_text_10000_objects_deep_as_string_arguments_is_a_validation_error_on_a_small_stack() {
    let message = on_small_stack(|| {
        let s = eager(&[freeform()]);
        // Models sometimes send the arguments object as JSON text: it is parsed, and refused.
        validation_message(call(&s, "free_put", Value::String(nested_objects(10_000))))
    });
    assert!(
        message.contains("an object of named arguments"),
        "{message}"
    );
}

#[test]
fn json_text_10000_deep_inside_an_object_field_is_refused_on_a_small_stack() {
    let message = on_small_stack(|| {
        let s = eager(&[freeform()]);
        // An object field given as JSON text is parsed when it holds an object: not this one.
        validation_message(call(
            &s,
            "free_put",
            json!({"nested": nested_objects(10_000)}),
        ))
    });
    assert!(message.contains("/nested: expected object"), "{message}");
}

#[test]
fn json_text_10000_deep_as_a_tool_search_query_is_harmless_on_a_small_stack() {
    let (message, loaded) = on_small_stack(|| {
        let s = session(&[tracker()], SessionOptions::default());
        let message =
            validation_message(call(&s, "ToolSearch", Value::String(nested_arrays(10_000))));
        let answer = search(&s, json!({ "query": nested_arrays(10_000) }));
        (message, loaded(&answer))
    });
    // As the arguments: not an object, refused. As the query: text that matches nothing.
    assert!(message.contains("an object"), "{message}");
    assert!(loaded.is_empty());
}

#[test]
fn a_value_deeper_than_the_limit_is_refused_before_any_walk() {
    let depth = MAX_ARGUMENT_DEPTH + 50;
    let message = on_small_stack(move || {
        let s = eager(&[freeform()]);
        validation_message(call(&s, "free_put", json!({ "data": deep_value(depth) })))
    });
    assert!(
        message.contains(&format!("more than {MAX_ARGUMENT_DEPTH} levels")),
        "{message}"
    );
    // No identity either: such a call is never deduplicated against another.
    assert_eq!(argument_identity("free_put", &deep_value(depth)), None);
    assert!(argument_identity("free_put", &deep_value(MAX_ARGUMENT_DEPTH - 2)).is_some());
}

#[test]
fn a_declared_shape_nested_past_64_levels_is_refused_with_the_path() {
    // 70 levels of arrays of arrays of strings, declared.
    let mut spec = json!({"type": "string", "description": "Leaf."});
    for _ in 0..70 {
        spec = json!({"type": "array", "items": spec, "description": "Level."});
    }
    spec["description"] = json!("Deep.");
    let table = testing::table(json!({
        "pack": "deep", "tools": [{"name": "t", "params": {"x": spec}}]
    }));
    let s = eager(&[table]);
    let mut value = json!("leaf");
    for _ in 0..70 {
        value = json!([value]);
    }
    let message = validation_message(call(&s, "deep_t", json!({ "x": value })));
    assert!(
        message.contains(&format!("at most {MAX_DEPTH} levels of nesting")),
        "{message}"
    );
    assert!(message.contains("/x/0/0/0"), "names the path: {message}");
}

#[test]
fn arguments_over_one_mebibyte_are_refused_naming_the_limit() {
    let s = eager(&[freeform()]);
    let big = "x".repeat(MAX_ARGUMENT_BYTES);
    let message = validation_message(call(&s, "free_put", json!({ "data": big })));
    assert!(
        message.contains(&format!("larger than {MAX_ARGUMENT_BYTES} bytes")),
        "{message}"
    );
    // Just under the limit is accepted and echoed whole.
    let fits = "y".repeat(MAX_ARGUMENT_BYTES - 100);
    let out = call(&s, "free_put", json!({ "data": fits })).expect("fits");
    assert_eq!(
        out.structured.unwrap()["data"].as_str().unwrap().len(),
        MAX_ARGUMENT_BYTES - 100
    );
}

#[test]
fn many_small_items_over_the_limit_are_refused_too() {
    let s = eager(&[freeform()]);
    let items: Vec<Value> = (0..300_000).map(|i| json!(i)).collect();
    let message = validation_message(call(&s, "free_put", json!({ "data": items })));
    assert!(message.contains("larger than"), "{message}");
    assert!(check_limits(&json!({"data": [1, 2, 3]})).is_ok());
}

#[test]
fn a_two_mebibyte_tool_search_query_is_refused_and_loads_nothing() {
    let s = session(&[tracker()], SessionOptions::default());
    let message = validation_message(call(
        &s,
        "ToolSearch",
        json!({ "query": "issues ".repeat(300_000) }),
    ));
    assert!(message.contains("larger than"), "{message}");
    assert!(s.loaded().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Encodings.

#[test]
fn a_lone_surrogate_in_json_text_is_a_parse_error_and_a_pair_is_a_character() {
    let err = serde_json::from_str::<Value>(r#"{"data":"\ud800"}"#).unwrap_err();
    assert!(err.is_syntax(), "{err}");
    let err = serde_json::from_str::<Value>(r#"{"data":"\udc00x"}"#).unwrap_err();
    assert!(err.is_syntax(), "{err}");
    let pair: Value = serde_json::from_str(r#"{"data":"\ud83d\ude00"}"#).unwrap();
    let s = eager(&[freeform()]);
    let out = call(&s, "free_put", pair).unwrap();
    assert_eq!(out.structured.unwrap()["data"], "😀");
}

#[test]
fn a_lone_surrogate_inside_string_arguments_leaves_them_unparsed_and_refused() {
    let s = eager(&[freeform()]);
    let message = validation_message(call(
        &s,
        "free_put",
        Value::String(r#"{"data":"\ud800"}"#.into()),
    ));
    assert!(
        message.contains("an object of named arguments"),
        "{message}"
    );
}

#[test]
fn invalid_utf8_argument_bytes_are_a_parse_error() {
    for bytes in [
        &b"{\"data\":\"\xff\"}"[..],
        &b"{\"data\":\"\xc3\x28\"}"[..],
        &b"{\"\xed\xa0\x80\":1}"[..], // a surrogate encoded as UTF-8 (CESU)
        &b"{\"data\":\"\xf4\x90\x80\x80\"}"[..], // past U+10FFFF
    ] {
        let err = serde_json::from_slice::<Value>(bytes).unwrap_err();
        assert!(err.is_syntax(), "{err}");
    }
}

#[test]
fn nul_and_control_characters_in_values_are_data_not_terminators() {
    let s = eager(&[freeform()]);
    let data = "a\u{0}b\u{1b}[31mc\r\nd\u{202e}e";
    let out = call(&s, "free_put", json!({ "data": data })).unwrap();
    assert_eq!(out.structured.unwrap()["data"], data);
}

#[test]
fn duplicate_keys_collapse_to_one_value_that_validation_and_execution_both_see() {
    let s = eager(&[freeform()]);
    // serde_json keeps the last value: what is validated is what runs.
    let args: Value = serde_json::from_str(r#"{"nested":{"inner":"a","inner":"zzz"}}"#).unwrap();
    let message = validation_message(call(&s, "free_put", args));
    assert!(
        message.contains("/nested/inner: expected one of \"a\", \"b\""),
        "{message}"
    );
    let args: Value = serde_json::from_str(r#"{"nested":{"inner":"zzz","inner":"b"}}"#).unwrap();
    let out = call(&s, "free_put", args).unwrap();
    assert_eq!(out.structured.unwrap(), json!({"nested": {"inner": "b"}}));
}

// ---------------------------------------------------------------------------------------------
// Withheld, pinned and from-context fields.

#[test]
fn a_field_another_tier_carries_is_refused_and_absent_from_the_schema() {
    let s = session(&[tracker()], options(false, 0, Some("free")));
    let schema = s
        .all()
        .into_iter()
        .find(|e| e.name == "tracker_issues_create")
        .unwrap()
        .schema;
    assert!(!schema.contains("\"priority\""), "{schema}");
    let message = validation_message(call(
        &s,
        "tracker_issues_create",
        json!({"project": "P", "title": "t", "priority": 1}),
    ));
    assert!(
        message.contains("/priority: expected no `priority`"),
        "{message}"
    );
}

#[test]
fn a_response_only_field_cannot_be_set() {
    let s = session(&[tracker()], options(false, 0, None));
    let message = validation_message(call(
        &s,
        "tracker_issues_create",
        json!({"project": "P", "title": "t", "server_id": "forged"}),
    ));
    assert!(
        message.contains("/server_id: expected no `server_id`"),
        "{message}"
    );
}

#[test]
fn a_disabled_nested_field_cannot_be_set() {
    let s = session(&[tracker()], options(false, 0, None));
    let message = validation_message(call(
        &s,
        "tracker_issues_create",
        json!({"project": "P", "title": "t", "assignee": {"login": "a", "legacy_flag": true}}),
    ));
    assert!(
        message.contains("/assignee/legacy_flag: expected no `legacy_flag`"),
        "{message}"
    );
}

#[test]
fn a_from_context_field_cannot_be_set_and_the_hosts_value_is_what_runs() {
    let s = session(&[tracker()], options(false, 0, None));
    let ctx = CallContext::new().with_value("customer_id", json!("cus_host"));
    let message = validation_message(call_with(
        &s,
        "tracker_issues_create",
        json!({"project": "P", "title": "t", "customer_id": "cus_attacker"}),
        &ctx,
    ));
    assert!(message.contains("the host fills it"), "{message}");
    let out = call_with(
        &s,
        "tracker_issues_create",
        json!({"project": "P", "title": "t"}),
        &ctx,
    )
    .unwrap();
    assert_eq!(out.structured.unwrap()["customer_id"], "cus_host");
}

#[test]
fn a_from_context_field_cannot_be_smuggled_in_arguments_sent_as_json_text() {
    let s = session(&[tracker()], options(false, 0, None));
    let ctx = CallContext::new().with_value("customer_id", json!("cus_host"));
    let text = r#"{"project":"P","title":"t","customer_id":"cus_attacker"}"#;
    let message = validation_message(call_with(
        &s,
        "tracker_issues_create",
        Value::String(text.into()),
        &ctx,
    ));
    assert!(message.contains("the host fills it"), "{message}");
}

#[test]
fn a_missing_required_context_value_is_a_declaration_error_never_filled_by_the_model() {
    let table = testing::table(json!({"pack": "ctx", "tools": [{"name": "t", "params": {
        "tenant": {"type": "string", "required": true, "from_context": "tenant", "description": "Host."},
        "q": {"type": "string", "description": "Query."}
    }}]}));
    let s = eager(&[table]);
    match call(&s, "ctx_t", json!({"q": "x"})) {
        Err(CharterError::Declaration(e)) => assert!(e.message.contains("`tenant`"), "{e}"),
        other => panic!("expected a declaration error, got {other:?}"),
    }
    // The model offering the value does not help: it is refused, not used.
    let message = validation_message(call(&s, "ctx_t", json!({"q": "x", "tenant": "evil"})));
    assert!(message.contains("the host fills it"), "{message}");
}

#[test]
fn a_pinned_field_cannot_be_overridden_and_the_pin_is_what_runs() {
    let mut s = session(&[tracker()], options(false, 0, None));
    s.pin("tracker_issues_list", "state", json!("open"))
        .unwrap();
    let message = validation_message(call(
        &s,
        "tracker_issues_list",
        json!({"project": "P", "state": "all"}),
    ));
    assert!(message.contains("the deployment fixes it"), "{message}");
    let out = call(&s, "tracker_issues_list", json!({"project": "P"})).unwrap();
    assert_eq!(out.structured.unwrap()["state"], "open");
}

#[test]
fn a_session_from_context_field_cannot_be_set_by_the_model() {
    let mut s = session(&[tracker()], options(false, 0, None));
    s.from_context("tracker_issues_list", "project", "tenant")
        .unwrap();
    let ctx = CallContext::new().with_value("tenant", json!("ACME"));
    let message = validation_message(call_with(
        &s,
        "tracker_issues_list",
        json!({"project": "OTHER"}),
        &ctx,
    ));
    assert!(message.contains("the host fills it"), "{message}");
    let out = call_with(&s, "tracker_issues_list", json!({}), &ctx).unwrap();
    assert_eq!(out.structured.unwrap()["project"], "ACME");
}

#[test]
fn unknown_keys_are_refused_at_every_depth_also_inside_json_text() {
    let s = session(&[tracker()], options(false, 0, None));
    let message = validation_message(call(
        &s,
        "tracker_issues_create",
        json!({"project": "P", "title": "t", "assignee": "{\"login\":\"a\",\"is_admin\":true}"}),
    ));
    assert!(
        message.contains("/assignee/is_admin: expected no `is_admin`"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------------
// ToolSearch with pathological queries.

fn progressive() -> ToolSession {
    session(&[tracker(), common::calendar()], SessionOptions::default())
}

#[test]
fn tool_search_with_a_huge_single_word_matches_nothing_and_clips_the_note() {
    let s = progressive();
    let word = "q".repeat(500_000);
    let answer = search(&s, json!({ "query": word }));
    assert!(loaded(&answer).is_empty());
    let note = answer["note"].as_str().unwrap();
    assert!(
        note.len() < 1_000,
        "the note echoes at most a clip: {} bytes",
        note.len()
    );
    assert!(!answer["available"].as_array().unwrap().is_empty());
}

#[test]
fn tool_search_with_only_plus_signs_matches_nothing() {
    let s = progressive();
    for q in ["+", "+++", "+ + +", " \t\n+\u{3000}+ "] {
        let answer = search(&s, json!({ "query": q }));
        assert!(loaded(&answer).is_empty(), "{q:?}: {answer}");
        assert!(
            answer["available"]
                .as_array()
                .is_some_and(|a| !a.is_empty()),
            "{q:?}"
        );
    }
    assert!(s.loaded().is_empty());
}

#[test]
fn tool_search_with_only_commas_matches_nothing() {
    let s = progressive();
    for q in [
        "select:",
        "select:,,,,",
        "SELECT: , ,\t,",
        ",,,,",
        "select:,".repeat(1000).as_str(),
    ] {
        let answer = search(&s, json!({ "query": q }));
        assert!(loaded(&answer).is_empty(), "{q:?}: {answer}");
    }
    assert!(s.loaded().is_empty());
}

#[test]
fn tool_search_select_with_10000_names_loads_the_real_ones_and_reports_the_rest() {
    let s = progressive();
    let mut names: Vec<String> = (0..10_000).map(|i| format!("tracker_fake_{i}")).collect();
    names.insert(5_000, "TRACKER_ISSUES_LIST".into());
    names.push("calendar_event_create".into());
    let answer = search(
        &s,
        json!({ "query": format!("select:{}", names.join(",")) }),
    );
    assert_eq!(
        loaded(&answer),
        ["tracker_issues_list", "calendar_event_create"]
    );
    assert_eq!(answer["unknown"].as_array().unwrap().len(), 10_000);
    assert_eq!(s.loaded(), ["tracker_issues_list", "calendar_event_create"]);
}

#[test]
fn tool_search_select_with_40000_duplicate_names_is_linear_and_loads_once() {
    let s = progressive();
    let query = format!("select:{}", "tracker_issues_list,".repeat(40_000));
    let answer = search(&s, json!({ "query": query }));
    assert_eq!(loaded(&answer), ["tracker_issues_list"]);
    assert_eq!(s.generation(), 1);
}

#[test]
fn tool_search_regex_metacharacters_are_literal_text() {
    // Punctuation is never a pattern: a query of metacharacters alone matches nothing, and
    // words wrapped in them find exactly what the bare words find (ToolSearch reads whole
    // words), not everything a regex would.
    let s = progressive();
    for q in [
        ".*",
        "(a|b)+",
        "[",
        "\\",
        "+.*",
        "select:.*",
        "%s%n",
        "{{}}",
    ] {
        let answer = search(&s, json!({ "query": q }));
        assert!(loaded(&answer).is_empty(), "{q:?} loaded {answer}");
    }
    for (q, bare) in [
        ("^issues$", "issues"),
        ("issues.*", "issues"),
        ("(list|create)", "list create"),
    ] {
        let wrapped = loaded(&search(&progressive(), json!({ "query": q })));
        let plain = loaded(&search(&progressive(), json!({ "query": bare })));
        assert!(!plain.is_empty(), "{bare:?} finds something in the fixture");
        assert_eq!(wrapped, plain, "{q:?} against {bare:?}");
    }
}

#[test]
fn tool_search_unicode_queries_do_not_panic_and_match_nothing_unrelated() {
    let s = progressive();
    for q in [
        "İstanbul", // lowercases to two characters
        "ẞ ß",
        "\u{0}\u{1}",
        "select:\u{0}",
        "\u{202e}issues", // right-to-left override
        "e\u{301}vent",   // combining accent
        "🗓️ 📅",
        "select:ｔｒａｃｋｅｒ_issues_list", // fullwidth letters are not the ASCII name
        "\u{feff}",
    ] {
        let answer = search(&s, json!({ "query": q }));
        let got = loaded(&answer);
        assert!(got.is_empty(), "{q:?} loaded {got:?}");
    }
}

#[test]
fn tool_search_with_too_many_keywords_is_refused_naming_the_limit() {
    let s = progressive();
    let words: Vec<String> = (0..MAX_QUERY_TERMS + 1).map(|i| format!("w{i}")).collect();
    let message = validation_message(call(&s, "ToolSearch", json!({ "query": words.join(" ") })));
    assert!(
        message.contains(&format!("at most {MAX_QUERY_TERMS} keywords")),
        "{message}"
    );
    // At the limit it ranks.
    let words: Vec<String> = (0..MAX_QUERY_TERMS - 1)
        .map(|i| format!("w{i}"))
        .chain(["calendar".to_owned()])
        .collect();
    let answer = search(&s, json!({ "query": words.join(" ") }));
    assert!(!loaded(&answer).is_empty());
}

#[test]
fn tool_search_refuses_wrong_argument_types_without_loading() {
    let s = progressive();
    for args in [
        json!({"query": 5}),
        json!({"query": null}),
        json!({"query": ["select:tracker_issues_list"]}),
        json!({"query": {"select": "x"}}),
        json!({"query": "calendar", "max_results": "3"}),
        json!({"query": "calendar", "max_results": true}),
        json!({"query": "calendar", "max_results": -1}),
        json!({"query": "calendar", "max_results": 1.5}),
        json!({"query": "calendar", "extra": 1}),
        json!([]),
        json!(42),
        json!("not json"),
    ] {
        let message = validation_message(call(&s, "ToolSearch", args.clone()));
        assert!(
            message.starts_with("Invalid arguments for `ToolSearch`"),
            "{args}: {message}"
        );
    }
    assert!(s.loaded().is_empty());
}

#[test]
fn tool_search_with_an_enormous_max_results_is_bounded_by_the_tools() {
    let s = progressive();
    let answer = search(&s, json!({"query": "+_", "max_results": 1e300}));
    let n = loaded(&answer).len();
    assert_eq!(n, s.deferred().len());
    let answer = search(&s, json!({"query": "+_", "max_results": u64::MAX}));
    assert_eq!(loaded(&answer).len(), n);
}

#[test]
fn a_deferred_tool_is_not_callable_until_loaded_whatever_the_spelling() {
    let s = progressive();
    for name in [
        "tracker_issues_list",
        "TRACKER_ISSUES_LIST",
        "tracker_issues_list ",
        " tracker_issues_list",
        "tracker_issues_list\u{0}",
    ] {
        let message = validation_message(call(&s, name, json!({"project": "P"})));
        assert!(
            message.contains("not loaded yet") || message.contains("Unknown tool"),
            "{name:?}: {message}"
        );
    }
    assert!(s.loaded().is_empty());
}

#[test]
fn a_megabyte_tool_name_is_clipped_in_the_error() {
    let s = progressive();
    let name = "n".repeat(1_000_000);
    let message = validation_message(call(&s, &name, json!({})));
    assert!(
        message.starts_with("Unknown tool `nnn"),
        "{}",
        &message[..50]
    );
    assert!(message.len() < 5_000, "{} bytes", message.len());
}

#[test]
fn a_tool_name_with_a_nul_has_no_identity_and_is_unknown() {
    assert_eq!(argument_identity("a\u{0}b", &json!({})), None);
    let s = progressive();
    let message = validation_message(call(&s, "ToolSearch\u{0}", json!({"query": "x"})));
    assert!(message.starts_with("Unknown tool"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// Batches.

fn boom<'a>(
    arguments: Value,
    _ctx: &'a CallContext,
) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        if arguments["n"] == json!(3) {
            panic!("tool exploded on n=3");
        }
        tokio::task::yield_now().await;
        Ok(ToolOutput::json(arguments))
    })
}

fn boom_table() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table_with(
            json!({
                "pack": "boom",
                "tools": [{
                    "name": "read",
                    "handler": "boom",
                    "annotations": {"read_only": true, "idempotent": true},
                    "params": {"n": {"type": "integer", "required": true, "description": "N."}}
                }]
            }),
            &[("boom", boom)],
        )
    })
}

fn calls(n: usize, name: &str) -> Vec<ToolCall> {
    (0..n)
        .map(|i| ToolCall {
            id: format!("call_{i}"),
            name: name.into(),
            arguments: json!({ "n": i }),
        })
        .collect()
}

#[test]
fn a_batch_over_the_limit_answers_every_call_in_order_and_runs_only_the_limit() {
    let s = eager(&[boom_table()]);
    let mut batch = calls(MAX_BATCH_CALLS + 72, "boom_read");
    batch[3].arguments = json!({"n": 4}); // keep the panic out of this test
    let results = runtime().block_on(s.execute_tool_calls(&batch, &CallContext::new(), 4));
    assert_eq!(results.len(), batch.len());
    for (i, (r, c)) in results.iter().zip(&batch).enumerate() {
        assert_eq!(r.id, c.id);
        if i < MAX_BATCH_CALLS {
            assert!(!r.is_error, "{i}: {}", r.content);
        } else {
            assert!(r.is_error);
            assert!(
                r.content
                    .contains(&format!("at most {MAX_BATCH_CALLS} tool calls")),
                "{}",
                r.content
            );
        }
    }
}

#[test]
fn a_panicking_tool_in_a_concurrent_batch_fails_only_its_own_slot() {
    let s = eager(&[boom_table()]);
    let batch = calls(8, "boom_read");
    let results = runtime().block_on(s.execute_tool_calls(&batch, &CallContext::new(), 4));
    assert_eq!(results.len(), 8);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.id, format!("call_{i}"));
        if i == 3 {
            assert!(r.is_error);
            assert!(
                r.content.contains("panicked") && r.content.contains("n=3"),
                "{}",
                r.content
            );
        } else {
            assert!(!r.is_error, "{}", r.content);
            assert_eq!(r.structured.as_ref().unwrap()["n"], i);
        }
    }
}

#[test]
fn a_panicking_tool_leaves_the_session_usable() {
    let s = session(&[boom_table(), tracker()], SessionOptions::default());
    let batch = vec![
        ToolCall {
            id: "s".into(),
            name: "ToolSearch".into(),
            arguments: json!({"query": "select:boom_read"}),
        },
        ToolCall {
            id: "p".into(),
            name: "boom_read".into(),
            arguments: json!({"n": 3}),
        },
        ToolCall {
            id: "q".into(),
            name: "boom_read".into(),
            arguments: json!({"n": 4}),
        },
    ];
    let results = runtime().block_on(s.execute_tool_calls(&batch, &CallContext::new(), 4));
    assert!(!results[0].is_error && results[1].is_error && !results[2].is_error);
    // The loaded set survived, and further searches and calls work.
    assert_eq!(s.loaded(), ["boom_read"]);
    assert_eq!(
        loaded(&search(&s, json!({"query": "select:tracker_issues_list"}))),
        ["tracker_issues_list"]
    );
    assert!(call(&s, "boom_read", json!({"n": 1})).is_ok());
}

#[test]
fn duplicate_calls_with_distinct_ids_keep_their_own_ids() {
    let s = eager(&[boom_table()]);
    let batch: Vec<ToolCall> = (0..6)
        .map(|i| ToolCall {
            id: format!("dup_{i}"),
            name: "boom_read".into(),
            arguments: json!({"n": 1}),
        })
        .collect();
    let results = runtime().block_on(s.execute_tool_calls(&batch, &CallContext::new(), 4));
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["dup_0", "dup_1", "dup_2", "dup_3", "dup_4", "dup_5"]);
    assert!(results.iter().all(|r| !r.is_error));
}

#[test]
fn a_batch_mixing_garbage_calls_answers_each_in_place() {
    let s = session(&[tracker()], SessionOptions::default());
    let batch = vec![
        ToolCall {
            id: "1".into(),
            name: "".into(),
            arguments: json!({}),
        },
        ToolCall {
            id: "2".into(),
            name: "ToolSearch".into(),
            arguments: json!(null),
        },
        ToolCall {
            id: "3".into(),
            name: "tracker_issues_list".into(),
            arguments: json!({"project": "P"}),
        },
        ToolCall {
            id: "".into(),
            name: "x".repeat(10_000),
            arguments: json!([1, 2]),
        },
        ToolCall {
            id: "5".into(),
            name: "ToolSearch".into(),
            arguments: json!({"query": "select:tracker_issues_list"}),
        },
        ToolCall {
            id: "6".into(),
            name: "tracker_issues_list".into(),
            arguments: json!({"project": "P"}),
        },
    ];
    let results = runtime().block_on(s.execute_tool_calls(&batch, &CallContext::new(), 4));
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "", "5", "6"]);
    let errors: Vec<bool> = results.iter().map(|r| r.is_error).collect();
    assert_eq!(errors, [true, true, true, true, false, false]);
}

#[test]
fn a_call_abandoned_mid_flight_leaves_the_session_consistent() {
    fn slow<'a>(
        arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            Ok(ToolOutput::json(arguments))
        })
    }
    let table = testing::table_with(
        json!({"pack": "slow", "tools": [{"name": "wait", "handler": "slow"}]}),
        &[("slow", slow)],
    );
    let s = session(&[table, tracker()], SessionOptions::default());
    let rt = runtime();
    let ctx = CallContext::new();
    assert_eq!(
        loaded(&search(&s, json!({"query": "select:slow_wait"}))),
        ["slow_wait"]
    );
    // The client goes away: the call's future is dropped mid-flight.
    let abandoned = rt.block_on(async {
        tokio::time::timeout(
            std::time::Duration::from_millis(20),
            s.dispatch("slow_wait", json!({}), &ctx),
        )
        .await
    });
    assert!(abandoned.is_err(), "still running when dropped");
    assert_eq!(s.loaded(), ["slow_wait"]);
    assert_eq!(
        loaded(&search(&s, json!({"query": "select:tracker_issues_list"}))),
        ["tracker_issues_list"]
    );
    assert!(call(&s, "tracker_issues_list", json!({"project": "P"})).is_ok());
}

#[test]
fn concurrent_searches_and_resets_from_many_threads_keep_the_loaded_set_consistent() {
    let s = std::sync::Arc::new(
        ToolSession::with_options(
            vec![Source::Table(tracker()), Source::Table(common::calendar())],
            SessionOptions::default(),
        )
        .unwrap(),
    );
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let s = s.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    match (t + i) % 4 {
                        0 => {
                            s.search("calendar", None);
                        }
                        1 => {
                            s.search("select:tracker_issues_list,tracker_issues_create", None);
                        }
                        2 => s.reset(),
                        _ => {
                            let _ = s.visible();
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // Whatever the interleaving: no duplicates, and every loaded tool is deferred and visible.
    let loaded = s.loaded();
    let mut unique = loaded.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), loaded.len(), "{loaded:?}");
    let visible: Vec<&str> = s.visible().iter().map(|e| e.name).collect();
    for name in &loaded {
        assert!(visible.contains(name));
        assert!(s.is_callable(name));
    }
}

// ---------------------------------------------------------------------------------------------
// Validation cost.

mod recursive {
    //! A recursive filter whose two `one_of` alternatives share the field they recurse through:
    //! without a budget, validating a value `d` levels deep tries 2^d alternatives.
    use charter_runtime::table::*;

    const fn text(enum_values: &'static [&'static str]) -> Shape {
        Shape::String(StringRules::NONE.with_enum_values(enum_values))
    }
    static AND: Shape = text(&["and"]);
    static OR: Shape = text(&["or"]);
    static ITEMS: Shape = Shape::Array(ArrayRules::of(&FILTER));
    const fn field(name: &'static str, shape: &'static Shape, required: bool) -> Field {
        Field::new(name, "A field.", shape).with_required(required)
    }
    static FILTER: Shape = Shape::OneOf(&[
        Shape::Object(ObjectShape::of(&[
            field("op", &AND, true),
            field("items", &ITEMS, false),
        ])),
        Shape::Object(ObjectShape::of(&[
            field("op", &OR, true),
            field("items", &ITEMS, false),
        ])),
    ]);
    static INPUT: ObjectShape = ObjectShape::of(&[field("filter", &FILTER, true)]);
    pub static VIEWS: [View; 1] = [View::new(ViewKey::Default, "{}", 0).with_widest(true)];
    pub static TOOL: ToolDef = ToolDef::new(
        "rec_filter",
        "rec",
        "filter",
        "Filters.",
        Exec::Rust(charter_testkit::echo),
    )
    .with_annotations(
        Annotations::new()
            .with_read_only(true)
            .with_idempotent(true),
    )
    .with_input(&INPUT)
    .with_views(&VIEWS)
    .with_search(SearchData::new("filters.", &[]));
}

fn nested_filter(depth: usize) -> Value {
    let mut v = json!({"op": "or"});
    for _ in 0..depth {
        v = json!({"op": "or", "items": [v]});
    }
    v
}

#[test]
fn a_recursive_one_of_cannot_make_validation_exponential() {
    use charter_runtime::validate::{MAX_VALIDATION_STEPS, PatternCache, prepare_arguments};
    let patterns = PatternCache::new();
    let ctx = CallContext::new();
    let check = |depth: usize| {
        prepare_arguments(
            &recursive::TOOL,
            &recursive::VIEWS[0],
            &[],
            json!({ "filter": nested_filter(depth) }),
            &ctx,
            &patterns,
        )
    };
    // Shallow: valid, and what runs is what was sent.
    let ok = check(8).expect("valid");
    assert_eq!(ok["filter"], nested_filter(8));
    // 60 levels would be 2^60 trials: refused as too complex instead, in bounded time.
    match check(60) {
        Err(CharterError::Validation(m)) => {
            assert!(
                m.contains(&format!("more than {MAX_VALIDATION_STEPS} checks")),
                "{m}"
            )
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn a_large_flat_value_stays_within_the_validation_budget() {
    let table = testing::table(json!({"pack": "flat", "tools": [{"name": "t", "params": {
        "xs": {"type": "array", "items": {"type": "integer"}, "description": "Numbers."}
    }}]}));
    let s = eager(&[table]);
    let xs: Vec<u32> = (0..120_000).collect();
    let out = call(&s, "flat_t", json!({ "xs": xs })).expect("valid");
    assert_eq!(
        out.structured.unwrap()["xs"].as_array().unwrap().len(),
        120_000
    );
}
