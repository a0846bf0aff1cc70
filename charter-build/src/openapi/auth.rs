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
    let mut candidates: Vec<(u8, Auth, Option<String>, String)> = Vec::new();
    for (name, scheme) in schemes {
        let (scheme, _) = doc::deref(
            root,
            scheme,
            &format!("/components/securitySchemes/{}", names::pointer_token(name)),
        )?;
        let kind = scheme
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let http = scheme
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let location = scheme.get("in").and_then(Value::as_str).unwrap_or_default();
        let param = scheme
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let preferred = u8::from(!required.is_empty() && !required.contains(&name.as_str()));
        match (kind, http.as_str(), location) {
            ("http", "bearer", _) => candidates.push((
                preferred * 10,
                Auth {
                    scheme: "bearer",
                    env: format!("{env}_TOKEN"),
                    header: None,
                },
                None,
                format!("`{name}` (HTTP bearer)"),
            )),
            ("apiKey", _, "header") if param.eq_ignore_ascii_case("authorization") => candidates
                .push((
                    preferred * 10 + 1,
                    Auth {
                        scheme: "bearer",
                        env: format!("{env}_TOKEN"),
                        header: None,
                    },
                    Some(param.to_owned()),
                    format!(
                        "`{name}` (API key in the Authorization header, sent as a bearer token)"
                    ),
                )),
            ("apiKey", _, "header") if !crate::check::valid_header_name(param) => notes.push(format!(
                "security scheme `{name}` names the header `{param}`, which is not a valid HTTP header name: left out"
            )),
            ("apiKey", _, "header") => candidates.push((
                preferred * 10 + 1,
                Auth {
                    scheme: "header",
                    env: format!("{env}_API_KEY"),
                    header: Some(param.to_owned()),
                },
                Some(param.to_owned()),
                format!("`{name}` (API key in header `{param}`)"),
            )),
            ("http", "basic", _) => candidates.push((
                preferred * 10 + 2,
                Auth {
                    scheme: "basic",
                    env: format!("{env}_API_KEY"),
                    header: None,
                },
                None,
                format!("`{name}` (HTTP basic)"),
            )),
            ("oauth2" | "openIdConnect", _, _) => candidates.push((
                preferred * 10 + 3,
                Auth {
                    scheme: "bearer",
                    env: format!("{env}_TOKEN"),
                    header: None,
                },
                None,
                format!(
                    "`{name}` ({kind}: the variable holds an access token obtained outside charter)"
                ),
            )),
            _ => notes.push(format!(
                "security scheme `{name}` ({kind}{}) cannot be declared as pack auth",
                if location.is_empty() {
                    String::new()
                } else {
                    format!(" in {location}")
                }
            )),
        }
    }
    candidates.sort_by_key(|c| c.0);
    let Some((_, auth, param, what)) = candidates.into_iter().next() else {
        notes.push("no security scheme maps to pack auth: `auth` is left out".into());
        return Ok((None, None));
    };
    notes.push(format!(
        "auth from {what}: `{}` in `{}`",
        auth.scheme, auth.env
    ));
    Ok((Some(auth), param))
}
