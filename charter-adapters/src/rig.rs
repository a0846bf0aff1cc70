//! A session's tools as rig dynamic tools (feature `rig`, rig-core 0.44).
//!
//! [`tools`] answers what the model sees now — the session's [`visible`](ToolSession::visible)
//! tools, `ToolSearch` included — as [`rig_core::tool::DynamicTool`]s whose callbacks route
//! through [`ToolSession::dispatch`], so validation, loading and the `select:` hint behave as in
//! the other adapters. The session grows as ToolSearch loads tools: export again before each
//! model turn to offer the newly loaded ones. Each call gets its own copy of the given
//! [`CallContext`].
//!
//! rig's tool definition holds the schema as a `serde_json::Value`, so exporting parses each
//! precomputed schema text once; calls never touch a schema.
//!
//! Charter errors become rig [`ToolExecutionError`]s whose model-visible output is charter's
//! message (written for the model), with a kind rig understands: validation → `invalid_args`,
//! credential → `permission_denied`, API → `provider` (with the HTTP status), transport →
//! `network`, a tool's own error → `other`.

use std::sync::Arc;

use charter_runtime::session::ToolSession;
use charter_runtime::{CallContext, CharterError};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};

use crate::Error;

/// Every tool the model sees now, ToolSearch included, as rig dynamic tools.
pub fn tools(session: &Arc<ToolSession>, ctx: &CallContext) -> Result<Vec<DynamicTool>, Error> {
    session
        .visible()
        .iter()
        .map(|entry| {
            let name = ToolName::new(entry.name)
                .map_err(|e| Error::Config(format!("tool name `{}`: {e}", entry.name)))?;
            let parameters: serde_json::Value =
                serde_json::from_str(entry.schema).map_err(|e| {
                    Error::Config(format!("the schema of `{}` is not JSON: {e}", entry.name))
                })?;
            let tool = entry.name.to_owned();
            let session = Arc::clone(session);
            let ctx = ctx.clone();
            Ok(DynamicTool::new(
                name,
                entry.description,
                parameters,
                move |arguments| {
                    let session = Arc::clone(&session);
                    let ctx = ctx.clone();
                    let tool = tool.clone();
                    Box::pin(async move {
                        match session.dispatch(&tool, arguments, &ctx).await {
                            Ok(output) => Ok(match output.structured {
                                Some(value) => ToolOutput::json(value),
                                None => ToolOutput::text(output.text),
                            }),
                            Err(error) => Err(execution_error(error)),
                        }
                    })
                },
            ))
        })
        .collect()
}

/// A charter error as rig's execution error, its message shown to the model.
pub fn execution_error(error: CharterError) -> ToolExecutionError {
    let message = error.to_string();
    let rig = match &error {
        CharterError::Validation(_) => ToolExecutionError::invalid_args(message),
        CharterError::Credential(_) => {
            ToolExecutionError::new(ToolErrorKind::PermissionDenied, message)
        }
        CharterError::Api(api) => {
            let retryable = api.status == 429 || api.status >= 500;
            ToolExecutionError::provider(message)
                .with_http_status(api.status)
                .with_retryable(retryable)
        }
        CharterError::Transport(_) => ToolExecutionError::network(message),
        CharterError::Tool(_) | CharterError::Declaration(_) => ToolExecutionError::other(message),
    };
    rig.with_source(error)
}
