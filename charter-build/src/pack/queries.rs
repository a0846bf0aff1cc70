//! Questions the checks, the views and the model ask about the AST, answered as methods on it,
//! so none of those stages borrows helpers from another.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{Casing, Field, In, Pack, Spec, Tool, TypeDecl};

impl Casing {
    /// The wire name of a field after this casing rule (an explicit `wire:` wins).
    pub fn wire_name(self, name: &str, wire: Option<&str>) -> String {
        if let Some(w) = wire {
            return w.to_owned();
        }
        match self {
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
}

impl Tool {
    /// Where a parameter goes (`body` by default in a GraphQL tool).
    pub fn param_in(&self, p: &Field) -> Option<In> {
        match &p.spec.location {
            Some(l) => Some(l.value),
            None if self.graphql.is_some() => Some(In::Body),
            None => None,
        }
    }

    /// Every custom label on the fields of this tool, following type references once.
    pub fn custom_labels(&self, types: &HashMap<&str, &TypeDecl>) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut seen_types = HashSet::new();
        fn walk<'a>(
            spec: &'a Spec,
            types: &HashMap<&str, &'a TypeDecl>,
            seen: &mut HashSet<&'a str>,
            out: &mut BTreeSet<String>,
        ) {
            for m in spec.mode_labels() {
                if !charter_terms::modes::is_reserved(&m.value) && !m.value.trim().is_empty() {
                    out.insert(m.value.clone());
                }
            }
            if let Some(r) = &spec.reference
                && let Some(t) = types.get(r.value.as_str())
                && seen.insert(&t.name.value)
            {
                walk(&t.spec, types, seen, out);
            }
            for child in spec.children() {
                walk(child, types, seen, out);
            }
        }
        for p in &self.params {
            if p.spec.from_context.is_none() {
                walk(&p.spec, types, &mut seen_types, &mut out);
            }
        }
        out
    }
}

impl Spec {
    /// The nested specs of a spec (properties, items, values, alternatives).
    pub fn children(&self) -> impl Iterator<Item = &Spec> {
        self.properties
            .iter()
            .flat_map(|p| p.value.iter().map(|f| &f.spec))
            .chain(self.items.as_deref())
            .chain(self.values.as_deref())
            .chain(self.one_of.iter().flat_map(|o| o.value.iter()))
    }
}

impl Pack {
    /// The types that reach themselves through references (which the schema then emits under
    /// `$defs`).
    pub fn recursive_types(&self) -> HashSet<String> {
        let index: HashMap<&str, &TypeDecl> = self
            .types
            .iter()
            .map(|t| (t.name.value.as_str(), t))
            .collect();
        fn refs<'a>(spec: &'a Spec, out: &mut Vec<&'a str>) {
            if let Some(r) = &spec.reference {
                out.push(&r.value);
            }
            for c in spec.children() {
                refs(c, out);
            }
        }
        let mut out = HashSet::new();
        for t in &self.types {
            let mut stack = Vec::new();
            refs(&t.spec, &mut stack);
            let mut seen = HashSet::new();
            while let Some(name) = stack.pop() {
                if name == t.name.value {
                    out.insert(t.name.value.clone());
                    break;
                }
                if seen.insert(name)
                    && let Some(next) = index.get(name)
                {
                    refs(&next.spec, &mut stack);
                }
            }
        }
        out
    }
}
