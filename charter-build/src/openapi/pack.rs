//! The whole pack: label, base URL, auth, tool names, the tools, the named types and the
//! post-pass that keeps the result inside the pack rules.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use super::operation::{self, Cx, OpRef, Tool};
use super::schema::{Conv, Issue, Kind, Shape, TypeDef};
use super::{
    Import, ImportError, ImportOptions, Note, NoteKind, Progress, Skipped, Stage, doc, names, text,
    yaml,
};

/// The pack's authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Auth {
    pub scheme: &'static str,
    pub env: String,
    pub header: Option<String>,
}

/// What the YAML writer needs.
pub(crate) struct PackOut<'a> {
    pub label: &'a str,
    pub description: String,
    pub base_url: String,
    pub auth: Option<Auth>,
    /// The field of an `ok_flag` envelope (Slack's `ok: false` inside a 200).
    pub envelope: Option<String>,
    pub types: Vec<TypeDef>,
    pub tools: Vec<Tool>,
    pub source: String,
    pub operations: usize,
}

use charter_terms::names::MAX_QUALIFIED_LEN as MAX_QUALIFIED;

/// The `{placeholder}` names of a URL template (the rule is `charter_terms::http`).
pub(crate) fn placeholders(path: &str) -> Result<Vec<String>, String> {
    let found = charter_terms::http::placeholders(path).map_err(|e| e.what().to_owned())?;
    let mut out: Vec<String> = Vec::with_capacity(found.len());
    for (_, name) in found {
        // `{+b}` (reserved expansion) and `{b}` are the same parameter: the pack declares the
        // bare name once (found by the `openapi_import` fuzz target).
        let bare = |n: &str| n.trim_start_matches('+').to_owned();
        if out.iter().any(|n| bare(n) == bare(name)) {
            return Err(format!("placeholder `{{{}}}` appears twice", bare(name)));
        }
        out.push(name.to_owned());
    }
    Ok(out)
}

fn progress(options: &ImportOptions, stage: Stage, done: usize, total: usize) {
    if let Some(p) = &options.progress {
        p(Progress { stage, done, total });
    }
}

