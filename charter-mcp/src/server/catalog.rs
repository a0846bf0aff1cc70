//! The rmcp `Tool` list, built once per server from the static tables.
//!
//! rmcp wants each parameter schema as an `Arc<JsonObject>`, so every schema text is parsed once
//! per server (never per list, never per connection) and a `tools/list` answer clones `Arc`s.
//! Parsing every schema of every pack costs milliseconds, which a server should not spend before
//! answering `initialize`: each entry parses on first use, and [`Catalog::warm`] parses them all
//! on another thread as the server starts, so the first full list usually finds them ready.
//! Names, descriptions and schema texts of table tools are `&'static str`, never copied.
//!
//! Over stdio the typed tools are not kept at all: each entry is parsed once, serialised to the
//! JSON text rmcp would write for it, and dropped ([`Catalog::warm_json`]); `tools/list` answers
//! are then written from those texts (see `stdio.rs`). The parsed form of 815 tools takes about
//! 6 MiB of heap, their text under 1 MiB.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use charter_runtime::error::DeclarationError;
use charter_runtime::session::{CALL_TOOL, TOOL_SEARCH, ToolEntry, ToolSession};
use charter_runtime::table::{Annotations, Table, ToolDef};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};

/// One tool: its texts, and the rmcp tool parsed from them on first use.
struct Entry {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    schema: Cow<'static, str>,
    annotations: Annotations,
    tool: OnceLock<Result<Tool, DeclarationError>>,
    /// The tool as rmcp serialises it (`{"name":..,"inputSchema":..}`), made on first use.
    json: OnceLock<Result<Box<str>, DeclarationError>>,
}

/// The prebuilt rmcp tools, by name.
pub(crate) struct Catalog {
    entries: Vec<Entry>,
    /// The session's own tools (`ToolSearch` in each form, `CallTool`), which share names and
    /// differ by description: found by comparing texts.
    meta: Vec<usize>,
    by_name: HashMap<Cow<'static, str>, usize>,
    tool_count: usize,
    resident: usize,
}

impl Catalog {
    /// The catalog of an eager session (every tool, in its mode view) and of the progressive
    /// ones (their `ToolSearch` and `CallTool` definitions and resident tools). Parses nothing.
    pub(crate) fn build(
        tables: &[&'static Table],
        eager: &ToolSession,
        progressive: &[ToolSession],
    ) -> Self {
        let defs: HashMap<&str, &'static ToolDef> = tables
            .iter()
            .flat_map(|t| t.tools.iter())
            .map(|d| (d.name, d))
            .collect();
        let all = eager.all();
        let tool_count = all.len();
        let mut entries: Vec<Entry> = all
            .iter()
            .map(|entry| {
                let def = defs.get(entry.name).copied();
                let view = eager.view(entry.name);
                Entry::new(entry, def, view.map(|v| v.schema))
            })
            .collect();
        let mut resident = 0;
        let mut meta = Vec::new();
        for session in progressive {
            for own in session.tool_search().into_iter().chain(session.call_tool()) {
                meta.push(entries.len());
                entries.push(Entry::new(&own, None, None));
            }
            resident = session
                .visible()
                .iter()
                .filter(|e| !is_meta(e.name))
                .count();
        }
        let by_name = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !is_meta(&e.name))
            .map(|(i, e)| (e.name.clone(), i))
            .collect();
        Self {
            entries,
            meta,
            by_name,
            tool_count,
            resident,
        }
    }

    /// Parses every entry not parsed yet and reports the first schema that is not a JSON object
    /// (none is, for tables the pack compiler built). It goes last to first: a list that runs
    /// meanwhile parses first to last, so the two meet once instead of queueing on each other.
    pub(crate) fn warm(&self) -> Result<(), DeclarationError> {
        for entry in self.entries.iter().rev() {
            entry.tool()?;
        }
        Ok(())
    }

    /// Serialises every entry not serialised yet, without keeping the parsed tools (what a stdio
    /// server lists from), and reports the first schema that is not a JSON object. Last to
    /// first, like [`Catalog::warm`].
    pub(crate) fn warm_json(&self) -> Result<(), DeclarationError> {
        for entry in self.entries.iter().rev() {
            entry.json()?;
        }
        Ok(())
    }

