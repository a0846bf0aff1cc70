//! Pagination the parameters and the 2xx response imply (page numbers, item offsets or a
//! cursor).

use serde_json::{Map, Value};

use super::super::doc;
use super::super::model::{In, Kind, OpRef, Pagination, Param};

/// Pagination the parameters and the response imply: `page`/`per_page` pages, an integer
/// `offset` beside an integer `limit` (items skipped), or a cursor parameter whose next value the
/// response carries. A cursor wins over numbers, and a page number over an offset.
pub(super) fn pagination(root: &Value, op: &OpRef<'_>, params: &[Param]) -> Option<Pagination> {
    let int_param = |n: &str| {
        params
            .iter()
            .find(|p| p.name == n && p.location != In::Path && p.shape.kind == Kind::Integer)
            .map(|p| p.name.clone())
    };
    let has = |n: &str| params.iter().any(|p| p.name == n && p.location != In::Path);
    let props = response_properties(root, op);
    let prop = |n: &str| props.as_ref().is_some_and(|m| m.contains_key(n));
    let nested = |outer: &str, inner: &str| {
        props
            .as_ref()
            .and_then(|m| m.get(outer))
            .and_then(|v| doc::deref(root, v, "").ok())
            .and_then(|(v, _)| {
                v.get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.contains_key(inner))
            })
            .unwrap_or(false)
    };
    if has("pageToken") && prop("nextPageToken") {
        return Some(Pagination::Cursor {
            next: "nextPageToken".into(),
            param: "pageToken".into(),
        });
    }
    if has("cursor") && nested("response_metadata", "next_cursor") {
        return Some(Pagination::Cursor {
            next: "response_metadata.next_cursor".into(),
            param: "cursor".into(),
        });
    }
    if has("start_cursor") && prop("next_cursor") {
        return Some(Pagination::Cursor {
            next: "next_cursor".into(),
            param: "start_cursor".into(),
        });
    }
    if has("starting_after") && prop("has_more") && prop("data") {
        return Some(Pagination::Cursor {
            next: "data.-1.id".into(),
            param: "starting_after".into(),
        });
    }
    if let Some(page) = int_param("page") {
        let size = ["per_page", "page_size", "pageSize", "limit"]
            .iter()
            .find_map(|n| int_param(n));
        return Some(Pagination::Page {
            param: page,
            size_param: size,
        });
    }
    // Only the pair: an `offset` alone may be a time-zone or text offset, not a position.
    if let (Some(offset), Some(limit)) = (int_param("offset"), int_param("limit")) {
        return Some(Pagination::Offset {
            param: offset,
            size_param: Some(limit),
        });
    }
    None
}

/// The top-level properties of the first 2xx JSON response, references followed.
pub(crate) fn response_properties<'d>(
    root: &'d Value,
    op: &OpRef<'d>,
) -> Option<&'d Map<String, Value>> {
    let responses = op.op.get("responses")?.as_object()?;
    let ok = responses
        .iter()
        .find(|(code, _)| code.starts_with('2'))
        .map(|(_, r)| r)?;
    let (ok, _) = doc::deref(root, ok, "").ok()?;
    let content = ok.get("content")?.as_object()?;
    let media = content
        .iter()
        .find(|(t, _)| t.starts_with("application/json"))
        .map(|(_, m)| m)?;
    let (schema, _) = doc::deref(root, media.get("schema")?, "").ok()?;
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        return Some(props);
    }
    // `allOf` of a reference: look one level in.
    schema.get("allOf")?.as_array()?.iter().find_map(|part| {
        let (part, _) = doc::deref(root, part, "").ok()?;
        part.get("properties").and_then(Value::as_object)
    })
}
