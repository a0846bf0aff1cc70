//! ToolSearch's relevance ranking and the hybrid ranking (the default) built on it: the
//! contract points of docs/search.md. The classic ranking's exact scores stay pinned in
//! `session.rs`.

use crate::common;

use std::sync::Arc;

use charter_runtime::session::{
    DynamicTool, Ranking, SessionOptions, Source, ToolSession, Toolkit,
};
use charter_runtime::table::{BoxFuture, SearchData, ToolDef};
use charter_runtime::{Annotations, CallContext, CharterError, Table, ToolOutput};
use charter_testkit as testing;
use common::*;
use serde_json::{Value, json};

/// A session ranking by relevance alone: its rules are what these tests pin.
fn relevance(tables: &[&'static Table]) -> ToolSession {
    session(
        tables,
        options(true, 0, None).with_ranking(Ranking::Relevance),
    )
}

fn hybrid(tables: &[&'static Table]) -> ToolSession {
    session(tables, options(true, 0, None).with_ranking(Ranking::Hybrid))
}

fn top(s: &ToolSession, query: &str, max: usize) -> Vec<String> {
    let answer = s.search(query, Some(max));
    s.reset();
    answer.loaded
}

fn first(s: &ToolSession, query: &str) -> String {
    top(s, query, 1).into_iter().next().unwrap_or_default()
}

/// A small catalogue in the style of the shipped packs.
fn office() -> &'static Table {
    testing::table(json!({"pack": "office", "tools": [
        {"name": "sheets_values_get", "description": "Read a range of cells from a spreadsheet.",
         "params": {"spreadsheet_id": {"type": "string", "description": "The spreadsheet."}}},
        {"name": "pulls_create", "description": "Open a pull request from a head branch.",
         "params": {"head": {"type": "string", "description": "Head branch."}}},
        {"name": "pulls_list", "description": "List pull requests of a repository."},
        {"name": "customers_list", "description": "List customers, newest first."},
        {"name": "events_list", "description": "List the events on a calendar."},
        {"name": "cycles_current", "description": "The current cycle of a team, with its issues."},
        {"name": "issues_create", "description": "Create an issue in a team."},
        {"name": "messages_send", "description": "Send an email message."},
        {"name": "chat_post_message", "description": "Post a message to a channel.",
         "hints": ["say something"]}
    ]}))
}

#[test]
fn hybrid_is_the_default_ranking() {
    assert_eq!(SessionOptions::default().ranking, Ranking::Hybrid);
    assert_eq!(Ranking::default(), Ranking::Hybrid);
    assert_eq!("classic".parse::<Ranking>(), Ok(Ranking::Classic));
    assert_eq!("best".parse::<Ranking>(), Ok(Ranking::Hybrid));
    assert_eq!("HYBRID".parse::<Ranking>(), Ok(Ranking::Hybrid));
    assert_eq!("Relevance".parse::<Ranking>(), Ok(Ranking::Relevance));
    assert!("fuzzy".parse::<Ranking>().unwrap_err().contains("classic"));
}

#[test]
fn terms_match_whole_words_only() {
    let s = relevance(&[office()]);
    // "pr" is inside "spreadsheet" but is no word of any tool here: it finds the pull request
    // tools through the synonym table (PR = pull request), and nothing else.
    let got = top(&s, "pr", 10);
    assert!(!got.is_empty());
    assert!(
        got.iter().all(|n| n.starts_with("office_pulls_")),
        "{got:?}"
    );
    // "cust" is a prefix of "customers", not a word.
    assert!(top(&s, "cust", 10).is_empty());
    // Classic matches substrings, inside words.
    let classic = session(&[office()], classic(true, 0, None));
    let got = top(&classic, "pr", 10);
    assert!(
        got.contains(&"office_sheets_values_get".to_owned()),
        "{got:?}"
    );
}

#[test]
fn inflections_stem_to_the_same_term() {
    let s = relevance(&[office()]);
    assert_eq!(first(&s, "event"), "office_events_list");
    assert_eq!(first(&s, "calendars"), "office_events_list");
    assert_eq!(first(&s, "creating issues"), "office_issues_create");
    assert_eq!(first(&s, "created issue"), "office_issues_create");
    assert_eq!(first(&s, "pulling requests"), "office_pulls_list");
}

#[test]
fn the_synonym_table_applies_to_the_query() {
    let s = relevance(&[office()]);
    // The tools never say these words.
    assert_eq!(first(&s, "meeting"), "office_events_list");
    assert_eq!(first(&s, "sprint"), "office_cycles_current");
    assert_eq!(first(&s, "ticket"), "office_issues_create");
    assert!(first(&s, "PRs").starts_with("office_pulls_"));
    assert_eq!(first(&s, "open a PR"), "office_pulls_create");
    assert_eq!(first(&s, "clients"), "office_customers_list");
    // A typed word counts more than a synonym of it: "message" is in both descriptions, and
    // "email" only in one.
    assert_eq!(first(&s, "email"), "office_messages_send");
    assert_eq!(first(&s, "post message"), "office_chat_post_message");
}

#[test]
fn fields_weigh_name_over_hint_over_description_over_parameter() {
    let t = testing::table(json!({"pack": "w", "tools": [
        {"name": "aa_param", "description": "Something.",
         "params": {"widget": {"type": "string", "description": "X."}}},
        {"name": "bb_desc", "description": "A widget tool."},
        {"name": "cc_hint", "description": "Something else.", "hints": ["widget"]},
        {"name": "dd_widget", "description": "Does things."}
    ]}));
    let s = relevance(&[t]);
    assert_eq!(
        top(&s, "widget", 10),
        ["w_dd_widget", "w_cc_hint", "w_bb_desc", "w_aa_param"]
    );
}

#[test]
fn hybrid_loads_what_the_keywords_found_and_nothing_else() {
    let t = testing::table(json!({"pack": "chat", "tools": [
        {"name": "channels_archive", "description": "Archive a channel."},
        {"name": "channels_rename", "description": "Rename a channel."},
        {"name": "messages_post", "description": "Post a message to a channel, as the bot."},
        {"name": "pins_add", "description": "Pin a message in a channel."},
        {"name": "weather_get", "description": "Today's forecast for a city."}
    ]}));
    let (keywords, both) = (relevance(&[t]), hybrid(&[t]));
    for query in ["channel", "message in a channel", "post to the channel"] {
        let mut a = top(&keywords, query, 10);
        let mut b = top(&both, query, 10);
        a.sort();
        b.sort();
        assert_eq!(a, b, "{query}: the same tools, in whatever order");
    }
    // Nothing the keywords miss is loaded, however near in meaning (a forecast is not a
    // channel, but it is the nearest tool to `weather` there is).
    assert_eq!(top(&both, "forecast", 10), ["chat_weather_get"]);
    assert!(
        top(&both, "weather tomorrow zzzz", 10)
            .iter()
            .all(|n| n == "chat_weather_get")
    );
    assert!(top(&both, "zzzz", 10).is_empty());
    assert!(top(&both, "sunshine", 10).is_empty());
}

#[test]
fn hybrid_scores_hand_built_tools_from_their_text() {
    // Definitions built by hand carry no compiled vectors: the session derives them. Two hold
    // the keyword `file` alike (relevance breaks the tie by the alphabet); the rest hold no
    // word of the query but are nearer it in meaning than printing is. The semantic order then
    // puts the music file first and the printed one past its ninth place, which the fusion's
    // light weight needs to overturn a keyword tie.
    const fn def(name: &'static str, tool: &'static str, description: &'static str) -> ToolDef {
        ToolDef::new(
            name,
            "h",
            tool,
            description,
            charter_runtime::table::Exec::Rust(testing::echo),
        )
        // Lowercase but the first letter, which no query term depends on.
        .with_search(SearchData::new(description, &[]))
    }
    static TOOLS: [ToolDef; 11] = [
        def("h_a", "a", "Print a file on paper."),
        def("h_b", "b", "Play a file of music aloud."),
        def("h_c", "c", "Hear a melody."),
        def("h_d", "d", "Audio of music."),
        def("h_e", "e", "Hear audio."),
        def("h_f", "f", "Play an audio track."),
        def("h_g", "g", "Hear some music."),
        def("h_h", "h", "Play an album of music."),
        def("h_i", "i", "Music playback."),
        def("h_j", "j", "Hear a sound."),
        def("h_k", "k", "Record audio."),
    ];
    let with = |ranking| {
        ToolSession::with_options(
            vec![Source::Tools(&TOOLS)],
            options(true, 0, None).with_ranking(ranking),
        )
        .unwrap()
    };
    assert_eq!(
        top(&with(Ranking::Relevance), "listen to a song file", 10),
        ["h_a", "h_b"]
    );
    assert_eq!(
        top(&with(Ranking::Hybrid), "listen to a song file", 10),
        ["h_b", "h_a"]
    );
}

#[test]
fn rare_terms_outweigh_common_ones() {
    // "list" is in every name; "refund" in one description only.
    let t = testing::table(json!({"pack": "p", "tools": [
        {"name": "charges_list", "description": "List charges."},
        {"name": "disputes_list", "description": "List disputes."},
        {"name": "payouts_list", "description": "List payouts."},
        {"name": "refunds_list", "description": "List refund objects."}
    ]}));
    let s = relevance(&[t]);
    assert_eq!(first(&s, "list refund"), "p_refunds_list");
}

#[test]
fn ties_prefer_the_plain_tool_then_the_kind_asked_for_then_the_shorter_name_not_the_alphabet() {
    let t = testing::table(json!({"pack": "cal", "tools": [
        {"name": "events_import", "description": "Calendar events."},
        {"name": "events_quick_add", "description": "Calendar events."},
        {"name": "events_list", "description": "Calendar events."},
        {"name": "events_get", "description": "Calendar events."},
        {"name": "events_delete", "description": "Calendar events."},
        {"name": "events_watch", "description": "Calendar events."}
    ]}));
    let s = relevance(&[t]);
    // Equal scores: the plain list/get first (of those, a plural asks for the list), then the
    // plain delete of one item, then the variants by length; the alphabet last.
    assert_eq!(
        top(&s, "events", 10),
        [
            "cal_events_list",
            "cal_events_get",
            "cal_events_delete",
            "cal_events_watch",
            "cal_events_import",
            "cal_events_quick_add"
        ]
    );
    // No plural asks for one item: the get before the list.
    assert_eq!(
        top(&s, "event", 10),
        [
            "cal_events_get",
            "cal_events_list",
            "cal_events_delete",
            "cal_events_watch",
            "cal_events_import",
            "cal_events_quick_add"
        ]
    );
}

#[test]
fn more_of_the_query_matched_beats_one_rare_word() {
    let t = testing::table(json!({"pack": "p", "tools": [
        {"name": "history_get", "description": "What changed in the mailbox."},
        {"name": "charges_list", "description": "The payments made by card."},
        {"name": "notes_list", "description": "Notes."}
    ]}));
    let s = relevance(&[t]);
    // "history" is in one tool's name (weight 3); "card" and "payment" are in the other's
    // description (1 + 1): matching two of the three words wins.
    assert_eq!(first(&s, "card payment history"), "p_charges_list");
    assert_eq!(first(&s, "history"), "p_history_get");
}

#[test]
fn the_first_word_matches_the_verb_a_description_opens_with() {
    let t = testing::table(json!({"pack": "gh", "tools": [
        {"name": "comments_get", "description": "Get one comment on an issue."},
        {"name": "comments_create", "description": "Comment on an issue."},
        {"name": "comments_list", "description": "List the comments on an issue."}
    ]}));
    let s = relevance(&[t]);
    assert_eq!(first(&s, "comment on issue"), "gh_comments_create");
    // Elsewhere in the query, the same word is only a word.
    assert_eq!(first(&s, "issue comment"), "gh_comments_get");
}

#[test]
fn plus_term_still_requires_the_name_to_contain_it() {
    let s = relevance(&[tracker(), billing(), calendar()]);
    // Substring of the name, as in docs/design.md §4: `+bill` keeps the billing pack.
    let got = top(&s, "+bill refund", 10);
    assert!(!got.is_empty());
    assert!(got.iter().all(|n| n.starts_with("billing_")), "{got:?}");
    assert!(got[0].starts_with("billing_refunds_"), "{got:?}");
    // Only required terms: every tool passing the filter, plain tools first.
    let all = top(&s, "+billing", 10);
    assert_eq!(all.len(), billing().tools.len());
    assert!(all.iter().all(|n| n.starts_with("billing_")));
    // Two required terms, and a required term nobody has.
    let got = top(&s, "+tracker +issues", 10);
    assert!(!got.is_empty() && got.iter().all(|n| n.starts_with("tracker_issues_")));
    assert!(top(&s, "+github list", 10).is_empty());
}

#[test]
fn a_query_without_usable_terms_matches_nothing() {
    let s = relevance(&[tracker(), billing()]);
    for query in [
        "",
        "   ",
        "+",
        "+ +",
        "select:",
        "the",
        "a an the of",
        "?! -- ,",
    ] {
        let answer = s.search(query, None);
        assert!(
            answer.loaded.is_empty(),
            "query {query:?}: {:?}",
            answer.loaded
        );
        assert!(!answer.available.is_empty(), "query {query:?}");
    }
    assert!(s.loaded().is_empty());
    assert_eq!(s.generation(), 0);
    // A stop word beside a required term leaves the filter.
    let got = top(&s, "the +billing", 10);
    assert_eq!(got.len(), billing().tools.len());
}

#[test]
fn select_is_unchanged() {
    let s = relevance(&[tracker(), billing()]);
    let answer = s.search(
        "select:BILLING_refunds_list, tracker_issues_list,nope",
        Some(1),
    );
    assert_eq!(
        answer.loaded,
        ["billing_refunds_list", "tracker_issues_list"]
    );
    assert_eq!(answer.unknown, ["nope"]);
}

#[test]
fn the_answer_lists_loaded_names_in_rank_order() {
    let s = relevance(&[office()]);
    // Only pulls_create says "branch"; both pull tools say "pull request"; the sheet tool says
    // neither.
    let answer = s.search("branch pull request", Some(5));
    assert_eq!(answer.loaded, ["office_pulls_create", "office_pulls_list"]);
    // The load order (what the model sees appended) is the rank order.
    assert_eq!(s.loaded(), answer.loaded);
}

#[test]
fn max_results_limits_and_defaults_to_five() {
    let s = relevance(&[tracker(), billing(), calendar()]);
    assert_eq!(top(&s, "list", 2).len(), 2);
    let answer = s.search("list get create", None);
    assert_eq!(answer.loaded.len(), 5);
}

#[test]
fn hand_built_definitions_are_searchable_from_their_text() {
    // A definition written by hand, without generated terms: the index derives them.
    static TOOLS: [ToolDef; 1] = [ToolDef::new(
        "hand_weather_now",
        "hand",
        "weather_now",
        "Current weather for a city.",
        charter_runtime::table::Exec::Rust(testing::echo),
    )
    .with_annotations(
        Annotations::new()
            .with_read_only(true)
            .with_idempotent(true)
            .with_open_world(true),
    )
    .with_input(&charter_runtime::table::ObjectShape::of(&[]))
    .with_views(&[charter_runtime::table::View::new(
        charter_runtime::table::ViewKey::Default,
        r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        15,
    )
    .with_widest(true)])
    .with_search(SearchData::new(
        "current weather for a city.",
        &["forecast"],
    ))];
    let s =
        ToolSession::with_options(vec![Source::Tools(&TOOLS)], SessionOptions::default()).unwrap();
    assert_eq!(top(&s, "cities", 5), ["hand_weather_now"]);
    assert_eq!(top(&s, "forecast", 5), ["hand_weather_now"]);
    assert_eq!(top(&s, "weather", 5), ["hand_weather_now"]);
    assert!(top(&s, "eat", 5).is_empty(), "no match inside `weather`");
}

struct Wiki;

impl Toolkit for Wiki {
    fn pack(&self) -> &str {
        "wiki"
    }

    fn tools(&self) -> Vec<DynamicTool> {
        ["wiki_pages_search", "wiki_pages_create"]
            .into_iter()
            .zip(["Search the wiki's pages.", "Create a wiki page."])
            .map(|(name, description)| DynamicTool {
                name: name.into(),
                description: description.into(),
                schema: "{}".into(),
                tokens: 0,
                annotations: Annotations::default(),
            })
            .collect()
    }

    fn call<'a>(
        &'a self,
        tool: &'a str,
        _: Value,
        _: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async move { Ok(ToolOutput::text(tool)) })
    }
}

