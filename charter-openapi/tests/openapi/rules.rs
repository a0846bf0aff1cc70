//! One test per mapping rule of the OpenAPI importer, on small hand-written documents. Every
//! generated pack also goes through the real pack checker (`charter_build::load_str`).

use std::sync::{Arc, Mutex};

use charter_openapi::{
    Import, ImportError, ImportOptions, NoteKind, Progress, Stage, import, import_split,
};
use serde_json::{Value, json};

/// A document with the given paths (and optional components/security).
fn doc(paths: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Pets API", "version": "1", "description": "The pets API manages pets."},
        "servers": [{"url": "https://api.pets.example/v1/"}],
        "paths": paths,
    })
}

fn with(mut d: Value, key: &str, v: Value) -> Value {
    d[key] = v;
    d
}

/// Imports `d` into pack `pets`, checks the pack with the real checker, and returns the import
/// and the pack parsed back from YAML.
fn run(d: &Value) -> (Import, Value) {
    run_with(d, &ImportOptions::new("pets"))
}

fn run_with(d: &Value, options: &ImportOptions) -> (Import, Value) {
    let out = import(&d.to_string(), options).unwrap_or_else(|e| panic!("import failed: {e}"));
    if let Err(diags) = charter_build::load_str("pets.yaml", &out.yaml) {
        let all: Vec<String> = diags.iter().map(ToString::to_string).collect();
        panic!(
            "the pack fails the checks:\n{}\n---\n{}",
            all.join("\n"),
            out.yaml
        );
    }
    let pack: Value = serde_saphyr::from_str(&out.yaml).expect("the pack is YAML");
    (out, pack)
}

fn notes(out: &Import, kind: NoteKind) -> Vec<String> {
    out.notes
        .iter()
        .filter(|n| n.kind == kind)
        .map(|n| n.message.clone())
        .collect()
}

fn err(d: &Value) -> ImportError {
    import(&d.to_string(), &ImportOptions::new("pets")).expect_err("the import must fail")
}

fn get_op(id: &str, params: Value) -> Value {
    json!({"get": {"operationId": id, "summary": "Get it", "parameters": params}})
}

#[test]
fn operation_to_tool_basics() {
    let d = doc(json!({
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": true, "description": "The pet.", "schema": {"type": "integer", "minimum": 1}}],
            "get": {
                "operationId": "GetPetById",
                "summary": "Get a pet",
                "description": "<p>Returns <b>one</b> pet. See [the docs](https://x.example).</p>",
                "parameters": [
                    {"name": "fields", "in": "query", "schema": {"type": "string", "enum": ["a", "b"], "default": "c"}},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string", "format": "uuid"}}
                ]
            },
            "delete": {"operationId": "pets/delete-pet", "summary": "Delete a pet", "deprecated": true}
        }
    }));
    let (out, pack) = run(&d);
    assert_eq!((out.tools, out.operations, out.skipped.len()), (2, 2, 0));
    assert_eq!(
        pack["base_url"], "https://api.pets.example/v1",
        "servers[0] without the trailing slash"
    );
    assert_eq!(pack["description"], "The pets API manages pets.");
    let t = &pack["tools"]["get_pet_by_id"];
    assert_eq!(t["method"], "GET");
    assert_eq!(t["path"], "/pets/{petId}");
    assert_eq!(
        t["description"],
        "Get a pet. Returns one pet. See the docs."
    );
    assert_eq!(
        t["params"]["petId"],
        json!({"in": "path", "type": "integer", "description": "The pet.", "required": true, "minimum": 1})
    );
    // A default outside the enum is dropped (documentation only).
    assert_eq!(
        t["params"]["fields"],
        json!({"in": "query", "type": "string", "description": "The `fields`.", "enum": ["a", "b"]})
    );
    assert_eq!(out.stats.dropped_defaults, 1);
    assert_eq!(t["params"]["X-Trace"]["format"], "uuid");
    let del = &pack["tools"]["pets_delete_pet"];
    assert_eq!(del["description"], "Deprecated. Delete a pet.");
    assert_eq!(
        del["params"]["petId"]["required"], true,
        "path-level parameters apply to every method"
    );
    // Annotations come from the method: nothing written.
    assert!(del.get("annotations").is_none());
    // Generated descriptions are counted: `fields`, `X-Trace` (twice: no, once), none for petId.
    assert_eq!(out.stats.generated_descriptions, 2);
}

#[test]
fn refs_to_parameters_schemas_and_request_bodies() {
    let d = with(
        doc(json!({
            "/pets": {"post": {
                "operationId": "createPet",
                "parameters": [{"$ref": "#/components/parameters/Tenant"}],
                "requestBody": {"$ref": "#/components/requestBodies/NewPet"}
            }}
        })),
        "components",
        json!({
            "parameters": {"Tenant": {"name": "tenant", "in": "query", "required": true, "schema": {"$ref": "#/components/schemas/TenantId"}}},
            "schemas": {
                "TenantId": {"type": "string", "description": "A tenant id.", "pattern": "^t_[a-z]+$"},
                "Owner": {"type": "object", "description": "Who owns the pet.", "properties": {"name": {"type": "string", "description": "The owner's name."}}},
                "Pet": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "description": "The name."},
                    "owner": {"$ref": "#/components/schemas/Owner"},
                    "id": {"type": "integer", "readOnly": true}
                }}
            },
            "requestBodies": {"NewPet": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}
        }),
    );
    let (out, pack) = run(&d);
    let t = &pack["tools"]["create_pet"];
    // A scalar component is inlined (its constraints stay on the field).
    assert_eq!(
        t["params"]["tenant"],
        json!({"in": "query", "type": "string", "description": "A tenant id.", "required": true, "pattern": "^t_[a-z]+$"})
    );
    // The body's top-level properties become body parameters; readOnly ones are left out.
    assert_eq!(
        t["params"]["name"],
        json!({"in": "body", "type": "string", "description": "The name.", "required": true})
    );
    assert!(t["params"].get("id").is_none());
    assert_eq!(out.stats.read_only_dropped, 1);
    // An object component becomes a named type.
    assert_eq!(t["params"]["owner"], json!({"in": "body", "ref": "Owner"}));
    assert_eq!(pack["types"]["Owner"]["description"], "Who owns the pet.");
    assert_eq!(
        pack["types"]["Owner"]["properties"]["name"]["type"],
        "string"
    );
}

