//! The broken-pack suite: one file per mistake under `tests/broken/`, each asserting the exact
//! `line:col` and what the message says (`docs/pack-format.md`).

use std::path::{Path, PathBuf};

use charter_build::{Diagnostic, Loc, check_file};

fn path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/broken")
        .join(file)
}

fn diagnostics(file: &str) -> Vec<Diagnostic> {
    match check_file(path(file)) {
        Ok(summary) => panic!("{file} passed the checks: {summary:?}"),
        Err(d) => d,
    }
}

/// The file has exactly one mistake, at `line:col`, whose message contains `fragment`.
fn only(file: &str, line: u32, col: u32, fragment: &str) {
    let d = diagnostics(file);
    assert_eq!(d.len(), 1, "{file}: expected one diagnostic, got {d:#?}");
    has(&d, file, line, col, fragment);
}

/// Exactly these diagnostics (line, column, a fragment of the message), in any order.
fn exactly(file: &str, expected: &[(u32, u32, &str)]) {
    let d = diagnostics(file);
    assert_eq!(d.len(), expected.len(), "{file}: {d:#?}");
    for (line, col, fragment) in expected {
        has(&d, file, *line, *col, fragment);
    }
}

fn has(d: &[Diagnostic], file: &str, line: u32, col: u32, fragment: &str) {
    let found = d.iter().find(|d| d.loc == Loc::new(line, col));
    let Some(found) = found else {
        panic!("{file}: nothing at {line}:{col}; got {d:#?}")
    };
    assert!(
        found.message.contains(fragment),
        "{file}:{line}:{col}: `{}` lacks `{fragment}`",
        found.message
    );
    let rendered = found.to_string();
    let prefix = format!("{}:{line}:{col}: ", path(file).display());
    assert!(
        rendered.starts_with(&prefix),
        "rendered as `file:line:col: message`: {rendered}"
    );
}

#[test]
fn unknown_key() {
    only(
        "unknown_key.yaml",
        13,
        9,
        "unknown key `desciption` in a parameter; did you mean `description`?",
    );
}

#[test]
fn duplicate_key() {
    only(
        "duplicate_key.yaml",
        11,
        7,
        "duplicate key `limit` in `params` (first at line 10:7)",
    );
}

#[test]
fn value_of_the_wrong_kind() {
    only(
        "wrong_kind.yaml",
        10,
        47,
        "`required` must be `true` or `false`, found the string `yes`; write `true`",
    );
}

#[test]
fn invalid_pack_label() {
    only(
        "invalid_label.yaml",
        1,
        7,
        "invalid pack label `demo_api`: use lowercase letters, digits and `-` only",
    );
}

#[test]
fn invalid_tool_name() {
    only(
        "invalid_tool_name.yaml",
        5,
        3,
        "invalid tool name `items__list`",
    );
}

#[test]
fn qualified_name_over_50_characters() {
    only(
        "name_too_long.yaml",
        5,
        3,
        "is 58 characters; the limit is 50",
    );
}

#[test]
fn duplicate_qualified_names_across_packs() {
    let read = |f: &str| {
        (
            format!("tests/broken/{f}"),
            std::fs::read_to_string(path(f)).unwrap(),
        )
    };
    let sources = [read("duplicate_name_a.yaml"), read("duplicate_name_b.yaml")];
    // Each file is fine on its own.
    for (file, text) in &sources {
        assert!(charter_build::load_str(file, text).is_ok(), "{file}");
    }
    let d = charter_build::load_filtered(&sources, &|_| true).unwrap_err();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].file, "tests/broken/duplicate_name_b.yaml");
    assert_eq!(d[0].loc, Loc::new(9, 3));
    assert!(
        d[0].message.contains(
            "`demo_items_list` is already published by tests/broken/duplicate_name_a.yaml:5:3"
        ),
        "{}",
        d[0]
    );
    // A disabled pack does not clash.
    let (models, skipped) =
        charter_build::load_filtered(&sources[..1], &|_| true).expect("one pack alone compiles");
    assert_eq!((models.len(), skipped.len()), (1, 0));
}

