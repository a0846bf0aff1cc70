//! From an HTTP response to what the model reads (docs/design.md §6, §8).
//!
//! An error status becomes an [`ApiError`] (status, method, URL template, a truncated body and
//! how long to wait); a declared envelope catches failures inside a 200; the declared
//! projection keeps only the fields the pack names; bodies that are not text come back as
//! content type, size and base64. Pure functions: the executor feeds them bytes it has already
//! masked, so nothing here ever sees a credential.

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde_json::{Map, Value};

use crate::error::{ApiError, CharterError};
use crate::http::pagination::path_segments;
use crate::table::{Envelope, Pagination, Route, ToolOutput};

/// How much of an error body an [`ApiError`] keeps: enough to say what went wrong, not a page.
pub const ERROR_BODY_LIMIT: usize = 300;

/// The default cap on a response body (10 MiB).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 10 * 1024 * 1024;

/// The API error for an error status.
pub fn api_error(
    route: &'static Route,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    now: SystemTime,
) -> ApiError {
    ApiError {
        status,
        method: route.method.as_str(),
        url_template: route.path,
        body: truncate(&String::from_utf8_lossy(body), ERROR_BODY_LIMIT),
        retry_after_secs: retry_after(headers, now),
    }
}

/// How long the API asked to wait: `Retry-After` in seconds or as an HTTP-date, else the
/// GitHub-style `x-ratelimit-remaining: 0` with `x-ratelimit-reset` (epoch seconds).
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<u64> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(value) = text(RETRY_AFTER.as_str()) {
        if let Ok(secs) = value.parse::<u64>() {
            return Some(secs);
        }
        if let Ok(when) = httpdate::parse_http_date(value) {
            return Some(when.duration_since(now).unwrap_or(Duration::ZERO).as_secs());
        }
    }
    if text("x-ratelimit-remaining") == Some("0") {
        let reset = text("x-ratelimit-reset")?.parse::<u64>().ok()?;
        let now = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_secs();
        return Some(reset.saturating_sub(now));
    }
    None
}

/// At most `limit` bytes of `text`, cut at a character boundary, with `…` when cut.
pub fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The envelopes a route's responses are checked against: the pack's declared one, plus the
/// GraphQL one for a route that sends a GraphQL document (the GraphQL spec makes `errors` the
/// failure channel whatever the pack declares).
fn envelopes(route: &Route) -> impl Iterator<Item = Envelope> {
    let graphql = route
        .graphql
        .is_some()
        .then_some(Envelope::GraphQl)
        .filter(|_| {
            !matches!(
                route.pack.envelope,
                Some(Envelope::GraphQl | Envelope::GraphQlUserErrors)
            )
        });
    route.pack.envelope.into_iter().chain(graphql)
}

/// A failure hidden inside a 200, as the declared envelope defines it (and, for a GraphQL
/// route, a non-empty `errors` array).
pub fn check_envelope(route: &'static Route, status: u16, value: &Value) -> Result<(), ApiError> {
    for envelope in envelopes(route) {
        let message = match envelope {
            Envelope::GraphQl => match value.get("errors") {
                Some(Value::Array(errors)) if !errors.is_empty() => graphql_errors(errors),
                _ => continue,
            },
            Envelope::GraphQlUserErrors => match value.get("errors") {
                Some(Value::Array(errors)) if !errors.is_empty() => graphql_errors(errors),
                _ => match user_errors(value) {
                    Some(message) => message,
                    None => continue,
                },
            },
            Envelope::OkFlag { field, error_field } => match value.get(field) {
                Some(Value::Bool(false)) => match value.get(error_field) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => format!("`{field}` is false"),
                    Some(other) => other.to_string(),
                },
                _ => continue,
            },
        };
        return Err(ApiError {
            status,
            method: route.method.as_str(),
            url_template: route.path,
            body: truncate(&message, ERROR_BODY_LIMIT),
            retry_after_secs: None,
        });
    }
    Ok(())
}

