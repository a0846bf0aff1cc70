//! The static checks of a pack (docs/design.md §2, §3, §5; `docs/pack-format.md`, "The checks").
//!
//! Every check reports `file:line:col: message saying what to change` and carries on, so one
//! build lists every mistake in a file. Structural mistakes (unknown keys, wrong kinds) are
//! reported while parsing ([`crate::pack::parse`]); this module checks what the declarations
//! mean: names, URL templates, types and references, enums and defaults, modes.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::diagnostic::{Diagnostic, Loc, Sink};
use crate::graphql;
use crate::mode;
use crate::pack::{
    AuthScheme, BodyEnc, Field, HttpMethod, In, Json, Kind, Pack, PaginationDecl, Sp, Spec, Tool,
    TypeDecl,
};

/// The longest published name: hosts prefix `mcp__<server>__` and providers cap names at 64.
pub const MAX_QUALIFIED_LEN: usize = 50;

/// Whether `label` is a valid pack label: `[a-z0-9-]+`.
pub fn valid_label(label: &str) -> bool {
    !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Whether `name` is a valid tool name: `[a-z0-9_]+`, no `__`, not starting with `_`.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.contains("__")
        && !name.starts_with('_')
}

/// Whether `name` can be a property name for every provider: `[A-Za-z0-9_.-]{1,64}`.
pub fn valid_property_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn valid_type_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

pub(crate) fn valid_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `{placeholder}`s of a URL template, with their byte offsets, or what is malformed.
pub fn placeholders(path: &str) -> Result<Vec<(usize, &str)>, String> {
    let mut out = Vec::new();
    let mut rest = path;
    let mut offset = 0;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("unmatched `}}` at offset {}", offset + open));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find(['{', '}']) else {
            return Err(format!("unclosed `{{` at offset {}", offset + open));
        };
        if after.as_bytes()[close] == b'{' {
            return Err(format!(
                "nested `{{` at offset {}",
                offset + open + 1 + close
            ));
        }
        let name = &after[..close];
        if name.is_empty() {
            return Err(format!("empty `{{}}` at offset {}", offset + open));
        }
        out.push((offset + open, name));
        let consumed = open + 1 + close + 1;
        offset += consumed;
        rest = &rest[consumed..];
    }
    Ok(out)
}

/// The wire name of a field after the pack's casing rule (an explicit `wire:` wins).
pub fn wire_name(name: &str, wire: Option<&str>, casing: crate::pack::Casing) -> String {
    use crate::pack::Casing;
    if let Some(w) = wire {
        return w.to_owned();
    }
    match casing {
        Casing::Exact => name.to_owned(),
        Casing::Snake => {
            let mut out = String::with_capacity(name.len() + 4);
            let mut prev_lower = false;
            for c in name.chars() {
                if c.is_ascii_uppercase() {
                    if prev_lower {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                    prev_lower = false;
                } else {
                    out.push(c);
                    prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
                }
            }
            out
        }
        Casing::Camel => {
            let mut out = String::with_capacity(name.len());
            let mut upper = false;
            for (i, c) in name.chars().enumerate() {
                if c == '_' && i > 0 {
                    upper = true;
                } else if upper {
                    out.push(c.to_ascii_uppercase());
                    upper = false;
                } else {
                    out.push(c);
                }
            }
            out
        }
    }
}

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

/// Reports the same qualified name published by two tools, across every pack compiled
/// together.
pub fn unique_names(packs: &[Pack]) -> Vec<Diagnostic> {
    let mut seen: HashMap<String, (String, Loc)> = HashMap::new();
    let mut out = Vec::new();
    for pack in packs {
        let Some(label) = &pack.label else { continue };
        for tool in &pack.tools {
            let qualified = format!("{}_{}", label.value, tool.name.value);
            match seen.get(&qualified) {
                Some((file, loc)) => out.push(Diagnostic::new(
                    &pack.file,
                    tool.name.loc,
                    format!(
                        "`{qualified}` is already published by {file}:{}:{}; rename this tool or give the pack another label",
                        loc.line, loc.col
                    ),
                )),
                None => {
                    seen.insert(qualified, (pack.file.clone(), tool.name.loc));
                }
            }
        }
    }
    out
}

/// Runs every check of one pack.
pub(crate) fn pack(s: &mut Sink, pack: &Pack) {
    let types: HashMap<&str, &TypeDecl> = pack
        .types
        .iter()
        .map(|t| (t.name.value.as_str(), t))
        .collect();
    let unguarded = type_cycles(s, pack, &types);
    let mut recursive = crate::model::recursive_types(&pack.types);
    // A type already reported as an unguarded cycle is not reported again as an alternative.
    recursive.retain(|t| !unguarded.contains(t));
    let cx = Cx {
        types: &types,
        pack,
        recursive: &recursive,
    };

    if let Some(label) = &pack.label
        && !valid_label(&label.value)
    {
        s.err(
            label.loc,
            format!(
                "invalid pack label `{}`: use lowercase letters, digits and `-` only (no `_`: the first `_` of a published name separates pack from tool)",
                label.value
            ),
        );
    }
    if let Some(d) = &pack.description {
        non_empty(s, d, "the pack's `description`");
    }
    if let Some(url) = &pack.base_url {
        let v = &url.value;
        let rest = v
            .strip_prefix("https://")
            .or_else(|| v.strip_prefix("http://"));
        match rest {
            None => s.err(
                url.loc,
                format!("`base_url` `{v}` must be an absolute `https://` (or `http://`) URL"),
            ),
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                s.err(url.loc, format!("`base_url` `{v}` has no host"))
            }
            Some(_) if v.contains(['{', '}', '?', '#', ' ']) => s.err(
                url.loc,
                format!(
                    "`base_url` `{v}` must be a plain URL: put query constants under `query:` and path placeholders in each tool's `path`"
                ),
            ),
            Some(_) => {}
        }
    }
    auth(s, pack);
    for (k, _) in &pack.headers {
        if !valid_header_name(&k.value) {
            s.err(k.loc, format!("`{}` is not a valid header name", k.value));
        }
    }
    for (k, _) in &pack.query {
        if k.value.is_empty() {
            s.err(k.loc, "a query constant needs a name");
        }
    }

    for t in &pack.types {
        if !valid_type_name(&t.name.value) {
            s.err(
                t.name.loc,
                format!(
                    "invalid type name `{}`: start with a letter, then letters, digits or `_`",
                    t.name.value
                ),
            );
        }
        if let Some(r) = &t.spec.reference {
            s.err(
                r.loc,
                format!(
                    "type `{}` must declare its own `type` (or `one_of`); `ref` is for parameters and properties",
                    t.name.value
                ),
            );
        } else {
            cx.spec(s, &t.spec, Ctx::Type(&t.name.value));
        }
    }

    for tool in &pack.tools {
        cx.tool(s, tool);
    }
    if pack.tools.is_empty() && pack.label.is_some() {
        s.err(
            pack.tools_loc,
            "the pack declares no tools: add at least one under `tools:`",
        );
    }
}

