//! The HTTP executor the commands hand their sessions, built on first use.
//!
//! Setting up TLS (the platform's root store) costs milliseconds a server should not spend
//! before answering `initialize`, and a session that never calls an HTTP tool should not spend
//! them at all. One executor (one connection pool) then serves every connection.

use std::sync::{Arc, OnceLock};

use charter_runtime::http::oauth::store::TokenStore;
use charter_runtime::http::{CredentialProvider, EnvCredentials, FirstOf, HttpExecutor, first_of};
use charter_runtime::session::HttpCaller;
use charter_runtime::table::{BoxFuture, Route, ToolDef, ToolOutput};
use charter_runtime::{CallContext, CharterError};
use serde_json::Value;

/// An [`HttpExecutor`] built on the first call; a setup failure answers every call.
#[derive(Default)]
pub(crate) struct LazyHttp {
    executor: OnceLock<Result<HttpExecutor, CharterError>>,
}

impl LazyHttp {
    pub(crate) fn shared() -> Arc<dyn HttpCaller> {
        Arc::new(Self::default())
    }
}

impl HttpCaller for LazyHttp {
    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        route: &'static Route,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        match self.executor.get_or_init(executor) {
            Ok(executor) => executor.call(tool, route, arguments, ctx),
            Err(error) => {
                let error = error.clone();
                Box::pin(async move { Err(error) })
            }
        }
    }
}

/// The executor every command uses: credentials from the environment, then the refresh tokens
/// `charter auth login` stored (docs/pack-format.md, "OAuth 2").
pub(crate) fn executor() -> Result<HttpExecutor, CharterError> {
    HttpExecutor::builder().credentials(credentials()).build()
}

/// The environment first (an explicit variable wins), then the stored logins.
fn credentials() -> FirstOf {
    let mut providers: Vec<Arc<dyn CredentialProvider>> = vec![Arc::new(EnvCredentials)];
    if let Ok(store) = TokenStore::open_default() {
        providers.push(Arc::new(store));
    }
    first_of(providers)
}
