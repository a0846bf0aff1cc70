//! Arguments for a tool generated from its own published JSON schema (what the model reads):
//! valid by that schema, with the edge cases a model may send - optional fields left out or all
//! present, empty and single-item arrays, empty strings where allowed, strings at their length
//! bounds, numbers at their bounds, every enum value over the variants, nested objects, maps,
//! `oneOf` branches, patterns (strings generated from the regular expression) and formats.
//!
//! Deterministic: one seeded ChaCha generator per call, so a run is reproducible from its seed.

use base64::Engine as _;
use proptest::prelude::Rng as _;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};

/// Which kind of call to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Only the required fields, typical values.
    Minimal,
    /// Every optional field, every array with two items.
    Full,
    /// Random optional fields at their edges: empty strings and arrays where the schema allows
    /// them, bounds, the last enum value, `null` where allowed.
    Edge,
}

/// How deep `$ref` recursion goes before the generator stops adding optional fields.
const MAX_DEPTH: usize = 6;

/// One generator: a seed, a variant, the schema's `$defs`.
pub struct Gen<'s> {
    runner: TestRunner,
    variant: Variant,
    defs: Option<&'s Map<String, Value>>,
    /// How many items a list not inside another list gets (0: the variant's count); what a page
    /// of an API's answer holds.
    page: u64,
    in_list: bool,
}

