//! Run-time helpers of the generated handler: they deserialise already validated arguments,
//! never a schema.

use std::fmt::Display;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::CallContext;
use crate::error::{CharterError, DeclarationError};
use crate::table::ToolOutput;
use crate::validate::json_kind;

// ---------------------------------------------------------------------------------------------
// Run-time helpers of the generated handler.

/// The arguments of one call, taken apart parameter by parameter. Errors are collected so the
/// model reads all of them in one message, each with its field path.
#[doc(hidden)]
#[derive(Debug)]
pub struct Args {
    map: Map<String, Value>,
    errors: Vec<String>,
    missing_context: Vec<String>,
}

impl Args {
    /// The arguments object (`null` counts as no arguments).
    pub fn new(arguments: Value) -> Result<Self, CharterError> {
        let map = match arguments {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(CharterError::validation(format!(
                    "invalid arguments: expected an object, got {}",
                    json_kind(&other)
                )));
            }
        };
        Ok(Self {
            map,
            errors: Vec::new(),
            missing_context: Vec::new(),
        })
    }

    fn decode<T: DeserializeOwned>(&mut self, name: &str, value: Value) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let path = e.path().to_string();
                let at = match path.as_str() {
                    "." => name.to_owned(),
                    p if p.starts_with('[') => format!("{name}{p}"),
                    p => format!("{name}.{p}"),
                };
                self.errors.push(format!("`{at}`: {}", e.into_inner()));
                None
            }
        }
    }

    /// A required parameter; `None` when it is missing or malformed (the error is recorded).
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            Some(value) => self.decode(name, value),
            None => {
                self.errors
                    .push(format!("`{name}`: missing required argument"));
                None
            }
        }
    }

    /// An optional parameter: `Some(None)` when absent or `null`.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => self.decode(name, value).map(Some),
        }
    }

    /// A parameter with a default: `T::default()` when absent.
    pub fn or_default<T: DeserializeOwned + Default>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            None => Some(T::default()),
            Some(value) => self.decode(name, value),
        }
    }

    /// A from-context parameter: `CallContext::values[key]` (or the value a session merged
    /// under the parameter's name). `Some(None)` when absent and `optional`.
    pub fn context<T: DeserializeOwned>(
        &mut self,
        ctx: &CallContext,
        name: &str,
        key: &str,
        optional: bool,
    ) -> Option<Option<T>> {
        let merged = self.map.remove(name);
        match ctx.values.get(key).cloned().or(merged) {
            Some(Value::Null) | None if optional => Some(None),
            Some(value) => match serde_path_to_error::deserialize::<_, T>(value) {
                Ok(v) => Some(Some(v)),
                Err(e) => {
                    self.missing_context.push(format!(
                        "context value `{key}` for `{name}` is malformed: {}",
                        e.into_inner()
                    ));
                    None
                }
            },
            None => {
                self.missing_context
                    .push(format!("context value `{key}` for `{name}` is missing"));
                None
            }
        }
    }

    /// Ends the parse: an error for the host if a context value is missing, otherwise one
    /// validation error listing every problem, extra keys included.
    pub fn finish(mut self) -> Result<(), CharterError> {
        if !self.missing_context.is_empty() {
            return Err(DeclarationError::new(self.missing_context.join("; ")).into());
        }
        for key in self.map.keys() {
            self.errors.push(format!("`{key}`: unexpected argument"));
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(CharterError::validation(format!(
                "invalid arguments: {}",
                self.errors.join("; ")
            )))
        }
    }
}

/// A tool's return value as its answer: a JSON string becomes plain text, anything else JSON.
#[doc(hidden)]
pub fn output<T: Serialize>(value: T) -> Result<ToolOutput, CharterError> {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => Ok(ToolOutput::text(text)),
        Ok(value) => Ok(ToolOutput::json(value)),
        Err(e) => Err(CharterError::Tool(format!(
            "the tool's result could not be serialised: {e}"
        ))),
    }
}

/// A tool's own error, displayed to the model.
#[doc(hidden)]
pub fn tool_error<E: Display>(error: E) -> CharterError {
    CharterError::Tool(error.to_string())
}
