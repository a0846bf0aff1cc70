//! The committed result shapes (`packs/results/<label>.yaml`, read by the pack compiler) are
//! those the packs and their vendored documents give today: each is regenerated from its pack
//! and the document its header comment names (`openapi/<name>.json.gz`) and compared.
//! `CHARTER_BLESS=1 cargo test -p charter-openapi --test openapi result_files::` rewrites them.
//!
//! Each file is also read back: every tool of the pack is in exactly one of `tools` and
//! `gaps`, and the shapes use only the keys the compiler reads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use charter_openapi::{GapCode, ResultsOptions, results};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The vendored document a pack names in its header comment (`openapi/<name>.json.gz`), as
/// the request check finds it.
fn vendored_document(pack_text: &str) -> Option<String> {
    pack_text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| {
            let start = l.find("openapi/")? + "openapi/".len();
            let end = l[start..].find(".json.gz")? + start;
            Some(l[start..end].to_owned())
        })
        .filter(|name| root().join(format!("openapi/{name}.json.gz")).is_file())
}

/// The options the `results` example uses for `packs/<label>.yaml` and
/// `openapi/<document>.json.gz`: the header is the same whichever regenerates the file.
fn options(label: &str, document: &str) -> ResultsOptions {
    ResultsOptions::new(
        format!("openapi/{document}.json.gz"),
        format!(
            "cargo run -p charter-openapi --example results -- packs/{label}.yaml openapi/{document}.json.gz > packs/results/{label}.yaml"
        ),
    )
}

fn parse_yaml(text: &str) -> Value {
    let mut options = serde_saphyr::Options::default();
    options.budget = None;
    serde_saphyr::from_str_with_options(text, options).unwrap_or_else(|e| panic!("not YAML: {e}"))
}

/// The packs with a vendored description: (label, document name).
fn packs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("packs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if let Some(document) = vendored_document(&text) {
            let label = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((label, document));
        }
    }
    out.sort();
    out
}

/// The problems of one shape, at `at`.
fn check_shape(v: &Value, at: &str, problems: &mut Vec<String>) {
    let Value::Object(map) = v else {
        problems.push(format!("{at}: not a mapping"));
        return;
    };
    for key in map.keys() {
        if ![
            "type",
            "properties",
            "items",
            "values",
            "one_of",
            "nullable",
        ]
        .contains(&key.as_str())
        {
            problems.push(format!("{at}: key `{key}`"));
        }
    }
    if map.get("nullable").is_some_and(|n| n != &Value::Bool(true)) {
        problems.push(format!("{at}: nullable is not `true`"));
    }
    if let Some(alts) = map.get("one_of") {
        match alts.as_array() {
            Some(list) if list.len() >= 2 && !map.contains_key("type") => {
                for (i, a) in list.iter().enumerate() {
                    check_shape(a, &format!("{at}.one_of[{i}]"), problems);
                }
            }
            _ => problems.push(format!(
                "{at}: one_of is not a list of 2+ shapes without type"
            )),
        }
        return;
    }
    let kind = map.get("type").and_then(Value::as_str).unwrap_or("(none)");
    let allowed: &[&str] = match kind {
        "string" | "integer" | "number" | "boolean" | "any" => &[],
        "object" => &["properties"],
        "array" => &["items"],
        "map" => &["values"],
        other => {
            problems.push(format!("{at}: type `{other}`"));
            return;
        }
    };
    for key in ["properties", "items", "values"] {
        if map.contains_key(key) && !allowed.contains(&key) {
            problems.push(format!("{at}: `{key}` on a {kind}"));
        }
    }
    match kind {
        "object" => match map.get("properties").and_then(Value::as_object) {
            Some(props) if !props.is_empty() => {
                for (name, p) in props {
                    check_shape(p, &format!("{at}.{name}"), problems);
                }
            }
            _ => problems.push(format!("{at}: an object without properties")),
        },
        "array" => match map.get("items") {
            Some(items) => check_shape(items, &format!("{at}[]"), problems),
            None => problems.push(format!("{at}: an array without items")),
        },
        "map" => {
            if let Some(values) = map.get("values") {
                check_shape(values, &format!("{at}{{}}"), problems);
            }
        }
        _ => {}
    }
}

