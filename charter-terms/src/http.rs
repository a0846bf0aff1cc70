//! HTTP tools: the MCP annotations and their defaults per method (docs/design.md §2), and URL
//! template placeholders (§8).

/// An HTTP method a pack tool is sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// GET
    Get,
    /// HEAD
    Head,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

impl Method {
    /// The method as written on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// The MCP tool annotations. For HTTP tools they default from the method
/// ([`Annotations::for_method`]) and a pack may override them per tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Annotations {
    /// Changes nothing in the world (`readOnlyHint`).
    pub read_only: bool,
    /// Calling again with the same arguments adds nothing (`idempotentHint`).
    pub idempotent: bool,
    /// May destroy data (`destructiveHint`).
    pub destructive: bool,
    /// Reaches outside the process (`openWorldHint`); every HTTP tool is open-world.
    pub open_world: bool,
}

impl Annotations {
    /// What an HTTP tool's method implies: GET/HEAD read-only and idempotent; PUT idempotent;
    /// DELETE destructive and idempotent; POST/PATCH none. Every HTTP tool is open-world.
    pub const fn for_method(method: Method) -> Self {
        let (read_only, idempotent, destructive) = match method {
            Method::Get | Method::Head => (true, true, false),
            Method::Put => (false, true, false),
            Method::Delete => (false, true, true),
            Method::Post | Method::Patch => (false, false, false),
        };
        Annotations {
            read_only,
            idempotent,
            destructive,
            open_world: true,
        }
    }

    /// A GraphQL tool whose fixed document holds only queries: read-only and idempotent,
    /// whatever its method (it is sent with POST).
    pub const GRAPHQL_QUERY: Annotations = Annotations::for_method(Method::Get);
}

/// What is malformed in a URL template, and the byte offset where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateError {
    /// A `}` with no `{` before it.
    Unmatched(usize),
    /// A `{` never closed.
    Unclosed(usize),
    /// A `{` inside a placeholder.
    Nested(usize),
    /// `{}`.
    Empty(usize),
}

impl TemplateError {
    /// What is wrong, without the offset (`unclosed `{``).
    pub fn what(&self) -> &'static str {
        match self {
            TemplateError::Unmatched(_) => "unmatched `}`",
            TemplateError::Unclosed(_) => "unclosed `{`",
            TemplateError::Nested(_) => "nested `{`",
            TemplateError::Empty(_) => "empty `{}`",
        }
    }

    /// The byte offset in the template.
    pub fn offset(&self) -> usize {
        match *self {
            TemplateError::Unmatched(o)
            | TemplateError::Unclosed(o)
            | TemplateError::Nested(o)
            | TemplateError::Empty(o) => o,
        }
    }
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at offset {}", self.what(), self.offset())
    }
}

impl std::error::Error for TemplateError {}

/// The `{placeholder}`s of a URL template, with their byte offsets, or what is malformed.
pub fn placeholders(path: &str) -> Result<Vec<(usize, &str)>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = path;
    let mut offset = 0;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(TemplateError::Unmatched(offset + open));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find(['{', '}']) else {
            return Err(TemplateError::Unclosed(offset + open));
        };
        if after.as_bytes()[close] == b'{' {
            return Err(TemplateError::Nested(offset + open + 1 + close));
        }
        let name = &after[..close];
        if name.is_empty() {
            return Err(TemplateError::Empty(offset + open));
        }
        out.push((offset + open, name));
        let consumed = open + 1 + close + 1;
        offset += consumed;
        rest = &rest[consumed..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_per_method() {
        let a = Annotations::for_method(Method::Get);
        assert!(a.read_only && a.idempotent && !a.destructive && a.open_world);
        let a = Annotations::for_method(Method::Delete);
        assert!(!a.read_only && a.idempotent && a.destructive);
        let a = Annotations::for_method(Method::Put);
        assert!(!a.read_only && a.idempotent && !a.destructive);
        let a = Annotations::for_method(Method::Patch);
        assert!(!a.read_only && !a.idempotent && !a.destructive && a.open_world);
        assert_eq!(
            Annotations::GRAPHQL_QUERY,
            Annotations::for_method(Method::Head)
        );
    }

    #[test]
    fn url_templates() {
        assert_eq!(
            placeholders("/repos/{owner}/{repo}").unwrap(),
            vec![(7, "owner"), (15, "repo")]
        );
        assert_eq!(placeholders("/a/{b"), Err(TemplateError::Unclosed(3)));
        assert_eq!(placeholders("/a/b}"), Err(TemplateError::Unmatched(4)));
        assert_eq!(placeholders("/a/{}"), Err(TemplateError::Empty(3)));
        assert_eq!(placeholders("/a/{b{c}}"), Err(TemplateError::Nested(5)));
        assert_eq!(
            placeholders("/a/{b").unwrap_err().to_string(),
            "unclosed `{` at offset 3"
        );
    }
}
