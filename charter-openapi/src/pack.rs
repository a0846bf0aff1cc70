//! The whole pack: label, base URL, auth, tool names, the selection, the tools and the
//! named types; `import_split` writes one pack per tag group.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::finish::{finish, reachable};
use super::model::{Cx, Issue, OpRef, PackOut, Tool};
use super::operation::{self, Refusal};
use super::schema::Conv;
use super::{
    Import, ImportError, ImportOptions, Note, NoteKind, Progress, Skipped, Stage, auth, doc, names,
    server, text, yaml,
};

use charter_terms::names::MAX_QUALIFIED_LEN as MAX_QUALIFIED;

fn progress(options: &ImportOptions, stage: Stage, done: usize, total: usize) {
    if let Some(p) = &options.progress {
        p(Progress { stage, done, total });
    }
}

/// The characters left for tool names under `label`, or why the label is unusable.
fn max_tool(label: &str) -> Result<usize, ImportError> {
    if !charter_terms::names::valid_label(label) {
        return Err(ImportError::Options(format!(
            "invalid pack label `{label}`: use lowercase letters, digits and `-` only"
        )));
    }
    let max_tool = MAX_QUALIFIED.saturating_sub(label.len() + 1);
    if max_tool < 8 {
        return Err(ImportError::Options(format!(
            "the pack label `{label}` leaves fewer than 8 characters for tool names (`<pack>_<tool>` is at most {MAX_QUALIFIED})"
        )));
    }
    Ok(max_tool)
}

/// Parses the document and checks its version and references.
pub(crate) fn load(text_in: &str, options: &ImportOptions) -> Result<Value, ImportError> {
    let root = doc::parse(text_in)?;
    doc::check_version(&root)?;
    doc::check_refs(&root)?;
    progress(options, Stage::Parsed, 1, 1);
    Ok(root)
}

pub(crate) fn import(text_in: &str, options: &ImportOptions) -> Result<Import, ImportError> {
    let label = options.pack.as_str();
    let max = max_tool(label)?;
    let root = load(text_in, options)?;
    let ops = operation::collect(&root)?;
    let raw = raw_names(&ops, options.strip_common_prefix);
    let names = tool_names(&raw, None, max, label);
    let selected = select(&ops, &names, options)?;
    let mut conv = Conv::new(&root, options.max_field_description.max(40));
    match build(&mut conv, &root, &ops, &names, &selected, options, label)? {
        Built::Pack(p) => Ok(p),
        Built::Nothing(skipped) => Err(nothing(&skipped)),
    }
}