impl<'s> Gen<'s> {
    /// A generator for the schema `root` (its `$defs` resolve `$ref`s).
    pub fn new(root: &'s Value, variant: Variant, seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        Gen {
            runner: TestRunner::new_with_rng(Config::default(), rng),
            variant,
            defs: root.get("$defs").and_then(Value::as_object),
            page: 0,
            in_list: false,
        }
    }

    /// The same generator, with `items` items in every list not inside another list.
    pub fn with_page(self, items: u64) -> Self {
        Gen {
            page: items,
            ..self
        }
    }

    fn roll(&mut self, n: u64) -> u64 {
        self.runner.rng().next_u64() % n.max(1)
    }

    fn coin(&mut self) -> bool {
        self.roll(2) == 0
    }

    /// A value valid by `schema`.
    pub fn value(&mut self, schema: &Value, depth: usize) -> Value {
        if let Some(Value::String(r)) = schema.get("$ref") {
            let name = r.rsplit('/').next().unwrap_or_default();
            let target = self.defs.and_then(|d| d.get(name)).cloned();
            return match target {
                Some(t) => self.value(&t, depth + 1),
                None => panic!("unresolved $ref {r}"),
            };
        }
        // An object's `anyOf` holds its "at least one of" groups, filled by `object`.
        if schema.get("type") == Some(&json!("object")) {
            return self.object(schema, depth);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                return self.branch(branches, depth);
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return self.pick(values);
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => {
                let concrete: Vec<&str> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                if self.variant == Variant::Edge && self.roll(4) == 0 || concrete.is_empty() {
                    return Value::Null;
                }
                concrete[0]
            }
            _ => return json!("any value"),
        };
        match ty {
            "object" => self.object(schema, depth),
            "array" => self.array(schema, depth),
            "string" => Value::String(self.string(schema)),
            "integer" => self.integer(schema),
            "number" => self.number(schema),
            "boolean" => Value::Bool(self.variant == Variant::Minimal || self.coin()),
            "null" => Value::Null,
            other => panic!("unknown type {other}"),
        }
    }

    fn branch(&mut self, branches: &[Value], depth: usize) -> Value {
        let concrete: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type") != Some(&json!("null")))
            .collect();
        let allows_null = concrete.len() < branches.len();
        if self.variant == Variant::Edge && allows_null && self.roll(4) == 0 || concrete.is_empty()
        {
            return Value::Null;
        }
        let i = match self.variant {
            Variant::Minimal => 0,
            _ => self.roll(concrete.len() as u64) as usize,
        };
        self.value(concrete[i], depth + 1)
    }

    fn pick(&mut self, values: &[Value]) -> Value {
        let i = match self.variant {
            Variant::Minimal => 0,
            Variant::Edge => values.len() - 1,
            Variant::Full => self.roll(values.len() as u64) as usize,
        };
        values[i].clone()
    }

    fn object(&mut self, schema: &Value, depth: usize) -> Value {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (name, prop) in props {
                let take = required.contains(&name.as_str())
                    || depth < MAX_DEPTH
                        && match self.variant {
                            Variant::Minimal => false,
                            Variant::Full => true,
                            Variant::Edge => self.coin(),
                        };
                if take {
                    let v = self.value(prop, depth + 1);
                    out.insert(name.clone(), v);
                }
            }
        }
        // "At least one of" groups (`anyOf` of `required` lists): fill one group.
        if let Some(Value::Array(groups)) = schema.get("anyOf") {
            let satisfied = groups
                .iter()
                .any(|g| group(g).iter().all(|k| out.contains_key(*k)));
            if !satisfied && !groups.is_empty() {
                let i = self.roll(groups.len() as u64) as usize;
                for key in group(&groups[i]) {
                    let prop = &schema["properties"][key];
                    let v = self.value(prop, depth + 1);
                    out.insert(key.to_owned(), v);
                }
            }
        }
        // "Exactly one of" groups (`oneOf` of `required` lists): keep one, drop the others.
        if let Some(Value::Array(groups)) = schema.get("oneOf") {
            let groups: Vec<Vec<&str>> =
                groups.iter().map(group).filter(|g| !g.is_empty()).collect();
            if !groups.is_empty() {
                let keep = &groups[self.roll(groups.len() as u64) as usize];
                for key in groups.iter().flatten().filter(|k| !keep.contains(k)) {
                    out.remove(*key);
                }
                for key in keep {
                    if !out.contains_key(*key) {
                        let v = self.value(&schema["properties"][key], depth + 1);
                        out.insert((*key).to_owned(), v);
                    }
                }
            }
        }
        match schema.get("additionalProperties") {
            Some(Value::Bool(false)) | None if schema.get("properties").is_some() => {}
            Some(inner @ Value::Object(_)) if self.variant != Variant::Minimal => {
                for i in 0..=self.roll(2) {
                    let v = self.value(inner, depth + 1);
                    out.insert(format!("key{i}"), v);
                }
            }
            Some(Value::Bool(true)) | None if self.variant == Variant::Full => {
                out.insert("note".into(), json!("free-form"));
            }
            _ => {}
        }
        Value::Object(out)
    }

    fn array(&mut self, schema: &Value, depth: usize) -> Value {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let want = match self.variant {
            Variant::Minimal => 1,
            Variant::Full => 2,
            Variant::Edge => [0, 1, 3][self.roll(3) as usize],
        };
        let want = if self.page > 0 && !self.in_list {
            self.page
        } else {
            want
        };
        let outer = !std::mem::replace(&mut self.in_list, true);
        let n = want.clamp(min, max.max(min));
        let items = schema.get("items").cloned().unwrap_or(json!({}));
        let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
        let mut out: Vec<Value> = Vec::new();
        for _ in 0..n {
            let mut v = self.value(&items, depth + 1);
            // Unique items: a few tries for a new value (an enum of one value stops at one).
            for _ in 0..8 {
                if !unique || !out.contains(&v) {
                    break;
                }
                v = self.value(&items, depth + 1);
            }
            if unique && out.contains(&v) {
                break;
            }
            out.push(v);
        }
        if outer {
            self.in_list = false;
        }
        Value::Array(out)
    }

    fn string(&mut self, schema: &Value) -> String {
        let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        if let Some(format) = schema.get("format").and_then(Value::as_str) {
            return self.formatted(format);
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            return self.matching(pattern, min, max);
        }
        let text = match self.variant {
            Variant::Minimal => "charter".to_owned(),
            Variant::Full => format!("charter check {}", self.roll(1000)),
            Variant::Edge => match self.roll(3) {
                0 => String::new(),
                1 => "x".repeat(max.unwrap_or(300).min(300)),
                _ => "ünïcödé & spaces/+?#".to_owned(),
            },
        };
        fit(text, min, max)
    }

    /// A string matching `pattern` (anchors stripped: the generated text is the whole match).
    fn matching(&mut self, pattern: &str, min: usize, max: Option<usize>) -> String {
        let inner = pattern.strip_prefix('^').unwrap_or(pattern);
        let inner = inner.strip_suffix('$').unwrap_or(inner);
        let strategy = proptest::string::string_regex(inner)
            .unwrap_or_else(|e| panic!("pattern {pattern}: {e}"));
        for _ in 0..16 {
            let s = strategy.new_tree(&mut self.runner).unwrap().current();
            let n = s.chars().count();
            if n >= min && max.is_none_or(|m| n <= m) {
                return s;
            }
        }
        panic!("no string of {min}..{max:?} characters matching {pattern}")
    }

    fn formatted(&mut self, format: &str) -> String {
        let r = self.roll(1 << 30);
        match format {
            "date-time" => {
                let offsets = ["Z", "+02:00", "-05:30", ".123Z"];
                format!(
                    "20{:02}-{:02}-{:02}T{:02}:{:02}:{:02}{}",
                    r % 40,
                    1 + r % 12,
                    1 + r % 28,
                    r % 24,
                    r % 60,
                    (r / 7) % 60,
                    offsets[(r % 4) as usize]
                )
            }
            // Always with an offset: the APIs' descriptions say `date-time`, and a local time is
            // valid only beside a time zone the generator does not pair it with.
            "date-time-local" => self.formatted("date-time"),
            "date" => format!("20{:02}-{:02}-{:02}", r % 40, 1 + r % 12, 1 + r % 28),
            "email" => format!("ada{}@example.com", r % 100),
            "uri" => format!("https://example.com/charter/{}", r % 1000),
            "uuid" => format!("123e4567-e89b-12d3-a456-{:012x}", r),
            "byte" | "base64" | "base64url" => {
                let bytes: Vec<u8> = (0..(r % 40 + 1)).map(|i| (r >> (i % 24)) as u8).collect();
                if format == "base64url" {
                    base64::engine::general_purpose::URL_SAFE.encode(bytes)
                } else {
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                }
            }
            other => panic!("unknown format {other}"),
        }
    }

    fn integer(&mut self, schema: &Value) -> Value {
        let min = schema.get("minimum").and_then(Value::as_i64);
        let max = schema.get("maximum").and_then(Value::as_i64);
        let n = match self.variant {
            Variant::Minimal => 1,
            Variant::Full => 10 + self.roll(90) as i64,
            Variant::Edge => match (self.coin(), min, max) {
                (true, Some(lo), _) => lo,
                (false, _, Some(hi)) => hi,
                (true, None, _) => 0,
                (false, _, None) => i64::from(i32::MAX),
            },
        };
        json!(n.clamp(min.unwrap_or(i64::MIN), max.unwrap_or(i64::MAX)))
    }

    fn number(&mut self, schema: &Value) -> Value {
        let min = schema.get("minimum").and_then(Value::as_f64);
        let max = schema.get("maximum").and_then(Value::as_f64);
        let n = match self.variant {
            Variant::Minimal => 1.0,
            Variant::Full => 0.5,
            Variant::Edge => match (self.coin(), min, max) {
                (true, Some(lo), _) => lo,
                (false, _, Some(hi)) => hi,
                (true, None, _) => 0.0,
                (false, _, None) => 12345.678,
            },
        };
        json!(n.clamp(min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX)))
    }
}

/// The member names of one `anyOf` / `oneOf` group (`{"required": [...]}`).
fn group(g: &Value) -> Vec<&str> {
    g.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `text` padded or cut to `min..=max` characters.
fn fit(mut text: String, min: usize, max: Option<usize>) -> String {
    while text.chars().count() < min {
        text.push('x');
    }
    if let Some(max) = max {
        text = text.chars().take(max).collect();
    }
    text
}
