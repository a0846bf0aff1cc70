//! The form-body check (Stripe): Prism reads `application/x-www-form-urlencoded` bodies one level
//! deep, so this decodes the body back into its nested structure (`a[b][0][c]=v`) and validates
//! it against the operation's `requestBody` schema in the API's own description, with the
//! coercions a form implies (every value arrives as text).

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use super::prism::Violation;

/// The nested value a form body encodes. `+` is a space, as in every form decoder: a `+` the
/// encoder forgot to escape shows up as a space.
pub fn decode(body: &str) -> Result<Value, String> {
    let mut root = Value::Object(Map::new());
    for pair in body.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let un = |s: &str| {
            percent_decode_str(&s.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        };
        let (key, value) = (un(key), un(value));
        let (head, rest) = key
            .split_once('[')
            .map_or((key.as_str(), ""), |(h, r)| (h, r));
        let mut path = vec![head.to_owned()];
        for seg in rest.split('[').filter(|s| !s.is_empty()) {
            let seg = seg
                .strip_suffix(']')
                .ok_or(format!("key {key}: unbalanced brackets"))?;
            path.push(seg.to_owned());
        }
        insert(&mut root, &path, Value::String(value)).map_err(|e| format!("key {key}: {e}"))?;
    }
    Ok(root)
}

fn insert(node: &mut Value, path: &[String], value: Value) -> Result<(), String> {
    let Some((seg, rest)) = path.split_first() else {
        return Err("empty key".into());
    };
    if let Ok(i) = seg.parse::<usize>()
        && !matches!(node, Value::Object(m) if !m.is_empty())
    {
        if !node.is_array() {
            *node = Value::Array(Vec::new());
        }
        let items = node.as_array_mut().unwrap();
        if i > items.len() {
            return Err(format!("index {i} skips {}", items.len()));
        }
        if i == items.len() {
            items.push(if rest.is_empty() {
                value.clone()
            } else {
                Value::Object(Map::new())
            });
        }
        return if rest.is_empty() {
            Ok(())
        } else {
            insert(&mut items[i], rest, value)
        };
    }
    if seg.is_empty() {
        return Err("`[]` is not Stripe's array spelling".into());
    }
    let Value::Object(map) = node else {
        return Err(format!("`{seg}` under a non-object"));
    };
    if rest.is_empty() {
        if map.insert(seg.clone(), value).is_some() {
            return Err("sent twice".into());
        }
        return Ok(());
    }
    let child = map
        .entry(seg.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    insert(child, rest, value)
}

/// The operation of `doc` for `method` and a request `path` (templates matched by segment).
pub fn operation<'d>(doc: &'d Value, method: &str, path: &str) -> Option<&'d Value> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let paths = doc["paths"].as_object()?;
    let mut found = None;
    for (template, item) in paths {
        let t: Vec<&str> = template.trim_matches('/').split('/').collect();
        let fits = t.len() == segs.len()
            && t.iter()
                .zip(&segs)
                .all(|(t, s)| t.starts_with('{') || t == s);
        if fits && let Some(op) = item.get(method.to_ascii_lowercase()) {
            let literal = t.iter().filter(|t| !t.starts_with('{')).count();
            // The most literal template wins (`/v1/customers/search` over `/v1/customers/{id}`).
            if found.is_none_or(|(n, _)| literal > n) {
                found = Some((literal, op));
            }
        }
    }
    found.map(|(_, op)| op)
}

/// Checks a form body of `op` against its schema.
pub fn check(doc: &Value, op: &Value, body: &[u8]) -> Vec<Violation> {
    let Some(schema) = op.pointer("/requestBody/content/application~1x-www-form-urlencoded/schema")
    else {
        return vec![];
    };
    let text = String::from_utf8_lossy(body);
    let value = match decode(&text) {
        Ok(v) => v,
        Err(e) => return vec![v("body", "form-syntax", e)],
    };
    let mut out = Vec::new();
    Walk { doc, out: &mut out }.check(schema, &value, "body");
    out
}

fn v(location: &str, code: &str, message: String) -> Violation {
    Violation {
        location: location.into(),
        code: code.into(),
        message,
        severity: String::new(),
    }
}

