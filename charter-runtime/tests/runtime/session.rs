//! docs/design.md §4: the session, its visible list and ToolSearch.

use crate::common;

use std::sync::Arc;

use charter_runtime::session::{DynamicTool, Source, TOOL_SEARCH, ToolSession, Toolkit};
use charter_runtime::table::BoxFuture;
use charter_runtime::{Annotations, CallContext, CharterError, ToolOutput, text_tokens};
use common::*;
use serde_json::{Value, json};

#[test]
fn threshold_zero_defers_everything_and_offers_only_toolsearch() {
    let s = session(&[tracker(), billing()], options(true, 0, None));
    assert_eq!(names(&s.visible()), vec![TOOL_SEARCH]);
    // The tiniest tool (no arguments) is deferred too.
    assert!(s.deferred().contains(&"tracker_ping"));
    assert_eq!(s.deferred().len(), 9);
    assert!(!s.is_callable("tracker_ping"));
    assert_eq!(s.generation(), 0);
}

#[test]
fn toolsearch_description_lists_every_deferred_name_sorted() {
    let s = session(&[tracker(), billing()], options(true, 0, None));
    let search = s.tool_search().expect("offered");
    let listed: Vec<&str> = search
        .description
        .split_once("\n\nTools:\n")
        .expect("list")
        .1
        .lines()
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted);
    assert_eq!(listed, s.deferred());
    assert_eq!(listed.len(), 9);
    // Names only: no description text leaks into the list.
    assert!(!search.description.contains("Refund a charge"));
    let schema: Value = serde_json::from_str(search.schema).unwrap();
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["properties"]["max_results"]["type"], "integer");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(search.tokens, text_tokens(search.schema));
}

#[test]
fn visible_order_is_resident_then_toolsearch_then_load_order_and_each_turn_extends_the_last() {
    let sizes: Vec<(String, u32)> = tracker()
        .tools
        .iter()
        .map(|t| (t.name.to_owned(), t.views[0].tokens))
        .collect();
    // A threshold that keeps the smallest tracker tool resident (and some billing ones).
    let mut by_size = sizes.clone();
    by_size.sort_by_key(|(_, t)| *t);
    let threshold = by_size[0].1;
    assert!(
        by_size[1].1 > threshold,
        "fixture sizes must differ: {by_size:?}"
    );
    let s = session(&[tracker(), billing()], options(true, threshold, None));
    let resident: Vec<String> = sizes
        .iter()
        .filter(|(_, t)| *t <= threshold)
        .map(|(n, _)| n.clone())
        .collect();
    let billing_resident: Vec<String> = billing()
        .tools
        .iter()
        .filter(|t| t.views[0].tokens <= threshold)
        .map(|t| t.name.to_owned())
        .collect();
    let mut expected: Vec<String> = resident.iter().chain(&billing_resident).cloned().collect();
    expected.push(TOOL_SEARCH.into());
    let description_before = s.tool_search().unwrap().description.to_owned();

    let turn0 = names(&s.visible());
    assert_eq!(
        turn0, expected,
        "resident in declaration order, then ToolSearch"
    );

    let a = search(&s, json!({"query": "select:tracker_comments_add"}));
    assert_eq!(loaded(&a), vec!["tracker_comments_add"]);
    let turn1 = names(&s.visible());
    let b = search(
        &s,
        json!({"query": "select:tracker_issues_list,tracker_issues_create"}),
    );
    assert_eq!(
        loaded(&b),
        vec!["tracker_issues_list", "tracker_issues_create"]
    );
    let turn2 = names(&s.visible());

    assert_eq!(turn1[..turn0.len()], turn0[..], "turn 1 extends turn 0");
    assert_eq!(turn2[..turn1.len()], turn1[..], "turn 2 extends turn 1");
    assert_eq!(
        turn2[turn0.len()..],
        [
            "tracker_comments_add",
            "tracker_issues_list",
            "tracker_issues_create"
        ],
        "loaded tools in load order, not declaration or name order"
    );
    assert_eq!(
        s.loaded(),
        [
            "tracker_comments_add",
            "tracker_issues_list",
            "tracker_issues_create"
        ]
    );
    // A select: naming a resident tool answers it as callable and changes nothing.
    let c = search(&s, json!({"query": format!("select:{}", resident[0])}));
    assert_eq!(loaded(&c), [resident[0].clone()]);
    assert_eq!(names(&s.visible()), turn2);
    assert_eq!(
        s.tool_search().unwrap().description,
        description_before,
        "the description never changes"
    );
    assert_eq!(s.generation(), 2);

    // Loaded tools carry their full schema, same text as the table's view.
    let entry = s
        .visible()
        .into_iter()
        .find(|e| e.name == "tracker_issues_create")
        .unwrap();
    assert_eq!(entry.schema, tracker().tools[1].views[0].schema);
    assert_eq!(entry.tokens, tracker().tools[1].views[0].tokens);
}

