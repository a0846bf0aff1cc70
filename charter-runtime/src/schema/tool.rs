//! What `#[charter::tool]` and `charter::pack!` generate against: the [`Tool`] trait and the
//! const helpers that qualify names.

use super::scan::bytes_eq;
use crate::table::{Annotations, Exec, Handler, ObjectShape, SearchData, ToolDef, View};

// ---------------------------------------------------------------------------------------------
// Tools and packs.

/// What `#[charter::tool]` generates for a function: everything its [`ToolDef`] needs except
/// the pack, which `charter::pack!` supplies.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a charter tool",
    label = "not annotated with `#[charter::tool]`"
)]
pub trait Tool {
    /// The tool's own name inside its pack.
    const NAME: &'static str;
    /// The description (the doc comment, without its `# Arguments` section).
    const DESCRIPTION: &'static str;
    /// The search text.
    const SEARCH: SearchData;
    /// The MCP annotations.
    const ANNOTATIONS: Annotations;
    /// The author mode.
    const MODE: Option<&'static str>;
    /// Every parameter, including mode-labelled and from-context ones.
    const INPUT: &'static ObjectShape;
    /// The mode views, as for YAML packs.
    const VIEWS: &'static [View];
    /// The generated entry point.
    const HANDLER: Handler;
}

/// The table entry of tool `T` in pack `pack` under its qualified name `name`.
pub const fn tool_def<T: Tool>(pack: &'static str, name: &'static str) -> ToolDef {
    ToolDef {
        name,
        pack,
        tool: T::NAME,
        description: T::DESCRIPTION,
        annotations: T::ANNOTATIONS,
        mode: T::MODE,
        input: T::INPUT,
        require_one_of: &[],
        require_exactly_one_of: &[],
        views: T::VIEWS,
        search: T::SEARCH,
        exec: Exec::Rust(T::HANDLER),
    }
}

/// The longest qualified name docs/design.md §2 allows (the rule is `charter_terms::names`).
pub const MAX_NAME: usize = charter_terms::names::MAX_QUALIFIED_LEN;

/// The length of `<pack>_<tool>`.
pub const fn qualified_len(pack: &str, tool: &str) -> usize {
    pack.len() + 1 + tool.len()
}

/// `<pack>_<tool>` as bytes; `L` must be [`qualified_len`].
pub const fn qualify<const L: usize>(pack: &str, tool: &str) -> [u8; L] {
    let mut out = [b'_'; L];
    let (p, t) = (pack.as_bytes(), tool.as_bytes());
    let mut i = 0;
    while i < p.len() {
        out[i] = p[i];
        i += 1;
    }
    let mut j = 0;
    while j < t.len() {
        out[p.len() + 1 + j] = t[j];
        j += 1;
    }
    out
}

/// Whether two strings are equal, in `const` context.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && bytes_eq(a, 0, a.len(), b)
}
