//! "At least one of" / "exactly one of" groups of fields (the pack format's `require_one_of` and
//! `require_exactly_one_of`), as the model reads them: listed the same way in a tool's schema
//! and in the validation error that refuses a call breaking them.
//!
//! A tool's own groups cannot be a combinator at the root of its schema (Anthropic's and OpenAI's
//! APIs refuse `anyOf`/`oneOf`/`allOf`/`enum`/`not` there: docs/design.md §3), so they are this
//! sentence in the root's `description`; validation enforces them before any call.

/// `` `a` and `b`, or `c` ``: groups joined by `or`, the fields of one group by "and".
pub fn listing<G: AsRef<[S]>, S: AsRef<str>>(groups: &[G], or: &str) -> String {
    let list: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g
                .as_ref()
                .iter()
                .map(|n| format!("`{}`", n.as_ref()))
                .collect();
            names.join(" and ")
        })
        .collect();
    list.join(or)
}

/// What a schema's `description` says of a tool's groups: `Give at least one of: `a`, or `b`.`
/// and/or `Give exactly one of: ...`; `None` when the tool has none.
pub fn sentence<G: AsRef<[S]>, S: AsRef<str>>(
    at_least_one: &[G],
    exactly_one: &[G],
) -> Option<String> {
    let mut out = Vec::new();
    for (rule, groups) in [(AT_LEAST_ONE, at_least_one), (EXACTLY_ONE, exactly_one)] {
        if !groups.is_empty() {
            out.push(format!("Give {rule}: {}.", listing(groups, OR)));
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// The rule of a `require_one_of` group list, as the model reads it.
pub const AT_LEAST_ONE: &str = "at least one of";
/// The rule of a `require_exactly_one_of` group list.
pub const EXACTLY_ONE: &str = "exactly one of";
/// What separates groups in a listing.
pub const OR: &str = ", or ";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences() {
        let none: [&[&str]; 0] = [];
        assert_eq!(sentence(&none, &none), None);
        assert_eq!(
            sentence(&[&["reviewers"][..], &["team_reviewers"]], &none).as_deref(),
            Some("Give at least one of: `reviewers`, or `team_reviewers`.")
        );
        let groups = vec![vec!["a".to_owned(), "b".to_owned()], vec!["c".to_owned()]];
        assert_eq!(
            sentence(&groups, &groups).as_deref(),
            Some(
                "Give at least one of: `a` and `b`, or `c`. Give exactly one of: `a` and `b`, or `c`."
            )
        );
    }
}