#[test]
fn toolkit_tools_rank_from_their_text() {
    let s = ToolSession::with_options(
        vec![Source::Table(billing()), Source::Toolkit(Arc::new(Wiki))],
        SessionOptions::default(),
    )
    .unwrap();
    assert_eq!(first(&s, "new page"), "wiki_pages_create");
    assert_eq!(first(&s, "find pages"), "wiki_pages_search");
    // The pack label counts as a term.
    assert_eq!(top(&s, "wiki", 5).len(), 2);
}

#[test]
fn a_plural_outweighs_a_slightly_better_match_for_a_list() {
    let t = testing::table(json!({"pack": "p", "tools": [
        {"name": "cards_attach", "description": "Save a card to a customer."},
        {"name": "cards_list", "description": "Cards a customer chose to save."},
        {"name": "notes_create", "description": "Save a note."},
        {"name": "files_create", "description": "Save a file."},
        {"name": "drafts_create", "description": "Save a draft."},
        {"name": "views_create", "description": "Save a view."}
    ]}));
    let s = relevance(&[t]);
    // `save` (common here, so worth little) opens the attach tool's description: it outscores
    // the list by a little; a plural asks for a collection, and that outweighs it.
    assert_eq!(first(&s, "save card"), "p_cards_attach");
    assert_eq!(first(&s, "saved cards"), "p_cards_list");
}

