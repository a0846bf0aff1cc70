//! `charter_openapi::results` on small inline documents: each rule of docs/openapi-import.md
//! "Result shapes" (references, `allOf`, `oneOf`, nullable items, maps, the `keep` projection
//! through arrays and choices, a body cursor's `has_more`, the `Link`-cursor wrap, every gap
//! code, the recursion, depth and size cuts, Swagger 2.0), with the exact text written.

use charter_openapi::{GapCode, ImportError, MissingKeep, ResultsOptions, results};

const ZOO: &str = r##"{
  "openapi": "3.0.3",
  "info": {"title": "Zoo API", "version": "1.2"},
  "servers": [{"url": "https://api.zoo.example/v1"}],
  "paths": {
    "/animals": {
      "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Animal"}}}}}}},
      "post": {"responses": {
        "201": {"$ref": "#/components/responses/OneAnimal"},
        "default": {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
    },
    "/animals/{id}": {
      "get": {"responses": {"200": {"$ref": "#/components/responses/OneAnimal"}}},
      "delete": {"responses": {"204": {"description": "gone"}}}
    },
    "/animals/me": {
      "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "object", "properties": {"self": {"type": "boolean"}}}}}}}}
    },
    "/keepers": {
      "get": {"responses": {"200": {"description": "ok", "content": {"application/json; charset=utf-8": {
        "schema": {"type": "object", "properties": {
          "data": {"type": "array", "items": {"$ref": "#/components/schemas/Keeper"}},
          "has_more": {"type": "boolean"},
          "total": {"type": "integer"}}}}}}}}
    },
    "/pens/{pen}/animals": {
      "get": {"responses": {"200": {"description": "ok", "content": {"application/vnd.zoo+json": {
        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Animal"}}}}}}}
    },
    "/feed": {
      "get": {"responses": {"200": {"description": "ok", "content": {"text/plain": {"schema": {"type": "string"}}}},
        "default": {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
    },
    "/health": {
      "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {}}}}}
    }
  },
  "components": {
    "responses": {
      "OneAnimal": {"description": "an animal", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Animal"}}}}
    },
    "schemas": {
      "Base": {"type": "object", "properties": {"id": {"type": "integer"}, "created": {"type": "string", "format": "date-time"}}},
      "Animal": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {
        "name": {"type": "string", "nullable": true},
        "kind": {"oneOf": [{"type": "string"}, {"$ref": "#/components/schemas/Species"}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"type": ["string", "null"]}},
        "weights": {"type": "object", "additionalProperties": {"type": "number"}},
        "parent": {"$ref": "#/components/schemas/Animal"}}}]},
      "Species": {"properties": {"latin": {"type": "string"}, "family": {"type": "object", "properties": {"name": {"type": "string"}}}}},
      "Keeper": {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
        "animals": {"type": "array", "items": {"$ref": "#/components/schemas/Animal"}}}},
      "Error": {"type": "object", "properties": {"message": {"type": "string"}}}
    }
  }
}"##;

const ZOO_PACK: &str = r#"# The zoo, from zoo.json.
pack: zoo
description: A zoo.
base_url: https://api.zoo.example/v1
tools:
  animals_list:
    description: List the animals.
    method: GET
    path: /animals
    response: { keep: [id, name, kind.latin, tags, legs] }
  animals_get:
    description: One animal.
    method: GET
    path: /animals/{animal}
    params:
      animal: { in: path, type: integer, required: true, description: The animal. }
  animals_me:
    description: The caller's animal.
    method: GET
    path: /animals/me
  animals_create:
    description: Add an animal.
    method: POST
    path: /animals
    response: { keep: [id] }
  animals_delete:
    description: Remove an animal.
    method: DELETE
    path: /animals/{id}
    params:
      id: { in: path, type: integer, required: true, description: The animal. }
  keepers_list:
    description: List the keepers.
    method: GET
    path: /keepers
    params:
      after: { in: query, type: string, description: The cursor. }
    response:
      keep: [data.name, data.animals.name]
      pagination: { style: cursor, next: data.-1.id, param: after }
  pen_animals:
    description: The animals of a pen.
    method: GET
    path: /pens/{pen}/animals
    params:
      pen: { in: path, type: string, required: true, description: The pen. }
      after: { in: query, type: string, description: The cursor. }
    response:
      keep: [name]
      pagination: { style: cursor, next: "link:next?after", param: after }
  feed:
    description: The zoo's news.
    method: GET
    path: /feed
  health:
    description: Whether the zoo is up.
    method: GET
    path: /health
  search:
    description: Search the zoo.
    method: GET
    path: /search
  graph:
    description: The zoo's graph.
    graphql: "query { animals { name } }"
"#;

const ZOO_RESULTS: &str = r#"# Result shapes of the zoo pack's tools, generated from zoo.json
# (Zoo API 1.2) by `make zoo`. Do not edit by hand.
lenient: true
tools:
  animals_list:
    type: array
    items:
      type: object
      properties:
        id: { type: integer }
        name: { type: string }
        kind:
          one_of:
            - { type: string }
            - { type: object, properties: { latin: { type: string } } }
        tags: { type: array, items: { type: string, nullable: true } }
        legs: { type: any }
  animals_get:
    type: object
    properties:
      id: { type: integer }
      created: { type: string }
      name: { type: string }
      kind:
        one_of:
          - { type: string }
          - type: object
            properties:
              latin: { type: string }
              family: { type: object, properties: { name: { type: string } } }
      tags: { type: array, items: { type: string, nullable: true } }
      weights: { type: map, values: { type: number } }
      parent: { type: any }
  animals_me: { type: object, properties: { self: { type: boolean } } }
  animals_create: { type: object, properties: { id: { type: integer } } }
  keepers_list:
    type: object
    properties:
      data:
        type: array
        items:
          type: object
          properties:
            id: { type: string }
            name: { type: string }
            animals:
              type: array
              items: { type: object, properties: { name: { type: string } } }
      has_more: { type: boolean }
  pen_animals:
    type: object
    properties:
      items: { type: array, items: { type: object, properties: { name: { type: string } } } }
      next_cursor: { type: string }
gaps:
  animals_delete: not-json
  feed: not-json
  health: no-schema
  search: no-operation
  graph: graphql
"#;

fn options() -> ResultsOptions {
    ResultsOptions::new("zoo.json", "make zoo")
}

#[test]
fn every_rule_on_a_small_document() {
    let out = results(ZOO_PACK, ZOO, &options()).unwrap();
    assert_eq!(out.yaml, ZOO_RESULTS, "{}", out.yaml);
    assert_eq!(out.pack, "zoo");
    assert_eq!((out.tools, out.shaped), (11, 6));
    let by_code: Vec<usize> = GapCode::ALL.iter().map(|c| out.gaps_of(*c)).collect();
    assert_eq!(by_code, [1, 1, 2, 1]);
    assert_eq!(
        out.missing_keep,
        [MissingKeep {
            tool: "animals_list".into(),
            path: "legs".into()
        }]
    );
    // `parent` (Animal inside Animal) once; the one in `animals_list` is not kept.
    assert_eq!(out.recursion_cuts, 1);
    assert_eq!(
        (out.depth_cuts, out.one_of_as_any, out.size_cuts),
        (0, 0, 0)
    );
    assert_eq!(out.largest[0].tool, "animals_get");
    assert_eq!(out.largest[0].nodes, 15);
    assert!(out.fitted.is_empty());
    let report = out.report();
    assert!(
        report.starts_with(
            "zoo: 11 tools, 6 shaped; gaps: no-operation 1, no-schema 1, not-json 2, graphql 1\n"
        ),
        "{report}"
    );
    assert!(
        report.contains("keep path not in the document: animals_list legs\n"),
        "{report}"
    );
}

#[test]
fn the_depth_limit_and_the_size_budget_cut_to_outlines() {
    let mut shallow = options();
    shallow.max_depth = 0;
    let out = results(ZOO_PACK, ZOO, &shallow).unwrap();
    // `Species` is an object one level down: the choice holding it keeps "a string or an
    // object", the map of weights is a free object. The keepers (the list items of a member)
    // are free objects too, of which the kept paths name the members.
    assert!(
        out.yaml
            .contains("      kind: { one_of: [{ type: string }, { type: map }] }\n"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains("      weights: { type: map }\n"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains(
            "            name: { type: any }\n            animals: { type: any }\n            id: { type: any }\n"
        ),
        "{}",
        out.yaml
    );
    // The root's array items are the root level: `pen_animals` keeps its shape.
    assert!(out.yaml.contains(
        "      items: { type: array, items: { type: object, properties: { name: { type: string } } } }\n"
    ));
    // Species in both animal tools, the weights, the keepers; no choice lost its alternatives
    // (a cut alternative is still an object).
    assert_eq!(
        (out.depth_cuts, out.one_of_as_any, out.recursion_cuts),
        (4, 0, 1)
    );

    let mut small = options();
    small.max_nodes = 10;
    let out = results(ZOO_PACK, ZOO, &small).unwrap();
    // 15 nodes: the deepest member first (`family`, inside `kind`, to a free object), then
    // the members of the level above, largest first, to their outlines: `kind` to "a string or
    // an object" and `weights` to a free object make 11; `kind` again, now its own outline, to
    // `any` makes 9.
    let get = out.fitted.iter().find(|s| s.tool == "animals_get").unwrap();
    assert_eq!((get.nodes, get.cut), (9, 2), "{get:?}");
    assert!(
        out.yaml.contains(
            "      name: { type: string }\n      kind: { type: any }\n      tags: { type: array, items: { type: string, nullable: true } }\n      weights: { type: map }\n"
        ),
        "{}",
        out.yaml
    );
    assert!(
        out.report()
            .contains("cut to fit: animals_get (2 members cut, 9 nodes left)\n"),
        "{}",
        out.report()
    );
}

#[test]
fn choices_of_more_than_four_or_of_anything_are_any() {
    // `untyped_items`: `items` without `type` is what one value is (Slack's conversations).
    let doc = r#"{"openapi": "3.1.0", "info": {"title": "C", "version": "1"}, "paths": {"/c": {"get": {"responses": {"2XX": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
        "many": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "array", "items": {"type": "string"}}, {"type": "object", "properties": {"a": {"type": "string"}}}]},
        "loose": {"oneOf": [{"type": "string"}, {}]},
        "four": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "number"}]},
        "typed": {"type": ["integer", "string"]},
        "constrained": {"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
        "merged": {"allOf": [{"oneOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"type": "integer"}}}]}, {"type": "object", "properties": {"b": {"type": "integer"}}}]},
        "inferred": {"enum": ["x", "y"]},
        "free": {"type": "object"},
        "untyped_items": {"items": {"anyOf": [{"type": "object", "properties": {"id": {"type": "string"}}}, {"type": "string"}]}},
        "listed": {"type": "array", "items": {"items": {"type": "object", "properties": {"id": {"type": "string"}}}}}
    }}}}}}}}}}"#;
    let pack = "pack: c\ndescription: C.\nbase_url: https://c.example\ntools:\n  c:\n    description: C.\n    method: GET\n    path: /c\n";
    let out = results(pack, doc, &ResultsOptions::new("c.json", "make c")).unwrap();
    let body = out.yaml.split_once("tools:\n").unwrap().1;
    assert_eq!(
        body,
        "  c:
    type: object
    properties:
      many: { type: any }
      loose: { type: any }
      four: { one_of: [{ type: string }, { type: integer }, { type: boolean }, { type: number }] }
      typed: { one_of: [{ type: integer }, { type: string }] }
      constrained: { type: object, properties: { a: { type: string } } }
      merged: { type: object, properties: { a: { type: integer }, b: { type: integer } } }
      inferred: { type: string }
      free: { type: map }
      untyped_items:
        one_of:
          - { type: object, properties: { id: { type: string } } }
          - { type: string }
      listed: { type: array, items: { type: object, properties: { id: { type: string } } } }
gaps: {}
",
        "{}",
        out.yaml
    );
    assert_eq!(out.one_of_as_any, 2);
}

