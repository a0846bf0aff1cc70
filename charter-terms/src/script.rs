//! How a tool is reached from a code-mode program (docs/code-mode.md): each pack is a global
//! object of the program, each tool an async function on it (`github.pulls_list`).
//!
//! A pack label is `[a-z0-9-]+` and a tool name `[a-z0-9_]+`, so most are identifiers already.
//! The rest are spelled here, once, for the runtime that defines the globals and for whatever
//! writes the signatures a model reads: a `-` becomes `_` (`my-tools` → `my_tools`, which no
//! other label can be, since a label holds no `_`); a label that would start with a digit, or
//! that is a reserved word or a global the program already has (`console`, `eval`), gets a `_`
//! after it; a tool name that is not an identifier is reached with brackets (`pack["3d_view"]`).

/// Words a global may not be: JavaScript's reserved words (lowercase ones only, as labels are)
/// and the lowercase globals every program has.
const TAKEN: &[&str] = &[
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "arguments",
    "async",
    "of",
    "get",
    "set",
    "undefined",
    "eval",
    "console",
    "escape",
    "unescape",
];

/// The name of pack `label`'s global object in a program.
pub fn pack_global(label: &str) -> String {
    let mut name: String = label
        .chars()
        .map(|c| if c == '-' { '_' } else { c })
        .collect();
    let digit_first = name.starts_with(|c: char| c.is_ascii_digit());
    if name.is_empty() || digit_first || TAKEN.contains(&name.as_str()) {
        name.push('_');
        if digit_first {
            name.insert(0, '_');
        }
    }
    name
}

/// Whether `name` can follow a `.` in a program: an ASCII identifier (letters, digits, `_`,
/// `$`, not starting with a digit).
pub fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// How a program calls tool `tool` of pack `label`: `github.pulls_list`, or
/// `pack["3d_view"]` when the tool name is not an identifier.
pub fn tool_access(label: &str, tool: &str) -> String {
    let global = pack_global(label);
    if is_identifier(tool) {
        format!("{global}.{tool}")
    } else {
        format!("{global}[\"{tool}\"]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_globals() {
        assert_eq!(pack_global("github"), "github");
        assert_eq!(pack_global("my-tools"), "my_tools");
        assert_eq!(pack_global("console"), "console_");
        assert_eq!(pack_global("3d"), "_3d_");
        assert_eq!(pack_global("new"), "new_");
        assert_eq!(tool_access("github", "pulls_list"), "github.pulls_list");
        assert_eq!(tool_access("cad", "3d_view"), "cad[\"3d_view\"]");
    }
}
