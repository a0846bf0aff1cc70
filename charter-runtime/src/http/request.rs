//! Turning a validated call into the exact request a pack declares (docs/design.md §8).
//!
//! Pure and synchronous: no network, no credentials (the executor adds the auth header last),
//! so it can be tested and benchmarked on its own. The order in which parts are applied is the
//! contract: arguments (path, query, header, body), then per-call headers from
//! [`CallContext::headers`], then the pack's static headers/query/body, which replace any value
//! under the same key: the model can neither see nor override them.

use std::borrow::Cow;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

use crate::context::CallContext;
use crate::error::{CharterError, DeclarationError};
use crate::table::{Auth, BodyEncoding, Field, ListStyle, Location, Method, Route, Shape, ToolDef};
use crate::validate::json_kind;

use super::credentials::Secret;

/// RFC 3986 unreserved characters stay; everything else is percent-encoded (a path segment,
/// a query or form value).
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');
/// Query and form keys keep their brackets literal (`tag[]`, `metadata[key]`), as the APIs that
/// use bracket notation document them.
const KEY: &AsciiSet = &VALUE.remove(b'[').remove(b']');

/// A request ready to send, minus the credential.
#[derive(Debug, Clone)]
pub struct PreparedRequest {
    /// The method.
    pub method: reqwest::Method,
    /// The full URL: base URL, expanded path, query string.
    pub url: String,
    /// Header parameters, per-call headers, the content type and the pack's static headers.
    pub headers: HeaderMap,
    /// The encoded body, when the route has one.
    pub body: Option<Vec<u8>>,
}

/// The reqwest method for a table method.
pub fn method(method: Method) -> reqwest::Method {
    match method {
        Method::Get => reqwest::Method::GET,
        Method::Head => reqwest::Method::HEAD,
        Method::Post => reqwest::Method::POST,
        Method::Put => reqwest::Method::PUT,
        Method::Patch => reqwest::Method::PATCH,
        Method::Delete => reqwest::Method::DELETE,
    }
}

/// Builds the request for one validated call of `tool` against `base_url`.
///
/// Arguments the tool does not declare are ignored (validation has refused them already); an
/// absent optional field is not sent. Everything wrong with the arguments is reported in one
/// validation error; a table that contradicts itself is a declaration error.
pub fn build_request(
    tool: &ToolDef,
    route: &Route,
    base_url: &str,
    arguments: &Value,
    ctx: &CallContext,
) -> Result<PreparedRequest, CharterError> {
    let empty = Map::new();
    let args = match arguments {
        Value::Object(map) => map,
        Value::Null => &empty,
        other => {
            return Err(CharterError::validation(format!(
                "the arguments must be a JSON object, got {}",
                json_kind(other)
            )));
        }
    };
    let fields = tool.input.fields;
    let mut problems = Vec::new();

    let path = expand_path(route.path, fields, args, &mut problems)?;

    // A model value under a static key is never written: the constant replaces it. The
    // tool's constants come after the pack's and replace them under the same key.
    let statics: Vec<(&str, &str)> = route
        .pack
        .query
        .iter()
        .filter(|(k, _)| !route.query.iter().any(|(t, _)| t == k))
        .chain(route.query)
        .copied()
        .collect();
    let mut query = String::new();
    let mut headers = HeaderMap::new();
    for field in fields {
        let Some(value) = args.get(field.name) else {
            continue;
        };
        match field.location {
            Location::Query if statics.iter().any(|(k, _)| *k == field.wire) => {}
            Location::Query => query_field(field, value, &mut query),
            Location::Header => header_field(field, value, &mut headers, &mut problems)?,
            Location::Path | Location::Body | Location::BodySpread | Location::Arg => {}
        }
    }
    if !problems.is_empty() {
        return Err(CharterError::Validation(problems.join("\n")));
    }

    for (name, value) in &ctx.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            declaration(format!(
                "the per-call header name `{name}` is not a valid HTTP header name"
            ))
        })?;
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            declaration(format!(
                "the value of the per-call header `{name}` is not a valid HTTP header value"
            ))
        })?;
        // The host may pass tokens this way: keep them out of any debug output.
        value.set_sensitive(true);
        headers.insert(name, value);
    }

    let body = build_body(route, fields, args, &mut headers)?;

    for (name, value) in route.pack.headers.iter().chain(route.headers) {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            declaration(format!(
                "pack `{}`: `{name}` is not a valid HTTP header name",
                route.pack.label
            ))
        })?;
        let value = HeaderValue::from_str(value).map_err(|_| {
            declaration(format!(
                "pack `{}`: the value of header `{name}` is not a valid header value",
                route.pack.label
            ))
        })?;
        headers.insert(name, value);
    }
    for (key, value) in statics {
        push_pair(&mut query, key, |out| {
            out.extend(utf8_percent_encode(value, VALUE))
        });
    }

    let mut url = String::with_capacity(base_url.len() + path.len() + query.len() + 1);
    url.push_str(base_url.trim_end_matches('/'));
    url.push_str(&path);
    if !query.is_empty() {
        url.push(if path.contains('?') { '&' } else { '?' });
        url.push_str(&query);
    }

    Ok(PreparedRequest {
        method: method(route.method),
        url,
        headers,
        body,
    })
}