#[test]
fn recursive_schemas_become_named_types() {
    let d = with(
        doc(json!({
            "/nodes": {"post": {
                "operationId": "createNode",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}
            }}
        })),
        "components",
        json!({"schemas": {
            "Node": {"type": "object", "description": "A tree node.", "properties": {
                "label": {"type": "string", "description": "The label."},
                "children": {"type": "array", "description": "Child nodes.", "items": {"$ref": "#/components/schemas/Node"}},
                "link": {"description": "A node or a URL.", "oneOf": [{"$ref": "#/components/schemas/Node"}, {"type": "string"}]}
            }}
        }}),
    );
    let (_, pack) = run(&d);
    let t = &pack["tools"]["create_node"];
    assert_eq!(t["params"]["children"]["items"], json!({"ref": "Node"}));
    let node = &pack["types"]["Node"];
    assert_eq!(
        node["properties"]["children"]["items"],
        json!({"ref": "Node"})
    );
    // A recursive type cannot be a `one_of` alternative: its shape is inlined one level.
    let alts = node["properties"]["link"]["one_of"]
        .as_array()
        .expect("one_of");
    assert_eq!(alts[0]["type"], "object");
    assert_eq!(
        alts[0]["properties"]["children"]["items"],
        json!({"ref": "Node"})
    );
    assert_eq!(alts[1]["type"], "string");
}

#[test]
fn all_of_is_merged() {
    let d = with(
        doc(json!({
            "/pets": {"post": {
                "operationId": "createPet",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"allOf": [
                    {"$ref": "#/components/schemas/Base"},
                    {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "description": "Cat or dog.", "enum": ["cat", "dog"]}}}
                ]}}}}
            }},
            "/odd": {"post": {
                "operationId": "odd",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                    "described": {"description": "The base, described here.", "allOf": [{"$ref": "#/components/schemas/Base"}]},
                    "conflict": {"description": "Cannot be both.", "allOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"type": "string"}}}]}
                }}}}}
            }}
        })),
        "components",
        json!({"schemas": {"Base": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "description": "The name."}}}}}),
    );
    let (out, pack) = run(&d);
    let p = &pack["tools"]["create_pet"]["params"];
    assert_eq!(p["name"]["required"], true, "required from the first part");
    assert_eq!(p["kind"]["required"], true, "required from the second part");
    assert_eq!(p["kind"]["enum"], json!(["cat", "dog"]));
    let odd = &pack["tools"]["odd"]["params"];
    assert_eq!(
        odd["described"],
        json!({"in": "body", "ref": "Base", "description": "The base, described here."})
    );
    assert_eq!(odd["conflict"]["type"], "any");
    assert!(
        notes(&out, NoteKind::Unrepresentable)
            .iter()
            .any(|m| m.contains("allOf")),
        "{:?}",
        out.notes
    );
}

#[test]
fn nullable_in_every_spelling() {
    let d = with(
        doc(json!({
            "/pets": {"post": {
                "operationId": "createPet",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                    "a": {"type": "string", "nullable": true, "description": "3.0 style."},
                    "b": {"type": ["integer", "null"], "description": "3.1 style."},
                    "c": {"oneOf": [{"type": "string"}, {"type": "null"}], "description": "A null alternative."},
                    "d": {"type": "string", "enum": ["x", null], "description": "Null in the enum."},
                    "e": {"type": ["string", "integer"], "description": "Two types."}
                }}}}}
            }}
        })),
        "openapi",
        json!("3.1.0"),
    );
    let (_, pack) = run(&d);
    let p = &pack["tools"]["create_pet"]["params"];
    assert_eq!(
        p["a"],
        json!({"in": "body", "type": "string", "description": "3.0 style.", "nullable": true})
    );
    assert_eq!(
        p["b"],
        json!({"in": "body", "type": "integer", "description": "3.1 style.", "nullable": true})
    );
    assert_eq!(
        p["c"],
        json!({"in": "body", "type": "string", "description": "A null alternative.", "nullable": true})
    );
    assert_eq!(
        p["d"],
        json!({"in": "body", "type": "string", "description": "Null in the enum.", "enum": ["x"], "nullable": true})
    );
    assert_eq!(
        p["e"]["one_of"],
        json!([{"type": "string"}, {"type": "integer"}])
    );
}

