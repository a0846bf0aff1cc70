//! Executing YAML-pack tools over HTTP (docs/design.md §6, §8).
//!
//! - [`HttpExecutor`]: one reqwest client (rustls with ring) implementing
//!   [`HttpCaller`](crate::table::HttpCaller); [`LazyHttp`], the executor built on first use
//!   that sessions share by default.
//! - Per-call secrets from a [`CredentialProvider`], never printed ([`Secret`]).
//! - OAuth 2 access tokens, cached and renewed single-flight, stored logins ([`TokenStore`])
//!   and tokens shared between processes ([`GrantStore`]); `charter auth login`.
//! - [`next_page`], so a host or agent can walk a list (never looped silently).
//!
//! The stages (`request`: the exact request a route declares, built without the network;
//! `response`: API errors, envelopes, projection, non-text bodies; `pagination`; `oauth`) are
//! hidden modules: the CLI, the MCP server and the tests reach them, users do not.

#[doc(hidden)]
pub mod credentials;
#[doc(hidden)]
pub mod executor;
#[doc(hidden)]
pub mod lazy;
#[doc(hidden)]
pub mod oauth;
#[doc(hidden)]
pub mod pagination;
#[doc(hidden)]
pub mod request;
#[doc(hidden)]
pub mod response;

pub use credentials::{
    AsyncFnCredentials, CredentialKind, CredentialProvider, CredentialQuery, EnvCredentials,
    FirstOf, FnCredentials, Secret, StaticCredentials, first_of, from_async_fn, from_fn,
};
pub use executor::{
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_IDLE_PER_HOST, DEFAULT_TIMEOUT, HttpExecutor,
    HttpExecutorBuilder,
};
pub use lazy::LazyHttp;
pub use oauth::DEFAULT_TOKEN_TIMEOUT;
pub use oauth::login::{Authorization, Login};
pub use oauth::shared::{GrantKey, GrantLock, GrantStore, ShareError, SharedGrant};
pub use oauth::store::{LoginLock, StoreError, StoredAccess, StoredLogin, TokenStore};
pub use pagination::next_page;
#[doc(hidden)]
pub use request::{PreparedRequest, build_request};
pub use response::DEFAULT_MAX_RESPONSE_BYTES;
#[doc(hidden)]
pub use response::{project, shape_response};
