//! The test-support tables agree with the table contract (docs/design.md §3), so the session tests built on
//! them test the session and not an artefact: every view's text is compact JSON whose size is
//! `tokens`, and its spans splice out any set of top-level properties into valid JSON.

use charter_runtime::mode::splice_schema;
use charter_runtime::table::ViewKey;
use charter_runtime::text_tokens;
use charter_testkit as testing;
use serde_json::Value;

fn every_object_is_closed(schema: &Value, path: &str) {
    if let Some(obj) = schema.as_object() {
        if obj.get("properties").is_some() {
            assert_eq!(
                obj.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "{path}"
            );
            for (name, sub) in obj["properties"].as_object().unwrap() {
                assert!(
                    sub.get("description").is_some(),
                    "{path}.{name} is described"
                );
                every_object_is_closed(sub, &format!("{path}.{name}"));
            }
        }
        if let Some(items) = obj.get("items") {
            every_object_is_closed(items, &format!("{path}[]"));
        }
    }
}

#[test]
fn synthetic_views_are_consistent() {
    let tables = testing::synthetic_catalogue(2);
    let mut spliced = 0;
    for table in tables {
        for tool in table.tools {
            assert_eq!(tool.views[0].key, ViewKey::Default);
            assert_eq!(tool.views[1].key, ViewKey::Unmatched);
            for view in tool.views {
                assert_eq!(view.tokens, text_tokens(view.schema), "{}", tool.name);
                let schema: Value = serde_json::from_str(view.schema).expect("JSON");
                assert_eq!(schema.to_string(), view.schema, "compact");
                every_object_is_closed(&schema, tool.name);
                let names: Vec<&str> = view.spans.iter().map(|s| s.name).collect();
                let props: Vec<&String> =
                    schema["properties"].as_object().unwrap().keys().collect();
                assert_eq!(names, props);
                // Every single property, every pair, and all of them.
                let mut sets: Vec<Vec<&str>> = names.iter().map(|n| vec![*n]).collect();
                for (i, a) in names.iter().enumerate() {
                    for b in &names[i + 1..] {
                        sets.push(vec![*a, *b]);
                    }
                }
                sets.push(names.clone());
                for remove in sets {
                    let text = splice_schema(tool.name, view, &remove).unwrap();
                    let cut: Value =
                        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
                    let mut expected = schema.clone();
                    for name in &remove {
                        expected["properties"]
                            .as_object_mut()
                            .unwrap()
                            .remove(*name);
                        if let Some(req) =
                            expected.get_mut("required").and_then(Value::as_array_mut)
                        {
                            req.retain(|r| r != name);
                        }
                    }
                    if expected
                        .get("required")
                        .and_then(Value::as_array)
                        .is_some_and(Vec::is_empty)
                    {
                        expected.as_object_mut().unwrap().remove("required");
                    }
                    assert_eq!(cut, expected, "{} without {remove:?}", tool.name);
                    assert_eq!(cut.to_string(), text, "still compact");
                    spliced += 1;
                }
                // Path costs are exact: dropping a top-level path saves what the text says.
                for cost in view.paths.iter().filter(|p| p.depth == 1) {
                    let without = splice_schema(tool.name, view, &[cost.path]).unwrap();
                    assert_eq!(
                        cost.saves,
                        view.tokens - text_tokens(&without),
                        "{} {}",
                        tool.name,
                        cost.path
                    );
                }
            }
        }
    }
    assert!(spliced > 1000);
}

#[test]
fn labels_make_views() {
    let tables = testing::synthetic_catalogue(1);
    let list = tables[0]
        .tools
        .iter()
        .find(|t| t.name == "github_issues_list")
        .unwrap();
    let keys: Vec<ViewKey> = list.views.iter().map(|v| v.key).collect();
    assert_eq!(
        keys,
        [ViewKey::Default, ViewKey::Unmatched, ViewKey::Label("pro")]
    );
    assert!(list.views[0].schema.contains("internal_score"));
    assert!(!list.views[1].schema.contains("internal_score"));
    assert!(list.views[2].schema.contains("internal_score"));
    assert!(list.views[1].tokens < list.views[0].tokens);
}