/// A mutation the API ran and refused: each non-empty `userErrors` (or `<name>UserErrors`) array
/// of a `data.<field>` payload, as `field: message (at input.title)`, joined. `None` when every
/// such array is empty or absent (a query, a mutation that succeeded).
fn user_errors(value: &Value) -> Option<String> {
    let data = value.get("data")?.as_object()?;
    let mut messages = Vec::new();
    for (operation, payload) in data {
        let Some(payload) = payload.as_object() else {
            continue;
        };
        let lists = payload
            .iter()
            .filter(|(k, _)| *k == "userErrors" || k.ends_with("UserErrors"));
        for (_, list) in lists {
            for e in list.as_array().into_iter().flatten() {
                let message = e.get("message").and_then(Value::as_str);
                let Some(message) = message else {
                    messages.push(format!("{operation}: {e}"));
                    continue;
                };
                let field: Vec<&str> = e
                    .get("field")
                    .and_then(Value::as_array)
                    .map(|f| f.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                messages.push(if field.is_empty() {
                    format!("{operation}: {message}")
                } else {
                    format!("{operation}: {message} (at {})", field.join("."))
                });
            }
        }
    }
    (!messages.is_empty()).then(|| format!("refused (userErrors): {}", messages.join("; ")))
}

/// GraphQL errors for the model: each `message` with its `path` (`issue.assignee`), joined;
/// the raw JSON when an error has no message.
fn graphql_errors(errors: &[Value]) -> String {
    let messages: Vec<String> = errors
        .iter()
        .map(|e| {
            let Some(message) = e.get("message").and_then(Value::as_str) else {
                return e.to_string();
            };
            let path: Vec<String> = e
                .get("path")
                .and_then(Value::as_array)
                .map(|p| {
                    p.iter()
                        .map(|seg| match seg {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            if path.is_empty() {
                message.to_owned()
            } else {
                format!("{message} (at {})", path.join("."))
            }
        })
        .collect();
    format!("GraphQL errors: {}", messages.join("; "))
}

/// Keeps only the dotted `paths` of `value`. On an array, applies to every item, at any level
/// (`labels.name` keeps `name` in each label). A path through a scalar or null keeps it as is
/// (an unassigned `assignee` stays `null`). No paths keeps everything.
pub fn project<S: AsRef<str>>(value: Value, paths: &[S]) -> Value {
    if paths.is_empty() {
        return value;
    }
    let split: Vec<Vec<&str>> = paths.iter().map(|p| path_segments(p.as_ref())).collect();
    let refs: Vec<&[&str]> = split.iter().map(Vec::as_slice).collect();
    project_in(value, &refs)
}

fn project_in(value: Value, paths: &[&[&str]]) -> Value {
    match value {
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| project_in(v, paths)).collect())
        }
        Value::Object(map) => {
            let mut out = Map::new();
            let mut rest: Vec<&[&str]> = Vec::new();
            for (key, v) in map {
                rest.clear();
                let mut whole = false;
                for path in paths {
                    if path[0] == key {
                        if path.len() == 1 {
                            whole = true;
                            break;
                        }
                        rest.push(&path[1..]);
                    }
                }
                if whole {
                    out.insert(key, v);
                } else if !rest.is_empty() {
                    out.insert(key, project_in(v, &rest));
                }
            }
            Value::Object(out)
        }
        scalar => scalar,
    }
}

/// The projection in force for a route: the declared paths, plus what the declared cursor
/// pagination reads in the body (its `next` path without indices, and `has_more`), so a
/// projected answer can still be walked. A cursor in the `Link` header needs nothing kept.
pub fn projection_paths(route: &Route) -> Vec<String> {
    let mut paths: Vec<String> = route.projection.iter().map(|p| (*p).to_owned()).collect();
    if paths.is_empty() {
        return paths;
    }
    if let Some(Pagination::Cursor { next, .. }) = route.pagination
        && charter_terms::http::link_cursor(next).is_none()
    {
        let next = next.split_once('?').map_or(next, |(path, _)| path);
        let stripped: Vec<&str> = path_segments(next)
            .into_iter()
            .filter(|s| s.parse::<i64>().is_err())
            .collect();
        paths.push(stripped.join("."));
        paths.push("has_more".to_owned());
    }
    paths
}

/// A projection applied while deserialising: members no path keeps are skipped with
/// [`IgnoredAny`](serde::de::IgnoredAny) instead of being built and dropped. Same result as
/// [`project`] on the fully parsed value.
struct Keep<'a, 'p> {
    paths: &'a [&'p [&'p str]],
}

impl<'de> serde::de::DeserializeSeed<'de> for Keep<'_, '_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Keep<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Keep { paths: self.paths })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut rest: Vec<&[&str]> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            rest.clear();
            let mut whole = false;
            for path in self.paths {
                if path[0] == key.as_ref() {
                    if path.len() == 1 {
                        whole = true;
                        break;
                    }
                    rest.push(&path[1..]);
                }
            }
            if whole {
                let value: Value = map.next_value()?;
                out.insert(key.into_owned(), value);
            } else if !rest.is_empty() {
                let value = map.next_value_seed(Keep { paths: &rest })?;
                out.insert(key.into_owned(), value);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(Value::Object(out))
    }
}

/// An object key, borrowed from the body when it has no escapes.
struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = std::borrow::Cow<'de, str>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed {
    type Value = std::borrow::Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(v))
    }
}

