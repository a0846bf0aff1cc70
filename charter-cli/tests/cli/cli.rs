//! The `charter` subcommands other than `mcp`, run as a user would.

use crate::common;

use common::*;
use serde_json::{Value, json};

/// Every object in a schema has `additionalProperties: false` and described properties; no
/// `$schema`, no `title`.
fn check_schema(tool: &str, path: &str, schema: &Value) {
    let Value::Object(map) = schema else { return };
    assert!(!map.contains_key("$schema"), "{tool} {path}: $schema");
    assert!(!map.contains_key("title"), "{tool} {path}: generated title");
    if map.get("type") == Some(&json!("object")) && map.contains_key("properties") {
        assert_eq!(
            map.get("additionalProperties"),
            Some(&json!(false)),
            "{tool} {path}: additionalProperties"
        );
        for (name, property) in map["properties"].as_object().unwrap() {
            let described = property
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty())
                || property.get("$ref").is_some();
            assert!(described, "{tool} {path}.{name}: no description");
        }
    }
    // Recurse into subschemas only (a property may well be called `title`).
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            check_schema(tool, &format!("{path}.{name}"), property);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = map.get(key) {
            check_schema(tool, &format!("{path}.{key}"), sub);
        }
    }
    if let Some(Value::Object(defs)) = map.get("$defs") {
        for (name, def) in defs {
            check_schema(tool, &format!("$defs.{name}"), def);
        }
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(options)) = map.get(key) {
            options
                .iter()
                .for_each(|o| check_schema(tool, &format!("{path}.{key}[]"), o));
        }
    }
}

#[test]
fn tools_json_lists_both_packs_with_object_schemas_and_exact_sizes() {
    let (code, out, err) = run_cli(&["tools", "--json"], &[]);
    assert_eq!(code, 0, "{err}");
    let tools: Vec<Value> = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, shipped_names());
    let packs: std::collections::BTreeSet<&str> =
        tools.iter().map(|t| t["pack"].as_str().unwrap()).collect();
    assert!(
        packs.contains("github") && packs.contains("stripe"),
        "{packs:?}"
    );
    assert!(tools.iter().filter(|t| t["pack"] == "github").count() >= 25);
    assert!(tools.iter().filter(|t| t["pack"] == "stripe").count() >= 15);

    let defs: Vec<_> = charter::packs::ALL
        .iter()
        .flat_map(|t| t.tools.iter())
        .collect();
    for (tool, def) in tools.iter().zip(defs) {
        let name = tool["name"].as_str().unwrap();
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}"
        );
        for key in ["read_only", "idempotent", "destructive", "open_world"] {
            assert!(tool["annotations"][key].is_boolean(), "{name}: {key}");
        }
        let views = tool["views"].as_array().unwrap();
        assert_eq!(views.len(), def.views.len(), "{name}");
        assert_eq!(views[0]["key"], "default");
        for (view, def_view) in views.iter().zip(def.views) {
            let schema = &view["schema"];
            assert_eq!(schema["type"], "object", "{name}: an object schema");
            assert_eq!(schema["additionalProperties"], json!(false), "{name}");
            check_schema(name, "", schema);
            // The JSON is the table's text; its size is the text's length / 4.
            assert_eq!(
                schema,
                &serde_json::from_str::<Value>(def_view.schema).unwrap()
            );
            assert_eq!(
                view["tokens"],
                json!(def_view.schema.chars().count() / 4),
                "{name}"
            );
        }
    }
}