#[test]
fn one_of_kept_where_representable() {
    let d = with(
        doc(json!({
            "/pay": {"post": {
                "operationId": "pay",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "properties": {
                    "card_or_bank": {"description": "Told apart by a required field.", "oneOf": [
                        {"type": "object", "required": ["card"], "properties": {"card": {"type": "string", "description": "Card number."}}},
                        {"type": "object", "required": ["iban"], "properties": {"iban": {"type": "string", "description": "IBAN."}}}
                    ]},
                    "by_kind": {"description": "Told apart by a discriminator enum.", "oneOf": [
                        {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["a"], "description": "Kind."}, "x": {"type": "string", "description": "X."}}},
                        {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["b"], "description": "Kind."}, "y": {"type": "string", "description": "Y."}}}
                    ]},
                    "overlapping": {"description": "Objects no field tells apart.", "anyOf": [
                        {"type": "object", "properties": {"a": {"type": "string", "description": "A."}}},
                        {"type": "object", "required": ["b"], "properties": {"a": {"type": "string", "description": "A."}, "b": {"type": "integer", "description": "B."}}}
                    ]},
                    "unset": {"description": "A value or the empty string (Stripe).", "anyOf": [{"type": "integer"}, {"type": "string", "enum": [""]}]},
                    "strings": {"description": "Two strings merge.", "anyOf": [{"type": "string", "format": "date"}, {"type": "string"}]},
                    "free": {"description": "Anything goes in one branch.", "oneOf": [{"type": "string"}, {}]}
                }}}}}
            }}
        })),
        "info",
        json!({"title": "Pay", "version": "1"}),
    );
    let (out, pack) = run(&d);
    let p = &pack["tools"]["pay"]["params"];
    assert_eq!(
        p["card_or_bank"]["one_of"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(p["by_kind"]["one_of"].as_array().map(Vec::len), Some(2));
    // Overlapping objects merge; a field is required only where every alternative requires it.
    assert_eq!(p["overlapping"]["type"], "object");
    assert!(
        p["overlapping"]["properties"]["b"]
            .get("required")
            .is_none()
    );
    assert!(
        notes(&out, NoteKind::ConstraintDropped)
            .iter()
            .any(|m| m.contains("overlap"))
    );
    assert_eq!(
        p["unset"]["one_of"],
        json!([{"type": "integer"}, {"type": "string", "enum": [""]}])
    );
    assert_eq!(
        p["strings"],
        json!({"in": "body", "type": "string", "description": "Two strings merge."})
    );
    // An alternative that accepts anything makes the rest undecidable: any, with a note.
    assert_eq!(p["free"]["type"], "any");
    assert_eq!(notes(&out, NoteKind::OneOfAsAny).len(), 1);
}

#[test]
fn form_bodies_and_unsupported_bodies() {
    let d = doc(json!({
        "/v1/customers": {"post": {
            "operationId": "PostCustomers",
            "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
                "email": {"type": "string", "description": "Email.", "maxLength": 512},
                "metadata": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Key-value pairs."}
            }}}}}
        }},
        "/v1/files": {"post": {
            "operationId": "PostFiles",
            "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object"}}}, "required": true}
        }},
        "/v1/raw": {"put": {
            "operationId": "PutRaw",
            "requestBody": {"content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}
        }},
        "/v1/list": {"post": {
            "operationId": "PostList",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}
        }}
    }));
    let (out, pack) = run(&d);
    let t = &pack["tools"]["post_customers"];
    assert_eq!(t["body_encoding"], "form");
    assert_eq!(
        t["params"]["metadata"],
        json!({"in": "body", "type": "map", "description": "Key-value pairs.", "values": {"type": "string"}})
    );
    assert_eq!((out.tools, out.skipped.len()), (1, 3));
    let reasons: Vec<(&str, &str)> = out
        .skipped
        .iter()
        .map(|s| (s.operation.as_str(), s.reason.as_str()))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|(o, r)| *o == "PostFiles" && r.contains("multipart/form-data")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(o, r)| *o == "PutRaw" && r.contains("application/octet-stream")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(o, r)| *o == "PostList" && r.contains("a list")),
        "{reasons:?}"
    );
}

#[test]
fn query_array_styles() {
    let d = doc(json!({"/items": get_op("listItems", json!([
        {"name": "ids", "in": "query", "schema": {"type": "array", "items": {"type": "integer"}}},
        {"name": "tags", "in": "query", "explode": false, "schema": {"type": "array", "items": {"type": "string"}}},
        {"name": "expand", "in": "query", "style": "deepObject", "explode": true, "schema": {"type": "array", "items": {"type": "string"}}},
        {"name": "created", "in": "query", "style": "deepObject", "schema": {"type": "object", "properties": {"gte": {"type": "integer", "description": "From."}}}},
        {"name": "filter[state]", "in": "query", "schema": {"type": "string"}},
        {"name": "piped", "in": "query", "style": "pipeDelimited", "explode": false, "schema": {"type": "array", "items": {"type": "string"}}}
    ]))}));
    let (out, pack) = run(&d);
    let p = &pack["tools"]["list_items"]["params"];
    assert!(
        p["ids"].get("style").is_none(),
        "form + explode is the default `repeat`"
    );
    assert_eq!(p["tags"]["style"], "comma");
    assert_eq!(p["expand"]["style"], "brackets");
    assert_eq!(p["created"]["type"], "object");
    assert_eq!(p["filter_state"]["wire"], "filter[state]");
    assert_eq!(p["piped"]["type"], "string");
    assert!(
        notes(&out, NoteKind::Renamed)
            .iter()
            .any(|m| m.contains("filter[state]"))
    );
    assert!(
        notes(&out, NoteKind::Unrepresentable)
            .iter()
            .any(|m| m.contains("pipeDelimited"))
    );
}