fn non_empty(s: &mut Sink, v: &Sp<String>, what: &str) {
    if v.value.trim().is_empty() {
        s.err(v.loc, format!("{what} is empty: write what it is for"));
    }
}

fn auth(s: &mut Sink, pack: &Pack) {
    let a = &pack.auth;
    let Some(at) = a.loc else { return };
    let scheme = a.scheme.as_ref().map_or(AuthScheme::None, |s| s.value);
    let scheme_name = match scheme {
        AuthScheme::None => "none",
        AuthScheme::Bearer => "bearer",
        AuthScheme::Header => "header",
        AuthScheme::Basic => "basic",
    };
    if let Some(oauth2) = &a.oauth2 {
        let sends_token = matches!(scheme, AuthScheme::Bearer | AuthScheme::Header);
        crate::pack::check_oauth2(s, oauth2, sends_token, valid_env_name);
    }
    match (&a.env, scheme) {
        // With `oauth2`, `env` (a ready access token) is optional.
        (None, AuthScheme::Bearer | AuthScheme::Header) if a.oauth2.is_some() => {}
        (Some(env), AuthScheme::None) => s.err(
            env.loc,
            "`env` has no effect with `scheme: none`; add `scheme: bearer`, `header` or `basic`",
        ),
        (None, AuthScheme::Bearer | AuthScheme::Basic | AuthScheme::Header) => s.err(
            at,
            format!(
                "`auth` with `scheme: {scheme_name}` needs `env: <VARIABLE>` (the environment variable holding the secret)"
            ),
        ),
        (Some(env), _) if !valid_env_name(&env.value) => s.err(
            env.loc,
            format!(
                "`{}` is not an environment variable name: use letters, digits and `_`",
                env.value
            ),
        ),
        _ => {}
    }
    if scheme == AuthScheme::Header {
        match &a.header {
            None => s.err(
                at,
                "`auth` with `scheme: header` needs `header: <Header-Name>`",
            ),
            Some(h) if !valid_header_name(&h.value) => {
                s.err(h.loc, format!("`{}` is not a valid header name", h.value))
            }
            Some(_) => {}
        }
    } else {
        for (key, v) in [("header", &a.header), ("prefix", &a.prefix)] {
            if let Some(v) = v {
                s.err(
                    v.loc,
                    format!(
                        "`{key}` only applies to `scheme: header`; remove it or change the scheme"
                    ),
                );
            }
        }
    }
}

/// Reports types that refer to themselves without structure in between (`one_of` alone):
/// such a type has no finite shape and validation would never finish.
fn type_cycles(s: &mut Sink, pack: &Pack, types: &HashMap<&str, &TypeDecl>) -> HashSet<String> {
    let mut out = HashSet::new();
    fn direct<'a>(spec: &'a Spec, out: &mut Vec<&'a str>) {
        if let Some(r) = &spec.reference {
            out.push(&r.value);
        }
        if let Some(alts) = &spec.one_of {
            for a in &alts.value {
                direct(a, out);
            }
        }
    }
    for t in &pack.types {
        // Depth-first over unguarded edges from t, looking for t.
        let mut stack: Vec<&str> = Vec::new();
        direct(&t.spec, &mut stack);
        let mut seen: HashSet<&str> = HashSet::new();
        while let Some(name) = stack.pop() {
            if name == t.name.value {
                s.err(
                    t.name.loc,
                    format!(
                        "type `{}` refers to itself through `one_of`/`ref` alone, so it has no finite shape; put the recursion inside an object property, array `items` or map `values`",
                        t.name.value
                    ),
                );
                out.insert(t.name.value.clone());
                break;
            }
            if seen.insert(name)
                && let Some(next) = types.get(name)
            {
                direct(&next.spec, &mut stack);
            }
        }
    }
    out
}

/// Where a [`Spec`] sits.
#[derive(Clone, Copy)]
enum Ctx<'a> {
    Param {
        tool: &'a Tool,
        name: &'a Sp<String>,
    },
    Property(&'a Sp<String>),
    Items,
    Values,
    Alternative,
    Type(&'a str),
}

struct Cx<'a> {
    types: &'a HashMap<&'a str, &'a TypeDecl>,
    pack: &'a Pack,
    recursive: &'a HashSet<String>,
}

