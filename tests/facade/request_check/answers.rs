//! The answers' side of the request check (docs/results.md): each answer Prism's mock sends back
//! for a tool with a declared result, as MCP's `structuredContent` would carry it, validated
//! against the tool's `outputSchema` by the official MCP TypeScript SDK's own validator
//! (`AjvJsonSchemaValidator`, what its `Client.callTool` checks every structured result with).

use std::path::Path;
use std::process::Command;

use charter::table::{ToolDef, ToolOutput};
use serde_json::{Value, json};

/// The SDK release whose validator judges the answers.
pub const SDK: &str = "@modelcontextprotocol/sdk@1.32.2";

/// One answer to judge.
pub struct Answer {
    pub tool: &'static ToolDef,
    pub value: Value,
}

/// What a run of a tool with a declared result answered: an answer to judge, or (`Err`) text
/// where the schema promised JSON, which the SDK's client refuses outright.
pub fn answer(tool: &'static ToolDef, output: &ToolOutput) -> Option<Result<Answer, String>> {
    let schema = tool.output.schema()?;
    Some(match &output.structured {
        Some(value) => Ok(Answer {
            tool,
            value: schema.structured(value.clone()),
        }),
        None => Err(output.text.chars().take(200).collect()),
    })
}

/// The script: reads `[{tool, schema, value}]`, prints `[{tool, error}]` for each that fails.
const SCRIPT: &str = r#"
const [,, sdk, input] = process.argv;
const { AjvJsonSchemaValidator } = require(sdk + '/node_modules/@modelcontextprotocol/sdk/dist/cjs/validation/ajv-provider.js');
const fs = require('fs');
const answers = JSON.parse(fs.readFileSync(input, 'utf8'));
const validator = new AjvJsonSchemaValidator();
const compiled = new Map();
const failures = [];
for (const a of answers) {
  let check = compiled.get(a.tool);
  if (!check) {
    try { check = validator.getValidator(a.schema); } catch (e) { failures.push({ tool: a.tool, error: 'schema: ' + e.message }); continue; }
    compiled.set(a.tool, check);
  }
  const r = check(a.value);
  if (!r.valid) failures.push({ tool: a.tool, error: r.errorMessage, value: JSON.stringify(a.value).slice(0, 300) });
}
process.stdout.write(JSON.stringify({ checked: answers.length, failures }));
"#;

/// Judges every answer with the SDK's validator; returns how many were checked and each failure
/// as `(tool, what the validator said, the value)`.
pub fn judge(answers: &[&Answer], node: &Path, dir: &Path) -> (usize, Vec<(String, String)>) {
    let sdk = charter_testkit::npm::prefix("mcp-sdk-1.32.2", &[SDK], "CHARTER_MCP_SDK_PREFIX");
    let list: Vec<Value> = answers
        .iter()
        .map(|a| {
            let output = a
                .tool
                .output
                .schema()
                .expect("an answer of a tool with a result schema");
            let (open, close) = output.object_wrapper();
            let schema: Value = serde_json::from_str(&format!("{open}{}{close}", output.schema))
                .expect("a compiled result schema is JSON");
            json!({"tool": a.tool.name, "schema": schema, "value": a.value})
        })
        .collect();
    let input = dir.join("answers.json");
    std::fs::write(&input, serde_json::to_vec(&list).unwrap()).unwrap();
    let script = dir.join("validate-answers.cjs");
    std::fs::write(&script, SCRIPT).unwrap();
    let out = Command::new(node)
        .arg(&script)
        .arg(&sdk)
        .arg(&input)
        .output()
        .expect("run node on the answers");
    assert!(
        out.status.success(),
        "the SDK validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdict: Value = serde_json::from_slice(&out.stdout).expect("the validator's JSON");
    let failures = verdict["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["tool"].as_str().unwrap_or("?").to_owned(),
                format!(
                    "{} (answer {})",
                    f["error"].as_str().unwrap_or("?"),
                    f["value"].as_str().unwrap_or("")
                ),
            )
        })
        .collect();
    (verdict["checked"].as_u64().unwrap_or(0) as usize, failures)
}