/// The header carrying the credential, marked sensitive so no debug output prints it.
pub fn auth_header(
    auth: &Auth,
    secret: &Secret,
) -> Result<Option<(HeaderName, HeaderValue)>, CharterError> {
    use base64::Engine as _;
    let (name, text) = match auth {
        Auth::None => return Ok(None),
        Auth::Bearer { .. } => (
            reqwest::header::AUTHORIZATION,
            format!("Bearer {}", secret.expose()),
        ),
        Auth::Header { name, prefix, .. }
        | Auth::OAuth2(crate::table::OAuth2 {
            header: name,
            prefix,
            ..
        }) => {
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                declaration(format!(
                    "the auth header name `{name}` is not a valid HTTP header name"
                ))
            })?;
            (name, format!("{prefix}{}", secret.expose()))
        }
        Auth::Basic { .. } => {
            let pair = basic_pair(secret);
            let encoded = base64::engine::general_purpose::STANDARD.encode(pair.as_bytes());
            (reqwest::header::AUTHORIZATION, format!("Basic {encoded}"))
        }
    };
    let mut value = HeaderValue::from_str(&text).map_err(|_| {
        CharterError::Credential(format!(
            "the credential in {} is not a valid HTTP header value (check for a stray newline)",
            auth.env().unwrap_or("the provider")
        ))
    })?;
    value.set_sensitive(true);
    Ok(Some((name, value)))
}

/// `user:password` for basic auth: a bare key is the user name with an empty password.
pub(crate) fn basic_pair(secret: &Secret) -> Cow<'_, str> {
    let raw = secret.expose();
    if raw.contains(':') {
        Cow::Borrowed(raw)
    } else {
        Cow::Owned(format!("{raw}:"))
    }
}

fn declaration(message: String) -> CharterError {
    CharterError::Declaration(DeclarationError::new(message))
}

// ---------------------------------------------------------------------------------------------
// Path.