#[test]
fn names_shortened_and_collisions_disambiguated() {
    let long = "actions/remove-all-custom-labels-from-self-hosted-runner-for-organization";
    let d = doc(json!({
        "/a": {"get": {"operationId": long, "summary": "Long."}},
        "/b": {"get": {"operationId": "listPets", "summary": "First."}},
        "/c": {"get": {"operationId": "list_pets", "summary": "Same name once converted."}},
        "/d/{id}": {"get": {"summary": "No operation id.", "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]}}
    }));
    let (out, pack) = run(&d);
    let names: Vec<&String> = pack["tools"].as_object().unwrap().keys().collect();
    assert_eq!(names.len(), 4);
    for n in &names {
        assert!(format!("pets_{n}").len() <= 50, "{n}");
        assert!(
            !n.contains("__")
                && n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        );
    }
    assert_eq!(
        notes(&out, NoteKind::NameShortened).len(),
        1,
        "{:?}",
        out.notes
    );
    assert!(
        names.iter().any(|n| n.starts_with("actions_remove_labels")),
        "{names:?}"
    );
    assert!(names.contains(&&"list_pets".to_owned()) && names.contains(&&"list_pets_2".to_owned()));
    assert_eq!(notes(&out, NoteKind::NameCollision).len(), 1);
    assert!(names.contains(&&"get_d_id".to_owned()), "{names:?}");
    // The same document always gives the same names, whatever the selection.
    let mut only = ImportOptions::new("pets");
    only.ops = vec!["list_pets".into()];
    let (out2, pack2) = run_with(&d, &only);
    assert_eq!(out2.tools, 1);
    assert!(pack2["tools"].get("list_pets_2").is_some());
}

#[test]
fn common_operation_id_prefix_is_stripped() {
    let d = doc(json!({
        "/a": {"get": {"operationId": "gmail.users.messages.list", "summary": "List."}},
        "/b": {"get": {"operationId": "gmail.users.labels.list", "summary": "Labels."}}
    }));
    let (_, pack) = run(&d);
    assert!(pack["tools"].get("users_messages_list").is_some(), "{pack}");
    let mut keep = ImportOptions::new("pets");
    keep.strip_common_prefix = false;
    let (_, pack) = run_with(&d, &keep);
    assert!(pack["tools"].get("gmail_users_messages_list").is_some());
}

#[test]
fn auth_from_security_schemes() {
    let cases = [
        (
            json!({"b": {"type": "http", "scheme": "bearer"}}),
            json!({"scheme": "bearer", "env": "PETS_TOKEN"}),
        ),
        (
            json!({"b": {"type": "http", "scheme": "basic"}}),
            json!({"scheme": "basic", "env": "PETS_API_KEY"}),
        ),
        (
            json!({"k": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}),
            json!({"scheme": "header", "header": "X-Api-Key", "env": "PETS_API_KEY"}),
        ),
        (
            json!({"o": {"type": "oauth2", "flows": {}}}),
            json!({"scheme": "bearer", "env": "PETS_TOKEN"}),
        ),
        // Basic and bearer both allowed: bearer is preferred.
        (
            json!({"basic": {"type": "http", "scheme": "basic"}, "bearer": {"type": "http", "scheme": "bearer"}}),
            json!({"scheme": "bearer", "env": "PETS_TOKEN"}),
        ),
    ];
    for (schemes, want) in cases {
        let d = with(
            doc(
                json!({"/a": get_op("a", json!([{"name": "X-Api-Key", "in": "header", "schema": {"type": "string"}}]))}),
            ),
            "components",
            json!({"securitySchemes": schemes}),
        );
        let (out, pack) = run(&d);
        assert_eq!(pack["auth"], want, "{schemes}");
        assert!(!out.pack_notes.is_empty());
        if want["scheme"] == "header" {
            assert!(
                pack["tools"]["a"].get("params").is_none(),
                "the API-key header parameter is the auth's"
            );
        }
    }
    // An API key in the query cannot be pack auth: reported, no auth.
    let d = with(
        doc(json!({"/a": get_op("a", json!([]))})),
        "components",
        json!({"securitySchemes": {"q": {"type": "apiKey", "in": "query", "name": "key"}}}),
    );
    let (out, pack) = run(&d);
    assert!(pack.get("auth").is_none());
    assert!(
        out.pack_notes
            .iter()
            .any(|n| n.contains("cannot be declared")),
        "{:?}",
        out.pack_notes
    );
    // A label with a dash: `my-api` → MY_API_TOKEN.
    let d = with(
        doc(json!({"/a": get_op("a", json!([]))})),
        "components",
        json!({"securitySchemes": {"b": {"type": "http", "scheme": "bearer"}}}),
    );
    let out = import(&d.to_string(), &ImportOptions::new("my-api")).unwrap();
    assert!(out.yaml.contains("env: MY_API_TOKEN"), "{}", out.yaml);
}

#[test]
fn credential_and_cookie_parameters() {
    let d = with(
        doc(json!({
            "/chat.postMessage": {"post": {
                "operationId": "chat_postMessage",
                "parameters": [
                    {"name": "token", "in": "header", "required": true, "description": "Authentication token.", "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}}
                ],
                "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"text": {"type": "string", "description": "The text."}}}}}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}}}
            }},
            "/need-cookie": {"get": {"operationId": "needCookie", "parameters": [{"name": "sid", "in": "cookie", "required": true, "schema": {"type": "string"}}]}}
        })),
        "components",
        json!({"securitySchemes": {"slackAuth": {"type": "oauth2", "flows": {}}}}),
    );
    let (out, pack) = run(&d);
    let t = &pack["tools"]["chat_post_message"];
    assert_eq!(
        t["params"].as_object().unwrap().keys().collect::<Vec<_>>(),
        vec!["text"]
    );
    let dropped = notes(&out, NoteKind::ParameterDropped);
    assert!(
        dropped
            .iter()
            .any(|m| m.contains("`token`") && m.contains("auth")),
        "{dropped:?}"
    );
    assert!(
        dropped
            .iter()
            .any(|m| m.contains("cookie parameter `session`")),
        "{dropped:?}"
    );
    assert_eq!(out.skipped.len(), 1);
    assert!(out.skipped[0].reason.contains("cookie"));
    // Every response carries `ok`: the Slack envelope is declared.
    assert_eq!(pack["envelope"], json!({"kind": "ok_flag", "field": "ok"}));
}

#[test]
fn body_field_colliding_with_a_parameter_is_renamed() {
    let d = doc(json!({"/repos/{owner}": {"patch": {
        "operationId": "updateRepo",
        "parameters": [{"name": "owner", "in": "path", "required": true, "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
            "owner": {"type": "string", "description": "The new owner."},
            "name": {"type": "string", "description": "The name."}
        }}}}}
    }}}));
    let (out, pack) = run(&d);
    let p = &pack["tools"]["update_repo"]["params"];
    assert_eq!(p["owner"]["in"], "path");
    assert_eq!(
        p["owner_body"],
        json!({"in": "body", "type": "string", "description": "The new owner.", "wire": "owner"})
    );
    assert!(
        notes(&out, NoteKind::Renamed)
            .iter()
            .any(|m| m.contains("owner_body"))
    );
}