impl Cx<'_> {
    fn tool(&self, s: &mut Sink, tool: &Tool) {
        let name = &tool.name;
        if !valid_tool_name(&name.value) {
            s.err(
                name.loc,
                format!(
                    "invalid tool name `{}`: use lowercase letters, digits and `_`, without `__` and not starting with `_`",
                    name.value
                ),
            );
        }
        if let Some(label) = &self.pack.label {
            let qualified = format!("{}_{}", label.value, name.value);
            let len = qualified.chars().count();
            if len > MAX_QUALIFIED_LEN {
                s.err(
                    name.loc,
                    format!(
                        "the published name `{qualified}` is {len} characters; the limit is {MAX_QUALIFIED_LEN} (hosts prefix `mcp__<server>__` and providers cap names at 64): shorten the tool name"
                    ),
                );
            }
        }
        match &tool.description {
            None if tool.mentions("description") => {}
            None => s.err(
                name.loc,
                format!(
                    "tool `{}` has no `description`: add one (the model reads it to choose the tool)",
                    name.value
                ),
            ),
            Some(d) => non_empty(s, d, "the tool's `description`"),
        }
        let is_graphql = tool.graphql.is_some();
        let method = match (&tool.method, is_graphql) {
            (Some(m), true) if m.value != HttpMethod::Post => {
                s.err(
                    m.loc,
                    "a `graphql` tool is sent with POST: remove `method` or set `method: POST`",
                );
                Some(HttpMethod::Post)
            }
            (Some(m), _) => Some(m.value),
            (None, true) => Some(HttpMethod::Post),
            (None, false) if tool.mentions("method") => None,
            (None, false) => {
                s.err(
                    name.loc,
                    format!(
                        "tool `{}` has no `method`: add `method: GET` (or HEAD, POST, PUT, PATCH, DELETE)",
                        name.value
                    ),
                );
                None
            }
        };
        if let Some(mode) = &tool.mode
            && mode.value.trim().is_empty()
        {
            s.err(mode.loc, "empty author `mode`: name the operation (`create`, `update`, ...) or remove the key");
        }
        for h in &tool.hints {
            if h.value.trim().is_empty() {
                s.err(h.loc, "empty search hint: remove it");
            } else if charter_terms::terms(&h.value).next().is_none() {
                // ToolSearch matches whole words, never stop words or single letters.
                s.err(
                    h.loc,
                    format!(
                        "search hint `{}` has no word ToolSearch can match (only stop words or single letters): write the words users say, or remove it",
                        h.value
                    ),
                );
            }
        }
        if let Some(t) = &tool.timeout_ms
            && t.value == 0
        {
            s.err(t.loc, "`timeout_ms: 0` would fail every call: remove it for the default or give milliseconds");
        }
        self.annotations(s, tool, method);

        // Parameters.
        for p in &tool.params {
            self.spec(
                s,
                &p.spec,
                Ctx::Param {
                    tool,
                    name: &p.name,
                },
            );
        }
        self.wire_collisions(s, tool);

        // The URL template against the path parameters.
        match &tool.path {
            None if tool.mentions("path") => {}
            None if !is_graphql => s.err(
                name.loc,
                format!(
                    "tool `{}` has no `path`: add the URL template relative to `base_url` (`/items/{{id}}`)",
                    name.value
                ),
            ),
            None => self.no_path_params(s, tool),
            Some(path) => self.path(s, tool, path),
        }

        // Body parameters.
        let body_params: Vec<&Field> = tool
            .params
            .iter()
            .filter(|p| param_in(tool, p) == Some(In::Body))
            .collect();
        if let Some(m @ (HttpMethod::Get | HttpMethod::Head)) = method
            && !is_graphql
        {
            for p in &body_params {
                let at = p.spec.location.as_ref().map_or(p.name.loc, |l| l.loc);
                s.err(
                    at,
                    format!(
                        "`{}` is a body parameter on a {} tool, which sends no body: use `in: query` or change the method",
                        p.name.value,
                        m.as_str()
                    ),
                );
            }
        }
        if let Some(enc) = &tool.body_encoding
            && is_graphql
            && enc.value == BodyEnc::Form
        {
            s.err(
                enc.loc,
                "a `graphql` tool sends JSON: remove `body_encoding: form`",
            );
        }

        if let Some(doc) = &tool.graphql {
            self.graphql(s, doc, &body_params);
        }

        // Response shaping.
        let mut kept: HashSet<&str> = HashSet::new();
        for k in &tool.keep {
            if let Err(e) = check_dotted(&k.value, false) {
                s.err(k.loc, format!("invalid `keep` path: {e}"));
            }
            if !kept.insert(&k.value) {
                s.err(
                    k.loc,
                    format!("`{}` is listed twice in `keep`: remove one", k.value),
                );
            }
        }
        if let Some(p) = &tool.pagination {
            self.pagination(s, tool, p);
        }

        // Modes: an empty label, or a required field some view withholds.
        mode::check_tool(s, self.types, tool);
    }

    fn annotations(&self, s: &mut Sink, tool: &Tool, method: Option<HttpMethod>) {
        let a = &tool.annotations;
        let Some(method) = method else { return };
        let base = crate::model::default_annotations(
            method,
            tool.graphql.as_ref().map(|g| g.value.as_str()),
        );
        let read_only = a.read_only.as_ref().map_or(base.read_only, |v| v.value);
        let destructive = a.destructive.as_ref().map_or(base.destructive, |v| v.value);
        if read_only && destructive {
            let at = a
                .destructive
                .as_ref()
                .or(a.read_only.as_ref())
                .map_or(tool.name.loc, |v| v.loc);
            s.err(
                at,
                "a tool cannot be both `read_only` and `destructive`: override one of them",
            );
        }
    }

    fn wire_collisions(&self, s: &mut Sink, tool: &Tool) {
        let mut seen: HashMap<(In, String), &Sp<String>> = HashMap::new();
        for p in &tool.params {
            let Some(place) = param_in(tool, p) else {
                continue;
            };
            let wire = wire_name(
                &p.name.value,
                p.spec.wire.as_ref().map(|w| w.value.as_str()),
                self.pack.casing,
            );
            let key = (
                place,
                if place == In::Header {
                    wire.to_ascii_lowercase()
                } else {
                    wire.clone()
                },
            );
            if let Some(first) = seen.get(&key) {
                s.err(
                    p.spec.wire.as_ref().map_or(p.name.loc, |w| w.loc),
                    format!(
                        "`{}` and `{}` both go to the {} as `{wire}`: give one a different `wire:` name",
                        first.value,
                        p.name.value,
                        place.as_str()
                    ),
                );
            } else {
                seen.insert(key, &p.name);
            }
        }
    }

    fn no_path_params(&self, s: &mut Sink, tool: &Tool) {
        for p in &tool.params {
            if param_in(tool, p) == Some(In::Path) {
                let at = p.spec.location.as_ref().map_or(p.name.loc, |l| l.loc);
                s.err(
                    at,
                    format!(
                        "path parameter `{}` has no `{{{}}}` placeholder: the tool has no `path`",
                        p.name.value, p.name.value
                    ),
                );
            }
        }
    }

    fn path(&self, s: &mut Sink, tool: &Tool, path: &Sp<String>) {
        let v = &path.value;
        if !v.starts_with('/') {
            s.err(
                path.loc,
                format!("`path` `{v}` must start with `/` (it is joined to `base_url`)"),
            );
        }
        if v.contains(['?', '#']) {
            s.err(
                path.loc,
                format!("`path` `{v}` must not carry a query or fragment: declare `in: query` parameters"),
            );
        }
        let holders = match placeholders(v) {
            Ok(h) => h,
            Err(e) => {
                s.err(path.loc, format!("malformed URL template `{v}`: {e}"));
                return;
            }
        };
        let path_params: Vec<&Field> = tool
            .params
            .iter()
            .filter(|p| param_in(tool, p) == Some(In::Path))
            .collect();
        let mut seen = HashSet::new();
        for (_, name) in &holders {
            if !seen.insert(*name) {
                s.err(
                    path.loc,
                    format!("placeholder `{{{name}}}` appears twice in `{v}`"),
                );
                continue;
            }
            let matching = path_params.iter().any(|p| p.name.value == *name);
            if !matching {
                let other = tool.params.iter().find(|p| p.name.value == *name);
                let hint = match other {
                    Some(p) => format!(
                        "parameter `{name}` is `in: {}`; change it to `in: path`",
                        param_in(tool, p).map_or("?", In::as_str)
                    ),
                    None => format!(
                        "add a parameter `{name}: {{ in: path, type: string, required: true, description: ... }}`"
                    ),
                };
                s.err(
                    path.loc,
                    format!("placeholder `{{{name}}}` in `{v}` has no path parameter: {hint}"),
                );
            }
        }
        for p in path_params {
            let at = p.spec.location.as_ref().map_or(p.name.loc, |l| l.loc);
            if !holders.iter().any(|(_, n)| *n == p.name.value) {
                s.err(
                    at,
                    format!(
                        "path parameter `{}` has no `{{{}}}` placeholder in `{v}`: add it to the path or use `in: query`",
                        p.name.value, p.name.value
                    ),
                );
            }
            // A `required:` with a wrong value was already reported.
            let invalid = p.spec.required.is_none() && p.spec.mentions("required");
            if !p.spec.is_required() && !invalid {
                s.err(
                    p.spec.required.as_ref().map_or(p.name.loc, |r| r.loc),
                    format!(
                        "path parameter `{}` must be `required: true` (the URL cannot be built without it)",
                        p.name.value
                    ),
                );
            }
        }
    }

    fn graphql(&self, s: &mut Sink, doc: &Sp<String>, body_params: &[&Field]) {
        let info = match graphql::scan(&doc.value) {
            Ok(info) => info,
            Err(e) => {
                s.err(doc.loc, format!("invalid `graphql` document: {e}"));
                return;
            }
        };
        // The request carries no `operationName`, so the server must find exactly one.
        if info.operations.len() > 1 {
            s.err(
                doc.loc,
                format!(
                    "the `graphql` document holds {} operations, but a tool sends no `operationName`: keep one operation per tool (fragments may stay)",
                    info.operations.len()
                ),
            );
        }
        if info
            .operations
            .iter()
            .any(|o| o.kind == graphql::OpKind::Subscription)
        {
            s.err(
                doc.loc,
                "a `subscription` streams events, but a tool reads one response: use a `query` or a `mutation`",
            );
        }
        // GraphQL validation rules "All Variable Uses Defined" and "All Variables Used".
        let declared: Vec<&graphql::VarDef> = info.definitions().collect();
        for used in &info.used {
            if !declared.iter().any(|d| &d.name == used) {
                s.err(
                    doc.loc,
                    format!(
                        "GraphQL variable `${used}` is used but the operation does not declare it: add `${used}: Type` to its variable definitions (`query Name(${used}: String) {{ ... }}`)"
                    ),
                );
            }
        }
        for d in &declared {
            if !info.used.contains(&d.name) {
                s.err(
                    doc.loc,
                    format!(
                        "GraphQL variable `${}` is declared but never used, which servers refuse: use it or remove it (and its parameter)",
                        d.name
                    ),
                );
            }
        }
        let wires: Vec<(String, &Field)> = body_params
            .iter()
            .map(|p| {
                (
                    wire_name(
                        &p.name.value,
                        p.spec.wire.as_ref().map(|w| w.value.as_str()),
                        self.pack.casing,
                    ),
                    *p,
                )
            })
            .collect();
        for var in &info.variables {
            if !wires.iter().any(|(w, _)| w == var) {
                s.err(
                    doc.loc,
                    format!(
                        "GraphQL variable `${var}` has no parameter: add `{var}: {{ in: body, type: ..., description: ... }}` (or a `wire: {var}`)"
                    ),
                );
            }
        }
        for (w, p) in &wires {
            if !info.variables.iter().any(|v| v == w) {
                s.err(
                    p.name.loc,
                    format!(
                        "parameter `{}` is sent as GraphQL variable `${w}`, which the document never uses: declare it in the operation or remove the parameter",
                        p.name.value
                    ),
                );
            } else if let Some(def) = declared.iter().find(|d| &d.name == w) {
                self.graphql_variable(s, p, def);
            }
        }
    }

    /// A body parameter against the type its GraphQL variable declares: what the server would
    /// refuse (a missing non-null value, a null, a value of another scalar type) is a build
    /// error. Custom scalars, enums and input objects are not checked: a pack has no schema.
    fn graphql_variable(&self, s: &mut Sink, p: &Field, def: &graphql::VarDef) {
        let spec = &p.spec;
        let name = &p.name.value;
        if def.ty.is_non_null() && !def.has_default {
            if !spec.is_required() && spec.from_context.is_none() {
                s.err(
                    p.name.loc,
                    format!(
                        "parameter `{name}` is optional, but GraphQL variable `${}: {}` must be given: add `required: true`, or declare the variable nullable (`{}`)",
                        def.name,
                        def.ty,
                        def.ty.nullable()
                    ),
                );
            }
            if let Some(n) = spec.nullable.as_ref().filter(|n| n.value) {
                s.err(
                    n.loc,
                    format!(
                        "parameter `{name}` accepts null, but GraphQL variable `${}: {}` refuses it: remove `nullable: true` or declare the variable nullable",
                        def.name, def.ty
                    ),
                );
            }
        }
        if let Err(why) = self.graphql_fits(spec, def.ty.nullable()) {
            let at = spec
                .kind
                .as_ref()
                .map(|k| k.loc)
                .or(spec.reference.as_ref().map(|r| r.loc))
                .unwrap_or(p.name.loc);
            s.err(
                at,
                format!(
                    "parameter `{name}` does not fit GraphQL variable `${}: {}`: {why}",
                    def.name, def.ty
                ),
            );
        }
    }

    /// Whether values of `spec` are valid for the GraphQL input type `ty` (outer `!` removed).
    fn graphql_fits(&self, spec: &Spec, ty: &graphql::GqlType) -> Result<(), String> {
        use graphql::GqlType;
        let spec = self.resolved(spec);
        if let Some(alternatives) = &spec.one_of {
            for alt in &alternatives.value {
                self.graphql_fits(alt, ty)?;
            }
            return Ok(());
        }
        let Some(kind) = spec.kind.as_ref().map(|k| k.value) else {
            return Ok(()); // no type: reported elsewhere
        };
        match ty {
            GqlType::NonNull(inner) => self.graphql_fits(spec, inner),
            GqlType::List(inner) => match (kind, &spec.items) {
                (Kind::Array, Some(items)) => {
                    if inner.is_non_null() && self.resolved(items).is_nullable() {
                        return Err(format!(
                            "its items may be null, but the list holds `{inner}`: remove `nullable: true` from `items`"
                        ));
                    }
                    self.graphql_fits(items, inner.nullable())
                }
                (Kind::Array | Kind::Any, _) => Ok(()),
                // GraphQL coerces a single value into a list of one.
                _ => self.graphql_fits(spec, inner.nullable()),
            },
            GqlType::Named(n) => {
                let fits: &[Kind] = match n.as_str() {
                    "Int" => &[Kind::Integer],
                    "Float" => &[Kind::Number, Kind::Integer],
                    "String" => &[Kind::String],
                    "ID" => &[Kind::String, Kind::Integer],
                    "Boolean" => &[Kind::Boolean],
                    _ => return Ok(()),
                };
                if kind == Kind::Any || fits.contains(&kind) {
                    Ok(())
                } else {
                    let want: Vec<&str> = fits.iter().map(|k| k.as_str()).collect();
                    Err(format!(
                        "`{n}` takes {}, but the parameter is {}: declare `type: {}`",
                        article(fits[0]),
                        article(kind),
                        want.join("` or `type: ")
                    ))
                }
            }
        }
    }

    /// The spec a `ref` names (the spec itself otherwise).
    fn resolved<'s>(&'s self, spec: &'s Spec) -> &'s Spec {
        match &spec.reference {
            Some(r) => self.types.get(r.value.as_str()).map_or(spec, |t| &t.spec),
            None => spec,
        }
    }

    fn pagination(&self, s: &mut Sink, tool: &Tool, p: &PaginationDecl) {
        let find = |name: &Sp<String>, s: &mut Sink, role: &str| -> Option<&Field> {
            let found = tool.params.iter().find(|f| f.name.value == name.value);
            if found.is_none() {
                s.err(
                    name.loc,
                    format!(
                        "pagination `{role}` names `{}`, which is not a parameter of this tool: declare it under `params`",
                        name.value
                    ),
                );
            }
            found
        };
        match p {
            PaginationDecl::Cursor { next, param } => {
                if let Err(e) = check_dotted(&next.value, true) {
                    s.err(next.loc, format!("invalid pagination `next` path: {e}"));
                }
                find(param, s, "param");
            }
            PaginationDecl::Page { param, size_param } => {
                for (role, name) in [("param", Some(param)), ("size_param", size_param.as_ref())] {
                    let Some(name) = name else { continue };
                    if let Some(f) = find(name, s, role) {
                        let kind = self.kind_of(&f.spec);
                        if kind != Some(Kind::Integer) {
                            s.err(
                                name.loc,
                                format!(
                                    "pagination `{role}` `{}` must be an `integer` parameter",
                                    name.value
                                ),
                            );
                        }
                    }
                }
            }
        }
    }

    /// The declared kind of a spec, following a `ref`.
    fn kind_of(&self, spec: &Spec) -> Option<Kind> {
        if let Some(k) = &spec.kind {
            return Some(k.value);
        }
        let r = spec.reference.as_ref()?;
        self.types
            .get(r.value.as_str())
            .and_then(|t| t.spec.kind.as_ref())
            .map(|k| k.value)
    }

    fn spec(&self, s: &mut Sink, spec: &Spec, ctx: Ctx<'_>) {
        let (field_name, what) = match ctx {
            Ctx::Param { name, .. } => (Some(name), format!("parameter `{}`", name.value)),
            Ctx::Property(name) => (Some(name), format!("property `{}`", name.value)),
            Ctx::Items => (None, "`items`".to_owned()),
            Ctx::Values => (None, "`values`".to_owned()),
            Ctx::Alternative => (None, "a `one_of` alternative".to_owned()),
            Ctx::Type(t) => (None, format!("type `{t}`")),
        };
        let at = field_name.map_or(spec.loc, |n| n.loc);

        if let Some(name) = field_name
            && !valid_property_name(&name.value)
        {
            s.err(
                name.loc,
                format!(
                    "{what}: names must match `[A-Za-z0-9_.-]{{1,64}}` (the providers' rule for property names); put the API's spelling in `wire:`"
                ),
            );
        }

        // Exactly one of type / ref / one_of.
        let shapes = [
            spec.kind.is_some(),
            spec.reference.is_some(),
            spec.one_of.is_some(),
        ];
        let written = ["type", "ref", "one_of"].iter().any(|k| spec.mentions(k));
        match shapes.iter().filter(|b| **b).count() {
            0 if written => {}
            0 => s.err(
                at,
                format!(
                    "{what} has no `type`: add `type: string` (integer, number, boolean, object, array, map, any), `ref: <Type>` or `one_of: [...]`"
                ),
            ),
            1 => {}
            _ => {
                let second = [
                    spec.reference.as_ref().map(|r| ("ref", r.loc)),
                    spec.one_of.as_ref().map(|r| ("one_of", r.loc)),
                ]
                .into_iter()
                .flatten()
                .last()
                .unwrap_or(("ref", at));
                s.err(
                    second.1,
                    format!("{what} declares more than one of `type`, `ref` and `one_of`: keep one"),
                );
            }
        }

        // Descriptions.
        let ref_described = spec
            .reference
            .as_ref()
            .and_then(|r| self.types.get(r.value.as_str()))
            .and_then(|t| t.spec.description.as_ref())
            .is_some_and(|d| !d.value.trim().is_empty());
        match &spec.description {
            Some(d) => non_empty(s, d, &format!("the `description` of {what}")),
            None if field_name.is_some() && !ref_described && !spec.mentions("description") => s.err(
                at,
                format!(
                    "{what} has no `description`: add one (the model reads it to fill the argument)"
                ),
            ),
            None => {}
        }

        // A ref takes its shape from the type.
        if let Some(r) = &spec.reference {
            if !self.types.contains_key(r.value.as_str()) {
                let mut names: Vec<&str> = self.types.keys().copied().collect();
                names.sort_unstable();
                let near = names
                    .iter()
                    .find(|n| n.eq_ignore_ascii_case(&r.value))
                    .copied()
                    .or_else(|| crate::pack::suggest(&r.value, &names))
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                let list = if names.is_empty() {
                    "the pack declares no `types`".to_owned()
                } else {
                    format!("declared types: {}", names.join(", "))
                };
                s.err(
                    r.loc,
                    format!("unknown type `{}` in `ref`{near} ({list})", r.value),
                );
            }
            let shape_keys: [(&str, Option<Loc>); 13] = [
                ("enum", spec.enum_values.as_ref().map(|v| v.loc)),
                ("default", spec.default.as_ref().map(|v| v.loc)),
                ("minimum", spec.minimum.as_ref().map(|v| v.loc)),
                ("maximum", spec.maximum.as_ref().map(|v| v.loc)),
                ("min_length", spec.min_length.as_ref().map(|v| v.loc)),
                ("max_length", spec.max_length.as_ref().map(|v| v.loc)),
                ("pattern", spec.pattern.as_ref().map(|v| v.loc)),
                ("format", spec.format.as_ref().map(|v| v.loc)),
                ("items", spec.items.as_ref().map(|v| v.loc)),
                ("min_items", spec.min_items.as_ref().map(|v| v.loc)),
                ("max_items", spec.max_items.as_ref().map(|v| v.loc)),
                ("properties", spec.properties.as_ref().map(|v| v.loc)),
                ("values", spec.values.as_ref().map(|v| v.loc)),
            ];
            for (key, loc) in shape_keys {
                if let Some(loc) = loc {
                    s.err(
                        loc,
                        format!(
                            "`{key}` cannot be combined with `ref`: declare it on type `{}` (or declare the shape inline)",
                            r.value
                        ),
                    );
                }
            }
        }

        if let Some(alts) = &spec.one_of {
            if alts.value.is_empty() {
                s.err(alts.loc, "`one_of` is empty: list at least one shape");
            }
            for a in &alts.value {
                if let Some(r) = &a.reference
                    && self.recursive.contains(&r.value)
                {
                    s.err(
                        r.loc,
                        format!(
                            "a `one_of` alternative cannot be the recursive type `{}`: wrap it in an object property, or make the whole field `ref: {}` with `nullable: true`",
                            r.value, r.value
                        ),
                    );
                }
                self.spec(s, a, Ctx::Alternative);
            }
        }

        // Keys that only apply to some kinds.
        let kind = spec.kind.as_ref().map(|k| k.value);
        if let Some(kind) = kind {
            self.kind_keys(s, spec, kind);
        }

        // Parameter-only keys.
        if let Ctx::Param { tool, name } = ctx {
            self.param(s, spec, tool, name, kind.or_else(|| self.kind_of(spec)));
        }

        if let Some(modes) = &spec.modes {
            let mut seen = HashSet::new();
            for m in &modes.value {
                if m.value.trim().is_empty() {
                    s.err(
                        m.loc,
                        "empty mode label: name the mode (`pro`, `create`, ...) or remove it",
                    );
                } else if !seen.insert(m.value.as_str()) {
                    s.err(
                        m.loc,
                        format!("mode label `{}` is listed twice: remove one", m.value),
                    );
                }
            }
        }
        if let Some(w) = &spec.wire
            && w.value.is_empty()
        {
            s.err(
                w.loc,
                "empty `wire` name: remove it to use the parameter's name",
            );
        }

        // Nested shapes.
        if let Some(items) = &spec.items {
            self.spec(s, items, Ctx::Items);
        }
        if let Some(values) = &spec.values {
            self.spec(s, values, Ctx::Values);
        }
        if let Some(props) = &spec.properties {
            for p in &props.value {
                self.spec(s, &p.spec, Ctx::Property(&p.name));
            }
        }
    }

    fn param(&self, s: &mut Sink, spec: &Spec, tool: &Tool, name: &Sp<String>, kind: Option<Kind>) {
        let place = match &spec.location {
            Some(l) => Some(l.value),
            None if tool.graphql.is_some() => Some(In::Body),
            None if spec.mentions("in") => None,
            None => {
                s.err(
                    name.loc,
                    format!(
                        "parameter `{}` has no `in`: add `in: path`, `query`, `header` or `body`",
                        name.value
                    ),
                );
                None
            }
        };
        let scalar = matches!(
            kind,
            Some(Kind::String | Kind::Integer | Kind::Number | Kind::Boolean) | None
        );
        if let Some(p @ (In::Path | In::Header)) = place
            && !scalar
        {
            s.err(
                spec.kind.as_ref().map_or(name.loc, |k| k.loc),
                format!(
                    "{} parameter `{}` must be a string, integer, number or boolean",
                    p.as_str(),
                    name.value
                ),
            );
        }
        if let Some(style) = &spec.style
            && (place != Some(In::Query) || kind != Some(Kind::Array))
        {
            s.err(
                style.loc,
                "`style` only applies to `in: query` parameters of `type: array`; remove it",
            );
        }
        if let Some(slash) = &spec.allow_slash
            && (place != Some(In::Path) || kind != Some(Kind::String))
        {
            s.err(
                slash.loc,
                "`allow_slash` only applies to `in: path` parameters of `type: string`; remove it",
            );
        }
        if let Some(fc) = &spec.from_context {
            if fc.value.trim().is_empty() {
                s.err(
                    fc.loc,
                    "empty `from_context` key: name the `CallContext` value that fills it",
                );
            }
            if let Some(m) = &spec.modes {
                s.err(
                    m.loc,
                    "a `from_context` field is never model-visible, so `modes` has no effect: remove it",
                );
            }
        }
    }

    fn kind_keys(&self, s: &mut Sink, spec: &Spec, kind: Kind) {
        let numeric = matches!(kind, Kind::Integer | Kind::Number);
        let checks: [(&str, Option<Loc>, bool, &str); 12] = [
            (
                "enum",
                spec.enum_values.as_ref().map(|v| v.loc),
                numeric || kind == Kind::String,
                "`string`, `integer` or `number`",
            ),
            (
                "minimum",
                spec.minimum.as_ref().map(|v| v.loc),
                numeric,
                "`integer` or `number`",
            ),
            (
                "maximum",
                spec.maximum.as_ref().map(|v| v.loc),
                numeric,
                "`integer` or `number`",
            ),
            (
                "min_length",
                spec.min_length.as_ref().map(|v| v.loc),
                kind == Kind::String,
                "`string`",
            ),
            (
                "max_length",
                spec.max_length.as_ref().map(|v| v.loc),
                kind == Kind::String,
                "`string`",
            ),
            (
                "pattern",
                spec.pattern.as_ref().map(|v| v.loc),
                kind == Kind::String,
                "`string`",
            ),
            (
                "format",
                spec.format.as_ref().map(|v| v.loc),
                kind == Kind::String,
                "`string`",
            ),
            (
                "items",
                spec.items.as_ref().map(|v| v.loc),
                kind == Kind::Array,
                "`array`",
            ),
            (
                "min_items",
                spec.min_items.as_ref().map(|v| v.loc),
                kind == Kind::Array,
                "`array`",
            ),
            (
                "max_items",
                spec.max_items.as_ref().map(|v| v.loc),
                kind == Kind::Array,
                "`array`",
            ),
            (
                "properties",
                spec.properties.as_ref().map(|v| v.loc),
                kind == Kind::Object,
                "`object`",
            ),
            (
                "values",
                spec.values.as_ref().map(|v| v.loc),
                kind == Kind::Map,
                "`map`",
            ),
        ];
        for (key, loc, ok, applies) in checks {
            if let Some(loc) = loc
                && !ok
            {
                s.err(
                    loc,
                    format!(
                        "`{key}` only applies to {applies}, not `{}`: remove it or change the type",
                        kind.as_str()
                    ),
                );
            }
        }
        let type_loc = spec.kind.as_ref().map_or(spec.loc, |k| k.loc);
        if kind == Kind::Array && spec.items.is_none() {
            s.err(
                type_loc,
                "an `array` needs `items:` (the shape of every element)",
            );
        }
        if kind == Kind::Object && spec.properties.is_none() {
            s.err(
                type_loc,
                "an `object` needs `properties:` (use `type: map` for free keys, or `any`)",
            );
        }

        // Bounds.
        let pairs = [
            (
                "minimum",
                spec.minimum.as_ref().and_then(|n| n.value.as_f64()),
                "maximum",
                spec.maximum.as_ref().map(|n| (n.value.as_f64(), n.loc)),
            ),
            (
                "min_length",
                spec.min_length.as_ref().map(|n| f64::from(n.value)),
                "max_length",
                spec.max_length
                    .as_ref()
                    .map(|n| (Some(f64::from(n.value)), n.loc)),
            ),
            (
                "min_items",
                spec.min_items.as_ref().map(|n| f64::from(n.value)),
                "max_items",
                spec.max_items
                    .as_ref()
                    .map(|n| (Some(f64::from(n.value)), n.loc)),
            ),
        ];
        for (lo_key, lo, hi_key, hi) in pairs {
            if let (Some(lo), Some((Some(hi), loc))) = (lo, hi)
                && lo > hi
            {
                s.err(
                    loc,
                    format!("`{hi_key}` ({hi}) is below `{lo_key}` ({lo}): no value could pass"),
                );
            }
        }
        if kind == Kind::Integer {
            for (key, n) in [("minimum", &spec.minimum), ("maximum", &spec.maximum)] {
                if let Some(n) = n
                    && !(n.value.is_i64() || n.value.is_u64())
                {
                    s.err(
                        n.loc,
                        format!("`{key}` of an `integer` must be a whole number"),
                    );
                }
            }
        }
        if let Some(p) = &spec.pattern
            && let Err(e) = regex_lite::Regex::new(&p.value)
        {
            let first = e
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_owned();
            s.err(p.loc, format!("`pattern` does not compile: {first}"));
        }

        // Enum and default.
        let nullable = spec.is_nullable();
        let fits = |v: &Json| -> bool {
            match (kind, v) {
                (_, Json::Null) => nullable || kind == Kind::Any,
                (Kind::String, Json::String(_)) => true,
                (Kind::Integer, Json::Number(n)) => n.is_i64() || n.is_u64(),
                (Kind::Number, Json::Number(_)) => true,
                (Kind::Boolean, Json::Bool(_)) => true,
                (Kind::Object | Kind::Map, Json::Object(_)) => true,
                (Kind::Array, Json::Array(_)) => true,
                (Kind::Any, _) => true,
                _ => false,
            }
        };
        if let Some(values) = &spec.enum_values
            && matches!(kind, Kind::String | Kind::Integer | Kind::Number)
        {
            if values.value.is_empty() {
                s.err(
                    values.loc,
                    "`enum` is empty: list the allowed values or remove it",
                );
            }
            let mut seen = HashSet::new();
            for v in &values.value {
                if v.value.is_null() {
                    s.err(
                        v.loc,
                        "`null` cannot be an `enum` value: use `nullable: true`",
                    );
                } else if !fits(&v.value) {
                    s.err(
                        v.loc,
                        format!("enum value `{}` is not {}", v.value, article(kind)),
                    );
                } else if !seen.insert(v.value.to_string()) {
                    s.err(v.loc, format!("enum value `{}` is listed twice", v.value));
                }
            }
        }
        if let Some(d) = &spec.default {
            if !fits(&d.value) {
                s.err(
                    d.loc,
                    format!("`default` `{}` is not {}", d.value, article(kind)),
                );
            } else if let Some(values) = &spec.enum_values
                && !d.value.is_null()
                && !values.value.iter().any(|v| same_json(&v.value, &d.value))
            {
                let list: Vec<String> = values.value.iter().map(|v| v.value.to_string()).collect();
                s.err(
                    d.loc,
                    format!(
                        "`default` `{}` is not in the `enum` [{}]: use one of them",
                        d.value,
                        list.join(", ")
                    ),
                );
            } else if let Json::Number(n) = &d.value {
                let x = n.as_f64().unwrap_or(0.0);
                let below = spec
                    .minimum
                    .as_ref()
                    .and_then(|m| m.value.as_f64())
                    .is_some_and(|m| x < m);
                let above = spec
                    .maximum
                    .as_ref()
                    .and_then(|m| m.value.as_f64())
                    .is_some_and(|m| x > m);
                if below || above {
                    s.err(
                        d.loc,
                        format!("`default` {n} is outside `minimum`/`maximum`"),
                    );
                }
            }
        }
    }
}

