//! A pack tool's operation in the document, and that operation's success response: the
//! tool's URL (the pack's base path and the tool's path) less the document's server path is
//! matched against the document's path templates segment by segment, placeholders by
//! position (their names may differ), the most literal template winning.

use serde_json::Value;
use url::Url;

use super::super::ImportError;
use super::super::doc;
use super::super::names::pointer_token;
use super::super::server;

/// The path of a URL (`https://api.example.com/v2/` → `/v2`); `None` for text that is no
/// absolute URL (`${CHARTER_X_BASE_URL}`, a `{shop}` host).
fn url_path(url: &str) -> Option<String> {
    let url = Url::parse(url.trim()).ok()?;
    Some(url.path().trim_end_matches('/').to_owned())
}

/// The path every operation path of the document is relative to: the first server's
/// (variables at their defaults; a relative URL is a path), or a Swagger 2 `basePath`.
pub(crate) fn server_path(root: &Value) -> String {
    if root.get("swagger").is_some() {
        return root
            .get("basePath")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned();
    }
    let Some(server) = root
        .get("servers")
        .and_then(Value::as_array)
        .and_then(|s| s.first())
    else {
        return String::new();
    };
    let url = server::substitute(
        server
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        server,
    );
    if let Some(path) = url_path(&url) {
        return path;
    }
    if url.starts_with('/') && !url.starts_with("//") {
        let path = url.split(['?', '#']).next().unwrap_or_default();
        return path.trim_end_matches('/').to_owned();
    }
    String::new()
}

/// The pack's base path (`https://www.googleapis.com/drive/v3` → `/drive/v3`).
pub(crate) fn base_path(base_url: &str) -> String {
    url_path(base_url).unwrap_or_default()
}

/// The document's operation for a tool (`method` in any case, `path` the tool's template),
/// with the JSON pointer of the operation. `slash` names the tool's path parameters that
/// may hold a `/` (`allow_slash`): one of them, with the segments around it, may fill one
/// placeholder of the document's (`heads/{branch}` for GitHub's `{ref}`).
pub(crate) fn find<'d>(
    root: &'d Value,
    base_path: &str,
    server_path: &str,
    method: &str,
    path: &str,
    slash: &[&str],
) -> Result<Option<(&'d Value, String)>, ImportError> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let full = format!("{base_path}{path}");
    let Some(local) = full.strip_prefix(server_path) else {
        return Ok(None);
    };
    if !server_path.is_empty() && !local.is_empty() && !local.starts_with('/') {
        return Ok(None);
    }
    let wanted: Vec<&str> = local.trim_matches('/').split('/').collect();
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return Ok(None);
    };
    let method = method.to_ascii_lowercase();
    let mut best: Option<((usize, usize), &'d Value, String)> = None;
    for (template, item) in paths {
        let segments: Vec<&str> = template.trim_matches('/').split('/').collect();
        let Some(score) = fits(&segments, &wanted, slash) else {
            continue;
        };
        let at = format!("/paths/{}", pointer_token(template));
        let (item, item_at) = doc::deref(root, item, &at)?;
        let Some(op) = item.get(&method) else {
            continue;
        };
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            best = Some((score, op, format!("{item_at}/{method}")));
        }
    }
    Ok(best.map(|(_, op, at)| (op, at)))
}

/// Whether the tool's segments fit the document's, and how well: (literal segments of the
/// document matched, segments matched exactly), the most literal template winning
/// (`/v1/users/me` over `/v1/users/{id}` for a tool's `/v1/users/me`).
fn fits(document: &[&str], tool: &[&str], slash: &[&str]) -> Option<(usize, usize)> {
    let (Some((d, d_rest)), Some((t, t_rest))) = (document.split_first(), tool.split_first())
    else {
        return (document.is_empty() && tool.is_empty()).then_some((0, 0));
    };
    let mut best = match fit(d, t) {
        Fit::No => None,
        Fit::Exact => {
            fits(d_rest, t_rest, slash).map(|(l, e)| (l + usize::from(!d.contains('{')), e + 1))
        }
        Fit::Filled => fits(d_rest, t_rest, slash),
    };
    // A whole-segment placeholder of the document's filled by several of the tool's segments,
    // one of which is a parameter that may hold a `/`.
    let whole =
        d.starts_with('{') && d.ends_with('}') && d[1..d.len() - 1].find(['{', '}']).is_none();
    if whole {
        for n in 2..=tool.len() {
            let run = &tool[..n];
            let holds_slash = run.iter().any(|s| {
                s.strip_prefix('{')
                    .and_then(|s| s.strip_suffix('}'))
                    .is_some_and(|name| slash.contains(&name.trim_start_matches('+')))
            });
            if holds_slash && let Some(score) = fits(d_rest, &tool[n..], slash) {
                best = best.max(Some(score));
            }
        }
    }
    best
}