fn expand_path(
    template: &str,
    fields: &[Field],
    args: &Map<String, Value>,
    problems: &mut Vec<String>,
) -> Result<String, CharterError> {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or_else(|| {
            declaration(format!(
                "the URL template `{template}` has an unclosed `{{`"
            ))
        })?;
        let name = &after[..close];
        rest = &after[close + 1..];
        let field = fields
            .iter()
            .find(|f| f.location == Location::Path && (f.name == name || f.wire == name))
            .ok_or_else(|| declaration(format!("the URL template `{template}` uses `{{{name}}}` but no path field is declared for it")))?;
        match args.get(field.name) {
            None | Some(Value::Null) => problems.push(format!(
                "`{}`: required (a path argument), but missing",
                field.name
            )),
            Some(value) => match path_value(field, value) {
                Ok(encoded) => out.push_str(&encoded),
                Err(problem) => problems.push(problem),
            },
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn path_value(field: &Field, value: &Value) -> Result<String, String> {
    let text: Cow<'_, str> = match value {
        Value::String(s) => Cow::Borrowed(s),
        Value::Number(n) => Cow::Owned(n.to_string()),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        other => {
            return Err(format!(
                "`{}`: a path argument must be a string or a number, got {}",
                field.name,
                json_kind(other)
            ));
        }
    };
    if text.is_empty() {
        return Err(format!(
            "`{}`: a path argument may not be empty",
            field.name
        ));
    }
    if has_dot_segment(&text) {
        return Err(format!(
            "`{}`: a path argument may not contain a `.` or `..` segment (also when percent-encoded), got {:?}",
            field.name, text
        ));
    }
    if field.allow_slash {
        if text.split('/').any(str::is_empty) {
            return Err(format!(
                "`{}`: empty path segments (a leading, trailing or doubled `/`) are not allowed, got {:?}",
                field.name, text
            ));
        }
        let mut out = String::with_capacity(text.len() + 8);
        for (i, segment) in text.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            out.extend(utf8_percent_encode(segment, VALUE));
        }
        Ok(out)
    } else {
        Ok(utf8_percent_encode(&text, VALUE).to_string())
    }
}

/// Whether the value, read the way a lax server might read it (percent-decoded repeatedly,
/// `/` or `\` as separators), holds a `.` or `..` segment.
fn has_dot_segment(raw: &str) -> bool {
    let mut current = Cow::Borrowed(raw);
    for _ in 0..4 {
        if current.split(['/', '\\']).any(|s| s == "." || s == "..") {
            return true;
        }
        if !current.contains('%') {
            return false;
        }
        let decoded = percent_decode_str(&current)
            .decode_utf8_lossy()
            .into_owned();
        if decoded == current {
            return false;
        }
        current = Cow::Owned(decoded);
    }
    // Still decoding after four rounds: nobody encodes a real identifier like that.
    true
}

// ---------------------------------------------------------------------------------------------
// Query.

/// The shape every undeclared value has.
static ANY: Shape = Shape::Any;

fn query_field(field: &Field, value: &Value, out: &mut String) {
    let wire = field.wire;
    match value {
        Value::Null => {}
        Value::Array(items) if items.iter().all(is_scalar) => match field.style {
            ListStyle::Repeat => {
                for item in items {
                    push_pair(out, wire, |out| write_scalar(out, item));
                }
            }
            ListStyle::Brackets => {
                let key = format!("{wire}[]");
                for item in items {
                    push_pair(out, &key, |out| write_scalar(out, item));
                }
            }
            ListStyle::Comma => {
                if !items.is_empty() {
                    push_pair(out, wire, |out| {
                        for (i, item) in items.iter().enumerate() {
                            if i > 0 {
                                out.push(',');
                            }
                            write_scalar(out, item);
                        }
                    });
                }
            }
        },
        // Nested values use bracket notation (`filter[state]=open`, `items[0][id]=1`).
        Value::Array(_) | Value::Object(_) => {
            flatten(out, &mut wire.to_owned(), value, field.shape)
        }
        scalar => push_pair(out, wire, |out| write_scalar(out, scalar)),
    }
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// Appends `&key=value` (no `&` first) with the key encoded; `value` writes its encoded text.
fn push_pair(out: &mut String, key: &str, value: impl FnOnce(&mut String)) {
    if !out.is_empty() {
        out.push('&');
    }
    out.extend(utf8_percent_encode(key, KEY));
    out.push('=');
    value(out);
}

/// A scalar as percent-encoded text (null as empty).
fn write_scalar(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.extend(utf8_percent_encode(s, VALUE)),
        Value::Null => {}
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // Percent-encoded too: a float's exponent may carry a `+`, which a form decoder reads
        // as a space.
        Value::Number(n) => out.extend(utf8_percent_encode(&n.to_string(), VALUE)),
        other => out.extend(utf8_percent_encode(&other.to_string(), VALUE)),
    }
}

