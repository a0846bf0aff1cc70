//! The GraphQL packs' answers (docs/results.md, "GraphQL tools"): every tool of linear and
//! shopify is called with arguments generated from its own schema, through the real executor,
//! against a server on 127.0.0.1 that executes the tool's document on the pack's vendored schema
//! with `@graphql-tools/mock` (npm: each field answered by its type, lists of two, an
//! interface or union as one of its concrete types, seeded). Each answer is judged against the
//! tool's `outputSchema` by the MCP SDK's validator, as the OpenAPI packs' are, and the same
//! calls are made again by the SDK's own `Client` over charter's MCP server (`sdk_client`). The server is
//! graphql-js itself, so a document or variables the schema refuses come back as GraphQL
//! errors, and fail the test too.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use charter::CallContext;
use charter::table::{Exec, Table};

use super::generate::{Gen, Variant};
use super::{answers, sdk_client};

/// GraphQL enums the packs take as plain strings, their format in the description (`ISO 3166-1
/// alpha-2 country code, e.g. US`) rather than the enum's 250 or 160 values in every schema
/// that reaches them: a generated string is not one of them, and the schema refuses it. A call
/// refused for one of these alone is counted, not failed.
const LOOSE_ENUMS: &[&str] = &["CountryCode", "CurrencyCode"];