#[test]
fn the_tool_whose_resource_the_query_names_wins_a_near_tie() {
    let t = testing::table(json!({"pack": "gh", "tools": [
        {"name": "pulls_runs_approve", "description": "Approve a run for a pull request."},
        {"name": "runs_pulls_approve", "description": "Approve a run for a pull request."}
    ]}));
    let s = relevance(&[t]);
    // The same words in the same fields: only the resource (the name's first word) tells them
    // apart, and the tool about what the query names wins over the alphabet.
    assert_eq!(first(&s, "approve pull"), "gh_pulls_runs_approve");
    assert_eq!(first(&s, "approve run"), "gh_runs_pulls_approve");
}

#[test]
fn a_query_holding_a_whole_hint_phrase_prefers_its_tool() {
    let t = testing::table(json!({"pack": "p", "tools": [
        {"name": "replies_list", "description": "Replies.", "hints": ["thread", "replies"]},
        {"name": "replies_list_all", "description": "Replies.", "hints": ["thread replies"]}
    ]}));
    let s = relevance(&[t]);
    // The same terms in the same fields: the plain tool wins the tie, unless the query holds
    // the other tool's hint whole.
    assert_eq!(first(&s, "thread"), "p_replies_list");
    assert_eq!(first(&s, "thread replies"), "p_replies_list_all");
}

