//! The resolved `auth.oauth2` of a checked pack and the `OAuth2` static it becomes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::pack::{ClientAuthDecl, GrantDecl, OAuth2Decl};

/// `auth.oauth2`, resolved: empty strings for what is not declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuth2Model {
    /// The header the token goes in.
    pub header: String,
    /// Text before the token.
    pub prefix: String,
    /// The variable holding a ready access token (may be empty).
    pub access_token_env: String,
    /// `refresh_token` or `client_credentials`.
    pub grant: GrantDecl,
    /// The token endpoint.
    pub token_url: String,
    /// `CHARTER_<PACK>_TOKEN_URL`.
    pub token_url_env: String,
    /// The authorization endpoint.
    pub authorization_url: String,
    /// `CHARTER_<PACK>_AUTHORIZATION_URL`.
    pub authorization_url_env: String,
    /// (placeholder, variable, default).
    pub url_vars: Vec<(String, String, String)>,
    /// The client id variable.
    pub client_id_env: String,
    /// The client secret variable.
    pub client_secret_env: String,
    /// The refresh token variable.
    pub refresh_token_env: String,
    /// Scopes.
    pub scopes: Vec<String>,
    /// `body` or `basic`.
    pub client_auth: ClientAuthDecl,
    /// Extra authorization URL parameters.
    pub authorization_params: Vec<(String, String)>,
}

/// The variable overriding one of a pack's OAuth 2 endpoints: `CHARTER_<PACK>_<WHAT>_URL`.
pub fn endpoint_env(label: &str, what: &str) -> String {
    charter_terms::names::pack_env(label, &format!("{what}_URL"))
}

/// Resolves a checked declaration; `header`/`prefix` say how the scheme sends the token.
pub fn model(
    label: &str,
    d: &OAuth2Decl,
    header: String,
    prefix: String,
    access_token_env: String,
) -> OAuth2Model {
    let text = |v: &Option<crate::pack::Sp<String>>| {
        v.as_ref().map_or_else(String::new, |v| v.value.clone())
    };
    OAuth2Model {
        header,
        prefix,
        access_token_env,
        grant: d
            .grant
            .as_ref()
            .map_or(GrantDecl::RefreshToken, |g| g.value),
        token_url: text(&d.token_url),
        token_url_env: endpoint_env(label, "TOKEN"),
        authorization_url: text(&d.authorization_url),
        authorization_url_env: endpoint_env(label, "AUTHORIZATION"),
        url_vars: d
            .url_vars
            .iter()
            .map(|v| (v.name.value.clone(), text(&v.env), text(&v.default)))
            .collect(),
        client_id_env: text(&d.client_id_env),
        client_secret_env: text(&d.client_secret_env),
        refresh_token_env: text(&d.refresh_token_env),
        scopes: d.scopes.iter().map(|s| s.value.clone()).collect(),
        client_auth: d
            .client_auth
            .as_ref()
            .map_or(ClientAuthDecl::Body, |c| c.value),
        authorization_params: d
            .authorization_params
            .iter()
            .map(|(k, v)| (k.value.clone(), v.value.clone()))
            .collect(),
    }
}

/// `static OAUTH2: OAuth2 = OAuth2::new(..).with_..(..);` (the runtime's table types are in
/// scope): every declared part, what is empty left to `OAuth2::new`'s defaults.
pub fn generate(m: &OAuth2Model) -> TokenStream {
    let OAuth2Model {
        header,
        prefix,
        token_url,
        client_id_env,
        ..
    } = m;
    let grant = match m.grant {
        GrantDecl::RefreshToken => quote!(Grant::RefreshToken),
        GrantDecl::ClientCredentials => quote!(Grant::ClientCredentials),
    };
    let mut with = vec![quote!(.with_header(#header, #prefix))];
    for (value, method) in [
        (&m.access_token_env, "with_access_token_env"),
        (&m.token_url_env, "with_token_url_env"),
        (&m.client_secret_env, "with_client_secret_env"),
        (&m.refresh_token_env, "with_refresh_token_env"),
    ] {
        if !value.is_empty() {
            let method = format_ident!("{method}");
            with.push(quote!(.#method(#value)));
        }
    }
    if !m.authorization_url.is_empty() || !m.authorization_url_env.is_empty() {
        let (url, env) = (&m.authorization_url, &m.authorization_url_env);
        with.push(quote!(.with_authorization_url(#url, #env)));
    }
    if !m.url_vars.is_empty() {
        let vars = m
            .url_vars
            .iter()
            .map(|(name, env, default)| quote!(UrlVar::new(#name, #env, #default)));
        with.push(quote!(.with_url_vars(&[#(#vars),*])));
    }
    if !m.scopes.is_empty() {
        let scopes = &m.scopes;
        with.push(quote!(.with_scopes(&[#(#scopes),*])));
    }
    if m.client_auth == ClientAuthDecl::Basic {
        with.push(quote!(.with_client_auth(ClientAuth::Basic)));
    }
    if !m.authorization_params.is_empty() {
        let params = m.authorization_params.iter().map(|(k, v)| quote!((#k, #v)));
        with.push(quote!(.with_authorization_params(&[#(#params),*])));
    }
    quote! {
        /// Where this pack's OAuth 2 access tokens come from.
        static OAUTH2: OAuth2 = OAuth2::new(#grant, #token_url, #client_id_env) #(#with)*;
    }
}