#[test]
fn path_templates_are_made_consistent() {
    let d = doc(json!({
        "/v1/{+name}:cancel": {"post": {"operationId": "cancel", "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}]}},
        "/files/{file-id}/{undeclared}": {"get": {"operationId": "getFile", "parameters": [
            {"name": "file-id", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "ghost", "in": "path", "required": true, "schema": {"type": "string"}}
        ]}},
        "/repos/{owner}/contents/{path}": {"get": {"operationId": "getContent", "parameters": [
            {"name": "owner", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "path", "in": "path", "required": true, "schema": {"type": "string"}}
        ]}},
        "/search?q={q}": {"get": {"operationId": "search"}}
    }));
    let (out, pack) = run(&d);
    assert_eq!(pack["tools"]["cancel"]["path"], "/v1/{name}:cancel");
    assert_eq!(
        pack["tools"]["cancel"]["params"]["name"]["allow_slash"], true,
        "{{+name}} keeps slashes"
    );
    let f = &pack["tools"]["get_file"];
    assert_eq!(f["path"], "/files/{file-id}/{undeclared}");
    assert_eq!(f["params"]["undeclared"]["required"], true);
    assert!(f["params"].get("ghost").is_none());
    assert_eq!(
        pack["tools"]["get_content"]["params"]["path"]["allow_slash"],
        true
    );
    assert_eq!(out.skipped.len(), 1);
    assert!(out.skipped[0].reason.contains("query"), "{:?}", out.skipped);
}

#[test]
fn formats_bounds_and_enums() {
    let d = doc(json!({"/x": get_op("x", json!([
        {"name": "when", "in": "query", "schema": {"type": "string", "format": "google-datetime"}},
        {"name": "big", "in": "query", "schema": {"type": "string", "format": "int64"}},
        {"name": "n", "in": "query", "schema": {"type": "integer", "format": "int32", "minimum": 0, "exclusiveMinimum": true, "maximum": 10.5, "default": "5"}},
        {"name": "flag", "in": "query", "schema": {"type": "boolean", "enum": [true]}},
        {"name": "level", "in": "query", "schema": {"enum": [1, 2, 2, "x"]}},
        {"name": "bad", "in": "query", "schema": {"type": "string", "pattern": "(?<=a)b"}}
    ]))}));
    let (out, pack) = run(&d);
    let p = &pack["tools"]["x"]["params"];
    assert_eq!(p["when"]["format"], "date-time");
    assert!(p["big"].get("format").is_none());
    assert_eq!(
        p["n"],
        json!({"in": "query", "type": "integer", "description": "The `n`.", "default": 5, "minimum": 1, "maximum": 10})
    );
    assert!(p["flag"].get("enum").is_none());
    assert_eq!(p["level"]["enum"], json!([1, 2]));
    assert!(p["bad"].get("pattern").is_none());
    assert!(
        notes(&out, NoteKind::ConstraintDropped)
            .iter()
            .any(|m| m.contains("pattern"))
    );
    assert_eq!(out.stats.dropped_formats, 2);
    assert_eq!(out.stats.dropped_enums, 1);
}

#[test]
fn huge_vendor_descriptions_are_shortened() {
    let long = format!(
        "Creates a pet. {}",
        "This sentence is filler for the page. ".repeat(40)
    );
    let d = doc(
        json!({"/p": {"post": {"operationId": "createPet", "description": long,
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
            "name": {"type": "string", "description": format!("The name. {}", "More detail here. ".repeat(40))}
        }}}}}}}}),
    );
    let mut options = ImportOptions::new("pets");
    options.max_description = 120;
    options.max_field_description = 60;
    let (out, pack) = run_with(&d, &options);
    let desc = pack["tools"]["create_pet"]["description"].as_str().unwrap();
    assert!(
        desc.len() <= 120 && desc.ends_with('.') && desc.starts_with("Creates a pet."),
        "{desc}"
    );
    let field = pack["tools"]["create_pet"]["params"]["name"]["description"]
        .as_str()
        .unwrap();
    assert!(field.len() <= 60 && field.ends_with('.'), "{field}");
    assert_eq!(out.stats.shortened_descriptions, 2);
}

