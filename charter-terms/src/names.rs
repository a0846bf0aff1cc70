//! Names (docs/design.md §2): a tool is published as `<pack>_<tool>`.
//!
//! A pack label is `[a-z0-9-]+` with no `_`, because the first `_` of a published name splits
//! pack from tool; a tool name is `[a-z0-9_]+` without `__` (hosts use `__` as a separator) and
//! not starting with `_`. Hosts prefix `mcp__<server>__` and providers cap names at 64
//! characters, so a qualified name is at most [`MAX_QUALIFIED_LEN`] characters.
//!
//! Each caller words its own message for its reader (a pack author, a macro user, a server
//! operator); the rule itself is only here.

/// The longest published (qualified) name, in characters.
pub const MAX_QUALIFIED_LEN: usize = 50;

/// The largest pack file the compiler reads: 8 MiB, some fifty times a large hand-written pack
/// and several times an imported API of a thousand operations. A larger file is refused with a
/// diagnostic instead of being parsed into memory; the OpenAPI importer splits what would
/// exceed it.
pub const MAX_PACK_BYTES: usize = 8 * 1024 * 1024;

/// The longest tool name that can still be qualified: the shortest label (one character) and
/// the `_` take two.
pub const MAX_TOOL_NAME_LEN: usize = MAX_QUALIFIED_LEN - 2;

/// What is wrong with a label or a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameProblem {
    /// The name is empty.
    Empty,
    /// The first character outside the alphabet.
    Char(char),
    /// A tool name starting with `_` (its qualified name would hold `__`).
    LeadingUnderscore,
    /// A tool name holding `__`.
    DoubleUnderscore,
}

/// Whether `b` may appear in a pack label: `[a-z0-9-]`.
pub const fn is_label_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
}

/// Whether `b` may appear in a tool name: `[a-z0-9_]`.
pub const fn is_tool_name_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'
}

/// What is wrong with a pack label, if anything.
pub fn label_problem(label: &str) -> Option<NameProblem> {
    if label.is_empty() {
        return Some(NameProblem::Empty);
    }
    label
        .chars()
        .find(|c| !(c.is_ascii() && is_label_byte(*c as u8)))
        .map(NameProblem::Char)
}

/// Whether `label` is a valid pack label: `[a-z0-9-]+`.
pub fn valid_label(label: &str) -> bool {
    label_problem(label).is_none()
}

/// What is wrong with a tool name, if anything (the length is checked on the qualified name).
pub fn tool_name_problem(name: &str) -> Option<NameProblem> {
    if name.is_empty() {
        return Some(NameProblem::Empty);
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii() && is_tool_name_byte(*c as u8)))
    {
        return Some(NameProblem::Char(c));
    }
    if name.starts_with('_') {
        return Some(NameProblem::LeadingUnderscore);
    }
    if name.contains("__") {
        return Some(NameProblem::DoubleUnderscore);
    }
    None
}

/// Whether `name` is a valid tool name: `[a-z0-9_]+`, no `__`, not starting with `_`.
pub fn valid_tool_name(name: &str) -> bool {
    tool_name_problem(name).is_none()
}

/// The published name of `tool` in pack `label`.
pub fn qualified(label: &str, tool: &str) -> String {
    let mut out = String::with_capacity(label.len() + 1 + tool.len());
    out.push_str(label);
    out.push('_');
    out.push_str(tool);
    out
}

/// The length of a qualified name in characters, when it is over [`MAX_QUALIFIED_LEN`].
pub fn qualified_too_long(qualified: &str) -> Option<usize> {
    let len = qualified.chars().count();
    (len > MAX_QUALIFIED_LEN).then_some(len)
}

