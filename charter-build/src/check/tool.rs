//! One tool: its name, method, URL template, body, annotations, response shaping, pagination.

use std::collections::{HashMap, HashSet};

use charter_terms::http::placeholders;
use charter_terms::names::{MAX_QUALIFIED_LEN, valid_tool_name};

use super::names::check_dotted;
use super::non_empty;
use crate::diagnostic::Sink;
use crate::mode;
use crate::pack::{
    BodyEnc, Field, HttpMethod, In, Kind, Pack, PaginationDecl, Sp, Spec, Tool, TypeDecl,
};

/// Where a [`Spec`] sits (what a message calls it).
#[derive(Clone, Copy)]
pub(super) enum Place<'a> {
    Param {
        tool: &'a Tool,
        name: &'a Sp<String>,
    },
    Property(&'a Sp<String>),
    Items,
    Values,
    Alternative,
    Type(&'a str),
    /// A tool's result shape (the root of `response.shape`).
    Result,
}

/// What every check of one pack reads: its types by name, the pack, its recursive types.
pub(super) struct Cx<'a> {
    pub(super) types: &'a HashMap<&'a str, &'a TypeDecl>,
    pub(super) pack: &'a Pack,
    pub(super) recursive: &'a HashSet<String>,
    /// The pack's GraphQL schema, when it declares one (and the feature can read it).
    pub(super) schema: Option<&'a super::graphql_schema::Schema>,
    /// Checking a result shape (`response.shape`, a results file): what the API answers, so a
    /// property is named as the API spells it and needs no description.
    pub(super) result: bool,
}

