//! `auth.oauth2`: an OAuth 2 credential (token endpoint, grant, the variables holding the
//! client and refresh token, scopes), read and checked in one place.
//!
//! ```yaml
//! auth:
//!   scheme: bearer                  # how the access token is sent (bearer or header)
//!   env: GOOGLE_ACCESS_TOKEN        # optional: a ready access token wins when set
//!   oauth2:
//!     grant: refresh_token          # refresh_token | client_credentials
//!     token_url: https://oauth2.googleapis.com/token
//!     authorization_url: https://accounts.google.com/o/oauth2/v2/auth
//!     client_id_env: GOOGLE_CLIENT_ID
//!     client_secret_env: GOOGLE_CLIENT_SECRET
//!     refresh_token_env: GOOGLE_REFRESH_TOKEN
//!     scopes: [https://www.googleapis.com/auth/gmail.modify]
//!     authorization_params: { access_type: offline, prompt: consent }
//! ```

use super::super::tree::Node;
use super::*;

/// `auth.oauth2`.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuth2Decl {
    /// Where the mapping is.
    pub loc: Loc,
    /// `grant`.
    pub grant: Option<Sp<GrantDecl>>,
    /// `token_url`.
    pub token_url: Option<Sp<String>>,
    /// `authorization_url`.
    pub authorization_url: Option<Sp<String>>,
    /// `client_id_env`.
    pub client_id_env: Option<Sp<String>>,
    /// `client_secret_env`.
    pub client_secret_env: Option<Sp<String>>,
    /// `refresh_token_env`.
    pub refresh_token_env: Option<Sp<String>>,
    /// `scopes`.
    pub scopes: Vec<Sp<String>>,
    /// `client_auth`.
    pub client_auth: Option<Sp<ClientAuthDecl>>,
    /// `authorization_params`.
    pub authorization_params: Vec<(Sp<String>, Sp<String>)>,
    /// `url_vars`: placeholder name, variable, default.
    pub url_vars: Vec<UrlVarDecl>,
}

/// `grant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantDecl {
    /// `refresh_token`.
    RefreshToken,
    /// `client_credentials`.
    ClientCredentials,
}

/// `client_auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuthDecl {
    /// `body`: `client_id`/`client_secret` form fields.
    Body,
    /// `basic`: HTTP basic.
    Basic,
}

/// One `url_vars` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlVarDecl {
    /// The placeholder name.
    pub name: Sp<String>,
    /// `env`.
    pub env: Option<Sp<String>>,
    /// `default`.
    pub default: Option<Sp<String>>,
}

const KEYS: &[&str] = &[
    "grant",
    "token_url",
    "authorization_url",
    "client_id_env",
    "client_secret_env",
    "refresh_token_env",
    "scopes",
    "client_auth",
    "authorization_params",
    "url_vars",
];

/// Parameters of the authorization URL that the login flow sets itself.
const RESERVED_PARAMS: &[&str] = &[
    "response_type",
    "client_id",
    "redirect_uri",
    "state",
    "code_challenge",
    "code_challenge_method",
    "scope",
];

/// Reads `auth.oauth2`.
pub(in crate::pack) fn lower(s: &mut Sink, node: &Node) -> Option<OAuth2Decl> {
    let o = obj(s, node, "`auth.oauth2`", KEYS, &no_misplaced)?;
    let mut d = OAuth2Decl {
        loc: o.loc,
        grant: None,
        token_url: None,
        authorization_url: None,
        client_id_env: None,
        client_secret_env: None,
        refresh_token_env: None,
        scopes: Vec::new(),
        client_auth: None,
        authorization_params: Vec::new(),
        url_vars: Vec::new(),
    };
    for &(ref key, _, value) in &o.entries {
        let key = key.as_str();
        let text = |s: &mut Sink| string(s, value, &format!("auth.oauth2.{key}"));
        match key {
            "grant" => {
                d.grant = choice(
                    s,
                    value,
                    "grant",
                    &[
                        ("refresh_token", GrantDecl::RefreshToken),
                        ("client_credentials", GrantDecl::ClientCredentials),
                    ],
                )
            }
            "client_auth" => {
                d.client_auth = choice(
                    s,
                    value,
                    "client_auth",
                    &[
                        ("body", ClientAuthDecl::Body),
                        ("basic", ClientAuthDecl::Basic),
                    ],
                )
            }
            "token_url" => d.token_url = text(s),
            "authorization_url" => d.authorization_url = text(s),
            "client_id_env" => d.client_id_env = text(s),
            "client_secret_env" => d.client_secret_env = text(s),
            "refresh_token_env" => d.refresh_token_env = text(s),
            "scopes" => {
                d.scopes = string_list(s, value, "auth.oauth2.scopes")
                    .map(|l| l.value)
                    .unwrap_or_default()
            }
            "authorization_params" => {
                d.authorization_params = string_pairs(s, value, "auth.oauth2.authorization_params")
            }
            "url_vars" => d.url_vars = url_vars(s, value),
            _ => {}
        }
    }
    Some(d)
}