/// What kind of body a content type announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Json,
    Text,
    Binary,
    Unknown,
}

fn body_kind(content_type: Option<&str>) -> BodyKind {
    let Some(ct) = content_type else {
        return BodyKind::Unknown;
    };
    let mime = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if mime.is_empty() {
        BodyKind::Unknown
    } else if mime == "application/json" || mime.ends_with("+json") || mime == "text/json" {
        BodyKind::Json
    } else if mime.starts_with("text/")
        || mime.ends_with("+xml")
        || matches!(
            mime.as_str(),
            "application/xml"
                | "application/javascript"
                | "application/x-www-form-urlencoded"
                | "application/yaml"
        )
    {
        BodyKind::Text
    } else {
        BodyKind::Binary
    }
}

/// The answer the model reads for a successful response: envelope checked, projection applied.
///
/// JSON comes back as JSON (text and structured); text as text; anything else as
/// `{content_type, bytes, base64}`; an empty body as a one-line note.
pub fn shape_response(
    route: &'static Route,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<ToolOutput, CharterError> {
    if body.is_empty() {
        return Ok(ToolOutput::text(format!(
            "HTTP {status}: the API answered with an empty body."
        )));
    }
    let kind = body_kind(content_type);
    if matches!(kind, BodyKind::Json | BodyKind::Unknown)
        && let Some((mut value, extras)) = parse_json(route, body)
    {
        check_envelope(route, status, &value)?;
        if let Value::Object(map) = &mut value {
            for key in extras {
                map.shift_remove(key);
            }
        }
        return Ok(ToolOutput::json(value));
    }
    if kind != BodyKind::Binary
        && let Ok(text) = std::str::from_utf8(body)
    {
        return Ok(ToolOutput::text(text));
    }
    Ok(binary(content_type, body))
}

/// The JSON body, already projected while parsing (dropped members are skipped, never built),
/// plus the top-level members kept only so the envelope can be checked. `None`: not JSON.
fn parse_json(route: &Route, body: &[u8]) -> Option<(Value, Vec<&'static str>)> {
    if route.projection.is_empty() {
        return serde_json::from_slice(body).ok().map(|v| (v, Vec::new()));
    }
    let owned = projection_paths(route);
    let mut split: Vec<Vec<&str>> = owned.iter().map(|p| path_segments(p)).collect();
    let mut extras = Vec::new();
    let envelope_keys: Vec<&'static str> = envelopes(route)
        .flat_map(|e| match e {
            Envelope::GraphQl | Envelope::GraphQlUserErrors => vec!["errors"],
            Envelope::OkFlag { field, error_field } => vec![field, error_field],
        })
        .collect();
    for key in envelope_keys {
        if !split.iter().any(|p| p[0] == key) {
            split.push(vec![key]);
            extras.push(key);
        }
    }
    let refs: Vec<&[&str]> = split.iter().map(Vec::as_slice).collect();
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = serde::de::DeserializeSeed::deserialize(Keep { paths: &refs }, &mut de).ok()?;
    de.end().ok()?;
    Some((value, extras))
}