#[test]
fn keep_paths_through_maps_and_odata_annotations() {
    let doc = r#"{"openapi": "3.0.0", "info": {"title": "M", "version": "1"}, "servers": [{"url": "https://m.example/api/v2"}], "paths": {"/users/{id}/boxes": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
        "value": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "@odata.etag": {"type": "string"}, "size": {"type": "integer"}}}},
        "@odata.nextLink": {"type": "string"},
        "counts": {"type": "object", "additionalProperties": {"type": "object", "properties": {"n": {"type": "integer"}, "m": {"type": "integer"}}}}
    }}}}}}}}}}"#;
    // The pack's base path holds `/api`; the tool names the rest, with a literal where the
    // document has a placeholder (`users/me`).
    let pack = r#"pack: m
description: M.
base_url: https://m.example/api
tools:
  boxes:
    description: My boxes.
    method: GET
    path: /v2/users/me/boxes
    params:
      skip: { in: query, type: integer, description: Skip. }
    response:
      keep: [value.id, value.@odata.etag, counts.total.n, "true"]
      pagination: { style: cursor, next: "@odata.nextLink?$skip", param: skip }
"#;
    let out = results(pack, doc, &ResultsOptions::new("m.json", "make m")).unwrap();
    let body = out.yaml.split_once("tools:\n").unwrap().1;
    assert_eq!(
        body,
        r#"  boxes:
    type: object
    properties:
      value:
        type: array
        items:
          type: object
          properties:
            id: { type: string }
            "@odata.etag": { type: string }
      "@odata.nextLink": { type: string }
      counts:
        type: object
        properties:
          total: { type: object, properties: { "n": { type: integer } } }
      "true": { type: any }
gaps: {}
"#,
        "{}",
        out.yaml
    );
    // `has_more`, which the cursor implies, is not in the document: neither added nor reported.
    assert_eq!(out.missing_keep.len(), 1);
    assert_eq!(out.missing_keep[0].path, "true");
}

