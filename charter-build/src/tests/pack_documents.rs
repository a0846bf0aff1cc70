//! The hand-declared `notion` and `firecrawl` packs against their providers' own OpenAPI
//! documents (`openapi/notion-2025-09-03.json.gz`, `openapi/firecrawl.json.gz`): every tool
//! whose route the document has uses the document's method and path and sends only parameters
//! the operation declares (query names, body properties, by wire name); every tool beyond the
//! document, every route of the document left out and every parameter the document lacks is
//! listed here with its reason, so a typo in a path, a method or a camelCase name fails.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::model::ToolModel;
use crate::pack::In;

/// `(METHOD, path with every placeholder as {})` of each operation, with its parameters.
type Operations = BTreeMap<(String, String), Value>;

fn shape(path: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '{' => {
                depth += 1;
                out.push('{');
            }
            '}' => {
                depth -= 1;
                out.push('}');
            }
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let target = r
                .trim_start_matches("#/")
                .split('/')
                .fold(doc, |at, key| &at[key]);
            resolve(doc, target)
        }
        None => v,
    }
}

/// The property names a body schema accepts: its own, those of `allOf` parts and of every
/// `oneOf`/`anyOf` alternative.
fn properties(doc: &Value, schema: &Value, into: &mut BTreeSet<String>) {
    let schema = resolve(doc, schema);
    if let Some(Value::Object(props)) = schema.get("properties") {
        into.extend(props.keys().cloned());
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for part in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            properties(doc, part, into);
        }
    }
}

fn operations(doc: &Value) -> Operations {
    let mut out = Operations::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let shared = item
            .get("parameters")
            .cloned()
            .unwrap_or(Value::Array(vec![]));
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(op) = item.get(method) else { continue };
            let mut params: Vec<Value> = shared.as_array().unwrap().clone();
            params.extend(op["parameters"].as_array().into_iter().flatten().cloned());
            let query: BTreeSet<String> = params
                .iter()
                .map(|p| resolve(doc, p))
                .filter(|p| p["in"] == "query")
                .map(|p| p["name"].as_str().unwrap().to_owned())
                .collect();
            let mut body = BTreeSet::new();
            if let Some(content) = op.pointer("/requestBody/content/application~1json/schema") {
                properties(doc, content, &mut body);
            }
            out.insert(
                (method.to_uppercase(), shape(path)),
                serde_json::json!({"query": query, "body": body}),
            );
        }
    }
    out
}

struct Expected<'a> {
    pack: &'a str,
    document: &'a str,
    /// Tools whose route the document does not have, and why.
    beyond: &'a [(&'a str, &'a str)],
    /// Routes of the document no tool takes (`METHOD /path` with `{}`), and why.
    left_out: &'a [(&'a str, &'a str)],
    /// `tool.wire_name` parameters the document's operation does not declare, and why.
    extra_params: &'a [(&'a str, &'a str)],
}

