//! `RunCode` on arbitrary programs: a code-mode session over two in-process Rust tools (a read
//! that echoes its argument, a write that fails) and the compiler's fixture pack (HTTP tools sent
//! to a closed port on 127.0.0.1), with tight limits so a hostile input ends quickly.
//!
//! Input: the program text (lossy UTF-8), or, when it starts with `{`, the `RunCode` arguments
//! as the model sent them. Properties checked: nothing panics (QuickJS, the bindings, the
//! outcome's JSON and its cut); a program's answer is a tool output or a `RunCode` error
//! (validation of the arguments, or the program's own error, or a limit named); the answer's
//! text never exceeds the output limit plus its notice; the session still answers a fixed
//! program afterwards.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use charter_runtime::http::HttpExecutor;
use charter_runtime::session::{CodeLimits, CodeRunner, RUN_CODE, SessionOptions, Source};
use charter_runtime::{CallContext, CharterError, Disclosure, ToolSession};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

mod fixture {
    include!("../../tests/golden/fixture_pack.rs");
}

/// Echoes its text (read-only, idempotent: a batch of these runs concurrently, deduplicated).
#[charter::tool(read_only, idempotent)]
async fn echo(#[charter(desc = "What to echo.")] text: String) -> Result<String, String> {
    Ok(text)
}

/// Always fails, as a refused write does.
#[charter::tool]
async fn refuse(#[charter(desc = "Why.")] reason: Option<String>) -> Result<String, String> {
    Err(reason.unwrap_or_else(|| "refused".into()))
}

charter::pack!(static TOOLS = "fz", "Fuzzing tools.", [echo, refuse]);

const MAX_OUTPUT: usize = 4096;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

fn session() -> &'static ToolSession {
    static SESSION: OnceLock<ToolSession> = OnceLock::new();
    SESSION.get_or_init(|| {
        let http = HttpExecutor::builder()
            .no_proxy()
            .base_url("tracker", "http://127.0.0.1:9")
            .default_timeout(Duration::from_millis(200))
            .build()
            .expect("an executor");
        ToolSession::with_options(
            vec![Source::Table(&TOOLS), Source::Table(fixture::ALL[0])],
            SessionOptions::new()
                .with_disclosure(Disclosure::Code)
                .with_http(std::sync::Arc::new(http))
                .with_code(CodeRunner::new(CodeLimits {
                    cpu_time: Duration::from_millis(200),
                    memory_bytes: 16 << 20,
                    max_calls: 16,
                    max_output_bytes: MAX_OUTPUT,
                    ..CodeLimits::default()
                })),
        )
        .expect("a code-mode session")
    })
}

fn run(arguments: Value) -> Result<charter_runtime::ToolOutput, CharterError> {
    runtime().block_on(session().dispatch(RUN_CODE, arguments, &CallContext::new()))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let arguments = if text.starts_with('{') {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    } else {
        json!({ "code": text })
    };
    match run(arguments) {
        Ok(output) => {
            // The cut's notice is short; the answer itself is held to the limit.
            assert!(
                output.text.len() <= MAX_OUTPUT + 512,
                "an answer of {} bytes",
                output.text.len()
            );
        }
        Err(CharterError::Validation(m)) => assert!(m.contains("RunCode"), "{m}"),
        Err(CharterError::Tool(m)) => assert!(!m.is_empty()),
        Err(other) => panic!("RunCode answered {other:?}"),
    }
    let after = run(json!({ "code": "return (await fz.echo({text: 'ok'}));" }))
        .expect("the session still runs a program");
    assert_eq!(after.text, "\"ok\"", "{}", after.text);
});
