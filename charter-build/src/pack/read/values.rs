//! Reading typed values out of YAML nodes, each mistake a diagnostic at its `line:col`: objects
//! with their allowed keys (and what a misspelt key was probably meant to be), strings, booleans,
//! whole numbers, numbers, lists and choices.

use super::super::tree::{Node, Value};
use super::super::*;

pub(super) struct Obj<'n> {
    pub(super) loc: Loc,
    pub(super) entries: Vec<(String, Loc, &'n Node)>,
    /// Every key written, and the keys misspellings were taken for.
    pub(super) mentioned: Vec<String>,
}

impl<'n> Obj<'n> {
    pub(super) fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, v)| *v)
    }
}

/// Edit distance, for "did you mean".
pub(super) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

pub(crate) fn suggest<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (distance(key, a), *a))
        .filter(|(d, a)| *d <= 2.min(a.len() / 2).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

/// The entries of a mapping with free keys (names), duplicates reported and dropped.
pub(super) fn entries<'n>(
    s: &mut Sink,
    node: &'n Node,
    what: &str,
) -> Option<Vec<(Sp<String>, &'n Node)>> {
    let Value::Map(pairs) = &node.value else {
        if node.value == Value::Null {
            return Some(Vec::new());
        }
        s.err(
            node.loc,
            format!("{what} must be a mapping, found {}", node.value.kind()),
        );
        return None;
    };
    let mut out: Vec<(Sp<String>, &'n Node)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        let Some(name) = k.scalar_text() else {
            s.err(
                k.loc,
                format!(
                    "a key in {what} must be a plain name, found {}",
                    k.value.kind()
                ),
            );
            continue;
        };
        if let Some((first, _)) = out.iter().find(|(n, _)| n.value == name) {
            s.err(
                k.loc,
                format!(
                    "duplicate key `{name}` in {what} (first at line {}:{}); remove or rename one",
                    first.loc.line, first.loc.col
                ),
            );
            continue;
        }
        out.push((Sp::new(name, k.loc), v));
    }
    Some(out)
}

/// A mapping with a closed set of keys. `misplaced` explains keys that belong elsewhere.
pub(super) fn obj<'n>(
    s: &mut Sink,
    node: &'n Node,
    what: &str,
    allowed: &[&str],
    misplaced: &dyn Fn(&str) -> Option<String>,
) -> Option<Obj<'n>> {
    let list = entries(s, node, what)?;
    let mut out = Obj {
        loc: node.loc,
        entries: Vec::with_capacity(list.len()),
        mentioned: Vec::new(),
    };
    for (key, value) in list {
        out.mentioned.push(key.value.clone());
        if allowed.contains(&key.value.as_str()) {
            out.entries.push((key.value, key.loc, value));
            continue;
        }
        let near = suggest(&key.value, allowed);
        if let Some(near) = near {
            out.mentioned.push(near.to_owned());
        }
        let hint = if let Some(why) = misplaced(&key.value) {
            format!(": {why}")
        } else if let Some(near) = near {
            format!("; did you mean `{near}`?")
        } else {
            format!("; use one of: {}", allowed.join(", "))
        };
        s.err(
            key.loc,
            format!("unknown key `{}` in {what}{hint}", key.value),
        );
    }
    Some(out)
}

pub(super) fn no_misplaced(_: &str) -> Option<String> {
    None
}

pub(super) fn string(s: &mut Sink, node: &Node, key: &str) -> Option<Sp<String>> {
    match &node.value {
        Value::Str(v) => Some(Sp::new(v.clone(), node.loc)),
        other => {
            s.err(
                node.loc,
                format!("`{key}` must be a string, found {}", other.kind()),
            );
            None
        }
    }
}

pub(super) fn boolean(s: &mut Sink, node: &Node, key: &str) -> Option<Sp<bool>> {
    match &node.value {
        Value::Bool(v) => Some(Sp::new(*v, node.loc)),
        Value::Str(word) => {
            let hint = match word.to_ascii_lowercase().as_str() {
                "yes" | "on" | "y" | "true" => "; write `true`",
                "no" | "off" | "n" | "false" => "; write `false`",
                _ => "",
            };
            s.err(
                node.loc,
                format!("`{key}` must be `true` or `false`, found the string `{word}`{hint}"),
            );
            None
        }
        other => {
            s.err(
                node.loc,
                format!("`{key}` must be `true` or `false`, found {}", other.kind()),
            );
            None
        }
    }
}

pub(super) fn whole<T: TryFrom<i128> + std::fmt::Display>(
    s: &mut Sink,
    node: &Node,
    key: &str,
    max: T,
) -> Option<Sp<T>> {
    if let Value::Int(v) = node.value
        && v >= 0
        && let Ok(v) = T::try_from(v)
    {
        return Some(Sp::new(v, node.loc));
    }
    let found = match &node.value {
        Value::Int(v) => v.to_string(),
        other => other.kind().to_owned(),
    };
    s.err(
        node.loc,
        format!("`{key}` must be a whole number from 0 to {max}, found {found}"),
    );
    None
}

pub(super) fn number(s: &mut Sink, node: &Node, key: &str) -> Option<Sp<Number>> {
    match node.to_json() {
        Json::Number(n) if matches!(node.value, Value::Int(_) | Value::Float(_)) => {
            Some(Sp::new(n, node.loc))
        }
        _ => {
            s.err(
                node.loc,
                format!("`{key}` must be a number, found {}", node.value.kind()),
            );
            None
        }
    }
}

pub(super) fn string_list(s: &mut Sink, node: &Node, key: &str) -> Option<Sp<Vec<Sp<String>>>> {
    let Value::Seq(items) = &node.value else {
        s.err(
            node.loc,
            format!(
                "`{key}` must be a list of strings (`[a, b]`), found {}",
                node.value.kind()
            ),
        );
        return None;
    };
    let list = items
        .iter()
        .filter_map(|item| string(s, item, key))
        .collect();
    Some(Sp::new(list, node.loc))
}

pub(super) fn choice<T: Copy>(
    s: &mut Sink,
    node: &Node,
    key: &str,
    options: &[(&str, T)],
) -> Option<Sp<T>> {
    let v = string(s, node, key)?;
    if let Some((_, t)) = options.iter().find(|(name, _)| *name == v.value) {
        return Some(Sp::new(*t, v.loc));
    }
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    s.err(
        v.loc,
        format!(
            "unknown {key} `{}`; use one of: {}",
            v.value,
            names.join(", ")
        ),
    );
    None
}

pub(super) fn string_pairs(s: &mut Sink, node: &Node, what: &str) -> Vec<(Sp<String>, Sp<String>)> {
    let Some(list) = entries(s, node, what) else {
        return Vec::new();
    };
    list.into_iter()
        .filter_map(|(k, v)| {
            let key = format!("{what}.{}", k.value);
            match &v.value {
                Value::Str(text) => Some((k, Sp::new(text.clone(), v.loc))),
                other => {
                    s.err(
                        v.loc,
                        format!(
                            "`{key}` must be a string, found {}; quote it (`\"{}\"`)",
                            other.kind(),
                            v.scalar_text().unwrap_or_default()
                        ),
                    );
                    None
                }
            }
        })
        .collect()
}
