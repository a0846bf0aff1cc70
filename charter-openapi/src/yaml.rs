//! The pack as YAML text, in the layout of `docs/pack-format.md`: block mappings, plain
//! scalars where they read back as the same string, double quotes everywhere else.

use serde_json::Value;

use super::model::{In, Kind, PackOut, Pagination, Param, Shape, Tool};

/// A YAML node; scalars are already rendered.
enum Y {
    S(String),
    M(Vec<(String, Y)>),
    L(Vec<Y>),
    /// A comment line (in a mapping, before the next entry).
    Comment(String),
}

/// The pack's text.
pub(crate) fn pack(p: &PackOut<'_>) -> String {
    let mut top: Vec<(String, Y)> = Vec::new();
    top.push(("pack".into(), Y::S(string(p.label))));
    top.push(("description".into(), Y::S(string(&p.description))));
    top.push(("base_url".into(), Y::S(string(&p.base_url))));
    if let Some(a) = &p.auth {
        let mut m = vec![("scheme".to_owned(), Y::S(a.scheme.to_owned()))];
        if let Some(h) = &a.header {
            m.push(("header".into(), Y::S(string(h))));
        }
        m.push(("env".into(), Y::S(string(&a.env))));
        top.push(("auth".into(), Y::M(m)));
    }
    if let Some(field) = &p.envelope {
        top.push((
            "envelope".into(),
            Y::M(vec![
                ("kind".into(), Y::S("ok_flag".into())),
                ("field".into(), Y::S(string(field))),
            ]),
        ));
    }
    if !p.types.is_empty() {
        let types = p
            .types
            .iter()
            .filter_map(|t| Some((key(&t.name), Y::M(shape(t.shape.as_ref()?, Vec::new())))))
            .collect();
        top.push(("types".into(), Y::M(types)));
    }
    let mut tools = Vec::with_capacity(p.tools.len() * 2);
    for t in &p.tools {
        tools.push((
            String::new(),
            Y::Comment(format!("operation {}", t.operation)),
        ));
        tools.push((key(&t.name), tool(t)));
    }
    top.push(("tools".into(), Y::M(tools)));

    let mut out = String::with_capacity(64 * 1024);
    out.push_str(&format!(
        "# Imported from {} by `charter import openapi`: {} tools from {} operations.\n# Curate before shipping: keep what an agent needs, add `response.keep` projections.\n",
        one_line(&p.source),
        p.tools.len(),
        p.operations
    ));
    write_map(&mut out, &top, 0, false);
    out
}

fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn tool(t: &Tool) -> Y {
    let mut m: Vec<(String, Y)> = vec![
        ("description".into(), Y::S(string(&t.description))),
        ("method".into(), Y::S(t.method.to_owned())),
        ("path".into(), Y::S(string(&t.path))),
    ];
    if t.form {
        m.push(("body_encoding".into(), Y::S("form".into())));
    }
    for (section, list) in [("headers", &t.headers), ("query", &t.query)] {
        if !list.is_empty() {
            let pairs = list.iter().map(|(k, v)| (key(k), Y::S(quoted(v))));
            m.push((section.into(), Y::M(pairs.collect())));
        }
    }
    if !t.params.is_empty() {
        m.push((
            "params".into(),
            Y::M(t.params.iter().map(|p| (key(&p.name), param(p))).collect()),
        ));
    }
    if let Some(pg) = &t.pagination {
        let pm = match pg {
            Pagination::Page { param, size_param } | Pagination::Offset { param, size_param } => {
                let style = match pg {
                    Pagination::Offset { .. } => "offset",
                    _ => "page",
                };
                let mut v = vec![
                    ("style".to_owned(), Y::S(style.into())),
                    ("param".into(), Y::S(string(param))),
                ];
                if let Some(s) = size_param {
                    v.push(("size_param".into(), Y::S(string(s))));
                }
                v
            }
            Pagination::Cursor { next, param } => vec![
                ("style".to_owned(), Y::S("cursor".into())),
                ("next".into(), Y::S(string(next))),
                ("param".into(), Y::S(string(param))),
            ],
        };
        m.push((
            "response".into(),
            Y::M(vec![("pagination".into(), Y::M(pm))]),
        ));
    }
    Y::M(m)
}

fn param(p: &Param) -> Y {
    let mut front = vec![("in".to_owned(), Y::S(p.location.as_str().to_owned()))];
    let mut back = Vec::new();
    if p.required {
        back.push(("required".to_owned(), Y::S("true".into())));
    }
    if let Some(w) = &p.wire {
        back.push(("wire".into(), Y::S(string(w))));
    }
    if let Some(s) = p.style {
        back.push(("style".into(), Y::S(s.to_owned())));
    }
    if p.allow_slash && p.location == In::Path {
        back.push(("allow_slash".into(), Y::S("true".into())));
    }
    let mut entries = shape(&p.shape, back);
    front.append(&mut entries);
    Y::M(front)
}

