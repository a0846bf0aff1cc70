//! Derived result shapes, as the emitter writes them (MCP's `outputSchema`), from a small
//! schema and documents that use each rule.

use std::path::PathBuf;

const SCHEMA: &str = r#"
schema { query: Query mutation: Mutation }
scalar DateTime
scalar JSON
enum State { OPEN CLOSED }
interface Node { id: ID! }
type Org { name: String! slug: String! }
type User implements Node { id: ID! name: String! email: String org: Org }
type Bot implements Node { id: ID! app: String! org: Org }
union Actor = User | Bot
type Label { name: String! }
type PageInfo { hasNextPage: Boolean! endCursor: String }
type Issue implements Node {
  id: ID! title: String! number: Int! estimate: Float createdAt: DateTime! meta: JSON
  state: State! labels: [Label!]! tags: [String] author: Actor assignee: User
}
type IssueConnection { nodes: [Issue!]! pageInfo: PageInfo! }
type Query { issue(id: ID!): Issue issues(after: String): IssueConnection! node(id: ID!): Node wide: Wide! }
type IssuePayload { success: Boolean! issue: Issue }
type Mutation { issueArchive(id: ID!): IssuePayload! }
"#;

/// A pack of `tools` beside `schema.graphql` holding [`SCHEMA`] and a wide type (70
/// `Label` fields) for the size cap, in a folder of its own; each tool's result schema as
/// written, or its gap.
fn results(name: &str, tools: &str) -> Vec<String> {
    results_with(name, tools, None)
}

