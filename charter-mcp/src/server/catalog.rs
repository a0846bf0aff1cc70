//! The rmcp `Tool` list, built once per server from the static tables.
//!
//! rmcp wants each parameter schema as an `Arc<JsonObject>`, so every schema text is parsed once
//! per server (never per list, never per connection) and a `tools/list` answer clones `Arc`s.
//! Parsing every schema of every pack costs milliseconds, which a server should not spend before
//! answering `initialize`: each entry parses on first use, and [`Catalog::warm`] parses them all
//! on another thread as the server starts, so the first full list usually finds them ready.
//! Names, descriptions and schema texts of table tools are `&'static str`, never copied.
//!
//! Over stdio the typed tools are not made at all: a `tools/list` answer is written straight from
//! the static texts (`{"name":…,"description":…,"inputSchema":<the schema text>,…}`, see
//! `stdio.rs`), each schema checked once to be a JSON object ([`Catalog::check_json`]) without
//! building anything. The parsed form of 815 tools took about 6 MiB of heap, and the serialised
//! texts of 1,120 take 1.3 MiB; written on the fly they take none.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use foldhash::fast::FixedState;

use charter_runtime::error::DeclarationError;
use charter_runtime::session::{CALL_TOOL, TOOL_SEARCH, ToolEntry, ToolSession};
use charter_runtime::table::{Annotations, OutputSchema, Table, ToolDef};
use rmcp::model::{JsonObject, MetaObject, Tool, ToolAnnotations};

/// Catalog index by tool name. foldhash, not std's SipHash: the names are the tables' own and
/// the server's, never chosen by a client, so a keyed hash guards nothing here, and a server
/// builds this index before answering `initialize` (docs/mcp.md, "Little done before
/// `initialize`").
type Names = HashMap<Cow<'static, str>, usize, FixedState>;

/// One tool: its texts, and the rmcp tool parsed from them on first use.
struct Entry {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    schema: Cow<'static, str>,
    annotations: Annotations,
    /// What the tool answers (MCP's `outputSchema`), when its table declares it.
    output: Option<&'static OutputSchema>,
    /// Boxed: an rmcp `Tool` is several hundred bytes, and over stdio none is ever made. Held
    /// inline, every entry's share of it was written as the catalog was built (eight pages of
    /// heap for 82 tools, 0.4 MiB for every pack) before `initialize` was answered.
    tool: OnceLock<Result<Box<Tool>, DeclarationError>>,
    /// Whether the schema text is a JSON object (checked once, nothing kept), so that it can be
    /// written into an answer verbatim.
    checked: OnceLock<Result<(), DeclarationError>>,
}

/// The prebuilt rmcp tools, by name.
pub(crate) struct Catalog {
    entries: Vec<Entry>,
    /// The session's own tools (`ToolSearch` in each form, `CallTool`), which share names and
    /// differ by description: found by comparing texts.
    meta: Vec<usize>,
    by_name: Names,
    tool_count: usize,
    resident: usize,
    /// The result budget every tool is listed with (`_meta`, [`MAX_RESULT_SIZE`]).
    budget: usize,
}

/// The `_meta` key that tells a client the most characters one result of the tool may have
/// (Claude Code keeps up to that much of it): the server's result budget, which no answer it
/// sends exceeds (docs/results.md, "Budgets").
pub(crate) const MAX_RESULT_SIZE: &str = "anthropic/maxResultSizeChars";