    /// The catalog entries of what a session shows this turn, in its order, each serialised;
    /// `None` when one is not prebuilt (a session-specific view) and must be listed typed.
    pub(crate) fn serialised(
        &self,
        visible: &[ToolEntry<'_>],
    ) -> Option<Result<Vec<usize>, DeclarationError>> {
        let mut out = Vec::with_capacity(visible.len());
        for shown in visible {
            let i = self.find(shown)?;
            if let Err(e) = self.entries[i].json() {
                return Some(Err(e));
            }
            out.push(i);
        }
        Some(Ok(out))
    }

    /// The serialised tool of entry `i` (see [`Catalog::serialised`]).
    pub(crate) fn entry_json(&self, i: usize) -> Result<&str, DeclarationError> {
        match self.entries.get(i) {
            Some(entry) => entry.json(),
            None => Err(DeclarationError::new(format!("no catalog entry {i}"))),
        }
    }

    /// How many tools (not counting `ToolSearch`).
    pub(crate) fn tool_count(&self) -> usize {
        self.tool_count
    }

    /// How many tools a progressive session lists before any search.
    pub(crate) fn resident_count(&self) -> usize {
        self.resident
    }

    /// Whether any session of this server can offer a tool of this name (its own tools aside).
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The prebuilt entry showing exactly `shown` (same name, description and schema text).
    fn find(&self, shown: &ToolEntry<'_>) -> Option<usize> {
        let same = |i: &usize| {
            let e = &self.entries[*i];
            same_text(&e.schema, shown.schema) && same_text(&e.description, shown.description)
        };
        if is_meta(shown.name) {
            return self
                .meta
                .iter()
                .copied()
                .find(|i| self.entries[*i].name == shown.name && same(i));
        }
        self.by_name.get(shown.name).copied().filter(same)
    }

    /// The rmcp tools for what a session shows this turn, in its order.
    pub(crate) fn list(&self, visible: &[ToolEntry<'_>]) -> Result<Vec<Tool>, DeclarationError> {
        visible
            .iter()
            .map(|shown| match self.find(shown) {
                Some(i) => self.entries[i].tool(),
                // A view this server did not prebuild (a session-specific pin): parse it here.
                _ => Entry::new(shown, None, None).tool(),
            })
            .collect()
    }
}

impl Entry {
    /// `def` and `static_schema` lend `&'static` texts; anything else is copied once.
    fn new(
        shown: &ToolEntry<'_>,
        def: Option<&'static ToolDef>,
        static_schema: Option<&'static str>,
    ) -> Self {
        let name = match def {
            Some(def) if def.name == shown.name => Cow::Borrowed(def.name),
            _ => Cow::Owned(shown.name.to_owned()),
        };
        let description = match def {
            Some(def) if def.description == shown.description => Cow::Borrowed(def.description),
            _ => Cow::Owned(shown.description.to_owned()),
        };
        let schema = match static_schema {
            Some(text) if text == shown.schema => Cow::Borrowed(text),
            _ => Cow::Owned(shown.schema.to_owned()),
        };
        Self {
            name,
            description,
            schema,
            annotations: shown.annotations,
            tool: OnceLock::new(),
            json: OnceLock::new(),
        }
    }

    /// The serialised tool, made on first use from the parsed tool if it is cached, else from a
    /// parse that is dropped right after.
    fn json(&self) -> Result<&str, DeclarationError> {
        let made = self.json.get_or_init(|| {
            let tool = match self.tool.get() {
                Some(parsed) => parsed.clone()?,
                None => self.parse()?,
            };
            serde_json::to_string(&tool)
                .map(String::into_boxed_str)
                .map_err(|e| {
                    DeclarationError::new(format!(
                        "the tool `{}` does not serialise: {e}",
                        self.name
                    ))
                })
        });
        match made {
            Ok(text) => Ok(text),
            Err(e) => Err(e.clone()),
        }
    }

    /// The rmcp tool, parsed on first use (a concurrent first use waits for the one parse).
    fn tool(&self) -> Result<Tool, DeclarationError> {
        self.tool.get_or_init(|| self.parse()).clone()
    }

    fn parse(&self) -> Result<Tool, DeclarationError> {
        let schema: JsonObject = match serde_json::from_str(&self.schema) {
            Ok(serde_json::Value::Object(object)) => object,
            Ok(_) => {
                return Err(DeclarationError::new(format!(
                    "the parameter schema of `{}` is not a JSON object",
                    self.name
                )));
            }
            Err(e) => {
                return Err(DeclarationError::new(format!(
                    "the parameter schema of `{}` is not valid JSON: {e}",
                    self.name
                )));
            }
        };
        let mut tool = Tool::new(
            self.name.clone(),
            self.description.clone(),
            Arc::new(schema),
        );
        tool.annotations = Some(annotations(self.annotations));
        Ok(tool)
    }
}

/// Whether a name is one of the session's own tools rather than a catalogue tool.
fn is_meta(name: &str) -> bool {
    name == TOOL_SEARCH || name == CALL_TOOL
}

/// Static texts are the same pointer in every session; compare bytes only otherwise.
fn same_text(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

/// The MCP four, always explicit: a client never has to guess a default.
fn annotations(a: Annotations) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world)
}