struct Walk<'a> {
    doc: &'a Value,
    out: &'a mut Vec<Violation>,
}

impl Walk<'_> {
    /// Whether `value` fits `schema`, collecting violations into a scratch list.
    fn fits(&mut self, schema: &Value, value: &Value, at: &str) -> Vec<Violation> {
        let mut scratch = Vec::new();
        Walk {
            doc: self.doc,
            out: &mut scratch,
        }
        .check(schema, value, at);
        scratch
    }

    fn check(&mut self, schema: &Value, value: &Value, at: &str) {
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => match self.doc.pointer(r.trim_start_matches('#')) {
                Some(s) => s,
                None => return self.out.push(v(at, "ref", format!("unresolved {r}"))),
            },
            None => schema,
        };
        if let Some(Value::Array(branches)) = schema.get("anyOf").or(schema.get("oneOf")) {
            let mut best: Option<Vec<Violation>> = None;
            for b in branches {
                let found = self.fits(b, value, at);
                if found.is_empty() {
                    return;
                }
                if best.as_ref().is_none_or(|x| found.len() < x.len()) {
                    best = Some(found);
                }
            }
            let shown = clip(value);
            self.out
                .push(v(at, "anyOf", format!("{shown} fits no alternative")));
            self.out.extend(best.unwrap_or_default());
            return;
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            let ok = values.iter().any(|e| match (e, value) {
                (Value::String(a), Value::String(b)) => a == b,
                (e, Value::String(b)) => serde_json::from_str::<Value>(b).ok().as_ref() == Some(e),
                _ => e == value,
            });
            if !ok {
                self.out.push(v(
                    at,
                    "enum",
                    format!(
                        "{} is not one of {}",
                        clip(value),
                        clip(&Value::Array(values.clone()))
                    ),
                ));
            }
            return;
        }
        let text = value.as_str();
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => self.object(schema, value, at),
            Some("array") => match value {
                Value::Array(items) => {
                    let items_schema = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                    for (i, item) in items.iter().enumerate() {
                        self.check(&items_schema, item, &format!("{at}.{i}"));
                    }
                }
                other => self
                    .out
                    .push(v(at, "type", format!("{} is not an array", clip(other)))),
            },
            Some(kind @ ("integer" | "number" | "boolean")) => {
                let fits = text.is_some_and(|t| match kind {
                    "integer" => t.parse::<i64>().is_ok(),
                    "number" => t.parse::<f64>().is_ok_and(f64::is_finite),
                    _ => matches!(t, "true" | "false"),
                });
                if !fits {
                    let what = format!("{} is not a 64-bit {kind}", clip(value));
                    self.out.push(v(
                        at,
                        "type",
                        what.replace("64-bit number", "number")
                            .replace("64-bit boolean", "boolean"),
                    ));
                }
            }
            Some("string") => match text {
                Some(t) => {
                    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
                        && t.chars().count() as u64 > max
                    {
                        self.out
                            .push(v(at, "maxLength", format!("longer than {max}")));
                    }
                }
                None => self
                    .out
                    .push(v(at, "type", format!("{} is not a string", clip(value)))),
            },
            _ => {}
        }
    }

    fn object(&mut self, schema: &Value, value: &Value, at: &str) {
        let Value::Object(map) = value else {
            return self
                .out
                .push(v(at, "type", format!("{} is not an object", clip(value))));
        };
        let props = schema.get("properties").and_then(Value::as_object);
        for name in schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !map.contains_key(name) {
                self.out
                    .push(v(at, "required", format!("missing `{name}`")));
            }
        }
        for (key, item) in map {
            let here = format!("{at}.{key}");
            match props.and_then(|p| p.get(key)) {
                Some(prop) => self.check(prop, item, &here),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => self.out.push(v(
                        &here,
                        "additionalProperties",
                        format!("`{key}` is not a field here"),
                    )),
                    Some(extra @ Value::Object(_)) => self.check(extra, item, &here),
                    _ => {}
                },
            }
        }
    }
}

fn clip(value: &Value) -> String {
    value.to_string().chars().take(80).collect()
}