/// Bracket notation with wire names at every depth: `key[sub]`, `key[0]`; values
/// percent-encoded; null as `key=` (Stripe's documented "unset this field").
///
/// An empty object or list has no pairs, so it sends nothing, as Stripe's own clients encode it
/// (stripe-node, stripe-python and stripe-ruby drop both): `{}` sets no member, and `key=` would
/// say "unset" instead (for `metadata`, delete every key). A declared list in a form body can
/// never be empty (the compiler gives it `min_items: 1`, docs/pack-format.md, `body_encoding`);
/// only free-form values reach this with `[]`.
fn flatten(out: &mut String, key: &mut String, value: &Value, shape: &Shape) {
    use std::fmt::Write as _;
    let shape = resolve(shape, value);
    match value {
        Value::Object(map) if !map.is_empty() => {
            let len = key.len();
            match shape {
                Shape::Object(object) => {
                    for field in object.fields {
                        if let Some(v) = map.get(field.name) {
                            key.push('[');
                            key.push_str(field.wire);
                            key.push(']');
                            flatten(out, key, v, field.shape);
                            key.truncate(len);
                        }
                    }
                }
                other => {
                    let inner = if let Shape::Map(inner) = other {
                        inner
                    } else {
                        &ANY
                    };
                    for (k, v) in map {
                        key.push('[');
                        key.push_str(k);
                        key.push(']');
                        flatten(out, key, v, inner);
                        key.truncate(len);
                    }
                }
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let inner = if let Shape::Array(rules) = shape {
                rules.items
            } else {
                &ANY
            };
            let len = key.len();
            for (i, v) in items.iter().enumerate() {
                let _ = write!(key, "[{i}]");
                flatten(out, key, v, inner);
                key.truncate(len);
            }
        }
        Value::Object(_) | Value::Array(_) => {}
        scalar => push_pair(out, key, |out| write_scalar(out, scalar)),
    }
}

/// The shape a value was validated against: nullable unwrapped, the fitting `one_of` branch.
fn resolve<'s>(shape: &'s Shape, value: &Value) -> &'s Shape {
    match shape.bare() {
        Shape::Nullable(inner) => resolve(inner, value),
        Shape::OneOf(branches) | Shape::AnyOf(branches) => {
            match branches.iter().find(|b| branch_fits(b, value)) {
                Some(branch) => resolve(branch, value),
                None => &ANY,
            }
        }
        other => other,
    }
}

// ---------------------------------------------------------------------------------------------
// Headers.

