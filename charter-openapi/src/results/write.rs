//! The sidecar's text: a header naming its source and the command that regenerates it,
//! `lenient: true`, the shapes (flow style where a shape fits on its line, block style
//! otherwise) and the gaps.

use super::super::yaml::key;
use super::GapCode;
use super::shape::{Kind, Shape};

/// The widest line a shape is written on in flow style.
const WIDTH: usize = 100;

/// The whole file.
pub(crate) fn file(
    label: &str,
    document: &str,
    title: &str,
    command: &str,
    tools: &[(String, Shape)],
    gaps: &[(String, GapCode)],
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "# Result shapes of the {label} pack's tools, generated from {}\n# ({}) by `{}`. Do not edit by hand.\n",
        one_line(document),
        one_line(title),
        one_line(command)
    ));
    out.push_str("lenient: true\n");
    if tools.is_empty() {
        out.push_str("tools: {}\n");
    } else {
        out.push_str("tools:\n");
        for (name, shape) in tools {
            out.push_str(&tool(name, shape));
        }
    }
    if gaps.is_empty() {
        out.push_str("gaps: {}\n");
    } else {
        out.push_str("gaps:\n");
        for (name, code) in gaps {
            out.push_str(&format!("  {}: {code}\n", key(name)));
        }
    }
    out
}

/// One tool's entry (`  name: ...`), as it stands in the file.
pub(crate) fn tool(name: &str, shape: &Shape) -> String {
    let mut out = String::new();
    entry(&mut out, &key(name), shape, 2, true);
    out
}

fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn type_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Any => "any",
        Kind::String => "string",
        Kind::Integer => "integer",
        Kind::Number => "number",
        Kind::Boolean => "boolean",
        Kind::Object(_) => "object",
        Kind::Array(_) => "array",
        Kind::Map(_) => "map",
        Kind::OneOf(_) => "one_of",
    }
}

/// `{ type: ..., ... }` on one line. `nullable` is written only where `lenient` does not
/// cover it (`nullable_here`: the root, array items, map values).
fn flow(s: &Shape, nullable_here: bool) -> String {
    let mut parts = Vec::new();
    match &s.kind {
        Kind::OneOf(alts) => {
            let alts: Vec<String> = alts.iter().map(|a| flow(a, false)).collect();
            parts.push(format!("one_of: [{}]", alts.join(", ")));
        }
        kind => parts.push(format!("type: {}", type_name(kind))),
    }
    if nullable_here && s.nullable {
        parts.push("nullable: true".into());
    }
    match &s.kind {
        Kind::Object(props) => {
            let props: Vec<String> = props
                .iter()
                .map(|(name, p)| format!("{}: {}", key(name), flow(p, false)))
                .collect();
            parts.push(format!("properties: {{ {} }}", props.join(", ")));
        }
        Kind::Array(items) => parts.push(format!("items: {}", flow(items, true))),
        Kind::Map(Some(values)) => parts.push(format!("values: {}", flow(values, true))),
        _ => {}
    }
    format!("{{ {} }}", parts.join(", "))
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// `key: <shape>` at `indent`: flow style when it fits in [`WIDTH`], else block style below.
fn entry(out: &mut String, key: &str, s: &Shape, indent: usize, nullable_here: bool) {
    let f = flow(s, nullable_here);
    pad(out, indent);
    out.push_str(key);
    if indent + key.len() + 2 + f.len() <= WIDTH {
        out.push_str(": ");
        out.push_str(&f);
        out.push('\n');
    } else {
        out.push_str(":\n");
        block(out, s, indent + 2, nullable_here);
    }
}

/// The shape's keys, one a line, at `indent`.
fn block(out: &mut String, s: &Shape, indent: usize, nullable_here: bool) {
    match &s.kind {
        Kind::OneOf(alts) => {
            pad(out, indent);
            out.push_str("one_of:\n");
            for alt in alts {
                pad(out, indent + 2);
                out.push_str("- ");
                let f = flow(alt, false);
                if indent + 4 + f.len() <= WIDTH {
                    out.push_str(&f);
                    out.push('\n');
                } else {
                    let mut inner = String::new();
                    block(&mut inner, alt, indent + 4, false);
                    out.push_str(&inner[indent + 4..]);
                }
            }
        }
        kind => {
            pad(out, indent);
            out.push_str("type: ");
            out.push_str(type_name(kind));
            out.push('\n');
        }
    }
    if nullable_here && s.nullable {
        pad(out, indent);
        out.push_str("nullable: true\n");
    }
    match &s.kind {
        Kind::Object(props) => {
            pad(out, indent);
            out.push_str("properties:\n");
            for (name, p) in props {
                entry(out, &key(name), p, indent + 2, false);
            }
        }
        Kind::Array(items) => entry(out, "items", items, indent, true),
        Kind::Map(Some(values)) => entry(out, "values", values, indent, true),
        _ => {}
    }
}
