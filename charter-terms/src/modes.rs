//! Field labels and visibility (docs/design.md §5).
//!
//! A field may carry mode labels. `response_only` and `disabled` are reserved: such a field is
//! never shown to the model. Any other label is custom: the field shows in the widest view (no
//! mode at all in force) and in a view whose labels in force include one of its labels. A
//! field filled from the call context is never shown. An unlabelled field always shows.

/// A field the API returns but the model never sends.
pub const RESPONSE_ONLY: &str = "response_only";
/// A field switched off for every deployment.
pub const DISABLED: &str = "disabled";
/// The reserved labels.
pub const RESERVED: [&str; 2] = [RESPONSE_ONLY, DISABLED];

/// Whether a label is reserved (`response_only` or `disabled`) rather than a custom mode.
pub fn is_reserved(label: &str) -> bool {
    label == RESPONSE_ONLY || label == DISABLED
}

/// Whether a field with these labels is shown (and settable) in a view with `active` labels in
/// force; `widest` when no mode at all is in force; `from_context` when the host fills it.
#[inline]
pub fn field_visible<M: AsRef<str>, A: AsRef<str>>(
    modes: &[M],
    active: &[A],
    widest: bool,
    from_context: bool,
) -> bool {
    if from_context {
        return false;
    }
    if modes.is_empty() {
        return true;
    }
    if modes.iter().any(|m| is_reserved(m.as_ref())) {
        return false;
    }
    widest
        || modes
            .iter()
            .any(|m| active.iter().any(|a| a.as_ref() == m.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility() {
        let none: [&str; 0] = [];
        assert!(field_visible(&none, &none, false, false));
        assert!(!field_visible(&none, &none, true, true));
        assert!(field_visible(&["pro"], &none, true, false));
        assert!(!field_visible(&["pro"], &none, false, false));
        assert!(field_visible(&["pro"], &["pro"], false, false));
        assert!(!field_visible(&["pro", DISABLED], &["pro"], true, false));
        assert!(!field_visible(&[RESPONSE_ONLY], &none, true, false));
    }
}
