//! The checks' own name rules: type names, environment variables, dotted response paths. (Labels, tool names and the qualified-name limit are product rules and live in
//! `charter_terms::names`.)

pub(super) fn valid_type_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

pub(super) fn valid_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// An HTTP header name (an RFC 9110 token; the rule is `charter_terms::http`).
pub(crate) use charter_terms::http::valid_header_name;

/// Checks a dotted response path. Numeric segments index arrays; `-1` is the last element.
pub fn check_dotted(path: &str, allow_index: bool) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    for seg in path.split('.') {
        if seg.is_empty() {
            return Err(format!(
                "`{path}` has an empty segment (`..` or a leading/trailing `.`)"
            ));
        }
        let numeric = seg.strip_prefix('-').unwrap_or(seg);
        if !numeric.is_empty() && numeric.bytes().all(|b| b.is_ascii_digit()) {
            if !allow_index {
                continue;
            }
            if seg.starts_with('-') && seg != "-1" {
                return Err(format!(
                    "`{seg}` in `{path}`: the only negative index is `-1` (the last element)"
                ));
            }
            if seg.parse::<i64>().is_err() {
                return Err(format!("`{seg}` in `{path}` is not a usable index"));
            }
        }
    }
    Ok(())
}