/// The operations the options select (`ops`, `tags` and `paths` combine as a union; none
/// selects everything). An entry of `ops` is an operation id, else a tool name.
fn select(
    ops: &[OpRef<'_>],
    names: &[(String, Vec<Issue>)],
    options: &ImportOptions,
) -> Result<Vec<usize>, ImportError> {
    let mut by_id: HashSet<usize> = HashSet::new();
    let mut unknown: Vec<&str> = Vec::new();
    for wanted in &options.ops {
        let ids: Vec<usize> = (0..ops.len())
            .filter(|&i| ops[i].operation_id == Some(wanted.as_str()))
            .collect();
        let found = if ids.is_empty() {
            (0..ops.len()).filter(|&i| names[i].0 == *wanted).collect()
        } else {
            ids
        };
        if found.is_empty() {
            unknown.push(wanted);
        }
        by_id.extend(found);
    }
    if !unknown.is_empty() {
        return Err(ImportError::Options(format!(
            "no operation has the id (or tool name) {}",
            unknown
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let no_filter = options.ops.is_empty() && options.tags.is_empty() && options.paths.is_empty();
    let selected: Vec<usize> = (0..ops.len())
        .filter(|&i| {
            let op = &ops[i];
            let by_tag = options
                .tags
                .iter()
                .any(|t| tags(op).iter().any(|g| g.eq_ignore_ascii_case(t)));
            let by_path = options.paths.iter().any(|g| names::glob(g, op.path));
            no_filter || by_id.contains(&i) || by_tag || by_path
        })
        .collect();
    if selected.is_empty() {
        return Err(ImportError::Options(if ops.is_empty() {
            "the document declares no operations under `paths` (a document of webhooks or components only has nothing to call)".into()
        } else {
            "the selection matches no operation".into()
        }));
    }
    Ok(selected)
}

/// An operation's tags.
pub(crate) fn tags<'d>(op: &OpRef<'d>) -> Vec<&'d str> {
    op.op
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The tools of the selected operations, in order; the skipped ones with their reasons; and
/// how many answer with a boolean `ok`.
fn tools(
    conv: &mut Conv<'_>,
    cx: &Cx<'_>,
    ops: &[OpRef<'_>],
    names: &[(String, Vec<Issue>)],
    selected: &[usize],
    options: &ImportOptions,
) -> Result<(Vec<Tool>, Vec<Skipped>, usize), ImportError> {
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut with_ok = 0;
    let total = selected.len();
    progress(options, Stage::Operations, 0, total);
    for (n, &i) in selected.iter().enumerate() {
        let op = &ops[i];
        let (name, naming) = &names[i];
        match operation::build(conv, cx, op, name) {
            Ok(mut tool) => {
                with_ok += usize::from(
                    operation::response_properties(cx.root, op)
                        .and_then(|p| p.get("ok"))
                        .and_then(|v| doc::deref(cx.root, v, "").ok())
                        .is_some_and(|(v, _)| {
                            v.get("type").and_then(Value::as_str) == Some("boolean")
                        }),
                );
                let mut issues = naming.clone();
                issues.append(&mut tool.issues);
                tool.issues = issues;
                tools.push(tool);
            }
            Err(Refusal::Skip(reason)) => skipped.push(Skipped {
                operation: op.id.clone(),
                method: op.method.to_owned(),
                path: op.path.to_owned(),
                reason,
            }),
            Err(Refusal::Invalid(e)) => return Err(e),
        }
        conv.issues.clear();
        if (n + 1) % 25 == 0 || n + 1 == total {
            progress(options, Stage::Operations, n + 1, total);
        }
    }
    Ok((tools, skipped, with_ok))
}

/// The pack of the `selected` operations, labelled `label`.
fn build(
    conv: &mut Conv<'_>,
    root: &Value,
    ops: &[OpRef<'_>],
    names: &[(String, Vec<Issue>)],
    selected: &[usize],
    options: &ImportOptions,
    label: &str,
) -> Result<Built, ImportError> {
    let mut pack_notes = Vec::new();
    let base = server::base_url(root, options, label)?;
    pack_notes.extend(base.note);
    let (auth, auth_param) = auth::auth(root, label, &mut pack_notes)?;
    let before = conv.stats.clone();
    let cx = Cx {
        root,
        has_auth: auth.is_some(),
        auth_param,
        base_url: &base.url,
        max_description: options.max_description.max(40),
    };
    let (mut tools, skipped, with_ok) = tools(conv, &cx, ops, names, selected, options)?;
    if tools.is_empty() {
        return Ok(Built::Nothing(skipped));
    }
    let mut types = reachable(&conv.types, &tools);
    let mut stats = conv.stats.since(&before);
    finish(&mut types, &mut tools, &mut stats);
    let notes = tools
        .iter()
        .flat_map(|t| {
            t.issues.iter().map(|issue| Note {
                operation: t.operation.clone(),
                tool: t.name.clone(),
                kind: issue.kind,
                message: issue.message.clone(),
            })
        })
        .collect();

    let info = root.get("info");
    let text_at = |k: &str| info.and_then(|i| i.get(k)).and_then(Value::as_str);
    let title = text_at("title").unwrap_or("API").trim().to_owned();
    let version = text_at("version").unwrap_or_default();
    let description = match &options.description {
        Some(d) => d.clone(),
        None => pack_description(&title, text_at("description")),
    };
    // Slack-style APIs answer 200 with `ok: false`: declare the envelope when (nearly) every
    // selected operation's response carries a boolean `ok`.
    let envelope = (with_ok * 10 >= tools.len() * 9).then(|| "ok".to_owned());
    if envelope.is_some() {
        pack_notes.push(
            "every response carries a boolean `ok`: declared `envelope: {kind: ok_flag}`".into(),
        );
    }
    let out = PackOut {
        label,
        description,
        base_url: base.url,
        auth,
        envelope,
        types,
        tools,
        source: format!("{title} {version}").trim().to_owned(),
        operations: selected.len(),
    };
    let yaml = yaml::pack(&out);
    progress(options, Stage::Written, out.tools.len(), out.tools.len());
    Ok(Built::Pack(Import {
        pack: label.to_owned(),
        yaml,
        tools: out.tools.len(),
        operations: selected.len(),
        skipped,
        notes,
        pack_notes,
        stats,
    }))
}

/// What `build` made of a selection.
enum Built {
    /// A pack.
    Pack(Import),
    /// No operation could be a tool: each with its reason.
    Nothing(Vec<Skipped>),
}

/// One pack per tag group of the selected operations (an operation goes with its first tag;
/// untagged ones with `other`), labelled `<pack>-<tag>`. A group whose pack would exceed
/// `max_bytes` is cut into parts by operation order, labelled `<pack>-<tag>-1`, `-2`...
pub(crate) fn import_split(
    text_in: &str,
    options: &ImportOptions,
    max_bytes: usize,
) -> Result<super::SplitImport, ImportError> {
    split_within(text_in, options, max_bytes, MAX_SPLIT_BYTES)
}

/// The most bytes the packs of one split may hold together: what one pack may hold. The pack
/// limit bounds what a build checks, generates and compiles, and a split does not escape it by
/// writing many packs: the whole Microsoft Graph description would be 418 packs, 20 MB of YAML
/// and 240 MB of generated Rust (docs/openapi-import.md, "The import corpus").
const MAX_SPLIT_BYTES: usize = charter_terms::names::MAX_PACK_BYTES;

/// [`import_split`] with the packs together at most `max_total` bytes: over it, the import
/// stops at once with an error naming the largest tag groups to select from.
fn split_within(
    text_in: &str,
    options: &ImportOptions,
    max_bytes: usize,
    max_total: usize,
) -> Result<super::SplitImport, ImportError> {
    let label = options.pack.as_str();
    let max = max_tool(label)?;
    let root = load(text_in, options)?;
    let ops = operation::collect(&root)?;
    let raw = raw_names(&ops, options.strip_common_prefix);
    // Operations given by tool name need the names under the document's label.
    let names = if options.ops.is_empty() {
        Vec::new()
    } else {
        tool_names(&raw, None, max, label)
    };
    let selected = select(&ops, &names, options)?;
    let mut out = super::SplitImport::default();
    let mut conv = Conv::new(&root, options.max_field_description.max(40));
    let mut used: HashSet<String> = HashSet::new();
    let groups = groups(&ops, &selected);
    let mut total = 0;
    for (tag, group) in &groups {
        let group_label = names::group_label(label, tag, &used);
        used.insert(group_label.clone());
        let mut parts = 1;
        'fit: loop {
            let size = group.len().div_ceil(parts);
            let (mut packs, mut skipped) = (Vec::new(), Vec::new());
            for (n, part) in group.chunks(size).enumerate() {
                let part_label = if parts == 1 {
                    group_label.clone()
                } else {
                    format!("{group_label}-{}", n + 1)
                };
                let max = max_tool(&part_label)?;
                let names = tool_names(&raw, Some(part), max, &part_label);
                match build(&mut conv, &root, &ops, &names, part, options, &part_label)? {
                    Built::Pack(p) if p.yaml.len() > max_bytes && size > 1 => {
                        parts = (parts * 2).min(group.len());
                        continue 'fit;
                    }
                    Built::Pack(p) => packs.push(p),
                    Built::Nothing(s) => skipped.extend(s),
                }
            }
            total += packs.iter().map(|p| p.yaml.len()).sum::<usize>();
            if total > max_total {
                return Err(too_large(&groups, selected.len(), max_total));
            }
            out.packs.extend(packs);
            out.skipped.extend(skipped);
            break;
        }
    }
    if out.packs.is_empty() {
        return Err(nothing(&out.skipped));
    }
    Ok(out)
}

/// The error when a split's packs together would be over `max_total` bytes: the selection is
/// the way to curate, so it names the largest tag groups.
fn too_large(groups: &[(String, Vec<usize>)], operations: usize, max_total: usize) -> ImportError {
    let mut largest: Vec<&(String, Vec<usize>)> = groups.iter().collect();
    largest.sort_by_key(|(_, g)| std::cmp::Reverse(g.len()));
    let named: Vec<String> = largest
        .iter()
        .take(5)
        .map(|(tag, g)| format!("`{tag}` ({} operations)", g.len()))
        .collect();
    ImportError::Options(format!(
        "split by tag, the packs would hold over {} together, more than one pack may ({operations} operations in {} tag groups; a build checks, generates and compiles all of it): select what the agent needs with `--tags` or `--paths` (the largest groups: {})",
        if max_total >= 1 << 20 {
            format!("{} MiB", max_total >> 20)
        } else {
            format!("{} KiB", max_total >> 10)
        },
        groups.len(),
        named.join(", ")
    ))
}

/// The selected operations grouped by their first tag, in document order of the groups'
/// first operations.
fn groups(ops: &[OpRef<'_>], selected: &[usize]) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for &i in selected {
        let tag = tags(&ops[i]).first().map_or("other", |t| t).to_owned();
        let key = tag.to_ascii_lowercase();
        match index.get(&key) {
            Some(&g) => out[g].1.push(i),
            None => {
                index.insert(key, out.len());
                out.push((tag, vec![i]));
            }
        }
    }
    out
}

/// The error when no selected operation can be a tool: the first one's reason, and what the
/// user can do.
fn nothing(skipped: &[Skipped]) -> ImportError {
    ImportError::Options(format!(
        "none of the {} selected operations can be a tool: {}; select others with `--ops`, `--tags` or `--paths`, or declare these tools by hand",
        skipped.len(),
        skipped.first().map_or(String::new(), |s| format!(
            "{} {}: {}",
            s.method, s.path, s.reason
        ))
    ))
}

/// The pack's description: the first sentence of `info.description` when it says what the
/// API is (at least four words, naming the title's words), else the title.
fn pack_description(title: &str, description: Option<&str>) -> String {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .map(|w| w.trim_end_matches("'s").trim_matches('\'').to_lowercase())
            .collect()
    };
    let cleaned = description.map(text::clean).unwrap_or_default();
    let first = cleaned
        .char_indices()
        .find(|&(i, c)| matches!(c, '.' | '!' | '?') && cleaned[i + 1..].starts_with(' '))
        .map_or(cleaned.as_str(), |(i, _)| &cleaned[..=i]);
    let sentence_words = words(first);
    let names_title = words(title).iter().all(|w| sentence_words.contains(w));
    if sentence_words.len() >= 4 && first.chars().count() <= 200 && names_title {
        first.to_owned()
    } else if title.ends_with('.') {
        title.to_owned()
    } else {
        format!("{title}.")
    }
}

/// Each operation's raw name (its id, else method and path) with the operation-id prefix
/// every operation shares (`gmail.` of `gmail.users.messages.list`) cut when `strip`.
fn raw_names(ops: &[OpRef<'_>], strip: bool) -> Vec<String> {
    let raw: Vec<String> = ops
        .iter()
        .map(|op| match op.operation_id {
            Some(id) => id.to_owned(),
            None => format!(
                "{}_{}",
                op.method.to_ascii_lowercase(),
                op.path.replace(['{', '}'], "")
            ),
        })
        .collect();
    let prefix = if strip && ops.len() > 1 && ops.iter().all(|o| o.operation_id.is_some()) {
        let first = |s: &str| s.find(['.', '/']).map(|i| s[..=i].to_owned());
        let p = first(&raw[0]);
        p.filter(|p| {
            raw.iter()
                .all(|r| r.starts_with(p.as_str()) && r.len() > p.len())
        })
    } else {
        None
    };
    match prefix {
        Some(p) => raw.into_iter().map(|r| r[p.len()..].to_owned()).collect(),
        None => raw,
    }
}

/// Tool names for every operation of the document (not only the selected ones, so a name
/// never depends on the selection), with the notes shortening and collisions caused.
///
/// With `subset`, only those operations are named (one group of a split; the others get an
/// empty name), against each other.
fn tool_names(
    raw: &[String],
    subset: Option<&[usize]>,
    max: usize,
    label: &str,
) -> Vec<(String, Vec<Issue>)> {
    let all: Vec<usize>;
    let subset = match subset {
        Some(s) => s,
        None => {
            all = (0..raw.len()).collect();
            &all
        }
    };
    let snakes: Vec<String> = subset.iter().map(|&i| names::snake(&raw[i])).collect();
    let namer = names::Namer::new(label, &snakes);
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = vec![(String::new(), Vec::new()); raw.len()];
    for (&i, snake) in subset.iter().zip(&snakes) {
        let (mut name, shortened) = namer.fit(snake, max);
        let mut issues = Vec::new();
        if shortened {
            issues.push(Issue {
                kind: NoteKind::NameShortened,
                message: format!(
                    "`{snake}` is over the 50-character rule with the pack label; named `{name}`"
                ),
            });
        }
        if taken.contains(&name) {
            let unique = namer.disambiguate(&name, &taken, max);
            issues.push(Issue {
                kind: NoteKind::NameCollision,
                message: format!(
                    "`{name}` is already the name of an earlier operation; named `{unique}`"
                ),
            });
            name = unique;
        }
        taken.insert(name.clone());
        out[i] = (name, issues);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document of `n` operations under `/users` (tag `users`) and one under `/mail`.
    fn doc(n: usize) -> String {
        let op = |id: String, tag: &str| {
            serde_json::json!({"get": {"operationId": id, "tags": [tag],
                "summary": "Reads one thing of the directory by its id.",
                "responses": {"200": {"description": "ok"}}}})
        };
        let mut paths = serde_json::Map::new();
        for i in 0..n {
            paths.insert(format!("/users/{i}"), op(format!("getUser{i}"), "users"));
        }
        paths.insert("/mail".into(), op("listMail".into(), "mail"));
        serde_json::json!({"openapi": "3.0.3", "info": {"title": "Directory", "version": "1"},
            "servers": [{"url": "https://api.example.com"}], "paths": paths})
        .to_string()
    }

    #[test]
    fn a_split_over_the_total_is_refused_with_the_groups_to_select() {
        let text = doc(60);
        let options = ImportOptions::new("dir");
        let whole = split_within(&text, &options, 1 << 20, 1 << 20).expect("under the total");
        let bytes: usize = whole.packs.iter().map(|p| p.yaml.len()).sum();
        let Err(ImportError::Options(message)) = split_within(&text, &options, 1 << 20, bytes - 1)
        else {
            panic!("a split over the total is refused");
        };
        assert!(
            message.contains("61 operations in 2 tag groups")
                && message.contains("`users` (60 operations), `mail` (1 operations)")
                && message.contains("--tags"),
            "{message}"
        );
        // The selection is the way out.
        let mut mail = ImportOptions::new("dir");
        mail.tags = vec!["mail".into()];
        let only = split_within(&text, &mail, 1 << 20, bytes - 1).expect("the selection fits");
        assert_eq!(only.packs.len(), 1);
    }
}
