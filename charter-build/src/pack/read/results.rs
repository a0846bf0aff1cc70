//! A pack's results file (`results:`, docs/pack-format.md "Results"): the result shapes and
//! gaps of its tools, usually generated from the API's description, read into the tools.
//!
//! ```yaml
//! lenient: true        # every property may be absent or null
//! tools:
//!   issues_list: { type: array, items: { type: object, properties: { number: { type: integer } } } }
//! gaps:
//!   repos_get_readme: not-json
//! ```

use charter_terms::results::Gap;

use super::super::tree::{Node, Value};
use super::super::*;
use super::{Role, boolean, entries, no_misplaced, obj, spec, string};

/// Where the results file declared at `declared` sits: relative to the pack file's folder.
pub(crate) fn path(pack_file: &str, declared: &str) -> std::path::PathBuf {
    std::path::Path::new(pack_file)
        .parent()
        .unwrap_or(std::path::Path::new(""))
        .join(declared)
}

/// Reads the pack's results file, if it declares one, into its tools. Mistakes in the file are
/// reported at its own `file:line:col`; a file that cannot be read, at the `results` key.
pub(crate) fn read(pack: &mut Pack, sink: &mut Sink) {
    let Some(declared) = pack.results.clone() else {
        return;
    };
    let path = path(&pack.file, &declared.value);
    let file = path.display().to_string();
    let text = match read_file(&path) {
        Ok(t) => t,
        Err(e) => {
            sink.err(
                declared.loc,
                format!(
                    "cannot read the results file `{file}` ({e}): the path is relative to the pack file"
                ),
            );
            return;
        }
    };
    let root = match tree::parse(&file, &text) {
        Ok(root) => root,
        Err(d) => {
            sink.diags.push(d);
            return;
        }
    };
    let mut s = Sink::new(&file);
    entries_into(&mut s, &root, pack, &file);
    sink.diags.extend(s.diags);
}

fn entries_into(s: &mut Sink, root: &Node, pack: &mut Pack, file: &str) {
    if !matches!(root.value, Value::Map(_)) {
        s.err(
            root.loc,
            format!(
                "a results file must be a YAML mapping with `tools` and `gaps`, found {}",
                root.value.kind()
            ),
        );
        return;
    }
    let Some(o) = obj(
        s,
        root,
        "the results file",
        &["lenient", "tools", "gaps"],
        &no_misplaced,
    ) else {
        return;
    };
    let lenient = o
        .get("lenient")
        .and_then(|n| boolean(s, n, "lenient"))
        .is_some_and(|b| b.value);
    let label = pack
        .label
        .as_ref()
        .map_or("", |l| l.value.as_str())
        .to_owned();
    let mut seen: Vec<Sp<String>> = Vec::new();
    let mut take = |s: &mut Sink, name: &Sp<String>, pack: &mut Pack| -> Option<usize> {
        if let Some(first) = seen.iter().find(|n| n.value == name.value) {
            s.err(
                name.loc,
                format!(
                    "tool `{}` is listed twice in the results file (first at line {}:{}): a tool has a shape or a gap, not both",
                    name.value, first.loc.line, first.loc.col
                ),
            );
            return None;
        }
        seen.push(name.clone());
        let Some(i) = pack.tools.iter().position(|t| t.name.value == name.value) else {
            let names: Vec<&str> = pack.tools.iter().map(|t| t.name.value.as_str()).collect();
            let hint = crate::pack::read::suggest(&name.value, &names)
                .map_or(String::new(), |n| format!("; did you mean `{n}`?"));
            s.err(
                name.loc,
                format!("the pack `{label}` has no tool `{}`{hint}", name.value),
            );
            return None;
        };
        let tool = &pack.tools[i];
        if tool.result.is_some() {
            s.err(
                name.loc,
                format!(
                    "tool `{}` already declares `response.shape` in the pack: remove one of the two",
                    name.value
                ),
            );
            return None;
        }
        Some(i)
    };
    if let Some(tools) = o.get("tools") {
        for (name, node) in entries(s, tools, "`tools`").unwrap_or_default() {
            let mut shape = spec(s, node, Role::Type);
            if lenient {
                loosen(&mut shape);
            }
            if let Some(i) = take(s, &name, pack) {
                let t = &mut pack.tools[i];
                t.result = Some(shape);
                t.result_file = Some(file.to_owned());
            }
        }
    }
    if let Some(gaps) = o.get("gaps") {
        for (name, node) in entries(s, gaps, "`gaps`").unwrap_or_default() {
            let Some(code) = string(s, node, "gap") else {
                continue;
            };
            let Some(gap) = Gap::parse(&code.value) else {
                let names: Vec<&str> = Gap::ALL.iter().map(|g| g.as_str()).collect();
                s.err(
                    code.loc,
                    format!(
                        "unknown gap `{}`: use one of {}",
                        code.value,
                        names.join(", ")
                    ),
                );
                continue;
            };
            if let Some(i) = take(s, &name, pack) {
                let t = &mut pack.tools[i];
                t.result_gap = Some(Sp::new(gap, code.loc));
                t.result_file = Some(file.to_owned());
            }
        }
    }
}

/// `lenient: true`: every property of the shape may be absent or `null` (an API's description
/// is looser than its answers; a declared result must never make a correct answer fail).
fn loosen(spec: &mut Spec) {
    if let Some(props) = &mut spec.properties {
        for f in &mut props.value {
            f.spec.required = None;
            f.spec.nullable = Some(Sp::new(true, f.spec.loc));
            loosen(&mut f.spec);
        }
    }
    if let Some(items) = &mut spec.items {
        loosen(items);
    }
    if let Some(values) = &mut spec.values {
        loosen(values);
    }
    if let Some(alts) = &mut spec.one_of {
        for a in &mut alts.value {
            loosen(a);
        }
    }
}
