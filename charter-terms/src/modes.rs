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
pub const fn is_reserved(label: &str) -> bool {
    str_eq(label, RESPONSE_ONLY) || str_eq(label, DISABLED)
}

/// Whether two strings are equal, in `const` context.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// [`field_visible`] over string slices, in `const` context: what the schema emitter and the
/// tables' `Field::visible_in` call.
pub const fn field_shown(
    modes: &[&str],
    active: &[&str],
    widest: bool,
    from_context: bool,
) -> bool {
    if from_context {
        return false;
    }
    if modes.is_empty() {
        return true;
    }
    let mut i = 0;
    while i < modes.len() {
        if is_reserved(modes[i]) {
            return false;
        }
        i += 1;
    }
    if widest {
        return true;
    }
    let mut i = 0;
    while i < modes.len() {
        let mut j = 0;
        while j < active.len() {
            if str_eq(modes[i], active[j]) {
                return true;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

/// Whether a field with these labels is shown (and settable) in a view with `active` labels in
/// force; `widest` when no mode at all is in force; `from_context` when the host fills it.
/// ([`field_shown`] is the same rule over `&str` slices in `const` context; a test holds them
/// equal.)
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

/// Whether a view with these labels withholds a field a call needs (docs/design.md §5): one the
/// model must send (`required`), that the host does not fill, and that the view does not show.
/// A pack, a Rust tool or a session that would serve such a view is refused; every view of a
/// tool shows what its narrowest view (only the author mode in force) shows, so the compiler and
/// the macro ask it of that one.
pub const fn withholds_required(
    modes: &[&str],
    required: bool,
    from_context: bool,
    active: &[&str],
    widest: bool,
) -> bool {
    required && !from_context && !field_shown(modes, active, widest, false)
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

    #[test]
    fn both_spellings_agree() {
        let labels: [&[&str]; 5] = [
            &[],
            &["pro"],
            &["pro", "beta"],
            &[DISABLED],
            &["beta", RESPONSE_ONLY],
        ];
        for modes in labels {
            for active in labels {
                for widest in [false, true] {
                    for ctx in [false, true] {
                        assert_eq!(
                            field_shown(modes, active, widest, ctx),
                            field_visible(modes, active, widest, ctx)
                        );
                    }
                }
            }
        }
    }
}