enum Fit {
    No,
    /// The same segment, placeholders in the same places.
    Exact,
    /// A literal of the tool's where the document has a placeholder (`users/me`).
    Filled,
}

/// `{+name}`, `{name}` → `{}`.
fn placeholders_blank(segment: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in segment.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    out.push('{');
                }
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push('}');
                }
            }
            _ if depth > 0 => {}
            c => out.push(c),
        }
    }
    out
}

fn fit(document: &str, tool: &str) -> Fit {
    let d = placeholders_blank(document);
    if d == placeholders_blank(tool) {
        return Fit::Exact;
    }
    if d.contains("{}") && !tool.contains('{') && glob(&d, tool) {
        return Fit::Filled;
    }
    Fit::No
}

/// Whether `text` fits `pattern`, where each `{}` stands for one character or more.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once("{}") {
        None => pattern == text,
        Some((head, tail)) => {
            let Some(rest) = text.strip_prefix(head) else {
                return false;
            };
            (1..=rest.len())
                .filter(|&i| rest.is_char_boundary(i))
                .any(|i| glob(tail, &rest[i..]))
        }
    }
}

/// Where an operation's answer stands.
pub(crate) enum Answer<'d> {
    /// The success response's JSON schema, with its pointer.
    Schema(&'d Value, String),
    /// A JSON success response without a schema.
    NoSchema,
    /// No JSON success response (text, binary, no content).
    NotJson,
}

/// The success codes, in the order they are tried.
const SUCCESS: [&str; 5] = ["200", "201", "202", "203", "2XX"];

/// The operation's success response: the first of 200, 201, 202, 203 and 2XX with a JSON
/// body (`default` only when the operation declares no 2xx code at all).
pub(crate) fn answer<'d>(
    root: &'d Value,
    op: &'d Value,
    at: &str,
) -> Result<Answer<'d>, ImportError> {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return Ok(Answer::NotJson);
    };
    let mut codes: Vec<&String> = Vec::new();
    for wanted in SUCCESS {
        codes.extend(responses.keys().filter(|k| k.eq_ignore_ascii_case(wanted)));
    }
    if !responses.keys().any(|k| k.starts_with('2')) {
        codes.extend(responses.keys().filter(|k| *k == "default"));
    }
    let swagger = root.get("swagger").is_some();
    for code in codes {
        let at = format!("{at}/responses/{}", pointer_token(code));
        let (response, at) = doc::deref(root, &responses[code.as_str()], &at)?;
        if swagger {
            if let Some(answer) = swagger_answer(root, op, response, &at)? {
                return Ok(answer);
            }
            continue;
        }
        let Some(content) = response.get("content").and_then(Value::as_object) else {
            continue;
        };
        let json = content
            .iter()
            .find(|(media, _)| media_is(media, |m| m == "application/json"))
            .or_else(|| {
                content
                    .iter()
                    .find(|(media, _)| media_is(media, |m| m.ends_with("+json")))
            });
        let Some((media, body)) = json else {
            continue;
        };
        return Ok(match body.get("schema") {
            Some(schema) => Answer::Schema(
                schema,
                format!("{at}/content/{}/schema", pointer_token(media)),
            ),
            None => Answer::NoSchema,
        });
    }
    Ok(Answer::NotJson)
}

fn media_is(media: &str, test: impl Fn(&str) -> bool) -> bool {
    let mime = media.split(';').next().unwrap_or_default().trim();
    test(&mime.to_ascii_lowercase())
}

/// A Swagger 2 response: its `schema`, when the operation (or the document) produces JSON.
fn swagger_answer<'d>(
    root: &'d Value,
    op: &'d Value,
    response: &'d Value,
    at: &str,
) -> Result<Option<Answer<'d>>, ImportError> {
    let Some(schema) = response.get("schema") else {
        return Ok(None);
    };
    let produces = op
        .get("produces")
        .or_else(|| root.get("produces"))
        .and_then(Value::as_array);
    let json = produces.is_none_or(|list| {
        list.iter()
            .filter_map(Value::as_str)
            .any(|m| media_is(m, |m| m == "application/json" || m.ends_with("+json")))
    });
    let (resolved, _) = doc::deref(root, schema, &format!("{at}/schema"))?;
    if !json || resolved.get("type").and_then(Value::as_str) == Some("file") {
        return Ok(None);
    }
    Ok(Some(Answer::Schema(schema, format!("{at}/schema"))))
}
