//! Per-call context (docs/design.md §6): who the call is for and the host-only values it carries.
//!
//! Passed as a value to every call, never read from ambient globals, so one process can serve
//! many end users: credentials resolve per call from [`CallContext::user`], from-context fields
//! are filled from [`CallContext::values`], and [`CallContext::headers`] go on the request.

use std::collections::BTreeMap;

/// The host's side of one call: nothing here is visible to or settable by the model.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// The end user the call acts for; credential providers key on it.
    pub user: Option<String>,
    /// Host-only values filling from-context fields, by key.
    pub values: BTreeMap<String, serde_json::Value>,
    /// Extra headers for HTTP calls (after the arguments, before the pack's static headers).
    pub headers: Vec<(String, String)>,
}

impl CallContext {
    /// An empty context: no user, no values, no headers.
    pub fn new() -> Self {
        Self::default()
    }

    /// This context acting for `user`.
    pub fn for_user(mut self, user: impl Into<String>) -> Self {
        self.user = Some(user.into());
        self
    }

    /// This context with a from-context value.
    pub fn with_value(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
        self.values.insert(key.into(), value);
        self
    }

    /// This context with an extra request header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}
