//! The generated code of the fixture pack (`charter-build/tests/fixtures/tracker.yaml`,
//! committed as `tests/golden/fixture_pack.rs`) compiles against the facade and holds what
//! docs/design.md §2, §3 and §5 promise. `charter-build`'s `golden` test fails when the file is stale.

use crate::common;

mod fixture {
    include!("../golden/fixture_pack.rs");
}

use charter::table::{Exec, Location, Pagination, Shape, Table, ToolDef, ViewKey};
use serde_json::Value;

fn table() -> &'static Table {
    assert_eq!(fixture::ALL.len(), 1);
    fixture::ALL[0]
}

fn tool(name: &str) -> &'static ToolDef {
    table()
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn names_and_order() {
    let t = table();
    assert_eq!(t.pack, "tracker");
    assert!(std::ptr::eq(t, &fixture::tracker::TOOLS));
    let names: Vec<&str> = t.tools.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "tracker_issues_list",
            "tracker_issues_create",
            "tracker_issues_update",
            "tracker_issues_lock",
            "tracker_issues_delete",
            "tracker_files_get",
            "tracker_files_exists",
            "tracker_projects_list",
            "tracker_events_search",
            "tracker_issue_graph",
        ]
    );
    for tool in t.tools {
        assert_eq!(tool.name, format!("{}_{}", tool.pack, tool.tool));
        assert!(tool.name.len() <= 50);
    }
}

#[test]
fn every_table_invariant_holds() {
    common::check_table(table());
}