/// A catalogue whose names are far past the names budget: 150 packs of 4 tools, each pack with
/// a long description.
fn crowd() -> Vec<&'static Table> {
    (0..150)
        .map(|p| {
            let tools: Vec<Value> = ["records_list", "records_get", "records_create", "messages_send"]
                .iter()
                .map(|t| json!({"name": t, "description": "Does one thing."}))
                .collect();
            testing::table(json!({
                "pack": format!("svc{p}"),
                "description": format!("Service number {p}: records, messages and members, with a description long enough to matter."),
                "tools": tools
            }))
        })
        .collect()
}

#[test]
fn a_miss_past_the_names_budget_answers_nearest_names_and_pack_lines() {
    let s = relevance(&crowd());
    let answer = search(&s, json!({"query": "zzzqqq frobnicate"}));
    let text = answer.to_string();
    // 600 names would be about 4,000 tokens; the answer stays near 1,000 whatever the catalogue.
    assert!(text.len() <= 4_000, "{} bytes: {text}", text.len());
    assert!(answer.get("available").is_none(), "{text}");
    let packs: Vec<&str> = answer["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(packs[0].starts_with("svc0: Service number 0"), "{packs:?}");
    assert!(
        packs
            .iter()
            .all(|p| p.ends_with("(4 tools)") || p.starts_with("..."))
    );
    // Past the budget: labels and counts, then how many were left out.
    assert!(
        packs
            .iter()
            .any(|p| p.starts_with("svc") && !p.contains(':') && p.ends_with(" (4 tools)")),
        "{packs:?}"
    );
    assert!(packs.last().unwrap().starts_with("... and "), "{packs:?}");
    let note = answer["note"].as_str().unwrap();
    assert!(
        note.contains("No tool matched `zzzqqq frobnicate`"),
        "{note}"
    );
    assert!(
        note.contains("`+<pack>`") && note.contains("select:"),
        "{note}"
    );
    assert_eq!(s.generation(), 0, "a miss loads nothing");

    // A misspelt word finds the names holding it; a misspelt name its tool.
    let answer = search(&s, json!({"query": "zzzqqq mesages"}));
    let nearest = answer["nearest"].as_array().unwrap();
    assert!(!nearest.is_empty() && nearest.len() <= 8, "{answer}");
    assert!(
        nearest
            .iter()
            .all(|n| n.as_str().unwrap().contains("_messages_")),
        "{answer}"
    );
    let answer = search(
        &s,
        json!({"query": "select:svc7_records_craete,svc7_records_get"}),
    );
    assert_eq!(loaded(&answer), ["svc7_records_get"]);
    assert_eq!(answer["unknown"], json!(["svc7_records_craete"]));
    assert_eq!(answer["nearest"][0], "svc7_records_create", "{answer}");
    assert!(answer.to_string().len() <= 4_000);
    assert!(
        answer["note"].as_str().unwrap().contains("`nearest`"),
        "{answer}"
    );
}

#[test]
fn calling_an_unknown_tool_past_the_names_budget_names_the_closest() {
    let s = relevance(&crowd());
    let message = validation_message(call(&s, "svc3_records_lst", json!({})));
    assert!(message.len() < 1_000, "{} bytes: {message}", message.len());
    assert!(message.contains("Callable now: ToolSearch."), "{message}");
    assert!(
        message.contains("Closest names: svc3_records_list"),
        "{message}"
    );
    assert!(
        message.contains("ToolSearch (keywords, `+<pack>`"),
        "{message}"
    );
}
