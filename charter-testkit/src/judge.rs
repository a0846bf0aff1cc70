//! The model providers' own SDKs as judges of tool definitions (docs/dialects.md): a Python
//! virtual environment under `target/python/judge` with `openai-agents`, `google-genai` and
//! `anthropic` installed pinned (`python/requirements.txt`), and `python/judge.py`, which reads
//! every schema from one JSON file and judges them all in one process: schemas by dialect
//! ([`entries`]), or tool definitions exactly as a loop sent them ([`sent_entries`]).
//!
//! Nothing is skipped: when the environment cannot be built (no `python3`, no `venv` module, no
//! PyPI) the test fails and says why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use charter_runtime::Dialect;
use charter_runtime::table::ToolDef;
use serde_json::{Value, json};

use crate::npm::workspace_root;

/// The pinned judges, one requirement a line (`python/requirements.txt`, which says what each
/// is for; `scripts/judge-tools` reads it too).
pub const REQUIREMENTS: &str = include_str!("../python/requirements.txt");

/// The requirements' package pins.
pub fn packages() -> impl Iterator<Item = &'static str> {
    REQUIREMENTS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// One dialect's verdict.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// Schemas judged.
    pub judged: usize,
    /// Schemas accepted.
    pub accepted: usize,
    /// Schemas judged as Anthropic strict tools (`anthropic-strict` entries marked `strict`).
    pub strict: usize,
    /// `tool name: problems` of each refused one.
    pub refused: Vec<String>,
}

/// The judges' Python: `target/python/judge/bin/python`, the environment created and the
/// packages installed on first use (`CHARTER_JUDGE_PYTHON` names another interpreter that has
/// them).
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("CHARTER_JUDGE_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = workspace_root().join("target/python/judge");
    let python = venv.join("bin/python");
    let marker = venv.join(format!(
        ".installed-{}",
        packages().collect::<Vec<_>>().join("-")
    ));
    if marker.is_file() {
        return python;
    }
    std::fs::create_dir_all(&venv).expect("create target/python/judge");
    // Test binaries may run at once: one builds the environment, the others wait for it.
    let lock = std::fs::File::create(workspace_root().join("target/python/.judge.lock"))
        .expect("create the judge environment's lock file");
    lock.lock().expect("lock the judge environment");
    if marker.is_file() {
        return python;
    }
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv (install python3 and python3-venv, e.g. `apt-get install python3-venv`)",
    );
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(packages()),
        "pip install of the pinned judges (PyPI must be reachable)",
    );
    std::fs::write(&marker, "").expect("mark the judge environment installed");
    python
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("the provider judges need {what}: {e}"));
    assert!(
        out.status.success(),
        "the provider judges need {what}; it failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One entry for the judges: a tool's name, description and schema in `dialect`.
pub fn entry(name: &str, description: &str, dialect: Dialect, schema: &str) -> Value {
    let schema: Value = serde_json::from_str(schema).expect("a schema text is JSON");
    json!({"name": name, "description": description, "dialect": dialect.as_str(), "schema": schema})
}

/// The judge entries of the tool definitions in a model request body, exactly as sent, each with
/// the whole definition (`sent`) for the SDKs' request types: an OpenAI chat-completions body's
/// `tools[]` (`function.parameters`; the `openai-strict` dialect when `function.strict` is true,
/// else `openai`), an Anthropic Messages body's `tools[]` (`input_schema`; `anthropic-strict`
/// judged as a strict tool when `strict` is true, else `anthropic`), a Gemini
/// `generateContent` body's `tools[].functionDeclarations[]` (`parameters`, `gemini`; null when
/// left out). Panics on a body of none of these shapes: a test that judges nothing proves nothing.
pub fn sent_entries(body: &Value) -> Vec<Value> {
    let tools = body["tools"]
        .as_array()
        .expect("the body has a tools array");
    let mut out = Vec::new();
    for tool in tools {
        if let Some(declarations) = tool["functionDeclarations"].as_array() {
            for d in declarations {
                out.push(sent(d, d, "gemini", "gemini", d.get("parameters")));
            }
        } else if tool["type"] == "function" {
            let f = &tool["function"];
            let dialect = if f["strict"] == true {
                Dialect::OpenAiStrict
            } else {
                Dialect::OpenAi
            };
            out.push(sent(
                f,
                tool,
                "openai",
                dialect.as_str(),
                f.get("parameters"),
            ));
        } else if tool.get("input_schema").is_some() {
            let strict = tool["strict"] == true;
            let dialect = if strict {
                Dialect::AnthropicStrict
            } else {
                Dialect::Anthropic
            };
            let mut entry = sent(
                tool,
                tool,
                "anthropic",
                dialect.as_str(),
                tool.get("input_schema"),
            );
            entry["strict"] = strict.into();
            out.push(entry);
        } else {
            panic!("a tool definition of no known wire shape: {tool}");
        }
    }
    out
}

/// One entry: `named` holds the name and description (the function of an OpenAI tool, else the
/// definition itself), `tool` the whole definition.
fn sent(named: &Value, tool: &Value, wire: &str, dialect: &str, schema: Option<&Value>) -> Value {
    json!({
        "name": named["name"], "description": named["description"], "dialect": dialect,
        "schema": schema, "sent": {"wire": wire, "tool": tool},
    })
}

/// Every view of every tool in every dialect, as judge entries (in `anthropic-strict`, marked
/// `strict` where the view goes strict, as `anthropic::run` sends it).
pub fn entries<'a>(tools: impl IntoIterator<Item = &'a ToolDef>) -> Vec<Value> {
    let mut out = Vec::new();
    for tool in tools {
        for view in tool.views {
            for d in Dialect::ALL {
                let mut e = entry(tool.name, tool.description, d, view.schema_in(d));
                if d == Dialect::AnthropicStrict {
                    e["strict"] = view.anthropic_strict().is_some().into();
                }
                out.push(e);
            }
        }
    }
    out
}

/// Runs the judges over `entries` (written to `scratch`, a file path) and returns each
/// dialect's verdict (each group's, for entries with a `group` member).
pub fn judge(entries: &[Value], scratch: &Path) -> BTreeMap<String, Verdict> {
    std::fs::write(
        scratch,
        serde_json::to_vec(entries).expect("entries are JSON"),
    )
    .expect("write the judges' input");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/judge.py");
    let out = Command::new(python())
        .arg(script)
        .arg(scratch)
        .output()
        .expect("run the judges");
    assert!(
        out.status.success(),
        "the judges failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("the judges print JSON");
    let mut verdicts = BTreeMap::new();
    for (dialect, v) in report.as_object().expect("a JSON object") {
        let refused = v["refused"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| format!("{}: {}", r["name"].as_str().unwrap_or("?"), r["problems"]))
            .collect();
        verdicts.insert(
            dialect.clone(),
            Verdict {
                judged: v["judged"].as_u64().unwrap_or(0) as usize,
                accepted: v["accepted"].as_u64().unwrap_or(0) as usize,
                strict: v["strict"].as_u64().unwrap_or(0) as usize,
                refused,
            },
        );
    }
    verdicts
}