/// Whether a refusal is only a generated string outside one of [`LOOSE_ENUMS`].
/// The executor's message may end cut (`…`): its last part then only needs to be a variable's.
fn loose(why: &str) -> bool {
    let Some((_, errors)) = why.split_once("GraphQL errors: ") else {
        return false;
    };
    let parts: Vec<&str> = errors.split("Variable \"").skip(1).collect();
    let cut = why.ends_with('…');
    !parts.is_empty()
        && parts.iter().enumerate().all(|(i, part)| {
            let named = part
                .split_once("does not exist in \"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(name, _)| name);
            match named {
                Some(name) => LOOSE_ENUMS.contains(&name),
                None => cut && i == parts.len() - 1,
            }
        })
}

/// The npm packages of the mock server.
const PACKAGES: &[&str] = &["graphql@16.15.0", "@graphql-tools/mock@9.1.14"];

/// The mock server: argv `prefix schema.graphql.gz seed`; prints its port, then answers every
/// POST of `{query, variables}` with graphql-js's execution on the mocked schema.
const SERVER: &str = r#"
const [,, prefix, schemaPath, seedText] = process.argv;
const need = m => require(prefix + '/node_modules/' + m);
const { buildSchema, graphql, isScalarType, specifiedScalarTypes } = need('graphql');
const { addMocksToSchema } = need('@graphql-tools/mock');
const fs = require('fs'), zlib = require('zlib'), http = require('http');
// A seeded generator in place of Math.random: the mock picks concrete types and values with it.
let seed = Number(seedText) >>> 0;
Math.random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const raw = fs.readFileSync(schemaPath);
const sdl = (schemaPath.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
const schema = buildSchema(sdl, { assumeValidSDL: true });
const builtIn = new Set(specifiedScalarTypes.map(s => s.name));
const mocks = {};
for (const type of Object.values(schema.getTypeMap())) {
  if (isScalarType(type) && !builtIn.has(type.name) && !type.name.startsWith('__')) {
    // A JSON scalar is any value: an object here. Every other custom scalar is text.
    mocks[type.name] = /json/i.test(type.name) ? () => ({ mocked: true }) : () => 'charter-' + type.name;
  }
}
const mocked = addMocksToSchema({ schema, mocks });
// A mutation's `userErrors` (Shopify's `...UserErrors` too) answered empty: the success path.
// A refused mutation is the wire tests' subject (tests/facade/wire/shopify.rs).
const accepted = value => {
  if (Array.isArray(value)) { value.forEach(accepted); return; }
  if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      if (/userErrors$/i.test(key) && Array.isArray(member)) value[key] = [];
      else accepted(member);
    }
  }
};
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', c => { body += c; });
  req.on('end', async () => {
    let result;
    try {
      const { query, variables } = JSON.parse(body);
      result = await graphql({ schema: mocked, source: query, variableValues: variables });
      accepted(result.data);
    } catch (e) {
      result = { errors: [{ message: 'mock server: ' + e.message }] };
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(result));
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
"#;

/// A running mock server, killed when dropped.
struct Mock {
    child: Child,
    base: String,
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(node: &Path, prefix: &Path, script: &Path, schema: &Path, seed: u64) -> Mock {
    let mut child = Command::new(node)
        .arg(script)
        .arg(prefix)
        .arg(schema)
        .arg(seed.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the GraphQL mock server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("its stdout"))
        .read_line(&mut line)
        .expect("the mock server's port");
    let port: u16 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("the mock server printed {line:?}, not its port"));
    Mock {
        child,
        base: format!("http://127.0.0.1:{port}/graphql"),
    }
}

/// The vendored schema of a GraphQL pack (`graphql_schema:` in `packs/<pack>.yaml`).
fn schema_of(pack: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(super::root().join(format!("packs/{pack}.yaml"))).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("graphql_schema:"))
        .unwrap_or_else(|| panic!("{pack} names no graphql_schema"));
    super::root().join("packs").join(line.trim())
}

#[test]
fn every_graphql_answer_fits_its_result() {
    let tables: Vec<&'static Table> = charter::packs::ALL
        .iter()
        .copied()
        .filter(|t| {
            t.tools
                .iter()
                .any(|d| matches!(d.exec, Exec::Http(r) if r.graphql.is_some()))
        })
        .collect();
    assert!(!tables.is_empty(), "no GraphQL pack is shipped");
    let prefix = charter_testkit::npm::prefix(
        "graphql-mock-9.1.14",
        PACKAGES,
        "CHARTER_GRAPHQL_MOCK_PREFIX",
    );
    let node = charter_testkit::npm::node(&prefix);
    let dir = super::root().join("target/request-check/graphql");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("mock-server.cjs");
    std::fs::write(&script, SERVER).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut all = Vec::new();
    let mut refused = Vec::new();
    let mut untyped = Vec::new();
    let mut sdk_refused: Vec<(String, String)> = Vec::new();
    let mut sdk_missing = 0;
    for table in &tables {
        let mock = start(
            &node,
            &prefix,
            &script,
            &schema_of(table.pack),
            super::DEFAULT_SEED,
        );
        let http = super::executor(table, &mock.base);
        let session = super::session(table, http.clone());
        let ctx = CallContext::new();
        let mut again = Vec::new();
        runtime.block_on(async {
            for tool in table.tools {
                let Exec::Http(route) = tool.exec else {
                    continue;
                };
                if route.graphql.is_none() {
                    continue;
                }
                let schema = super::with_root_groups(tool);
                for (i, variant) in [Variant::Minimal, Variant::Full, Variant::Edge]
                    .into_iter()
                    .enumerate()
                {
                    let seed = super::mix(super::DEFAULT_SEED, tool.name, i);
                    let arguments = Gen::new(&schema, variant, seed).value(&schema, 0);
                    match session.dispatch(tool.name, arguments.clone(), &ctx).await {
                        Ok(out) => match answers::answer(tool, &out) {
                            Some(Ok(answer)) => {
                                again.push(sdk_client::Call {
                                    tool: tool.name,
                                    arguments,
                                });
                                all.push(answer)
                            }
                            Some(Err(text)) => untyped.push((tool.name, text)),
                            None => {}
                        },
                        Err(e) => refused.push((tool.name, arguments.to_string(), e.to_string())),
                    }
                }
            }
            // The same calls from the SDK's client over MCP (the mock answers anew, as seeded).
            let replay = sdk_client::replay(table, http, &again, &node, &dir).await;
            println!(
                "SDK client over MCP, {}: {} tools listed, {} of {} calls answered, {} refused",
                table.pack,
                replay.listed,
                replay.called,
                again.len(),
                replay.failures.len()
            );
            for (tool, why) in &replay.failures {
                sdk_refused.push((tool.clone(), why.clone()));
            }
            sdk_missing += again.len() - replay.called.min(again.len());
        });
    }
    let (loosely, refused): (Vec<_>, Vec<_>) =
        refused.into_iter().partition(|(_, _, why)| loose(why));
    let judged: Vec<&answers::Answer> = all.iter().collect();
    let (checked, invalid) = answers::judge(&judged, &node, &dir);
    for (tool, arguments, why) in refused.iter().take(50) {
        println!(
            "REFUSED {tool} {}\n  {}",
            super::clip(arguments, 300),
            super::clip(why, 2000)
        );
    }
    for (tool, why) in invalid.iter().take(50) {
        println!("INVALID ANSWER {tool}: {}", super::clip(why, 400));
    }
    for (tool, text) in &untyped {
        println!("TEXT ANSWER {tool}: {}", super::clip(text, 200));
    }
    println!(
        "GraphQL answers judged against their outputSchema: {checked} over {} packs, invalid: {}, \
         refused calls: {} (and {} refused for a string outside {LOOSE_ENUMS:?})",
        tables.len(),
        invalid.len(),
        refused.len(),
        loosely.len()
    );
    for (tool, why) in sdk_refused.iter().take(50) {
        println!("SDK CLIENT REFUSED {tool}: {}", super::clip(why, 400));
    }
    assert!(checked > 0, "no GraphQL answer was judged");
    assert_eq!(
        (sdk_refused.len(), sdk_missing),
        (0, 0),
        "the SDK's client over MCP refused answers, or did not make every call (see above)"
    );
    assert_eq!(
        (invalid.len(), untyped.len(), refused.len()),
        (0, 0, 0),
        "GraphQL answers that do not match their outputSchema, text answers, or calls the \
         executor or the schema refused (see above)"
    );
}
