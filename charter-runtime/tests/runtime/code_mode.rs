//! Code mode (`Disclosure::Code`): the fixed list, ToolSearch's signatures, and `RunCode`
//! programs: their calls through the direct call's path and the scheduler, their answers and
//! errors, and the sandbox's limits against hostile programs.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use charter_runtime::session::{
    CodeLimits, CodeRunner, RUN_CODE, SessionOptions, Source, TOOL_SEARCH, ToolSession,
};
use charter_runtime::table::BoxFuture;
use charter_runtime::{CallContext, CharterError, Disclosure, Table, ToolOutput};
use charter_testkit as testing;
use serde_json::{Value, json};

static READS: AtomicUsize = AtomicUsize::new(0);
static WRITES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn read<'a>(args: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        READS.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(ToolOutput::json(
            json!({"key": args["key"], "text": "hello"}),
        ))
    })
}

fn write<'a>(args: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        let key = args["key"].as_str().unwrap_or_default().to_owned();
        tokio::time::sleep(Duration::from_millis(5 * (3 - key.len().min(3)) as u64)).await;
        WRITES.lock().unwrap().push(key);
        Ok(ToolOutput::text("written"))
    })
}

fn fail<'a>(_: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move { Err(CharterError::Tool("the store is read-only today".into())) })
}

fn crm() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table_with(
            json!({
                "pack": "crm",
                "description": "A small CRM.",
                "tools": [
                    {"name": "contacts_create", "description": "Create a contact.",
                     "params": {
                        "name": {"type": "string", "required": true, "description": "Full name."},
                        "owner": {"type": "string", "description": "Owner id."},
                        "account": {"type": "string", "description": "Account id."},
                        "tier": {"type": "string", "modes": ["pro"], "description": "Pro only."}}},
                    {"name": "notes_read", "description": "Read a note.", "handler": "read",
                     "annotations": {"read_only": true, "idempotent": true},
                     "params": {"key": {"type": "string", "required": true, "description": "The note key."}}},
                    {"name": "notes_write", "description": "Write a note.", "handler": "write",
                     "params": {"key": {"type": "string", "required": true, "description": "The note key."}}},
                    {"name": "notes_lock", "description": "Lock the notes.", "handler": "fail",
                     "params": {}}
                ]
            }),
            &[("read", read), ("write", write), ("fail", fail)],
        )
    })
}

fn session_with(limits: CodeLimits, mode: Option<&str>) -> ToolSession {
    let mut options = SessionOptions::new()
        .with_disclosure(Disclosure::Code)
        .with_code(CodeRunner::new(limits));
    if let Some(mode) = mode {
        options = options.with_mode(mode);
    }
    let mut session = ToolSession::with_options(vec![Source::Table(crm())], options).unwrap();
    session
        .pin("crm_contacts_create", "owner", json!("u_1"))
        .unwrap();
    session
        .from_context("crm_contacts_create", "account", "account")
        .unwrap();
    session
}

fn session() -> ToolSession {
    session_with(CodeLimits::default(), None)
}

async fn run(session: &ToolSession, code: &str) -> Result<ToolOutput, CharterError> {
    let ctx = CallContext::new().with_value("account", json!("acct_9"));
    session
        .dispatch(RUN_CODE, json!({ "code": code }), &ctx)
        .await
}

async fn ok(session: &ToolSession, code: &str) -> Value {
    match run(session, code).await {
        Ok(output) => output.structured.unwrap_or(Value::String(output.text)),
        Err(error) => panic!("the program failed: {error}"),
    }
}

