//! The provider dialects a view's schema is given in (docs/dialects.md), and the one way back:
//! arguments a model wrote in a dialect's shape (`null` for an absent optional property, a
//! list of `{key, value}` entries for a map, JSON text for a value of any type) turned into
//! the portable form's before validation, so every dialect sends the same request.
//!
//! The texts themselves are constants of the tables ([`View::schema_in`]), written at build
//! time by `charter_schema::emit`; this module only names the dialects and undoes their
//! shapes.

use std::fmt;
use std::str::FromStr;

use charter_schema::{ObjectShape, Shape};
use serde_json::{Map, Value};

use crate::table::{DialectSchema, ToolDef, View};

/// A view's schema in each dialect: the constants the tables hold (`View::dialects`).
impl View {
    /// The text, size and spans of this view in `dialect` (docs/dialects.md).
    pub fn in_dialect(&self, dialect: Dialect) -> DialectSchema {
        let portable = DialectSchema {
            schema: self.schema,
            tokens: self.tokens,
            spans: self.spans,
        };
        match (dialect, self.dialects) {
            (Dialect::OpenAiStrict, Some(d)) => d.openai_strict,
            (Dialect::Gemini, Some(d)) => d.gemini,
            (Dialect::AnthropicStrict, Some(d)) => d.anthropic_strict.unwrap_or(portable),
            _ => portable,
        }
    }

    /// The view in Anthropic's strict dialect, `None` when it cannot go strict (it reaches a
    /// recursive type, or was written by hand): such a view is sent as the portable form,
    /// without `strict` (docs/dialects.md, `recursive-not-strict`).
    pub fn anthropic_strict(&self) -> Option<DialectSchema> {
        self.dialects.and_then(|d| d.anthropic_strict)
    }

    /// The parameter schema text in `dialect`, exactly as that adapter sends it.
    pub fn schema_in(&self, dialect: Dialect) -> &'static str {
        self.in_dialect(dialect).schema
    }

    /// `json_tokens` of [`View::schema_in`].
    pub fn tokens_in(&self, dialect: Dialect) -> u32 {
        self.in_dialect(dialect).tokens
    }
}

/// A model API's dialect of JSON Schema for tool parameters (docs/dialects.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// The portable form MCP serves (docs/design.md §3): accepted by every client and API.
    Mcp,
    /// OpenAI's function tools without `strict`: the portable form.
    OpenAi,
    /// OpenAI's strict mode (`strict: true`): every object closed, every property required
    /// (`null` for absent), maps as lists of `{key, value}`, values of any type as JSON text.
    OpenAiStrict,
    /// Anthropic's Messages API `input_schema`: the portable form (its rules are the portable
    /// form's root rules).
    Anthropic,
    /// Gemini's function declarations (`parameters`, the OpenAPI 3.0 subset): `nullable`,
    /// string enums, `anyOf` only, `ref`/`defs`, maps as lists of `{key, value}`.
    Gemini,
    /// Anthropic's strict tool use (`strict: true`): every object closed, maps as lists of
    /// `{key, value}`, values of any type as JSON text, what the grammar cannot enforce told in
    /// descriptions. A view that cannot go strict is given in the portable form
    /// ([`View::anthropic_strict`], [`Dialect::for_view`]).
    AnthropicStrict,
}

/// A dialect name that is none of [`Dialect::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown dialect `{0}` (one of: mcp, openai, openai-strict, anthropic, anthropic-strict, gemini)"
)]
pub struct UnknownDialect(pub String);

impl Dialect {
    /// Every dialect, in the order `charter tools --dialect` documents them.
    pub const ALL: [Dialect; 6] = [
        Dialect::Mcp,
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ];

