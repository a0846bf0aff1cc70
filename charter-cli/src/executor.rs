//! The HTTP executor the commands hand their sessions: the runtime's process-wide
//! [`LazyHttp`](charter_runtime::http::LazyHttp), built on first use (setting up TLS costs
//! milliseconds a server should not spend before answering `initialize`).

pub(crate) use charter_runtime::http::LazyHttp;