#[test]
fn selection_by_id_tag_and_path() {
    let d = doc(json!({
        "/pets": {"get": {"operationId": "listPets", "tags": ["pets"]}, "post": {"operationId": "createPet", "tags": ["pets"]}},
        "/stores/{id}/orders": {"get": {"operationId": "listOrders", "tags": ["store"], "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]}},
        "/users": {"get": {"operationId": "listUsers", "tags": ["users"]}}
    }));
    let pick = |ops: &[&str], tags: &[&str], paths: &[&str]| {
        let mut o = ImportOptions::new("pets");
        o.ops = ops.iter().map(|s| (*s).to_owned()).collect();
        o.tags = tags.iter().map(|s| (*s).to_owned()).collect();
        o.paths = paths.iter().map(|s| (*s).to_owned()).collect();
        let (out, pack) = run_with(&d, &o);
        let mut names: Vec<String> = pack["tools"].as_object().unwrap().keys().cloned().collect();
        names.sort();
        (out.operations, names)
    };
    assert_eq!(
        pick(&["listPets", "list_users"], &[], &[]),
        (2, vec!["list_pets".into(), "list_users".into()])
    );
    assert_eq!(pick(&[], &["PETS"], &[]).0, 2);
    assert_eq!(
        pick(&[], &[], &["/stores/*/orders"]),
        (1, vec!["list_orders".into()])
    );
    assert_eq!(pick(&[], &[], &["/**"]).0, 4);
    let mut o = ImportOptions::new("pets");
    o.ops = vec!["nope".into()];
    let e = import(&d.to_string(), &o).unwrap_err();
    assert!(e.to_string().contains("`nope`"), "{e}");
    let mut o = ImportOptions::new("pets");
    o.tags = vec!["none".into()];
    assert!(matches!(
        import(&d.to_string(), &o),
        Err(ImportError::Options(_))
    ));
}

#[test]
fn servers_variables_and_base_url_override() {
    let d = with(
        doc(json!({"/a": get_op("a", json!([]))})),
        "servers",
        json!([{"url": "https://{region}.api.example/{v}", "variables": {"region": {"default": "eu"}, "v": {"enum": ["v2", "v1"]}}}]),
    );
    let (_, pack) = run(&d);
    assert_eq!(pack["base_url"], "https://eu.api.example/v2");
    let mut o = ImportOptions::new("pets");
    o.base_url = Some("http://127.0.0.1:9999/".into());
    let (_, pack) = run_with(&d, &o);
    assert_eq!(pack["base_url"], "http://127.0.0.1:9999");
    // A relative server with no recorded origin, or no server at all: the base URL is
    // required at run time, and the pack says where.
    let rel = with(
        doc(json!({"/a": get_op("a", json!([]))})),
        "servers",
        json!([{"url": "/api"}]),
    );
    let (out, pack) = run(&rel);
    assert_eq!(pack["base_url"], "${CHARTER_PETS_BASE_URL}");
    assert!(
        out.pack_notes
            .iter()
            .any(|n| n.contains("CHARTER_PETS_BASE_URL") && n.contains("--base-url")),
        "{:?}",
        out.pack_notes
    );
    let mut none = doc(json!({"/a": get_op("a", json!([]))}));
    none.as_object_mut().unwrap().remove("servers");
    let (_, pack) = run(&none);
    assert_eq!(pack["base_url"], "${CHARTER_PETS_BASE_URL}");
    // Relative to the recorded origin; `//host` takes https; `--base-url` still wins.
    let mut origin = with(
        doc(json!({"/a": get_op("a", json!([]))})),
        "servers",
        json!([{"url": "/api/v1/"}]),
    );
    origin["info"]["x-origin"] =
        json!([{"format": "openapi", "url": "https://docs.example.com/spec/openapi.json"}]);
    let (out, pack) = run(&origin);
    assert_eq!(pack["base_url"], "https://docs.example.com/api/v1");
    assert!(
        out.pack_notes.iter().any(|n| n.contains("origin")),
        "{:?}",
        out.pack_notes
    );
    let (_, pack) = run_with(&origin, &o);
    assert_eq!(pack["base_url"], "http://127.0.0.1:9999");
    let schemeless = with(
        doc(json!({"/a": get_op("a", json!([]))})),
        "servers",
        json!([{"url": "//api.example.com/v2"}]),
    );
    assert_eq!(run(&schemeless).1["base_url"], "https://api.example.com/v2");
    // A base URL option that is not absolute is refused in one line naming the option.
    let mut bad = ImportOptions::new("pets");
    bad.base_url = Some("/api".into());
    assert!(matches!(
        import(&origin.to_string(), &bad),
        Err(ImportError::Options(m)) if m.contains("--base-url") && !m.contains('\n')
    ));
}

#[test]
fn pagination_is_declared_when_implied() {
    let d = doc(json!({
        "/repos": {"get": {"operationId": "listRepos", "parameters": [
            {"name": "page", "in": "query", "schema": {"type": "integer"}},
            {"name": "per_page", "in": "query", "schema": {"type": "integer"}}
        ]}},
        "/files": {"get": {"operationId": "listFiles",
            "parameters": [{"name": "pageToken", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"nextPageToken": {"type": "string"}}}}}}}
        }},
        "/monitors": {"get": {"operationId": "listMonitors", "parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer"}},
            {"name": "offset", "in": "query", "schema": {"type": "integer"}}
        ]}},
        // An offset without a limit, or a text one, is not taken for a position.
        "/events": {"get": {"operationId": "listEvents", "parameters": [
            {"name": "offset", "in": "query", "schema": {"type": "integer"}}
        ]}},
        "/zones": {"get": {"operationId": "listZones", "parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer"}},
            {"name": "offset", "in": "query", "schema": {"type": "string"}}
        ]}}
    }));
    let (_, pack) = run(&d);
    assert_eq!(
        pack["tools"]["list_monitors"]["response"]["pagination"],
        json!({"style": "offset", "param": "offset", "size_param": "limit"})
    );
    assert_eq!(pack["tools"]["list_events"]["response"], Value::Null);
    assert_eq!(pack["tools"]["list_zones"]["response"], Value::Null);
    assert_eq!(
        pack["tools"]["list_repos"]["response"]["pagination"],
        json!({"style": "page", "param": "page", "size_param": "per_page"})
    );
    assert_eq!(
        pack["tools"]["list_files"]["response"]["pagination"],
        json!({"style": "cursor", "next": "nextPageToken", "param": "pageToken"})
    );
}

#[test]
fn yaml_documents_are_read() {
    let text = r#"
openapi: 3.0.0
info: {title: Y, version: "1"}
servers: [{url: "https://y.example"}]
paths:
  /things/{id}:
    get:
      operationId: getThing
      summary: Get a thing.
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        200: {description: ok}
"#;
    let out = import(text, &ImportOptions::new("y")).unwrap();
    assert_eq!(out.tools, 1);
    charter_build::load_str("y.yaml", &out.yaml).expect("passes the checks");
}

#[test]
fn progress_is_reported() {
    let mut paths = serde_json::Map::new();
    for i in 0..60 {
        paths.insert(
            format!("/p{i}"),
            json!({"get": {"operationId": format!("op{i}"), "summary": "Op."}}),
        );
    }
    let d = doc(Value::Object(paths));
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let mut o = ImportOptions::new("pets");
    o.progress = Some(Arc::new(move |p| sink.lock().unwrap().push(p)));
    run_with(&d, &o);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.first().map(|p| p.stage), Some(Stage::Parsed));
    let ops: Vec<(usize, usize)> = seen
        .iter()
        .filter(|p| p.stage == Stage::Operations)
        .map(|p| (p.done, p.total))
        .collect();
    assert_eq!(ops, vec![(0, 60), (25, 60), (50, 60), (60, 60)]);
    assert_eq!(
        seen.last().map(|p| (p.stage, p.done)),
        Some((Stage::Written, 60))
    );
}

