//! Modes (docs/design.md §5): which view of each tool a session shows, and the deployment's narrowing.
//!
//! A session resolves its mode once, when it is built, to one precomputed [`View`] per tool;
//! nothing here derives a schema. Pinned and from-context fields leave the model's view by
//! splicing the view's schema text with its precomputed [`PropSpan`]s.

use std::fmt;

use crate::dialect::Dialect;
use crate::error::DeclarationError;
use crate::table::{DialectSchema, Field, PropSpan, ToolDef, View, ViewKey};

/// Checks a session mode label: `None` is the widest view; an empty label is refused rather than
/// read as `None` (a plan lookup that came back empty would otherwise be served every tier).
pub fn check_label(mode: Option<&str>) -> Result<(), DeclarationError> {
    match mode {
        Some(label) if label.trim().is_empty() => Err(DeclarationError::new(
            "the session mode is an empty label; pass no mode for the widest view, or name a surface (\"free\", \"pro\", ...)",
        )),
        _ => Ok(()),
    }
}

/// The view of `tool` under a session mode: no mode is [`ViewKey::Default`]; a label is its
/// [`ViewKey::Label`] view when a field of the tool carries it, otherwise [`ViewKey::Unmatched`]
/// (labelled fields fail closed).
pub fn resolve_view(
    tool: &'static ToolDef,
    mode: Option<&str>,
) -> Result<&'static View, DeclarationError> {
    let find = |key: ViewKey| tool.views.iter().find(|v| v.key == key);
    let view = match mode {
        None => find(ViewKey::Default),
        Some(label) => tool
            .views
            .iter()
            .find(|v| matches!(v.key, ViewKey::Label(l) if l == label))
            .or_else(|| find(ViewKey::Unmatched)),
    };
    view.ok_or_else(|| {
        let wanted = if mode.is_some() {
            "Unmatched"
        } else {
            "Default"
        };
        DeclarationError::new(format!(
            "tool `{}` has no {wanted} view; its table was not built by charter's compiler",
            tool.name
        ))
    })
}

/// Refuses a view under which a field the API requires is withheld: the request would go out
/// without it. The rule, over every shown object at every depth, is
/// `charter_schema::withheld::withheld_required` (the pack compiler and `#[charter::tool]`
/// apply the same rule at build time, so only a hand-built table can fail here). From-context
/// fields are exempt: the host fills them.
///
/// Runs for every tool at every session build, so it allocates nothing unless it fails.
pub fn check_view(tool: &ToolDef, view: &View) -> Result<(), DeclarationError> {
    let labels = charter_schema::Labels {
        active: view.active,
        widest: view.widest,
    };
    let Some(found) = charter_schema::withheld::withheld_required(tool.input, labels) else {
        return Ok(());
    };
    let reason = withheld_reason(found.field, view)
        .map(|r| r.to_string())
        .unwrap_or_default();
    Err(DeclarationError::new(format!(
        "tool `{}`: {} withholds the required field `{}` ({reason}); the request would go out without it. \
         Label it for this mode, make it optional, or fill it from context",
        tool.name,
        describe_view(view),
        found.dotted()
    )))
}

/// How a view reads in a message.
pub fn describe_view(view: &View) -> String {
    match view.key {
        ViewKey::Default => "the default view (no session mode)".to_owned(),
        ViewKey::Unmatched => "a session mode none of its fields carries".to_owned(),
        ViewKey::Label(label) => format!("session mode `{label}`"),
    }
}

/// Why a field is kept from the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withheld {
    /// Labelled `response_only`: it only ever comes back from the API.
    ResponseOnly,
    /// Labelled `disabled`.
    Disabled,
    /// None of its custom labels is in force under the session (and author) mode.
    Mode {
        /// The labels the field carries.
        labels: Vec<&'static str>,
    },
    /// The deployment fixed its value.
    Pinned,
    /// The host fills it per call from `CallContext::values[key]`.
    FromContext {
        /// The context key.
        key: String,
    },
}

impl Withheld {
    /// The short reason as the egress map spells it.
    pub fn kind(&self) -> &'static str {
        match self {
            Withheld::ResponseOnly => "response-only",
            Withheld::Disabled => "disabled",
            Withheld::Mode { .. } => "mode",
            Withheld::Pinned => "pinned",
            Withheld::FromContext { .. } => "from-context",
        }
    }
}

