//! Invariants every compiled table holds (docs/design.md §2, §3, §5), shared by the fixture test and the
//! shipped-packs test.

use charter::table::{Table, ViewKey};
use serde_json::Value;

/// Walks a schema (not its property names) and checks docs/design.md §3 on every subschema.
fn check_schema(schema: &Value, at: &str) {
    let Value::Object(m) = schema else {
        assert!(
            schema.is_boolean(),
            "{at}: a schema is an object or a boolean"
        );
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
                        assert!(
                            props.contains_key(r.as_str().unwrap()),
                            "{at}: required {r} is a property"
                        );
                    }
                }
            }
            (None, Some(values)) => check_schema(values, &format!("{at}[*]")), // a map
            other => panic!(
                "{at}: an object needs properties + additionalProperties:false, got {other:?}"
            ),
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

/// Removes `range` from `text`.
fn splice(text: &str, (a, b): (u32, u32)) -> String {
    format!("{}{}", &text[..a as usize], &text[b as usize..])
}

/// Checks names, view order, sizes, schema rules, visibility, spans and paths of a table.
pub fn check_table(table: &Table) {
    for tool in table.tools {
        assert_eq!(tool.pack, table.pack);
        assert_eq!(tool.name, format!("{}_{}", tool.pack, tool.tool));
        assert!(tool.name.len() <= 50, "{}", tool.name);
    }
    for tool in table.tools {
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
            assert_eq!(
                view.tokens as usize,
                view.schema.chars().count() / 4,
                "{at}"
            );
            let parsed: Value = serde_json::from_str(view.schema).expect("schema parses");
            assert_eq!(
                parsed.to_string(),
                view.schema,
                "{at}: compact, as serde_json writes it"
            );
            assert_eq!(parsed["type"], "object", "{at}");
            check_schema(&parsed, &at);
        }
        assert_eq!(charter::schema_tokens(tool), tool.views[0].tokens);
    }
    for tool in table.tools {
        for view in tool.views {
            let parsed: Value = serde_json::from_str(view.schema).unwrap();
            let shown: Vec<&str> = parsed["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
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
    for tool in table.tools {
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
                let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
                    panic!(
                        "{} {:?} without {}: {e}\n{text}",
                        tool.name, view.key, span.name
                    )
                });
                let mut expected = full.clone();
                expected["properties"]
                    .as_object_mut()
                    .unwrap()
                    .shift_remove(span.name);
                if let Some(Value::Array(req)) = expected.get_mut("required") {
                    req.retain(|r| r != span.name);
                    if req.is_empty() {
                        expected.as_object_mut().unwrap().shift_remove("required");
                    }
                }
                assert_eq!(
                    v, expected,
                    "{} {:?} without {}",
                    tool.name, view.key, span.name
                );
                assert_eq!(
                    text,
                    expected.to_string(),
                    "{}: splice is the compact text",
                    tool.name
                );
                // A top-level path whose property holds no $ref saves exactly the splice.
                if !view.schema[span.property.0 as usize..span.property.1 as usize].contains("$ref")
                {
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
            assert!(
                saves.windows(2).all(|w| w[0] >= w[1]),
                "{}: paths most expensive first",
                tool.name
            );
        }
    }
}
