//! Authentication and per-caller authorisation of the HTTP transport, as the MCP authorization
//! rules describe for a protected resource.
//!
//! - [`config`]: the auth file (issuers, API key file, per-caller rules) and its checks.
//! - `jwt`: bearer JWTs checked against each issuer's published keys.
//! - `guard`: the middleware in front of `/mcp` (401 / 403 with `WWW-Authenticate`) and the
//!   RFC 9728 protected-resource metadata.
//! - `access`: what a rule gives (packs, read-only tools, session mode, credentials user).
//!
//! The client's token authenticates it to this server only: it is never put on a request to
//! an API (pack calls use the pack's own credentials, per user when a rule says so). Without an
//! auth file the server answers anyone who can reach it, which `check_exposure` allows on
//! loopback only, unless explicitly waived.

mod access;
pub mod config;
mod guard;
mod jwt;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::middleware;
use axum::routing::get;
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::json;

pub use config::{AuthConfig, AuthConfigError, Grant, IssuerConfig, Rule};
pub use jwt::{MAX_AGE as JWKS_MAX_AGE, REFETCH_AFTER as JWKS_REFETCH_AFTER};

pub(crate) use access::Access;
use guard::Guard;
use jwt::JwtVerifier;

use super::MCP_PATH;
use super::{ServeError, Shared};

/// The RFC 9728 path; the document is also served with the resource's path appended.
pub const PROTECTED_RESOURCE_PATH: &str = "/.well-known/oauth-protected-resource";

/// An authenticated caller, attached to each HTTP request it makes.
pub(crate) struct Caller {
    /// Its subject (JWT `sub`, or the API key's subject).
    pub(crate) subject: Option<String>,
    /// The index of the rule that admitted it (`None`: no rules, everything).
    pub(crate) rule: Option<usize>,
    /// The end user its pack calls act for.
    pub(crate) user: Option<String>,
    pub(crate) access: Arc<Access>,
}

impl Caller {
    /// Who this caller is for binding an MCP session to it: the same subject under the same rule.
    pub(crate) fn identity(&self) -> (Option<usize>, Option<String>) {
        (self.rule, self.subject.clone())
    }
}

/// The authenticated caller of an MCP request over HTTP (none over stdio, or without auth).
pub(crate) fn caller_of(context: &RequestContext<RoleServer>) -> Option<Arc<Caller>> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
        .cloned()
}

/// Refuses to serve without authentication on an address other machines can reach, unless
/// `waived` (`--insecure-no-auth`).
pub(crate) fn check_exposure(local: SocketAddr, waived: bool) -> Result<(), ServeError> {
    if local.ip().is_loopback() || waived {
        if !local.ip().is_loopback() {
            tracing::warn!(%local, "serving WITHOUT authentication on a non-loopback address: anyone who can reach it can call every tool");
        }
        return Ok(());
    }
    Err(ServeError::AuthRequired {
        addr: local.to_string(),
    })
}

