//! The rmcp `Tool` list, built once per server from the static tables.
//!
//! Every schema text is parsed once, at server start, into the `Arc<JsonObject>` rmcp
//! serialises; a `tools/list` answer then clones `Arc`s. Names and descriptions of table tools
//! are borrowed `&'static str`, never copied.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use charter_runtime::error::DeclarationError;
use charter_runtime::session::{TOOL_SEARCH, ToolEntry, ToolSession};
use charter_runtime::table::{Annotations, Table, ToolDef};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};

/// One prebuilt tool and the schema text it was parsed from (to spot a session whose view of
/// the tool differs, e.g. a pinned field, and parse that one afresh).
struct Entry {
    tool: Tool,
    schema_ptr: usize,
    schema: Box<str>,
}

/// The prebuilt rmcp tools, by name.
pub(crate) struct Catalog {
    by_name: HashMap<Box<str>, Entry>,
    tool_count: usize,
    resident: usize,
}

impl Catalog {
    /// Builds the catalog from an eager session (every tool, in its mode view) and, when
    /// progressive, a progressive one (the `ToolSearch` definition and the resident tools).
    pub(crate) fn build(
        tables: &[&'static Table],
        eager: &ToolSession,
        progressive: Option<&ToolSession>,
    ) -> Result<Self, DeclarationError> {
        let defs: HashMap<&str, &'static ToolDef> = tables
            .iter()
            .flat_map(|t| t.tools.iter())
            .map(|d| (d.name, d))
            .collect();
        let mut by_name = HashMap::new();
        let all = eager.all();
        let tool_count = all.len();
        for entry in all {
            let tool = to_tool(&entry, defs.get(entry.name).copied())?;
            by_name.insert(entry.name.into(), Entry::new(tool, entry.schema));
        }
        let mut resident = 0;
        if let Some(session) = progressive {
            if let Some(search) = session.tool_search() {
                let tool = to_tool(&search, None)?;
                by_name.insert(search.name.into(), Entry::new(tool, search.schema));
            }
            resident = session
                .visible()
                .iter()
                .filter(|e| e.name != TOOL_SEARCH)
                .count();
        }
        Ok(Self {
            by_name,
            tool_count,
            resident,
        })
    }

    /// How many tools (not counting `ToolSearch`).
    pub(crate) fn tool_count(&self) -> usize {
        self.tool_count
    }

    /// How many tools a progressive session lists before any search.
    pub(crate) fn resident_count(&self) -> usize {
        self.resident
    }

    /// Whether any session of this server can offer a tool of this name.
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The rmcp tools for what a session shows this turn, in its order.
    pub(crate) fn list(&self, entries: &[ToolEntry<'_>]) -> Result<Vec<Tool>, DeclarationError> {
        entries
            .iter()
            .map(|entry| match self.by_name.get(entry.name) {
                Some(e) if e.matches(entry.schema) => Ok(e.tool.clone()),
                // A view this server did not prebuild (a session-specific pin): parse it once.
                _ => to_tool(entry, None),
            })
            .collect()
    }
}

impl Entry {
    fn new(tool: Tool, schema: &str) -> Self {
        Self {
            tool,
            schema_ptr: schema.as_ptr() as usize,
            schema: schema.into(),
        }
    }

    /// Static schema texts are the same pointer in every session; compare text otherwise.
    fn matches(&self, schema: &str) -> bool {
        (schema.as_ptr() as usize == self.schema_ptr && schema.len() == self.schema.len())
            || *schema == *self.schema
    }
}

/// One session entry as an rmcp tool; `def` lends `&'static` name and description.
fn to_tool(entry: &ToolEntry<'_>, def: Option<&'static ToolDef>) -> Result<Tool, DeclarationError> {
    let schema: JsonObject = match serde_json::from_str(entry.schema) {
        Ok(serde_json::Value::Object(object)) => object,
        Ok(_) => {
            return Err(DeclarationError::new(format!(
                "the parameter schema of `{}` is not a JSON object",
                entry.name
            )));
        }
        Err(e) => {
            return Err(DeclarationError::new(format!(
                "the parameter schema of `{}` is not valid JSON: {e}",
                entry.name
            )));
        }
    };
    let (name, description): (Cow<'static, str>, Cow<'static, str>) = match def {
        Some(def) if def.name == entry.name => {
            let description = if def.description == entry.description {
                Cow::Borrowed(def.description)
            } else {
                Cow::Owned(entry.description.to_owned())
            };
            (Cow::Borrowed(def.name), description)
        }
        _ => (
            Cow::Owned(entry.name.to_owned()),
            Cow::Owned(entry.description.to_owned()),
        ),
    };
    let mut tool = Tool::new(name, description, Arc::new(schema));
    tool.annotations = Some(annotations(entry.annotations));
    Ok(tool)
}

/// The MCP four, always explicit: a client never has to guess a default.
fn annotations(a: Annotations) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world)
}