#[test]
fn a_slash_parameter_fills_one_placeholder_of_the_document() {
    let doc = r#"{"openapi": "3.0.0", "info": {"title": "G", "version": "1"}, "servers": [{"url": "https://g.example"}], "paths": {
        "/git/refs/{ref}": {"delete": {"responses": {"204": {"description": "gone"}}}},
        "/contents/{path}": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"sha": {"type": "string"}}}}}}}}}}}"#;
    let pack = r#"pack: g
description: G.
base_url: https://g.example
tools:
  branch_delete:
    description: Delete a branch.
    method: DELETE
    path: /git/refs/heads/{branch}
    params:
      branch: { in: path, type: string, required: true, allow_slash: true, description: The branch. }
  tag_delete:
    description: Delete a tag.
    method: DELETE
    path: /git/refs/tags/{tag}
    params:
      tag: { in: path, type: string, required: true, description: The tag. }
  file_get:
    description: A file.
    method: GET
    path: /contents/{file}
    params:
      file: { in: path, type: string, required: true, allow_slash: true, description: The file. }
"#;
    let out = results(pack, doc, &ResultsOptions::new("g.json", "make g")).unwrap();
    assert!(out.yaml.ends_with(
        "  file_get: { type: object, properties: { sha: { type: string } } }\ngaps:\n  branch_delete: not-json\n  tag_delete: no-operation\n"
    ), "{}", out.yaml);
}