/// [`results`], with `results: r.yaml` holding `results_file` when given.
fn results_with(name: &str, tools: &str, results_file: Option<&str>) -> Vec<String> {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("charter-gql-result-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wide: String = (0..70).map(|i| format!(" f{i}: Label!")).collect();
    let sdl = format!("{SCHEMA}\ntype Wide {{{wide} }}\n");
    std::fs::write(dir.join("schema.graphql"), sdl).unwrap();
    let file = dir.join("t.yaml").display().to_string();
    let mut head = String::from("graphql_schema: schema.graphql\n");
    if let Some(r) = results_file {
        std::fs::write(dir.join("r.yaml"), r).unwrap();
        head.push_str("results: r.yaml\n");
    }
    let text = format!(
        "pack: t\ndescription: d\nbase_url: https://t.example/graphql\n{head}tools:\n{tools}"
    );
    let model = crate::load_str(&file, &text).unwrap_or_else(|d| panic!("{d:#?}"));
    crate::__private::result_schemas(&model)
        .into_iter()
        .map(|r| r.unwrap_or_else(|gap| format!("gap: {}", gap.as_str())))
        .collect()
}

/// One tool `get` sending `doc`, with the parameters for the variables `$id` and `$full`.
fn one(name: &str, doc: &str) -> String {
    let mut params = String::new();
    for (var, param) in [
        (
            "$id",
            "\n      id: { type: string, required: true, description: The id. }",
        ),
        (
            "$full",
            "\n      full: { type: boolean, description: All of it. }",
        ),
    ] {
        if doc.contains(var) {
            params.push_str(param);
        }
    }
    if !params.is_empty() {
        params.insert_str(0, "\n    params:");
    }
    let tools = format!("  get:\n    description: Get.\n    graphql: '{doc}'{params}\n");
    results(name, &tools).remove(0)
}

#[test]
fn scalars_aliases_lists_and_nulls_follow_the_schema_under_the_data_envelope() {
    let got = one(
        "scalars",
        "query G($id: ID!) { issue(id: $id) { id title n: number estimate createdAt meta state labels { name } tags } }",
    );
    assert_eq!(
        got,
        concat!(
            r#"{"type":"object","properties":{"data":{"type":"object","properties":{"issue":{"anyOf":[{"type":"object","properties":{"#,
            r#""id":{"anyOf":[{"type":"string"},{"type":"integer"}]},"title":{"type":"string"},"n":{"type":"integer"},"#,
            r#""estimate":{"anyOf":[{"type":"number"},{"type":"null"}]},"createdAt":{"type":"string"},"#,
            r#""meta":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"object"},{"type":"array"},{"type":"null"}]},"#,
            r#""state":{"type":"string"},"labels":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},"#,
            r#""tags":{"anyOf":[{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"}]}},{"type":"null"}]}},"#,
            r#""required":["id","title","n","estimate","createdAt","meta","state","labels","tags"]},{"type":"null"}]}},"required":["issue"]}},"required":["data"]}"#
        )
    );
}

#[test]
fn inline_fragments_on_a_union_are_optional_and_typename_is_a_string() {
    let got = one(
        "union",
        "query G($id: ID!) { issue(id: $id) { author { __typename ... on User { name } ... on Bot { app } } } }",
    );
    assert!(
        got.contains(r#""author":{"anyOf":[{"type":"object","properties":{"__typename":{"type":"string"},"name":{"type":"string"},"app":{"type":"string"}},"required":["__typename"]},{"type":"null"}]}"#),
        "{got}"
    );
}

#[test]
fn a_member_selected_differently_per_type_is_optional_within_too() {
    // A `User` answers `org { name }`, a `Bot` `org { slug }`: neither is always there.
    let got = one(
        "per-type",
        "query G($id: ID!) { issue(id: $id) { author { ... on User { org { name } } ... on Bot { org { slug } } } } }",
    );
    assert!(
        got.contains(r#""author":{"anyOf":[{"type":"object","properties":{"org":{"anyOf":[{"type":"object","properties":{"name":{"type":"string"},"slug":{"type":"string"}}},{"type":"null"}]}},"required":["org"]},{"type":"null"}]}"#),
        "{got}"
    );
}

#[test]
fn named_fragments_merge_and_one_on_the_type_itself_is_required() {
    let got = one(
        "fragments",
        "query G($id: ID!) { node(id: $id) { id ...U } issue(id: $id) { ...I } } fragment U on User { name } fragment I on Issue { title }",
    );
    // On the interface `Node`, only a `User` has `name`; on `Issue`, `...I` always applies.
    assert!(
        got.contains(r#""node":{"anyOf":[{"type":"object","properties":{"id":{"anyOf":[{"type":"string"},{"type":"integer"}]},"name":{"type":"string"}},"required":["id"]},{"type":"null"}]}"#),
        "{got}"
    );
    assert!(
        got.contains(r#""issue":{"anyOf":[{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]},{"type":"null"}]}"#),
        "{got}"
    );
}

#[test]
fn a_conditional_field_is_optional_and_a_skipped_one_absent() {
    let got = one(
        "directives",
        "query G($id: ID!, $full: Boolean = false) { issue(id: $id) { id @skip(if: true) title @include(if: $full) number @include(if: true) } }",
    );
    assert!(
        got.contains(r#"{"type":"object","properties":{"title":{"type":"string"},"number":{"type":"integer"}},"required":["number"]}"#),
        "{got}"
    );
}

#[test]
fn keep_projects_the_shape_and_keeps_the_cursor_path() {
    let tools = "  list:\n    description: List.\n    graphql: 'query L($after: String) { issues(after: $after) { nodes { id title } pageInfo { hasNextPage endCursor } } }'\n    params:\n      after: { type: string, description: The cursor. }\n    response:\n      keep: [data.issues.nodes.title]\n      pagination: { style: cursor, next: data.issues.pageInfo.endCursor, param: after }\n";
    let got = results("keep", tools).remove(0);
    assert_eq!(
        got,
        concat!(
            r#"{"type":"object","properties":{"data":{"type":"object","properties":{"issues":{"type":"object","properties":{"#,
            r#""nodes":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}},"#,
            r#""pageInfo":{"type":"object","properties":{"endCursor":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["endCursor"]}},"#,
            r#""required":["nodes","pageInfo"]}},"required":["issues"]}},"required":["data"]}"#
        )
    );
}

#[test]
fn a_declared_shape_or_gap_wins_over_the_derived_one() {
    let tools = "  a:\n    description: A.\n    graphql: '{ wide { f0 { name } } }'\n    response:\n      shape: { type: object, properties: { data: { type: any } } }\n  b:\n    description: B.\n    graphql: 'mutation M($id: ID!) { issueArchive(id: $id) { success } }'\n    params:\n      id: { type: string, required: true, description: The id. }\n";
    let got = results("declared", tools);
    assert_eq!(
        got[0],
        r#"{"type":"object","properties":{"data":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"object"},{"type":"array"},{"type":"null"}]}}}"#
    );
    let gap = results_with("gap", tools, Some("gaps:\n  b: graphql\n"));
    assert_eq!(gap[1], "gap: graphql");
    assert_eq!(
        got[1],
        r#"{"type":"object","properties":{"data":{"type":"object","properties":{"issueArchive":{"type":"object","properties":{"success":{"type":"boolean"}},"required":["success"]}},"required":["issueArchive"]}},"required":["data"]}"#
    );
}

#[test]
fn a_selection_over_the_budget_is_cut_deepest_first() {
    // The envelope, `wide` and its 70 objects of one member are 1 + 1 + 1 + 70 * 2 = 143
    // nodes; `issue` adds 10, 3 over the budget.
    let fields: String = (0..70).map(|i| format!(" f{i} {{ name }}")).collect();
    let doc = format!(
        "query G($id: ID!) {{ wide {{{fields} }} issue(id: $id) {{ id title labels {{ name }} author {{ ... on User {{ org {{ name slug }} }} }} }} }}"
    );
    let got = one("wide", &doc);
    assert!(
        got.contains(
            r#""f69":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#
        ),
        "{got}"
    );
    // The deepest structured member (`org`, three object levels under `data`) is cut first,
    // to a free object, then the largest of the next level (`labels`, 3 nodes against 2 for
    // each `f`) to a list of free objects.
    assert!(
        got.contains(
            r#""author":{"anyOf":[{"type":"object","properties":{"org":{"anyOf":[{"type":"object"},{"type":"null"}]}}},{"type":"null"}]}"#
        ),
        "{got}"
    );
    assert!(
        got.contains(r#""labels":{"type":"array","items":{"type":"object"}}"#),
        "{got}"
    );
}

#[test]
fn without_a_schema_nothing_is_derived() {
    let text = "pack: t\ndescription: d\nbase_url: https://t.example/graphql\ntools:\n  get:\n    description: Get.\n    graphql: '{ viewer { id } }'\n";
    let model = crate::load_str("t.yaml", text).unwrap();
    assert_eq!(
        model.tools[0].result.as_ref().err(),
        Some(&charter_terms::results::Gap::NotDeclared)
    );
}

/// The shipped GraphQL packs: every tool gets a derived shape that passes the result check,
/// none over the budget (the largest are under half of it). Prints the sizes docs/results.md
/// reports.
#[test]
fn every_tool_of_the_shipped_graphql_packs_gets_a_shape() {
    use crate::diagnostic::Sink;
    for label in ["linear", "shopify"] {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../packs/{label}.yaml"));
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.display().to_string();
        let (pack, _) = crate::pack::parse(&file, &text);
        let pack = pack.unwrap();
        let schema = super::super::graphql_schema::load(&mut Sink::new(&file), &pack).unwrap();
        let implementers = std::cell::OnceCell::new();
        let (mut cut_tools, mut cuts, mut largest) = (0, 0, Vec::new());
        for tool in &pack.tools {
            let (spec, n) = super::derive(&schema, &implementers, tool)
                .unwrap_or_else(|| panic!("{label}_{}: no shape", tool.name.value));
            cut_tools += usize::from(n > 0);
            cuts += n;
            largest.push((spec_nodes(&spec), tool.name.value.clone()));
        }
        largest.sort();
        largest.reverse();
        println!(
            "{label}: {} tools, {cut_tools} cut ({cuts} members); largest {:?}",
            pack.tools.len(),
            &largest[..3]
        );
        assert_eq!(cut_tools, 0, "{label}: {cut_tools} tools cut");
    }
}

fn spec_nodes(spec: &crate::pack::Spec) -> usize {
    1 + spec.items.as_deref().map_or(0, spec_nodes)
        + spec
            .properties
            .iter()
            .flat_map(|p| &p.value)
            .map(|f| spec_nodes(&f.spec))
            .sum::<usize>()
}
