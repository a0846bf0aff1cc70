//! Hostile API documents (SECURITY.md): whatever a document holds, the importer answers with a
//! pack that passes the compiler's checks, or with a report, never a panic. Each case was found
//! by the `openapi_import` fuzz target.

use charter_build::load_str;
use charter_openapi::{ImportOptions, import};

/// Found by the `openapi_import` fuzz target: a path parameter whose name is not the
/// placeholder's, but cleans up to it, was taken for it and then dropped, leaving `{b}` without
/// a parameter: the imported pack failed the checker.
#[test]
fn an_imported_path_parameter_named_unlike_its_placeholder_still_gives_a_valid_pack() {
    let doc = r#"openapi: 3.1.0
info: {title: Min, version: "1"}
servers: [{url: "https://x.example"}]
paths:
  /a/{b}/c:
    get:
      operationId: abc
      parameters:
        - {name: "b|||", in: path, required: true, schema: {type: string}}
"#;
    let out = import(doc, &ImportOptions::new("fuzz")).expect("imports");
    assert_eq!(out.tools, 1);
    if let Err(diags) = load_str("imported.yaml", &out.yaml) {
        panic!("{diags:?}\n{}", out.yaml);
    }
}

/// Found by the `openapi_import` fuzz target: a path parameter of an unknown type (read as any
/// value, then declared as a string) kept its numeric default, which the checker refuses.
#[test]
fn an_imported_path_parameter_of_unknown_type_drops_a_default_that_is_not_a_string() {
    let doc = r#"openapi: 3.1.0
info: {title: Min, version: "1"}
servers: [{url: "https://x.example"}]
paths:
  /a/{b}/c:
    get:
      operationId: abc
      parameters:
        - {name: b, in: path, required: true, schema: {type: intege2, default: 0}}
        - {name: X-Mode, in: header, schema: {type: strnig, default: [1]}}
"#;
    let out = import(doc, &ImportOptions::new("fuzz")).expect("imports");
    assert_eq!(out.tools, 1);
    if let Err(diags) = load_str("imported.yaml", &out.yaml) {
        panic!("{diags:?}\n{}", out.yaml);
    }
}

/// Found by the `openapi_import` fuzz target: a body property named `""` became a field with an
/// empty wire name, which the checker refuses.
#[test]
fn an_imported_property_without_a_name_is_left_out() {
    let doc = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
      "servers": [{"url": "https://api.example.com"}],
      "paths": {"/things": {"put": {"operationId": "putThing", "requestBody": {"content": {
        "application/json": {"schema": {"type": "object", "properties": {
          "": {"type": "string"}, " ": {"type": "integer"}, "a": {"type": "string"}}}}}}}}}}"#;
    let out = import(doc, &ImportOptions::new("fuzz")).expect("imports");
    assert_eq!(out.tools, 1);
    if let Err(diags) = load_str("imported.yaml", &out.yaml) {
        panic!("{diags:?}\n{}", out.yaml);
    }
    assert!(out.yaml.contains("      a:"), "{}", out.yaml);
}

/// Found by the `openapi_import` fuzz target: a `$ref` with a `%` before a multi-byte character
/// (`%ь`) panicked while percent-decoding (the hex digits were sliced out of the text, cutting
/// the character). Now such a `%` stays literal, the ref dangles and is reported; a real escape
/// still decodes.
#[test]
fn a_percent_before_a_multibyte_character_in_a_ref_is_reported_not_a_panic() {
    let doc = |target: &str| {
        format!(
            r##"{{"openapi": "3.0.3", "info": {{"title": "T", "version": "1"}},
      "servers": [{{"url": "https://api.example.com"}}],
      "paths": {{"/things": {{"put": {{"operationId": "putThing", "requestBody": {{"content": {{
        "application/json": {{"schema": {{"$ref": "{target}"}}}}}}}}}}}}}},
      "components": {{"schemas": {{"A": {{"type": "object", "properties": {{"a": {{"type": "string"}}}}}}}}}}}}"##
        )
    };
    let options = ImportOptions::new("fuzz");
    for dangling in [
        "#/components/schemas/%ь",
        "#/components/schemas/%4ь",
        "#/components/schemas/%+1",
    ] {
        let imported = import(&doc(dangling), &options);
        let resolved = imported.is_ok_and(|out| out.yaml.contains("      a:"));
        assert!(!resolved, "{dangling} must not resolve to A");
    }
    let out = import(&doc("#/components/schemas/%41"), &options).expect("a real escape decodes");
    assert!(out.yaml.contains("      a:"), "{}", out.yaml);
}

/// Found by the `openapi_import` fuzz target: a path holding the same placeholder twice, once as
/// a reserved expansion (`/{+b}/a/{b}`), became a pack the checker refuses. It is now reported as
/// an operation that cannot be a tool.
#[test]
fn an_imported_path_repeating_a_placeholder_is_reported() {
    let doc = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
      "servers": [{"url": "https://api.example.com"}],
      "paths": {
        "/{+b}/a/{b}": {"get": {"operationId": "twice", "parameters": [
          {"name": "b", "in": "path", "required": true, "schema": {"type": "string"}}]}},
        "/things": {"get": {"operationId": "listThings"}}}}"#;
    let out = import(doc, &ImportOptions::new("fuzz")).expect("imports");
    assert_eq!(out.tools, 1, "{}", out.yaml);
    if let Err(diags) = load_str("imported.yaml", &out.yaml) {
        panic!("{diags:?}\n{}", out.yaml);
    }
    let reported = format!("{:?}", out.skipped);
    assert!(reported.contains("appears twice"), "{reported}");
}