#[test]
fn toolsearch_leaves_once_everything_deferred_is_loaded() {
    let s = session(&[billing()], options(true, 0, None));
    search(
        &s,
        json!({"query": "select:billing_refunds_create,billing_refunds_list"}),
    );
    assert_eq!(
        names(&s.visible()),
        [
            TOOL_SEARCH,
            "billing_refunds_create",
            "billing_refunds_list"
        ]
    );
    search(
        &s,
        json!({"query": "select:billing_customers_get,billing_charges_list"}),
    );
    assert_eq!(
        names(&s.visible()),
        [
            "billing_refunds_create",
            "billing_refunds_list",
            "billing_customers_get",
            "billing_charges_list"
        ]
    );
    // Still answerable (nothing left to load), and still described.
    assert!(s.tool_search().is_some());
    let again = search(&s, json!({"query": "select:billing_charges_list"}));
    assert_eq!(loaded(&again), ["billing_charges_list"]);
    assert_eq!(s.generation(), 2, "loading nothing new changes nothing");
}

#[test]
fn threshold_partition_follows_precomputed_sizes() {
    let all: Vec<&charter_runtime::ToolDef> =
        tracker().tools.iter().chain(billing().tools).collect();
    for threshold in [1u32, 20, 40, 60, 80, 120, 10_000] {
        let s = session(&[tracker(), billing()], options(true, threshold, None));
        let resident: Vec<&str> = all
            .iter()
            .filter(|t| t.views[0].tokens <= threshold)
            .map(|t| t.name)
            .collect();
        let mut deferred: Vec<&str> = all
            .iter()
            .filter(|t| t.views[0].tokens > threshold)
            .map(|t| t.name)
            .collect();
        deferred.sort();
        let visible = names(&s.visible());
        assert_eq!(
            visible[..resident.len()],
            resident[..],
            "threshold {threshold}"
        );
        assert_eq!(s.deferred(), deferred, "threshold {threshold}");
        assert_eq!(
            s.tool_search().is_some(),
            !deferred.is_empty(),
            "threshold {threshold}"
        );
        assert_eq!(
            visible.contains(&TOOL_SEARCH.to_owned()),
            !deferred.is_empty()
        );
    }
}

#[test]
fn progressive_false_makes_everything_resident_and_never_offers_toolsearch() {
    let s = session(&[tracker(), billing()], options(false, 0, None));
    let visible = names(&s.visible());
    let declared: Vec<&str> = tracker()
        .tools
        .iter()
        .chain(billing().tools)
        .map(|t| t.name)
        .collect();
    assert_eq!(visible, declared);
    assert!(s.tool_search().is_none());
    assert!(s.deferred().is_empty());
    assert_eq!(s.annotations(TOOL_SEARCH), None);
    let message = validation_message(call(
        &s,
        TOOL_SEARCH,
        json!({"query": "select:tracker_ping"}),
    ));
    assert!(message.contains("Unknown tool `ToolSearch`"), "{message}");
    // Every tool is callable at once.
    assert_eq!(
        call(&s, "tracker_ping", json!({})).unwrap().structured,
        Some(json!({}))
    );
}

