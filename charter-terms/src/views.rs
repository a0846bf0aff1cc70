//! The mode views of a tool (docs/design.md §5), enumerated the same way by the pack compiler,
//! `#[charter::tool]` and the tables the runtime reads.
//!
//! Every tool has the default view (no session mode: the widest, unless an author mode
//! narrows it), the unmatched view (a session mode no field carries: labelled fields fail
//! closed), then one view per custom label its fields carry, in sorted order. The author mode is
//! in force in every view.

use crate::modes;

/// Which session mode a view answers. `S` is the label's type: `String` where views are
/// computed, `&'static str` in a compiled table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewKey<S> {
    /// No session mode: the widest view (every custom-labelled field shown), narrowed only by
    /// the tool's author mode if it has one.
    Default,
    /// A session mode that no field of this tool carries: labelled fields fail closed.
    Unmatched,
    /// A session mode equal to this label.
    Label(S),
}

/// One view: the session mode it answers, the labels in force and whether it is the widest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewSpec {
    /// The session mode it answers.
    pub key: ViewKey<String>,
    /// The labels in force (author mode, then session mode).
    pub active: Vec<String>,
    /// No mode at all is in force: every custom-labelled field is shown.
    pub widest: bool,
}

impl ViewSpec {
    /// Whether a field with these labels is visible here (see [`modes::field_visible`]).
    pub fn shows<M: AsRef<str>>(&self, modes: &[M], from_context: bool) -> bool {
        modes::field_visible(modes, &self.active, self.widest, from_context)
    }
}

/// The views of a tool with this author mode whose fields carry these labels (any order,
/// repeats and reserved labels allowed: they are sorted, deduplicated and filtered here).
pub fn views<'a>(author: Option<&str>, labels: impl IntoIterator<Item = &'a str>) -> Vec<ViewSpec> {
    let mut labels: Vec<&str> = labels
        .into_iter()
        .filter(|l| !modes::is_reserved(l) && !l.trim().is_empty())
        .collect();
    labels.sort_unstable();
    labels.dedup();
    let base: Vec<String> = author.map(str::to_owned).into_iter().collect();
    let mut out = Vec::with_capacity(2 + labels.len());
    out.push(ViewSpec {
        key: ViewKey::Default,
        active: base.clone(),
        widest: author.is_none(),
    });
    out.push(ViewSpec {
        key: ViewKey::Unmatched,
        active: base.clone(),
        widest: false,
    });
    for label in labels {
        let mut active = base.clone();
        if !active.iter().any(|a| a == label) {
            active.push(label.to_owned());
        }
        out.push(ViewSpec {
            key: ViewKey::Label(label.to_owned()),
            active,
            widest: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_order_and_visibility() {
        let v = views(None, ["pro", "beta", "pro", "disabled"]);
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].key, ViewKey::Default);
        assert_eq!(v[1].key, ViewKey::Unmatched);
        assert_eq!(v[2].key, ViewKey::Label("beta".into()));
        assert_eq!(v[3].key, ViewKey::Label("pro".into()));
        let pro = ["pro"];
        assert!(v[0].shows(&pro, false), "no mode at all is the widest view");
        assert!(!v[1].shows(&pro, false), "an unmatched mode fails closed");
        assert!(!v[2].shows(&pro, false));
        assert!(v[3].shows(&pro, false));
        assert!(!v[0].shows(&["disabled"], false));
        let none: [&str; 0] = [];
        assert!(
            !v[0].shows(&none, true),
            "from-context fields are never visible"
        );

        let v = views(Some("create"), ["pro", "beta"]);
        assert!(!v[0].widest, "an author mode narrows the default view");
        assert_eq!(v[3].active, vec!["create".to_owned(), "pro".to_owned()]);
        assert!(v[1].shows(&["create"], false));
        let v = views(Some("create"), ["create"]);
        assert_eq!(v[2].active, vec!["create".to_owned()]);
    }
}
