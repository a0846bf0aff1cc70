//! One tool of a session, resolved to its view (static) or held as a toolkit tool (dynamic).

use std::sync::Arc;

use serde_json::Value;

use super::{DynamicTool, ToolEntry, Toolkit};
use crate::dialect::Dialect;
use crate::search::Candidate;
use crate::table::{Annotations, ToolDef, View};

/// One tool of the session, resolved to its view.
pub(crate) struct Entry {
    pub(crate) kind: Kind,
    /// Offered from the first turn (otherwise deferred until ToolSearch loads it).
    pub(crate) resident: bool,
    /// Pins and from-context fields the deployment added, with the schema spliced without them.
    pub(crate) narrowing: Option<Box<Narrowing>>,
}

pub(crate) enum Kind {
    Static {
        def: &'static ToolDef,
        view: &'static View,
        /// The dialect the view's text is given in: the session's ([`Dialect::for_view`]).
        dialect: Dialect,
    },
    /// Boxed: toolkit tools are rare and static entries stay small (the session copies 700 of
    /// them per build).
    Dynamic(Box<Dynamic>),
}

pub(crate) struct Dynamic {
    pub(super) kit: Arc<dyn Toolkit>,
    pub(crate) tool: DynamicTool,
    pub(super) name_lc: Box<str>,
    pub(super) description_lc: Box<str>,
}

/// What the deployment took out of the model's hands for one tool.
#[derive(Clone)]
pub(crate) struct Narrowing {
    pub(crate) pins: Vec<(&'static str, Value)>,
    pub(crate) context: Vec<(&'static str, String)>,
    pub(super) schema: String,
    pub(super) tokens: u32,
}

impl Entry {
    pub(crate) fn name(&self) -> &str {
        match &self.kind {
            Kind::Static { def, .. } => def.name,
            Kind::Dynamic(d) => &d.tool.name,
        }
    }

    pub(super) fn name_lc(&self) -> &str {
        match &self.kind {
            Kind::Static { def, .. } => def.name,
            Kind::Dynamic(d) => &d.name_lc,
        }
    }

    pub(super) fn description(&self) -> &str {
        match &self.kind {
            Kind::Static { def, .. } => def.description,
            Kind::Dynamic(d) => &d.tool.description,
        }
    }

    /// The pack label and the tool's own name inside it.
    pub(super) fn pack_and_tool(&self) -> (&str, &str) {
        match &self.kind {
            Kind::Static { def, .. } => (def.pack, def.tool),
            Kind::Dynamic(d) => {
                let pack = d.kit.pack();
                let tool = d
                    .tool
                    .name
                    .strip_prefix(pack)
                    .and_then(|t| t.strip_prefix('_'))
                    .unwrap_or(&d.tool.name);
                (pack, tool)
            }
        }
    }

    pub(super) fn candidate(&self) -> Candidate<'_> {
        match &self.kind {
            Kind::Static { def, .. } => Candidate {
                name: def.name,
                pack: def.pack,
                tool: def.tool,
                description: def.search.description_lc,
                hints: def.search.hints,
                terms: def.search.terms(),
                vectors: def.search.vectors,
            },
            Kind::Dynamic(d) => Candidate {
                name: &d.name_lc,
                pack: d.kit.pack(),
                tool: d
                    .name_lc
                    .strip_prefix(d.kit.pack())
                    .and_then(|t| t.strip_prefix('_'))
                    .unwrap_or(&d.name_lc),
                description: &d.description_lc,
                hints: &[],
                terms: None,
                vectors: &[],
            },
        }
    }

    pub(crate) fn schema(&self) -> &str {
        match (&self.narrowing, &self.kind) {
            (Some(n), _) => &n.schema,
            (None, Kind::Static { view, dialect, .. }) => view.schema_in(*dialect),
            (None, Kind::Dynamic(d)) => &d.tool.schema,
        }
    }

    pub(super) fn tokens(&self) -> u32 {
        match (&self.narrowing, &self.kind) {
            (Some(n), _) => n.tokens,
            (None, Kind::Static { view, dialect, .. }) => view.tokens_in(*dialect),
            (None, Kind::Dynamic(d)) => d.tool.tokens,
        }
    }

    pub(super) fn annotations(&self) -> Annotations {
        match &self.kind {
            Kind::Static { def, .. } => def.annotations,
            Kind::Dynamic(d) => d.tool.annotations,
        }
    }

    pub(super) fn entry(&self) -> ToolEntry<'_> {
        ToolEntry {
            name: self.name(),
            description: self.description(),
            schema: self.schema(),
            tokens: self.tokens(),
            annotations: self.annotations(),
            dialect: match &self.kind {
                Kind::Static { dialect, .. } => *dialect,
                Kind::Dynamic(_) => Dialect::Mcp,
            },
            output: match &self.kind {
                Kind::Static { def, .. } => def.output.schema(),
                Kind::Dynamic(_) => None,
            },
        }
    }

    pub(super) fn narrowed(&self, field: &str) -> Option<&'static str> {
        let n = self.narrowing.as_ref()?;
        if n.pins.iter().any(|(f, _)| *f == field) {
            Some("pinned")
        } else if n.context.iter().any(|(f, _)| *f == field) {
            Some("filled from context")
        } else {
            None
        }
    }
}
