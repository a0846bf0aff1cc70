//! The egress map (docs/design.md §5): for every tool of a session, what the model can see and set, and
//! what is withheld and why, as JSON and as a text report a reviewer can diff.
//!
//! Paths are dotted from the arguments' root (`filter.state`); `[]` steps into array items and
//! `*` into map values. A withheld field is listed once: nothing under it is reachable.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::mode;
/// Why a path is withheld from a view (the mode rule's answer, in [`WithheldPath::reason`]).
pub use crate::mode::Withheld;
use crate::session::{Entry, Kind, ToolSession};
use crate::table::{ObjectShape, Shape, View, ViewKey};

/// What a session exposes, tool by tool, sorted by name.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressMap {
    /// The session mode.
    pub mode: Option<String>,
    /// One entry per tool, sorted by name.
    pub tools: Vec<ToolEgress>,
}

/// What one tool exposes.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEgress {
    /// The qualified name.
    pub name: String,
    /// Which view is in force: `default`, `unmatched`, `label:<mode>`, or `toolkit` for a tool
    /// whose schema came from a toolkit.
    pub view: String,
    /// Whether the tool is deferred until ToolSearch loads it.
    pub deferred: bool,
    /// Paths the model can see and set, sorted.
    pub visible: Vec<String>,
    /// Paths kept from the model, sorted by path.
    pub withheld: Vec<WithheldPath>,
}

/// One withheld path and why.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithheldPath {
    /// The dotted path.
    pub path: String,
    /// Why the model cannot see or set it.
    pub reason: Withheld,
}

/// The egress map of a session: every tool, resolved to the session's mode, with the
/// deployment's pins and from-context fields.
pub fn egress_map(session: &ToolSession) -> EgressMap {
    let mut tools: Vec<ToolEgress> = session.entries().iter().map(tool_egress).collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    EgressMap {
        mode: session.mode().map(str::to_owned),
        tools,
    }
}

fn tool_egress(entry: &Entry) -> ToolEgress {
    let mut visible = Vec::new();
    let mut withheld = Vec::new();
    let view_name = match &entry.kind {
        Kind::Static { def, view, .. } => {
            let mut walk = Walk {
                view,
                stack: Vec::new(),
                visible: &mut visible,
                withheld: &mut withheld,
            };
            walk.object(def.input, "", Some(entry));
            match view.key {
                ViewKey::Default => "default".to_owned(),
                ViewKey::Unmatched => "unmatched".to_owned(),
                ViewKey::Label(label) => format!("label:{label}"),
            }
        }
        Kind::Dynamic(d) => {
            if let Ok(schema) = serde_json::from_str::<Value>(&d.tool.schema) {
                schema_paths(&schema, "", 0, &mut visible);
            }
            "toolkit".to_owned()
        }
    };
    visible.sort();
    visible.dedup();
    withheld.sort_by(|a: &WithheldPath, b| a.path.cmp(&b.path));
    withheld.dedup();
    ToolEgress {
        name: entry.name().to_owned(),
        view: view_name,
        deferred: !entry.resident,
        visible,
        withheld,
    }
}

struct Walk<'w> {
    view: &'static View,
    stack: Vec<*const ObjectShape>,
    visible: &'w mut Vec<String>,
    withheld: &'w mut Vec<WithheldPath>,
}

impl Walk<'_> {
    fn object(&mut self, object: &'static ObjectShape, prefix: &str, top: Option<&Entry>) {
        let ptr = object as *const ObjectShape;
        if self.stack.contains(&ptr) {
            return; // A recursive type: its paths were listed where it first appeared.
        }
        self.stack.push(ptr);
        for field in object.fields {
            let path = if prefix.is_empty() {
                field.name.to_owned()
            } else {
                format!("{prefix}.{}", field.name)
            };
            let narrowed = top.and_then(|e| e.narrowing.as_deref()).and_then(|n| {
                if n.pins.iter().any(|(f, _)| *f == field.name) {
                    Some(Withheld::Pinned)
                } else {
                    n.context
                        .iter()
                        .find(|(f, _)| *f == field.name)
                        .map(|(_, key)| Withheld::FromContext { key: key.clone() })
                }
            });
            match narrowed.or_else(|| mode::withheld_reason(field, self.view)) {
                Some(reason) => self.withheld.push(WithheldPath { path, reason }),
                None => {
                    self.shape(field.shape, &path);
                    self.visible.push(path);
                }
            }
        }
        self.stack.pop();
    }

    fn shape(&mut self, shape: &'static Shape, path: &str) {
        match shape {
            Shape::Object(object) => self.object(object, path, None),
            Shape::Array(rules) => self.shape(rules.items, &format!("{path}[]")),
            Shape::Map(inner) => self.shape(inner, &format!("{path}.*")),
            Shape::Nullable(inner) => self.shape(inner, path),
            Shape::OneOf(shapes) | Shape::AnyOf(shapes) => {
                shapes.iter().for_each(|s| self.shape(s, path))
            }
            Shape::Doc(doc) => self.shape(doc.shape, path),
            Shape::Named(named) => self.shape(named.shape, path),
            _ => {}
        }
    }
}

/// The property paths of a JSON schema a toolkit sent (all visible: its server decides).
fn schema_paths(schema: &Value, prefix: &str, depth: usize, out: &mut Vec<String>) {
    if depth > 32 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            schema_paths(sub, &path, depth + 1, out);
            out.push(path);
        }
    }
    if let Some(items) = schema.get("items") {
        schema_paths(items, &format!("{prefix}[]"), depth + 1, out);
    }
    if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        schema_paths(values, &format!("{prefix}.*"), depth + 1, out);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(alts) = schema.get(key).and_then(Value::as_array) {
            alts.iter()
                .for_each(|alt| schema_paths(alt, prefix, depth + 1, out));
        }
    }
}

impl WithheldPath {
    fn to_json(&self) -> Value {
        let mut out = json!({ "path": self.path, "reason": self.reason.kind() });
        match &self.reason {
            Withheld::Mode { labels } => out["labels"] = json!(labels),
            Withheld::FromContext { key } => out["key"] = json!(key),
            _ => {}
        }
        out
    }
}

impl EgressMap {
    /// The map as JSON: `{mode, tools: [{name, view, deferred, visible, withheld: [{path, reason,
    /// labels?|key?}]}]}`.
    pub fn to_json(&self) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "view": t.view,
                    "deferred": t.deferred,
                    "visible": t.visible,
                    "withheld": t.withheld.iter().map(WithheldPath::to_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({ "mode": self.mode, "tools": tools })
    }

    /// The map as a line-oriented report, sorted, so two deployments diff cleanly: one header
    /// line per tool, then `+ path` for each visible path and `- path  (reason)` for each withheld
    /// one.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "# egress map: {} tool{}, mode {}\n",
            self.tools.len(),
            if self.tools.len() == 1 { "" } else { "s" },
            self.mode
                .as_deref()
                .map_or_else(|| "none (widest)".to_owned(), |m| format!("`{m}`"))
        );
        for tool in &self.tools {
            let _ = writeln!(
                out,
                "\n{} [{}{}]",
                tool.name,
                tool.view,
                if tool.deferred { ", deferred" } else { "" }
            );
            for path in &tool.visible {
                let _ = writeln!(out, "  + {path}");
            }
            for w in &tool.withheld {
                let _ = writeln!(out, "  - {}  ({})", w.path, w.reason);
            }
        }
        out
    }
}

impl std::fmt::Display for EgressMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}