fn url_vars(s: &mut Sink, node: &Node) -> Vec<UrlVarDecl> {
    let Some(list) = entries(s, node, "`auth.oauth2.url_vars`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, value) in list {
        let what = format!("`auth.oauth2.url_vars.{}`", name.value);
        let Some(o) = obj(s, value, &what, &["env", "default"], &no_misplaced) else {
            continue;
        };
        let mut var = UrlVarDecl {
            name,
            env: None,
            default: None,
        };
        for &(ref key, _, v) in &o.entries {
            match key.as_str() {
                "env" => var.env = string(s, v, "env"),
                "default" => var.default = string(s, v, "default"),
                _ => {}
            }
        }
        if var.env.is_none() {
            s.err(
                o.loc,
                format!("{what} needs `env: <VARIABLE>` (the variable holding its value)"),
            );
        }
        out.push(var);
    }
    out
}

/// The meaning checks of `auth.oauth2`: which keys each grant needs, variable names, URLs and
/// their placeholders. `bearer_or_header` says whether the scheme can carry an access token.
pub(crate) fn check(
    s: &mut Sink,
    d: &OAuth2Decl,
    bearer_or_header: bool,
    valid_env: fn(&str) -> bool,
) {
    if !bearer_or_header {
        s.err(
            d.loc,
            "`oauth2` needs `scheme: bearer` (or `header`): it says how the access token is sent",
        );
    }
    let need = |s: &mut Sink, v: &Option<Sp<String>>, key: &str, why: &str| {
        if v.is_none() {
            s.err(d.loc, format!("`oauth2` needs `{key}` ({why})"));
        }
    };
    let grant = d.grant.as_ref().map(|g| g.value);
    if grant.is_none() {
        s.err(
            d.loc,
            "`oauth2` needs `grant: refresh_token` or `grant: client_credentials`",
        );
    }
    need(
        s,
        &d.token_url,
        "token_url",
        "the provider's token endpoint",
    );
    need(
        s,
        &d.client_id_env,
        "client_id_env",
        "the variable holding the client id",
    );
    match grant {
        Some(GrantDecl::RefreshToken) => need(
            s,
            &d.refresh_token_env,
            "refresh_token_env",
            "the variable holding a refresh token when there is no stored login",
        ),
        Some(GrantDecl::ClientCredentials) => {
            need(
                s,
                &d.client_secret_env,
                "client_secret_env",
                "the client_credentials grant authenticates the client",
            );
            for (key, v) in [
                ("refresh_token_env", &d.refresh_token_env),
                ("authorization_url", &d.authorization_url),
            ] {
                if let Some(v) = v {
                    s.err(
                        v.loc,
                        format!("`{key}` has no use with `grant: client_credentials`; remove it"),
                    );
                }
            }
            if let Some((k, _)) = d.authorization_params.first() {
                s.err(
                    k.loc,
                    "`authorization_params` has no use with `grant: client_credentials`; remove it",
                );
            }
        }
        None => {}
    }
    for v in [&d.client_id_env, &d.client_secret_env, &d.refresh_token_env]
        .into_iter()
        .flatten()
        .chain(d.url_vars.iter().filter_map(|u| u.env.as_ref()))
    {
        if !valid_env(&v.value) {
            s.err(
                v.loc,
                format!(
                    "`{}` is not an environment variable name: use letters, digits and `_`",
                    v.value
                ),
            );
        }
    }
    for scope in &d.scopes {
        if scope.value.is_empty() || scope.value.contains(char::is_whitespace) {
            s.err(
                scope.loc,
                "a scope is one non-empty word without spaces (list several as several items)",
            );
        }
    }
    for (k, _) in &d.authorization_params {
        if RESERVED_PARAMS.contains(&k.value.as_str()) {
            s.err(
                k.loc,
                format!(
                    "`{}` is set by the login flow itself; remove it (scopes go in `scopes`)",
                    k.value
                ),
            );
        }
    }
    urls(s, d);
}

/// Both URLs are absolute https URLs whose `{placeholders}` are all declared in `url_vars`, and
/// every declared placeholder is used.
fn urls(s: &mut Sink, d: &OAuth2Decl) {
    let mut used = std::collections::BTreeSet::new();
    for url in [&d.token_url, &d.authorization_url].into_iter().flatten() {
        let mut filled = url.value.clone();
        for name in placeholder_names(&url.value) {
            if d.url_vars.iter().any(|v| v.name.value == name) {
                used.insert(name.to_owned());
                filled = filled.replace(&format!("{{{name}}}"), "x");
            } else {
                s.err(url.loc, format!("`{{{name}}}` in `{}` is not declared: add `url_vars: {{ {name}: {{ env: <VARIABLE> }} }}`", url.value));
            }
        }
        let https = filled
            .strip_prefix("https://")
            .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
        if !https || filled.contains(char::is_whitespace) || filled.contains(['{', '}', '#']) {
            s.err(url.loc, format!("`{}` must be an absolute https URL (tests override it with CHARTER_<PACK>_TOKEN_URL)", url.value));
        }
    }
    for var in &d.url_vars {
        let valid = var
            .name
            .value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && !var.name.value.is_empty();
        if !valid {
            s.err(
                var.name.loc,
                format!(
                    "`{}` is not a placeholder name: use `[a-z0-9_]`",
                    var.name.value
                ),
            );
        } else if !used.contains(&var.name.value) {
            s.err(
                var.name.loc,
                format!(
                    "`{}` is declared in `url_vars` but no URL uses `{{{}}}`; remove it",
                    var.name.value, var.name.value
                ),
            );
        }
    }
}

fn placeholder_names(url: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(&rest[open + 1..open + close]);
        rest = &rest[open + close + 1..];
    }
    out
}