#[test]
fn invalid_documents_are_errors_that_say_where() {
    // Not JSON.
    match import(
        "{\"openapi\": \"3.0.0\",\n  \"paths\": {",
        &ImportOptions::new("pets"),
    ) {
        Err(ImportError::Parse {
            format: "JSON",
            line: 2,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Not YAML either.
    assert!(matches!(
        import("openapi: [3.0\npaths: {", &ImportOptions::new("pets")),
        Err(ImportError::Parse { format: "YAML", .. })
    ));
    // Not an object.
    assert!(
        matches!(import("just text", &ImportOptions::new("pets")), Err(ImportError::Invalid { pointer, .. }) if pointer.is_empty())
    );
    // Missing paths.
    let mut d = doc(json!({}));
    d.as_object_mut().unwrap().remove("paths");
    assert_eq!(
        err(&d),
        ImportError::Invalid {
            pointer: "/paths".into(),
            message: "missing `paths`: the document declares no operations".into()
        }
    );
    // Missing `openapi`; Swagger 2.0.
    let mut d = doc(json!({}));
    d.as_object_mut().unwrap().remove("openapi");
    assert!(matches!(err(&d), ImportError::Invalid { pointer, .. } if pointer == "/openapi"));
    let d = with(json!({"paths": {}}), "swagger", json!("2.0"));
    assert!(
        matches!(err(&d), ImportError::Unsupported { pointer, message } if pointer == "/swagger" && message.contains("Swagger 2.0"))
    );
    // A dangling reference names where it is written and what it points to.
    let d = doc(
        json!({"/a": {"get": {"operationId": "a", "parameters": [{"$ref": "#/components/parameters/Missing"}]}}}),
    );
    assert_eq!(
        err(&d),
        ImportError::DanglingRef {
            pointer: "/paths/~1a/get/parameters/0/$ref".into(),
            target: "#/components/parameters/Missing".into()
        }
    );
    assert!(
        err(&d)
            .to_string()
            .contains("/paths/~1a/get/parameters/0/$ref")
    );
    // External references are not followed.
    let d = doc(
        json!({"/a": {"get": {"operationId": "a", "parameters": [{"$ref": "other.yaml#/P"}]}}}),
    );
    assert!(matches!(err(&d), ImportError::Unsupported { .. }));
    // A parameter without `in`.
    let d = doc(json!({"/a": {"get": {"operationId": "a", "parameters": [{"name": "x"}]}}}));
    assert!(
        matches!(err(&d), ImportError::Invalid { pointer, message } if pointer == "/paths/~1a/get/parameters/0" && message.contains("`in`"))
    );
    // An operation that is not an object.
    let d = doc(json!({"/a": {"get": 7}}));
    assert!(matches!(err(&d), ImportError::Invalid { pointer, .. } if pointer == "/paths/~1a/get"));
    // A bad pack label.
    let d = doc(json!({"/a": get_op("a", json!([]))}));
    assert!(matches!(
        import(&d.to_string(), &ImportOptions::new("My_Pack")),
        Err(ImportError::Options(_))
    ));
    // A document with no operations.
    assert!(matches!(err(&doc(json!({}))), ImportError::Options(_)));
}

#[test]
fn garbage_never_panics() {
    // Odd but parseable documents: every schema keyword with the wrong kind of value.
    let weird = doc(json!({
        "/w/{id}": {"post": {
            "operationId": "weird",
            "parameters": [
                {"name": "id", "in": "path", "schema": {"type": "object", "properties": {"a": {}}}},
                {"name": "q", "in": "query", "schema": {"type": 5, "enum": "no", "minimum": "x", "items": 3}},
                {"name": "h", "in": "header", "schema": {"type": "array", "items": {"type": "string"}}},
                {"name": "", "in": "header", "schema": {}}
            ],
            "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": "all", "properties": {
                "a": true, "b": false, "c": {"allOf": "x"}, "d": {"oneOf": []}, "e": {"type": "array"}, "f": {"type": "null"}
            }}}}}
        }}
    }));
    let (out, pack) = run(&weird);
    assert_eq!(out.tools, 1);
    assert_eq!(pack["tools"]["weird"]["params"]["id"]["type"], "string");
    assert_eq!(pack["tools"]["weird"]["params"]["h"]["type"], "string");
}

#[test]
fn bodies_on_get_and_empty_bodies() {
    let empty = json!({"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {}, "additionalProperties": false}}}});
    let d = doc(json!({
        "/a": {"get": {"operationId": "getA", "requestBody": empty}},
        "/b": {"get": {"operationId": "getB", "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"q": {"type": "string"}}}}}}}},
        "/c": {"delete": {"operationId": "deleteC", "requestBody": empty}},
        "/d": {"post": {"operationId": "postD", "requestBody": {"content": {"application/json": {"schema": {"type": "object", "additionalProperties": true}}}}}},
        "/e": {"get": {"operationId": "getE", "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object"}}}}}}
    }));
    let (out, pack) = run(&d);
    let dropped: Vec<&str> = out
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::BodyDropped)
        .map(|n| n.operation.as_str())
        .collect();
    // Stripe's empty GET and DELETE bodies lose nothing: no note. A GET body that declares a
    // field, and a free-form body, are reported.
    assert_eq!(dropped, vec!["getB", "postD"]);
    assert!(pack["tools"]["get_b"].get("params").is_none());
    assert_eq!(
        out.skipped
            .iter()
            .map(|s| s.operation.as_str())
            .collect::<Vec<_>>(),
        vec!["getE"]
    );
}