async fn err(session: &ToolSession, code: &str) -> String {
    match run(session, code).await {
        Ok(output) => panic!("the program answered: {}", output.text),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_list_is_tool_search_and_run_code_every_turn() {
    let session = session();
    let names: Vec<&str> = session.visible().iter().map(|t| t.name).collect();
    assert_eq!(names, [TOOL_SEARCH, RUN_CODE]);
    assert_eq!(session.disclosure(), Disclosure::Code);
    let search = session.tool_search().unwrap();
    assert!(
        search.description.contains("RunCode"),
        "{}",
        search.description
    );
    // One line per pack, not the names: a program calls only what a search declared.
    assert!(
        search
            .description
            .ends_with("\n\nPacks:\n- crm: A small CRM (4 tools)"),
        "{}",
        search.description
    );
    // The description says once what each query form does; the schema does not say it again.
    assert!(
        search
            .description
            .contains("`select:name_a,name_b` declares")
    );
    assert!(
        !search.schema.contains("exactly those tools"),
        "{}",
        search.schema
    );
    assert!(session.is_callable("crm_notes_read"));
}

#[tokio::test]
async fn tool_search_answers_with_how_a_program_calls_each_tool() {
    let session = session();
    let answer = session
        .dispatch(
            TOOL_SEARCH,
            json!({"query": "select:crm_notes_read,crm_nope"}),
            &CallContext::new(),
        )
        .await
        .unwrap();
    // The view's TypeScript signature from the table, after the description and access.
    assert!(
        answer.text.contains(
            "/** Read a note. */\ncrm.notes_read(args: {\n  /** The note key. */ key: string;\n}): Promise<any>"
        ),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("Unknown: crm_nope"), "{}", answer.text);
    // Nothing loads: the list stays as it was.
    assert_eq!(session.visible().len(), 2);
    // The pinned and from-context fields are not offered.
    let create = session
        .dispatch(
            TOOL_SEARCH,
            json!({"query": "select:crm_contacts_create"}),
            &CallContext::new(),
        )
        .await
        .unwrap();
    assert!(
        create.text.ends_with(
            "crm.contacts_create(args: {\n  /** Full name. */ name: string;\n  /** Pro only. */ tier?: string;\n}): Promise<any>"
        ),
        "{}",
        create.text
    );
    // Keywords: the best match declared, the others named on one line.
    let found = session
        .dispatch(TOOL_SEARCH, json!({"query": "note"}), &CallContext::new())
        .await
        .unwrap();
    let parts: Vec<&str> = found.text.split("\n\n").collect();
    assert_eq!(parts.len(), 2, "{}", found.text);
    assert!(
        parts[0].contains("(args: {\n  /** The note key. */ key: string;\n}): Promise<any>"),
        "{}",
        found.text
    );
    let listed = parts[1]
        .strip_prefix("Also found: ")
        .unwrap_or_else(|| panic!("{}", found.text));
    let listed: Vec<&str> = listed.split(", ").collect();
    assert!(!listed.is_empty(), "{}", found.text);
    for name in &listed {
        assert!(name.starts_with("crm_notes_"), "{name}");
        let (_, tool) = name.split_once('_').unwrap();
        assert!(
            !parts[0].contains(&format!("crm.{tool}(")),
            "{name} declared too"
        );
    }
    assert!(
        listed.contains(&"crm_notes_write") || parts[0].contains("crm.notes_write("),
        "{}",
        found.text
    );
}

#[tokio::test]
async fn a_program_calls_tools_and_returns_json() {
    let session = session();
    let before = READS.load(Ordering::SeqCst);
    let value = ok(
        &session,
        r#"
        const [a, b, c] = await Promise.all([
          crm.notes_read({ key: "x" }),
          crm.notes_read({ key: "x" }),
          crm.notes_read({ key: "y", unused: undefined }),
        ]);
        return { a: a.key, same: a.key === b.key, c: c.key, text: c.text };
        "#,
    )
    .await;
    assert_eq!(
        value,
        json!({"a": "x", "same": true, "c": "y", "text": "hello"})
    );
    // One concurrent batch of read-only idempotent calls: the two identical reads ran once.
    assert_eq!(READS.load(Ordering::SeqCst) - before, 2);
}

#[tokio::test]
async fn calls_of_tools_that_change_things_keep_their_order() {
    let session = session();
    WRITES.lock().unwrap().clear();
    // Shorter keys sleep longer: run at once, they would finish in the other order.
    let value = ok(
        &session,
        r#"const done = await Promise.all(["a", "bb", "ccc"].map(key => crm.notes_write({ key })));
           return done;"#,
    )
    .await;
    assert_eq!(value, json!(["written", "written", "written"]));
    assert_eq!(*WRITES.lock().unwrap(), ["a", "bb", "ccc"]);
}

#[tokio::test]
async fn calls_go_through_the_direct_calls_path() {
    let session = session();
    // The pin and the context value are merged in; the model cannot set either.
    let created = ok(
        &session,
        r#"return await crm.contacts_create({ name: "Ada" });"#,
    )
    .await;
    assert_eq!(
        created,
        json!({"name": "Ada", "owner": "u_1", "account": "acct_9"})
    );
    let direct = session
        .dispatch(
            "crm_contacts_create",
            json!({"name": "Ada", "owner": "u_2"}),
            &CallContext::new().with_value("account", json!("acct_9")),
        )
        .await
        .unwrap_err()
        .to_string();
    // A tool error is an exception carrying the direct call's message, catchable.
    let caught = ok(
        &session,
        r#"try { await crm.contacts_create({ name: "Ada", owner: "u_2" }); return "no"; }
           catch (e) { return { message: e.message, tool: e.tool }; }"#,
    )
    .await;
    assert_eq!(
        caught,
        json!({"message": direct, "tool": "crm_contacts_create"})
    );
    // The mode hides `tier` (no mode given: the widest view shows it; a mode without it does not).
    let hidden = session_with(CodeLimits::default(), Some("free"));
    let refused = err(
        &hidden,
        r#"return await crm.contacts_create({ name: "Ada", tier: "gold" });"#,
    )
    .await;
    assert!(refused.contains("/tier"), "{refused}");
}

#[tokio::test]
async fn an_uncaught_error_is_the_result_with_its_line() {
    let session = session();
    let message = err(
        &session,
        "const a = 1;\nawait crm.notes_lock({});\nreturn a;",
    )
    .await;
    assert!(
        message.starts_with("Uncaught Error: the store is read-only today"),
        "{message}"
    );
    assert!(message.contains("line 2:"), "{message}");
    let thrown = err(&session, "\n\nthrow new TypeError('bad input');").await;
    assert!(
        thrown.starts_with("Uncaught TypeError: bad input"),
        "{thrown}"
    );
    assert!(thrown.contains("line 3:"), "{thrown}");
}

#[tokio::test]
async fn a_syntax_error_names_line_and_column() {
    let session = session();
    let message = err(&session, "const a = 1;\nreturn a +;\n").await;
    assert!(message.starts_with("SyntaxError at line 2:"), "{message}");
}

#[tokio::test]
async fn console_lines_come_with_the_result() {
    let session = session();
    let value = ok(
        &session,
        r#"console.log("found", 3, { a: 1 }); console.error(new Error("odd")); return [1, 2];"#,
    )
    .await;
    assert_eq!(
        value,
        json!({"console": ["found 3 {\"a\":1}", "Error: odd"], "result": [1, 2]})
    );
    assert_eq!(ok(&session, "").await, Value::Null);
}

#[tokio::test]
async fn a_program_waiting_on_nothing_is_told_so() {
    let message = err(&session(), "await new Promise(() => {}); return 1;").await;
    assert!(message.contains("nothing will settle"), "{message}");
}

#[tokio::test]
async fn calls_not_awaited_still_run_before_the_answer() {
    let session = session();
    WRITES.lock().unwrap().clear();
    let value = ok(
        &session,
        r#"crm.notes_write({ key: "late" }); return "done";"#,
    )
    .await;
    assert_eq!(value, json!("done"));
    assert_eq!(*WRITES.lock().unwrap(), ["late"]);
}

#[tokio::test]
async fn bad_arguments_of_run_code_are_refused_like_any_call() {
    let session = session();
    let ctx = CallContext::new();
    let message = session
        .dispatch(RUN_CODE, json!({"program": "return 1"}), &ctx)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("Invalid arguments for `RunCode`"),
        "{message}"
    );
    assert!(message.contains("/code"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// The sandbox against hostile programs: each stopped with the error naming its limit.

fn tight() -> CodeLimits {
    CodeLimits {
        cpu_time: Duration::from_millis(300),
        memory_bytes: 16 * 1024 * 1024,
        max_calls: 20,
        max_output_bytes: 4096,
        max_programs: 8,
    }
}

#[tokio::test]
async fn an_endless_loop_stops_at_the_cpu_time_limit() {
    let session = session_with(tight(), None);
    for code in [
        "while (true) {}",
        "for (;;) { try { while (true) {} } catch (e) {} }",
        "/(a+)+$/.test('a'.repeat(40) + 'b');",
    ] {
        let message = err(&session, code).await;
        assert!(message.contains("CPU-time limit"), "{code}: {message}");
        assert!(message.contains("300 ms"), "{message}");
    }
}

#[tokio::test]
async fn deep_recursion_is_a_stack_error() {
    let session = session_with(tight(), None);
    let message = err(
        &session,
        "function f(n) { return f(n + 1) + 1; }\nreturn f(0);",
    )
    .await;
    assert!(
        message.starts_with("Uncaught RangeError: Maximum call stack size exceeded"),
        "{message}"
    );
    assert!(message.contains("stack is"), "{message}");
}

#[tokio::test]
async fn a_huge_allocation_stops_at_the_memory_limit() {
    let session = session_with(tight(), None);
    for code in [
        "const a = []; while (true) a.push(new Array(1e5).fill(1));",
        "return 'x'.repeat(2 ** 26).length;",
        "return new Array(2 ** 24).fill(0).length;",
    ] {
        let message = err(&session, code).await;
        assert!(message.contains("memory limit"), "{code}: {message}");
    }
}

#[tokio::test]
async fn a_flood_of_tool_calls_stops_at_the_call_limit() {
    let session = session_with(tight(), None);
    let before = READS.load(Ordering::SeqCst);
    let message = err(
        &session,
        "const all = []; for (let i = 0; ; i++) all.push(crm.notes_read({ key: String(i) }));",
    )
    .await;
    assert!(message.contains("tool-call limit"), "{message}");
    assert!(message.contains("more than 20 tool calls"), "{message}");
    // None of the flood ran: the program never waited, so no batch went out.
    assert_eq!(READS.load(Ordering::SeqCst), before);
    // Catching the error does not save it.
    let caught = err(
        &session,
        "for (let i = 0; i < 100; i++) { try { await crm.notes_read({ key: 'k' }); } catch (e) {} }\nreturn 'survived';",
    )
    .await;
    assert!(caught.contains("tool-call limit"), "{caught}");
}

#[tokio::test]
async fn a_flood_of_output_stops_at_the_output_limit() {
    let session = session_with(tight(), None);
    let message = err(&session, "while (true) console.log('spam');").await;
    assert!(message.contains("output limit"), "{message}");
    // A long answer is cut, not refused.
    let long = run(&session, "return 'y'.repeat(10000);").await.unwrap();
    assert!(long.text.len() <= 4096, "{}", long.text.len());
    assert!(
        long.text.contains("[cut: the program's answer is"),
        "{}",
        long.text
    );
}

#[tokio::test]
async fn pack_objects_cannot_be_changed_and_arguments_are_own_properties_only() {
    let session = session();
    for code in [
        "crm.notes_read = () => ({ key: 'forged' });",
        "crm.extra = 1;",
        "Object.setPrototypeOf(crm, {});",
        "delete crm.notes_read;",
        "crm.notes_read.call = null;",
        "globalThis.crm = {};",
    ] {
        let message = err(&session, code).await;
        assert!(
            message.starts_with("Uncaught TypeError"),
            "{code}: {message}"
        );
    }
    // A property on Object.prototype is not an argument.
    let message = err(
        &session,
        "Object.prototype.owner = 'evil'; Object.prototype.name = 'Eve';\nreturn await crm.contacts_create({});",
    )
    .await;
    assert!(message.contains("/name"), "{message}");
    // Changing Promise or JSON inside the program changes nothing outside it.
    let value = ok(
        &session,
        "JSON.stringify = () => '{\"key\":\"forged\"}'; Promise.prototype.then = null;\nreturn (await crm.notes_read({ key: 'real' })).key;",
    )
    .await;
    assert_eq!(value, json!("real"));
}

#[tokio::test]
async fn nothing_of_the_host_is_reachable() {
    let session = session();
    let reached = ok(
        &session,
        r#"return [typeof require, typeof fetch, typeof process, typeof std, typeof os,
                   typeof setTimeout, typeof eval, typeof XMLHttpRequest, typeof Deno,
                   typeof performance, typeof WebAssembly];"#,
    )
    .await;
    assert!(
        reached.as_array().unwrap().iter().all(|t| t == "undefined"),
        "{reached}"
    );
    for code in [
        "return require('fs');",
        "return fetch('http://127.0.0.1/');",
        "return eval('1 + 1');",
    ] {
        let message = err(&session, code).await;
        assert!(
            message.starts_with("Uncaught ReferenceError"),
            "{code}: {message}"
        );
    }
    for code in [
        "return Function('return this')();",
        "return (async function () {}).constructor('return 1')();",
        "return (function* () {}).constructor('yield 1')().next();",
    ] {
        let message = err(&session, code).await;
        assert!(
            message.starts_with("Uncaught EvalError"),
            "{code}: {message}"
        );
    }
    let import = err(&session, "return await import('fs');").await;
    assert!(import.contains("could not load module"), "{import}");
    // A program reaches no tool outside its session.
    let other = err(&session, "return await github.repos_get({});").await;
    assert!(other.starts_with("Uncaught ReferenceError"), "{other}");
}

#[tokio::test]
async fn a_ten_megabyte_program_is_refused_before_it_runs() {
    let session = session();
    let code = format!("return '{}';", "x".repeat(10 * 1024 * 1024));
    let message = err(&session, &code).await;
    assert!(message.contains("larger than 1048576 bytes"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_program_does_not_hold_up_the_others() {
    let session = std::sync::Arc::new(session_with(
        CodeLimits {
            cpu_time: Duration::from_secs(3),
            ..tight()
        },
        None,
    ));
    let looping = {
        let session = session.clone();
        tokio::spawn(async move { err(&session, "while (true) {}").await })
    };
    let started = Instant::now();
    // Others are answered while it loops: the loop has a thread of its own.
    for _ in 0..5 {
        assert_eq!(ok(&session, "return 1 + 1;").await, json!(2));
    }
    assert!(!looping.is_finished(), "the loop ended early");
    let message = looping.await.unwrap();
    assert!(message.contains("CPU-time limit"), "{message}");
    eprintln!(
        "five programs answered in {:?} beside a loop",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_dropped_call_stops_its_program() {
    // One program at a time, and a slot is held until the program's thread has stopped.
    let single = session_with(
        CodeLimits {
            max_programs: 1,
            cpu_time: Duration::from_secs(600),
            ..tight()
        },
        None,
    );
    let timed_out =
        tokio::time::timeout(Duration::from_millis(200), run(&single, "while (true) {}")).await;
    assert!(timed_out.is_err());
    // Only a loop that stopped gives its slot to the next program.
    let next = tokio::time::timeout(Duration::from_secs(20), ok(&single, "return 7;")).await;
    assert_eq!(next.expect("the dropped program kept its slot"), json!(7));
}