#[test]
fn swagger_2_responses_are_read() {
    let doc = r##"{"swagger": "2.0", "info": {"title": "S", "version": "2"}, "basePath": "/v1", "produces": ["application/json"], "paths": {
        "/s": {"get": {"responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/S"}}}}},
        "/f": {"get": {"responses": {"200": {"description": "ok", "schema": {"type": "file"}}}}},
        "/x": {"get": {"produces": ["application/xml"], "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/S"}}}}}},
      "definitions": {"S": {"type": "object", "properties": {"a": {"type": "string", "x-nullable": true}}}}}"##;
    let pack = "pack: s\ndescription: S.\nbase_url: https://s.example/v1\ntools:\n  s:\n    description: S.\n    method: GET\n    path: /s\n  f:\n    description: F.\n    method: GET\n    path: /f\n  x:\n    description: X.\n    method: GET\n    path: /x\n";
    let out = results(pack, doc, &ResultsOptions::new("s.json", "make s")).unwrap();
    assert!(out.yaml.ends_with(
        "  s: { type: object, properties: { a: { type: string } } }\ngaps:\n  f: not-json\n  x: not-json\n"
    ), "{}", out.yaml);
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    let o = options();
    let err = |pack: &str, doc: &str| results(pack, doc, &o).unwrap_err();
    assert!(
        matches!(err("tools: [", ZOO), ImportError::Options(m) if m.contains("not valid YAML"))
    );
    assert!(matches!(err("pack: zoo\n", ZOO), ImportError::Options(m) if m.contains("no `tools`")));
    assert!(matches!(
        err("pack: zoo\ntools:\n  a: { method: GET }\n", ZOO),
        ImportError::Options(m) if m.contains("`path` is missing")
    ));
    assert!(matches!(
        err("pack: zoo\ntools:\n  a: { method: GET, path: /x, response: { keep: id } }\n", ZOO),
        ImportError::Options(m) if m.contains("must be a list")
    ));
    assert!(matches!(err(ZOO_PACK, "{"), ImportError::Parse { .. }));
    assert!(matches!(
        err(ZOO_PACK, r#"{"swagger": "1.2", "paths": {}}"#),
        ImportError::Unsupported { .. }
    ));
    let dangling = ZOO.replace("#/components/schemas/Keeper", "#/components/schemas/Nobody");
    assert!(matches!(
        err(ZOO_PACK, &dangling),
        ImportError::DanglingRef { target, .. } if target == "#/components/schemas/Nobody"
    ));
    let external = ZOO.replace("#/components/schemas/Error", "other.json#/Error");
    // `/feed`'s default is not read (it has a 2xx), `POST /animals`'s neither: no error.
    assert!(results(ZOO_PACK, &external, &o).is_ok());
}

