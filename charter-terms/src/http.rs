//! HTTP tools: the MCP annotations and their defaults per method (docs/design.md §2), URL
//! template placeholders (§8), pagination cursors read from a `Link` header, and the dotted
//! paths that name parts of an answer (`response.keep`, cursors).

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
///
/// `#[non_exhaustive]` (MCP may add hints): build one with [`Annotations::new`] and the `with_*`
/// methods, which are `const` for generated tables.
#[non_exhaustive]
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
    /// No hint claimed (every flag `false`).
    pub const fn new() -> Annotations {
        Annotations {
            read_only: false,
            idempotent: false,
            destructive: false,
            open_world: false,
        }
    }

    /// Changes nothing in the world (`readOnlyHint`).
    pub const fn with_read_only(mut self, read_only: bool) -> Annotations {
        self.read_only = read_only;
        self
    }

    /// Calling again with the same arguments adds nothing (`idempotentHint`).
    pub const fn with_idempotent(mut self, idempotent: bool) -> Annotations {
        self.idempotent = idempotent;
        self
    }

    /// May destroy data (`destructiveHint`).
    pub const fn with_destructive(mut self, destructive: bool) -> Annotations {
        self.destructive = destructive;
        self
    }

    /// Reaches outside the process (`openWorldHint`).
    pub const fn with_open_world(mut self, open_world: bool) -> Annotations {
        self.open_world = open_world;
        self
    }

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

/// Whether `name` may be an HTTP header name (an RFC 9110 token): what a pack may declare and
/// what the OpenAPI importer writes.
pub fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

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

/// A pagination cursor read from the response's `Link` header (RFC 8288) rather than its body:
/// declared as `next: link:REL?KEY`, it is the query parameter `KEY` of the link whose relation
/// is `REL`. GitHub's REST API pages this way (`link:next?after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkCursor<'a> {
    /// The link relation (`next`).
    pub rel: &'a str,
    /// The query parameter of the link's URL that holds the cursor (`after`).
    pub key: &'a str,
}

/// A pagination `next` of the `link:REL?KEY` form ([`LinkCursor`]): `None` when `next` is a
/// path in the response body instead, `Some(Err(..))` saying what is malformed.
pub fn link_cursor(next: &str) -> Option<Result<LinkCursor<'_>, String>> {
    let rest = next.strip_prefix("link:")?;
    let Some((rel, key)) = rest.split_once('?') else {
        return Some(Err(format!(
            "`{next}` names no query parameter: write `link:REL?KEY`, e.g. `link:next?after`"
        )));
    };
    // RFC 8288 registered relation types: lower-case letters, digits, `.` and `-`.
    let rel_ok = rel.starts_with(|c: char| c.is_ascii_lowercase())
        && rel
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    if !rel_ok {
        return Some(Err(format!(
            "`{rel}` in `{next}` is not a link relation (lower-case, such as `next`)"
        )));
    }
    if key.is_empty() || key.contains(['&', '=', '#', '?']) {
        return Some(Err(format!(
            "`{key}` in `{next}` is not a query parameter name"
        )));
    }
    Some(Ok(LinkCursor { rel, key }))
}

/// The segments of a dotted path into an answer (`data.-1.id`: a numeric segment indexes a
/// list, `-1` its last item). A segment that starts with `@` is an OData annotation
/// (`@odata.nextLink`, `value.@odata.etag`): its own dot is part of the name, so it runs to the
/// end of the path. The runtime's projection and cursors and the importers' result shapes all
/// read paths with it.
///
/// ```
/// use charter_terms::http::path_segments;
///
/// assert_eq!(path_segments("data.-1.id"), ["data", "-1", "id"]);
/// assert_eq!(path_segments("value.@odata.etag"), ["value", "@odata.etag"]);
/// ```
pub fn path_segments(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    loop {
        if rest.starts_with('@') {
            out.push(rest);
            return out;
        }
        match rest.split_once('.') {
            Some((segment, tail)) => {
                out.push(segment);
                rest = tail;
            }
            None => {
                out.push(rest);
                return out;
            }
        }
    }
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

    #[test]
    fn link_cursors() {
        assert_eq!(link_cursor("data.-1.id"), None);
        assert_eq!(link_cursor("@odata.nextLink?$skip"), None);
        assert_eq!(
            link_cursor("link:next?after"),
            Some(Ok(LinkCursor {
                rel: "next",
                key: "after"
            }))
        );
        for bad in [
            "link:next",
            "link:?after",
            "link:Next?after",
            "link:next?",
            "link:next?a=b",
        ] {
            assert!(matches!(link_cursor(bad), Some(Err(_))), "{bad}");
        }
    }
}
