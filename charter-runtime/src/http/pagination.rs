//! Walking a paged endpoint (docs/design.md §8): the pack declares how; the host or the agent decides
//! whether to ask for the next page. The executor never loops on its own.

use serde_json::Value;

use crate::table::{Pagination, Route};

/// The arguments of the call that fetches the page after `response`, or `None` when there is no
/// next page (no pagination declared, no cursor, `has_more: false`, an empty or short page).
///
/// - Cursor style: reads the dotted `next` path from the response (a numeric segment indexes an
///   array, `-1` is its last element: `data.-1.id`) and sets it as `param`. A `next` of the form
///   `path?key` reads a next-page URL at `path` and takes its query parameter `key`
///   (`@odata.nextLink?$skip`). A GraphQL (Relay)
///   `pageInfo` keeps its `endCursor` on the last page too, so a `hasNextPage: false` beside the
///   cursor ends the walk.
/// - Page style: increments `param` (absent counts as page 1); stops on an empty page, or on a
///   page shorter than the `size_param` the call asked for.
/// - Offset style: sets `param` to the current offset (absent counts as 0) plus the number of
///   items on this page; stops as the page style does.
pub fn next_page(route: &Route, arguments: &Value, response: &Value) -> Option<Value> {
    let pagination = route.pagination?;
    if response.get("has_more") == Some(&Value::Bool(false)) {
        return None;
    }
    let mut next = match arguments {
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        _ => return None,
    };
    match pagination {
        Pagination::Cursor { next: path, param } => {
            let (path, link_key) = match path.split_once('?') {
                Some((path, key)) => (path, Some(key)),
                None => (path, None),
            };
            let cursor = lookup(response, path)?;
            let parent = match path.rsplit_once('.') {
                Some((parent, _)) => lookup(response, parent),
                None => Some(response),
            };
            if parent.and_then(|p| p.get("hasNextPage")) == Some(&Value::Bool(false)) {
                return None;
            }
            match cursor {
                Value::String(s) if !s.is_empty() => {}
                Value::Number(_) => {}
                _ => return None,
            }
            let cursor = match link_key {
                Some(key) => link_query_value(cursor.as_str()?, key)?,
                None => cursor.clone(),
            };
            next.insert(param.to_owned(), cursor);
        }
        Pagination::Page { param, size_param } => {
            full_page(arguments, response, size_param)?;
            let page = arguments.get(param).and_then(Value::as_u64).unwrap_or(1);
            next.insert(param.to_owned(), Value::from(page + 1));
        }
        Pagination::Offset { param, size_param } => {
            let received = full_page(arguments, response, size_param)?;
            let offset = arguments.get(param).and_then(Value::as_u64).unwrap_or(0);
            next.insert(param.to_owned(), Value::from(offset + received));
        }
    }
    Some(Value::Object(next))
}

/// The number of items on a page that may have a successor, or `None` when it ends the walk:
/// an empty page, or one shorter than the size the call asked for at `size_param` (when no size
/// was asked, the server's default is unknown, so only an empty page ends it).
fn full_page(arguments: &Value, response: &Value, size_param: Option<&str>) -> Option<u64> {
    let received = page_items(response)?.len() as u64;
    if received == 0 {
        return None;
    }
    let size = size_param
        .and_then(|p| arguments.get(p))
        .and_then(Value::as_u64);
    if size.is_some_and(|size| received < size) {
        return None;
    }
    Some(received)
}

/// The value of the query parameter `key` in a next-page URL (Microsoft Graph's
/// `@odata.nextLink` carries `$skip=10` or `$skiptoken=...`), percent-decoded; a whole number
/// becomes a JSON number so it fits an `integer` parameter.
fn link_query_value(link: &str, key: &str) -> Option<Value> {
    use percent_encoding::percent_decode_str;
    let (_, query) = link.split_once('?')?;
    let query = query.split('#').next().unwrap_or_default();
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if percent_decode_str(k).decode_utf8().ok()? != key {
            return None;
        }
        let v = percent_decode_str(v).decode_utf8().ok()?.into_owned();
        if v.is_empty() {
            return None;
        }
        Some(v.parse::<u64>().map_or(Value::String(v), Value::from))
    })
}

/// The segments of a dotted path (`data.-1.id`). A segment that starts with `@` is an OData
/// annotation (`@odata.nextLink`, `value.@odata.etag`): its own dot is part of the name, so it
/// runs to the end of the path.
pub fn path_segments(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    loop {
        if rest.starts_with('@') {
            out.push(rest);
            return out;
        }
        match rest.split_once('.') {
            Some((segment, tail)) => {
                out.push(segment);
                rest = tail;
            }
            None => {
                out.push(rest);
                return out;
            }
        }
    }
}

/// The value at a dotted path ([`path_segments`]); numeric segments index arrays (negative from
/// the end).
pub fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut current = value;
    for segment in path_segments(path) {
        current = match current {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => {
                let index: i64 = segment.parse().ok()?;
                let index = if index < 0 {
                    items.len() as i64 + index
                } else {
                    index
                };
                items.get(usize::try_from(index).ok()?)?
            }
            _ => return None,
        };
    }
    Some(current)
}

/// The items of a page: the response itself when it is a list, else its first list member
/// (`data`, `items`, `results`...).
fn page_items(response: &Value) -> Option<&Vec<Value>> {
    match response {
        Value::Array(items) => Some(items),
        Value::Object(map) => map.values().find_map(Value::as_array),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_query_parameter_of_a_next_link_is_the_cursor() {
        let link = "https://graph.microsoft.com/v1.0/me/messages?%24top=2&%24skip=20";
        assert_eq!(link_query_value(link, "$skip"), Some(json!(20)));
        assert_eq!(link_query_value(link, "$top"), Some(json!(2)));
        assert_eq!(
            link_query_value("https://x/v?$skiptoken=a%2Bb%3D&x=1", "$skiptoken"),
            Some(json!("a+b="))
        );
        assert_eq!(link_query_value("https://x/v?$skip=", "$skip"), None);
        assert_eq!(link_query_value("https://x/v", "$skip"), None);
        assert_eq!(link_query_value(link, "$skiptoken"), None);
    }
}
