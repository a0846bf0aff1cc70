//! The violations that are not this project's: `openapi/validator-quirks.yaml`, each entry a
//! document quirk (the API's own description is wrong or stricter than the API) or a validator
//! limitation (Prism or the form check cannot judge the request), with the reason.

use serde::Deserialize;

use super::prism::Violation;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    pub quirks: Vec<Quirk>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The API's description is wrong, or stricter than the API.
    Document,
    /// The validator cannot judge this request.
    Validator,
    /// This project's, not fixed yet: listed so the check stays green while it is open, and
    /// printed apart in the summary (the count to bring to zero).
    Open,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quirk {
    /// The pack label.
    pub pack: String,
    /// A published tool name; a trailing `*` matches any suffix. Absent: every tool.
    #[serde(default)]
    pub tool: Option<String>,
    /// A prefix of the violation's location (`body.raw`, `query`).
    #[serde(default)]
    pub location: Option<String>,
    /// The violation code, exactly.
    #[serde(default)]
    pub code: Option<String>,
    /// Text the violation's message contains.
    #[serde(default)]
    pub message: Option<String>,
    pub kind: Kind,
    pub reason: String,
}

impl Quirk {
    pub fn matches(&self, pack: &str, tool: &str, v: &Violation) -> bool {
        let tool_ok = match self.tool.as_deref() {
            None => true,
            Some(t) => match t.strip_suffix('*') {
                Some(prefix) => tool.starts_with(prefix),
                None => tool == t,
            },
        };
        self.pack == pack
            && tool_ok
            && self
                .location
                .as_deref()
                .is_none_or(|l| v.location.starts_with(l))
            && self.code.as_deref().is_none_or(|c| v.code == c)
            && self
                .message
                .as_deref()
                .is_none_or(|m| v.message.contains(m))
    }
}

/// Reads the quirks file; a malformed file fails the check, naming the file.
pub fn load(path: &std::path::Path) -> Vec<Quirk> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: File =
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for q in &file.quirks {
        assert!(
            q.reason.len() >= 20,
            "{}: quirk {q:?} needs a reason",
            path.display()
        );
    }
    file.quirks
}