/// Builds the guard for `config`: the resource URL, the issuers' verifier, each rule's access.
pub(crate) async fn guard(
    shared: &Shared,
    config: &AuthConfig,
    local: SocketAddr,
) -> Result<Arc<Guard>, ServeError> {
    let bad = |reason: String| ServeError::Auth(reason);
    let resource = match &config.resource {
        Some(resource) => resource.clone(),
        None if local.ip().is_loopback() => format!("http://{local}{MCP_PATH}"),
        None => {
            return Err(bad(format!(
                "the auth file has no `resource:`: on {local} set it to the URL clients reach \
                 this server at (e.g. https://mcp.example.com{MCP_PATH}); tokens must name it \
                 as their audience"
            )));
        }
    };
    let jwt = if config.issuers.is_empty() {
        None
    } else {
        let http = crate::client::connect::http_client(Duration::from_secs(10)).map_err(bad)?;
        let verifier = JwtVerifier::new(
            config.issuers.clone(),
            resource.clone(),
            config.leeway_seconds,
            http,
        );
        for (issuer, error) in verifier.prefetch().await {
            tracing::warn!(%issuer, %error, "cannot fetch the issuer's keys yet (retried on the first token)");
        }
        Some(verifier)
    };
    let mut rules = Vec::with_capacity(config.callers.len());
    for (n, rule) in config.callers.iter().enumerate() {
        let access =
            Access::for_grant(shared, &rule.grant, &format!("callers[{n}]")).map_err(bad)?;
        rules.push((rule.clone(), Arc::new(access)));
    }
    let metadata_url = metadata_url(&resource);
    let mut metadata = json!({
        "resource": resource,
        "bearer_methods_supported": ["header"],
        "resource_name": shared.options.name,
    });
    if !config.issuers.is_empty() {
        metadata["authorization_servers"] =
            json!(config.issuers.iter().map(|i| &i.issuer).collect::<Vec<_>>());
    }
    if !config.scopes_supported.is_empty() {
        metadata["scopes_supported"] = json!(config.scopes_supported);
    }
    Ok(Arc::new(Guard {
        jwt,
        keys: config.api_keys.clone(),
        rules,
        everything: Arc::new(Access::everything(shared)),
        metadata_url,
        scopes_supported: config.scopes_supported.clone(),
        metadata,
    }))
}

/// Puts the guard in front of every route of `router` (the MCP endpoint) and serves the
/// metadata beside it, unauthenticated.
pub(crate) fn protect(router: axum::Router, guard: Arc<Guard>) -> axum::Router {
    let path = resource_path(guard.metadata["resource"].as_str().unwrap_or_default());
    let mut metadata = axum::Router::new().route(PROTECTED_RESOURCE_PATH, get(guard::metadata));
    if !path.is_empty() && path != "/" {
        metadata = metadata.route(
            &format!("{PROTECTED_RESOURCE_PATH}{path}"),
            get(guard::metadata),
        );
    }
    router
        .route_layer(middleware::from_fn_with_state(
            guard.clone(),
            guard::authenticate,
        ))
        .merge(metadata.with_state(guard))
}

/// The metadata URL for `resource` (RFC 9728 §3.1: the well-known path between the host and the
/// resource's path, `https://h/.well-known/oauth-protected-resource/mcp`).
fn metadata_url(resource: &str) -> String {
    let after_scheme = resource.find("://").map_or(0, |i| i + 3);
    let (origin, path) = match resource[after_scheme..].find('/') {
        Some(i) => resource.split_at(after_scheme + i),
        None => (resource, ""),
    };
    let path = path.trim_end_matches('/');
    format!("{origin}{PROTECTED_RESOURCE_PATH}{path}")
}

/// The path of a resource URL (`/mcp`), without query or fragment.
fn resource_path(resource: &str) -> String {
    let after_scheme = resource.find("://").map_or(0, |i| i + 3);
    let rest = &resource[after_scheme..];
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    path.split(['?', '#'])
        .next()
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_owned()
}

/// The `host[:port]` of the resource URL, which the Host check must accept.
pub(crate) fn resource_authority(config: &AuthConfig) -> Option<String> {
    let resource = config.resource.as_deref()?;
    let rest = &resource[resource.find("://")? + 3..];
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty()).then(|| authority.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
        assert_eq!(resource_path("https://h/a/mcp/?x"), "/a/mcp");
    }

    #[test]
    fn serving_without_auth_is_for_loopback_or_waived() {
        let lo: SocketAddr = "127.0.0.1:80".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:80".parse().unwrap();
        assert!(check_exposure(lo, false).is_ok());
        assert!(check_exposure(any, true).is_ok());
        let err = check_exposure(any, false).unwrap_err().to_string();
        assert!(
            err.contains("--auth") && err.contains("--insecure-no-auth"),
            "{err}"
        );
    }
}
