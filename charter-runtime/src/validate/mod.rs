//! Argument validation (docs/design.md §6): the model's arguments against the [`Shape`] tree of the view in
//! force.
//!
//! Types, required fields, enums, numeric bounds, string lengths (in characters), patterns,
//! formats, array bounds, map values, nullables, `one_of`, and no extra keys at any depth: a field
//! the view withholds is refused like an unknown one. Every problem is collected and reported in
//! one message written for the model (JSON-pointer path, what was expected, what was given), so
//! it can correct everything in one retry. A nested object or array sent as a JSON string is
//! parsed and accepted when the field is an object, map or array.
//!
//! The same walk merges what the host owns: from-context fields (declared in the table or by the
//! session) and deployment pins, after refusing them from the model.

mod alternatives;
mod formats;
mod groups;
mod numbers;
mod spread;
mod text;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};

use alternatives::first_repeat;
use formats::format_expected;
pub use formats::format_ok;
pub use groups::{unmet_exactly_one, unmet_groups};
use numbers::{INTEGER_RANGE, exact_integer, is_whole};
use spread::spread_collisions;
pub use text::{clip, describe, got, json_kind};
use text::{escape, got_items, plural};

use crate::context::CallContext;
use crate::error::{CharterError, DeclarationError};
use crate::table::{Field, NumberRules, ObjectShape, Shape, StringRules, ToolDef, View};

/// How deep arguments may nest before validation stops with an error instead of recursing on.
pub const MAX_DEPTH: usize = 64;

/// The largest arguments a call may carry, measured as their compact JSON text (1 MiB). Larger
/// ones are refused before validation, search or execution read them, so a model or a client
/// cannot make one call cost unbounded time or memory.
pub const MAX_ARGUMENT_BYTES: usize = 1024 * 1024;

/// How deep arguments may nest at all, free-form (`any`) values included (128, serde_json's own
/// parsing limit). Checked first, without recursing past it, so no later walk (validation,
/// deduplication, request encoding) meets a deeper value, whoever built it.
pub const MAX_ARGUMENT_DEPTH: usize = 128;

/// The most values one validation may visit or copy (2,000,000), counting every `one_of`
/// alternative tried and the copy each trial works on. Plain arguments visit each value once and stay far below it; a recursive `one_of`
/// whose alternatives share a field would otherwise cost time exponential in the depth the
/// model chooses. Past it the call is refused as too complex.
pub const MAX_VALIDATION_STEPS: usize = 2_000_000;

/// Refuses arguments over [`MAX_ARGUMENT_DEPTH`] levels or [`MAX_ARGUMENT_BYTES`] bytes, with a
/// message written for the model. Reads at most the limit's worth of the value.
pub fn check_limits(arguments: &Value) -> Result<(), String> {
    if too_deep(arguments, 0) {
        return Err(too_deep_problem());
    }
    struct Budget(usize);
    impl std::io::Write for Budget {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self
                .0
                .checked_sub(buf.len())
                .ok_or(std::io::ErrorKind::FileTooLarge)?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    match serde_json::to_writer(Budget(MAX_ARGUMENT_BYTES), arguments) {
        Ok(()) => Ok(()),
        Err(_) => Err(too_large_problem()),
    }
}

/// What [`check_limits`] says of arguments over [`MAX_ARGUMENT_DEPTH`] levels.
pub fn too_deep_problem() -> String {
    format!("the arguments nest more than {MAX_ARGUMENT_DEPTH} levels deep; send flatter arguments")
}

/// What [`check_limits`] says of arguments over [`MAX_ARGUMENT_BYTES`] bytes.
pub fn too_large_problem() -> String {
    format!(
        "the arguments are larger than {MAX_ARGUMENT_BYTES} bytes of JSON; send less (a smaller page, fewer items, a shorter text)"
    )
}

/// Whether `value` nests deeper than [`MAX_ARGUMENT_DEPTH`]; recursion stops at the limit.
fn too_deep(value: &Value, depth: usize) -> bool {
    match value {
        Value::Array(_) | Value::Object(_) if depth >= MAX_ARGUMENT_DEPTH => true,
        Value::Array(items) => items.iter().any(|v| too_deep(v, depth + 1)),
        Value::Object(map) => map.values().any(|v| too_deep(v, depth + 1)),
        _ => false,
    }
}

/// Compiled `pattern`s, compiled once each: patterns are static table text, so the cache only
/// grows to the number of distinct patterns the session's tools declare.
#[derive(Default)]
pub struct PatternCache {
    compiled: RwLock<HashMap<&'static str, Result<Arc<regex_lite::Regex>, String>>>,
}

impl std::fmt::Debug for PatternCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PatternCache")
    }
}

