//! Executing YAML-pack tools over HTTP (docs/design.md §6, §8).
//!
//! - [`executor`]: [`HttpExecutor`], one reqwest client (rustls with ring) implementing
//!   [`HttpCaller`](crate::table::HttpCaller).
//! - [`lazy`]: [`LazyHttp`], the executor built on first use that sessions share by default.
//! - [`request`]: the exact request a route declares, built without the network.
//! - [`credentials`]: per-call secrets from a [`CredentialProvider`], never printed.
//! - [`oauth`]: OAuth 2 access tokens, cached and renewed single-flight; `charter auth login`.
//! - [`response`]: API errors, envelopes, projection, non-text bodies.
//! - [`pagination`]: [`next_page`], so a host or agent can walk a list (never looped silently).

pub mod credentials;
pub mod executor;
pub mod lazy;
pub mod oauth;
pub mod pagination;
pub mod request;
pub mod response;

pub use credentials::{
    AsyncFnCredentials, CredentialKind, CredentialProvider, CredentialQuery, EnvCredentials,
    FirstOf, FnCredentials, Secret, StaticCredentials, first_of, from_async_fn, from_fn,
};
pub use executor::{DEFAULT_MAX_IDLE_PER_HOST, DEFAULT_TIMEOUT, HttpExecutor, HttpExecutorBuilder};
pub use lazy::LazyHttp;
pub use pagination::next_page;
pub use request::{PreparedRequest, build_request};
pub use response::{DEFAULT_MAX_RESPONSE_BYTES, project, shape_response};
