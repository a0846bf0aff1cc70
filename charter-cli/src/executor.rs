//! The HTTP executor the commands hand their sessions: the runtime's
//! [`LazyHttp`](charter_runtime::http::LazyHttp), built on first use (setting up TLS costs
//! milliseconds a server should not spend before answering `initialize`), with credentials from
//! the environment and then from the logins `charter auth login` stored.

use std::sync::{Arc, OnceLock};

use charter_runtime::CharterError;
use charter_runtime::http::oauth::shared::GrantStore;
use charter_runtime::http::oauth::store::TokenStore;
use charter_runtime::http::{EnvCredentials, HttpExecutor, LazyHttp as RuntimeLazy};
use charter_runtime::table::HttpCaller;

/// The process's one executor for the commands.
pub(crate) struct LazyHttp;

impl LazyHttp {
    pub(crate) fn shared() -> Arc<dyn HttpCaller> {
        static SHARED: OnceLock<Arc<RuntimeLazy>> = OnceLock::new();
        SHARED
            .get_or_init(|| Arc::new(RuntimeLazy::with(executor)))
            .clone()
    }
}

/// The executor every command uses: credentials from the environment (an explicit variable
/// wins), then the logins `charter auth login` stored, renewed rotation-safe when several
/// processes share one (docs/pack-format.md, "OAuth 2").
pub(crate) fn executor() -> Result<HttpExecutor, CharterError> {
    executor_sharing(None)
}

/// [`executor`], keeping every OAuth 2 grant's tokens in a fleet's store when given one
/// (`charter mcp --store`).
pub(crate) fn executor_sharing(
    shared: Option<Arc<dyn GrantStore>>,
) -> Result<HttpExecutor, CharterError> {
    let mut builder = HttpExecutor::builder().credentials(EnvCredentials);
    if let Ok(store) = TokenStore::open_default() {
        builder = builder.stored_logins(store);
    }
    if let Some(shared) = shared {
        builder = builder.shared_tokens(shared);
    }
    builder.build()
}