impl PatternCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The compiled pattern, or why it does not compile.
    pub fn get(&self, pattern: &'static str) -> Result<Arc<regex_lite::Regex>, String> {
        if let Some(found) = self
            .compiled
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(pattern)
        {
            return found.clone();
        }
        let compiled = regex_lite::Regex::new(pattern)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        self.compiled
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(pattern, compiled.clone());
        compiled
    }
}

/// How the session took a top-level field out of the model's hands.
#[derive(Debug, Clone, Copy)]
pub enum Narrowed<'a> {
    /// Fixed to this value on every call.
    Pinned(&'a Value),
    /// Filled from `CallContext::values[key]` on every call.
    Context(&'a str),
}

/// One problem with the model's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// JSON-pointer path of the value (`/labels/0`); empty for the arguments themselves.
    pub path: String,
    /// What was expected there.
    pub expected: String,
    /// What the model gave.
    pub got: String,
}

/// Adds an issue for every key of `map` outside `allowed`, at `path` (`why` says what the
/// object takes).
pub fn unexpected_keys(
    map: &serde_json::Map<String, Value>,
    allowed: &[&str],
    path: &str,
    why: &str,
    issues: &mut Vec<Issue>,
) {
    for (key, value) in map {
        if !allowed.contains(&key.as_str()) {
            issues.push(Issue {
                path: format!("{path}/{key}"),
                expected: format!("no `{key}`: {why}"),
                got: got(value),
            });
        }
    }
}

/// Renders issues as one message for the model.
pub fn message(tool: &str, issues: &[Issue]) -> String {
    let n = issues.len();
    let mut out = format!(
        "Invalid arguments for `{tool}` ({n} problem{}); fix {} and call again:",
        if n == 1 { "" } else { "s" },
        if n == 1 { "it" } else { "them all" }
    );
    for issue in issues {
        let path = if issue.path.is_empty() {
            "(arguments)"
        } else {
            &issue.path
        };
        let _ = write!(
            out,
            "\n- {path}: expected {}, got {}",
            issue.expected, issue.got
        );
    }
    out
}

/// A one-problem message for the model, in the same form as [`message`].
pub fn message_line(tool: &str, problem: &str) -> String {
    format!(
        "Invalid arguments for `{tool}` (1 problem); fix it and call again:\n- (arguments): {problem}"
    )
}

/// Validates a call of a static tool against `view` and returns the arguments to execute:
/// coerced (JSON strings parsed where an object or array is expected), with from-context values
/// and pins merged in.
///
/// A validation error (for the model) lists every problem; a missing context value or a pattern
/// that does not compile is a declaration error (for the developer).
pub fn prepare_arguments(
    tool: &ToolDef,
    view: &View,
    narrowed: &[(&str, Narrowed<'_>)],
    arguments: Value,
    ctx: &CallContext,
    patterns: &PatternCache,
) -> Result<Value, CharterError> {
    check_limits(&arguments).map_err(|e| CharterError::Validation(message_line(tool.name, &e)))?;
    let steps = std::cell::Cell::new(0);
    let mut walk = Walk::new(view, patterns, Some(ctx), &steps);
    // Some models send the arguments object as JSON text.
    let mut arguments = match arguments {
        Value::Null => Value::Object(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => Value::String(text),
        },
        other => other,
    };
    match &mut arguments {
        Value::Object(map) => walk.object(tool.input, map, 0, narrowed),
        other => walk.issue("an object of named arguments".into(), got(other)),
    }
    if let Value::Object(map) = &arguments {
        let given = |name: &str| map.contains_key(name) || narrowed.iter().any(|(n, _)| *n == name);
        if let Some(issue) = unmet_groups(tool.require_one_of, given) {
            walk.issues.push(issue);
        }
        if let Some(issue) = unmet_exactly_one(tool.require_exactly_one_of, given) {
            walk.issues.push(issue);
        }
        walk.issues
            .extend(spread_collisions(tool.input.fields, map));
    }
    walk.finish(tool.name)?;
    let Value::Object(map) = &mut arguments else {
        unreachable!("checked above")
    };
    let mut missing = Vec::new();
    for (name, how) in narrowed {
        match how {
            Narrowed::Pinned(value) => {
                map.insert((*name).to_owned(), (*value).clone());
            }
            Narrowed::Context(key) => match ctx.values.get(*key) {
                Some(value) => {
                    map.insert((*name).to_owned(), value.clone());
                }
                None => missing.push(format!("`{key}` (for `/{name}`)")),
            },
        }
    }
    if !missing.is_empty() {
        return Err(missing_context(tool.name, &missing));
    }
    Ok(arguments)
}

/// Validates one value against one field as `view` shows it (used to check a pin). Returns the
/// value as it will be sent, or the problems as one line for the developer.
pub fn validate_field_value(
    tool: &str,
    field: &Field,
    view: &View,
    value: Value,
    patterns: &PatternCache,
) -> Result<Value, String> {
    let steps = std::cell::Cell::new(0);
    let mut walk = Walk::new(view, patterns, None, &steps);
    walk.path.push('/');
    walk.path.push_str(&escape(field.name));
    let mut value = value;
    walk.value(field.shape, &mut value, 1);
    if steps.get() > MAX_VALIDATION_STEPS {
        return Err(too_complex());
    }
    if !walk.bad_patterns.is_empty() {
        return Err(format!(
            "tool `{tool}` declares a pattern that does not compile: {}",
            walk.bad_patterns.join("; ")
        ));
    }
    if walk.issues.is_empty() {
        return Ok(value);
    }
    let problems: Vec<String> = walk
        .issues
        .iter()
        .map(|i| format!("{}: expected {}, got {}", i.path, i.expected, i.got))
        .collect();
    Err(problems.join("; "))
}

fn missing_context(tool: &str, missing: &[String]) -> CharterError {
    CharterError::Declaration(DeclarationError::new(format!(
        "tool `{tool}` fills fields from the host's CallContext, but the call's context has no value for {}; \
         set it with CallContext::with_value",
        missing.join(", ")
    )))
}

struct Walk<'a> {
    /// Values visited so far by this validation, trial walks of `one_of` included.
    steps: &'a std::cell::Cell<usize>,
    active: &'a [&'a str],
    widest: bool,
    patterns: &'a PatternCache,
    ctx: Option<&'a CallContext>,
    path: String,
    issues: Vec<Issue>,
    missing_context: Vec<String>,
    bad_patterns: Vec<String>,
}

