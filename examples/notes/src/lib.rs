//! A calculator and a small in-memory notes store, written as ordinary Rust functions and
//! published as the static table [`TOOLS`] (pack `notes`), usable wherever a YAML pack's table is.
//!
//! The store is per-process state behind a `Mutex` in a `static` (acceptable for an example:
//! a real application would keep it in a database). Notes are partitioned by the end user of
//! the call (`CallContext::user`), so one process serving many users never mixes their notes.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use charter::{CallContext, Schema, Table, tool};
use serde::{Deserialize, Serialize};

/// Why a calculation failed.
#[derive(Debug, thiserror::Error)]
pub enum CalcError {
    /// The divisor was zero.
    #[error("cannot divide by zero")]
    DivisionByZero,
}

/// Why a notes operation failed.
#[derive(Debug, thiserror::Error)]
pub enum NotesError {
    /// No note of this user has the id.
    #[error("there is no note {0}")]
    NotFound(u64),
    /// A title must say something.
    #[error("a note's title cannot be empty")]
    EmptyTitle,
}

/// Add two numbers.
#[tool(read_only, idempotent, hints = ["sum", "plus"])]
pub fn add(
    #[charter(desc = "The first term.")] a: f64,
    #[charter(desc = "The second term.")] b: f64,
) -> f64 {
    a + b
}

/// Divide one number by another.
///
/// # Arguments
///
/// * `dividend` - The number to divide.
/// * `divisor` - What to divide it by; must not be zero.
#[tool(read_only, idempotent, hints = ["quotient"])]
pub fn divide(dividend: f64, divisor: f64) -> Result<f64, CalcError> {
    if divisor == 0.0 {
        Err(CalcError::DivisionByZero)
    } else {
        Ok(dividend / divisor)
    }
}

/// A stored note, as the tools answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    /// Its id, unique per user.
    pub id: u64,
    /// A one-line title.
    pub title: String,
    /// The text.
    pub body: String,
    /// Tags, in the order given.
    pub tags: Vec<String>,
    /// Who wrote it, when the host said so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

/// Which notes `list_notes` returns.
#[derive(Debug, Clone, Default, Deserialize, Schema)]
pub struct NoteFilter {
    /// Only notes carrying this tag.
    pub tag: Option<String>,
    /// Only notes whose title contains this text (case-insensitive).
    pub title_contains: Option<String>,
}

/// The order of `list_notes`.
#[derive(Debug, Clone, Copy, Default, Deserialize, Schema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Most recently created first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
}

#[derive(Default)]
struct Store {
    next_id: BTreeMap<String, u64>,
    notes: BTreeMap<(String, u64), Note>,
}

static STORE: Mutex<Store> = Mutex::new(Store {
    next_id: BTreeMap::new(),
    notes: BTreeMap::new(),
});

fn store() -> MutexGuard<'static, Store> {
    // A panic while holding the lock cannot leave a note half-written (every update is one
    // insert), so a poisoned lock is still consistent.
    STORE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn user(ctx: &CallContext) -> String {
    ctx.user.clone().unwrap_or_else(|| "anonymous".to_owned())
}

/// Create a note.
///
/// # Arguments
/// * `title` - A one-line title.
/// * `body` - The text of the note.
/// * `tags` - Tags to file it under.
#[tool]
pub fn create_note(
    title: &str,
    body: &str,
    tags: Option<Vec<String>>,
    #[charter(from_context = "display_name")] author: Option<String>,
    ctx: &CallContext,
) -> Result<Note, NotesError> {
    if title.trim().is_empty() {
        return Err(NotesError::EmptyTitle);
    }
    let user = user(ctx);
    let mut store = store();
    let id = {
        let next = store.next_id.entry(user.clone()).or_insert(1);
        let id = *next;
        *next += 1;
        id
    };
    let note = Note {
        id,
        title: title.to_owned(),
        body: body.to_owned(),
        tags: tags.unwrap_or_default(),
        author,
    };
    store.notes.insert((user, id), note.clone());
    Ok(note)
}

/// Read one note.
#[tool(read_only, idempotent)]
pub fn get_note(
    #[charter(desc = "The note's id.")] id: u64,
    ctx: &CallContext,
) -> Result<Note, NotesError> {
    store()
        .notes
        .get(&(user(ctx), id))
        .cloned()
        .ok_or(NotesError::NotFound(id))
}