/// A shape's entries; `named` (required, wire...) goes after the description.
fn shape(s: &Shape, named: Vec<(String, Y)>) -> Vec<(String, Y)> {
    let mut m: Vec<(String, Y)> = Vec::new();
    let type_name = match &s.kind {
        Kind::Any => Some("any"),
        Kind::String => Some("string"),
        Kind::Integer => Some("integer"),
        Kind::Number => Some("number"),
        Kind::Boolean => Some("boolean"),
        Kind::Object(_) => Some("object"),
        Kind::Array(_) => Some("array"),
        Kind::Map(_) => Some("map"),
        Kind::Ref(_) | Kind::OneOf(_) => None,
    };
    match (&s.kind, type_name) {
        (_, Some(t)) => m.push(("type".into(), Y::S(t.into()))),
        (Kind::Ref(name), None) => m.push(("ref".into(), Y::S(string(name)))),
        _ => {}
    }
    if let Some(d) = &s.description {
        m.push(("description".into(), Y::S(string(d))));
    }
    m.extend(named);
    if !s.enum_values.is_empty() {
        let items: Vec<String> = s.enum_values.iter().map(flow).collect();
        m.push(("enum".into(), Y::S(format!("[{}]", items.join(", ")))));
    }
    if let Some(d) = &s.default {
        m.push(("default".into(), Y::S(flow(d))));
    }
    if let Some(f) = s.format {
        m.push(("format".into(), Y::S(f.to_owned())));
    }
    if let Some(p) = &s.pattern {
        m.push(("pattern".into(), Y::S(quoted(p))));
    }
    for (k, v) in [("min_length", s.min_length), ("max_length", s.max_length)] {
        if let Some(v) = v {
            m.push((k.into(), Y::S(v.to_string())));
        }
    }
    for (k, v) in [("minimum", &s.minimum), ("maximum", &s.maximum)] {
        if let Some(v) = v {
            m.push((k.into(), Y::S(v.to_string())));
        }
    }
    for (k, v) in [("min_items", s.min_items), ("max_items", s.max_items)] {
        if let Some(v) = v {
            m.push((k.into(), Y::S(v.to_string())));
        }
    }
    if s.nullable {
        m.push(("nullable".into(), Y::S("true".into())));
    }
    match &s.kind {
        Kind::Object(props) => {
            let props = props
                .iter()
                .map(|p| {
                    let mut named = Vec::new();
                    if p.required {
                        named.push(("required".to_owned(), Y::S("true".into())));
                    }
                    if let Some(w) = &p.wire {
                        named.push(("wire".into(), Y::S(string(w))));
                    }
                    (key(&p.name), Y::M(shape(&p.shape, named)))
                })
                .collect();
            m.push(("properties".into(), Y::M(props)));
        }
        Kind::Array(items) => m.push(("items".into(), Y::M(shape(items, Vec::new())))),
        Kind::Map(Some(values)) => m.push(("values".into(), Y::M(shape(values, Vec::new())))),
        Kind::OneOf(alts) => {
            m.insert(
                0,
                (
                    "one_of".into(),
                    Y::L(alts.iter().map(|a| Y::M(shape(a, Vec::new()))).collect()),
                ),
            );
        }
        _ => {}
    }
    m
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Writes mapping entries at `indent`; with `inline_first` the first entry continues the
/// current line (after a sequence's `- `).
fn write_map(out: &mut String, entries: &[(String, Y)], indent: usize, inline_first: bool) {
    let mut first = inline_first;
    for (k, v) in entries {
        if let Y::Comment(c) = v {
            if !first {
                pad(out, indent);
            }
            out.push_str("# ");
            out.push_str(&one_line(c));
            out.push('\n');
            first = false;
            continue;
        }
        if !first {
            pad(out, indent);
        }
        first = false;
        out.push_str(k);
        out.push(':');
        write_value(out, v, indent);
    }
}

fn write_value(out: &mut String, v: &Y, indent: usize) {
    match v {
        Y::S(s) => {
            out.push(' ');
            out.push_str(s);
            out.push('\n');
        }
        Y::M(m) if m.is_empty() => out.push_str(" {}\n"),
        Y::M(m) => {
            out.push('\n');
            write_map(out, m, indent + 2, false);
        }
        Y::L(l) if l.is_empty() => out.push_str(" []\n"),
        Y::L(l) => {
            out.push('\n');
            for item in l {
                pad(out, indent + 2);
                out.push_str("- ");
                match item {
                    Y::M(m) if !m.is_empty() => write_map(out, m, indent + 4, true),
                    Y::M(_) => out.push_str("{}\n"),
                    Y::S(s) => {
                        out.push_str(s);
                        out.push('\n');
                    }
                    Y::L(_) | Y::Comment(_) => out.push_str("[]\n"),
                }
            }
        }
        Y::Comment(_) => out.push('\n'),
    }
}

const RESERVED: &[&str] = &["true", "false", "null", "yes", "no", "on", "off", "y", "n"];

fn printable(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            '\u{feff}' | '\u{fffe}' | '\u{ffff}' | '\u{2028}' | '\u{2029}'
        ))
}

/// A string scalar in block context: plain when that reads back as the same string.
pub(crate) fn string(s: &str) -> String {
    let plain = s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !s.contains(" #")
        && s.chars().all(printable)
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str());
    if plain { s.to_owned() } else { quoted(s) }
}

/// A mapping key: plain for simple names.
pub(crate) fn key(s: &str) -> String {
    let plain = s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str());
    if plain { s.to_owned() } else { quoted(s) }
}

/// A JSON value in flow context (enum items, defaults).
fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => key(s),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", quoted(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A double-quoted scalar with YAML escapes.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if !printable(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_read_back() {
        assert_eq!(string("List issues."), "List issues.");
        assert_eq!(string("true"), "\"true\"");
        assert_eq!(string("a: b"), "\"a: b\"");
        assert_eq!(string("`code` first"), "\"`code` first\"");
        assert_eq!(string("x #y"), "\"x #y\"");
        assert_eq!(string("tab\there"), "\"tab\\there\"");
        assert_eq!(key("per_page"), "per_page");
        assert_eq!(key("2"), "\"2\"");
        assert_eq!(flow(&serde_json::json!("a b")), "\"a b\"");
        assert_eq!(flow(&serde_json::json!({"k": [1, "x"]})), "{\"k\": [1, x]}");
    }
}