#[test]
fn select_is_exact_case_insensitive_trimmed_never_truncated_and_reports_unknown_names() {
    let s = session(&[tracker(), billing()], options(true, 0, None));
    let answer = search(
        &s,
        json!({"query": "  SELECT: tracker_issues_list ,Billing_Refunds_List,nope_tool,, tracker_issues_list, billing_charges_list,tracker_ping,tracker_comments_add,billing_customers_get",
               "max_results": 2}),
    );
    assert_eq!(
        loaded(&answer),
        [
            "tracker_issues_list",
            "billing_refunds_list",
            "billing_charges_list",
            "tracker_ping",
            "tracker_comments_add",
            "billing_customers_get"
        ],
        "max_results is ignored by select:, duplicates load once"
    );
    assert_eq!(answer["unknown"], json!(["nope_tool"]));
    let available = answer["available"]
        .as_array()
        .expect("names that exist are listed");
    assert_eq!(available.len(), 9);
    assert!(available.contains(&json!("tracker_issues_create")));
    assert!(answer["note"].as_str().unwrap().contains("now callable"));
    assert_eq!(s.loaded().len(), 6);

    // All unknown: nothing loads, names that exist are listed.
    let answer = search(&s, json!({"query": "select:github_issues_list"}));
    assert_eq!(loaded(&answer), Vec::<String>::new());
    assert_eq!(answer["unknown"], json!(["github_issues_list"]));
    assert!(answer["available"].as_array().unwrap().len() == 9);

    // A known selection says nothing about what exists.
    let answer = search(&s, json!({"query": "select:tracker_issues_delete"}));
    assert!(
        answer.get("available").is_none() && answer.get("unknown").is_none(),
        "{answer}"
    );
}

#[test]
fn select_ignores_a_malformed_max_results() {
    let s = session(&[billing()], options(true, 0, None));
    let answer = search(
        &s,
        json!({"query": "select:billing_refunds_list", "max_results": "ten"}),
    );
    assert_eq!(loaded(&answer), ["billing_refunds_list"]);
}

#[test]
fn keywords_rank_name_over_description_ties_alphabetical_top_five() {
    let s = session(&[calendar()], classic(true, 0, None));
    let answer = search(&s, json!({"query": "calendar event"}));
    // Scores: event_create 2+1 (name: calendar? no; event yes=2; desc: calendar 1, event 1) ...
    // calendar_event_create: name has "calendar" (pack) and "event": 2+1 + 2+1 = 6
    // calendar_events_list: 2+1 + 2+1 = 6; calendar_calendars_list: 2+1 + 0 = 3
    // calendar_free_busy: 2+1 + 0+1 = 4; calendar_settings_get: 2+0 = 2.
    assert_eq!(
        loaded(&answer),
        [
            "calendar_event_create",
            "calendar_events_list",
            "calendar_free_busy",
            "calendar_calendars_list",
            "calendar_settings_get"
        ]
    );
    s.reset();
    let answer = search(&s, json!({"query": "attendees"}));
    assert_eq!(
        loaded(&answer),
        ["calendar_free_busy"],
        "description-only match (weight 1)"
    );
    s.reset();
    let answer = search(&s, json!({"query": "event", "max_results": 1}));
    assert_eq!(
        loaded(&answer),
        ["calendar_event_create"],
        "tie (2+1) broken alphabetically"
    );
}

