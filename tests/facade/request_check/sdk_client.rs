//! The same calls again, end to end (docs/results.md): each pack's tables served by charter's
//! MCP server over streamable HTTP on 127.0.0.1, and the official MCP TypeScript SDK's `Client`
//! (npm `@modelcontextprotocol/sdk`) listing the tools and calling every one that answered in
//! the first run, with the same arguments. The recorder answers each request with the body it
//! gave the same request before, so the server fits and carries the same answers. The SDK's
//! `Client.callTool` validates every `structuredContent` against the tool's `outputSchema`
//! itself, and refuses a result without one where the tool declares it: any refusal fails.

use std::path::Path;
use std::sync::Arc;

use charter::http::HttpExecutor;
use charter::table::Table;
use charter_mcp::{HttpOptions, McpServer, ServerOptions};
use serde_json::{Value, json};

/// One call of the first run to make again.
pub struct Call {
    pub tool: &'static str,
    pub arguments: Value,
}

/// The client: argv `sdk url calls.json`; prints `{listed, called, failures}`.
const SCRIPT: &str = r#"
const [,, sdk, url, input] = process.argv;
const need = p => require(sdk + '/node_modules/@modelcontextprotocol/sdk/dist/cjs/' + p);
const { Client } = need('client/index.js');
const { StreamableHTTPClientTransport } = need('client/streamableHttp.js');
const fs = require('fs');
(async () => {
  const calls = JSON.parse(fs.readFileSync(input, 'utf8'));
  const client = new Client({ name: 'charter-request-check', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  // Listing caches each tool's outputSchema: callTool validates against it.
  let listed = 0, cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    listed += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor);
  const failures = [];
  let called = 0;
  for (const c of calls) {
    try {
      const result = await client.callTool({ name: c.tool, arguments: c.arguments });
      called++;
      if (result.isError) failures.push({ tool: c.tool, error: 'isError: ' + JSON.stringify(result.content).slice(0, 300) });
    } catch (e) {
      failures.push({ tool: c.tool, error: String(e.message || e).slice(0, 600) });
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify({ listed, called, failures }));
})().catch(e => { console.error(e); process.exit(1); });
"#;

/// What the client saw: tools listed, calls answered, and each refusal as `(tool, why)`.
pub struct Replay {
    pub listed: usize,
    pub called: usize,
    pub failures: Vec<(String, String)>,
}

/// Serves `table` over `http` and has the SDK's client make `calls`.
pub async fn replay(
    table: &'static Table,
    http: Arc<HttpExecutor>,
    calls: &[Call],
    node: &Path,
    dir: &Path,
) -> Replay {
    let server = McpServer::new(&[table], ServerOptions::new().with_http(http))
        .expect("a server over the pack");
    let bound = server
        .bind_http("127.0.0.1:0", HttpOptions::new())
        .await
        .expect("bind the MCP server");
    let url = bound.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bound.run_until(async {
        let _ = stopped.await;
    }));
    let sdk = charter_testkit::npm::prefix(
        "mcp-sdk-1.32.2",
        &[super::answers::SDK],
        "CHARTER_MCP_SDK_PREFIX",
    );
    let list: Vec<Value> = calls
        .iter()
        .map(|c| json!({"tool": c.tool, "arguments": c.arguments}))
        .collect();
    let input = dir.join(format!("sdk-calls-{}.json", table.pack));
    std::fs::write(&input, serde_json::to_vec(&list).unwrap()).unwrap();
    let script = dir.join("sdk-client.cjs");
    std::fs::write(&script, SCRIPT).unwrap();
    let out = tokio::process::Command::new(node)
        .arg(&script)
        .arg(&sdk)
        .arg(&url)
        .arg(&input)
        .output()
        .await
        .expect("run the SDK's client");
    let _ = stop.send(());
    let _ = serving.await;
    assert!(
        out.status.success(),
        "the SDK's client failed on {}: {}",
        table.pack,
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("the client's JSON");
    let count = |key: &str| seen[key].as_u64().unwrap_or(0) as usize;
    Replay {
        listed: count("listed"),
        called: count("called"),
        failures: seen["failures"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| {
                (
                    f["tool"].as_str().unwrap_or("?").to_owned(),
                    f["error"].as_str().unwrap_or("?").to_owned(),
                )
            })
            .collect(),
    }
}