impl fmt::Display for Withheld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Withheld::Mode { labels } => write!(f, "mode: shown only under {}", labels.join(", ")),
            Withheld::FromContext { key } => {
                write!(f, "from-context: filled by the host from `{key}`")
            }
            other => f.write_str(other.kind()),
        }
    }
}

/// Why the table's declarations keep `field` from the model in `view`, if they do (deployment
/// pins and session from-context fields are the session's to add).
pub fn withheld_reason(field: &Field, view: &View) -> Option<Withheld> {
    if let Some(key) = field.from_context {
        return Some(Withheld::FromContext {
            key: key.to_owned(),
        });
    }
    if field.visible_in(view.active, view.widest) {
        return None;
    }
    if field.modes.contains(&charter_terms::modes::RESPONSE_ONLY) {
        return Some(Withheld::ResponseOnly);
    }
    if field.modes.contains(&charter_terms::modes::DISABLED) {
        return Some(Withheld::Disabled);
    }
    Some(Withheld::Mode {
        labels: field.modes.to_vec(),
    })
}

/// The view's schema text without the named top-level properties (and their `required`
/// entries), spliced from the view's precomputed spans. Refused when a name has no span or the
/// spans do not describe the text (a hand-built table out of step with its schema).
pub fn splice_schema(tool: &str, view: &View, remove: &[&str]) -> Result<String, DeclarationError> {
    splice_schema_in(tool, view, Dialect::Mcp, remove)
}

/// [`splice_schema`] on the view's text in `dialect` (each dialect's text has spans of its own,
/// recorded by the emitter as it wrote that text).
pub fn splice_schema_in(
    tool: &str,
    view: &View,
    dialect: Dialect,
    remove: &[&str],
) -> Result<String, DeclarationError> {
    let DialectSchema {
        schema: text,
        spans,
        ..
    } = view.in_dialect(dialect);
    if remove.is_empty() {
        return Ok(text.to_owned());
    }
    let bad = |what: &str| {
        DeclarationError::new(format!(
            "tool `{tool}`: the spans of {} do not match its schema text ({what})",
            describe_view(view)
        ))
    };
    for name in remove {
        if !spans.iter().any(|s| s.name == *name) {
            return Err(bad(&format!("no span for `{name}`")));
        }
    }
    let bytes = text.as_bytes();
    let in_range = |(s, e): (u32, u32)| (s as usize) < (e as usize) && (e as usize) <= bytes.len();
    // The core of an entry is its span without the one adjacent comma.
    let core = |(s, e): (u32, u32)| -> (usize, usize) {
        let (s, e) = (s as usize, e as usize);
        if bytes[s] == b',' {
            (s + 1, e)
        } else if bytes[e - 1] == b',' {
            (s, e - 1)
        } else {
            (s, e)
        }
    };
    const REQUIRED_OPEN: &str = ",\"required\":[";
    let mut props: Vec<(usize, usize, bool)> = Vec::with_capacity(spans.len());
    let mut required: Vec<(usize, usize, bool)> = Vec::new();
    for span in spans {
        let removed = remove.contains(&span.name);
        if !in_range(span.property) {
            return Err(bad("a property span is out of range"));
        }
        props.push((core(span.property).0, core(span.property).1, removed));
        if let Some(r) = span.required {
            if !in_range(r) {
                return Err(bad("a required span is out of range"));
            }
            let (s, e) = (r.0 as usize, r.1 as usize);
            let entry = if text[s..e].starts_with(REQUIRED_OPEN) && bytes[e - 1] == b']' {
                (s + REQUIRED_OPEN.len(), e - 1)
            } else {
                core(r)
            };
            required.push((entry.0, entry.1, removed));
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    splice_list(text, &mut props, &mut out, &mut at, None).map_err(&bad)?;
    splice_list(text, &mut required, &mut out, &mut at, Some(REQUIRED_OPEN)).map_err(&bad)?;
    out.push_str(&text[at..]);
    Ok(out)
}

/// Rewrites one comma-separated list (properties or required entries) keeping the entries not
/// removed. With `member`, a list left empty drops its whole `,"required":[...]` member.
fn splice_list(
    text: &str,
    entries: &mut [(usize, usize, bool)],
    out: &mut String,
    at: &mut usize,
    member: Option<&str>,
) -> Result<(), &'static str> {
    if entries.is_empty() {
        return Ok(());
    }
    entries.sort_unstable_by_key(|e| e.0);
    let (first, last) = (entries[0].0, entries[entries.len() - 1].1);
    if first < *at {
        return Err("spans overlap");
    }
    for pair in entries.windows(2) {
        if text.get(pair[0].1..pair[1].0) != Some(",") {
            return Err("entries are not separated by single commas");
        }
    }
    if !entries.iter().all(|e| text.as_bytes()[e.0] == b'"') {
        return Err("an entry does not start with its quoted name");
    }
    let kept: Vec<&(usize, usize, bool)> = entries.iter().filter(|e| !e.2).collect();
    match member {
        Some(open) if kept.is_empty() => {
            let start = first.checked_sub(open.len()).ok_or("no required member")?;
            if text.get(start..first) != Some(open) || text.as_bytes().get(last) != Some(&b']') {
                return Err("the required member is not where its spans say");
            }
            if start < *at {
                return Err("spans overlap");
            }
            out.push_str(&text[*at..start]);
            *at = last + 1;
        }
        _ => {
            out.push_str(&text[*at..first]);
            for (i, (s, e, _)) in kept.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&text[*s..*e]);
            }
            *at = last;
        }
    }
    Ok(())
}

