//! The Gemini API's side of the scripted server: what `generateContent` refuses, its error
//! format, and scripted answers.
//!
//! The schema rules are those of the API's `Schema` object (the OpenAPI 3.0 subset a function
//! declaration's `parameters` takes), with the field list of the official `google-genai` SDK's
//! `types.Schema`: a key outside it (`additionalProperties` among them: the API answers `Unknown
//! name "additionalProperties"`), a `type` that is not one of the API's types (or an array of
//! types), a non-string `enum` value, `oneOf`/`allOf`/`not`/`const`, and an `OBJECT` root without
//! properties are refused, as the API refuses them.

use std::collections::HashSet;

use axum::http::{HeaderMap, Uri};
use serde_json::{Value, json};

use super::Reply;

/// The members of the API's `Schema` (`google-genai` `types.Schema`, camelCase on the wire).
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
    "example",
    "defs",
    "ref",
];

/// The API's `Type` values (it reads them in either case).
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// The API's error body: `{"error": {"code", "message", "status"}}`.
pub fn gemini_error(code: u16, message: &str) -> Value {
    let status = match code {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        _ => "INTERNAL",
    };
    json!({"error": {"code": code, "message": message, "status": status}})
}

/// Whether a function name is one the API takes: a letter or `_` first, then letters, digits,
/// `_`, `.`, `:` or `-`, at most 64 in all.
fn valid_function_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.len() <= 64
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// What the API refuses in a `parameters` schema, with the path to it.
pub fn gemini_schema_problems(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(m) = schema else {
        out.push(format!("{at}: a schema must be an object"));
        return;
    };
    for key in m.keys() {
        if !SCHEMA_KEYS.contains(&key.as_str()) {
            out.push(format!(
                "{at}: Unknown name \"{key}\" (not a field of Schema)"
            ));
        }
    }
    match m.get("type") {
        None => {}
        Some(Value::String(t)) if TYPES.contains(&t.to_ascii_lowercase().as_str()) => {}
        Some(other) => out.push(format!("{at}.type: invalid value {other}")),
    }
    if let Some(values) = m.get("enum")
        && !values
            .as_array()
            .is_some_and(|v| v.iter().all(Value::is_string))
    {
        out.push(format!("{at}.enum: only string values are allowed"));
    }
    for (key, value) in m {
        let at = format!("{at}.{key}");
        match (key.as_str(), value) {
            ("items", sub) => gemini_schema_problems(sub, &at, out),
            ("additionalProperties", Value::Bool(_)) => {}
            ("additionalProperties", sub) => gemini_schema_problems(sub, &at, out),
            ("properties" | "defs", Value::Object(subs)) => {
                for (name, sub) in subs {
                    gemini_schema_problems(sub, &format!("{at}[{name:?}]"), out);
                }
            }
            ("anyOf", Value::Array(subs)) => {
                for (i, sub) in subs.iter().enumerate() {
                    gemini_schema_problems(sub, &format!("{at}[{i}]"), out);
                }
            }
            ("properties" | "defs" | "anyOf", other) => {
                out.push(format!("{at}: invalid value {other}"));
            }
            _ => {}
        }
    }
}

/// What `generateContent` refuses: the path and query, the body's shape, the declarations and
/// their schemas, and a conversation whose function calls are not answered one for one.
pub fn check_gemini(uri: &Uri, headers: &HeaderMap, body: &Value) -> Result<(), String> {
    let model = uri
        .path()
        .strip_prefix("/v1beta/models/")
        .and_then(|rest| rest.strip_suffix(":generateContent"))
        .ok_or(format!("{} is not a generateContent path", uri.path()))?;
    if model.is_empty() || model.contains('/') {
        return Err(format!("`{model}` is not a model name"));
    }
    if let Some(query) = uri.query() {
        return Err(format!(
            "unexpected query `{query}` (the key goes in x-goog-api-key)"
        ));
    }
    if headers.get("content-type").and_then(|v| v.to_str().ok()) != Some("application/json") {
        return Err("content-type must be application/json".into());
    }
    let tools = check_tools(body)?;
    if body.get("toolConfig").is_some() && tools.is_empty() {
        return Err("toolConfig is set but there are no function declarations".into());
    }
    if let Some(system) = body.get("systemInstruction") {
        let text = system["parts"][0]["text"].as_str();
        if text.is_none()
            || system
                .get("role")
                .is_some_and(|r| r != "system" && r != "user")
        {
            return Err("systemInstruction must be a content of text parts".into());
        }
    }
    check_contents(body)
}

/// The declared function names, after checking every declaration.
fn check_tools(body: &Value) -> Result<HashSet<String>, String> {
    let mut names = HashSet::new();
    let Some(tools) = body.get("tools") else {
        return Ok(names);
    };
    let tools = tools.as_array().ok_or("tools must be an array")?;
    for (t, tool) in tools.iter().enumerate() {
        let declarations = tool["functionDeclarations"]
            .as_array()
            .filter(|d| !d.is_empty())
            .ok_or(format!(
                "tools[{t}].functionDeclarations must be a non-empty array"
            ))?;
        for (i, d) in declarations.iter().enumerate() {
            let at = format!("tools[{t}].function_declarations[{i}]");
            let name = d["name"].as_str().unwrap_or_default();
            if !valid_function_name(name) || !names.insert(name.to_owned()) {
                return Err(format!("{at}.name: `{name}` is invalid or duplicated"));
            }
            if !d["description"].is_string() {
                return Err(format!("{at}.description must be a string"));
            }
            if let Some(keys) = d.as_object()
                && let Some(k) = keys
                    .keys()
                    .find(|k| !matches!(k.as_str(), "name" | "description" | "parameters"))
            {
                return Err(format!("{at}: Unknown name \"{k}\""));
            }
            if let Some(parameters) = d.get("parameters") {
                check_parameters(parameters, &format!("{at}.parameters"))?;
            }
        }
    }
    Ok(names)
}

