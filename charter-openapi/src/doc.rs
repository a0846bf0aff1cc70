//! The API document as a JSON tree: parsed from JSON or YAML, its version checked, every
//! `$ref` verified up front so a dangling one is an error naming where it is written.

use serde_json::Value;

use super::ImportError;
use super::names::pointer_token;

/// Parses JSON (text starting with `{`) or YAML into a JSON tree.
pub(crate) fn parse(text: &str) -> Result<Value, ImportError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return serde_json::from_str(trimmed).map_err(|e| ImportError::Parse {
            format: "JSON",
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        });
    }
    let mut options = serde_saphyr::Options::default();
    // A vendor document is local input the user chose; the default event budget (sized for
    // configuration files) would refuse large API descriptions.
    options.budget = None;
    serde_saphyr::from_str_with_options::<Value>(trimmed, options).map_err(|e| {
        let (line, column) = e
            .location()
            .map_or((0, 0), |l| (l.line() as usize, l.column() as usize));
        ImportError::Parse {
            format: "YAML",
            line,
            column,
            message: e.to_string().lines().next().unwrap_or_default().to_owned(),
        }
    })
}

/// The OpenAPI version, or why the document is not one we read.
pub(crate) fn check_version(root: &Value) -> Result<(), ImportError> {
    let Some(obj) = root.as_object() else {
        return Err(ImportError::Invalid {
            pointer: String::new(),
            message: format!(
                "the document is {}, not an object with `openapi` and `paths`",
                kind(root)
            ),
        });
    };
    if let Some(v) = obj.get("swagger") {
        return Err(ImportError::Unsupported {
            pointer: "/swagger".into(),
            message: format!(
                "Swagger {} is not supported: convert the document to OpenAPI 3 first (e.g. with swagger2openapi)",
                v.as_str().unwrap_or("2.0")
            ),
        });
    }
    match obj.get("openapi") {
        None => Err(ImportError::Invalid {
            pointer: "/openapi".into(),
            message: "missing `openapi`: not an OpenAPI 3 document".into(),
        }),
        Some(Value::String(v)) if v.starts_with("3.") => Ok(()),
        Some(v) => Err(ImportError::Unsupported {
            pointer: "/openapi".into(),
            message: format!("OpenAPI version {v} is not supported (3.0 and 3.1 are)"),
        }),
    }?;
    match obj.get("paths") {
        Some(Value::Object(_)) => Ok(()),
        None => Err(ImportError::Invalid {
            pointer: "/paths".into(),
            message: "missing `paths`: the document declares no operations".into(),
        }),
        Some(v) => Err(ImportError::Invalid {
            pointer: "/paths".into(),
            message: format!("`paths` must be an object, found {}", kind(v)),
        }),
    }
}

/// What kind of JSON value `v` is, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Checks every `$ref` in the document resolves (local references only).
pub(crate) fn check_refs(root: &Value) -> Result<(), ImportError> {
    fn walk(root: &Value, v: &Value, at: &mut String) -> Result<(), ImportError> {
        match v {
            Value::Object(map) => {
                // The keys of a schema's `properties` are property names: one may be `$ref`.
                if let Some(r) = map.get("$ref").filter(|_| !at.ends_with("/properties")) {
                    let len = at.len();
                    at.push_str("/$ref");
                    match r {
                        Value::String(r) => {
                            lookup(root, r, at)?;
                        }
                        other => {
                            return Err(ImportError::Invalid {
                                pointer: at.clone(),
                                message: format!("`$ref` must be a string, found {}", kind(other)),
                            });
                        }
                    }
                    at.truncate(len);
                }
                let in_examples = at
                    .rsplit_once('/')
                    .is_some_and(|(parent, _)| parent.ends_with("/examples"));
                for (k, child) in map {
                    // Examples are free-form data: a `$ref` key inside one is not a reference.
                    let data =
                        k == "example" || (in_examples && k == "value") || k.starts_with("x-");
                    if !data && matches!(child, Value::Object(_) | Value::Array(_)) {
                        let len = at.len();
                        at.push('/');
                        at.push_str(&pointer_token(k));
                        walk(root, child, at)?;
                        at.truncate(len);
                    }
                }
                Ok(())
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    if matches!(child, Value::Object(_) | Value::Array(_)) {
                        let len = at.len();
                        at.push('/');
                        at.push_str(&i.to_string());
                        walk(root, child, at)?;
                        at.truncate(len);
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    let mut at = String::new();
    if let Value::Object(map) = root {
        for (k, child) in map {
            let len = at.len();
            at.push('/');
            at.push_str(&pointer_token(k));
            walk(root, child, &mut at)?;
            at.truncate(len);
        }
    }
    Ok(())
}

/// The value a local reference `r` (written at pointer `at`) points to.
pub(crate) fn lookup<'a>(root: &'a Value, r: &str, at: &str) -> Result<&'a Value, ImportError> {
    let Some(pointer) = r.strip_prefix('#') else {
        return Err(ImportError::Unsupported {
            pointer: at.to_owned(),
            message: format!("external reference `{r}`: bundle the document into one file first"),
        });
    };
    let decoded = percent_decode(pointer);
    root.pointer(&decoded)
        .ok_or_else(|| ImportError::DanglingRef {
            pointer: at.to_owned(),
            target: r.to_owned(),
        })
}

pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    // Hex digits are read as bytes: slicing the text at `i + 1..i + 3` could cut a multi-byte
    // character (a panic found by the `openapi_import` fuzz target), and `from_str_radix`
    // would also take a sign (`%+1`).
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// Follows a chain of `$ref`s from `v` (at pointer `at`): the final value and its pointer.
pub(crate) fn deref<'a>(
    root: &'a Value,
    v: &'a Value,
    at: &str,
) -> Result<(&'a Value, String), ImportError> {
    let mut cur = v;
    let mut ptr = at.to_owned();
    for _ in 0..64 {
        match cur.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let next = lookup(root, r, &format!("{ptr}/$ref"))?;
                ptr = r.trim_start_matches('#').to_owned();
                cur = next;
            }
            None => return Ok((cur, ptr)),
        }
    }
    Err(ImportError::Invalid {
        pointer: ptr,
        message: "a cycle of `$ref`s that never reaches a value".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_with_numeric_keys_parses() {
        let v = parse("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n").unwrap();
        assert!(v.pointer("/paths/~1a/get/responses/200").is_some(), "{v}");
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/paths/~1a%7Bb%7D"), "/paths/~1a{b}");
        assert_eq!(percent_decode("/x%2"), "/x%2");
    }
}