/// Whether `name` can be a property name for every provider: `[A-Za-z0-9_.-]{1,64}`.
pub fn valid_property_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert!(valid_label("google-calendar"));
        assert!(valid_label("v2"));
        assert_eq!(label_problem(""), Some(NameProblem::Empty));
        assert_eq!(label_problem("git_hub"), Some(NameProblem::Char('_')));
        assert_eq!(label_problem("GitHub"), Some(NameProblem::Char('G')));
        assert_eq!(label_problem("café"), Some(NameProblem::Char('é')));
    }

    #[test]
    fn tool_names() {
        assert!(valid_tool_name("pulls_list"));
        assert_eq!(
            tool_name_problem("pulls-list"),
            Some(NameProblem::Char('-'))
        );
        assert_eq!(
            tool_name_problem("_x"),
            Some(NameProblem::LeadingUnderscore)
        );
        assert_eq!(
            tool_name_problem("a__b"),
            Some(NameProblem::DoubleUnderscore)
        );
        assert_eq!(tool_name_problem(""), Some(NameProblem::Empty));
    }

    #[test]
    fn qualified_limit() {
        assert_eq!(qualified("gh", "pulls_list"), "gh_pulls_list");
        assert_eq!(qualified_too_long(&"a".repeat(50)), None);
        assert_eq!(qualified_too_long(&"a".repeat(51)), Some(51));
        assert_eq!(MAX_TOOL_NAME_LEN, 48);
    }

    #[test]
    fn property_names() {
        assert!(valid_property_name("per_page"));
        assert!(valid_property_name("a.b-c"));
        assert!(!valid_property_name(""));
        assert!(!valid_property_name("a b"));
        assert!(!valid_property_name(&"a".repeat(65)));
    }
}

/// The environment variable a deployment sets for one of a pack's settings:
/// `CHARTER_<PACK>_<SETTING>` (`base_url` -> `CHARTER_GITHUB_BASE_URL`, `token_url` ->
/// `CHARTER_GMAIL_TOKEN_URL`). The pack compiler, the importer and the runtime's errors all name it
/// through this one spelling.
pub fn pack_env(label: &str, setting: &str) -> String {
    format!(
        "CHARTER_{}_{}",
        label.to_ascii_uppercase().replace('-', "_"),
        setting.to_ascii_uppercase()
    )
}

/// A `{name}` placeholder of a pack's `base_url` (the shop of
/// `https://{shop}.myshopify.com/admin/...`): lower-case letters, digits and `_`, starting with a
/// letter, and never `base_url` (that variable replaces the whole URL). Its value comes from
/// [`pack_env`]`(label, name)` at run time.
pub fn valid_base_url_setting(name: &str) -> bool {
    name != "base_url"
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether a value may fill a `base_url` placeholder: one or more of `[A-Za-z0-9.-]`, so a
/// setting can name a host label but never add a path, port, user or query.
pub fn valid_base_url_value(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// The `base_url` a pack writes to leave its URL to run time: `${CHARTER_<PACK>_BASE_URL}`.
pub fn base_url_at_run_time(label: &str) -> String {
    format!("${{{}}}", pack_env(label, "base_url"))
}

#[cfg(test)]
mod env_tests {
    use super::*;

    #[test]
    fn base_url_settings() {
        assert!(valid_base_url_setting("shop"));
        assert!(valid_base_url_setting("tenant_2"));
        assert!(!valid_base_url_setting("base_url"));
        assert!(!valid_base_url_setting("Shop"));
        assert!(!valid_base_url_setting("2x"));
        assert!(valid_base_url_value("my-store"));
        assert!(!valid_base_url_value(""));
        assert!(!valid_base_url_value("evil.example/x"));
        assert!(!valid_base_url_value("a@b"));
        assert_eq!(pack_env("shopify", "shop"), "CHARTER_SHOPIFY_SHOP");
    }

    #[test]
    fn pack_settings_are_named_after_the_label() {
        assert_eq!(pack_env("github", "base_url"), "CHARTER_GITHUB_BASE_URL");
        assert_eq!(pack_env("my-api", "TOKEN_URL"), "CHARTER_MY_API_TOKEN_URL");
        assert_eq!(base_url_at_run_time("my-api"), "${CHARTER_MY_API_BASE_URL}");
    }
}