#[test]
fn the_committed_result_shapes_are_up_to_date() {
    let bless = std::env::var_os("CHARTER_BLESS").is_some();
    let dir = root().join("packs/results");
    let packs = packs();
    assert!(
        packs.len() >= 11,
        "packs with a vendored description: {packs:?}"
    );
    let mut stale = Vec::new();
    let mut problems = Vec::new();
    let mut summary = String::from(
        "| pack | document | tools | shaped | no-operation | no-schema | not-json | graphql | keep paths not in the document | largest shape | file |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (label, document) in &packs {
        let pack_text =
            std::fs::read_to_string(root().join(format!("packs/{label}.yaml"))).unwrap();
        let doc_text = charter_testkit::openapi::read(&format!("{document}.json"));
        let out = results(&pack_text, &doc_text, &options(label, document))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let path = dir.join(format!("{label}.yaml"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &out.yaml).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(out.yaml.as_str()) {
            stale.push(path.display().to_string());
        }
        let largest = out
            .largest
            .first()
            .map(|s| format!("`{}` {} nodes, {} B", s.tool, s.nodes, s.bytes))
            .unwrap_or_default();
        summary.push_str(&format!(
            "| {label} | {document}.json.gz | {} | {} | {} | {} | {} | {} | {} | {largest} | {:.0} KB |\n",
            out.tools,
            out.shaped,
            out.gaps_of(GapCode::NoOperation),
            out.gaps_of(GapCode::NoSchema),
            out.gaps_of(GapCode::NotJson),
            out.gaps_of(GapCode::Graphql),
            out.missing_keep.len(),
            out.yaml.len() as f64 / 1024.0,
        ));
        eprint!("{}", out.report());

        // Every tool of the pack in exactly one of `tools` and `gaps`.
        let pack = parse_yaml(&pack_text);
        let pack_tools: Vec<&String> = pack["tools"].as_object().unwrap().keys().collect();
        let written = parse_yaml(&out.yaml);
        let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["lenient", "tools", "gaps"], "{label}");
        assert_eq!(written["lenient"], Value::Bool(true), "{label}");
        let shaped: Vec<&String> = written["tools"].as_object().unwrap().keys().collect();
        let gaps = written["gaps"].as_object().unwrap();
        let both: BTreeSet<&String> = shaped.iter().copied().chain(gaps.keys()).collect();
        assert_eq!(
            shaped.len() + gaps.len(),
            pack_tools.len(),
            "{label}: a tool twice"
        );
        assert_eq!(
            both,
            pack_tools.iter().copied().collect::<BTreeSet<_>>(),
            "{label}: tools and gaps are not the pack's tools"
        );
        assert_eq!(
            (out.tools, out.shaped),
            (pack_tools.len(), shaped.len()),
            "{label}"
        );
        let codes: Vec<&str> = GapCode::ALL.iter().map(|c| c.as_str()).collect();
        for (tool, code) in gaps {
            if !code.as_str().is_some_and(|c| codes.contains(&c)) {
                problems.push(format!("{label}: gap {tool}: {code}"));
            }
        }
        for (tool, shape) in written["tools"].as_object().unwrap() {
            check_shape(shape, &format!("{label}.{tool}"), &mut problems);
        }
    }
    // No file for a pack without a vendored description (or one renamed).
    let expected: BTreeSet<String> = packs.iter().map(|(l, _)| format!("{l}.yaml")).collect();
    let present: BTreeSet<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".yaml"))
                .collect()
        })
        .unwrap_or_default();
    let extra: Vec<&String> = present.difference(&expected).collect();
    let out_dir = root().join("target");
    let _ = std::fs::create_dir_all(&out_dir);
    let _ = std::fs::write(out_dir.join("result-shapes-counts.md"), &summary);
    println!("{summary}");
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(
        extra.is_empty(),
        "files in packs/results/ for no pack with a vendored description: {extra:?}"
    );
    assert!(
        stale.is_empty(),
        "stale result shapes: {stale:?}; regenerate them with `CHARTER_BLESS=1 cargo test -p charter-openapi --test openapi result_files::`"
    );
}
