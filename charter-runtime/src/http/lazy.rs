//! The HTTP executor built on first use, shared by every session of the process that does not
//! bring its own.
//!
//! Setting up TLS (the platform's root store) costs milliseconds that building a session, or a
//! server answering `initialize`, should not spend, and a session that never calls an HTTP tool
//! should not spend them at all. One executor (one connection pool) then serves every session.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::HttpExecutor;
use crate::context::CallContext;
use crate::error::CharterError;
use crate::table::{BoxFuture, HttpCaller, Route, ToolDef, ToolOutput};

/// An [`HttpExecutor`] built on the first call; a setup failure answers every call with the
/// error that caused it.
pub struct LazyHttp {
    executor: OnceLock<Result<HttpExecutor, CharterError>>,
    build: fn() -> Result<HttpExecutor, CharterError>,
}

impl Default for LazyHttp {
    fn default() -> Self {
        Self::with(HttpExecutor::new)
    }
}

impl std::fmt::Debug for LazyHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyHttp")
            .field("built", &self.executor.get().is_some())
            .finish()
    }
}

impl LazyHttp {
    /// An executor `build` makes on the first call (other credentials, timeouts, base URLs).
    pub fn with(build: fn() -> Result<HttpExecutor, CharterError>) -> Self {
        LazyHttp {
            executor: OnceLock::new(),
            build,
        }
    }

    /// The process-wide executor: what a session without [`SessionOptions::http`] uses.
    ///
    /// [`SessionOptions::http`]: crate::session::SessionOptions::http
    pub fn shared() -> Arc<dyn HttpCaller> {
        static SHARED: OnceLock<Arc<LazyHttp>> = OnceLock::new();
        SHARED.get_or_init(Arc::default).clone()
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
        match self.executor.get_or_init(self.build) {
            Ok(executor) => executor.call(tool, route, arguments, ctx),
            Err(error) => {
                let error = error.clone();
                Box::pin(async move { Err(error) })
            }
        }
    }
}