#[test]
fn a_name_match_outweighs_a_description_match() {
    let t = charter_testkit::table(json!({"pack": "meet", "tools": [
        {"name": "agenda", "description": "Today's meeting list."},
        {"name": "zoom_meeting", "description": "Start a video call."},
        {"name": "notes", "description": "Meeting notes and the meeting agenda."}
    ]}));
    let s = session(&[t], classic(true, 0, None));
    // zoom_meeting: 2 (name); agenda, notes: 1 each (description, counted once), alphabetical.
    let answer = search(&s, json!({"query": "meeting"}));
    assert_eq!(
        loaded(&answer),
        ["meet_zoom_meeting", "meet_agenda", "meet_notes"]
    );
    s.reset();
    // Terms add up: agenda 2 (name) + 1 (meeting, description) = 3; notes (1+1) and
    // zoom_meeting (2) tie, alphabetical.
    let answer = search(&s, json!({"query": "agenda meeting"}));
    assert_eq!(
        loaded(&answer),
        ["meet_agenda", "meet_notes", "meet_zoom_meeting"]
    );
}

#[test]
fn keywords_use_the_default_of_five_and_drop_score_zero() {
    let s = session(&[tracker(), billing(), calendar()], classic(true, 0, None));
    let answer = search(&s, json!({"query": "list"}));
    // Names containing "list": 5 of them; descriptions containing "list": the same tools.
    let got = loaded(&answer);
    assert_eq!(
        got,
        [
            "billing_charges_list",
            "billing_refunds_list",
            "calendar_calendars_list",
            "calendar_events_list",
            "tracker_issues_list"
        ]
    );
    s.reset();
    let answer = search(&s, json!({"query": "xylophone"}));
    assert_eq!(loaded(&answer), Vec::<String>::new());
    assert!(
        answer["note"]
            .as_str()
            .unwrap()
            .contains("No tool matched `xylophone`")
    );
    assert_eq!(answer["available"].as_array().unwrap().len(), 14);
    assert_eq!(
        s.generation(),
        2,
        "one load, one reset; a miss changes nothing"
    );
}

#[test]
fn hints_count_like_the_description() {
    let s = session(&[tracker(), billing()], classic(true, 0, None));
    let answer = search(&s, json!({"query": "tickets"}));
    assert_eq!(loaded(&answer), ["tracker_issues_list"]);
}

#[test]
fn plus_term_filters_by_name_and_combines_with_keywords() {
    let s = session(&[tracker(), billing(), calendar()], classic(true, 0, None));
    let answer = search(&s, json!({"query": "+billing", "max_results": 10}));
    assert_eq!(
        loaded(&answer),
        [
            "billing_charges_list",
            "billing_customers_get",
            "billing_refunds_create",
            "billing_refunds_list"
        ],
        "+pack lists the pack's tools alphabetically"
    );
    s.reset();
    // Mixed: the name must contain "billing"; "refund" ranks (customers_get matches by
    // description only), and billing tools without "refund" anywhere are dropped.
    let answer = search(&s, json!({"query": "+billing refund"}));
    assert_eq!(
        loaded(&answer),
        [
            "billing_refunds_create",
            "billing_refunds_list",
            "billing_customers_get"
        ]
    );
    s.reset();
    // Two required terms.
    let answer = search(&s, json!({"query": "+tracker +issues"}));
    assert_eq!(
        loaded(&answer),
        [
            "tracker_issues_create",
            "tracker_issues_delete",
            "tracker_issues_list"
        ]
    );
    s.reset();
    // A required term nobody has: nothing, whatever the keywords.
    let answer = search(&s, json!({"query": "+github list"}));
    assert_eq!(loaded(&answer), Vec::<String>::new());
}

#[test]
fn a_query_without_terms_matches_nothing() {
    let s = session(&[tracker(), billing()], options(true, 0, None));
    for query in ["", "   ", "+", "+ +", "select:", "select: , ,"] {
        let answer = search(&s, json!({ "query": query }));
        assert_eq!(loaded(&answer), Vec::<String>::new(), "query {query:?}");
        assert!(
            answer["note"].as_str().unwrap().contains("matches nothing"),
            "{answer}"
        );
        assert_eq!(answer["available"].as_array().unwrap().len(), 9);
    }
    assert_eq!(s.generation(), 0);
    assert!(s.loaded().is_empty());
}