fn check_parameters(parameters: &Value, at: &str) -> Result<(), String> {
    if !parameters["type"]
        .as_str()
        .is_some_and(|t| t.eq_ignore_ascii_case("object"))
    {
        return Err(format!("{at}.type: must be OBJECT"));
    }
    if parameters["properties"]
        .as_object()
        .is_none_or(serde_json::Map::is_empty)
    {
        return Err(format!(
            "{at}.properties: should be non-empty for OBJECT type"
        ));
    }
    let mut problems = Vec::new();
    gemini_schema_problems(parameters, at, &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Roles and parts, and every model turn's function calls answered by the next user turn's
/// function responses: as many, the same names in the same order, the same ids where given.
fn check_contents(body: &Value) -> Result<(), String> {
    let contents = body["contents"]
        .as_array()
        .filter(|c| !c.is_empty())
        .ok_or("contents must be a non-empty array")?;
    let mut open: Vec<(String, Option<String>)> = Vec::new();
    for (i, content) in contents.iter().enumerate() {
        let role = content["role"].as_str().unwrap_or_default();
        let parts = content["parts"]
            .as_array()
            .filter(|p| !p.is_empty())
            .ok_or(format!("contents[{i}].parts must be a non-empty array"))?;
        let calls: Vec<&Value> = parts.iter().filter_map(|p| p.get("functionCall")).collect();
        let responses: Vec<&Value> = parts
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .collect();
        match role {
            "model" => {
                if !open.is_empty() {
                    return Err(format!(
                        "contents[{i}]: function calls {open:?} were not answered"
                    ));
                }
                if !responses.is_empty() {
                    return Err(format!(
                        "contents[{i}]: a model turn cannot hold function responses"
                    ));
                }
                // A call of a function no longer declared is not refused: a transcript may
                // hold one from an earlier turn (the API answers a new one with
                // UNEXPECTED_TOOL_CALL instead).
                for call in calls {
                    let name = call["name"].as_str().unwrap_or_default();
                    open.push((name.to_owned(), call["id"].as_str().map(str::to_owned)));
                }
            }
            "user" => {
                if open.len() != responses.len() {
                    return Err(format!(
                        "contents[{i}]: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn ({} calls, {} responses)",
                        open.len(),
                        responses.len()
                    ));
                }
                for (j, (r, (name, id))) in responses.iter().zip(&open).enumerate() {
                    if r["name"].as_str() != Some(name) || r["id"].as_str() != id.as_deref() {
                        return Err(format!(
                            "contents[{i}].parts[{j}]: the function response {r} does not answer the call `{name}` (id {id:?})"
                        ));
                    }
                    if !r["response"].is_object() {
                        return Err(format!(
                            "contents[{i}].parts[{j}].functionResponse.response must be an object"
                        ));
                    }
                }
                open.clear();
            }
            other => {
                return Err(format!(
                    "contents[{i}].role: `{other}` is not user or model"
                ));
            }
        }
    }
    if contents.last().map(|c| &c["role"]) != Some(&json!("user")) {
        return Err("the last content must be the user's".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scripted answers.

fn candidate(parts: Vec<Value>, finish: &str) -> Reply {
    Reply::Json(json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0,
                        "safetyRatings": []}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "gemini-scripted", "responseId": "r1"
    }))
}

/// A Gemini answer with text (after a thought, which is not the answer).
pub fn gemini_text(text: &str) -> Reply {
    candidate(
        vec![
            json!({"text": "considering", "thought": true}),
            json!({"text": text}),
        ],
        "STOP",
    )
}

/// A Gemini answer calling functions: `(id, name, args)`, after a line of text; the first call
/// carries a `thoughtSignature`, as thinking models send it.
pub fn gemini_calls(calls: &[(Option<&str>, &str, Value)]) -> Reply {
    let mut parts = vec![json!({"text": "Let me check."})];
    for (n, (id, name, args)) in calls.iter().enumerate() {
        let mut call = json!({"name": name, "args": args});
        if let Some(id) = id {
            call["id"] = json!(id);
        }
        let mut part = json!({ "functionCall": call });
        if n == 0 {
            part["thoughtSignature"] = json!("c2lnbmF0dXJlLTE=");
        }
        parts.push(part);
    }
    candidate(parts, "STOP")
}

/// A candidate stopped for `reason` with no content.
pub fn gemini_finish(reason: &str, message: Option<&str>) -> Reply {
    let mut candidate = json!({"finishReason": reason, "index": 0});
    if let Some(message) = message {
        candidate["finishMessage"] = json!(message);
    }
    Reply::Json(json!({"candidates": [candidate], "modelVersion": "gemini-scripted"}))
}
