//! What the emitter records about a view besides its text: where each top-level property sits
//! (so a session can splice pinned and from-context properties out without re-deriving the
//! schema) and what dropping each argument path saves.

/// What dropping one argument path from a view's schema saves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathCost {
    /// Dotted path from the root (`filter.state`); array items are not separate paths.
    pub path: &'static str,
    /// How many levels deep (1 for a top-level property).
    pub depth: u8,
    /// `json_tokens(schema) - json_tokens(schema without this path)`, exact.
    pub saves: u32,
}

/// Byte ranges of one top-level property inside a view's schema text.
///
/// Each range removes one property and leaves valid JSON. The comma it takes is the following
/// one for the first entry and the preceding one otherwise, so neighbouring ranges share a
/// comma: to drop several properties at once, trim that comma off each range and rejoin what
/// is kept (`charter_runtime::mode::splice_schema` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PropSpan {
    /// The property name.
    pub name: &'static str,
    /// `"name":{...}` including one adjacent comma, so removing the range leaves valid JSON.
    pub property: (u32, u32),
    /// The `"name"` entry in the `required` array, with one adjacent comma, if required. When it
    /// is the only entry, the whole `,"required":[...]` member.
    pub required: Option<(u32, u32)>,
}

impl PropSpan {
    /// A placeholder (the initial value of a span buffer).
    pub const EMPTY: PropSpan = PropSpan {
        name: "",
        property: (0, 0),
        required: None,
    };
}

/// One argument path as the emitter records it: its dotted name as a range of the path text,
/// and what dropping it saves (generated code turns these into [`PathCost`]s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawPath {
    /// Where its dotted name starts in the path text.
    pub start: u32,
    /// The name's length in bytes.
    pub len: u32,
    /// Levels deep.
    pub depth: u8,
    /// What dropping it saves, in tokens.
    pub saves: u32,
    /// Characters dropping it removes from the text (its property, one comma, its `required`
    /// entry).
    pub(crate) removed: u32,
    /// Whether its text holds a `$ref`: dropping it may drop a `$defs` entry too, so its saving
    /// is measured by a pass without it.
    pub(crate) has_ref: bool,
    /// The walk index of the object holding it ([`ROOT`](crate::emit) for the top level).
    pub(crate) parent: usize,
    /// Its own name (the last segment).
    pub(crate) name: &'static str,
}

impl RawPath {
    /// A placeholder (the initial value of a path buffer).
    pub const EMPTY: RawPath = RawPath {
        start: 0,
        len: 0,
        depth: 0,
        saves: 0,
        removed: 0,
        has_ref: false,
        parent: 0,
        name: "",
    };
}