/// Change a note's title, body or tags; what is not given stays as it is.
///
/// # Arguments
/// * `id` - The note's id.
/// * `title` - The new title.
/// * `body` - The new text.
/// * `tags` - The new tags (replacing the old ones).
#[tool(idempotent)]
pub fn update_note(
    id: u64,
    title: Option<&str>,
    body: Option<&str>,
    tags: Option<Vec<String>>,
    ctx: &CallContext,
) -> Result<Note, NotesError> {
    if title.is_some_and(|t| t.trim().is_empty()) {
        return Err(NotesError::EmptyTitle);
    }
    let mut store = store();
    let note = store
        .notes
        .get_mut(&(user(ctx), id))
        .ok_or(NotesError::NotFound(id))?;
    if let Some(title) = title {
        note.title = title.to_owned();
    }
    if let Some(body) = body {
        note.body = body.to_owned();
    }
    if let Some(tags) = tags {
        note.tags = tags;
    }
    Ok(note.clone())
}

/// A note in a listing: its body only when asked for.
#[derive(Debug, Serialize)]
pub struct NoteSummary {
    /// Its id.
    pub id: u64,
    /// Its title.
    pub title: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// The text, with `include_body`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// List notes, newest first unless told otherwise.
///
/// # Arguments
/// * `filter` - Which notes to list (all when absent).
/// * `order` - The order.
/// * `limit` - At most this many notes (default 20).
#[tool(read_only, idempotent, hints = ["find", "search"])]
pub fn list_notes(
    filter: Option<NoteFilter>,
    order: Option<Order>,
    limit: Option<u32>,
    #[charter(mode = "pro", desc = "Include each note's text (pro tier).")] include_body: Option<
        bool,
    >,
    ctx: &CallContext,
) -> Vec<NoteSummary> {
    let user = user(ctx);
    let filter = filter.unwrap_or_default();
    let needle = filter.title_contains.map(|t| t.to_lowercase());
    let store = store();
    let mut notes: Vec<&Note> = store
        .notes
        .range((user.clone(), 0)..=(user, u64::MAX))
        .map(|(_, n)| n)
        .filter(|n| filter.tag.as_ref().is_none_or(|t| n.tags.contains(t)))
        .filter(|n| {
            needle
                .as_ref()
                .is_none_or(|t| n.title.to_lowercase().contains(t))
        })
        .collect();
    if matches!(order.unwrap_or_default(), Order::Newest) {
        notes.reverse();
    }
    notes
        .into_iter()
        .take(limit.unwrap_or(20) as usize)
        .map(|n| NoteSummary {
            id: n.id,
            title: n.title.clone(),
            tags: n.tags.clone(),
            body: include_body.unwrap_or(false).then(|| n.body.clone()),
        })
        .collect()
}

/// What `delete_note` did.
#[derive(Debug, Serialize)]
pub struct Deleted {
    /// The id asked for.
    pub id: u64,
    /// Whether a note was there (deleting twice is harmless: the second finds nothing).
    pub existed: bool,
}

/// Delete a note for good.
#[tool(destructive, idempotent)]
pub fn delete_note(#[charter(desc = "The note's id.")] id: u64, ctx: &CallContext) -> Deleted {
    let existed = store().notes.remove(&(user(ctx), id)).is_some();
    Deleted { id, existed }
}

charter::pack!(
    /// The example's tools: a calculator and a per-user in-memory notes store.
    pub static TOOLS = "notes", "A calculator and a small in-memory notes store.",
    [add, divide, create_note, get_note, update_note, list_notes, delete_note]
);

/// One line per tool: qualified name, default-view schema size in tokens, annotations.
pub fn describe(tables: &[&'static Table]) -> String {
    let mut out = String::new();
    let mut total = 0u32;
    let mut count = 0usize;
    for table in tables {
        out.push_str(&format!("{}: {}\n", table.pack, table.description));
        for def in table.tools {
            let a = def.annotations;
            let flags: Vec<&str> = [
                (a.read_only, "read_only"),
                (a.idempotent, "idempotent"),
                (a.destructive, "destructive"),
                (a.open_world, "open_world"),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
            let tokens = def.views[0].tokens;
            total += tokens;
            count += 1;
            out.push_str(&format!(
                "  {:<24} {:>5} tokens  {}\n",
                def.name,
                tokens,
                flags.join(" ")
            ));
        }
    }
    out.push_str(&format!("{count} tools, {total} schema tokens\n"));
    out
}
