//! `graphql_schema:` — a pack's documents and parameters checked against its API's schema, each
//! mistake at its `file:line:col` (inside the document for document errors).

use std::path::{Path, PathBuf};

use charter_build::{Diagnostic, Loc, check_file};

fn broken(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/graphql_schema")
        .join(file)
}

fn at<'d>(d: &'d [Diagnostic], line: u32, col: u32, fragment: &str) -> &'d Diagnostic {
    let found = d
        .iter()
        .find(|d| d.loc == Loc::new(line, col) && d.message.contains(fragment));
    found.unwrap_or_else(|| panic!("nothing at {line}:{col} containing `{fragment}`; got {d:#?}"))
}

/// A pack of `tools` beside a copy of the tracker schema, in a folder of its own.
fn inline_pack(name: &str, tools: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("charter-gql-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::copy(
        broken("schemas/tracker.graphql"),
        dir.join("schemas/tracker.graphql"),
    )
    .unwrap();
    let file = dir.join("t.yaml");
    let pack = format!(
        "pack: t\ndescription: d\nbase_url: https://t.example/graphql\ngraphql_schema: schemas/tracker.graphql\ntools:\n{tools}"
    );
    std::fs::write(&file, pack).unwrap();
    file
}

#[test]
fn schema_mistakes_are_placed_in_the_document_and_the_parameters() {
    let d = check_file(broken("mistakes.yaml")).expect_err("mistakes");
    // An argument the field does not take, inside a block scalar.
    at(&d, 11, 48, "orderBy");
    // A field the type does not have.
    at(&d, 12, 22, "titel");
    // An enum value the schema does not have, at the value.
    at(&d, 20, 47, "`DONE` is not a value of the enum `IssueState`");
    // A property that is not an input field (sent as `titleContains`), at the property.
    at(&d, 30, 11, "`titleContains`");
    // A required input field the parameter does not declare, at its type.
    at(&d, 36, 15, "requires `teamId: ID!`");
    // A custom scalar given an array.
    at(&d, 50, 19, "custom scalar `DateTime`");
    assert_eq!(d.len(), 6, "{d:#?}");
}

#[test]
fn an_inline_document_is_placed_on_its_line() {
    let file = inline_pack(
        "inline",
        "  get:\n    description: Get.\n    graphql: \"query G($id: ID!) { issue(id: $id) { nope } }\"\n    params:\n      id: { type: string, required: true, description: The id. }\n",
    );
    let d = check_file(&file).expect_err("an unknown field");
    // `graphql: "` opens at column 14; `nope` is the document's 38th character.
    at(&d, 8, 52, "type `Issue` does not have a field `nope`");
}

#[test]
fn a_missing_or_invalid_schema_is_reported_at_its_declaration() {
    let dir = std::env::temp_dir().join(format!("charter-gql-missing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.yaml");
    let pack = |schema: &str| {
        format!(
            "pack: t\ndescription: d\nbase_url: https://t.example/graphql\ngraphql_schema: {schema}\ntools:\n  get:\n    description: Get.\n    graphql: \"query G {{ x }}\"\n"
        )
    };
    std::fs::write(&file, pack("nowhere.graphql")).unwrap();
    let d = check_file(&file).expect_err("missing");
    at(&d, 4, 17, "cannot read the GraphQL schema");
    std::fs::write(dir.join("bad.graphql"), "type Query { x: Nope }").unwrap();
    std::fs::write(&file, pack("bad.graphql")).unwrap();
    let d = check_file(&file).expect_err("invalid");
    at(&d, 4, 17, "is not a valid schema");
}

const USES_DEPRECATED: &str = "  get:\n    description: Get.\n    graphql: |\n      query G($id: ID!) {\n        issue(id: $id, byNumber: 3) { id number }\n      }\n    params:\n      id: { type: string, required: true, description: The id. }\n";

#[test]
fn a_deprecated_field_or_argument_is_a_warning_at_its_place() {
    let file = inline_pack("deprecated", USES_DEPRECATED);
    let summary = check_file(&file).expect("deprecated is not an error");
    let w = &summary.warnings;
    // Line 10 of the pack is the document's second line; `byNumber` and `number` on it.
    at(
        w,
        10,
        24,
        "`issue(byNumber:)`, which the pack's schema deprecates: No longer supported",
    );
    at(
        w,
        10,
        42,
        "`Issue.number`, which the pack's schema deprecates: Use `identifier` instead.",
    );
    assert_eq!(w.len(), 2, "{w:#?}");
}

#[test]
fn graphql_deprecated_accepts_a_use_and_refuses_a_stale_one() {
    let accepted = USES_DEPRECATED.replace(
        "    graphql: |",
        "    graphql_deprecated: [Issue.number, issue(byNumber:)]\n    graphql: |",
    );
    let summary = check_file(inline_pack("accepted", &accepted)).expect("accepted");
    assert!(summary.warnings.is_empty(), "{:#?}", summary.warnings);

    let stale = accepted.replace("{ id number }", "{ id identifier }");
    let d = check_file(inline_pack("stale", &stale)).expect_err("a stale allowance");
    at(
        &d,
        8,
        26,
        "names `Issue.number`, which the document does not use deprecated (it uses issue(byNumber:))",
    );
    assert_eq!(d.len(), 1, "{d:#?}");
}

/// The shipped GraphQL packs pass against the schemas they vendor.
#[test]
fn shipped_graphql_packs_fit_their_schemas() {
    let packs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../packs");
    for pack in ["linear.yaml", "shopify.yaml"] {
        match check_file(packs.join(pack)) {
            // Nothing deprecated left unacknowledged either.
            Ok(summary) => assert!(
                summary.warnings.is_empty(),
                "{pack}: {:#?}",
                summary.warnings
            ),
            Err(d) => {
                let shown: Vec<String> = d.iter().map(|d| d.to_string()).collect();
                panic!("{pack}:\n{}", shown.join("\n"));
            }
        }
    }
}
