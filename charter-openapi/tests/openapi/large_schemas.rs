//! Documents whose shared types blow up when written out (DocuSign's shape: each type uses the
//! next several times). The importer cuts such tools down to a size the pack compiler accepts
//! (`charter_terms::tokens::MAX_VIEW_TOKENS`) and says what it left out; nothing else changes.

use charter_openapi::{ImportOptions, NoteKind, import};
use charter_terms::tokens::MAX_VIEW_TOKENS;
use serde_json::{Value, json};

/// `levels` component schemas, each using the next `fan` times (optional fields, or required
/// ones), with a description and a few scalar fields each; one operation takes the first.
fn doubling(levels: usize, fan: usize, required: bool) -> String {
    let mut schemas = serde_json::Map::new();
    for i in 0..levels {
        let mut props = serde_json::Map::new();
        props.insert(
            "name".into(),
            json!({"type": "string", "description": format!("The name at level {i}.")}),
        );
        props.insert(
            "count".into(),
            json!({"type": "integer", "description": "How many."}),
        );
        let mut req = vec![json!("name")];
        if i + 1 < levels {
            for k in 0..fan {
                let field = format!("child{k}");
                props.insert(
                    field.clone(),
                    json!({"$ref": format!("#/components/schemas/T{}", i + 1)}),
                );
                if required {
                    req.push(json!(field));
                }
            }
        }
        schemas.insert(
            format!("T{i}"),
            json!({"type": "object", "description": format!("A level-{i} node of the envelope."), "properties": props, "required": req}),
        );
    }
    let doc = json!({
        "openapi": "3.0.3",
        "info": {"title": "Envelopes", "version": "1"},
        "servers": [{"url": "https://envelopes.example"}],
        "paths": {
            "/envelopes": {"post": {
                "operationId": "createEnvelope",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/T0"}}}},
                "responses": {"200": {"description": "OK"}}
            }},
            "/envelopes/{id}": {"get": {
                "operationId": "getEnvelope",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "OK"}}
            }}
        },
        "components": {"schemas": Value::Object(schemas)}
    });
    doc.to_string()
}

/// The largest view of any tool of an imported pack, as the compiler writes it.
fn largest_view(yaml: &str) -> u32 {
    let model = charter_build::load_str("envelopes.yaml", yaml)
        .unwrap_or_else(|d| panic!("the checker refuses the import: {d:#?}"));
    charter_build::__private::view_schemas(&model)
        .iter()
        .flat_map(|tool| tool.views.iter().map(|(_, schema)| schema.tokens))
        .max()
        .unwrap_or(0)
}

#[test]
fn a_tool_whose_types_double_forty_times_is_cut_to_a_size_the_checker_accepts() {
    let out = import(&doubling(40, 2, false), &ImportOptions::new("envelopes")).unwrap();
    assert_eq!(out.tools, 2);
    let cut: Vec<_> = out
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::SchemaCut)
        .collect();
    assert!(!cut.is_empty(), "{}", out.report());
    assert!(
        cut.iter().all(|n| n.tool == "create_envelope"),
        "{}",
        out.report()
    );
    // What was left out is named, with its size.
    assert!(
        cut.iter().any(|n| n.message.contains("`child")
            && n.message.contains("tokens)")
            && n.message.starts_with("in type `T")),
        "{}",
        out.report()
    );
    let largest = largest_view(&out.yaml);
    assert!(largest <= MAX_VIEW_TOKENS, "{largest}");
    // Cut, not gutted: the tool keeps most of what fits.
    assert!(largest > MAX_VIEW_TOKENS / 8, "{largest}");
    charter_build::compile_str("envelopes.yaml", &out.yaml, "::charter").unwrap();
}

#[test]
fn required_fields_are_kept_and_accept_any_value_when_only_they_are_left() {
    let out = import(&doubling(40, 3, true), &ImportOptions::new("envelopes")).unwrap();
    let report = out.report();
    assert!(
        out.notes
            .iter()
            .any(|n| n.kind == NoteKind::SchemaCut && n.message.contains("any value is accepted")),
        "{report}"
    );
    let largest = largest_view(&out.yaml);
    assert!(largest <= MAX_VIEW_TOKENS, "{largest}");
    // Every required field is still there and still required.
    let pack: Value = serde_saphyr::from_str(&out.yaml).unwrap();
    // (The body's fields are the tool's parameters.)
    let params = &pack["tools"]["create_envelope"]["params"];
    for field in ["name", "child0", "child1", "child2"] {
        assert_eq!(
            params[field]["required"],
            json!(true),
            "{field}: {}",
            out.yaml
        );
    }
    let any: Vec<&Value> = pack["types"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|t| t["properties"].as_object().unwrap().values())
        .chain(params.as_object().unwrap().values())
        .filter(|p| p["type"] == "any")
        .collect();
    assert!(!any.is_empty());
    for p in any {
        let d = p["description"].as_str().unwrap();
        assert!(d.contains("is left out") && d.contains("any value"), "{d}");
    }
}

#[test]
fn documents_without_large_tools_are_not_cut() {
    let out = import(&doubling(6, 2, false), &ImportOptions::new("envelopes")).unwrap();
    assert!(
        !out.notes.iter().any(|n| n.kind == NoteKind::SchemaCut),
        "{}",
        out.report()
    );
    assert!(largest_view(&out.yaml) < MAX_VIEW_TOKENS / 10);
}