#[test]
fn max_results_coercions() {
    let s = session(&[tracker(), billing(), calendar()], options(true, 0, None));
    let count = |max: Option<Value>| -> Result<usize, String> {
        s.reset();
        let mut args = json!({"query": "+_"}); // every qualified name holds a `_`
        if let Some(max) = max {
            args["max_results"] = max;
        }
        match call(&s, TOOL_SEARCH, args) {
            Ok(out) => Ok(loaded(&out.structured.unwrap()).len()),
            Err(CharterError::Validation(m)) => Err(m),
            Err(other) => panic!("{other:?}"),
        }
    };
    assert_eq!(count(None), Ok(5), "absent");
    assert_eq!(count(Some(Value::Null)), Ok(5), "null");
    assert_eq!(count(Some(json!(0))), Ok(5), "0");
    assert_eq!(count(Some(json!(3.0))), Ok(3), "whole-number float");
    assert_eq!(count(Some(json!(2))), Ok(2));
    assert_eq!(count(Some(json!(100))), Ok(14));
    for bad in [json!(true), json!("ten"), json!(2.5), json!(-3)] {
        let message = count(Some(bad.clone())).expect_err("refused");
        assert!(message.contains("/max_results"), "{message}");
        assert!(message.contains("omit max_results"), "{message}");
    }
    let message = count(Some(json!("ten"))).unwrap_err();
    assert!(message.contains("got string \"ten\""), "{message}");
    let message = count(Some(json!(true))).unwrap_err();
    assert!(message.contains("got boolean true"), "{message}");
}

#[test]
fn toolsearch_arguments_are_validated() {
    let s = session(&[billing()], options(true, 0, None));
    let m = validation_message(call(&s, TOOL_SEARCH, json!({})));
    assert!(
        m.contains("/query: expected string (required), got nothing"),
        "{m}"
    );
    let m = validation_message(call(&s, TOOL_SEARCH, json!({"query": 5, "limit": 3})));
    assert!(m.contains("/query: expected string, got number 5"), "{m}");
    assert!(m.contains("/limit"), "{m}");
    assert!(m.contains("2 problems"), "{m}");
    let m = validation_message(call(&s, TOOL_SEARCH, json!(["select:x"])));
    assert!(m.contains("expected an object"), "{m}");
    // Arguments sent as JSON text are read.
    let out = call(
        &s,
        TOOL_SEARCH,
        json!("{\"query\":\"select:billing_refunds_list\"}"),
    )
    .unwrap();
    assert_eq!(loaded(&out.structured.unwrap()), ["billing_refunds_list"]);
    assert_eq!(s.generation(), 1);
}

