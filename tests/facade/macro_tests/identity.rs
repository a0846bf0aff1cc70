//! One tool declared twice, in a YAML pack and as a Rust function, gives byte-identical views:
//! schema text, size, property spans and path savings. The pack is compiled by `charter-build`
//! (natively, as a build script would) and the Rust tool by `#[charter::tool]` (in `const`
//! context): both run the one schema emitter, `charter_schema::emit`, on the same shape tree.

use std::collections::BTreeMap;

use charter::Schema;
use charter::table::ViewKey;
use serde::Deserialize;

#[derive(Deserialize, Schema)]
#[allow(dead_code)]
struct Label {
    /// The label name.
    name: String,
    /// Hex colour without `#`.
    color: Option<String>,
}

#[derive(Deserialize, Schema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum State {
    Open,
    Closed,
}

#[derive(Deserialize, Schema)]
#[allow(dead_code)]
struct Window {
    /// From this day.
    from: String,
    /// Up to this many days.
    days: Option<u16>,
}

/// Create an issue in a project.
#[charter::tool]
#[allow(clippy::too_many_arguments)]
fn issues_create(
    #[charter(desc = "The project key.")] project: String,
    #[charter(desc = "A one-line summary; \"quoted\" and é are fine.")] title: String,
    #[charter(desc = "Priority, 0 (none) to 255.")] priority: Option<u8>,
    #[charter(desc = "The state to open it in.")] state: State,
    #[charter(desc = "Labels to attach.")] labels: Option<Vec<Label>>,
    #[charter(desc = "Estimate in hours.")] estimate: Option<f64>,
    #[charter(desc = "Free-form metadata.")] metadata: Option<BTreeMap<String, String>>,
    #[charter(desc = "Whether to notify watchers.")] notify: bool,
    #[charter(desc = "Tags; null leaves a slot empty.")] tags: Option<Vec<Option<String>>>,
    #[charter(desc = "When it is planned.")] window: Option<Window>,
    #[charter(desc = "An internal score.", mode = "pro")] score: Option<i64>,
) -> String {
    let _ = (
        project, title, priority, state, labels, estimate, metadata, notify, tags, window, score,
    );
    String::new()
}

charter::pack!(static RUST = "tracker", "An issue tracker.", [issues_create]);

const YAML: &str = r#"
pack: tracker
description: An issue tracker.
base_url: https://tracker.example.com
tools:
  issues_create:
    description: Create an issue in a project.
    method: POST
    path: /issues
    params:
      project: { in: body, type: string, required: true, description: The project key. }
      title: { in: body, type: string, required: true, description: "A one-line summary; \"quoted\" and é are fine." }
      priority: { in: body, type: integer, minimum: 0, maximum: 255, description: "Priority, 0 (none) to 255." }
      state: { in: body, type: string, enum: [open, closed], required: true, description: The state to open it in. }
      labels:
        in: body
        type: array
        description: Labels to attach.
        items:
          type: object
          properties:
            name: { type: string, required: true, description: The label name. }
            color: { type: string, description: "Hex colour without `#`." }
      estimate: { in: body, type: number, description: Estimate in hours. }
      metadata: { in: body, type: map, values: { type: string }, description: Free-form metadata. }
      notify: { in: body, type: boolean, required: true, description: Whether to notify watchers. }
      tags: { in: body, type: array, items: { type: string, nullable: true }, description: Tags; null leaves a slot empty. }
      window:
        in: body
        type: object
        description: When it is planned.
        properties:
          from: { type: string, required: true, description: From this day. }
          days: { type: integer, minimum: 0, maximum: 65535, description: Up to this many days. }
      score: { in: body, type: integer, modes: [pro], description: An internal score. }
"#;

#[test]
fn a_tool_declared_in_yaml_and_in_rust_has_identical_views() {
    let model = charter_build::load_str("tracker.yaml", YAML).unwrap_or_else(|d| panic!("{d:?}"));
    let yaml_tool = &charter_build::__private::view_schemas(&model)[0];
    let yaml: Vec<_> = yaml_tool.views.iter().map(|(_, schema)| schema).collect();
    let rust = &RUST.tools[0];
    assert_eq!(rust.name, yaml_tool.name);
    assert_eq!(rust.views.len(), yaml.len(), "the same views");
    assert_eq!(yaml.len(), 3, "default, unmatched, pro");
    for (i, (r, y)) in rust.views.iter().zip(&yaml).enumerate() {
        let key = match &yaml_tool.views[i].0.key {
            charter_build::__private::ViewKey::Default => ViewKey::Default,
            charter_build::__private::ViewKey::Unmatched => ViewKey::Unmatched,
            charter_build::__private::ViewKey::Label(_) => ViewKey::Label("pro"),
        };
        assert_eq!(r.key, key);
        assert_eq!(r.schema, y.text, "view {i}: the text");
        assert_eq!(r.tokens, y.tokens, "view {i}: the size");
        assert_eq!(r.spans, &y.spans[..], "view {i}: the spans");
        let rust_paths: Vec<(&str, u8, u32)> =
            r.paths.iter().map(|p| (p.path, p.depth, p.saves)).collect();
        let yaml_paths: Vec<(&str, u8, u32)> = y
            .paths
            .iter()
            .map(|p| (p.path.as_str(), p.depth, p.saves))
            .collect();
        assert_eq!(rust_paths, yaml_paths, "view {i}: the paths");
    }
    // The views differ where they should: `score` only where `pro` is in force or no mode is.
    assert!(rust.views[0].schema.contains("\"score\""));
    assert!(!rust.views[1].schema.contains("\"score\""));
    assert!(rust.views[2].schema.contains("\"score\""));
    assert!(rust.views[0].paths.iter().any(|p| p.path == "window.days"));
    assert!(rust.views[0].paths.iter().any(|p| p.path == "labels.color"));
}
