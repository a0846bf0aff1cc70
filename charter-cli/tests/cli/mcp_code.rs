//! Code mode over the real binary (`charter mcp --progressive=code`, docs/code-mode.md): rmcp's
//! client over stdio and streamable HTTP, on 2025-11-25 and 2026-07-28, finding GitHub pack
//! tools with ToolSearch and calling them from one RunCode program against a 127.0.0.1 stub that
//! records each request; then hostile programs, each stopped at the limit its flag sets, with
//! the server answering the next call.

use crate::common;

use common::*;
use rmcp::RoleClient;
use rmcp::model::{CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use serde_json::{Value, json};

type Client = RunningService<RoleClient, Watcher>;

/// The limits the binary is started with: small, so the hostile programs hit them quickly.
const LIMITS: [&str; 10] = [
    "--code-cpu-ms",
    "300",
    "--code-memory",
    "16777216",
    "--code-max-calls",
    "8",
    "--code-max-output",
    "4000",
    "--code-max-programs",
    "4",
];

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    call_tool(client, name, arguments).await
}

async fn run(client: &Client, code: &str) -> CallToolResult {
    call(client, "RunCode", json!({ "code": code })).await
}

/// Connects over stdio or HTTP on `revision`, code mode with [`LIMITS`]. Returns the HTTP child
/// to keep it alive.
async fn connect(
    http: bool,
    revision: ProtocolVersion,
    stub: &Stub,
) -> (Client, Option<HttpChild>) {
    let env = [
        ("CHARTER_GITHUB_BASE_URL", stub.base.as_str()),
        ("GITHUB_TOKEN", TOKEN),
    ];
    let mut packs = vec!["--pack", "github", "--progressive=code"];
    packs.extend_from_slice(&LIMITS);
    connect_on(http, revision, &packs, &env, "code mode").await
}

/// Asserts `result` is an error whose text contains `needle`, and that the server still runs a
/// program afterwards.
async fn stopped(client: &Client, result: CallToolResult, needle: &str) {
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(true), "expected an error: {text}");
    assert!(text.contains(needle), "expected `{needle}` in: {text}");
    let after = run(client, "return 1 + 1").await;
    assert_ne!(after.is_error, Some(true), "{}", text_of(&after));
    assert_eq!(text_of(&after), "2");
}