impl<'a> Walk<'a> {
    fn new(
        view: &'a View,
        patterns: &'a PatternCache,
        ctx: Option<&'a CallContext>,
        steps: &'a std::cell::Cell<usize>,
    ) -> Self {
        Walk {
            steps,
            active: view.active,
            widest: view.widest,
            patterns,
            ctx,
            path: String::new(),
            issues: Vec::new(),
            missing_context: Vec::new(),
            bad_patterns: Vec::new(),
        }
    }

    fn finish(self, tool: &str) -> Result<(), CharterError> {
        if self.steps.get() > MAX_VALIDATION_STEPS {
            return Err(CharterError::Validation(message_line(tool, &too_complex())));
        }
        if !self.bad_patterns.is_empty() {
            return Err(CharterError::Declaration(DeclarationError::new(format!(
                "tool `{tool}` declares a pattern that does not compile: {}",
                self.bad_patterns.join("; ")
            ))));
        }
        if !self.issues.is_empty() {
            return Err(CharterError::Validation(message(tool, &self.issues)));
        }
        if !self.missing_context.is_empty() {
            return Err(missing_context(tool, &self.missing_context));
        }
        Ok(())
    }

    fn issue(&mut self, expected: String, got: String) {
        self.issues.push(Issue {
            path: self.path.clone(),
            expected,
            got,
        });
    }

    fn visible(&self, field: &Field) -> bool {
        field.visible_in(self.active, self.widest)
    }