fn binary(content_type: Option<&str>, body: &[u8]) -> ToolOutput {
    use base64::Engine as _;
    ToolOutput::json(serde_json::json!({
        "content_type": content_type.unwrap_or("application/octet-stream"),
        "bytes": body.len(),
        "base64": base64::engine::general_purpose::STANDARD.encode(body),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use serde_json::json;

    #[test]
    fn projection_descends_into_arrays_at_any_level() {
        let value = json!([
            {"id": 1, "title": "a", "body": "long", "labels": [{"name": "bug", "color": "red"}], "assignee": null},
            {"id": 2, "title": "b", "body": "long", "labels": [], "assignee": {"login": "x", "id": 9}}
        ]);
        let out = project(value, &["id", "labels.name", "assignee.login"]);
        assert_eq!(
            out,
            json!([
                {"id": 1, "labels": [{"name": "bug"}], "assignee": null},
                {"id": 2, "labels": [], "assignee": {"login": "x"}}
            ])
        );
    }

    #[test]
    fn projecting_while_parsing_equals_projecting_the_parsed_value() {
        // `\u00e9` makes one key owned rather than borrowed from the body.
        let body = r#"{"data": [{"id": "a", "x": {"deep": [1, {"k": "v", "drop": 2}]}, "big": "zzz"},
            {"id": "b\"q", "x": null}], "has_more": true, "escaped\u00e9": {"k": 1, "j": 2}, "n": -1.5e3}"#;
        for paths in [
            vec!["data.id"],
            vec!["data.x.deep.k", "n"],
            vec!["escapedé.k", "data"],
            vec!["missing.path"],
        ] {
            let parsed: Value = serde_json::from_slice(body.as_bytes()).unwrap();
            let split: Vec<Vec<&str>> = paths.iter().map(|p| p.split('.').collect()).collect();
            let refs: Vec<&[&str]> = split.iter().map(Vec::as_slice).collect();
            let mut de = serde_json::Deserializer::from_slice(body.as_bytes());
            let streamed =
                serde::de::DeserializeSeed::deserialize(Keep { paths: &refs }, &mut de).unwrap();
            assert_eq!(streamed, project(parsed, &paths), "{paths:?}");
        }
    }

    #[test]
    fn an_odata_annotation_is_one_segment() {
        assert_eq!(path_segments("data.-1.id"), ["data", "-1", "id"]);
        assert_eq!(path_segments("@odata.nextLink"), ["@odata.nextLink"]);
        assert_eq!(path_segments("value.@odata.etag"), ["value", "@odata.etag"]);
        let page = json!({
            "@odata.context": "x", "@odata.nextLink": "https://n", "odata": {"nextLink": 1},
            "value": [{"id": "a", "subject": "s", "@odata.etag": "W/1"}]
        });
        assert_eq!(
            project(page, &["value.id", "@odata.nextLink"]),
            json!({"@odata.nextLink": "https://n", "value": [{"id": "a"}]})
        );
    }

    #[test]
    fn truncation_respects_char_boundaries() {
        let text = "é".repeat(200); // 400 bytes
        let cut = truncate(&text, 301);
        assert!(cut.ends_with('…'));
        assert_eq!(cut.len(), 300 + '…'.len_utf8());
        assert_eq!(truncate("short", 300), "short");
    }

    #[test]
    fn retry_after_reads_seconds_dates_and_rate_limit_headers() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("17"));
        assert_eq!(retry_after(&h, now), Some(17));
        let date = httpdate::fmt_http_date(now + Duration::from_secs(90));
        h.insert(RETRY_AFTER, HeaderValue::from_str(&date).unwrap());
        assert_eq!(retry_after(&h, now), Some(90));
        let mut g = HeaderMap::new();
        g.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        g.insert("x-ratelimit-reset", HeaderValue::from_static("1700000042"));
        assert_eq!(retry_after(&g, now), Some(42));
        g.insert("x-ratelimit-remaining", HeaderValue::from_static("12"));
        assert_eq!(retry_after(&g, now), None);
    }
}