#[test]
fn tools_text_and_by_cost() {
    let (code, out, _) = run_cli(&["tools", "--pack", "stripe"], &[]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("TOOL"));
    let body = &lines[1..lines.len() - 1];
    assert!(body.iter().all(|l| l.starts_with("stripe_")), "{out}");
    let delete = body
        .iter()
        .find(|l| l.starts_with("stripe_customers_delete "))
        .unwrap();
    assert!(
        delete.contains("destructive") && delete.contains("open_world"),
        "{delete}"
    );
    assert!(
        lines.last().unwrap().contains("tools from 1 (stripe)"),
        "{out}"
    );

    let (code, out, _) = run_cli(&["tools", "--by-cost"], &[]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    let costs: Vec<u32> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(costs.len(), shipped_names().len());
    assert!(
        costs.windows(2).all(|w| w[0] >= w[1]),
        "most expensive first: {costs:?}"
    );

    let (code, _, err) = run_cli(&["tools", "--pack", "jira"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("unknown pack `jira`; {}", valid_packs())),
        "{err}"
    );
}

#[test]
fn search_prints_the_toolsearch_answer() {
    let (code, out, err) = run_cli(
        &["search", "select:github_issues_get,stripe_nothing_here"],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let answer: Value = serde_json::from_str(&out).expect("JSON");
    let text = answer.to_string();
    assert!(text.contains("github_issues_get"), "{text}");
    assert!(
        text.contains("stripe_nothing_here"),
        "unknown names are reported: {text}"
    );

    let (code, out, _) = run_cli(&["search", "refund", "--pack", "stripe"], &[]);
    assert_eq!(code, 0);
    assert!(out.contains("stripe_refunds_create"), "{out}");
    assert!(!out.contains("github_"), "{out}");
}

#[test]
fn search_ranking_flag_keeps_the_classic_scoring_available() {
    let loaded = |out: &str| -> Vec<String> {
        let answer: Value = serde_json::from_str(out).expect("JSON");
        answer["loaded"]
            .as_array()
            .expect("loaded")
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    // Relevance (the default): "PR" is a word, read as "pull request", never a piece of
    // "prices" or "products".
    let (code, out, err) = run_cli(&["search", "PR", "--pack", "github,stripe"], &[]);
    assert_eq!(code, 0, "{err}");
    let got = loaded(&out);
    assert!(got[0].starts_with("github_pulls_"), "{got:?}");
    assert!(got.iter().all(|n| n.starts_with("github_")), "{got:?}");
    // Classic: "pr" is a substring, found inside other words (`protection`, `prices`).
    let (code, out, err) = run_cli(
        &[
            "search",
            "PR",
            "--pack",
            "github,stripe",
            "--ranking",
            "classic",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let got = loaded(&out);
    assert!(
        got.iter().any(|n| n.contains("pr") && !n.contains("pulls")),
        "{got:?}"
    );
    // An unknown ranking is a usage error naming the two that exist.
    let (code, _, err) = run_cli(&["search", "PR", "--ranking", "fuzzy"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("relevance") && err.contains("classic"),
        "{err}"
    );
}

#[test]
fn call_prints_what_the_model_receives() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stub = rt.block_on(Stub::start_json(issues_fixture()));
    let (code, out, err) = run_cli(
        &[
            "call",
            "github_issues_list",
            r#"{"owner":"octo","repo":"hello","state":"all"}"#,
        ],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", TOKEN),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let answer: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(answer[0]["title"], "Crash on start");
    assert!(!out.contains("A very long body"));
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/repos/octo/hello/issues");
    assert_eq!(
        seen[0].query_pairs(),
        [("state".to_owned(), "all".to_owned())]
    );
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );

    // The error the model would see, with exit status 1.
    let (code, out, _) = run_cli(
        &["call", "github_issues_list", r#"{"owner":"octo"}"#],
        &[
            ("CHARTER_GITHUB_BASE_URL", &stub.base),
            ("GITHUB_TOKEN", TOKEN),
        ],
    );
    assert_eq!(code, 1);
    assert!(out.contains("repo"), "{out}");
    assert_eq!(
        stub.requests().len(),
        1,
        "nothing sent for invalid arguments"
    );

    // No credential: the variable to set.
    let (code, out, _) = run_cli(
        &["call", "github_issues_list", r#"{"owner":"o","repo":"r"}"#],
        &[("CHARTER_GITHUB_BASE_URL", &stub.base)],
    );
    assert_eq!(code, 1);
    assert!(out.contains("GITHUB_TOKEN"), "{out}");

    // Not JSON: a usage error that says where.
    let (code, _, err) = run_cli(&["call", "github_issues_list", "{owner:"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("line 1, column 2"), "{err}");
}

#[test]
fn check_reports_every_mistake_as_file_line_col() {
    let dir = std::env::temp_dir().join(format!("charter-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.yaml");
    std::fs::write(
        &broken,
        "pack: demo\n\
         description: A demo pack.\n\
         base_url: https://api.example.com\n\
         tools:\n\
         \x20 items_get:\n\
         \x20   description: Get an item.\n\
         \x20   method: GET\n\
         \x20   path: /items/{id}\n\
         \x20   params:\n\
         \x20     id: { in: path, type: string, required: true }\n\
         \x20     verbose: { in: query, type: boolean, descripton: Say more. }\n",
    )
    .unwrap();
    let good = concat!(env!("CARGO_MANIFEST_DIR"), "/../packs/stripe.yaml");
    let file = broken.display().to_string();
    let (code, out, err) = run_cli(&["check", &file, good], &[]);
    assert_eq!(code, 1, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with(&format!("{file}:10:7: parameter `id` has no `description`")),
        "{err}"
    );
    assert!(
        lines[1].starts_with(&format!("{file}:11:44: unknown key `descripton`")),
        "{err}"
    );
    assert_eq!(lines[2], format!("{file}: 2 errors"));
    // The good file is still checked and summarised.
    assert!(out.contains("stripe.yaml: ok: pack `stripe`"), "{out}");

    let (code, _, err) = run_cli(
        &["check", &dir.join("missing.yaml").display().to_string()],
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("missing.yaml:1:1: cannot read the pack"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_warns_of_deprecated_graphql_and_still_passes() {
    let dir = std::env::temp_dir().join(format!("charter-check-gql-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("api.graphql"),
        "type Issue {\n  id: ID!\n  number: Int @deprecated(reason: \"Use `key`.\")\n  key: String\n}\ntype Query {\n  issue(id: ID!): Issue\n}\n",
    )
    .unwrap();
    let pack = dir.join("tracker.yaml");
    std::fs::write(
        &pack,
        "pack: tracker\n\
         description: A tracker.\n\
         base_url: https://tracker.example/graphql\n\
         graphql_schema: api.graphql\n\
         tools:\n\
         \x20 issue_get:\n\
         \x20   description: Get an issue.\n\
         \x20   graphql: \"query G($id: ID!) { issue(id: $id) { id number } }\"\n\
         \x20   params:\n\
         \x20     id: { type: string, required: true, description: The id. }\n",
    )
    .unwrap();
    let file = pack.display().to_string();
    let (code, out, err) = run_cli(&["check", &file], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pack `tracker`, 1 tools"), "{out}");
    assert!(
        err.starts_with(&format!(
            "{file}:8:55: warning: the `graphql` document uses `Issue.number`, which the pack's schema deprecates: Use `key`."
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn egress_reports_what_the_model_sees_per_tool() {
    let github = charter::packs::ALL
        .iter()
        .find(|t| t.pack == "github")
        .unwrap()
        .tools
        .len();
    let (code, out, err) = run_cli(&["egress", "--pack", "github"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!(
            "# egress map: {github} tools, mode none (widest)\n"
        )),
        "{out}"
    );
    let block: Vec<&str> = out
        .split("\n\n")
        .find(|b| b.starts_with("github_issues_get "))
        .expect("github_issues_get")
        .lines()
        .collect();
    assert_eq!(
        block,
        [
            "github_issues_get [default]",
            "  + issue_number",
            "  + owner",
            "  + repo"
        ]
    );

    let (code, out, _) = run_cli(&["egress", "--pack", "stripe", "--json"], &[]);
    assert_eq!(code, 0);
    let map: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(map["mode"], Value::Null);
    let tools = map["tools"].as_array().unwrap();
    assert_eq!(
        tools.len(),
        charter::packs::ALL
            .iter()
            .find(|t| t.pack == "stripe")
            .unwrap()
            .tools
            .len()
    );
    assert!(
        tools
            .iter()
            .all(|t| t["visible"].is_array() && t["withheld"].is_array())
    );

    // A session mode that no field carries: reported as such, for every tool.
    let (code, out, _) = run_cli(&["egress", "--pack", "github", "--mode", "pro"], &[]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(&format!("# egress map: {github} tools, mode `pro`")),
        "{out}"
    );
    assert!(out.contains("github_issues_get [unmatched]"), "{out}");
}

#[test]
fn import_openapi_writes_a_pack_that_passes_check() {
    let dir = std::env::temp_dir().join(format!("charter-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The command reads a plain document, as a user's would be: the vendored copy, unpacked.
    let spec = dir.join("notion.json");
    std::fs::write(&spec, charter_testkit::openapi::read("notion.json")).unwrap();
    let spec = spec.to_str().unwrap();
    let pack = dir.join("notion.yaml");
    let file = pack.display().to_string();
    let (code, _out, err) = run_cli(
        &[
            "import", "openapi", spec, "--pack", "notion", "--output", &file,
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("13 operations: 13 tools, 0 skipped"), "{err}");
    let (code, out, err) = run_cli(&["check", &file], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pack `notion`, 13 tools"), "{out}");

    // Only some operations, by id: the rest are not imported.
    let (code, out, err) = run_cli(
        &[
            "import",
            "openapi",
            spec,
            "--pack",
            "notion",
            "--ops",
            "retrieveABlock",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("retrieve_a_block:"), "{out}");
    assert!(!out.contains("delete_a_block:"), "{out}");

    // An invalid document is an error that says what is wrong, not a panic.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"openapi\": \"3.0.0\", \"info\": {}}").unwrap();
    let (code, _out, err) = run_cli(
        &[
            "import",
            "openapi",
            &bad.display().to_string(),
            "--pack",
            "x",
        ],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn import_openapi_split_by_tag_writes_packs_that_pass_check() {
    let dir = std::env::temp_dir().join(format!("charter-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("aws.json");
    // An AWS-style document: operations told apart by a fixed header, no server (the base URL
    // is left to run time), two tags.
    let doc = serde_json::json!({
        "openapi": "3.0.0",
        "info": {"title": "Things", "version": "1"},
        "paths": {
            "/#X-Amz-Target=Things.GetThing": {"post": {"operationId": "GetThing", "tags": ["Things"], "summary": "Get a thing.",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"Id": {"type": "string"}}}}}}}},
            "/#X-Amz-Target=Things.ListThings": {"post": {"operationId": "ListThings", "tags": ["Things"], "summary": "List things."}},
            "/?Action=DescribeWidgets": {"get": {"operationId": "DescribeWidgets", "tags": ["Widgets"], "summary": "Describe widgets."}}
        }
    });
    std::fs::write(&spec, doc.to_string()).unwrap();
    let out_dir = dir.join("packs");
    let (code, _out, err) = run_cli(
        &[
            "import",
            "openapi",
            &spec.display().to_string(),
            "--pack",
            "aws",
            "--split-by",
            "tag",
            "--output-dir",
            &out_dir.display().to_string(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 packs written"), "{err}");
    assert!(err.contains("CHARTER_AWS_THINGS_BASE_URL"), "{err}");
    for (label, tools) in [("aws-things", 2), ("aws-widgets", 1)] {
        let file = out_dir.join(format!("{label}.yaml"));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("X-Amz-Target") || text.contains("Action"),
            "{text}"
        );
        let (code, out, err) = run_cli(&["check", &file.display().to_string()], &[]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains(&format!("pack `{label}`, {tools} tools")),
            "{out}"
        );
    }
    // `--split-by` needs a directory to write to.
    let (code, _out, err) = run_cli(
        &[
            "import",
            "openapi",
            &spec.display().to_string(),
            "--pack",
            "aws",
            "--split-by",
            "tag",
        ],
        &[],
    );
    assert_ne!(code, 0);
    assert!(err.contains("--output-dir"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
