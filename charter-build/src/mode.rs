//! Modes (docs/design.md §5): which fields each view of a tool shows, and the checks that keep every
//! view callable.
//!
//! A tool compiles into its views: `Default` (no session mode: widest unless the tool has an
//! author mode), `Unmatched` (a session mode none of its fields carries: labelled fields fail
//! closed), then one per custom label its fields carry, sorted. The enumeration and the rule for
//! one field live in `charter_terms` (`views`, `modes::field_visible`), which the runtime's
//! `Field::visible_in` also calls, so validation refuses exactly the fields a view withholds.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::diagnostic::Sink;
use crate::pack::{Spec, Tool, TypeDecl};

pub use charter_terms::modes::is_reserved;
pub use charter_terms::views::ViewSpec;

/// Which session mode a view answers (the rule crate's, with an owned label).
pub type ViewKey = charter_terms::views::ViewKey<String>;

/// The views of a tool with this author mode whose fields carry these custom labels (the
/// enumeration is `charter_terms::views`, shared with `#[charter::tool]`).
pub fn views(author: Option<&str>, labels: &BTreeSet<String>) -> Vec<ViewSpec> {
    charter_terms::views::views(author, labels.iter().map(String::as_str))
}

/// Reports every required field that some view of `tool` would withhold. `Unmatched` is the
/// narrowest view (only the author mode in force), so a required field is withheld somewhere
/// exactly when it is hidden there; the rule is `charter_terms::modes::withholds_required`, which
/// `#[charter::tool]` and the runtime's session check (`charter_schema::withheld`) apply too.
pub(crate) fn check_tool(s: &mut Sink, types: &HashMap<&str, &TypeDecl>, tool: &Tool) {
    let author: Vec<String> = tool.mode.iter().map(|m| m.value.clone()).collect();
    let mut seen_types: HashSet<&str> = HashSet::new();
    let mut stack: Vec<(&str, &Spec)> = tool
        .params
        .iter()
        .map(|p| (p.name.value.as_str(), &p.spec))
        .collect();
    let mut nested: Vec<&Spec> = Vec::new();
    loop {
        while let Some((name, spec)) = stack.pop() {
            field(s, &author, name, spec);
            nested.push(spec);
        }
        let Some(spec) = nested.pop() else { break };
        // Descend: properties are fields; items, values and alternatives hold more fields.
        let mut shapes = vec![spec];
        while let Some(sh) = shapes.pop() {
            if let Some(r) = &sh.reference
                && let Some(t) = types.get(r.value.as_str())
                && seen_types.insert(&t.name.value)
            {
                shapes.push(&t.spec);
            }
            if let Some(props) = &sh.properties {
                stack.extend(props.value.iter().map(|f| (f.name.value.as_str(), &f.spec)));
            }
            shapes.extend(sh.items.as_deref());
            shapes.extend(sh.values.as_deref());
            shapes.extend(sh.one_of.iter().flat_map(|o| o.value.iter()));
        }
    }
}

fn field(s: &mut Sink, author: &[String], name: &str, spec: &Spec) {
    let Some(modes) = &spec.modes else { return };
    let labels: Vec<&str> = modes.value.iter().map(|m| m.value.as_str()).collect();
    let active: Vec<&str> = author.iter().map(String::as_str).collect();
    // The narrowest view: only the author mode in force.
    if !charter_terms::modes::withholds_required(
        &labels,
        spec.is_required(),
        spec.from_context.is_some(),
        &active,
        false,
    ) {
        return;
    }
    if let Some(m) = modes.value.iter().find(|m| is_reserved(&m.value)) {
        s.err(
            m.loc,
            format!(
                "required field `{name}` is never shown to the model (`{}`): make it optional, or fill it with `from_context`",
                m.value
            ),
        );
        return;
    }
    let first = &modes.value[0];
    s.err(
        first.loc,
        format!(
            "required field `{name}` is withheld under every session mode other than {}: a mode label must not hide a required field; make it optional or remove its `modes`",
            labels.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_order_and_visibility() {
        let labels: BTreeSet<String> = ["pro".to_owned(), "beta".to_owned()].into();
        let v = views(None, &labels);
        assert_eq!(v[0].key, ViewKey::Default);
        assert_eq!(v[1].key, ViewKey::Unmatched);
        assert_eq!(v[2].key, ViewKey::Label("beta".into()));
        assert_eq!(v[3].key, ViewKey::Label("pro".into()));
        let pro = vec!["pro".to_owned()];
        assert!(v[0].shows(&pro, false), "no mode at all is the widest view");
        assert!(!v[1].shows(&pro, false), "an unmatched mode fails closed");
        assert!(!v[2].shows(&pro, false));
        assert!(v[3].shows(&pro, false));
        assert!(!v[0].shows(&["disabled".to_owned()], false));
        assert!(
            !v[0].shows(&[] as &[String], true),
            "from-context fields are never visible"
        );

        let v = views(Some("create"), &labels);
        assert!(!v[0].widest, "an author mode narrows the default view");
        assert_eq!(v[3].active, vec!["create".to_owned(), "pro".to_owned()]);
        assert!(v[1].shows(&["create".to_owned()], false));
    }
}