#[test]
fn hostile_documents_are_bounded() {
    // 40 schemas of 40 properties, each referring to the next: 40^5 schemas to depth 4.
    let mut schemas = serde_json::Map::new();
    for i in 0..40 {
        let props: serde_json::Map<String, serde_json::Value> = (0..40)
            .map(|p| {
                let target = format!("#/components/schemas/S{}", (i + 1) % 40);
                (format!("p{p}"), serde_json::json!({"$ref": target}))
            })
            .collect();
        schemas.insert(
            format!("S{i}"),
            serde_json::json!({"type": "object", "properties": props}),
        );
    }
    // And a chain of 5,000 references through list items, which passes no object level.
    for i in 0..5000 {
        schemas.insert(
            format!("L{i}"),
            serde_json::json!({"type": "array", "items": {"$ref": format!("#/components/schemas/L{}", i + 1)}}),
        );
    }
    schemas.insert("L5000".into(), serde_json::json!({"type": "string"}));
    let ok = |schema: &str| serde_json::json!({"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": schema}}}}}});
    let doc = serde_json::json!({
        "openapi": "3.0.0", "info": {"title": "H", "version": "1"},
        "paths": {"/wide": {"get": ok("#/components/schemas/S0")}, "/long": {"get": ok("#/components/schemas/L0")}},
        "components": {"schemas": schemas}
    });
    let pack = "pack: h\ndescription: H.\nbase_url: https://h.example\ntools:\n  wide: { description: W., method: GET, path: /wide }\n  long: { description: L., method: GET, path: /long }\n";
    let started = std::time::Instant::now();
    let out = results(
        pack,
        &doc.to_string(),
        &ResultsOptions::new("h.json", "make h"),
    )
    .unwrap();
    assert_eq!(out.shaped, 2);
    assert!(
        out.largest.iter().all(|s| s.nodes <= 150),
        "{:?}",
        out.largest
    );
    assert!(out.depth_cuts >= 1, "{}", out.report());
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}