/// The whole scenario: the list, ToolSearch's signatures, one program's batch, a tool error
/// caught in the program, then the hostile programs.
async fn code_mode(http: bool, revision: ProtocolVersion) {
    let stub = Stub::start_json(issues_fixture()).await;
    let (client, _child) = connect(http, revision, &stub).await;
    assert_eq!(names(&client).await, ["ToolSearch", "RunCode"]);

    // ToolSearch declares its best match as a program calls it and names the others on one line;
    // `select:` declares a listed one.
    let found = call(
        &client,
        "ToolSearch",
        json!({"query": "list repository issues", "max_results": 3}),
    )
    .await;
    assert_ne!(found.is_error, Some(true), "{}", text_of(&found));
    let text = text_of(&found);
    let listed = text
        .lines()
        .find_map(|line| line.strip_prefix("Also found: "))
        .unwrap_or_else(|| panic!("no further matches named: {text}"));
    assert!(
        listed.split(", ").any(|name| name == "github_issues_list"),
        "{text}"
    );
    let declared = call(
        &client,
        "ToolSearch",
        json!({"query": "select:github_issues_list"}),
    )
    .await;
    assert!(
        text_of(&declared).contains("\ngithub.issues_list(args: {"),
        "{}",
        text_of(&declared)
    );
    assert_eq!(names(&client).await, ["ToolSearch", "RunCode"]);

    // One program, one batch: the identical read runs once; only the answer comes back.
    let program = r#"
        const [a, b, c] = await Promise.all([
          github.issues_list({owner: "octo", repo: "hello", state: "open"}),
          github.issues_list({owner: "octo", repo: "world"}),
          github.issues_list({owner: "octo", repo: "hello", state: "open"}),
        ]);
        return {titles: a.map(i => i.title), count: a.length + b.length + c.length};
    "#;
    let answer = run(&client, program).await;
    assert_ne!(answer.is_error, Some(true), "{}", text_of(&answer));
    let answer: Value = serde_json::from_str(&text_of(&answer)).unwrap();
    assert_eq!(answer, json!({"titles": ["Crash on start"], "count": 3}));
    let seen = stub.requests();
    let mut paths: Vec<&str> = seen.iter().map(|r| r.path.as_str()).collect();
    paths.sort();
    assert_eq!(
        paths,
        ["/repos/octo/hello/issues", "/repos/octo/world/issues"],
        "the duplicate ran once"
    );
    assert!(
        seen.iter()
            .all(|r| r.header("authorization") == Some(format!("Bearer {TOKEN}").as_str()))
    );

    // QuickJS's Math and number formatting: each result within two units in the last place of
    // what Rust's own gives this process.
    let math = run(
        &client,
        "return [Math.sin(1), Math.cos(1), Math.tan(1), Math.asin(0.5), Math.acos(0.5), \
         Math.atan(1), Math.atan2(1, 2), Math.sinh(1), Math.cosh(1), Math.tanh(1), \
         Math.asinh(1), Math.acosh(2), Math.atanh(0.5), Math.exp(1), Math.expm1(1e-10), \
         Math.log(10), Math.log10(1000), Math.log1p(1e-10), Math.log2(8), Math.hypot(3, 4), \
         Math.pow(2, 0.5), 2 ** 10, Math.round(2.5), Math.round(-2.5), \
         Number((1234.5678).toFixed(2)), Number((0.1).toPrecision(17)), \
         Number((123.456e300).toExponential(5))]",
    )
    .await;
    let math: Vec<f64> =
        serde_json::from_str(&text_of(&math)).unwrap_or_else(|e| panic!("{e}: {}", text_of(&math)));
    let expected = [
        1f64.sin(),
        1f64.cos(),
        1f64.tan(),
        0.5f64.asin(),
        0.5f64.acos(),
        1f64.atan(),
        1f64.atan2(2.0),
        1f64.sinh(),
        1f64.cosh(),
        1f64.tanh(),
        1f64.asinh(),
        2f64.acosh(),
        0.5f64.atanh(),
        1f64.exp(),
        1e-10f64.exp_m1(),
        10f64.ln(),
        1000f64.log10(),
        1e-10f64.ln_1p(),
        8f64.log2(),
        3f64.hypot(4.0),
        2f64.powf(0.5),
        1024.0,
        3.0,
        -2.0,
        1234.57,
        0.1,
        1.23456e302,
    ];
    assert_eq!(math.len(), expected.len());
    for (i, (got, want)) in math.iter().zip(expected).enumerate() {
        assert!(
            (got - want).abs() <= 2.0 * f64::EPSILON * want.abs(),
            "result {i}: {got} against {want}"
        );
    }

    // A refused call is an exception with the direct call's message, which the program catches.
    let bad = json!({"owner": 5, "repo": "hello", "extra": true});
    let direct = call(&client, "github_issues_list", bad.clone()).await;
    assert_eq!(direct.is_error, Some(true));
    let caught = run(
        &client,
        &format!("try {{ await github.issues_list({bad}); }} catch (e) {{ return e.message; }}"),
    )
    .await;
    assert_ne!(caught.is_error, Some(true), "{}", text_of(&caught));
    let message: String = serde_json::from_str(&text_of(&caught)).unwrap();
    assert!(
        text_of(&direct).contains(&message) && message.contains("/owner"),
        "{message} against {}",
        text_of(&direct)
    );
    assert_eq!(stub.requests().len(), 2, "nothing sent for refused calls");

    // A syntax error names line and column.
    let syntax = run(&client, "const x = 1;\nreturn x +;").await;
    stopped(&client, syntax, "2:").await;

    // Hostile programs: each stops at its limit, and the server answers the next call.
    stopped(
        &client,
        run(&client, "while (true) {}").await,
        "CPU-time limit",
    )
    .await;
    let bomb = "const a = []; while (true) a.push('x'.repeat(1 << 20) + a.length); return 1";
    stopped(&client, run(&client, bomb).await, "memory limit").await;
    let flood = r#"
        const all = [];
        for (let i = 0; i < 100; i++) all.push(github.issues_list({owner: "octo", repo: "r" + i}));
        await Promise.all(all);
    "#;
    stopped(&client, run(&client, flood).await, "tool-call limit").await;
    assert_eq!(stub.requests().len(), 2, "no call of the flood was sent");
    let chatter = "for (let i = 0; i < 100000; i++) console.log('line ' + i); return 1";
    stopped(&client, run(&client, chatter).await, "output limit").await;
    stopped(
        &client,
        run(&client, "function f() { return f() + 1 } return f()").await,
        "Maximum call stack size exceeded",
    )
    .await;

    // A huge answer is cut at the output limit, with a notice.
    let huge = run(&client, "return 'x'.repeat(100000)").await;
    let text = text_of(&huge);
    assert!(
        text.len() <= 4000 && text.contains("[cut:"),
        "{}",
        text.len()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdio_2025_11_25_code_mode() {
    code_mode(false, ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn stdio_2026_07_28_code_mode() {
    code_mode(false, ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test]
async fn http_2026_07_28_code_mode() {
    code_mode(true, ProtocolVersion::V_2026_07_28).await;
}