impl Catalog {
    /// The catalog of an eager session (every tool, in its mode view) and of the progressive
    /// ones (their `ToolSearch` and `CallTool` definitions and resident tools). Parses nothing.
    pub(crate) fn build(
        tables: &[&'static Table],
        eager: &ToolSession,
        progressive: &[ToolSession],
        budget: usize,
    ) -> Self {
        // The eager session holds the tables' tools in the tables' order (toolkit tools after
        // them), so each entry's definition is the next one of the tables: walked alongside, not
        // looked up by name (a map of every definition and the session's lookup of each view
        // were three quarters of building the catalog).
        let mut defs = tables.iter().flat_map(|t| t.tools.iter()).peekable();
        let all = eager.all();
        let tool_count = all.len();
        let mut entries: Vec<Entry> = all
            .iter()
            .map(|entry| {
                let def = defs.next_if(|d| same_text(d.name, entry.name));
                Entry::new(entry, def, def.and_then(|d| static_schema(d, entry.schema)))
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
        let mut by_name = Names::with_capacity_and_hasher(entries.len(), FixedState::default());
        by_name.extend(
            entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !is_meta(&e.name))
                .map(|(i, e)| (e.name.clone(), i)),
        );
        Self {
            entries,
            meta,
            by_name,
            tool_count,
            resident,
            budget,
        }
    }

    /// Parses every entry not parsed yet and reports the first schema that is not a JSON object
    /// (none is, for tables the pack compiler built). It goes last to first: a list that runs
    /// meanwhile parses first to last, so the two meet once instead of queueing on each other.
    pub(crate) fn warm(&self) -> Result<(), DeclarationError> {
        for entry in self.entries.iter().rev() {
            entry.tool(self.budget)?;
        }
        Ok(())
    }

    /// Checks every schema not checked yet (what a stdio server lists from) and reports the
    /// first that is not a JSON object. Last to first, like [`Catalog::warm`].
    pub(crate) fn check_json(&self) -> Result<(), DeclarationError> {
        for entry in self.entries.iter().rev() {
            entry.check()?;
        }
        Ok(())
    }

    /// The catalog entries of what a session shows this turn, in its order, each checked to be
    /// writable as text; `None` when one is not prebuilt (a session-specific view) and must be
    /// listed typed.
    pub(crate) fn serialised(
        &self,
        visible: &[ToolEntry<'_>],
    ) -> Option<Result<Vec<usize>, DeclarationError>> {
        let mut out = Vec::with_capacity(visible.len());
        for shown in visible {
            let i = self.find(shown)?;
            if let Err(e) = self.entries[i].check() {
                return Some(Err(e));
            }
            out.push(i);
        }
        Some(Ok(out))
    }

    /// Appends entry `i` as the JSON text rmcp would write for it (see [`Catalog::serialised`]).
    pub(crate) fn write_entry(&self, i: usize, out: &mut Vec<u8>) -> Result<(), DeclarationError> {
        match self.entries.get(i) {
            Some(entry) => entry.write_json(out, self.budget),
            None => Err(DeclarationError::new(format!("no catalog entry {i}"))),
        }
    }

    /// Whether every entry exists and its schema is a JSON object, so the whole answer can be
    /// written piece by piece once started.
    pub(crate) fn writable(&self, indices: &[usize]) -> bool {
        indices
            .iter()
            .all(|&i| self.entries.get(i).is_some_and(|e| e.check().is_ok()))
    }

    /// About how many bytes the entries take as text (room to reserve for an answer).
    pub(crate) fn text_size(&self, indices: &[usize]) -> usize {
        indices
            .iter()
            .filter_map(|&i| self.entries.get(i))
            .map(|e| {
                e.name.len()
                    + e.description.len() * 9 / 8
                    + e.schema.len()
                    + e.output.map_or(0, |o| o.schema.len() + 60)
                    + 220
            })
            .sum()
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
                Some(i) => self.entries[i].tool(self.budget),
                // A view this server did not prebuild (a session-specific pin): parse it here.
                _ => Entry::new(shown, None, None).tool(self.budget),
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
        // Pointers first: comparing the bytes of every schema would read every pack's pages
        // before the first request, whatever the server lists.
        let name = match def {
            Some(def) if same_text(def.name, shown.name) => Cow::Borrowed(def.name),
            _ => Cow::Owned(shown.name.to_owned()),
        };
        let description = match def {
            Some(def) if same_text(def.description, shown.description) => {
                Cow::Borrowed(def.description)
            }
            _ => Cow::Owned(shown.description.to_owned()),
        };
        let schema = match static_schema {
            Some(text) if same_text(text, shown.schema) => Cow::Borrowed(text),
            _ => Cow::Owned(shown.schema.to_owned()),
        };
        Self {
            name,
            description,
            schema,
            annotations: shown.annotations,
            output: shown.output,
            tool: OnceLock::new(),
            checked: OnceLock::new(),
        }
    }

    /// Checks, once, that the schema text is one JSON object, so it can go into an answer as
    /// it is. Nothing is built: `IgnoredAny` only reads.
    fn check(&self) -> Result<(), DeclarationError> {
        let checked = self.checked.get_or_init(|| {
            let not_object = || {
                DeclarationError::new(format!(
                    "the parameter schema of `{}` is not a JSON object",
                    self.name
                ))
            };
            if !self.schema.trim_start().starts_with('{') {
                return Err(not_object());
            }
            serde_json::from_str::<serde::de::IgnoredAny>(&self.schema).map_err(|e| {
                DeclarationError::new(format!(
                    "the parameter schema of `{}` is not valid JSON: {e}",
                    self.name
                ))
            })?;
            Ok(())
        });
        checked.clone()
    }

    /// Appends the tool as rmcp serialises it, from the texts: rmcp's field names, the schema
    /// verbatim, every annotation explicit (as [`annotations`] makes them).
    fn write_json(&self, out: &mut Vec<u8>, budget: usize) -> Result<(), DeclarationError> {
        use std::io::Write as _;
        self.check()?;
        let a = self.annotations;
        // Escaped straight into the answer (writing to a Vec cannot fail): no copy per tool.
        let written = (|| -> std::io::Result<()> {
            out.write_all(b"{\"name\":")?;
            serde_json::to_writer(&mut *out, &*self.name)?;
            out.write_all(b",\"description\":")?;
            serde_json::to_writer(&mut *out, &*self.description)?;
            out.write_all(b",\"inputSchema\":")?;
            out.write_all(self.schema.trim().as_bytes())?;
            if let Some(output) = self.output {
                let (open, close) = output.object_wrapper();
                out.write_all(b",\"outputSchema\":")?;
                out.write_all(open.as_bytes())?;
                out.write_all(output.schema.as_bytes())?;
                out.write_all(close.as_bytes())?;
            }
            write!(
                out,
                ",\"annotations\":{{\"readOnlyHint\":{},\"destructiveHint\":{},\
                 \"idempotentHint\":{},\"openWorldHint\":{}}},\"_meta\":{{\"{MAX_RESULT_SIZE}\":{budget}}}}}",
                a.read_only, a.destructive, a.idempotent, a.open_world
            )
        })();
        written.map_err(|e| {
            DeclarationError::new(format!("the tool `{}` cannot be written: {e}", self.name))
        })
    }

    /// The rmcp tool, parsed on first use (a concurrent first use waits for the one parse).
    fn tool(&self, budget: usize) -> Result<Tool, DeclarationError> {
        match self.tool.get_or_init(|| self.parse(budget).map(Box::new)) {
            Ok(tool) => Ok(Tool::clone(tool)),
            Err(e) => Err(e.clone()),
        }
    }

    fn parse(&self, budget: usize) -> Result<Tool, DeclarationError> {
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
        let mut meta = JsonObject::new();
        meta.insert(MAX_RESULT_SIZE.to_owned(), budget.into());
        tool.meta = Some(MetaObject(meta));
        if let Some(output) = self.output {
            let (open, close) = output.object_wrapper();
            let text = format!("{open}{}{close}", output.schema);
            match serde_json::from_str(&text) {
                Ok(serde_json::Value::Object(object)) => {
                    tool.output_schema = Some(Arc::new(object))
                }
                _ => {
                    return Err(DeclarationError::new(format!(
                        "the result schema of `{}` is not a JSON object",
                        self.name
                    )));
                }
            }
        }
        Ok(tool)
    }
}

/// The static text of `shown`, one of `def`'s views' schemas (the same pointer: no bytes read),
/// so the catalog lends it instead of copying; `None` for a schema the session spliced (pins,
/// fields from context).
fn static_schema(def: &'static ToolDef, shown: &str) -> Option<&'static str> {
    def.views
        .iter()
        .map(|view| view.schema)
        .find(|schema| schema.as_ptr() == shown.as_ptr() && schema.len() == shown.len())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The text written over stdio is exactly what rmcp would serialise for the parsed tool.
    #[test]
    fn written_text_is_the_tool_rmcp_would_serialise() {
        let table = charter_testkit::table(serde_json::json!({"pack": "pin", "tools": [
            {"name": "quote", "description": "Says \"hi\"\nthen\t\\ waves — ünïcode.",
             "params": {"a": {"type": "string", "description": "A \"quoted\" field."}}},
            {"name": "plain", "description": "Plain.", "method": "DELETE", "path": "/x",
             "params": {}}
        ]}));
        let session = ToolSession::new(&[table]).unwrap();
        let catalog = Catalog::build(&[table], &session, &[], 32_000);
        catalog.check_json().unwrap();
        for (i, entry) in catalog.entries.iter().enumerate() {
            let mut out = Vec::new();
            catalog.write_entry(i, &mut out).unwrap();
            let written: serde_json::Value = serde_json::from_slice(&out).unwrap();
            let rmcp = serde_json::to_value(entry.tool(32_000).unwrap()).unwrap();
            assert_eq!(written, rmcp, "{}", entry.name);
        }
    }

    /// `build` walks the tables beside the eager session, whose tools are in declaration order:
    /// every text of every table tool is lent from the tables, none copied, over several tables.
    #[test]
    fn every_table_text_is_lent_not_copied() {
        let tool = |name: &str| {
            serde_json::json!({"name": name, "description": format!("Does {name}."),
                "params": {"a": {"type": "string", "description": "A."}}})
        };
        let one = charter_testkit::table(serde_json::json!({"pack": "one",
            "tools": [tool("b"), tool("a")]}));
        let two = charter_testkit::table(serde_json::json!({"pack": "two",
            "tools": [tool("c")]}));
        let session = ToolSession::new(&[one, two]).unwrap();
        let catalog = Catalog::build(&[one, two], &session, &[], 32_000);
        let names: Vec<&str> = catalog.entries.iter().map(|e| &*e.name).collect();
        assert_eq!(names, ["one_b", "one_a", "two_c"]);
        for entry in &catalog.entries {
            let lent = |text: &Cow<'static, str>| matches!(text, Cow::Borrowed(_));
            assert!(
                lent(&entry.name) && lent(&entry.description) && lent(&entry.schema),
                "{} copied",
                entry.name
            );
        }
        assert!(catalog.knows("two_c") && catalog.knows("one_a") && !catalog.knows("one_c"));
    }

    #[test]
    fn a_schema_that_is_not_an_object_is_refused_not_written() {
        let entry = |schema: &'static str| Entry {
            name: Cow::Borrowed("bad"),
            description: Cow::Borrowed("Bad."),
            schema: Cow::Borrowed(schema),
            annotations: Annotations::default(),
            output: None,
            tool: OnceLock::new(),
            checked: OnceLock::new(),
        };
        for (schema, says) in [("[1]", "not a JSON object"), ("{\"a\":", "not valid JSON")] {
            let mut out = Vec::new();
            let err = entry(schema)
                .write_json(&mut out, 32_000)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(says) && err.contains("`bad`"),
                "{schema}: {err}"
            );
            assert!(out.is_empty(), "nothing written for {schema}");
        }
    }
}
