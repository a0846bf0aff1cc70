//! How validation messages name what the model sent and what a field takes: short, clipped,
//! never the whole value.

use serde_json::Value;

use crate::table::Shape;

pub(super) fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub(super) fn got_items(n: usize) -> String {
    format!("{n} item{}", if n == 1 { "" } else { "s" })
}

/// JSON-pointer escaping of one path segment.
pub(super) fn escape(segment: &str) -> std::borrow::Cow<'_, str> {
    if segment.contains(['~', '/']) {
        segment.replace('~', "~0").replace('/', "~1").into()
    } else {
        segment.into()
    }
}

/// What a shape accepts, for the model.
pub fn describe(shape: &Shape) -> String {
    match shape {
        Shape::Any => "any value".into(),
        Shape::Bool => "boolean".into(),
        Shape::Integer(_) => "integer".into(),
        Shape::Number(_) => "number".into(),
        Shape::String(rules) => match rules.format {
            Some(f) => format!("string ({})", f.as_str()),
            None => "string".into(),
        },
        Shape::Array(rules) => format!("array of {}", describe(rules.items)),
        Shape::Object(_) => "object".into(),
        Shape::Map(inner) => format!("object whose values are {}", describe(inner)),
        Shape::Nullable(inner) => format!("{} or null", describe(inner)),
        Shape::OneOf(shapes) => {
            let alts: Vec<String> = shapes.iter().map(describe).collect();
            format!("one of ({})", alts.join(" | "))
        }
        Shape::AnyOf(shapes) => {
            let alts: Vec<String> = shapes.iter().map(describe).collect();
            format!("any of ({})", alts.join(" | "))
        }
        Shape::Doc(doc) => describe(doc.shape),
        Shape::Named(named) => describe(named.shape),
    }
}

/// At most `max` characters of `text`, with `…` when cut: what an error message may echo of
/// something the model or a client sent, however long it was.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => text.into(),
        Some((end, _)) => format!("{}…", &text[..end]).into(),
    }
}

/// The kind of a JSON value as a message names it (`a string`, `an object`, `null`).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What the model gave, briefly: strings quoted and cut at 40 characters, containers sized.
pub fn got(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let mut cut: String = s.chars().take(40).collect();
            if cut.len() < s.len() {
                cut.push('…');
            }
            format!("string {}", Value::String(cut))
        }
        Value::Array(items) => format!("an array of {}", got_items(items.len())),
        Value::Object(map) => format!(
            "an object with {} key{}",
            map.len(),
            if map.len() == 1 { "" } else { "s" }
        ),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::Null => "null".into(),
    }
}