#[test]
fn parameter_without_description() {
    only(
        "missing_description.yaml",
        10,
        7,
        "parameter `limit` has no `description`",
    );
}

#[test]
fn property_without_description() {
    only(
        "property_missing_description.yaml",
        10,
        7,
        "property `size` has no `description`",
    );
}

#[test]
fn placeholder_without_path_parameter() {
    only(
        "placeholder_without_param.yaml",
        8,
        11,
        "placeholder `{project}` in `/projects/{project}/items/{id}` has no path parameter",
    );
}

#[test]
fn path_parameter_without_placeholder() {
    only(
        "path_param_without_placeholder.yaml",
        11,
        22,
        "path parameter `project` has no `{project}` placeholder",
    );
}

#[test]
fn path_parameter_not_required() {
    only(
        "path_param_not_required.yaml",
        10,
        7,
        "path parameter `id` must be `required: true`",
    );
}

#[test]
fn body_parameter_on_get() {
    only(
        "body_on_get.yaml",
        10,
        21,
        "`filter` is a body parameter on a GET tool",
    );
}

#[test]
fn unknown_type() {
    only(
        "unknown_type.yaml",
        10,
        33,
        "unknown type `int`; use one of: string, integer",
    );
}

#[test]
fn missing_type() {
    only(
        "missing_type.yaml",
        10,
        7,
        "parameter `limit` has no `type`",
    );
}

#[test]
fn unknown_type_reference() {
    only(
        "unknown_ref.yaml",
        16,
        30,
        "unknown type `item` in `ref`; did you mean `Item`?",
    );
}

#[test]
fn enum_default_not_in_enum() {
    only(
        "enum_default.yaml",
        14,
        18,
        "`default` `\"all\"` is not in the `enum` [\"open\", \"closed\"]",
    );
}

#[test]
fn mode_label_withholds_a_required_field() {
    only(
        "mode_withholds_required.yaml",
        15,
        17,
        "required field `tier` is withheld under every session mode other than `pro`",
    );
}

#[test]
fn required_field_never_shown() {
    only(
        "required_never_shown.yaml",
        10,
        64,
        "required field `audit` is never shown to the model (`disabled`)",
    );
}

#[test]
fn search_hint_without_a_word() {
    let file = "search_hint_without_a_word.yaml";
    let d = diagnostics(file);
    assert_eq!(d.len(), 3, "{d:#?}");
    has(
        &d,
        file,
        8,
        20,
        "search hint `of the` has no word ToolSearch can match",
    );
    has(&d, file, 8, 30, "empty search hint");
    has(
        &d,
        file,
        8,
        35,
        "search hint `x y z` has no word ToolSearch can match",
    );
}

#[test]
fn empty_mode_label() {
    only("empty_mode_label.yaml", 10, 54, "empty mode label");
}

#[test]
fn invalid_yaml() {
    only(
        "invalid_yaml.yaml",
        3,
        10,
        "invalid YAML: mapping values are not allowed",
    );
}

#[test]
fn graphql_variable_without_parameter() {
    only(
        "graphql_unknown_variable.yaml",
        8,
        14,
        "GraphQL variable `$name` has no parameter",
    );
}

#[test]
fn pagination_names_an_unknown_parameter() {
    only(
        "pagination_unknown_param.yaml",
        13,
        61,
        "pagination `param` names `after`, which is not a parameter",
    );
}

#[test]
fn offset_pagination_mistakes() {
    exactly(
        "pagination_offset_mistakes.yaml",
        &[
            (13, 76, "`next` only applies to `style: cursor`"),
            (13, 43, "pagination `param` `offset` must be an `integer`"),
            (21, 28, "use one of: cursor, page, offset"),
            (
                29,
                19,
                "add `style: cursor`, `style: page` or `style: offset`",
            ),
        ],
    );
}

#[test]
fn spread_mistakes() {
    let not_a_body_map = "`spread` only applies to `in: body` parameters of `type: map`";
    exactly(
        "spread_mistakes.yaml",
        &[
            (12, 44, "a tool takes one `spread` parameter at most"),
            (13, 71, not_a_body_map),
            (14, 47, not_a_body_map),
            (15, 72, "`spread` only goes on a tool's parameters"),
        ],
    );
}