fn header_field(
    field: &Field,
    value: &Value,
    headers: &mut HeaderMap,
    problems: &mut Vec<String>,
) -> Result<(), CharterError> {
    let text = match value {
        Value::Null => return Ok(()),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) if items.iter().all(is_scalar) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(","),
        other => {
            problems.push(format!(
                "`{}`: a header argument must be a string, a number or a list of them, got {}",
                field.name,
                json_kind(other)
            ));
            return Ok(());
        }
    };
    let name = HeaderName::from_bytes(field.wire.as_bytes()).map_err(|_| {
        declaration(format!(
            "the header field `{}` has an invalid wire name `{}`",
            field.name, field.wire
        ))
    })?;
    match HeaderValue::from_str(&text) {
        Ok(value) => {
            headers.insert(name, value);
        }
        Err(_) => problems.push(format!(
            "`{}`: a header value may not contain control characters such as a newline",
            field.name
        )),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Body.

fn build_body(
    route: &Route,
    fields: &[Field],
    args: &Map<String, Value>,
    headers: &mut HeaderMap,
) -> Result<Option<Vec<u8>>, CharterError> {
    let in_body = |f: &&Field| {
        matches!(
            f.location,
            Location::Body | Location::BodySpread | Location::Arg
        )
    };

    if let Some(document) = route.graphql {
        let mut variables = Map::new();
        for field in fields.iter().filter(in_body) {
            if let Some(value) = args.get(field.name) {
                variables.insert(
                    field.wire.to_owned(),
                    to_wire(value, field.shape).into_owned(),
                );
            }
        }
        let mut body = Map::new();
        body.insert("query".to_owned(), Value::String(document.to_owned()));
        body.insert("variables".to_owned(), Value::Object(variables));
        apply_static_json(route, &mut body)?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        return Ok(Some(
            serde_json::to_vec(&Value::Object(body)).expect("a JSON value serialises"),
        ));
    }

    match route.body {
        BodyEncoding::None => {
            if let Some(field) = fields
                .iter()
                .find(|f| matches!(f.location, Location::Body | Location::BodySpread))
            {
                return Err(declaration(format!(
                    "`{}` is a body field but the route {} {} declares no body encoding",
                    field.name,
                    route.method.as_str(),
                    route.path
                )));
            }
            Ok(None)
        }
        BodyEncoding::Json => {
            // Always an object when the route declares a body: the shape never depends on
            // which fields this call happened to fill.
            let mut body = Map::new();
            for field in fields.iter().filter(in_body) {
                body_members(field, args, |key, value, shape| {
                    body.insert(key.to_owned(), to_wire(value, shape).into_owned());
                });
            }
            apply_static_json(route, &mut body)?;
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            Ok(Some(
                serde_json::to_vec(&Value::Object(body)).expect("a JSON value serialises"),
            ))
        }
        BodyEncoding::Form => {
            let statics = route.pack.body;
            let mut body = String::new();
            for field in fields.iter().filter(in_body) {
                if statics.iter().any(|(name, _)| *name == field.wire) {
                    continue; // replaced by the pack's constant below
                }
                body_members(field, args, |key, value, shape| {
                    flatten(&mut body, &mut key.to_owned(), value, shape);
                });
            }
            for (name, json) in statics {
                let value = static_value(route, name, json)?;
                flatten(&mut body, &mut (*name).to_owned(), &value, &ANY);
            }
            headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            );
            Ok(Some(body.into_bytes()))
        }
    }
}

/// Calls `each` with the body members one field's argument makes: the field itself under its
/// wire name, or, for [`Location::BodySpread`], every member of its map (none when absent).
fn body_members<'a>(
    field: &Field,
    args: &'a Map<String, Value>,
    mut each: impl FnMut(&'a str, &'a Value, &'static Shape),
) {
    match (field.location, args.get(field.name)) {
        (Location::BodySpread, Some(Value::Object(members))) => {
            let inner = spread_values(field.shape);
            for (key, value) in members {
                each(key, value, inner);
            }
        }
        (Location::BodySpread, _) | (_, None) => {}
        (_, Some(value)) => each(field.wire, value, field.shape),
    }
}