fn same_json(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn article(kind: Kind) -> &'static str {
    match kind {
        Kind::String => "a string",
        Kind::Integer => "an integer",
        Kind::Number => "a number",
        Kind::Boolean => "a boolean",
        Kind::Object => "an object",
        Kind::Array => "a list",
        Kind::Map => "a mapping",
        Kind::Any => "a value",
    }
}

/// Where a parameter goes (`body` by default in a GraphQL tool).
pub(crate) fn param_in(tool: &Tool, p: &Field) -> Option<In> {
    match &p.spec.location {
        Some(l) => Some(l.value),
        None if tool.graphql.is_some() => Some(In::Body),
        None => None,
    }
}

/// Every custom label on the fields of `tool`, following type references once.
pub(crate) fn labels_of(types: &HashMap<&str, &TypeDecl>, tool: &Tool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen_types = HashSet::new();
    fn walk<'a>(
        spec: &'a Spec,
        types: &HashMap<&str, &'a TypeDecl>,
        seen: &mut HashSet<&'a str>,
        out: &mut BTreeSet<String>,
    ) {
        for m in spec.mode_labels() {
            if !mode::is_reserved(&m.value) && !m.value.trim().is_empty() {
                out.insert(m.value.clone());
            }
        }
        if let Some(r) = &spec.reference
            && let Some(t) = types.get(r.value.as_str())
            && seen.insert(&t.name.value)
        {
            walk(&t.spec, types, seen, out);
        }
        for child in children(spec) {
            walk(child, types, seen, out);
        }
    }
    for p in &tool.params {
        if p.spec.from_context.is_none() {
            walk(&p.spec, types, &mut seen_types, &mut out);
        }
    }
    out
}

