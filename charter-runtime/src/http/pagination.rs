//! Walking a paged endpoint (docs/design.md §8): the pack declares how; the host or the agent decides
//! whether to ask for the next page. The executor never loops on its own.

use reqwest::header::{HeaderMap, LINK};
use serde_json::{Map, Value};

use crate::table::{Pagination, Route, ToolOutput};

/// Where the answer of a route paged through the `Link` header holds its items (when the API
/// answered with a list) and the next page's cursor.
use charter_terms::results::{ITEMS as LINK_ITEMS, NEXT_CURSOR as LINK_NEXT};

/// The arguments of the call that fetches the page after `response`, or `None` when there is no
/// next page (no pagination declared, no cursor, `has_more: false`, an empty or short page).
///
/// - Cursor style: reads the dotted `next` path from the response (a numeric segment indexes an
///   array, `-1` is its last element: `data.-1.id`) and sets it as `param`. A `next` of the form
///   `path?key` reads a next-page URL at `path` and takes its query parameter `key`
///   (`@odata.nextLink?$skip`). A GraphQL (Relay)
///   `pageInfo` keeps its `endCursor` on the last page too, so a `hasNextPage: false` beside the
///   cursor ends the walk. A `next` of `link:REL?KEY` was read from the `Link` header by the
///   executor, which put it in the answer as `next_cursor` (`with_link_cursor`).
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
            let cursor = match charter_terms::http::link_cursor(path) {
                Some(_) => match response.get(LINK_NEXT) {
                    Some(Value::String(s)) if !s.is_empty() => Value::String(s.clone()),
                    _ => return None,
                },
                None => body_cursor(response, path)?,
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

/// The cursor at `path` in the response body (`path?key`: a query parameter of the next-page
/// URL there), or `None` when the walk ends.
fn body_cursor(response: &Value, path: &str) -> Option<Value> {
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
    match link_key {
        Some(key) => {
            let v = query_value(cursor.as_str()?, key)?;
            Some(v.parse::<u64>().map_or(Value::String(v), Value::from))
        }
        None => Some(cursor.clone()),
    }
}

/// The answer of a route whose cursor is in the `Link` header (`next: link:next?after`), with
/// that cursor where the model and [`next_page`] can read it: a list answer becomes
/// `{"items": [...]}` (the same shape on every page), and the cursor of the `rel` link, when the
/// API sent one, is added as `next_cursor` (absent on the last page). Other routes' answers,
/// and answers that are not JSON lists or objects, are returned as they are.
pub(crate) fn with_link_cursor(
    route: &Route,
    headers: &HeaderMap,
    output: ToolOutput,
) -> ToolOutput {
    let Some(Pagination::Cursor { next, .. }) = route.pagination else {
        return output;
    };
    let Some(Ok(link)) = charter_terms::http::link_cursor(next) else {
        return output;
    };
    let mut map = match output.structured {
        Some(Value::Array(items)) => Map::from_iter([(LINK_ITEMS.to_owned(), Value::Array(items))]),
        Some(Value::Object(map)) => map,
        _ => return output,
    };
    let cursor = headers
        .get_all(LINK)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| link_target(v, link.rel))
        .and_then(|url| query_value(url, link.key));
    if let Some(cursor) = cursor {
        map.insert(LINK_NEXT.to_owned(), Value::String(cursor));
    }
    ToolOutput::json(Value::Object(map))
}

/// The URL of the link with relation `rel` in a `Link` header value (RFC 8288:
/// `<https://api.github.com/...?after=X>; rel="next", <...>; rel="prev"`); a `rel` may list
/// several relations, separated by spaces.
fn link_target<'h>(header: &'h str, rel: &str) -> Option<&'h str> {
    let mut rest = header;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after.find('>')?;
        let target = &after[..close];
        let params = &after[close + 1..];
        let end = params.find('<').unwrap_or(params.len());
        let has_rel = params[..end].split(';').any(|param| {
            param.split_once('=').is_some_and(|(name, value)| {
                name.trim().eq_ignore_ascii_case("rel")
                    && value
                        .trim()
                        .trim_end_matches(',')
                        .trim()
                        .trim_matches('"')
                        .split_ascii_whitespace()
                        .any(|r| r.eq_ignore_ascii_case(rel))
            })
        });
        if has_rel {
            return Some(target);
        }
        rest = &params[end..];
    }
    None
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
/// `@odata.nextLink` carries `$skip=10` or `$skiptoken=...`), percent-decoded; `None` when it is
/// absent or empty.
fn query_value(link: &str, key: &str) -> Option<String> {
    use percent_encoding::percent_decode_str;
    let (_, query) = link.split_once('?')?;
    let query = query.split('#').next().unwrap_or_default();
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if percent_decode_str(k).decode_utf8().ok()? != key {
            return None;
        }
        let v = percent_decode_str(v).decode_utf8().ok()?.into_owned();
        (!v.is_empty()).then_some(v)
    })
}

pub use charter_terms::http::path_segments;

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
        assert_eq!(query_value(link, "$skip").as_deref(), Some("20"));
        assert_eq!(query_value(link, "$top").as_deref(), Some("2"));
        assert_eq!(
            query_value("https://x/v?$skiptoken=a%2Bb%3D&x=1", "$skiptoken").as_deref(),
            Some("a+b=")
        );
        assert_eq!(query_value("https://x/v?$skip=", "$skip"), None);
        assert_eq!(query_value("https://x/v", "$skip"), None);
        assert_eq!(query_value(link, "$skiptoken"), None);
        // In a body cursor, a whole number stays a number (it fits an `integer` parameter).
        let page = json!({"@odata.nextLink": link});
        assert_eq!(body_cursor(&page, "@odata.nextLink?$skip"), Some(json!(20)));
    }

    #[test]
    fn the_link_header_is_read_by_relation() {
        let github = "<https://api.github.com/repositories/1/dependabot/alerts?per_page=2&after=Y3Vy%3D>; rel=\"next\", \
                      <https://api.github.com/repositories/1/dependabot/alerts?per_page=2&before=Zm9v>; rel=\"prev\"";
        let next = link_target(github, "next").unwrap();
        assert_eq!(query_value(next, "after").as_deref(), Some("Y3Vy="));
        assert_eq!(
            query_value(link_target(github, "prev").unwrap(), "before").as_deref(),
            Some("Zm9v")
        );
        assert_eq!(link_target(github, "last"), None);
        // Several relations in one `rel`, unquoted values, other parameters, any case.
        let mixed = "<https://x/a?c=1>; title=\"first; page\"; REL=\"last next\"";
        assert_eq!(link_target(mixed, "next"), Some("https://x/a?c=1"));
        assert_eq!(
            link_target("<https://x/b?c=2>;rel=next", "next"),
            Some("https://x/b?c=2")
        );
        assert_eq!(link_target("garbage", "next"), None);
        assert_eq!(link_target("<unclosed; rel=next", "next"), None);
    }
}