/// The shape of a spread map's values (any value when the field is not a map).
fn spread_values(shape: &'static Shape) -> &'static Shape {
    match shape.bare() {
        Shape::Map(inner) => inner,
        Shape::Nullable(inner) => spread_values(inner),
        _ => &ANY,
    }
}

fn apply_static_json(route: &Route, body: &mut Map<String, Value>) -> Result<(), CharterError> {
    for (name, json) in route.pack.body {
        let value = static_value(route, name, json)?;
        // Removed first so the constant lands last, whatever the arguments held.
        body.shift_remove(*name);
        body.insert((*name).to_owned(), value);
    }
    Ok(())
}

fn static_value(route: &Route, name: &str, json: &str) -> Result<Value, CharterError> {
    serde_json::from_str(json).map_err(|e| {
        declaration(format!(
            "pack `{}`: the static body member `{name}` is not valid JSON: {e}",
            route.pack.label
        ))
    })
}

/// The value with every declared key renamed to its wire name, at every depth, in declaration
/// order. Undeclared keys under a declared object are dropped; free-form values pass unchanged.
fn to_wire<'v>(value: &'v Value, shape: &Shape) -> Cow<'v, Value> {
    match (shape.bare(), value) {
        (Shape::Nullable(inner), v) => to_wire(v, inner),
        (Shape::Object(object), Value::Object(map)) => {
            let mut out = Map::new();
            for field in object.fields {
                if let Some(v) = map.get(field.name) {
                    out.insert(field.wire.to_owned(), to_wire(v, field.shape).into_owned());
                }
            }
            Cow::Owned(Value::Object(out))
        }
        (Shape::Array(rules), Value::Array(items)) => {
            if is_plain(rules.items) {
                Cow::Borrowed(value)
            } else {
                Cow::Owned(Value::Array(
                    items
                        .iter()
                        .map(|v| to_wire(v, rules.items).into_owned())
                        .collect(),
                ))
            }
        }
        (Shape::Map(inner), Value::Object(map)) => {
            if is_plain(inner) {
                Cow::Borrowed(value)
            } else {
                Cow::Owned(Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), to_wire(v, inner).into_owned()))
                        .collect(),
                ))
            }
        }
        (Shape::OneOf(branches) | Shape::AnyOf(branches), v) => {
            match branches.iter().find(|b| branch_fits(b, v)) {
                Some(branch) => to_wire(v, branch),
                None => Cow::Borrowed(v),
            }
        }
        _ => Cow::Borrowed(value),
    }
}

/// A shape whose values need no renaming.
fn is_plain(shape: &Shape) -> bool {
    match shape.bare() {
        Shape::Any | Shape::Bool | Shape::Integer(_) | Shape::Number(_) | Shape::String(_) => true,
        Shape::Nullable(inner) => is_plain(inner),
        _ => false,
    }
}

/// Whether a `one_of` branch is the one a value was validated against (first fit wins).
fn branch_fits(shape: &Shape, value: &Value) -> bool {
    match (shape.bare(), value) {
        (Shape::Nullable(inner), v) => v.is_null() || branch_fits(inner, v),
        (Shape::Object(object), Value::Object(map)) => {
            map.keys()
                .all(|k| object.fields.iter().any(|f| f.name == k))
                && object
                    .fields
                    .iter()
                    .filter(|f| f.required)
                    .all(|f| map.contains_key(f.name))
        }
        (Shape::Map(_), Value::Object(_)) | (Shape::Array(_), Value::Array(_)) => true,
        (Shape::String(_), Value::String(_)) | (Shape::Bool, Value::Bool(_)) => true,
        (Shape::Integer(_), Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Shape::Number(_), Value::Number(_)) => true,
        (Shape::OneOf(inner) | Shape::AnyOf(inner), v) => inner.iter().any(|b| branch_fits(b, v)),
        (Shape::Any, _) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_are_found_in_every_spelling() {
        for bad in [
            ".",
            "..",
            "a/../b",
            "../etc",
            "%2e%2e",
            "%2E%2E/x",
            "%252e%252e",
            "a\\..\\b",
            "%2e",
            ".%2e",
        ] {
            assert!(has_dot_segment(bad), "{bad}");
        }
        for ok in [
            "...",
            "a.b",
            "v1.2",
            "..a",
            "a..",
            "%2e%2e%2e",
            "file.tar.gz",
        ] {
            assert!(!has_dot_segment(ok), "{ok}");
        }
    }

    #[test]
    fn flatten_uses_brackets_and_indices() {
        let mut out = String::new();
        flatten(
            &mut out,
            &mut "items".to_owned(),
            &serde_json::json!([{"price": "p_1", "qty": 2}, {"price": "a b"}, [], {}, null]),
            &ANY,
        );
        // `[]` and `{}` have no pairs; null is the empty value. Indices keep their places.
        assert_eq!(
            out,
            "items[0][price]=p_1&items[0][qty]=2&items[1][price]=a%20b&items[4]="
        );
        let mut out = String::new();
        flatten(
            &mut out,
            &mut "metadata".to_owned(),
            &serde_json::json!({}),
            &ANY,
        );
        assert_eq!(out, "");
    }
}