impl Cx<'_> {
    pub(super) fn tool(&self, s: &mut Sink, tool: &Tool) {
        self.name(s, tool);
        super::constants(s, &tool.headers, &tool.query);
        let is_graphql = tool.graphql.is_some();
        let method = self.method(s, tool);
        self.tool_keys(s, tool);
        self.annotations(s, tool, method);

        // Parameters.
        for p in &tool.params {
            self.spec(
                s,
                &p.spec,
                Place::Param {
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
                tool.name.loc,
                format!(
                    "tool `{}` has no `path`: add the URL template relative to `base_url` (`/items/{{id}}`)",
                    tool.name.value
                ),
            ),
            None => self.no_path_params(s, tool),
            Some(path) => self.path(s, tool, path),
        }

        self.body(s, tool, method);
        self.response(s, tool);

        // Modes: an empty label, or a required field some view withholds.
        mode::check_tool(s, self.types, tool);
    }

    /// The tool name, the published name's length, and the description.
    fn name(&self, s: &mut Sink, tool: &Tool) {
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
    }

    /// The method (a GraphQL tool is sent with POST).
    fn method(&self, s: &mut Sink, tool: &Tool) -> Option<HttpMethod> {
        let name = &tool.name;
        let is_graphql = tool.graphql.is_some();
        match (&tool.method, is_graphql) {
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
        }
    }

    /// The author mode, search hints and timeout.
    fn tool_keys(&self, s: &mut Sink, tool: &Tool) {
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
        let owner = format!("tool `{}`", tool.name.value);
        let members = Members {
            fields: &tool.params,
            noun: "parameter",
            nouns: "parameters",
            owner: &owner,
        };
        members.check(s, "require_one_of", &tool.require_one_of);
        members.check(s, "require_exactly_one_of", &tool.require_exactly_one_of);
    }

    /// Body parameters against the method and the encoding, and the GraphQL document.
    fn body(&self, s: &mut Sink, tool: &Tool, method: Option<HttpMethod>) {
        let is_graphql = tool.graphql.is_some();
        // Body parameters.
        let body_params: Vec<&Field> = tool
            .params
            .iter()
            .filter(|p| tool.param_in(p) == Some(In::Body))
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

        // One spread map at most: two could send the same key, which no declaration rules out.
        let spread = body_params.iter().filter_map(|p| p.spec.spread.as_ref());
        if let Some(second) = spread.filter(|sp| sp.value).nth(1) {
            s.err(
                second.loc,
                "a tool takes one `spread` parameter at most: merge the maps into one",
            );
        }

        if let Some(doc) = &tool.graphql {
            self.graphql(s, tool, doc, &body_params);
        }
    }

    /// Response shaping (`keep`) and pagination.
    fn response(&self, s: &mut Sink, tool: &Tool) {
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
        if let Some(shape) = &tool.result {
            let cx = Cx {
                result: true,
                ..*self
            };
            // A shape from the results file is reported at its place there.
            let mut here = tool.result_file.as_deref().map(Sink::new);
            let sink = here.as_mut().unwrap_or(s);
            cx.spec(sink, shape, Place::Result);
            if let Some(here) = here {
                s.diags.extend(here.diags);
            }
        }
    }

    fn annotations(&self, s: &mut Sink, tool: &Tool, method: Option<HttpMethod>) {
        let a = &tool.annotations;
        let Some(method) = method else { return };
        let base = crate::graphql_syntax::default_annotations(
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
            let Some(place) = tool.param_in(p) else {
                continue;
            };
            let wire = self.pack.casing.wire_name(
                &p.name.value,
                p.spec.wire.as_ref().map(|w| w.value.as_str()),
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
            if tool.param_in(p) == Some(In::Path) {
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
            .filter(|p| tool.param_in(p) == Some(In::Path))
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
                        tool.param_in(p).map_or("?", In::as_str)
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
                let problem = match charter_terms::http::link_cursor(&next.value) {
                    Some(link) => link.err(),
                    None => check_dotted(&next.value, true).err(),
                };
                if let Some(e) = problem {
                    s.err(next.loc, format!("invalid pagination `next` path: {e}"));
                }
                find(param, s, "param");
            }
            PaginationDecl::Page { param, size_param }
            | PaginationDecl::Offset { param, size_param } => {
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

    /// The spec a `ref` names (the spec itself otherwise).
    pub(super) fn resolved<'s>(&'s self, spec: &'s Spec) -> &'s Spec {
        match &spec.reference {
            Some(r) => self.types.get(r.value.as_str()).map_or(spec, |t| &t.spec),
            None => spec,
        }
    }

    /// The declared kind of a spec, following a `ref`.
    pub(super) fn kind_of(&self, spec: &Spec) -> Option<Kind> {
        if let Some(k) = &spec.kind {
            return Some(k.value);
        }
        let r = spec.reference.as_ref()?;
        self.types
            .get(r.value.as_str())
            .and_then(|t| t.spec.kind.as_ref())
            .map(|k| k.value)
    }
}

/// What `require_one_of` / `require_exactly_one_of` groups name: a tool's parameters or an
/// object's properties.
pub(super) struct Members<'a> {
    pub fields: &'a [Field],
    /// `parameter` or `property`.
    pub noun: &'a str,
    /// `parameters` or `properties`.
    pub nouns: &'a str,
    /// Whose they are, for messages (`tool `x``, `this object`).
    pub owner: &'a str,
}

impl Members<'_> {
    /// `key`'s groups: at least two, each naming optional members, none empty or repeated (a
    /// required member or a single group would just be `required: true`).
    pub fn check(&self, s: &mut Sink, key: &str, groups: &[Sp<Vec<Sp<String>>>]) {
        if groups.len() == 1 {
            s.err(
                groups[0].loc,
                format!(
                    "`{key}` with one group is `required: true` on its {}: give two groups or more",
                    self.nouns
                ),
            );
        }
        let mut seen: Vec<Vec<&str>> = Vec::new();
        for g in groups {
            if g.value.is_empty() {
                s.err(
                    g.loc,
                    format!("empty group in `{key}`: name at least one {}", self.noun),
                );
                continue;
            }
            for name in &g.value {
                match self.fields.iter().find(|p| p.name.value == name.value) {
                    None => s.err(
                        name.loc,
                        format!(
                            "`{key}` names `{}`, which is not a {} of {}",
                            name.value, self.noun, self.owner
                        ),
                    ),
                    Some(p) if p.spec.is_required() => s.err(
                        name.loc,
                        format!(
                            "`{}` is required already: a `{key}` group names optional {}",
                            name.value, self.nouns
                        ),
                    ),
                    Some(_) => {}
                }
            }
            let mut names: Vec<&str> = g.value.iter().map(|n| n.value.as_str()).collect();
            names.sort_unstable();
            if seen.contains(&names) {
                s.err(g.loc, format!("this `{key}` group is listed twice"));
            }
            seen.push(names);
        }
    }
}
