//! A YAML document as a tree whose every key and value keeps its `line:col`.
//!
//! serde-saphyr parses; [`serde_saphyr::Spanned`] gives each node its location. Duplicate keys
//! are passed through (not rejected by the parser) so the pack checks can report every one of
//! them with its position instead of stopping at the first.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, Loc};

/// One YAML node and where it is defined.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it is (for an alias, where the anchored value is defined).
    pub loc: Loc,
}

/// A YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A whole number.
    Int(i128),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A string (plain or quoted).
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, duplicates kept.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

impl Node {
    /// The node as JSON (mapping keys become strings).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => {
                if let Ok(v) = i64::try_from(*i) {
                    J::from(v)
                } else if let Ok(v) = u64::try_from(*i) {
                    J::from(v)
                } else {
                    J::from(*i as f64)
                }
            }
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                let mut map = serde_json::Map::new();
                for (k, v) in entries {
                    map.insert(k.scalar_text().unwrap_or_default(), v.to_json());
                }
                J::Object(map)
            }
        }
    }

    /// The text of a scalar (what a mapping key spells), `None` for lists and mappings.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::Null => Some(String::new()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Str(s) => Some(s.clone()),
            Value::Seq(_) | Value::Map(_) => None,
        }
    }
}

struct Raw(Value);

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw(Value::Int(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw(Value::Int(v.into())))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Raw, E> {
        Ok(Raw(Value::Int(v)))
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Raw, E> {
        i128::try_from(v)
            .map(|v| Raw(Value::Int(v)))
            .map_err(|_| E::custom("integer too large"))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw(Value::Float(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw(Value::Str(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Raw, E> {
        Ok(Raw(Value::Str(v)))
    }
    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Raw>>()? {
            items.push(node(item));
        }
        Ok(Raw(Value::Seq(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Raw>>()? {
            let value = map.next_value::<Spanned<Raw>>()?;
            entries.push((node(key), node(value)));
        }
        Ok(Raw(Value::Map(entries)))
    }
}

fn loc(l: &serde_saphyr::Location) -> Loc {
    Loc::new(
        l.line().try_into().unwrap_or(u32::MAX),
        l.column().try_into().unwrap_or(u32::MAX),
    )
}

fn node(s: Spanned<Raw>) -> Node {
    // `defined` equals `referenced` for plain values; for an alias it is the anchored value,
    // which is where a mistake in it has to be fixed.
    let at = if s.defined.line() > 0 {
        &s.defined
    } else {
        &s.referenced
    };
    Node {
        value: s.value.0,
        loc: loc(at),
    }
}

/// The stack the parser runs on. It recurses once per nesting level, bounded by its depth budget
/// (64 levels, 128 for flow collections), but with frames of tens of kilobytes in a debug build:
/// at the limit that is more than a spawned thread's default 2 MiB, so a hostile pack could
/// overflow whichever thread called the compiler. Only the pages used are ever touched.
const PARSE_STACK: usize = 16 * 1024 * 1024;

/// Parses one YAML document into a located tree. A syntax error is one diagnostic.
///
/// Runs on a thread of its own with `PARSE_STACK` bytes of stack (on the caller's thread
/// when one cannot be spawned).
pub fn parse(file: &str, source: &str) -> Result<Node, Diagnostic> {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("charter-yaml".into())
            .stack_size(PARSE_STACK)
            .spawn_scoped(scope, || parse_here(file, source))
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => parse_here(file, source),
        }
    })
}

fn parse_here(file: &str, source: &str) -> Result<Node, Diagnostic> {
    let mut options = serde_saphyr::Options::default();
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::PassThrough;
    options.with_snippet = false;
    // YAML 1.2: `yes`/`no`/`on`/`off` are strings, so `required: yes` is reported, not guessed.
    options.strict_booleans = true;
    match serde_saphyr::from_str_with_options::<Spanned<Raw>>(source, options) {
        Ok(root) => Ok(node(root)),
        Err(e) => {
            let at = e.location().map_or(Loc::new(1, 1), |l| loc(&l));
            let text = e.to_string();
            // The parser appends its own "at line L, column C"; the diagnostic already says where.
            let message = match text.rfind(" at line ") {
                Some(i) => text[..i].to_owned(),
                None => text,
            };
            Err(Diagnostic::new(
                file,
                at,
                format!("invalid YAML: {message}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_locations_and_duplicates() {
        let root = parse("t.yaml", "a: 1\nb:\n  c: \"2\"\n  c: [x, 2.5, ~]\n").unwrap();
        let Value::Map(entries) = &root.value else {
            panic!("not a map")
        };
        assert_eq!(entries[0].0.loc, Loc::new(1, 1));
        assert_eq!(entries[0].1.value, Value::Int(1));
        assert_eq!(entries[0].1.loc, Loc::new(1, 4));
        let Value::Map(inner) = &entries[1].1.value else {
            panic!("not a map")
        };
        assert_eq!(
            inner.len(),
            2,
            "duplicates are kept for the checks to report"
        );
        assert_eq!(inner[1].0.loc, Loc::new(4, 3));
        assert_eq!(inner[0].1.value, Value::Str("2".into()));
        let Value::Seq(items) = &inner[1].1.value else {
            panic!("not a seq")
        };
        assert_eq!(items[1].value, Value::Float(2.5));
        assert_eq!(items[2].value, Value::Null);
        assert_eq!(items[2].loc, Loc::new(4, 15));
    }

    #[test]
    fn syntax_error_has_a_location() {
        let err = parse("t.yaml", "a:\n  b: 1\n c: 2\n").unwrap_err();
        assert_eq!(err.loc, Loc::new(3, 2));
        assert!(err.message.starts_with("invalid YAML: "), "{err}");
        assert!(!err.message.contains("at line"), "{err}");
    }
}
