//! Operations → tools: the stages of one operation, each in its module: `fixed` (a query or
//! fragment in the path), `params` (path, query, header parameters and the URL template),
//! `body` (the request body's fields) and `pagination`.

mod body;
pub(crate) mod fixed;
mod pagination;
pub(crate) mod params;

use std::collections::HashSet;

use serde_json::Value;

pub(crate) use pagination::response_properties;

use super::model::{Cx, In, Issue, Kind, OpRef, Tool};
use super::names::pointer_token;
use super::schema::Conv;
use super::{ImportError, NoteKind, doc, text};

const METHODS: &[(&str, &str)] = &[
    ("get", "GET"),
    ("put", "PUT"),
    ("post", "POST"),
    ("delete", "DELETE"),
    ("options", "OPTIONS"),
    ("head", "HEAD"),
    ("patch", "PATCH"),
    ("trace", "TRACE"),
];

/// Every operation, in document order.
pub(crate) fn collect(root: &Value) -> Result<Vec<OpRef<'_>>, ImportError> {
    let mut out = Vec::new();
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return Ok(out);
    };
    for (path, item) in paths {
        // `x-` keys of the Paths object are extensions, not paths.
        if path.starts_with("x-") {
            continue;
        }
        let item_ptr = format!("/paths/{}", pointer_token(path));
        let (item, item_ptr) = doc::deref(root, item, &item_ptr)?;
        let Some(item) = item.as_object() else {
            return Err(ImportError::Invalid {
                pointer: item_ptr,
                message: format!("a path item must be an object, found {}", doc::kind(item)),
            });
        };
        for (key, op) in item {
            let Some(&(_, method)) = METHODS.iter().find(|(k, _)| k == key) else {
                continue;
            };
            let ptr = format!("{item_ptr}/{key}");
            let Some(op) = op.as_object() else {
                return Err(ImportError::Invalid {
                    pointer: ptr,
                    message: format!("an operation must be an object, found {}", doc::kind(op)),
                });
            };
            let operation_id = match op.get("operationId") {
                None => None,
                Some(Value::String(s)) if !s.trim().is_empty() => Some(s.as_str()),
                Some(Value::String(_)) => None,
                Some(v) => {
                    return Err(ImportError::Invalid {
                        pointer: format!("{ptr}/operationId"),
                        message: format!("`operationId` must be a string, found {}", doc::kind(v)),
                    });
                }
            };
            let id = operation_id.map_or_else(|| format!("{method} {path}"), str::to_owned);
            out.push(OpRef {
                path,
                method,
                ptr,
                op,
                item,
                item_ptr: item_ptr.clone(),
                id,
                operation_id,
            });
        }
    }
    Ok(out)
}

/// Why an operation is not a tool: a reason reported per operation, or a document error.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The operation is skipped, with this reason.
    Skip(String),
    /// The document is broken: the whole import fails.
    Invalid(ImportError),
}

impl From<ImportError> for Refusal {
    fn from(e: ImportError) -> Self {
        Refusal::Invalid(e)
    }
}

pub(super) fn note(issues: &mut Vec<Issue>, kind: NoteKind, message: String) {
    issues.push(Issue { kind, message });
}

/// Builds the tool for `op` (named `name`), or the reason it cannot be one.
pub(crate) fn build(
    conv: &mut Conv<'_>,
    cx: &Cx<'_>,
    op: &OpRef<'_>,
    name: &str,
) -> Result<Tool, Refusal> {
    let method = op.method;
    if !matches!(method, "GET" | "PUT" | "POST" | "DELETE" | "PATCH" | "HEAD") {
        return Err(Refusal::Skip(format!(
            "{method} is not a method a pack can declare"
        )));
    }
    if !op.path.starts_with('/') {
        return Err(Refusal::Skip(format!(
            "the path `{}` does not start with `/`",
            op.path
        )));
    }
    let raw = params::declared(cx, op)?;
    let fixed = fixed::split(op.path, &raw)?;
    let holders = params::placeholders(&fixed.path)
        .map_err(|e| Refusal::Skip(format!("malformed URL template `{}`: {e}", fixed.path)))?;
    let mut issues: Vec<Issue> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    let declared = params::convert(conv, cx, &raw, &fixed.path, &mut taken, &mut issues)?;
    let (path, mut params) =
        params::template(&fixed.path, &holders, declared, &mut taken, &mut issues);
    fixed::drop_replaced(&fixed, &mut params, &mut issues);
    let form = body::add(conv, cx, op, &mut params, &mut taken, &mut issues)?;

    // Path parameters, the operation's own, the body's fields, then the shared ones.
    params.sort_by_key(|p| match (p.location, p.shared) {
        (In::Path, _) => 0,
        (In::Body, _) => 2,
        (_, false) => 1,
        (_, true) => 3,
    });
    server_note(cx, op, &mut issues);
    let description = description(conv, cx, op);
    let pagination = pagination::pagination(cx.root, op, &params);
    Ok(Tool {
        name: name.to_owned(),
        operation: op.id.clone(),
        description,
        method,
        path,
        params,
        form,
        pagination,
        issues,
        headers: fixed.headers,
        query: fixed.query,
    })
}

/// An operation served elsewhere keeps the pack's base URL, with a note.
fn server_note(cx: &Cx<'_>, op: &OpRef<'_>, issues: &mut Vec<Issue>) {
    if let Some(Value::Array(servers)) = op.op.get("servers")
        && let Some(url) = servers
            .first()
            .and_then(|s| s.get("url"))
            .and_then(Value::as_str)
        && url.trim_end_matches('/') != cx.base_url
    {
        note(
            issues,
            NoteKind::Server,
            format!(
                "the operation is served from `{url}`; the pack's base URL `{}` is used",
                cx.base_url
            ),
        );
    }
}

/// The tool's description: summary and description cleaned and shortened, or `METHOD path`.
fn description(conv: &mut Conv<'_>, cx: &Cx<'_>, op: &OpRef<'_>) -> String {
    let text_of = |k: &str| op.op.get(k).and_then(Value::as_str).unwrap_or_default();
    let full = text::tool_description(text_of("summary"), text_of("description"), usize::MAX);
    let mut description = text::shorten(&full, cx.max_description);
    if description.len() < full.len() {
        conv.stats.shortened_descriptions += 1;
    }
    if description.is_empty() {
        conv.stats.generated_descriptions += 1;
        description = format!("{} {}.", op.method, op.path);
    }
    if op.op.get("deprecated") == Some(&Value::Bool(true)) {
        description = format!("Deprecated. {description}");
    }
    description
}

pub(crate) fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::Any => "any value",
        Kind::String => "a string",
        Kind::Integer => "an integer",
        Kind::Number => "a number",
        Kind::Boolean => "a boolean",
        Kind::Object(_) => "an object",
        Kind::Array(_) => "a list",
        Kind::Map(_) => "a free-form object",
        Kind::Ref(_) => "a named type",
        Kind::OneOf(_) => "a choice of shapes",
    }
}
