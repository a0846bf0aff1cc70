//! One field's declaration: its shape, description, reference, modes, and parameter-only keys.

use std::collections::HashSet;

use charter_terms::names::valid_property_name;

use super::non_empty;
use super::tool::{Cx, Members, Place};
use crate::diagnostic::{Loc, Sink};
use crate::pack::{In, Kind, Sp, Spec, Tool};

impl Cx<'_> {
    pub(super) fn spec(&self, s: &mut Sink, spec: &Spec, place: Place<'_>) {
        let (field_name, what) = match place {
            Place::Param { name, .. } => (Some(name), format!("parameter `{}`", name.value)),
            Place::Property(name) => (Some(name), format!("property `{}`", name.value)),
            Place::Items => (None, "`items`".to_owned()),
            Place::Values => (None, "`values`".to_owned()),
            Place::Alternative => (None, "a `one_of` alternative".to_owned()),
            Place::Type(t) => (None, format!("type `{t}`")),
            Place::Result => (None, "`response.shape`".to_owned()),
        };
        let at = field_name.map_or(spec.loc, |n| n.loc);

        if self.result {
            self.result_keys(s, spec, &what);
        } else if let Some(name) = field_name
            && !valid_property_name(&name.value)
        {
            s.err(
                name.loc,
                format!(
                    "{what}: names must match `[A-Za-z0-9_.-]{{1,64}}` (the providers' rule for property names); put the API's spelling in `wire:`"
                ),
            );
        }

        self.shape(s, spec, &what, at);
        // A result's members are the API's: described or not, the model reads the answer.
        self.description(s, spec, field_name.is_some() && !self.result, &what, at);
        self.reference(s, spec);
        self.alternatives(s, spec);

        // Keys that only apply to some kinds.
        let kind = spec.kind.as_ref().map(|k| k.value);
        if let Some(kind) = kind {
            self.kind_keys(s, spec, kind);
        }

        // Parameter-only keys.
        if let Place::Param { tool, name } = place {
            self.param(s, spec, tool, name, kind.or_else(|| self.kind_of(spec)));
        }
        labels(s, spec);

        // Nested shapes.
        if let Some(items) = &spec.items {
            self.spec(s, items, Place::Items);
        }
        if let Some(values) = &spec.values {
            self.spec(s, values, Place::Values);
        }
        if let Some(props) = &spec.properties {
            for p in &props.value {
                self.spec(s, &p.spec, Place::Property(&p.name));
            }
        }
        object_groups(s, spec, &what);
    }

    /// What a result shape cannot say: where a field goes or who sends it (`wire`, `modes`),
    /// and an empty member name.
    fn result_keys(&self, s: &mut Sink, spec: &Spec, what: &str) {
        for (key, loc) in [
            ("wire", spec.wire.as_ref().map(|w| w.loc)),
            ("modes", spec.modes.as_ref().map(|m| m.loc)),
        ] {
            if let Some(loc) = loc {
                s.err(
                    loc,
                    format!(
                        "`{key}` does not apply to {what} of a result: a result shape says what the API answers, by the API's member names"
                    ),
                );
            }
        }
        if let Some(r) = &spec.reference
            && self.recursive.contains(&r.value)
        {
            s.err(
                r.loc,
                format!(
                    "{what} refers to the recursive type `{}`: a result shape is written without `$defs`, so it cannot reach a recursive type; use `type: any` where the recursion starts",
                    r.value
                ),
            );
        }
    }

    /// Exactly one of `type`, `ref` and `one_of`.
    fn shape(&self, s: &mut Sink, spec: &Spec, what: &str, at: Loc) {
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
    }

    /// A field needs a description, unless its type gives one.
    fn description(&self, s: &mut Sink, spec: &Spec, named: bool, what: &str, at: Loc) {
        let ref_described = spec
            .reference
            .as_ref()
            .and_then(|r| self.types.get(r.value.as_str()))
            .and_then(|t| t.spec.description.as_ref())
            .is_some_and(|d| !d.value.trim().is_empty());
        match &spec.description {
            Some(d) => non_empty(s, d, &format!("the `description` of {what}")),
            None if named && !ref_described && !spec.mentions("description") => s.err(
                at,
                format!(
                    "{what} has no `description`: add one (the model reads it to fill the argument)"
                ),
            ),
            None => {}
        }
    }

    /// A `ref` names a declared type and takes its shape from it.
    fn reference(&self, s: &mut Sink, spec: &Spec) {
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
    }

    /// `one_of` alternatives: at least one, and none the recursive type itself.
    fn alternatives(&self, s: &mut Sink, spec: &Spec) {
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
                self.spec(s, a, Place::Alternative);
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
        if let Some(spread) = &spec.spread
            && spread.value
        {
            let problem = if place != Some(In::Body) || kind != Some(Kind::Map) {
                Some("`spread` only applies to `in: body` parameters of `type: map`; remove it")
            } else if tool.graphql.is_some() {
                Some(
                    "`spread` does not apply to a GraphQL tool: its body is the query and its variables",
                )
            } else {
                None
            };
            if let Some(problem) = problem {
                s.err(spread.loc, problem);
            }
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
}

/// Mode labels (none empty, none twice) and the `wire` name.
fn labels(s: &mut Sink, spec: &Spec) {
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
}

/// `require_one_of` / `require_exactly_one_of` on a field: only on an object with `properties`,
/// naming its optional properties.
fn object_groups(s: &mut Sink, spec: &Spec, what: &str) {
    let keyed = [
        ("require_one_of", &spec.require_one_of),
        ("require_exactly_one_of", &spec.require_exactly_one_of),
    ];
    for (key, groups) in keyed {
        let Some(first) = groups.first() else {
            continue;
        };
        let Some(props) = &spec.properties else {
            s.err(
                first.loc,
                format!("`{key}` on {what} needs `type: object` with `properties` to name"),
            );
            continue;
        };
        let members = Members {
            fields: &props.value,
            noun: "property",
            nouns: "properties",
            owner: "this object",
        };
        members.check(s, key, groups);
    }
}