#[test]
fn modes_per_view() {
    let props = |tool: &str, i: usize| -> Vec<String> {
        let v: Value = serde_json::from_str(self::tool(tool).views[i].schema).unwrap();
        v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    // issues_list: `internal_score` is `pro`: in the widest view and under `pro` only.
    let list = tool("tracker_issues_list");
    assert_eq!(list.views.len(), 3);
    assert_eq!(list.views[2].key, ViewKey::Label("pro"));
    assert!(props("tracker_issues_list", 0).contains(&"internal_score".to_owned()));
    assert!(!props("tracker_issues_list", 1).contains(&"internal_score".to_owned()));
    assert!(props("tracker_issues_list", 2).contains(&"internal_score".to_owned()));
    assert!(list.views[0].tokens > list.views[1].tokens);

    // issues_create: `beta` and `pro` labels; from-context `customer_id` never shown.
    let create = tool("tracker_issues_create");
    let keys: Vec<ViewKey> = create.views.iter().map(|v| v.key).collect();
    assert_eq!(
        keys,
        [
            ViewKey::Default,
            ViewKey::Unmatched,
            ViewKey::Label("beta"),
            ViewKey::Label("pro")
        ]
    );
    for i in 0..create.views.len() {
        assert!(!props("tracker_issues_create", i).contains(&"customer_id".to_owned()));
    }
    assert!(props("tracker_issues_create", 2).contains(&"metadata".to_owned()));
    assert!(!props("tracker_issues_create", 2).contains(&"priority".to_owned()));

    // issues_update has author mode `update`: never widest; `reason` (labelled `update`) and
    // required is in every view; `response_only` / `disabled` never.
    let update = tool("tracker_issues_update");
    assert_eq!(update.mode, Some("update"));
    assert!(!update.views[0].widest);
    assert_eq!(update.views[0].active, ["update"]);
    for i in 0..update.views.len() {
        let p = props("tracker_issues_update", i);
        assert!(p.contains(&"reason".to_owned()), "view {i}");
        assert!(!p.contains(&"audit_id".to_owned()));
        assert!(!p.contains(&"legacy_flag".to_owned()));
    }
    assert!(!props("tracker_issues_update", 0).contains(&"estimate".to_owned()));
    let pro = update
        .views
        .iter()
        .position(|v| v.key == ViewKey::Label("pro"))
        .unwrap();
    assert!(props("tracker_issues_update", pro).contains(&"estimate".to_owned()));
    assert_eq!(update.views[pro].active, ["update", "pro"]);
}

#[test]
fn annotations_from_methods_overrides_and_graphql() {
    let a = |name: &str| tool(name).annotations;
    assert!(a("tracker_issues_list").read_only && a("tracker_issues_list").idempotent);
    assert!(!a("tracker_issues_create").read_only && !a("tracker_issues_create").idempotent);
    assert!(a("tracker_issues_lock").idempotent && !a("tracker_issues_lock").read_only);
    assert!(a("tracker_issues_delete").destructive && a("tracker_issues_delete").idempotent);
    assert!(a("tracker_events_search").read_only, "overridden on a POST");
    assert!(
        a("tracker_issue_graph").read_only && a("tracker_issue_graph").idempotent,
        "a query-only document"
    );
    for t in table().tools {
        assert!(
            t.annotations.open_world,
            "{}: every HTTP tool is open-world",
            t.name
        );
    }
}

#[test]
fn routes_and_pack_settings() {
    let Exec::Http(route) = tool("tracker_events_search").exec else {
        panic!("not http")
    };
    assert_eq!(route.path, "/events/search");
    assert_eq!(route.body, charter::table::BodyEncoding::Form);
    assert_eq!(
        route.pagination,
        Some(Pagination::Cursor {
            next: "data.-1.id",
            param: "starting_after"
        })
    );
    assert_eq!(route.projection, ["data.id", "data.kind", "has_more"]);
    let Exec::Http(projects) = tool("tracker_projects_list").exec else {
        panic!("not http")
    };
    assert_eq!(
        projects.pagination,
        Some(Pagination::Offset {
            param: "offset",
            size_param: Some("limit")
        })
    );
    assert_eq!(route.pack.base_url_env, "CHARTER_TRACKER_BASE_URL");
    assert_eq!(route.pack.auth.env(), Some("TRACKER_TOKEN"));
    assert_eq!(route.pack.query, [("api-version", "2")]);
    let Exec::Http(files) = tool("tracker_files_get").exec else {
        panic!()
    };
    assert_eq!((files.timeout_ms, files.max_redirects), (Some(5000), 3));
    assert!(
        std::ptr::eq(files.pack, route.pack),
        "one HttpPack per pack"
    );
    let path = &tool("tracker_files_get").input.fields[1];
    assert!(path.allow_slash && path.location == Location::Path);
    let etag = &tool("tracker_files_get").input.fields[2];
    assert_eq!(
        (etag.wire, etag.location),
        ("If-None-Match", Location::Header)
    );
    let Exec::Http(graph) = tool("tracker_issue_graph").exec else {
        panic!()
    };
    assert!(graph.graphql.unwrap().starts_with("query Issue("));
    let search = tool("tracker_issues_list").search;
    assert_eq!(
        search.description_lc,
        "list the issues of a project, newest first."
    );
    assert_eq!(search.hints, ["tickets", "bugs"]);
}

#[test]
fn recursive_types_are_statics_referencing_themselves() {
    let create = tool("tracker_issues_create");
    let thread = create
        .input
        .fields
        .iter()
        .find(|f| f.name == "thread")
        .unwrap();
    let Shape::Named(named) = thread.shape else {
        panic!("Comment is a named type")
    };
    assert!(named.recursive);
    let Shape::Doc(doc) = named.shape else {
        panic!("Comment carries its description")
    };
    let Shape::Object(comment) = doc.shape else {
        panic!("Comment is an object")
    };
    let replies = comment.fields.iter().find(|f| f.name == "replies").unwrap();
    let Shape::Array(rules) = replies.shape else {
        panic!("replies is an array")
    };
    let Shape::Named(item) = rules.items else {
        panic!("items are the named type")
    };
    assert!(
        std::ptr::eq(*item, *named),
        "items point back at the Comment static"
    );
    let schema: Value = serde_json::from_str(create.views[0].schema).unwrap();
    assert_eq!(schema["properties"]["thread"]["$ref"], "#/$defs/Comment");
    assert_eq!(
        schema["$defs"]["Comment"]["properties"]["replies"]["items"]["$ref"],
        "#/$defs/Comment"
    );
}