/// The span of a top-level property, by name.
pub fn span_of<'v>(view: &'v View, name: &str) -> Option<&'v PropSpan> {
    view.spans.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::PropSpan;

    fn view(schema: &'static str, spans: &'static [PropSpan]) -> View {
        View {
            key: ViewKey::Default,
            schema,
            tokens: 0,
            active: &[],
            widest: true,
            paths: &[],
            spans,
            signature: "",
            signature_tokens: 0,
            dialects: None,
        }
    }

    const SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{}},"required":["a","c"],"additionalProperties":false}"#;

    fn spans() -> &'static [PropSpan] {
        let s = SCHEMA;
        let find = |pat: &str| s.find(pat).unwrap() as u32;
        let a = find("\"a\":{");
        let b = find("\"b\":{");
        let c = find("\"c\":{");
        let end_c = c + "\"c\":{}".len() as u32;
        let ra = find("[\"a\"") + 1;
        Box::leak(Box::new([
            PropSpan {
                name: "a",
                property: (a, b),
                required: Some((ra, ra + 4)),
            },
            PropSpan {
                name: "b",
                property: (b, c),
                required: None,
            },
            PropSpan {
                name: "c",
                property: (c - 1, end_c),
                required: Some((ra + 3, ra + 7)),
            },
        ]))
    }

    #[test]
    fn splices_any_subset_into_valid_json() {
        let v = view(SCHEMA, spans());
        let names = ["a", "b", "c"];
        for mask in 0u32..8 {
            let remove: Vec<&str> = names
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, n)| *n)
                .collect();
            let text = splice_schema("t", &v, &remove).unwrap();
            let parsed: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let props = parsed["properties"].as_object().unwrap();
            for n in names {
                assert_eq!(props.contains_key(n), !remove.contains(&n), "{text}");
            }
            let required: Vec<&str> = parsed
                .get("required")
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap())
                        .collect()
                })
                .unwrap_or_default();
            let want: Vec<&str> = ["a", "c"]
                .into_iter()
                .filter(|n| !remove.contains(n))
                .collect();
            assert_eq!(required, want, "{text}");
        }
    }

    #[test]
    fn refuses_spans_out_of_step() {
        let spans: &'static [PropSpan] = Box::leak(Box::new([PropSpan {
            name: "a",
            property: (3, 9),
            required: None,
        }]));
        let v = view(SCHEMA, spans);
        assert!(
            splice_schema("t", &v, &["a"])
                .unwrap_err()
                .message
                .contains("do not match")
        );
        assert!(
            splice_schema("t", &v, &["zz"])
                .unwrap_err()
                .message
                .contains("no span")
        );
    }

    #[test]
    fn empty_label_refused() {
        assert!(check_label(Some("")).is_err());
        assert!(check_label(Some("  ")).is_err());
        assert!(check_label(Some("pro")).is_ok());
        assert!(check_label(None).is_ok());
    }
}
