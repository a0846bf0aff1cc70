//! docs/design.md §6: argument validation against the view in force, every error in one message.

use crate::common;

use charter_runtime::Annotations;
use charter_runtime::CharterError;
use charter_runtime::session::{Source, ToolSession};
use charter_runtime::table::{
    ArrayRules, Exec, Field, ObjectShape, SearchData, Shape, Table, ToolDef, View, ViewKey,
};
use charter_testkit as testing;
use common::*;
use serde_json::{Value, json};

fn create(arguments: Value) -> Result<Value, String> {
    let s = session(&[tracker()], options(false, 0, None));
    match call(&s, "tracker_issues_create", arguments) {
        Ok(out) => Ok(out.structured.unwrap()),
        Err(CharterError::Validation(m)) => Err(m),
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn a_valid_call_passes_unchanged() {
    let args = json!({
        "project": "A", "title": "Checkout fails", "due_on": "2026-11-30", "labels": ["bug", "ui"],
        "assignee": {"login": "ada", "notify": true}, "priority": 4, "meta": {"votes": 3},
        "parent": null, "target": "main", "email": "ada@example.com", "website": "https://x.example/a",
        "ticket": "123e4567-e89b-12d3-a456-426614174000", "started": "2026-11-30T09:30:00+01:00", "code": "ABC-12"
    });
    assert_eq!(create(args.clone()), Ok(args));
}

#[test]
fn every_problem_is_reported_in_one_message_with_its_path() {
    let m = create(json!({
        "title": "",
        "due_on": "2026-02-30",
        "labels": ["ok", 5, "toolong", "x"],
        "assignee": {"notify": "yes", "extra": 1},
        "priority": 9,
        "meta": {"votes": "many"},
        "parent": "1",
        "target": "ab",
        "email": "nobody",
        "website": "not a uri",
        "ticket": "1234",
        "started": "yesterday",
        "code": "abc-12",
        "colour": "red"
    }))
    .unwrap_err();
    let expected = [
        "/colour: expected no `colour`: unknown field; this object takes only project, title,",
        "/project: expected string (required), got nothing",
        "/title: expected at least 1 character, got string \"\" (0)",
        "/due_on: expected a date such as 2026-11-30, got string \"2026-02-30\"",
        "/labels: expected at most 3 items, got 4 items",
        "/labels/1: expected string, got number 5",
        "/labels/2: expected at most 5 characters, got string \"toolong\" (7)",
        "/assignee/extra: expected no `extra`: unknown field; this object takes only login, notify",
        "/assignee/login: expected string (required), got nothing",
        "/assignee/notify: expected boolean, got string \"yes\"",
        "/priority: expected a number <= 4, got number 9",
        "/meta/votes: expected integer, got string \"many\"",
        "/parent: expected integer or null, got string \"1\"",
        "/target: expected one of (string | integer), got string \"ab\"",
        "/email: expected an e-mail address",
        "/website: expected an absolute URI",
        "/ticket: expected a UUID",
        "/started: expected an RFC 3339 date-time",
        "/code: expected a string matching the pattern ^[A-Z]{3}-[0-9]+$, got string \"abc-12\"",
    ];
    for line in expected {
        assert!(m.contains(line), "missing {line:?} in:\n{m}");
    }
    assert!(m.starts_with("Invalid arguments for `tracker_issues_create` (19 problems); fix them all and call again:"), "{m}");
    assert_eq!(m.lines().count(), 20, "{m}");
}

#[test]
fn withheld_and_host_owned_fields_are_extra_keys() {
    let m = create(json!({"project": "A", "title": "t", "server_id": "s", "assignee": {"login": "a", "legacy_flag": true}})).unwrap_err();
    assert!(m.contains("/server_id: expected no `server_id`"), "{m}");
    assert!(
        m.contains("/assignee/legacy_flag: expected no `legacy_flag`"),
        "{m}"
    );
}

#[test]
fn nested_objects_and_arrays_sent_as_json_text_are_accepted() {
    let out = create(json!({
        "project": "A", "title": "t",
        "assignee": "{\"login\": \"ada\"}",
        "labels": "[\"bug\"]",
        "meta": "{\"votes\": 2}"
    }))
    .unwrap();
    assert_eq!(out["assignee"], json!({"login": "ada"}));
    assert_eq!(out["labels"], json!(["bug"]));
    assert_eq!(out["meta"], json!({"votes": 2}));
    // Text that is not JSON of the right kind is still refused, with the path.
    let m = create(json!({"project": "A", "title": "t", "assignee": "{not json", "labels": "bug"}))
        .unwrap_err();
    assert!(
        m.contains("/assignee: expected object, got string \"{not json\""),
        "{m}"
    );
    assert!(
        m.contains("/labels: expected array of string, got string \"bug\""),
        "{m}"
    );
    // The text's contents are validated like any object.
    let m =
        create(json!({"project": "A", "title": "t", "assignee": "{\"login\": 1}"})).unwrap_err();
    assert!(
        m.contains("/assignee/login: expected string, got number 1"),
        "{m}"
    );
}

#[test]
fn numbers_integers_and_enums() {
    let s = session(&[tracker()], options(false, 0, None));
    let list = |args: Value| call(&s, "tracker_issues_list", args);
    assert!(list(json!({"project": "A", "per_page": 100})).is_ok());
    assert!(
        list(json!({"project": "A", "per_page": 3.0})).is_ok(),
        "a whole float is an integer"
    );
    let m = validation_message(list(
        json!({"project": "A", "per_page": 2.5, "state": "shut"}),
    ));
    assert!(
        m.contains("/per_page: expected integer, got number 2.5"),
        "{m}"
    );
    assert!(
        m.contains("/state: expected one of \"open\", \"closed\", \"all\", got string \"shut\""),
        "{m}"
    );
    let m = validation_message(list(json!({"project": "A", "per_page": 0})));
    assert!(
        m.contains("/per_page: expected a number >= 1, got number 0"),
        "{m}"
    );
    let m = validation_message(list(json!({"project": 7})));
    assert!(m.contains("/project: expected string, got number 7"), "{m}");
}

#[test]
fn one_of_must_match_exactly_one() {
    assert!(create(json!({"project": "A", "title": "t", "target": 3})).is_ok());
    assert!(create(json!({"project": "A", "title": "t", "target": "main"})).is_ok());
    let m = create(json!({"project": "A", "title": "t", "target": true})).unwrap_err();
    assert!(
        m.contains("/target: expected one of (string | integer), got boolean true"),
        "{m}"
    );
    let both = testing::table(json!({"pack": "amb", "tools": [{"name": "t", "params": {
        "v": {"one_of": [{"type": "number"}, {"type": "integer"}], "description": "V."}
    }}]}));
    let s = session(&[both], options(false, 0, None));
    let m = validation_message(call(&s, "amb_t", json!({"v": 1})));
    assert!(m.contains("matches 2 of them"), "{m}");
    assert!(call(&s, "amb_t", json!({"v": 1.5})).is_ok());
}

/// Groups of a nested object or list item are checked at its path; the tool's own at the top.
#[test]
fn groups_are_checked_at_the_object_they_belong_to() {
    let t = testing::table(json!({"pack": "grp", "tools": [{"name": "batch",
        "require_exactly_one_of": [["form_id"], ["form_url"]],
        "params": {
            "form_id": {"type": "string", "description": "Id."},
            "form_url": {"type": "string", "description": "URL."},
            "requests": {"type": "array", "description": "Changes.", "items": {
                "type": "object",
                "require_exactly_one_of": [["create"], ["delete"]],
                "properties": {
                    "create": {"type": "string", "description": "C."},
                    "delete": {"type": "string", "description": "D."}
                }
            }},
            "dup": {"type": "object", "nullable": true, "description": "Dup.",
                "require_exactly_one_of": [["url"], ["number"]],
                "properties": {
                    "url": {"type": "string", "description": "U."},
                    "number": {"type": "integer", "description": "N."}
                }
            },
            "link": {"type": "object", "nullable": true, "description": "L.",
                "require_one_of": [["url"], ["a", "b"]],
                "properties": {
                    "url": {"type": "string", "description": "U."},
                    "a": {"type": "string", "description": "A."},
                    "b": {"type": "string", "description": "B."}
                }
            }
        }
    }]}));
    let s = session(&[t], options(false, 0, None));
    let ok = json!({"form_id": "f", "requests": [{"create": "x"}, {"delete": "y"}],
                    "link": {"a": "1", "b": "2"}});
    assert!(call(&s, "grp_batch", ok).is_ok());
    // `null` for a nullable object is not an object: its groups do not apply.
    assert!(
        call(
            &s,
            "grp_batch",
            json!({"form_url": "u", "link": null, "dup": null})
        )
        .is_ok()
    );
    assert!(
        call(
            &s,
            "grp_batch",
            json!({"form_url": "u", "dup": {"number": 3}})
        )
        .is_ok()
    );
    let m = validation_message(call(
        &s,
        "grp_batch",
        json!({"form_id": "f", "form_url": "u",
               "requests": [{"create": "x"}, {}, {"create": "x", "delete": "y"}],
               "link": {"a": "1"}, "dup": {}}),
    ));
    for part in [
        "expected exactly one of: `form_id`, or `form_url`, got 2 of them: `form_id`, `form_url`",
        "/requests/1: expected exactly one of: `create`, or `delete`, got none of them",
        "/requests/2: expected exactly one of: `create`, or `delete`, got 2 of them: `create`, `delete`",
        "/link: expected at least one of: `url`, or `a` and `b`, got none of them",
        "/dup: expected exactly one of: `url`, or `number`, got none of them",
    ] {
        assert!(m.contains(part), "{part}\n{m}");
    }
    assert!(!m.contains("/requests/0"), "{m}");
}

#[test]
fn arguments_that_are_not_an_object_are_refused() {
    let s = session(&[tracker()], options(false, 0, None));
    let m = validation_message(call(&s, "tracker_ping", json!([1])));
    assert!(
        m.contains("(arguments): expected an object of named arguments, got an array of 1 item"),
        "{m}"
    );
    // null and JSON text of an object are read as arguments.
    assert_eq!(
        call(&s, "tracker_ping", Value::Null).unwrap().structured,
        Some(json!({}))
    );
    assert!(
        call(
            &s,
            "tracker_issues_delete",
            json!("{\"project\":\"A\",\"number\":1}")
        )
        .is_ok()
    );
    let m = validation_message(call(&s, "tracker_ping", json!("nope")));
    assert!(m.contains("got string \"nope\""), "{m}");
}

#[test]
fn long_values_are_cut_in_messages() {
    let m = create(json!({"project": "A", "title": "x".repeat(500)})).unwrap_err();
    assert!(m.len() < 400, "{m}");
    assert!(m.contains("(500)"), "{m}");
}

// A recursive shape, hand-built: a tree whose nodes hold children of the same shape.
static NODE_FIELDS: [Field; 1] = [Field::new("children", "Child nodes.", &CHILDREN)];
static NODE: Shape = Shape::Object(ObjectShape::of(&NODE_FIELDS));
static CHILDREN: Shape = Shape::Array(ArrayRules::of(&NODE));
static ROOT_FIELDS: [Field; 1] = [Field::new("tree", "A tree.", &NODE).with_required(true)];
static ROOT: ObjectShape = ObjectShape::of(&ROOT_FIELDS);
const TREE_SCHEMA: &str = r##"{"type":"object","properties":{"tree":{"$ref":"#/$defs/Node","description":"A tree."}},"required":["tree"],"additionalProperties":false,"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","description":"Child nodes.","items":{"$ref":"#/$defs/Node"}}},"additionalProperties":false}}}"##;
static TREE_VIEWS: [View; 2] = [
    View::new(ViewKey::Default, TREE_SCHEMA, 0).with_widest(true),
    View::new(ViewKey::Unmatched, TREE_SCHEMA, 0),
];
static TREE_TOOLS: [ToolDef; 1] = [ToolDef::new(
    "trees_walk",
    "trees",
    "walk",
    "Walk a tree.",
    Exec::Rust(testing::echo),
)
.with_annotations(
    Annotations::new()
        .with_read_only(true)
        .with_idempotent(true),
)
.with_input(&ROOT)
.with_views(&TREE_VIEWS)
.with_search(SearchData::new("walk a tree.", &[]))];
static TREES: Table = Table::new("trees", "Trees.", &TREE_TOOLS);

fn nest(levels: usize) -> Value {
    let mut node = json!({});
    for _ in 0..levels {
        node = json!({ "children": [node] });
    }
    node
}

#[test]
fn recursion_is_limited_with_a_clear_error() {
    let s =
        ToolSession::with_options(vec![Source::Table(&TREES)], options(false, 0, None)).unwrap();
    assert!(call(&s, "trees_walk", json!({ "tree": nest(20) })).is_ok());
    let m = validation_message(call(&s, "trees_walk", json!({ "tree": nest(60) })));
    assert!(
        m.contains("expected at most 64 levels of nesting, got deeper nesting"),
        "{m}"
    );
    assert!(m.contains("/tree/children/0/children/0/"), "{m}");
    assert_eq!(m.lines().count(), 2, "one problem, not one per level: {m}");
    // A wrong value deep inside is found with its full path.
    let mut bad = nest(3);
    bad["children"][0]["children"][0]["children"][0]["extra"] = json!(1);
    let m = validation_message(call(&s, "trees_walk", json!({ "tree": bad })));
    assert!(
        m.contains("/tree/children/0/children/0/children/0/extra: expected no `extra`"),
        "{m}"
    );
    // The egress map stops at the recursion.
    let map = charter_runtime::egress_map(&s).to_json();
    assert_eq!(map["tools"][0]["visible"], json!(["tree", "tree.children"]));
}

#[test]
fn a_pattern_that_does_not_compile_is_a_declaration_error() {
    let t = testing::table(json!({"pack": "bad", "tools": [{"name": "t", "params": {
        "v": {"type": "string", "pattern": "([a-z", "description": "V."}
    }}]}));
    let s = session(&[t], options(false, 0, None));
    match call(&s, "bad_t", json!({"v": "abc"})) {
        Err(CharterError::Declaration(d)) => assert!(d.message.contains("([a-z"), "{d}"),
        other => panic!("{other:?}"),
    }
}