    fn object(
        &mut self,
        shape: &ObjectShape,
        map: &mut Map<String, Value>,
        depth: usize,
        narrowed: &[(&str, Narrowed<'_>)],
    ) {
        // Keys the model may not send: unknown, withheld, host-owned.
        for (key, value) in map.iter() {
            let field = shape.fields.iter().find(|f| f.name == key);
            let refusal = match (narrowed.iter().find(|(n, _)| n == key), field) {
                (Some((_, Narrowed::Pinned(_))), _) => Some(format!(
                    "no `{key}`: the deployment fixes it, so leave it out"
                )),
                (Some((_, Narrowed::Context(_))), _) => {
                    Some(format!("no `{key}`: the host fills it, so leave it out"))
                }
                (None, Some(f)) if f.from_context.is_some() => {
                    Some(format!("no `{key}`: the host fills it, so leave it out"))
                }
                (None, Some(f)) if self.visible(f) => None,
                _ => Some(self.unexpected(shape, key, narrowed)),
            };
            if let Some(expected) = refusal {
                let len = self.path.len();
                self.path.push('/');
                self.path.push_str(&escape(key));
                self.issue(expected, got(value));
                self.path.truncate(len);
            }
        }
        for field in shape.fields {
            if narrowed.iter().any(|(n, _)| *n == field.name) {
                continue;
            }
            if let Some(key) = field.from_context {
                if !map.contains_key(field.name) {
                    self.fill_from_context(field, key, map);
                }
                continue;
            }
            if !self.visible(field) {
                continue;
            }
            let len = self.path.len();
            self.path.push('/');
            self.path.push_str(&escape(field.name));
            match map.get_mut(field.name) {
                Some(value) => self.value(field.shape, value, depth + 1),
                None if field.required => self.issue(
                    format!("{} (required)", describe(field.shape)),
                    "nothing".into(),
                ),
                None => {}
            }
            self.path.truncate(len);
        }
        // Groups of a nested object, at its path (the tool's own are checked by the caller).
        let given = |name: &str| map.contains_key(name);
        let unmet = [
            unmet_groups(shape.require_one_of, given),
            unmet_exactly_one(shape.require_exactly_one_of, given),
        ];
        for issue in unmet.into_iter().flatten() {
            self.issue(issue.expected, issue.got);
        }
    }

    fn unexpected(
        &self,
        shape: &ObjectShape,
        key: &str,
        narrowed: &[(&str, Narrowed<'_>)],
    ) -> String {
        let names: Vec<&str> = shape
            .fields
            .iter()
            .filter(|f| self.visible(f) && !narrowed.iter().any(|(n, _)| *n == f.name))
            .map(|f| f.name)
            .collect();
        if names.is_empty() {
            format!("no `{key}`: this object takes no fields")
        } else {
            format!(
                "no `{key}`: unknown field; this object takes only {}",
                names.join(", ")
            )
        }
    }

    fn fill_from_context(&mut self, field: &Field, key: &str, map: &mut Map<String, Value>) {
        let Some(ctx) = self.ctx else { return };
        match ctx.values.get(key) {
            Some(value) => {
                map.insert(field.name.to_owned(), value.clone());
            }
            None if field.required => {
                let path = format!("{}/{}", self.path, escape(field.name));
                self.missing_context.push(format!("`{key}` (for `{path}`)"));
            }
            None => {}
        }
    }

    fn value(&mut self, shape: &Shape, value: &mut Value, depth: usize) {
        self.typed(shape, value, depth, false)
    }

    /// Checks one value; `nullable` says a `null` was also allowed here (for the message).
    fn typed(&mut self, shape: &Shape, value: &mut Value, depth: usize, nullable: bool) {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > MAX_VALIDATION_STEPS {
            return;
        }
        if depth > MAX_DEPTH {
            self.issue(
                format!("at most {MAX_DEPTH} levels of nesting"),
                "deeper nesting".into(),
            );
            return;
        }
        let expected = |shape: &Shape| {
            let text = describe(shape);
            if nullable {
                format!("{text} or null")
            } else {
                text
            }
        };
        match shape {
            Shape::Any => {}
            Shape::Bool => {
                if !value.is_boolean() {
                    self.issue(expected(shape), got(value));
                }
            }
            Shape::Integer(rules) => match value.as_f64() {
                Some(n) if is_whole(value) => match exact_integer(value) {
                    Some(exact) => {
                        *value = exact;
                        self.number(rules, n, value)
                    }
                    None => self.issue(INTEGER_RANGE.into(), got(value)),
                },
                _ => self.issue(expected(shape), got(value)),
            },
            Shape::Number(rules) => match value.as_f64() {
                Some(n) => self.number(rules, n, value),
                None => self.issue(expected(shape), got(value)),
            },
            Shape::String(rules) => match value {
                Value::String(s) => self.string(rules, s),
                other => self.issue(expected(shape), got(other)),
            },
            Shape::Array(rules) => {
                coerce_json_string(value, '[');
                let Value::Array(items) = value else {
                    return self.issue(expected(shape), got(value));
                };
                let n = items.len();
                if let Some(min) = rules.min_items
                    && n < min as usize
                {
                    self.issue(format!("at least {min} item{}", plural(min)), got_items(n));
                }
                if let Some(max) = rules.max_items
                    && n > max as usize
                {
                    self.issue(format!("at most {max} item{}", plural(max)), got_items(n));
                }
                for (i, item) in items.iter_mut().enumerate() {
                    let len = self.path.len();
                    let _ = write!(self.path, "/{i}");
                    self.value(rules.items, item, depth + 1);
                    self.path.truncate(len);
                }
                if rules.unique_items
                    && let Some((i, j)) = first_repeat(items)
                {
                    self.issue(
                        "items that are all different".into(),
                        format!("item {j} equal to item {i}"),
                    );
                }
            }
            Shape::Object(object) => {
                coerce_json_string(value, '{');
                match value {
                    Value::Object(map) => self.object(object, map, depth, &[]),
                    other => self.issue(expected(shape), got(other)),
                }
            }
            Shape::Map(inner) => {
                coerce_json_string(value, '{');
                let Value::Object(map) = value else {
                    return self.issue(expected(shape), got(value));
                };
                for (key, item) in map.iter_mut() {
                    let len = self.path.len();
                    self.path.push('/');
                    self.path.push_str(&escape(key));
                    self.value(inner, item, depth + 1);
                    self.path.truncate(len);
                }
            }
            Shape::Nullable(inner) => {
                if !value.is_null() {
                    self.typed(inner, value, depth + 1, true);
                }
            }
            Shape::OneOf(shapes) => self.one_of(shape, shapes, value, depth + 1),
            Shape::AnyOf(shapes) => self.any_of(shape, shapes, value, depth + 1),
            Shape::Doc(doc) => self.typed(doc.shape, value, depth, nullable),
            Shape::Named(named) => self.typed(named.shape, value, depth, nullable),
        }
    }

    fn number(&mut self, rules: &NumberRules, n: f64, value: &Value) {
        if !rules.enum_values.is_empty() && !rules.enum_values.iter().any(|v| v.value == n) {
            let list: Vec<&str> = rules.enum_values.iter().map(|v| v.text).collect();
            self.issue(format!("one of {}", list.join(", ")), got(value));
        }
        if let Some(min) = rules.minimum
            && n < min.value
        {
            self.issue(format!("a number >= {}", min.text), got(value));
        }
        if let Some(max) = rules.maximum
            && n > max.value
        {
            self.issue(format!("a number <= {}", max.text), got(value));
        }
    }

    fn string(&mut self, rules: &StringRules, s: &str) {
        let shown = || got(&Value::String(s.to_owned()));
        if !rules.enum_values.is_empty() && !rules.enum_values.contains(&s) {
            let list: Vec<String> = rules
                .enum_values
                .iter()
                .map(|v| Value::from(*v).to_string())
                .collect();
            self.issue(format!("one of {}", list.join(", ")), shown());
            return;
        }
        if rules.min_length.is_some() || rules.max_length.is_some() {
            let chars = s.chars().count();
            if let Some(min) = rules.min_length
                && chars < min as usize
            {
                self.issue(
                    format!("at least {min} character{}", plural(min)),
                    format!("{} ({chars})", shown()),
                );
            }
            if let Some(max) = rules.max_length
                && chars > max as usize
            {
                self.issue(
                    format!("at most {max} character{}", plural(max)),
                    format!("{} ({chars})", shown()),
                );
            }
        }
        if let Some(pattern) = rules.pattern {
            match self.patterns.get(pattern) {
                Ok(re) if re.is_match(s) => {}
                Ok(_) => self.issue(format!("a string matching the pattern {pattern}"), shown()),
                Err(e) => self.bad_patterns.push(format!("{pattern}: {e}")),
            }
        }
        if let Some(format) = rules.format
            && !format_ok(format, s)
        {
            self.issue(format_expected(format).into(), shown());
        }
    }
}

/// How many values `value` holds (itself included).
fn nodes(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nodes).sum::<usize>(),
        Value::Object(map) => 1 + map.values().map(nodes).sum::<usize>(),
        _ => 1,
    }
}

fn too_complex() -> String {
    format!(
        "the arguments are too complex to validate (more than {MAX_VALIDATION_STEPS} checks, \
         counting every alternative of a `one_of` tried); send a smaller or flatter value"
    )
}

/// Replaces a string holding JSON of the expected kind (`{` object, `[` array) by its value.
fn coerce_json_string(value: &mut Value, open: char) {
    if let Value::String(text) = value
        && text.trim_start().starts_with(open)
        && let Ok(parsed) = serde_json::from_str::<Value>(text)
        && (parsed.is_object() || parsed.is_array())
    {
        *value = parsed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_pointer_segments() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(escape("plain"), "plain");
    }

    #[test]
    fn got_is_short() {
        let long = "x".repeat(100);
        assert_eq!(
            got(&Value::String(long)).chars().count(),
            "string \"\"".len() + 41
        );
        assert_eq!(got(&serde_json::json!([1, 2])), "an array of 2 items");
    }
}
