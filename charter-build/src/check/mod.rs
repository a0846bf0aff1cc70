//! The static checks of a pack (docs/design.md §2, §3, §5; `docs/pack-format.md`, "The checks").
//!
//! Every check reports `file:line:col: message saying what to change` and carries on, so one
//! build lists every mistake in a file. Structural mistakes (unknown keys, wrong kinds) are
//! reported while parsing ([`crate::pack::parse`]); this module checks what the declarations
//! mean: names, URL templates, types and references, enums and defaults, modes.
//!
//! - `names`: the checks' own name rules (types, environment variables, headers, dotted paths);
//!   the product's name rules live in `charter_terms::names`.
//! - `auth`, `types`: pack-level checks.
//! - `tool`: one tool (method, path, body, annotations, pagination); `graphql` its document.
//! - `graphql_result` (with the `graphql-schema` feature): a GraphQL tool's result shape,
//!   derived from its selection against the pack's schema when the pack declares none.
//! - `spec`: one field's declaration; `kinds` the keys that apply to its kind, bounds, enums and
//!   defaults.
//!
//! `pack` vouches for a pack that passed every check by returning a [`Checked`], the only
//! input [`crate::model::resolve`] accepts.

mod auth;
mod graphql_params;
#[cfg(feature = "graphql-schema")]
mod graphql_result;
mod graphql_schema;
mod kinds;
mod names;
mod spec;
mod tool;
mod types;

use std::collections::HashMap;

pub use charter_terms::http::placeholders;
pub use charter_terms::names::valid_label;

use crate::diagnostic::{Diagnostic, Loc, Sink};
use crate::pack::{Pack, Sp, Spec, TypeDecl};
use auth::auth;
pub(crate) use names::valid_header_name;
use names::valid_type_name;
use tool::{Cx, Place};
use types::type_cycles;

/// A pack that passed every check (its own and those across the packs compiled with it): what
/// [`crate::model::resolve`] takes, so an unchecked pack cannot be resolved.
#[derive(Debug, Clone)]
pub struct Checked<'p> {
    pack: &'p Pack,
    warnings: Vec<Diagnostic>,
    /// Each tool's result shape derived from its GraphQL selection (`None`: not derived), in
    /// tool order: what a declared `response.shape` would give, checked as one is.
    derived: Vec<Option<Spec>>,
}

impl<'p> Checked<'p> {
    /// The checked pack.
    pub fn pack(&self) -> &'p Pack {
        self.pack
    }

    /// What the checks found that works but should change (a field its schema deprecates).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The result shape derived for the tool at `index` from its GraphQL selection, when the
    /// tool declares none (docs/results.md, "GraphQL tools").
    pub fn derived_result(&self, index: usize) -> Option<&Spec> {
        self.derived.get(index).and_then(Option::as_ref)
    }
}

/// Runs every check on `packs` (each alone, then the names across them) and vouches for them
/// when neither `earlier` (what parsing reported) nor any check found a mistake.
pub fn packs<'p>(
    packs: &'p [Pack],
    earlier: Vec<Diagnostic>,
) -> Result<Vec<Checked<'p>>, Vec<Diagnostic>> {
    vouch(packs, earlier, true)
}

/// Runs every check of one pack on its own (no cross-pack name check), vouching for it when
/// neither `earlier` nor a check found a mistake.
pub fn alone(pack: &Pack, earlier: Vec<Diagnostic>) -> Result<Checked<'_>, Vec<Diagnostic>> {
    vouch(std::slice::from_ref(pack), earlier, false).map(|mut v| v.remove(0))
}

fn vouch(
    packs: &[Pack],
    mut diags: Vec<Diagnostic>,
    across: bool,
) -> Result<Vec<Checked<'_>>, Vec<Diagnostic>> {
    let mut warnings = Vec::with_capacity(packs.len());
    let mut derived = Vec::with_capacity(packs.len());
    for p in packs {
        let mut sink = Sink::new(&p.file);
        derived.push(pack(&mut sink, p));
        diags.extend(sink.diags);
        warnings.push(sink.warnings);
    }
    if across {
        diags.extend(unique_names(packs));
    }
    if diags.is_empty() {
        Ok(packs
            .iter()
            .zip(warnings.into_iter().zip(derived))
            .map(|(pack, (warnings, derived))| Checked {
                pack,
                warnings,
                derived,
            })
            .collect())
    } else {
        Err(diags)
    }
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

/// Checks the `{name}` placeholders of a `base_url` (each a deployment setting,
/// `CHARTER_<PACK>_<NAME>`) and returns the URL with each filled by a sample host label, for the
/// checks of its shape.
fn base_url_settings(s: &mut Sink, url: &Sp<String>) -> String {
    let Ok(found) = placeholders(&url.value) else {
        return url.value.clone(); // reported as not a plain URL
    };
    let mut filled = url.value.clone();
    for (_, name) in found {
        if !charter_terms::names::valid_base_url_setting(name) {
            s.err(
                url.loc,
                format!(
                    "`base_url` placeholder `{{{name}}}` must be a lower-case setting name (`[a-z][a-z0-9_]*`, not `base_url`): its value comes from CHARTER_<PACK>_<NAME> at run time"
                ),
            );
        }
        filled = filled.replace(&format!("{{{name}}}"), "setting");
    }
    filled
}