pub(crate) fn import(text_in: &str, options: &ImportOptions) -> Result<Import, ImportError> {
    let label = options.pack.as_str();
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
    let root = doc::parse(text_in)?;
    doc::check_version(&root)?;
    doc::check_refs(&root)?;
    progress(options, Stage::Parsed, 1, 1);

    let mut pack_notes = Vec::new();
    let base_url = base_url(&root, options)?;
    let (auth, auth_param) = auth(&root, label, &mut pack_notes)?;
    let ops = operation::collect(&root)?;
    let names = tool_names(&ops, max_tool, options.strip_common_prefix, label);

    // Selection: an entry of `ops` is an operation id, else a tool name.
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
            let tags: Vec<&str> = op
                .op
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| t.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let by_tag = options
                .tags
                .iter()
                .any(|t| tags.iter().any(|g| g.eq_ignore_ascii_case(t)));
            let by_path = options.paths.iter().any(|g| names::glob(g, op.path));
            no_filter || by_id.contains(&i) || by_tag || by_path
        })
        .collect();
    if selected.is_empty() {
        return Err(ImportError::Options(if ops.is_empty() {
            "the document declares no operations".into()
        } else {
            "the selection matches no operation".into()
        }));
    }

    let mut conv = Conv::new(&root, options.max_field_description.max(40));
    let cx = Cx {
        root: &root,
        has_auth: auth.is_some(),
        auth_param,
        base_url: &base_url,
        max_description: options.max_description.max(40),
    };
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut with_ok = 0;
    let total = selected.len();
    progress(options, Stage::Operations, 0, total);
    for (n, &i) in selected.iter().enumerate() {
        let op = &ops[i];
        let (name, naming) = &names[i];
        match operation::build(&mut conv, &cx, op, name)? {
            Ok(mut tool) => {
                with_ok += usize::from(
                    operation::response_properties(&root, op)
                        .and_then(|p| p.get("ok"))
                        .and_then(|v| doc::deref(&root, v, "").ok())
                        .is_some_and(|(v, _)| {
                            v.get("type").and_then(Value::as_str) == Some("boolean")
                        }),
                );
                let mut issues = naming.clone();
                issues.append(&mut tool.issues);
                tool.issues = issues;
                tools.push(tool);
            }
            Err(reason) => skipped.push(Skipped {
                operation: op.id.clone(),
                method: op.method.to_owned(),
                path: op.path.to_owned(),
                reason,
            }),
        }
        conv.issues.clear();
        if (n + 1) % 25 == 0 || n + 1 == total {
            progress(options, Stage::Operations, n + 1, total);
        }
    }
    if tools.is_empty() {
        return Err(ImportError::Options(format!(
            "none of the {} selected operations can be a tool: {}",
            skipped.len(),
            skipped.first().map_or(String::new(), |s| format!(
                "{} {}: {}",
                s.method, s.path, s.reason
            ))
        )));
    }

    let mut types = std::mem::take(&mut conv.types);
    finish(&mut types, &mut tools, &mut conv);

    let mut notes = Vec::new();
    for t in &tools {
        for issue in &t.issues {
            notes.push(Note {
                operation: t.operation.clone(),
                tool: t.name.clone(),
                kind: issue.kind,
                message: issue.message.clone(),
            });
        }
    }

    let info = root.get("info");
    let title = info
        .and_then(|i| i.get("title"))
        .and_then(Value::as_str)
        .unwrap_or("API")
        .trim()
        .to_owned();
    let version = info
        .and_then(|i| i.get("version"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let description = match &options.description {
        Some(d) => d.clone(),
        None => pack_description(
            &title,
            info.and_then(|i| i.get("description"))
                .and_then(Value::as_str),
        ),
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
        base_url,
        auth,
        envelope,
        types,
        tools,
        source: format!("{title} {version}").trim().to_owned(),
        operations: selected.len(),
    };
    let yaml = yaml::pack(&out);
    progress(options, Stage::Written, out.tools.len(), out.tools.len());
    Ok(Import {
        yaml,
        tools: out.tools.len(),
        operations: selected.len(),
        skipped,
        notes,
        pack_notes,
        stats: conv.stats,
    })
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

/// Tool names for every operation of the document (not only the selected ones, so a name
/// never depends on the selection), with the notes shortening and collisions caused.
fn tool_names(
    ops: &[OpRef<'_>],
    max: usize,
    strip: bool,
    label: &str,
) -> Vec<(String, Vec<Issue>)> {
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
    // A first segment every operation id shares (`gmail.` of `gmail.users.messages.list`).
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
    let snakes: Vec<String> = raw
        .iter()
        .map(|r| names::snake(prefix.as_deref().map_or(r.as_str(), |p| &r[p.len()..])))
        .collect();
    let namer = names::Namer::new(label, &snakes);
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(ops.len());
    for (op, snake) in ops.iter().zip(&snakes) {
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
        let _ = op;
        taken.insert(name.clone());
        out.push((name, issues));
    }
    out
}

/// The base URL: the option, else `servers[0]` with its variables' defaults.
fn base_url(root: &Value, options: &ImportOptions) -> Result<String, ImportError> {
    let url = match &options.base_url {
        Some(u) => u.clone(),
        None => {
            let server = root
                .get("servers")
                .and_then(Value::as_array)
                .and_then(|s| s.first());
            let Some(server) = server else {
                return Err(ImportError::Options(
                    "the document declares no `servers`: give the base URL (`--base-url`)".into(),
                ));
            };
            let Some(mut url) = server.get("url").and_then(Value::as_str).map(str::to_owned) else {
                return Err(ImportError::Invalid {
                    pointer: "/servers/0/url".into(),
                    message: "a server needs a `url`".into(),
                });
            };
            if let Some(vars) = server.get("variables").and_then(Value::as_object) {
                for (name, var) in vars {
                    let value = var.get("default").and_then(Value::as_str).or_else(|| {
                        var.get("enum")
                            .and_then(Value::as_array)
                            .and_then(|e| e.first())
                            .and_then(Value::as_str)
                    });
                    if let Some(v) = value {
                        url = url.replace(&format!("{{{name}}}"), v);
                    }
                }
            }
            if url.contains(['{', '}']) {
                return Err(ImportError::Invalid {
                    pointer: "/servers/0/url".into(),
                    message: format!(
                        "the server URL `{url}` has a variable without a default: give the base URL (`--base-url`)"
                    ),
                });
            }
            url
        }
    };
    let trimmed = url.trim().trim_end_matches('/').to_owned();
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"));
    match rest {
        Some(r)
            if !r.is_empty()
                && !r.starts_with('/')
                && !trimmed.contains(['?', '#', ' ', '{', '}']) =>
        {
            Ok(trimmed)
        }
        _ => Err(ImportError::Options(format!(
            "the base URL `{url}` is not an absolute http(s) URL without query or fragment: give the base URL (`--base-url`)"
        ))),
    }
}

/// The pack's auth from `securitySchemes`, preferring the schemes the document requires.
fn auth(
    root: &Value,
    label: &str,
    notes: &mut Vec<String>,
) -> Result<(Option<Auth>, Option<String>), ImportError> {
    let Some(schemes) = root
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    else {
        notes.push("the document declares no security scheme: `auth` is left out (add it by hand if the API needs a credential)".into());
        return Ok((None, None));
    };
    let env = names::env_prefix(label);
    let required: Vec<&str> = root
        .get("security")
        .and_then(Value::as_array)
        .map(|reqs| {
            reqs.iter()
                .filter_map(Value::as_object)
                .flat_map(|o| o.keys().map(String::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut candidates: Vec<(u8, Auth, Option<String>, String)> = Vec::new();
    for (name, scheme) in schemes {
        let (scheme, _) = doc::deref(
            root,
            scheme,
            &format!("/components/securitySchemes/{}", names::pointer_token(name)),
        )?;
        let kind = scheme
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let http = scheme
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let location = scheme.get("in").and_then(Value::as_str).unwrap_or_default();
        let param = scheme
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let preferred = u8::from(!required.is_empty() && !required.contains(&name.as_str()));
        match (kind, http.as_str(), location) {
            ("http", "bearer", _) => candidates.push((
                preferred * 10,
                Auth {
                    scheme: "bearer",
                    env: format!("{env}_TOKEN"),
                    header: None,
                },
                None,
                format!("`{name}` (HTTP bearer)"),
            )),
            ("apiKey", _, "header") if param.eq_ignore_ascii_case("authorization") => candidates
                .push((
                    preferred * 10 + 1,
                    Auth {
                        scheme: "bearer",
                        env: format!("{env}_TOKEN"),
                        header: None,
                    },
                    Some(param.to_owned()),
                    format!(
                        "`{name}` (API key in the Authorization header, sent as a bearer token)"
                    ),
                )),
            ("apiKey", _, "header") => candidates.push((
                preferred * 10 + 1,
                Auth {
                    scheme: "header",
                    env: format!("{env}_API_KEY"),
                    header: Some(param.to_owned()),
                },
                Some(param.to_owned()),
                format!("`{name}` (API key in header `{param}`)"),
            )),
            ("http", "basic", _) => candidates.push((
                preferred * 10 + 2,
                Auth {
                    scheme: "basic",
                    env: format!("{env}_API_KEY"),
                    header: None,
                },
                None,
                format!("`{name}` (HTTP basic)"),
            )),
            ("oauth2" | "openIdConnect", _, _) => candidates.push((
                preferred * 10 + 3,
                Auth {
                    scheme: "bearer",
                    env: format!("{env}_TOKEN"),
                    header: None,
                },
                None,
                format!(
                    "`{name}` ({kind}: the variable holds an access token obtained outside charter)"
                ),
            )),
            _ => notes.push(format!(
                "security scheme `{name}` ({kind}{}) cannot be declared as pack auth",
                if location.is_empty() {
                    String::new()
                } else {
                    format!(" in {location}")
                }
            )),
        }
    }
    candidates.sort_by_key(|c| c.0);
    let Some((_, auth, param, what)) = candidates.into_iter().next() else {
        notes.push("no security scheme maps to pack auth: `auth` is left out".into());
        return Ok((None, None));
    };
    notes.push(format!(
        "auth from {what}: `{}` in `{}`",
        auth.scheme, auth.env
    ));
    Ok((Some(auth), param))
}

/// The post-pass: type aliases resolved, recursive types kept out of alternatives, unused
/// types pruned, every property described, type notes attached to the tools that use them.
fn finish(types: &mut Vec<TypeDef>, tools: &mut [Tool], conv: &mut Conv<'_>) {
    // 1. A type whose shape is a plain reference is an alias of the other type.
    let mut alias: HashMap<String, String> = HashMap::new();
    for t in types.iter() {
        if let Some(Shape {
            kind: Kind::Ref(other),
            ..
        }) = &t.shape
        {
            alias.insert(t.name.clone(), other.clone());
        }
    }
    let resolve = |name: &str| -> String {
        let mut cur = name.to_owned();
        for _ in 0..32 {
            match alias.get(&cur) {
                Some(next) if *next != cur => cur = next.clone(),
                _ => break,
            }
        }
        cur
    };
    types.retain(|t| !alias.contains_key(&t.name) && t.shape.is_some());
    let known: HashSet<String> = types.iter().map(|t| t.name.clone()).collect();
    let fix = |s: &mut Shape, issues: &mut Vec<Issue>| {
        walk_mut(s, &mut |s| {
            if let Kind::Ref(name) = &s.kind {
                let target = resolve(name);
                if known.contains(&target) {
                    s.kind = Kind::Ref(target);
                } else {
                    issues.push(Issue {
                        kind: NoteKind::Unrepresentable,
                        message: format!(
                            "type `{name}` has no finite shape; accepted as any value"
                        ),
                    });
                    s.kind = Kind::Any;
                }
            }
        });
    };
    for t in types.iter_mut() {
        let mut issues = std::mem::take(&mut t.issues);
        if let Some(s) = t.shape.as_mut() {
            fix(s, &mut issues);
        }
        t.issues = issues;
    }
    for tool in tools.iter_mut() {
        let mut issues = std::mem::take(&mut tool.issues);
        for p in &mut tool.params {
            fix(&mut p.shape, &mut issues);
        }
        tool.issues = issues;
    }

    // 2. A `one_of` alternative may not be a recursive type: inline its shape one level.
    let recursive = recursive_types(types);
    let bodies: HashMap<String, Shape> = types
        .iter()
        .filter(|t| recursive.contains(&t.name))
        .filter_map(|t| Some((t.name.clone(), t.shape.clone()?)))
        .collect();
    let inline_alts =
        |s: &mut Shape, issues: &mut Vec<Issue>| fix_alternatives(s, &bodies, issues, 0);
    for t in types.iter_mut() {
        let mut issues = std::mem::take(&mut t.issues);
        if let Some(s) = t.shape.as_mut() {
            inline_alts(s, &mut issues);
        }
        t.issues = issues;
    }
    for tool in tools.iter_mut() {
        let mut issues = std::mem::take(&mut tool.issues);
        for p in &mut tool.params {
            inline_alts(&mut p.shape, &mut issues);
        }
        tool.issues = issues;
    }

    // 3. Types reached from the tools (in declaration order), with their notes.
    let index: HashMap<String, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let mut used: BTreeSet<usize> = BTreeSet::new();
    for tool in tools.iter_mut() {
        let mut reach: Vec<usize> = Vec::new();
        let mut stack: Vec<String> = Vec::new();
        for p in &tool.params {
            refs(&p.shape, &mut stack);
        }
        let mut seen = HashSet::new();
        while let Some(name) = stack.pop() {
            let Some(&i) = index.get(&name) else { continue };
            if !seen.insert(i) {
                continue;
            }
            reach.push(i);
            if let Some(s) = &types[i].shape {
                refs(s, &mut stack);
            }
        }
        reach.sort_unstable();
        for i in reach {
            used.insert(i);
            for issue in &types[i].issues {
                let message = format!("in type `{}`: {}", types[i].name, issue.message);
                if !tool.issues.iter().any(|x| x.message == message) {
                    tool.issues.push(Issue {
                        kind: issue.kind,
                        message,
                    });
                }
            }
        }
    }
    let mut i = 0;
    types.retain(|_| {
        let keep = used.contains(&i);
        i += 1;
        keep
    });

    // 4. Every parameter and property described.
    let described: HashSet<String> = types
        .iter()
        .filter(|t| t.shape.as_ref().is_some_and(|s| s.description.is_some()))
        .map(|t| t.name.clone())
        .collect();
    let mut generated = 0;
    let mut describe = |name: &str, s: &mut Shape| {
        if s.description.is_none() && !matches!(&s.kind, Kind::Ref(t) if described.contains(t)) {
            s.description = Some(format!("The `{name}`."));
            generated += 1;
        }
    };
    for t in types.iter_mut() {
        if let Some(s) = t.shape.as_mut() {
            describe_props(s, &mut describe);
        }
    }
    for tool in tools.iter_mut() {
        for p in &mut tool.params {
            describe(&p.name, &mut p.shape);
            describe_props(&mut p.shape, &mut describe);
        }
    }
    conv.stats.generated_descriptions += generated;

    // 5. Tools whose schema (types inlined) is huge: worth a curator's attention.
    let shapes: HashMap<&str, &Shape> = types
        .iter()
        .filter_map(|t| Some((t.name.as_str(), t.shape.as_ref()?)))
        .collect();
    let mut memo: HashMap<String, usize> = HashMap::new();
    for tool in tools.iter_mut() {
        let chars: usize = tool
            .params
            .iter()
            .map(|p| p.name.len() + 6 + estimate(&p.shape, &shapes, &recursive, &mut memo, 0))
            .sum();
        let tokens = chars / 4;
        if tokens > LARGE_SCHEMA_TOKENS {
            tool.issues.push(Issue {
                kind: NoteKind::LargeSchema,
                message: format!(
                    "the parameter schema is about {tokens} tokens with every type inlined; keep only the fields an agent needs"
                ),
            });
        }
    }
}

/// Above this many estimated schema tokens a tool gets a [`NoteKind::LargeSchema`] note.
const LARGE_SCHEMA_TOKENS: usize = 20_000;

/// The approximate length of a shape's JSON schema text, references to non-recursive types
/// inlined as the pack compiler does.
fn estimate(
    s: &Shape,
    types: &HashMap<&str, &Shape>,
    recursive: &HashSet<String>,
    memo: &mut HashMap<String, usize>,
    depth: usize,
) -> usize {
    let mut n = 20 + s.description.as_ref().map_or(0, |d| d.len() + 16);
    n += s
        .enum_values
        .iter()
        .map(|v| v.to_string().len() + 1)
        .sum::<usize>();
    if depth > 64 {
        return n;
    }
    n += match &s.kind {
        Kind::Object(props) => props
            .iter()
            .map(|p| p.name.len() + 4 + estimate(&p.shape, types, recursive, memo, depth + 1))
            .sum::<usize>(),
        Kind::Array(items) => estimate(items, types, recursive, memo, depth + 1),
        Kind::Map(Some(values)) => estimate(values, types, recursive, memo, depth + 1),
        Kind::OneOf(alts) => alts
            .iter()
            .map(|a| estimate(a, types, recursive, memo, depth + 1))
            .sum(),
        Kind::Ref(name) if !recursive.contains(name) => {
            if let Some(&m) = memo.get(name) {
                m
            } else {
                let m = types
                    .get(name.as_str())
                    .map_or(0, |t| estimate(t, types, recursive, memo, depth + 1));
                memo.insert(name.clone(), m);
                m
            }
        }
        _ => 0,
    };
    n
}

/// Replaces `one_of` alternatives that are recursive types: at the first level by a copy of
/// the type's shape, inside such a copy (where the same alternative would come back) by any
/// value, with a note.
fn fix_alternatives(
    s: &mut Shape,
    bodies: &HashMap<String, Shape>,
    issues: &mut Vec<Issue>,
    depth: usize,
) {
    match &mut s.kind {
        Kind::OneOf(alts) => {
            for a in alts.iter_mut() {
                let body = match &a.kind {
                    Kind::Ref(name) => bodies.get(name).map(|b| (name.clone(), b)),
                    _ => None,
                };
                match body {
                    Some((name, body)) if depth == 0 && !matches!(body.kind, Kind::OneOf(_)) => {
                        let mut b = body.clone();
                        if a.description.is_some() {
                            b.description = a.description.take();
                        }
                        b.nullable |= a.nullable;
                        *a = b;
                        let _ = name;
                        fix_alternatives(a, bodies, issues, depth + 1);
                    }
                    Some((name, _)) => {
                        let message = format!(
                            "an alternative is the recursive type `{name}` again; accepted as any value there"
                        );
                        if !issues.iter().any(|i| i.message == message) {
                            issues.push(Issue {
                                kind: NoteKind::Unrepresentable,
                                message,
                            });
                        }
                        *a = Shape {
                            description: a.description.take(),
                            nullable: a.nullable,
                            ..Shape::any()
                        };
                    }
                    None => fix_alternatives(a, bodies, issues, depth),
                }
            }
        }
        Kind::Object(props) => props
            .iter_mut()
            .for_each(|p| fix_alternatives(&mut p.shape, bodies, issues, depth)),
        Kind::Array(items) => fix_alternatives(items, bodies, issues, depth),
        Kind::Map(Some(values)) => fix_alternatives(values, bodies, issues, depth),
        _ => {}
    }
}

fn describe_props(s: &mut Shape, f: &mut impl FnMut(&str, &mut Shape)) {
    match &mut s.kind {
        Kind::Object(props) => {
            for p in props {
                f(&p.name, &mut p.shape);
                describe_props(&mut p.shape, f);
            }
        }
        Kind::Array(items) => describe_props(items, f),
        Kind::Map(Some(values)) => describe_props(values, f),
        Kind::OneOf(alts) => {
            for a in alts {
                describe_props(a, f);
            }
        }
        _ => {}
    }
}

/// Applies `f` to `s` and every nested shape, outermost first.
fn walk_mut(s: &mut Shape, f: &mut impl FnMut(&mut Shape)) {
    f(s);
    match &mut s.kind {
        Kind::Object(props) => {
            for p in props {
                walk_mut(&mut p.shape, f);
            }
        }
        Kind::Array(items) => walk_mut(items, f),
        Kind::Map(Some(values)) => walk_mut(values, f),
        Kind::OneOf(alts) => {
            for a in alts {
                walk_mut(a, f);
            }
        }
        _ => {}
    }
}

fn refs(s: &Shape, out: &mut Vec<String>) {
    match &s.kind {
        Kind::Ref(name) => out.push(name.clone()),
        Kind::Object(props) => props.iter().for_each(|p| refs(&p.shape, out)),
        Kind::Array(items) => refs(items, out),
        Kind::Map(Some(values)) => refs(values, out),
        Kind::OneOf(alts) => alts.iter().for_each(|a| refs(a, out)),
        _ => {}
    }
}

/// Types that reach themselves through references.
fn recursive_types(types: &[TypeDef]) -> HashSet<String> {
    let index: HashMap<&str, &TypeDef> = types.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = HashSet::new();
    for t in types {
        let mut stack = Vec::new();
        if let Some(s) = &t.shape {
            refs(s, &mut stack);
        }
        let mut seen = HashSet::new();
        while let Some(name) = stack.pop() {
            if name == t.name {
                out.insert(t.name.clone());
                break;
            }
            if seen.insert(name.clone())
                && let Some(next) = index.get(name.as_str())
                && let Some(s) = &next.shape
            {
                refs(s, &mut stack);
            }
        }
    }
    out
}
