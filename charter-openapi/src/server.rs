//! The pack's base URL (docs/openapi-import.md, "Base URL"): the option, else `servers[0]`
//! with its variables' defaults, resolved as OpenAPI says: a relative URL against where the
//! document was served (its recorded `x-origin`), `//host` with https. A document with no
//! usable server leaves the URL to run time (`${CHARTER_<PACK>_BASE_URL}`).

use serde_json::Value;
use url::Url;

use super::{ImportError, ImportOptions};

/// Hosts that serve API documents, not APIs: a relative server URL is not resolved against
/// them (`/` of a file on raw.githubusercontent.com is no API).
const DOCUMENT_HOSTS: &[&str] = &[
    "raw.githubusercontent.com",
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "api.apis.guru",
    "apis.guru",
    "www.postman.com",
    "postman.com",
    "app.swaggerhub.com",
    "api.swaggerhub.com",
];

/// The base URL, and a pack note when it was resolved or left to run time.
pub(crate) struct BaseUrl {
    /// The absolute URL, or `${CHARTER_<PACK>_BASE_URL}`.
    pub url: String,
    /// What was done, for the report.
    pub note: Option<String>,
}

/// The base URL of the pack labelled `label`.
pub(crate) fn base_url(
    root: &Value,
    options: &ImportOptions,
    label: &str,
) -> Result<BaseUrl, ImportError> {
    if let Some(u) = &options.base_url {
        return match absolute(u) {
            Some(url) => Ok(BaseUrl { url, note: None }),
            None => Err(ImportError::Options(format!(
                "the base URL `{u}` is not an absolute http(s) URL without query or fragment: pass `--base-url https://host/path`"
            ))),
        };
    }
    let at_run_time = |why: String| {
        let env = charter_terms::names::pack_env(label, "base_url");
        BaseUrl {
            url: charter_terms::names::base_url_at_run_time(label),
            note: Some(format!(
                "{why}: the base URL is required at run time in {env} (or import with `--base-url`)"
            )),
        }
    };
    let server = root
        .get("servers")
        .and_then(Value::as_array)
        .and_then(|s| s.first());
    let Some(server) = server else {
        return Ok(at_run_time("the document declares no `servers`".into()));
    };
    let Some(url) = server.get("url").and_then(Value::as_str) else {
        return Ok(at_run_time("the first server has no `url`".into()));
    };
    let url = substitute(url, server);
    if url.contains(['{', '}']) {
        return Ok(at_run_time(format!(
            "the server URL `{url}` has a variable without a default"
        )));
    }
    if let Some(abs) = absolute(&url) {
        return Ok(BaseUrl {
            url: abs,
            note: None,
        });
    }
    match resolve(root, url.trim()) {
        Some((abs, how)) => Ok(BaseUrl {
            note: Some(format!("the server URL `{url}` is {how}: `{abs}`")),
            url: abs,
        }),
        None => Ok(at_run_time(format!(
            "the server URL `{url}` is relative and the document records no API origin to resolve it against"
        ))),
    }
}

/// Replaces each server variable by its `default` (or its first `enum` value).
pub(crate) fn substitute(url: &str, server: &Value) -> String {
    let mut url = url.to_owned();
    if let Some(vars) = server.get("variables").and_then(Value::as_object) {
        for (name, var) in vars {
            let value = var.get("default").and_then(Value::as_str).or_else(|| {
                var.get("enum")
                    .and_then(Value::as_array)
                    .and_then(|e| e.first())
                    .and_then(Value::as_str)
            });
            if let Some(v) = value {
                url = url.replace(&format!("{{{name}}}"), v);
            }
        }
    }
    url
}

/// `u` as a base URL when it is an absolute http(s) URL with a host and without query or
/// fragment; the trailing `/` removed.
fn absolute(u: &str) -> Option<String> {
    let trimmed = u.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))?;
    let ok = !rest.is_empty()
        && !rest.starts_with('/')
        && !trimmed.contains(['?', '#', ' ', '{', '}'])
        && Url::parse(trimmed).is_ok_and(|p| p.host_str().is_some_and(|h| !h.is_empty()));
    ok.then(|| trimmed.to_owned())
}

/// Resolves a non-absolute server URL: `//host/p` takes https (a user fetches documents
/// over https); a relative one is resolved against the document's origin, unless that is a
/// host that serves documents only. Returns the URL and how it was found.
fn resolve(root: &Value, url: &str) -> Option<(String, String)> {
    if let Some(rest) = url.strip_prefix("//") {
        let abs = absolute(&format!("https://{rest}"))?;
        return Some((abs, "scheme-less: https is used".into()));
    }
    if url.contains("://") || url.contains(|c: char| c.is_whitespace() || c == ',') {
        return None;
    }
    let origin = origin(root)?;
    let base = Url::parse(&origin).ok()?;
    let host = base.host_str()?.to_ascii_lowercase();
    if DOCUMENT_HOSTS.contains(&host.as_str()) || host.ends_with(".github.io") {
        return None;
    }
    // An empty server URL is the default server, `/` (OpenAPI 3: "servers" absent is `/`).
    let reference = if url.is_empty() { "/" } else { url };
    let joined = base.join(reference).ok()?;
    let abs = absolute(joined.as_str())?;
    Some((abs, format!("relative to the document's origin `{origin}`")))
}

/// Where the document was served from: the first http(s) `x-origin` URL (APIs.guru records
/// it under `info`), or a top-level `x-origin`.
fn origin(root: &Value) -> Option<String> {
    let lists = [root.pointer("/info/x-origin"), root.get("x-origin")];
    lists.into_iter().flatten().find_map(|v| {
        let entries: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        entries.into_iter().find_map(|e| {
            let u = e
                .get("url")
                .and_then(Value::as_str)
                .or_else(|| e.as_str())?;
            (u.starts_with("https://") || u.starts_with("http://")).then(|| u.to_owned())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(doc: serde_json::Value) -> (String, Option<String>) {
        let b = base_url(&doc, &ImportOptions::new("pets"), "pets").expect("a base URL");
        (b.url, b.note)
    }

    #[test]
    fn servers_resolve_as_openapi_says() {
        let origin =
            serde_json::json!({"x-origin": [{"url": "https://api.example.com/v2/openapi.json"}]});
        let with =
            |url: &str| base(serde_json::json!({"info": origin, "servers": [{"url": url}]})).0;
        assert_eq!(with("/api/v1"), "https://api.example.com/api/v1");
        assert_eq!(with(""), "https://api.example.com");
        assert_eq!(with("v3/"), "https://api.example.com/v2/v3");
        assert_eq!(
            with("//other.example.com/x/"),
            "https://other.example.com/x"
        );
        assert_eq!(with("https://abs.example.com/"), "https://abs.example.com");
        let none = base(serde_json::json!({"openapi": "3.0.0"}));
        assert_eq!(none.0, "${CHARTER_PETS_BASE_URL}");
        assert!(none.1.unwrap().contains("CHARTER_PETS_BASE_URL"));
        // A relative URL with no origin, or an origin that only hosts documents.
        let rel = base(serde_json::json!({"servers": [{"url": "/v1"}]}));
        assert_eq!(rel.0, "${CHARTER_PETS_BASE_URL}");
        let gh = base(
            serde_json::json!({"info": {"x-origin": [{"url": "https://raw.githubusercontent.com/a/b/main/api.yaml"}]}, "servers": [{"url": "/"}]}),
        );
        assert_eq!(gh.0, "${CHARTER_PETS_BASE_URL}");
    }
}
