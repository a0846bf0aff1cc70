//! Result shapes: `response.shape` and a pack's `results:` file compiled into each tool's
//! result schema, and every mistake in either placed at its `file:line:col`.

use std::path::PathBuf;

use charter_build::{Diagnostic, Loc, check_file, compile_str};

fn at<'d>(d: &'d [Diagnostic], file: &str, line: u32, col: u32, fragment: &str) -> &'d Diagnostic {
    let found = d.iter().find(|d| {
        d.file.ends_with(file) && d.loc == Loc::new(line, col) && d.message.contains(fragment)
    });
    found.unwrap_or_else(|| {
        panic!("nothing in {file} at {line}:{col} containing `{fragment}`; got {d:#?}")
    })
}

/// A pack of two tools with `results: r.yaml`, and that results file, in a folder of their own.
fn pack_with_results(name: &str, tools: &str, results: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("charter-results-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.yaml");
    let pack = format!(
        "pack: t\ndescription: d\nbase_url: https://t.example\nresults: r.yaml\ntools:\n{tools}"
    );
    std::fs::write(&file, pack).unwrap();
    std::fs::write(dir.join("r.yaml"), results).unwrap();
    file
}

const TWO_TOOLS: &str = "  items_list:\n    description: List items.\n    method: GET\n    path: /items\n  item_get:\n    description: Get an item.\n    method: GET\n    path: /items/{id}\n    params:\n      id: { in: path, type: string, required: true, description: The id. }\n";

#[test]
fn a_results_file_gives_shapes_and_gaps_and_lenient_loosens_every_property() {
    let file = pack_with_results(
        "ok",
        TWO_TOOLS,
        "lenient: true\ntools:\n  items_list:\n    type: array\n    items: { type: object, properties: { id: { type: integer }, \"+1\": { type: integer } } }\ngaps:\n  item_get: not-json\n",
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let code = compile_str(&file.display().to_string(), &text, "::charter").unwrap();
    // Lenient: every member may be null, and none is required; the API's own names are kept.
    assert!(
        code.contains(r#"{"type":"array","items":{"type":"object","properties":{"id":{"anyOf":[{"type":"integer"},{"type":"null"}]},"+1":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}}"#),
        "{code}"
    );
    assert!(code.contains("Output::Unknown(Gap::NotJson)"), "{code}");
    // Code mode's declaration is typed by the shape, not `any`.
    assert!(
        code.contains(r#"Promise<{id?: number; "+1"?: number}[]>"#),
        "{code}"
    );
}

#[test]
fn mistakes_in_a_results_file_are_placed_there() {
    let file = pack_with_results(
        "bad",
        TWO_TOOLS,
        "tools:\n  items_lst: { type: array }\n  items_list:\n    type: array\n    items: { type: object, properties: { id: { type: integer, wire: ID } } }\ngaps:\n  items_list: not-json\n  item_get: guessed\n",
    );
    let d = check_file(&file).expect_err("mistakes");
    at(
        &d,
        "r.yaml",
        2,
        3,
        "no tool `items_lst`; did you mean `items_list`?",
    );
    at(&d, "r.yaml", 5, 69, "`wire` does not apply");
    at(&d, "r.yaml", 7, 3, "listed twice in the results file");
    at(
        &d,
        "r.yaml",
        8,
        13,
        "unknown gap `guessed`: use one of not-declared, ",
    );
}

#[test]
fn a_missing_results_file_is_reported_at_the_key() {
    let dir = std::env::temp_dir().join(format!("charter-results-missing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.yaml");
    std::fs::write(
        &file,
        format!("pack: t\ndescription: d\nbase_url: https://t.example\nresults: nowhere.yaml\ntools:\n{TWO_TOOLS}"),
    )
    .unwrap();
    let d = check_file(&file).expect_err("missing file");
    at(&d, "t.yaml", 4, 10, "cannot read the results file");
}

#[test]
fn a_tool_declares_its_shape_once() {
    let tools = format!(
        "{TWO_TOOLS}    response:\n      shape: {{ type: object, properties: {{ id: {{ type: string }} }} }}\n"
    );
    let file = pack_with_results("twice", &tools, "tools:\n  item_get: { type: object }\n");
    let d = check_file(&file).expect_err("twice");
    at(&d, "r.yaml", 2, 3, "already declares `response.shape`");
}

#[test]
fn an_inline_shape_is_checked_as_a_shape() {
    let tools = "  items_list:\n    description: List items.\n    method: GET\n    path: /items\n    response:\n      shape: { type: array, items: { type: strng } }\n";
    let text = format!("pack: t\ndescription: d\nbase_url: https://t.example\ntools:\n{tools}");
    let d = charter_build::load_str("t.yaml", &text).expect_err("bad type");
    at(&d, "t.yaml", 10, 44, "unknown type `strng`");
}