fn check(expected: &Expected) {
    let file = format!(
        "{}/../packs/{}.yaml",
        env!("CARGO_MANIFEST_DIR"),
        expected.pack
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let pack = crate::load_str(&file, &text).unwrap_or_else(|d| panic!("{d:#?}"));
    let doc: Value =
        serde_json::from_str(&charter_testkit::openapi::read(expected.document)).unwrap();
    let ops = operations(&doc);
    let mut problems = Vec::new();
    let mut taken = BTreeSet::new();
    let mut extra_seen = BTreeSet::new();
    for tool in &pack.tools {
        let key = (tool.method.as_str().to_owned(), shape(&tool.path));
        let beyond = expected.beyond.iter().any(|(t, _)| *t == tool.tool);
        match (ops.get(&key), beyond) {
            (Some(_), true) => problems.push(format!(
                "{}: listed as beyond, but the document has it",
                tool.tool
            )),
            (None, false) => problems.push(format!(
                "{}: {} {} is not in the document",
                tool.tool, key.0, tool.path
            )),
            (None, true) => {}
            (Some(op), false) => {
                taken.insert(key.clone());
                params(tool, op, expected, &mut problems, &mut extra_seen);
            }
        }
    }
    for key in ops.keys() {
        let route = format!("{} {}", key.0, key.1);
        let listed = expected.left_out.iter().any(|(r, _)| *r == route);
        if !taken.contains(key) && !listed {
            problems.push(format!("{route}: in the document, no tool and no reason"));
        }
        if taken.contains(key) && listed {
            problems.push(format!("{route}: listed as left out, but a tool takes it"));
        }
    }
    for (name, _) in expected.extra_params {
        if !extra_seen.contains(*name) {
            problems.push(format!(
                "{name}: listed as beyond the document, but it is declared there (or gone)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}: {problems:#?}", expected.pack);
}

fn params(
    tool: &ToolModel,
    op: &Value,
    expected: &Expected,
    problems: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
) {
    for p in &tool.params {
        let kind = match p.location {
            Some(In::Query) => "query",
            Some(In::Body) => "body",
            _ => continue,
        };
        let declared = op[kind]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == p.wire.as_str());
        let name = format!("{}.{}", tool.tool, p.wire);
        let listed = expected.extra_params.iter().any(|(n, _)| *n == name);
        if listed && !declared {
            seen.insert(name);
        } else if !declared {
            problems.push(format!(
                "{name}: a {kind} parameter the document does not declare"
            ));
        }
    }
}

const NEWER: &str = "added by a Notion version after the 2025-09-03 document";
/// The document's bodies are partial (one block type, no icon on data sources, no reply by
/// discussion); Notion's SDK, generated from the same specification, declares these.
const OMITTED: &str = "left out of the document's body schema; declared by Notion's SDK";

#[test]
fn notion_routes_and_parameters_match_notions_document() {
    check(&Expected {
        pack: "notion",
        document: "notion-2025-09-03.json",
        beyond: &[
            ("databases_create", NEWER),
            ("databases_update", NEWER),
            ("views_list", NEWER),
            ("views_get", NEWER),
            ("comments_get", NEWER),
            ("comments_update", NEWER),
            ("comments_delete", NEWER),
            ("file_uploads_create", NEWER),
            ("file_uploads_complete", NEWER),
            ("file_uploads_get", NEWER),
            ("file_uploads_list", NEWER),
            ("custom_emojis_list", NEWER),
            ("async_tasks_get", NEWER),
        ],
        left_out: &[],
        extra_params: &[
            ("pages_create.template", NEWER),
            ("pages_create.allow_async", NEWER),
            ("pages_update.is_locked", NEWER),
            ("pages_update.template", NEWER),
            ("pages_update.erase_content", NEWER),
            ("blocks_children_append.position", NEWER),
            ("blocks_update.in_trash", NEWER),
            ("data_sources_update.in_trash", NEWER),
            ("data_sources_update.parent", NEWER),
            ("comments_create.markdown", NEWER),
            ("comments_create.attachments", NEWER),
            ("comments_create.display_name", NEWER),
            ("pages_markdown_update.allow_async", NEWER),
            ("pages_create.markdown", OMITTED),
            ("blocks_update.paragraph", OMITTED),
            ("blocks_update.heading_1", OMITTED),
            ("blocks_update.heading_2", OMITTED),
            ("blocks_update.heading_3", OMITTED),
            ("blocks_update.bulleted_list_item", OMITTED),
            ("blocks_update.numbered_list_item", OMITTED),
            ("blocks_update.to_do", OMITTED),
            ("blocks_update.toggle", OMITTED),
            ("blocks_update.quote", OMITTED),
            ("blocks_update.callout", OMITTED),
            ("blocks_update.code", OMITTED),
            ("data_sources_create.icon", OMITTED),
            ("data_sources_update.icon", OMITTED),
            ("data_sources_templates_list.name", OMITTED),
            ("comments_create.discussion_id", OMITTED),
        ],
    });
}

#[test]
fn firecrawl_routes_and_parameters_match_firecrawls_document() {
    check(&Expected {
        pack: "firecrawl",
        document: "firecrawl.json",
        beyond: &[],
        left_out: &[
            ("POST /parse", "a multipart/form-data file upload"),
            ("POST /support/ask", "an operator's support agent"),
            (
                "POST /feedback",
                "operator feedback on scrape, parse and map jobs",
            ),
            ("POST /search/developer", "the GET form is the tool"),
        ],
        extra_params: &[],
    });
}