/// The nested specs of a spec (properties, items, values, alternatives).
pub(crate) fn children(spec: &Spec) -> impl Iterator<Item = &Spec> {
    spec.properties
        .iter()
        .flat_map(|p| p.value.iter().map(|f| &f.spec))
        .chain(spec.items.as_deref())
        .chain(spec.values.as_deref())
        .chain(spec.one_of.iter().flat_map(|o| o.value.iter()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::Casing;

    #[test]
    fn names() {
        assert!(valid_label("github"));
        assert!(valid_label("my-api2"));
        assert!(!valid_label("my_api"));
        assert!(!valid_label(""));
        assert!(!valid_label("GitHub"));
        assert!(valid_tool_name("issues_list"));
        assert!(!valid_tool_name("issues__list"));
        assert!(!valid_tool_name("_issues"));
        assert!(!valid_tool_name("Issues"));
        assert!(!valid_tool_name("issues-list"));
        assert!(valid_property_name("expand.data"));
        assert!(!valid_property_name("expand[]"));
    }

    #[test]
    fn url_templates() {
        assert_eq!(
            placeholders("/a/{b}/c/{d}").unwrap(),
            vec![(3, "b"), (9, "d")]
        );
        assert!(placeholders("/a/{b").is_err());
        assert!(placeholders("/a/b}").is_err());
        assert!(placeholders("/a/{}").is_err());
        assert!(placeholders("/a/{b{c}}").is_err());
        assert!(placeholders("/plain").unwrap().is_empty());
    }

    #[test]
    fn casing() {
        assert_eq!(wire_name("per_page", None, Casing::Camel), "perPage");
        assert_eq!(wire_name("perPage", None, Casing::Snake), "per_page");
        assert_eq!(wire_name("HTMLUrl", None, Casing::Snake), "htmlurl");
        assert_eq!(wire_name("per_page", Some("pp"), Casing::Camel), "pp");
        assert_eq!(wire_name("per_page", None, Casing::Exact), "per_page");
    }

    #[test]
    fn dotted_paths() {
        assert!(check_dotted("data.-1.id", true).is_ok());
        assert!(check_dotted("data.0.id", true).is_ok());
        assert!(check_dotted("data.-2.id", true).is_err());
        assert!(check_dotted("data..id", true).is_err());
        assert!(check_dotted("", true).is_err());
        assert!(check_dotted("a.", false).is_err());
    }
}
