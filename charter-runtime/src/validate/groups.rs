//! Groups of a tool's arguments: "at least one of" (the pack format's `require_one_of`) and
//! "exactly one of" (`require_exactly_one_of`). A group is complete when every member is given
//! (`null` counts, as in JSON Schema's `required`). The wording is `charter_terms::groups`, which
//! the schema's own sentence uses too.

use charter_terms::groups::{AT_LEAST_ONE, EXACTLY_ONE, OR, listing};

use super::Issue;

/// The problem when no "at least one of" group is complete (the schema's `anyOf` of `required`
/// lists), naming the groups; `None` when a group is complete or there are none.
pub fn unmet_groups(groups: &[&[&str]], given: impl Fn(&str) -> bool) -> Option<Issue> {
    if groups.is_empty() || groups.iter().any(|g| complete(g, &given)) {
        return None;
    }
    Some(issue(AT_LEAST_ONE, groups, "none of them".into()))
}

/// The problem when not exactly one "exactly one of" group is complete (the schema's `oneOf` of
/// `required` lists): none, or two or more, named; `None` when one is or there are none.
pub fn unmet_exactly_one(groups: &[&[&str]], given: impl Fn(&str) -> bool) -> Option<Issue> {
    let done: Vec<&[&str]> = groups
        .iter()
        .copied()
        .filter(|g| complete(g, &given))
        .collect();
    if groups.is_empty() || done.len() == 1 {
        return None;
    }
    let got = if done.is_empty() {
        "none of them".into()
    } else {
        format!("{} of them: {}", done.len(), listing(&done, ", "))
    };
    Some(issue(EXACTLY_ONE, groups, got))
}

fn complete(group: &[&str], given: &impl Fn(&str) -> bool) -> bool {
    group.iter().all(|name| given(name))
}

fn issue(rule: &str, groups: &[&[&str]], got: String) -> Issue {
    Issue {
        path: String::new(),
        expected: format!("{rule}: {}", listing(groups, OR)),
        got,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TARGETS: &[&[&str]] = &[&["issue_id"], &["comment_id"], &["a", "b"]];

    fn given<'a>(names: &'a [&'a str]) -> impl Fn(&str) -> bool + 'a {
        move |n| names.contains(&n)
    }

    #[test]
    fn exactly_one_complete_group_passes() {
        assert!(unmet_exactly_one(TARGETS, given(&["issue_id"])).is_none());
        assert!(unmet_exactly_one(TARGETS, given(&["a", "b", "other"])).is_none());
        // A partial group is not a choice: `a` alone leaves `comment_id` the one given.
        assert!(unmet_exactly_one(TARGETS, given(&["comment_id", "a"])).is_none());
        assert!(unmet_exactly_one(&[], given(&[])).is_none());
    }

    #[test]
    fn none_given_is_refused_naming_the_groups() {
        let issue = unmet_exactly_one(TARGETS, given(&["a"])).unwrap();
        assert_eq!(
            issue.expected,
            "exactly one of: `issue_id`, or `comment_id`, or `a` and `b`"
        );
        assert_eq!(issue.got, "none of them");
        assert_eq!(issue.path, "");
    }

    #[test]
    fn two_groups_given_are_refused_naming_them() {
        let issue = unmet_exactly_one(TARGETS, given(&["issue_id", "a", "b"])).unwrap();
        assert_eq!(issue.got, "2 of them: `issue_id`, `a` and `b`");
        let issue = unmet_exactly_one(TARGETS, given(&["issue_id", "comment_id"])).unwrap();
        assert_eq!(issue.got, "2 of them: `issue_id`, `comment_id`");
    }

    #[test]
    fn at_least_one_accepts_several() {
        assert!(unmet_groups(TARGETS, given(&["issue_id", "comment_id"])).is_none());
        let issue = unmet_groups(TARGETS, given(&["b"])).unwrap();
        assert_eq!(
            issue.expected,
            "at least one of: `issue_id`, or `comment_id`, or `a` and `b`"
        );
        assert_eq!(issue.got, "none of them");
    }
}