#[test]
fn an_unloaded_tool_is_refused_with_the_select_query_that_loads_it() {
    let s = session(&[tracker()], options(true, 0, None));
    let m = validation_message(call(
        &s,
        "tracker_issues_delete",
        json!({"project": "A", "number": 1}),
    ));
    assert!(m.contains("not loaded"), "{m}");
    assert!(
        m.contains(r#"{"query": "select:tracker_issues_delete"}"#),
        "{m}"
    );
    // Following the advice works.
    search(&s, json!({"query": "select:tracker_issues_delete"}));
    let out = call(
        &s,
        "tracker_issues_delete",
        json!({"project": "A", "number": 1}),
    )
    .unwrap();
    assert_eq!(out.structured, Some(json!({"project": "A", "number": 1})));
}

#[test]
fn an_unknown_tool_lists_what_is_available() {
    let s = session(&[billing()], options(true, 0, None));
    search(&s, json!({"query": "select:billing_refunds_list"}));
    let m = validation_message(call(&s, "billing_refund", json!({})));
    assert!(m.contains("Unknown tool `billing_refund`"), "{m}");
    assert!(
        m.contains("Callable now: ToolSearch, billing_refunds_list."),
        "{m}"
    );
    assert!(
        m.contains("billing_charges_list, billing_customers_get, billing_refunds_create"),
        "{m}"
    );
}

#[test]
fn reset_clears_the_loaded_set() {
    let s = session(&[billing()], options(true, 0, None));
    let before = names(&s.visible());
    search(&s, json!({"query": "+refunds"}));
    assert_eq!(s.loaded().len(), 2);
    let g = s.generation();
    s.reset();
    assert_eq!(names(&s.visible()), before);
    assert!(s.loaded().is_empty());
    assert_eq!(s.generation(), g + 1);
    s.reset();
    assert_eq!(
        s.generation(),
        g + 1,
        "resetting an empty set changes nothing"
    );
    let m = validation_message(call(&s, "billing_refunds_list", json!({})));
    assert!(m.contains("select:billing_refunds_list"), "{m}");
    // A new conversation loads afresh, in its own order.
    search(
        &s,
        json!({"query": "select:billing_refunds_list,billing_refunds_create"}),
    );
    assert_eq!(
        s.loaded(),
        ["billing_refunds_list", "billing_refunds_create"]
    );
}

#[test]
fn annotations_by_name() {
    let s = session(&[tracker()], options(true, 0, None));
    let list = s.annotations("tracker_issues_list").unwrap();
    assert!(list.read_only && list.idempotent && !list.destructive);
    assert!(s.annotations("tracker_issues_delete").unwrap().destructive);
    assert_eq!(s.annotations(TOOL_SEARCH), Some(Annotations::default()));
    assert_eq!(s.annotations("nope"), None);
}

#[test]
fn all_lists_every_tool_in_declaration_order() {
    let s = session(&[billing(), tracker()], options(true, 0, None));
    let all = names(&s.all());
    let declared: Vec<&str> = billing()
        .tools
        .iter()
        .chain(tracker().tools)
        .map(|t| t.name)
        .collect();
    assert_eq!(all, declared);
}

#[test]
fn duplicate_qualified_names_are_refused_at_build() {
    let twin = charter_testkit::table(json!({
        "pack": "billing", "tools": [{"name": "refunds_list", "description": "Another one."}]
    }));
    let err = ToolSession::new(&[billing(), twin]).unwrap_err();
    assert!(err.message.contains("`billing_refunds_list`"), "{err}");
    let err = ToolSession::new(&[billing(), billing()]).unwrap_err();
    assert!(err.message.contains("both named"), "{err}");
}

#[test]
fn sessions_are_shared_across_threads() {
    let s = Arc::new(session(&[tracker(), billing()], options(true, 0, None)));
    let names: Vec<&'static str> = tracker()
        .tools
        .iter()
        .chain(billing().tools)
        .map(|t| t.name)
        .collect();
    std::thread::scope(|scope| {
        for name in &names {
            let s = Arc::clone(&s);
            scope.spawn(move || {
                search(&s, json!({ "query": format!("select:{name}") }));
                assert!(s.is_callable(name));
            });
        }
    });
    let mut loaded: Vec<&str> = s.loaded();
    assert_eq!(loaded.len(), 9);
    loaded.sort();
    assert_eq!(loaded, s.deferred());
    assert_eq!(s.generation(), 9);
    assert_eq!(
        names_of_visible(&s).len(),
        9,
        "ToolSearch leaves once everything is loaded"
    );
}

fn names_of_visible(s: &ToolSession) -> Vec<String> {
    names(&s.visible())
}

// ---------------------------------------------------------------------------------------------
// Toolkits: tools built at run time.

struct Remote {
    calls: std::sync::Mutex<Vec<(String, Value)>>,
}

impl Toolkit for Remote {
    fn pack(&self) -> &str {
        "remote"
    }

    fn tools(&self) -> Vec<DynamicTool> {
        let schema: Arc<str> =
            Arc::from(r#"{"type":"object","properties":{"q":{"type":"string"}}}"#);
        vec![
            DynamicTool {
                name: "remote_Search".into(),
                description: "Search the Remote wiki.".into(),
                tokens: text_tokens(&schema),
                schema: schema.clone(),
                annotations: Annotations::new()
                    .with_read_only(true)
                    .with_idempotent(true),
            },
            DynamicTool {
                name: "remote_tiny".into(),
                description: "Tiny.".into(),
                schema: "{}".into(),
                tokens: 0,
                annotations: Annotations::default(),
            },
        ]
    }

    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move {
            self.calls
                .lock()
                .unwrap()
                .push((tool.to_owned(), arguments.clone()));
            Ok(ToolOutput::text(format!("{tool} ran")))
        })
    }
}

