//! What one `callers:` rule gives: its packs, read-only or not, its session mode, built once
//! when the server binds.
//!
//! A rule's tools are the server's tables cut to its packs and, for a read-only rule, to the
//! tools annotated read-only: a session built from them cannot list, find (ToolSearch) or run
//! (CallTool, a direct call) any other tool, because it does not hold one. The cut tables are
//! allocated once per rule for the life of the process (their tools are copies of references
//! into the static tables).

use std::sync::Arc;

use charter_runtime::CallContext;
use charter_runtime::error::CharterError;
use charter_runtime::session::{DynamicTool, Toolkit};
use charter_runtime::table::{BoxFuture, Table, ToolOutput};
use serde_json::Value;

use super::config::Grant;
use crate::server::{ServerOptions, Shared};

/// The sources and options a rule's sessions are built from.
pub(crate) struct Access {
    pub(crate) tables: Vec<&'static Table>,
    pub(crate) toolkits: Vec<Arc<dyn Toolkit>>,
    pub(crate) options: ServerOptions,
}

impl Access {
    /// Everything the server serves, with its own options (no `callers:` rules).
    pub(crate) fn everything(shared: &Shared) -> Self {
        Self {
            tables: shared.tables.clone(),
            toolkits: shared.toolkits.clone(),
            options: shared.options.clone(),
        }
    }

    /// The server's tools cut to `grant`; an unknown pack is an error naming the served ones.
    pub(crate) fn for_grant(shared: &Shared, grant: &Grant, at: &str) -> Result<Self, String> {
        let served: Vec<&str> = shared
            .tables
            .iter()
            .map(|t| t.pack)
            .chain(shared.toolkits.iter().map(|k| k.pack()))
            .collect();
        if let Some(packs) = &grant.packs
            && let Some(unknown) = packs.iter().find(|p| !served.contains(&p.as_str()))
        {
            return Err(format!(
                "{at}: pack `{unknown}` is not served (served: {})",
                served.join(", ")
            ));
        }
        let wanted = |pack: &str| {
            grant
                .packs
                .as_ref()
                .is_none_or(|packs| packs.iter().any(|p| p == pack))
        };
        let tables = shared
            .tables
            .iter()
            .filter(|t| wanted(t.pack))
            .map(|t| {
                if grant.read_only {
                    read_only_table(t)
                } else {
                    *t
                }
            })
            .collect();
        let toolkits = shared
            .toolkits
            .iter()
            .filter(|k| wanted(k.pack()))
            .map(|k| {
                if grant.read_only {
                    Arc::new(ReadOnlyKit(k.clone())) as Arc<dyn Toolkit>
                } else {
                    k.clone()
                }
            })
            .collect();
        let mut options = shared.options.clone();
        if grant.mode.is_some() {
            options.mode = grant.mode.clone();
        }
        Ok(Self {
            tables,
            toolkits,
            options,
        })
    }

    /// The per-call context for a caller: the server's, acting for `user` when the rule says.
    pub(crate) fn context(&self, user: Option<&str>) -> CallContext {
        let mut ctx = self.options.context.clone();
        if let Some(user) = user {
            ctx.user = Some(user.to_owned());
        }
        ctx
    }
}

/// `table` with only its read-only tools, allocated once for the process's life.
fn read_only_table(table: &'static Table) -> &'static Table {
    let tools: Vec<_> = table
        .tools
        .iter()
        .filter(|t| t.annotations.read_only)
        .cloned()
        .collect();
    Box::leak(Box::new(Table::new(
        table.pack,
        table.description,
        Box::leak(tools.into_boxed_slice()),
    )))
}

/// An upstream MCP server's read-only tools only (by the annotations it announced).
struct ReadOnlyKit(Arc<dyn Toolkit>);

impl Toolkit for ReadOnlyKit {
    fn pack(&self) -> &str {
        self.0.pack()
    }

    fn tools(&self) -> Vec<DynamicTool> {
        let mut tools = self.0.tools();
        tools.retain(|t| t.annotations.read_only);
        tools
    }

    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        // The session only routes listed tools here; checked again in case the list moved.
        let listed = self.tools().iter().any(|t| &*t.name == tool);
        if !listed {
            return Box::pin(async move {
                Err(CharterError::Tool(format!(
                    "tool `{tool}` is not available to this caller (read-only access)"
                )))
            });
        }
        self.0.call(tool, arguments, ctx)
    }

    fn generation(&self) -> u64 {
        self.0.generation()
    }
}
