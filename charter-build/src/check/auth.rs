//! The pack's `auth` block.

use super::names::valid_env_name;
use super::names::valid_header_name;
use crate::diagnostic::Sink;
use crate::pack::{AuthScheme, Pack};

pub(super) fn auth(s: &mut Sink, pack: &Pack) {
    let a = &pack.auth;
    let Some(at) = a.loc else { return };
    let scheme = a.scheme.as_ref().map_or(AuthScheme::None, |s| s.value);
    let scheme_name = match scheme {
        AuthScheme::None => "none",
        AuthScheme::Bearer => "bearer",
        AuthScheme::Header => "header",
        AuthScheme::Basic => "basic",
    };
    if let Some(oauth2) = &a.oauth2 {
        let sends_token = matches!(scheme, AuthScheme::Bearer | AuthScheme::Header);
        crate::pack::check_oauth2(s, oauth2, sends_token, valid_env_name);
    }
    match (&a.env, scheme) {
        // With `oauth2`, `env` (a ready access token) is optional.
        (None, AuthScheme::Bearer | AuthScheme::Header) if a.oauth2.is_some() => {}
        (Some(env), AuthScheme::None) => s.err(
            env.loc,
            "`env` has no effect with `scheme: none`; add `scheme: bearer`, `header` or `basic`",
        ),
        (None, AuthScheme::Bearer | AuthScheme::Basic | AuthScheme::Header) => s.err(
            at,
            format!(
                "`auth` with `scheme: {scheme_name}` needs `env: <VARIABLE>` (the environment variable holding the secret)"
            ),
        ),
        (Some(env), _) if !valid_env_name(&env.value) => s.err(
            env.loc,
            format!(
                "`{}` is not an environment variable name: use letters, digits and `_`",
                env.value
            ),
        ),
        _ => {}
    }
    if scheme == AuthScheme::Header {
        match &a.header {
            None => s.err(
                at,
                "`auth` with `scheme: header` needs `header: <Header-Name>`",
            ),
            Some(h) if !valid_header_name(&h.value) => {
                s.err(h.loc, format!("`{}` is not a valid header name", h.value))
            }
            Some(_) => {}
        }
    } else {
        for (key, v) in [("header", &a.header), ("prefix", &a.prefix)] {
            if let Some(v) = v {
                s.err(
                    v.loc,
                    format!(
                        "`{key}` only applies to `scheme: header`; remove it or change the scheme"
                    ),
                );
            }
        }
    }
}
