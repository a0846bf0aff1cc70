//! "At least one of" groups of a tool's arguments (the pack format's `require_one_of`).

use super::Issue;

/// The problem when no "at least one of" group is complete (every member given; `null` counts,
/// as in the schema's `anyOf` of `required` lists), naming the groups; `None` when a group is complete or there are none.
pub fn unmet_groups(groups: &[&[&str]], given: impl Fn(&str) -> bool) -> Option<Issue> {
    if groups.is_empty() || groups.iter().any(|g| g.iter().all(|name| given(name))) {
        return None;
    }
    let list: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g.iter().map(|n| format!("`{n}`")).collect();
            names.join(" and ")
        })
        .collect();
    Some(Issue {
        path: String::new(),
        expected: format!("at least one of: {}", list.join(", or ")),
        got: "none of them".into(),
    })
}
