//! The HTTP executor the commands hand their sessions, built on first use.
//!
//! Setting up TLS (the platform's root store) costs milliseconds a server should not spend
//! before answering `initialize`, and a session that never calls an HTTP tool should not spend
//! them at all. One executor (one connection pool) then serves every connection.

use std::sync::{Arc, OnceLock};

use charter_runtime::http::HttpExecutor;
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
        match self.executor.get_or_init(HttpExecutor::new) {
            Ok(executor) => executor.call(tool, route, arguments, ctx),
            Err(error) => {
                let error = error.clone();
                Box::pin(async move { Err(error) })
            }
        }
    }
}