#[test]
fn spread_in_a_graphql_tool() {
    only(
        "spread_graphql.yaml",
        10,
        36,
        "`spread` does not apply to a GraphQL tool",
    );
}

#[test]
fn pagination_next_with_a_bad_index() {
    only(
        "pagination_bad_index.yaml",
        12,
        42,
        "the only negative index is `-1` (the last element)",
    );
}

#[test]
fn pagination_next_in_the_link_header_names_its_parameter() {
    only(
        "pagination_bad_link.yaml",
        12,
        42,
        "`link:next` names no query parameter: write `link:REL?KEY`",
    );
}

#[test]
fn pattern_that_does_not_compile() {
    only("invalid_pattern.yaml", 10, 62, "`pattern` does not compile");
}

#[test]
fn type_refers_to_itself_without_structure() {
    only(
        "type_cycle.yaml",
        5,
        3,
        "type `Loop` refers to itself through `one_of`/`ref` alone",
    );
}

#[test]
fn auth_scheme_without_its_variable() {
    only(
        "auth_missing_env.yaml",
        5,
        3,
        "`auth` with `scheme: bearer` needs `env: <VARIABLE>`",
    );
}

#[test]
fn every_mistake_in_a_file_is_reported() {
    let file = "every_mistake_reported.yaml";
    let d = diagnostics(file);
    has(&d, file, 1, 7, "invalid pack label `Demo`");
    has(
        &d,
        file,
        10,
        7,
        "path parameter `id` must be `required: true`",
    );
    has(
        &d,
        file,
        11,
        21,
        "`filter` is a body parameter on a GET tool",
    );
    has(&d, file, 12, 7, "parameter `limit` has no `description`");
    has(&d, file, 13, 3, "invalid tool name `items_List`");
    has(&d, file, 15, 13, "unknown method `FETCH`");
    assert_eq!(d.len(), 6, "{d:#?}");
    let locs: Vec<Loc> = d.iter().map(|d| d.loc).collect();
    let mut sorted = locs.clone();
    sorted.sort();
    assert_eq!(locs, sorted, "reported in file order");
}

/// Every file in `tests/broken/` is exercised above (no mistake file without a test).
#[test]
fn every_broken_file_has_a_test() {
    let source = include_str!("broken.rs");
    for entry in std::fs::read_dir(path("")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            source.contains(&format!("\"{name}\"")),
            "{name} has no test"
        );
    }
}

#[test]
fn graphql_variables_are_typed_by_their_parameters() {
    let file = "graphql_variable_types.yaml";
    let d = diagnostics(file);
    assert_eq!(d.len(), 4, "{d:#?}");
    has(
        &d,
        file,
        13,
        22,
        "parameter `first` does not fit GraphQL variable `$first: Int`: `Int` takes an integer, but the parameter is a string: declare `type: integer`",
    );
    has(
        &d,
        file,
        14,
        7,
        "parameter `team` is optional, but GraphQL variable `$team: String!` must be given: add `required: true`",
    );
    has(
        &d,
        file,
        15,
        20,
        "parameter `ids` does not fit GraphQL variable `$ids: [ID!]`: its items may be null, but the list holds `ID!`",
    );
    has(
        &d,
        file,
        16,
        56,
        "parameter `flag` accepts null, but GraphQL variable `$flag: Boolean!` refuses it",
    );
}

#[test]
fn graphql_documents_follow_the_request_rules() {
    let file = "graphql_document_rules.yaml";
    let d = diagnostics(file);
    assert_eq!(d.len(), 4, "{d:#?}");
    has(
        &d,
        file,
        7,
        14,
        "the `graphql` document holds 2 operations, but a tool sends no `operationName`",
    );
    has(
        &d,
        file,
        10,
        14,
        "GraphQL variable `$b` is used but the operation does not declare it",
    );
    has(
        &d,
        file,
        16,
        14,
        "GraphQL variable `$c` is declared but never used",
    );
    has(
        &d,
        file,
        22,
        14,
        "a `subscription` streams events, but a tool reads one response",
    );
}

