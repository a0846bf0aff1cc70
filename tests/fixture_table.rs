//! The generated code of the fixture pack (`crates/charter-build/tests/fixtures/tracker.yaml`,
//! committed as `tests/golden/fixture_pack.rs`) compiles against the facade and holds what
//! SPEC §2, §3 and §5 promise. `charter-build`'s `golden` test fails when the file is stale.

mod fixture {
    include!("golden/fixture_pack.rs");
}

use charter::table::{Exec, Location, Pagination, Shape, Table, ToolDef, ViewKey};
use serde_json::Value;

fn table() -> &'static Table {
    assert_eq!(fixture::ALL.len(), 1);
    fixture::ALL[0]
}

fn tool(name: &str) -> &'static ToolDef {
    table().tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
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
            "tracker_events_search",
            "tracker_issue_graph",
        ]
    );
    for tool in t.tools {
        assert_eq!(tool.name, format!("{}_{}", tool.pack, tool.tool));
        assert!(tool.name.len() <= 50);
    }
}

/// Walks a schema (not its property names) and checks SPEC §3 on every subschema.
fn check_schema(schema: &Value, at: &str) {
    let Value::Object(m) = schema else {
        assert!(schema.is_boolean(), "{at}: a schema is an object or a boolean");
        return;
    };
    assert!(!m.contains_key("$schema"), "{at}: no $schema");
    assert!(!m.contains_key("title"), "{at}: no generated title");
    let is_object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    if is_object {
        match (m.get("properties"), m.get("additionalProperties")) {
            (Some(Value::Object(props)), Some(Value::Bool(false))) => {
                for (name, prop) in props {
                    let described = prop
                        .get("description")
                        .and_then(Value::as_str)
                        .is_some_and(|d| !d.is_empty());
                    assert!(described, "{at}.{name}: every property is described");
                    check_schema(prop, &format!("{at}.{name}"));
                }
                if let Some(Value::Array(required)) = m.get("required") {
                    for r in required {
                        assert!(props.contains_key(r.as_str().unwrap()), "{at}: required {r} is a property");
                    }
                }
            }
            (None, Some(values)) => check_schema(values, &format!("{at}[*]")), // a map
            other => panic!("{at}: an object needs properties + additionalProperties:false, got {other:?}"),
        }
    }
    if let Some(items) = m.get("items") {
        check_schema(items, &format!("{at}[]"));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alts)) = m.get(key) {
            for (i, a) in alts.iter().enumerate() {
                check_schema(a, &format!("{at}|{i}"));
            }
        }
    }
    if let Some(Value::Object(defs)) = m.get("$defs") {
        for (name, d) in defs {
            check_schema(d, &format!("$defs/{name}"));
        }
    }
    if let Some(Value::String(r)) = m.get("$ref") {
        assert!(r.starts_with("#/$defs/"), "{at}: $ref points into $defs");
    }
}

#[test]
fn every_view_schema_is_valid_compact_and_sized() {
    for tool in table().tools {
        assert!(tool.views.len() >= 2);
        assert_eq!(tool.views[0].key, ViewKey::Default);
        assert_eq!(tool.views[1].key, ViewKey::Unmatched);
        let labels: Vec<&str> = tool.views[2..]
            .iter()
            .map(|v| match v.key {
                ViewKey::Label(l) => l,
                other => panic!("{}: view {other:?} after the first two", tool.name),
            })
            .collect();
        let mut sorted = labels.clone();
        sorted.sort_unstable();
        assert_eq!(labels, sorted, "{}: label views sorted", tool.name);
        for view in tool.views {
            let at = format!("{} {:?}", tool.name, view.key);
            assert_eq!(view.tokens as usize, view.schema.chars().count() / 4, "{at}");
            let parsed: Value = serde_json::from_str(view.schema).expect("schema parses");
            assert_eq!(parsed.to_string(), view.schema, "{at}: compact, as serde_json writes it");
            assert_eq!(parsed["type"], "object", "{at}");
            check_schema(&parsed, &at);
        }
        assert_eq!(charter::schema_tokens(tool), tool.views[0].tokens);
    }
}

#[test]
fn views_show_exactly_the_fields_the_runtime_considers_visible() {
    for tool in table().tools {
        for view in tool.views {
            let parsed: Value = serde_json::from_str(view.schema).unwrap();
            let shown: Vec<&str> =
                parsed["properties"].as_object().unwrap().keys().map(String::as_str).collect();
            let visible: Vec<&str> = tool
                .input
                .fields
                .iter()
                .filter(|f| f.visible_in(view.active, view.widest))
                .map(|f| f.name)
                .collect();
            assert_eq!(shown, visible, "{} {:?}", tool.name, view.key);
        }
    }
}

