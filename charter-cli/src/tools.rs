//! `charter tools`: every tool with its annotations and schema size, read from the tables.

use std::io::Write;
use std::process::ExitCode;

use charter_runtime::Dialect;
use charter_runtime::table::{Annotations, Table, ToolDef, ViewKey};
use serde_json::{Value, json};

use crate::Failure;
use crate::args::ToolsArgs;
use crate::packs;

pub(crate) fn run(
    args: ToolsArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let tables = packs::select(tables, &args.packs)?;
    let mut tools: Vec<&'static ToolDef> = tables.iter().flat_map(|t| t.tools.iter()).collect();
    if args.by_cost {
        // Stable sort: equal costs keep declaration order.
        tools.sort_by_key(|t| std::cmp::Reverse(default_tokens(t, args.dialect)));
    }
    if args.json {
        let list: Vec<Value> = tools.iter().map(|t| tool_json(t, args.dialect)).collect();
        serde_json::to_writer_pretty(&mut *out, &list).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        write_text(&tools, &tables, args.dialect, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The size of the view a session without a mode sends, in `dialect`.
fn default_tokens(tool: &ToolDef, dialect: Dialect) -> u32 {
    tool.views
        .iter()
        .find(|v| v.key == ViewKey::Default)
        .map_or(0, |v| v.tokens_in(dialect))
}

fn view_key(key: ViewKey) -> String {
    match key {
        ViewKey::Default => "default".to_owned(),
        ViewKey::Unmatched => "unmatched".to_owned(),
        ViewKey::Label(label) => format!("mode:{label}"),
    }
}

fn annotation_words(a: Annotations) -> String {
    let words: Vec<&str> = [
        (a.read_only, "read_only"),
        (a.idempotent, "idempotent"),
        (a.destructive, "destructive"),
        (a.open_world, "open_world"),
    ]
    .into_iter()
    .filter_map(|(on, word)| on.then_some(word))
    .collect();
    if words.is_empty() {
        "-".to_owned()
    } else {
        words.join(",")
    }
}

fn tool_json(tool: &ToolDef, dialect: Dialect) -> Value {
    let views: Vec<Value> = tool
        .views
        .iter()
        .map(|v| {
            let d = v.in_dialect(dialect);
            // The schema text is compile-time JSON; parsing it here is output formatting only.
            let schema: Value =
                serde_json::from_str(d.schema).unwrap_or(Value::String(d.schema.to_owned()));
            let mut view = json!({ "key": view_key(v.key), "schema": schema, "tokens": d.tokens });
            if dialect == Dialect::AnthropicStrict {
                // Whether `anthropic::run` sends it with `strict: true` (a view that cannot go
                // strict is the portable text, sent without).
                view["strict"] = Value::Bool(v.anthropic_strict().is_some());
            }
            view
        })
        .collect();
    json!({
        "name": tool.name,
        "pack": tool.pack,
        "description": tool.description,
        "annotations": {
            "read_only": tool.annotations.read_only,
            "idempotent": tool.annotations.idempotent,
            "destructive": tool.annotations.destructive,
            "open_world": tool.annotations.open_world,
        },
        "mode": tool.mode,
        "views": views,
        "result": result_json(tool),
        "budget": budget_json(tool),
    })
}

/// The result budget of `charter mcp` by default (`--max-result`), and how an answer over it
/// says to get the rest (`charter_runtime::budget::resumes`).
fn budget_json(tool: &ToolDef) -> Value {
    let pagination = match tool.exec {
        charter_runtime::table::Exec::Http(route) => route.pagination.as_ref(),
        _ => None,
    };
    json!({
        "bytes": charter_mcp::server::limits::DEFAULT_MAX_RESULT_BYTES,
        "resumes": charter_runtime::budget::resumes(pagination),
    })
}

/// What the tool answers: its result schema (as MCP's `outputSchema` carries it) and size, or
/// the named gap that says why it declares none.
fn result_json(tool: &ToolDef) -> Value {
    match tool.output.schema() {
        Some(output) => {
            let (open, close) = output.object_wrapper();
            let text = format!("{open}{}{close}", output.schema);
            // Compile-time JSON; parsed here for output formatting only.
            let schema: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
            json!({ "schema": schema, "tokens": output.tokens })
        }
        None => {
            let gap = tool
                .output
                .gap()
                .unwrap_or(charter_runtime::table::Gap::NotDeclared);
            json!({ "gap": gap.as_str(), "why": gap.meaning() })
        }
    }
}

fn write_text(
    tools: &[&'static ToolDef],
    tables: &[&'static Table],
    dialect: Dialect,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    writeln!(
        out,
        "{:<width$}  {:>6}  {:<44}  MODES",
        "TOOL", "TOKENS", "ANNOTATIONS"
    )?;
    let mut total: u64 = 0;
    for tool in tools {
        let tokens = default_tokens(tool, dialect);
        total += u64::from(tokens);
        let labels: Vec<&str> = tool
            .views
            .iter()
            .filter_map(|v| match v.key {
                ViewKey::Label(l) => Some(l),
                _ => None,
            })
            .collect();
        let modes = match (tool.mode, labels.is_empty()) {
            (Some(author), true) => format!("author:{author}"),
            (Some(author), false) => format!("author:{author} {}", labels.join(",")),
            (None, true) => "-".to_owned(),
            (None, false) => labels.join(","),
        };
        writeln!(
            out,
            "{:<width$}  {:>6}  {:<44}  {modes}",
            tool.name,
            tokens,
            annotation_words(tool.annotations)
        )?;
    }
    let packs: Vec<&str> = tables.iter().map(|t| t.pack).collect();
    writeln!(
        out,
        "{} tools from {} ({}), {total} schema tokens in the default views",
        tools.len(),
        packs.len(),
        packs.join(", ")
    )
}
