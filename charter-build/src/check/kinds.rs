//! The keys that apply only to some kinds, bounds, enums and defaults.

use std::collections::HashSet;

use super::tool::Cx;
use crate::diagnostic::{Loc, Sink};
use crate::pack::{Json, Kind, Spec};

impl Cx<'_> {
    pub(super) fn kind_keys(&self, s: &mut Sink, spec: &Spec, kind: Kind) {
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

        self.bounds(s, spec, kind);
        self.enum_and_default(s, spec, kind);
    }

    /// Lower bounds above upper bounds, fractional integer bounds, patterns that do not compile.
    fn bounds(&self, s: &mut Sink, spec: &Spec, kind: Kind) {
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
    }

    /// Enum values and the default against the kind, the enum and the bounds.
    fn enum_and_default(&self, s: &mut Sink, spec: &Spec, kind: Kind) {
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
                        format!("enum value `{}` is not {}", v.value, kind.article()),
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
                    format!("`default` `{}` is not {}", d.value, kind.article()),
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