#[test]
fn toolkit_tools_are_deferred_searched_and_called_through_the_toolkit() {
    let remote = Arc::new(Remote {
        calls: Default::default(),
    });
    let s = ToolSession::with_options(
        vec![Source::Table(billing()), Source::Toolkit(remote.clone())],
        options(true, 0, None),
    )
    .unwrap();
    assert_eq!(
        s.deferred().len(),
        6,
        "toolkit tools are deferred like any other, even at 0 tokens"
    );
    let answer = search(&s, json!({"query": "wiki"}));
    assert_eq!(loaded(&answer), ["remote_Search"]);
    let answer = search(&s, json!({"query": "select:REMOTE_TINY"}));
    assert_eq!(loaded(&answer), ["remote_tiny"]);
    assert!(s.annotations("remote_Search").unwrap().read_only);
    let visible = s.visible();
    let entry = visible.iter().find(|e| e.name == "remote_Search").unwrap();
    assert!(entry.schema.contains("\"q\""));
    // No local validation: the remote server validates its own tools.
    let out = call(&s, "remote_Search", json!({"anything": [1, 2]})).unwrap();
    assert_eq!(out.text, "remote_Search ran");
    assert_eq!(
        remote.calls.lock().unwrap().as_slice(),
        [("remote_Search".to_owned(), json!({"anything": [1, 2]}))]
    );
}

#[test]
fn a_toolkit_name_clash_is_refused() {
    struct Clash;
    impl Toolkit for Clash {
        fn pack(&self) -> &str {
            "billing"
        }
        fn tools(&self) -> Vec<DynamicTool> {
            vec![DynamicTool {
                name: "billing_charges_list".into(),
                description: "x".into(),
                schema: "{}".into(),
                tokens: 0,
                annotations: Annotations::default(),
            }]
        }
        fn call<'a>(
            &'a self,
            _: &'a str,
            _: Value,
            _: &'a CallContext,
        ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
            Box::pin(async { Ok(ToolOutput::text("")) })
        }
    }
    let err = ToolSession::with_options(
        vec![Source::Table(billing()), Source::Toolkit(Arc::new(Clash))],
        options(true, 0, None),
    )
    .unwrap_err();
    assert!(err.message.contains("billing_charges_list"), "{err}");
}

#[test]
fn names_sort_bytewise_across_packs_that_prefix_each_other() {
    use charter_testkit::table;
    let packs = ["a", "a-b", "ab", "a0", "b"];
    let tables: Vec<&'static charter_runtime::Table> = packs
        .iter()
        .map(|p| {
            table(json!({"pack": p, "tools": [{"name": "z"}, {"name": "x_y"}, {"name": "b"}]}))
        })
        .collect();
    let s = session(&tables, options(true, 0, None));
    let mut expected: Vec<String> = packs
        .iter()
        .flat_map(|p| ["z", "x_y", "b"].map(|t| format!("{p}_{t}")))
        .collect();
    expected.sort();
    assert_eq!(s.deferred(), expected);
    for name in &expected {
        assert!(s.tool_def(name).is_some(), "{name} is found by lookup");
    }
    // Toolkit-free mixed sources take the same order.
    let mixed = ToolSession::with_options(
        vec![
            Source::Tools(tables[1].tools),
            Source::Table(tables[0]),
            Source::Table(tables[4]),
        ],
        options(true, 0, None),
    )
    .unwrap();
    let mut want: Vec<&str> = [tables[1], tables[0], tables[4]]
        .iter()
        .flat_map(|t| t.tools.iter().map(|d| d.name))
        .collect();
    want.sort();
    assert_eq!(mixed.deferred(), want);
}
