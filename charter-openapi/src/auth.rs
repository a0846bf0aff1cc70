//! The pack's auth from the document's `securitySchemes` (docs/openapi-import.md, "Auth").

use serde_json::Value;

use super::model::Auth;
use super::{ImportError, doc, names};

/// The pack's auth from `securitySchemes`, preferring the schemes the document requires.
pub(crate) fn auth(
    root: &Value,
    label: &str,
    notes: &mut Vec<String>,
) -> Result<(Option<Auth>, Option<String>), ImportError> {
    let Some(schemes) = root
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    else {
        notes.push("the document declares no security scheme: `auth` is left out (add it by hand if the API needs a credential)".into());
        return Ok((None, None));
    };
    let env = names::env_prefix(label);
    let required: Vec<&str> = root
        .get("security")
        .and_then(Value::as_array)
        .map(|reqs| {
            reqs.iter()
                .filter_map(Value::as_object)
                .flat_map(|o| o.keys().map(String::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut candidates: Vec<Candidate> = Vec::new();
    for (name, scheme) in schemes {
        let (scheme, _) = doc::deref(
            root,
            scheme,
            &format!("/components/securitySchemes/{}", names::pointer_token(name)),
        )?;
        let preferred = u8::from(!required.is_empty() && !required.contains(&name.as_str()));
        match candidate(name, scheme, &env) {
            Ok(mut c) => {
                c.rank += preferred * 10;
                candidates.push(c);
            }
            Err(note) => notes.push(note),
        }
    }
    candidates.sort_by_key(|c| c.rank);
    let Some(Candidate {
        auth, param, what, ..
    }) = candidates.into_iter().next()
    else {
        notes.push("no security scheme maps to pack auth: `auth` is left out".into());
        return Ok((None, None));
    };
    notes.push(format!(
        "auth from {what}: `{}` in `{}`",
        auth.scheme, auth.env
    ));
    Ok((Some(auth), param))
}

/// One security scheme that maps to pack auth; the lowest `rank` wins.
struct Candidate {
    rank: u8,
    auth: Auth,
    /// The header the credential travels in, when the scheme names one.
    param: Option<String>,
    what: String,
}

/// The pack auth `scheme` maps to, or the note saying why it cannot be one.
fn candidate(name: &str, scheme: &Value, env: &str) -> Result<Candidate, String> {
    let field = |key: &str| scheme.get(key).and_then(Value::as_str).unwrap_or_default();
    let (kind, location, param) = (field("type"), field("in"), field("name"));
    let http = field("scheme").to_ascii_lowercase();
    let auth = |scheme: &'static str, suffix: &str, header: Option<&str>| Auth {
        scheme,
        env: format!("{env}_{suffix}"),
        header: header.map(str::to_owned),
    };
    let found = |rank, auth, param: Option<&str>, what| {
        Ok(Candidate {
            rank,
            auth,
            param: param.map(str::to_owned),
            what,
        })
    };
    match (kind, http.as_str(), location) {
        ("http", "bearer", _) => found(
            0,
            auth("bearer", "TOKEN", None),
            None,
            format!("`{name}` (HTTP bearer)"),
        ),
        ("apiKey", _, "header") if param.eq_ignore_ascii_case("authorization") => found(
            1,
            auth("bearer", "TOKEN", None),
            Some(param),
            format!("`{name}` (API key in the Authorization header, sent as a bearer token)"),
        ),
        ("apiKey", _, "header") if !charter_terms::http::valid_header_name(param) => Err(format!(
            "security scheme `{name}` names the header `{param}`, which is not a valid HTTP header name: left out"
        )),
        ("apiKey", _, "header") => found(
            1,
            auth("header", "API_KEY", Some(param)),
            Some(param),
            format!("`{name}` (API key in header `{param}`)"),
        ),
        ("http", "basic", _) => found(
            2,
            auth("basic", "API_KEY", None),
            None,
            format!("`{name}` (HTTP basic)"),
        ),
        ("oauth2" | "openIdConnect", _, _) => found(
            3,
            auth("bearer", "TOKEN", None),
            None,
            format!(
                "`{name}` ({kind}: the variable holds an access token obtained outside charter)"
            ),
        ),
        _ => Err(format!(
            "security scheme `{name}` ({kind}{}) cannot be declared as pack auth",
            if location.is_empty() {
                String::new()
            } else {
                format!(" in {location}")
            }
        )),
    }
}
