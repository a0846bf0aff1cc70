//! The description Prism is started on: the vendored one with every operation's responses
//! replaced by a bare `200`, and the components no request refers to left out. Only requests are
//! judged, and Prism dereferences the whole document on start: Stripe's and GitHub's response
//! schemas (most of each document) made it take minutes. Every request-side constraint
//! (parameters, request bodies, security schemes) is kept as written; webhook payloads go.

use std::collections::BTreeSet;

use serde_json::{Value, json};

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

pub fn for_requests(doc: &Value) -> Value {
    let mut out = doc.clone();
    // Webhook payloads are answers the API sends, not requests; GitHub's refer to schemas
    // under names the document does not hold, which stops Prism from starting.
    if let Value::Object(root) = &mut out {
        root.remove("x-webhooks");
        root.remove("webhooks");
    }
    if let Some(Value::Object(paths)) = out.get_mut("paths") {
        for item in paths.values_mut() {
            for m in METHODS {
                if let Some(op) = item.get_mut(m) {
                    op["responses"] = json!({"200": {"description": "The request was valid."}});
                }
            }
        }
    }
    // The components reachable from the paths and the security schemes, to a fixed point.
    let mut keep: BTreeSet<String> = BTreeSet::new();
    let mut todo: Vec<String> = Vec::new();
    refs(&out["paths"], &mut todo);
    if let Some(Value::Object(schemes)) = doc.pointer("/components/securitySchemes") {
        todo.extend(
            schemes
                .keys()
                .map(|k| format!("#/components/securitySchemes/{k}")),
        );
    }
    while let Some(r) = todo.pop() {
        if keep.insert(r.clone())
            && let Some(target) = doc.pointer(r.trim_start_matches('#'))
        {
            refs(target, &mut todo);
        }
    }
    if let Some(Value::Object(components)) = out.get_mut("components") {
        for (kind, entries) in components.iter_mut() {
            if let Value::Object(entries) = entries {
                entries.retain(|name, _| {
                    let pointer = format!("#/components/{kind}/{}", escape(name));
                    keep.contains(&pointer)
                });
            }
        }
    }
    out
}

fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r.clone());
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