#[test]
fn fixed_values_in_the_path_become_tool_constants() {
    // AWS JSON protocol (a header in the fragment), query protocol (`#Action=`, with the
    // parameter the constant replaces), a query in the path, and S3's key-only `?uploads`
    // with a greedy `{Key+}`.
    let d = doc(json!({
        "/#X-Amz-Target=DynamoDB_20120810.GetItem": {"post": {"operationId": "GetItem",
            "parameters": [{"name": "X-Amz-Target", "in": "header", "required": true, "schema": {"type": "string", "enum": ["DynamoDB_20120810.GetItem"]}}],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "properties": {"TableName": {"type": "string"}}}}}}}},
        "/#X-Amz-Target=DynamoDB_20120810.PutItem": {"post": {"operationId": "PutItem",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "properties": {"TableName": {"type": "string"}}}}}}}},
        "/#Action=DescribeThings": {"get": {"operationId": "DescribeThings", "parameters": [
            {"name": "Action", "in": "query", "required": true, "schema": {"type": "string", "enum": ["DescribeThings"]}},
            {"name": "Version", "in": "query", "required": true, "schema": {"type": "string", "enum": ["2016-11-15"]}}]}},
        "/?Action=ListThings&Version=2016-11-15": {"get": {"operationId": "ListThings"}},
        "/{Bucket}/{Key+}?uploads": {"post": {"operationId": "CreateMultipartUpload", "parameters": [
            {"name": "Bucket", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "Key", "in": "path", "required": true, "schema": {"type": "string"}}]}}
    }));
    let (out, pack) = run(&d);
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let get = &pack["tools"]["get_item"];
    assert_eq!(get["path"], "/");
    assert_eq!(
        get["headers"],
        json!({"X-Amz-Target": "DynamoDB_20120810.GetItem"})
    );
    assert!(
        get["params"].get("X-Amz-Target").is_none() && get["params"].get("x_amz_target").is_none()
    );
    assert!(
        notes(&out, NoteKind::ParameterDropped)
            .iter()
            .any(|n| n.contains("X-Amz-Target"))
    );
    assert_eq!(
        pack["tools"]["put_item"]["headers"],
        json!({"X-Amz-Target": "DynamoDB_20120810.PutItem"})
    );
    let describe = &pack["tools"]["describe_things"];
    assert_eq!(describe["query"], json!({"Action": "DescribeThings"}));
    assert!(describe["params"].get("Action").is_none());
    assert_eq!(describe["params"]["Version"]["required"], true);
    assert_eq!(
        pack["tools"]["list_things"]["query"],
        json!({"Action": "ListThings", "Version": "2016-11-15"})
    );
    let upload = &pack["tools"]["create_multipart_upload"];
    assert_eq!(upload["path"], "/{Bucket}/{Key}");
    assert_eq!(upload["query"], json!({"uploads": ""}));
    assert_eq!(upload["params"]["Key"]["allow_slash"], true);
}

#[test]
fn split_by_tag_writes_one_pack_per_group_under_the_limit() {
    let op = |id: &str, tag: Option<&str>| {
        let mut o = json!({"operationId": id, "summary": format!("Operation {id}."), "parameters": [
            {"name": "filter", "in": "query", "description": "x".repeat(200), "schema": {"type": "string"}}]});
        if let Some(t) = tag {
            o["tags"] = json!([t]);
        }
        json!({"get": o})
    };
    let mut paths = serde_json::Map::new();
    for i in 0..40 {
        paths.insert(
            format!("/users/{i}"),
            op(&format!("getUser{i}"), Some("Users & Groups")),
        );
    }
    paths.insert("/mail".into(), op("listMail", Some("mail")));
    paths.insert("/misc".into(), op("misc", None));
    let d = doc(Value::Object(paths));
    let split =
        import_split(&d.to_string(), &ImportOptions::new("graph"), 8 * 1024).expect("split");
    let labels: Vec<&str> = split.packs.iter().map(|p| p.pack.as_str()).collect();
    // The users group is over 8 KiB as one pack: it is cut into parts.
    assert!(
        labels
            .iter()
            .filter(|l| l.starts_with("graph-users-groups-"))
            .count()
            >= 2,
        "{labels:?}"
    );
    assert!(
        labels.contains(&"graph-mail") && labels.contains(&"graph-other"),
        "{labels:?}"
    );
    let mut tools = 0;
    for p in &split.packs {
        assert!(
            p.yaml.len() <= 8 * 1024,
            "{} is {} bytes",
            p.pack,
            p.yaml.len()
        );
        let pack = charter_build::load_str(&format!("{}.yaml", p.pack), &p.yaml)
            .unwrap_or_else(|e| panic!("{} fails the checks: {e:?}", p.pack));
        assert_eq!(pack.label(), p.pack);
        tools += p.tools;
    }
    assert_eq!(tools, 42);
    // The selection applies first.
    let mut o = ImportOptions::new("graph");
    o.tags = vec!["mail".into()];
    let only = import_split(&d.to_string(), &o, 8 * 1024).expect("split");
    assert_eq!(only.packs.len(), 1);
    assert_eq!(only.packs[0].pack, "graph-mail");
}

#[test]
fn malformed_refs_are_clean_errors() {
    for (target, what) in [
        ("#/components/schemas/Missing", "dangling"),
        ("#components/schemas/X", "pointer"),
        ("", "empty"),
        ("#/components/schemas/%ZZ", "dangling"),
        ("other.yaml#/X", "external"),
    ] {
        let d = doc(
            json!({"/a": get_op("a", json!([{"name": "x", "in": "query", "schema": {"$ref": target}}]))}),
        );
        let e = err(&d);
        let text = e.to_string();
        assert!(
            text.contains("/paths/~1a/get/parameters/0/schema/$ref"),
            "{what}: {text}"
        );
        assert!(!text.contains('\n'), "{what}: one line: {text}");
    }
}

#[test]
fn media_types_are_case_insensitive() {
    let d = doc(
        json!({"/pay": {"post": {"operationId": "pay", "requestBody": {"required": true,
        "content": {"application/JSON": {"schema": {"type": "object", "properties": {"amount": {"type": "integer"}}}}}}}}}),
    );
    let (out, pack) = run(&d);
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(pack["tools"]["pay"]["params"]["amount"]["in"], "body");
}