#[test]
fn oauth2_mistakes_are_each_reported_where_they_are() {
    let file = "oauth2_mistakes.yaml";
    let d = diagnostics(file);
    let at = |line: u32, col: u32, fragment: &str| {
        assert!(
            d.iter()
                .any(|d| d.loc == Loc::new(line, col) && d.message.contains(fragment)),
            "{file}:{line}:{col}: no `{fragment}` in {d:#?}"
        );
    };
    at(7, 5, "`oauth2` needs `scheme: bearer` (or `header`)");
    at(7, 5, "`oauth2` needs `client_secret_env`");
    at(8, 16, "must be an absolute https URL");
    at(
        8,
        16,
        "`{tenant}` in `http://login.example.com/{tenant}/token` is not declared",
    );
    at(
        9,
        24,
        "`authorization_url` has no use with `grant: client_credentials`",
    );
    at(10, 20, "`bad-name` is not an environment variable name");
    at(
        11,
        24,
        "`refresh_token_env` has no use with `grant: client_credentials`",
    );
    at(12, 14, "a scope is one non-empty word without spaces");
    at(13, 29, "`state` is set by the login flow itself");
    at(
        15,
        7,
        "`region` is declared in `url_vars` but no URL uses `{region}`",
    );
    has(
        &d,
        file,
        5,
        3,
        "`auth` with `scheme: basic` needs `env: <VARIABLE>`",
    );
}

#[test]
fn oauth2_covers_tenant_urls_and_client_credentials_in_a_header() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/oauth2_general.yaml");
    check_file(&fixture).unwrap_or_else(|d| panic!("{d:#?}"));
}

#[test]
fn require_one_of_groups_name_optional_parameters_of_the_tool() {
    let file = "require_one_of.yaml";
    let d = diagnostics(file);
    has(
        &d,
        file,
        9,
        43,
        "`require_one_of` names `nobody`, which is not a parameter of tool `reviews_request`",
    );
    has(&d, file, 9, 53, "`id` is required already");
    has(&d, file, 9, 58, "empty group in `require_one_of`");
    has(
        &d,
        file,
        18,
        22,
        "`require_one_of` with one group is `required: true`",
    );
    assert_eq!(d.len(), 4, "{d:#?}");
}

#[test]
fn require_exactly_one_of_groups_are_checked_like_require_one_of() {
    let file = "require_exactly_one_of.yaml";
    let d = diagnostics(file);
    has(
        &d,
        file,
        9,
        55,
        "`require_exactly_one_of` names `nobody`, which is not a parameter of tool `reactions_create`",
    );
    has(
        &d,
        file,
        9,
        65,
        "`id` is required already: a `require_exactly_one_of` group",
    );
    has(&d, file, 9, 70, "empty group in `require_exactly_one_of`");
    has(
        &d,
        file,
        9,
        74,
        "this `require_exactly_one_of` group is listed twice",
    );
    has(
        &d,
        file,
        18,
        30,
        "`require_exactly_one_of` with one group is `required: true`",
    );
    has(
        &d,
        file,
        25,
        29,
        "`require_exactly_one_of` must be a list of parameter-name lists",
    );
    assert_eq!(d.len(), 6, "{d:#?}");
}

#[test]
fn nested_groups_name_optional_properties_of_their_object() {
    let file = "nested_groups.yaml";
    let d = diagnostics(file);
    has(
        &d,
        file,
        8,
        37,
        "`require_exactly_one_of` names `grid`, which is not a property of this object",
    );
    has(
        &d,
        file,
        24,
        47,
        "`remove` is required already: a `require_exactly_one_of` group names optional properties",
    );
    has(
        &d,
        file,
        25,
        28,
        "`require_one_of` with one group is `required: true` on its properties",
    );
    has(
        &d,
        file,
        33,
        49,
        "`require_one_of` on `items` needs `type: object` with `properties` to name",
    );
    assert_eq!(d.len(), 4, "{d:#?}");
}