#[test]
fn modes_per_view() {
    let props = |tool: &str, i: usize| -> Vec<String> {
        let v: Value = serde_json::from_str(self::tool(tool).views[i].schema).unwrap();
        v["properties"].as_object().unwrap().keys().cloned().collect()
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
    assert_eq!(keys, [ViewKey::Default, ViewKey::Unmatched, ViewKey::Label("beta"), ViewKey::Label("pro")]);
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
    let pro = update.views.iter().position(|v| v.key == ViewKey::Label("pro")).unwrap();
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
    assert!(a("tracker_issue_graph").read_only && a("tracker_issue_graph").idempotent, "a query-only document");
    for t in table().tools {
        assert!(t.annotations.open_world, "{}: every HTTP tool is open-world", t.name);
    }
}

#[test]
fn routes_and_pack_settings() {
    let Exec::Http(route) = tool("tracker_events_search").exec else { panic!("not http") };
    assert_eq!(route.path, "/events/search");
    assert_eq!(route.body, charter::table::BodyEncoding::Form);
    assert_eq!(route.pagination, Some(Pagination::Cursor { next: "data.-1.id", param: "starting_after" }));
    assert_eq!(route.projection, ["data.id", "data.kind", "has_more"]);
    assert_eq!(route.pack.base_url_env, "CHARTER_TRACKER_BASE_URL");
    assert_eq!(route.pack.auth.env(), Some("TRACKER_TOKEN"));
    assert_eq!(route.pack.query, [("api-version", "2")]);
    let Exec::Http(files) = tool("tracker_files_get").exec else { panic!() };
    assert_eq!((files.timeout_ms, files.max_redirects), (Some(5000), 3));
    assert!(std::ptr::eq(files.pack, route.pack), "one HttpPack per pack");
    let path = &tool("tracker_files_get").input.fields[1];
    assert!(path.allow_slash && path.location == Location::Path);
    let etag = &tool("tracker_files_get").input.fields[2];
    assert_eq!((etag.wire, etag.location), ("If-None-Match", Location::Header));
    let Exec::Http(graph) = tool("tracker_issue_graph").exec else { panic!() };
    assert!(graph.graphql.unwrap().starts_with("query Issue("));
    let search = tool("tracker_issues_list").search;
    assert_eq!(search.description_lc, "list the issues of a project, newest first.");
    assert_eq!(search.hints, ["tickets", "bugs"]);
}

#[test]
fn recursive_types_are_statics_referencing_themselves() {
    let create = tool("tracker_issues_create");
    let thread = create.input.fields.iter().find(|f| f.name == "thread").unwrap();
    let Shape::Object(comment) = thread.shape else { panic!("Comment is an object") };
    let replies = comment.fields.iter().find(|f| f.name == "replies").unwrap();
    let Shape::Array(rules) = replies.shape else { panic!("replies is an array") };
    assert!(std::ptr::eq(rules.items, thread.shape), "items point back at the Comment static");
    let schema: Value = serde_json::from_str(create.views[0].schema).unwrap();
    assert_eq!(schema["properties"]["thread"]["$ref"], "#/$defs/Comment");
    assert_eq!(schema["$defs"]["Comment"]["properties"]["replies"]["items"]["$ref"], "#/$defs/Comment");
}

/// Removes `range` from `text`.
fn splice(text: &str, (a, b): (u32, u32)) -> String {
    format!("{}{}", &text[..a as usize], &text[b as usize..])
}

#[test]
fn spans_splice_into_valid_schemas_and_agree_with_paths() {
    for tool in table().tools {
        for view in tool.views {
            let full: Value = serde_json::from_str(view.schema).unwrap();
            for span in view.spans {
                let mut text = splice(view.schema, span.property);
                if let Some(req) = span.required {
                    // Remove the later range first so the earlier offsets stay right.
                    assert!(req.0 >= span.property.1);
                    text = format!("{}{}", &view.schema[..span.property.0 as usize], {
                        let tail = &view.schema[span.property.1 as usize..];
                        let shift = span.property.1;
                        splice(tail, (req.0 - shift, req.1 - shift))
                    });
                }
                let v: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{} {:?} without {}: {e}\n{text}", tool.name, view.key, span.name));
                let mut expected = full.clone();
                expected["properties"].as_object_mut().unwrap().shift_remove(span.name);
                if let Some(Value::Array(req)) = expected.get_mut("required") {
                    req.retain(|r| r != span.name);
                    if req.is_empty() {
                        expected.as_object_mut().unwrap().shift_remove("required");
                    }
                }
                assert_eq!(v, expected, "{} {:?} without {}", tool.name, view.key, span.name);
                assert_eq!(text, expected.to_string(), "{}: splice is the compact text", tool.name);
                // A top-level path whose property holds no $ref saves exactly the splice.
                if !view.schema[span.property.0 as usize..span.property.1 as usize].contains("$ref") {
                    let cost = view.paths.iter().find(|p| p.path == span.name).unwrap();
                    assert_eq!(cost.depth, 1);
                    assert_eq!(
                        cost.saves,
                        view.tokens - (text.chars().count() / 4) as u32,
                        "{} {:?} {}",
                        tool.name,
                        view.key,
                        span.name
                    );
                }
            }
            let saves: Vec<u32> = view.paths.iter().map(|p| p.saves).collect();
            assert!(saves.windows(2).all(|w| w[0] >= w[1]), "{}: paths most expensive first", tool.name);
        }
    }
}