    /// The name (`mcp`, `openai`, `openai-strict`, `anthropic`, `anthropic-strict`, `gemini`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Mcp => "mcp",
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicStrict => "anthropic-strict",
            Dialect::Gemini => "gemini",
        }
    }

    /// The dialect `view` is given in when this one is asked for: itself, except that a view
    /// which cannot go strict in Anthropic's dialect is given (and its arguments read) in the
    /// portable `anthropic` form. Decided by the tables' constants ([`View::anthropic_strict`]).
    pub fn for_view(self, view: &View) -> Dialect {
        match self {
            Dialect::AnthropicStrict if view.anthropic_strict().is_none() => Dialect::Anthropic,
            d => d,
        }
    }

    /// Whether the dialect's text is the portable form's (no arguments to turn back).
    pub const fn is_portable(self) -> bool {
        matches!(self, Dialect::Mcp | Dialect::OpenAi | Dialect::Anthropic)
    }

    /// Arguments written against this dialect's schema of `view`, in the portable form's shape
    /// (what validation and the request builder read): under OpenAI's strict mode a `null` for
    /// a property the tool does not require means absent and is dropped; in both strict
    /// dialects and Gemini a map given as a list of `{"key": .., "value": ..}` entries becomes
    /// an object, and a value of any type given as JSON text is parsed. Anything else is left
    /// as it is (validation then judges it), so arguments already in the portable shape pass
    /// unchanged, and the portable dialects (and a view given in the portable form,
    /// [`Dialect::for_view`]) return `args` untouched.
    pub fn restore_args(self, tool: &ToolDef, view: &View, args: Value) -> Value {
        if self.for_view(view).is_portable() {
            return args;
        }
        let mut args = args;
        let walk = Walk {
            dialect: self,
            active: view.active,
            widest: view.widest,
        };
        if let Value::Object(obj) = &mut args {
            walk.object(tool.input, obj);
        }
        args
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// One restoration: the dialect and the labels of the view in force.
struct Walk {
    dialect: Dialect,
    active: &'static [&'static str],
    widest: bool,
}

impl Walk {
    fn object(&self, o: &ObjectShape, obj: &mut Map<String, Value>) {
        for f in o.fields {
            if !f.visible_in(self.active, self.widest) {
                continue;
            }
            let Some(v) = obj.get_mut(f.name) else {
                continue;
            };
            if v.is_null() && !f.required && self.dialect == Dialect::OpenAiStrict {
                obj.remove(f.name);
                continue;
            }
            self.value(f.shape, v);
        }
    }

    fn value(&self, shape: &Shape, v: &mut Value) {
        match shape.bare() {
            Shape::Nullable(s) if !v.is_null() => self.value(s, v),
            Shape::Any => {
                if let Value::String(text) = v
                    && let Ok(parsed) = serde_json::from_str::<Value>(text)
                {
                    *v = parsed;
                }
            }
            Shape::Map(values) => {
                if let Some(map) = entries(v) {
                    *v = Value::Object(map);
                }
                if let Value::Object(map) = v {
                    for item in map.values_mut() {
                        self.value(values, item);
                    }
                }
            }
            Shape::Object(o) => {
                if let Value::Object(obj) = v {
                    self.object(o, obj);
                }
            }
            Shape::Array(r) => {
                if let Value::Array(items) = v {
                    for item in items {
                        self.value(r.items, item);
                    }
                }
            }
            Shape::OneOf(alts) | Shape::AnyOf(alts) => {
                if let Some(alt) = alts.iter().find(|a| fits(a, v)) {
                    self.value(alt, v);
                }
            }
            _ => {}
        }
    }
}

/// A list of `{"key": "...", "value": ...}` entries as an object (`None`: not such a list).
fn entries(v: &Value) -> Option<Map<String, Value>> {
    let Value::Array(items) = v else { return None };
    let mut map = Map::new();
    for item in items {
        let Value::Object(entry) = item else {
            return None;
        };
        let (Some(Value::String(key)), Some(value), 2) =
            (entry.get("key"), entry.get("value"), entry.len())
        else {
            return None;
        };
        map.insert(key.clone(), value.clone());
    }
    Some(map)
}

/// Whether `v` could be an instance of alternative `shape` in a dialect's shape (the JSON kind,
/// and for objects that every key is a declared field): which alternative to restore through.
fn fits(shape: &Shape, v: &Value) -> bool {
    match (shape.bare(), v) {
        (Shape::Nullable(s), _) => v.is_null() || fits(s, v),
        (Shape::Any, _) => true,
        (Shape::Bool, Value::Bool(_)) => true,
        (Shape::Integer(_) | Shape::Number(_), Value::Number(_)) => true,
        (Shape::String(_), Value::String(_)) => true,
        (Shape::Array(_), Value::Array(_)) => true,
        (Shape::Map(_), Value::Array(_) | Value::Object(_)) => true,
        (Shape::Object(o), Value::Object(obj)) => obj
            .keys()
            .all(|k| o.fields.iter().any(|f| f.name == k.as_str())),
        (Shape::OneOf(alts) | Shape::AnyOf(alts), _) => alts.iter().any(|a| fits(a, v)),
        _ => false,
    }
}