/// Runs every check of one pack; returns each tool's derived result shape.
fn pack(s: &mut Sink, pack: &Pack) -> Vec<Option<Spec>> {
    let types: HashMap<&str, &TypeDecl> = pack
        .types
        .iter()
        .map(|t| (t.name.value.as_str(), t))
        .collect();
    let unguarded = type_cycles(s, pack, &types);
    let mut recursive = pack.recursive_types();
    // A type already reported as an unguarded cycle is not reported again as an alternative.
    recursive.retain(|t| !unguarded.contains(t));
    let schema = graphql_schema::load(s, pack);
    let cx = Cx {
        types: &types,
        pack,
        recursive: &recursive,
        schema: schema.as_ref(),
        result: false,
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
    if let Some(url) = &pack.base_url
        && url.value.starts_with('$')
    {
        // `${CHARTER_<PACK>_BASE_URL}`: the URL is given at run time.
        let wanted = pack
            .label
            .as_ref()
            .map(|l| charter_terms::names::base_url_at_run_time(&l.value));
        if wanted.as_deref() != Some(url.value.as_str()) {
            s.err(
                url.loc,
                format!(
                    "`base_url` `{}` must be an absolute `https://` URL, or `{}` to require it at run time",
                    url.value,
                    wanted.as_deref().unwrap_or("${CHARTER_<PACK>_BASE_URL}")
                ),
            );
        }
    } else if let Some(url) = &pack.base_url {
        let v = &url.value;
        let shape = base_url_settings(s, url);
        let rest = shape
            .strip_prefix("https://")
            .or_else(|| shape.strip_prefix("http://"));
        match rest {
            None => s.err(
                url.loc,
                format!("`base_url` `{v}` must be an absolute `https://` (or `http://`) URL"),
            ),
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                s.err(url.loc, format!("`base_url` `{v}` has no host"))
            }
            Some(_) if shape.contains(['{', '}', '?', '#', ' ']) => s.err(
                url.loc,
                format!(
                    "`base_url` `{v}` must be a plain URL: put query constants under `query:` and path placeholders in each tool's `path` (a `{{setting}}` placeholder is filled from the deployment's CHARTER_<PACK>_<SETTING>)"
                ),
            ),
            Some(_) => {}
        }
    }
    auth(s, pack);
    constants(s, &pack.headers, &pack.query);

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
            cx.spec(s, &t.spec, Place::Type(&t.name.value));
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
    derived_results(s, &cx)
}

/// Each tool's result shape derived from its GraphQL selection, kept only where it passes the
/// check a declared `response.shape` passes (a derivation that would not is dropped, never
/// reported: it must not fail the build of a valid pack). None for a pack with mistakes (it is
/// not compiled) or without a readable schema.
#[cfg(feature = "graphql-schema")]
fn derived_results(s: &Sink, cx: &Cx<'_>) -> Vec<Option<Spec>> {
    let Some(schema) = cx.schema.filter(|_| s.diags.is_empty()) else {
        return vec![None; cx.pack.tools.len()];
    };
    let result = Cx {
        result: true,
        ..*cx
    };
    graphql_result::results(schema, cx.pack)
        .into_iter()
        .map(|derived| {
            derived.filter(|spec| {
                let mut scratch = Sink::new(&cx.pack.file);
                result.spec(&mut scratch, spec, Place::Result);
                scratch.diags.is_empty()
            })
        })
        .collect()
}

/// Without the `graphql-schema` feature no schema is read, so nothing is derived.
#[cfg(not(feature = "graphql-schema"))]
fn derived_results(_: &Sink, cx: &Cx<'_>) -> Vec<Option<Spec>> {
    vec![None; cx.pack.tools.len()]
}

/// Header and query constants (the pack's or a tool's): valid header names, named query keys.
pub(super) fn constants(
    s: &mut Sink,
    headers: &[(Sp<String>, Sp<String>)],
    query: &[(Sp<String>, Sp<String>)],
) {
    for (k, _) in headers {
        if !valid_header_name(&k.value) {
            s.err(k.loc, format!("`{}` is not a valid header name", k.value));
        }
    }
    for (k, _) in query {
        if k.value.is_empty() {
            s.err(k.loc, "a query constant needs a name");
        }
    }
}

fn non_empty(s: &mut Sink, v: &Sp<String>, what: &str) {
    if v.value.trim().is_empty() {
        s.err(v.loc, format!("{what} is empty: write what it is for"));
    }
}

#[cfg(test)]
mod tests {
    use charter_terms::names::{valid_property_name, valid_tool_name};

    use super::names::check_dotted;
    use super::*;
    use crate::pack::Casing;

    fn wire(name: &str, wire: Option<&str>, casing: Casing) -> String {
        casing.wire_name(name, wire)
    }

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
        assert_eq!(wire("per_page", None, Casing::Camel), "perPage");
        assert_eq!(wire("perPage", None, Casing::Snake), "per_page");
        assert_eq!(wire("HTMLUrl", None, Casing::Snake), "htmlurl");
        assert_eq!(wire("per_page", Some("pp"), Casing::Camel), "pp");
        assert_eq!(wire("per_page", None, Casing::Exact), "per_page");
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
