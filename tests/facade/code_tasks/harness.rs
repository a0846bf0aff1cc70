//! Runs a task both ways and counts what passes through the model's context.
//!
//! **Direct**: a search-and-call session (the stable list `ToolSearch` + `CallTool`, what an MCP
//! 2026-07-28 client gets). The task's script plays the model: it sends the task's ToolSearch
//! queries in one turn, then its `CallTool` calls turn by turn, several in one turn where a model
//! would send them in parallel, reading each result before deciding the next turn.
//!
//! **Code**: a code-mode session (`ToolSearch` + `RunCode`): the same ToolSearch queries in one
//! turn, then the task's program in one `RunCode` call. The program calls only tools whose
//! declaration the model has read: a keyword search declares its best match and lists the others
//! by name, so a tool the program calls that the searches only listed is first asked for with
//! one `select:` query, in one more turn, as a model would.
//!
//! **Counted** (bytes of compact JSON or text, as the model would read or write them): the tool
//! definitions listed to the model (once: the list is the same every turn in both forms), every
//! ToolSearch call's arguments and answer, every other call's arguments and result. Each enters the
//! context once; that a multi-turn conversation re-sends its earlier turns with each request is
//! not counted, which understates what the direct path costs. **Turns**: model requests that end
//! in tool calls; both paths then take one more to answer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials};
use charter::scheduler::ToolCall;
use charter::table::Table;
use charter::{CallContext, SessionOptions, Source, ToolSession};
use serde_json::{Value, json};

use charter_testkit::stub::{Recorded, Stub};

/// A task's scripted model on the direct path: its calls, turn by turn, and its answer.
pub type Script = fn(&mut Direct) -> Pin<Box<dyn Future<Output = Value> + '_>>;

/// One multi-step task.
pub struct Task {
    /// A short name.
    pub name: &'static str,
    /// What the user asked.
    pub question: &'static str,
    /// The packs the agent holds.
    pub packs: &'static [&'static str],
    /// The ToolSearch queries the model sends first, in one turn (both paths).
    pub searches: &'static [&'static str],
    /// The API stub: the answer to each request.
    pub api: fn(&Recorded) -> (u16, Value),
    /// The direct path.
    pub direct: Script,
    /// The code path: the body of the async function a model sends to `RunCode`.
    pub program: &'static str,
    /// The answer (so a script that reads the results wrongly fails here, not silently).
    pub answer: fn() -> Value,
}

/// What one path cost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// The tool definitions listed (`{"name","description","inputSchema"}` each).
    pub list: usize,
    /// ToolSearch: the queries and the answers.
    pub search: usize,
    /// The arguments of every other call the model wrote.
    pub arguments: usize,
    /// The results of those calls.
    pub results: usize,
    /// Model turns that ended in tool calls.
    pub turns: u32,
    /// Tool calls the model wrote (ToolSearch included).
    pub calls: u32,
    /// Requests the API received.
    pub requests: usize,
}

impl Tally {
    /// Every byte counted.
    pub fn total(&self) -> usize {
        self.list + self.search + self.arguments + self.results
    }
}

/// One path's outcome.
#[derive(Debug)]
pub struct Run {
    pub answer: Value,
    pub tally: Tally,
    /// The requests that change something (method other than GET, GraphQL mutations), as
    /// `METHOD path body`, in order: both paths must make the same ones.
    pub writes: Vec<String>,
    /// The tools the model called, each once, in first-call order.
    pub called: Vec<String>,
    /// The tools its searches found.
    pub found: Vec<String>,
    /// On the code path, the least any search could have cost: the fixed list, one `select:`
    /// of exactly the tools the program calls (their declarations and nothing else), the
    /// program and its answer. 0 on the direct path.
    pub floor: usize,
}

/// The scripted model's view of a search-and-call session.
pub struct Direct {
    session: Arc<ToolSession>,
    ctx: CallContext,
    tally: Tally,
    called: Vec<String>,
    found: Vec<String>,
}

impl Direct {
    /// One turn of ToolSearch calls, one per query.
    pub async fn search(&mut self, queries: &[&str]) {
        search(&self.session, &self.ctx, queries, &mut self.tally).await;
        self.found.extend(found_names(&self.session, queries));
    }

    /// One turn: these calls, sent together (as parallel tool calls); their results, in order.
    /// A failed call fails the task: every script is written for calls that succeed.
    pub async fn turn(&mut self, calls: Vec<(&str, Value)>) -> Vec<Value> {
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .enumerate()
            .map(|(k, (name, arguments))| {
                if !self.called.iter().any(|c| c == name) {
                    self.called.push(name.to_owned());
                }
                ToolCall {
                    id: format!("c{}-{k}", self.tally.turns),
                    name: "CallTool".into(),
                    arguments: json!({ "name": name, "arguments": arguments }),
                }
            })
            .collect();
        self.tally.turns += 1;
        for call in &calls {
            self.tally.calls += 1;
            self.tally.arguments += call.arguments.to_string().len();
        }
        let results = self.session.execute_tool_calls(&calls, &self.ctx, 4).await;
        results
            .into_iter()
            .zip(&calls)
            .map(|(result, call)| {
                assert!(
                    !result.is_error,
                    "{}: {}",
                    call.arguments["name"], result.content
                );
                self.tally.results += result.content.len();
                serde_json::from_str(&result.content).unwrap_or(Value::String(result.content))
            })
            .collect()
    }

    /// One turn with one call.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.turn(vec![(name, arguments)]).await.remove(0)
    }
}

/// One turn of ToolSearch calls, one per query, counted; the answers, as the model reads them.
async fn search(
    session: &ToolSession,
    ctx: &CallContext,
    queries: &[&str],
    tally: &mut Tally,
) -> Vec<String> {
    let calls: Vec<ToolCall> = queries
        .iter()
        .enumerate()
        .map(|(k, q)| ToolCall {
            id: format!("s{k}"),
            name: "ToolSearch".into(),
            arguments: json!({ "query": q }),
        })
        .collect();
    tally.turns += 1;
    for call in &calls {
        tally.calls += 1;
        tally.search += call.arguments.to_string().len();
    }
    let mut answers = Vec::new();
    for result in session.execute_tool_calls(&calls, ctx, 4).await {
        assert!(!result.is_error, "ToolSearch failed: {}", result.content);
        tally.search += result.content.len();
        if std::env::var_os("CHARTER_CODE_TASKS_SHOW").is_some() {
            println!("--- search answer ---\n{}", result.content);
        }
        answers.push(result.content);
    }
    answers
}

/// Whether one of the code-mode ToolSearch answers declares `name` (`<pack>_<tool>`) as a
/// program calls it, `<pack>.<tool>(args..)`, rather than only naming it.
fn declares(answers: &[String], name: &str) -> bool {
    let (pack, tool) = name.split_once('_').expect("a qualified name");
    let access = format!("\n{pack}.{tool}(");
    answers.iter().any(|a| a.contains(&access))
}

/// The names the searches found (in search-and-call and code mode a search loads nothing, so
/// asking again changes nothing).
fn found_names(session: &ToolSession, queries: &[&str]) -> Vec<String> {
    queries
        .iter()
        .flat_map(|q| session.search(q, None).loaded)
        .collect()
}

/// The tools a program calls (`<pack>.<tool>(` where that is a tool of the session), each once.
fn called_in(session: &ToolSession, program: &str) -> Vec<String> {
    let mut called: Vec<String> = Vec::new();
    let bytes = program.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for (dot, _) in program.match_indices('.') {
        let start = (0..dot).rev().take_while(|k| word(bytes[*k])).last();
        let end = (dot + 1..bytes.len()).find(|k| !word(bytes[*k]));
        let (Some(start), Some(end)) = (start, end) else {
            continue;
        };
        let name = format!("{}_{}", &program[start..dot], &program[dot + 1..end]);
        if bytes[end] == b'(' && session.tool_def(&name).is_some() && !called.contains(&name) {
            called.push(name);
        }
    }
    called
}

/// The tables of the task's packs.
fn tables(task: &Task) -> Vec<&'static Table> {
    task.packs
        .iter()
        .map(|label| {
            *charter::packs::ALL
                .iter()
                .find(|t| t.pack == *label)
                .unwrap_or_else(|| panic!("no pack `{label}`"))
        })
        .collect()
}

/// An executor sending every pack to `base`, with a made-up secret per pack.
fn executor(tables: &[&'static Table], base: &str) -> Arc<HttpExecutor> {
    let mut credentials = StaticCredentials::new().with("GOOGLE_ACCESS_TOKEN", "ya29.test-token");
    let mut builder = HttpExecutor::builder().no_proxy();
    for table in tables {
        credentials = credentials.with(table.pack, format!("{}-test-secret", table.pack));
        builder = builder.base_url(table.pack, base);
    }
    Arc::new(builder.credentials(credentials).build().unwrap())
}

/// The definitions a session lists, as an MCP client receives them, in bytes.
fn listed(session: &ToolSession) -> usize {
    session
        .visible()
        .iter()
        .map(|e| {
            format!(
                "{{\"name\":{},\"description\":{},\"inputSchema\":{}}}",
                Value::from(e.name),
                Value::from(e.description),
                e.schema
            )
            .len()
        })
        .sum()
}

/// The writes among the requests a stub received.
fn writes(log: &[Recorded]) -> Vec<String> {
    log.iter()
        .filter(|r| {
            let text = String::from_utf8_lossy(&r.body);
            r.method != "GET"
                && !(r.path.ends_with("/search") || text.contains("\"query\":\"query "))
        })
        .map(|r| {
            format!(
                "{} {} {}",
                r.method,
                r.path,
                String::from_utf8_lossy(&r.body)
            )
        })
        .collect()
}

/// The direct path: a search-and-call session over the task's packs, driven by its script.
pub async fn direct(task: &Task) -> Run {
    let stub = Stub::start(task.api).await;
    let tables = tables(task);
    let session = ToolSession::with_options(
        tables.iter().map(|t| Source::Table(t)).collect(),
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::SearchAndCall)
            .with_http(executor(&tables, &stub.base)),
    )
    .unwrap();
    let mut model = Direct {
        tally: Tally {
            list: listed(&session),
            ..Tally::default()
        },
        session: Arc::new(session),
        ctx: CallContext::new(),
        called: Vec::new(),
        found: Vec::new(),
    };
    model.search(task.searches).await;
    let answer = (task.direct)(&mut model).await;
    let log = stub.take();
    model.tally.requests = log.len();
    Run {
        answer,
        tally: model.tally,
        writes: writes(&log),
        called: model.called,
        found: model.found,
        floor: 0,
    }
}

/// The code path: a code-mode session over the task's packs; the same searches, then the task's
/// program in one `RunCode` call.
pub async fn code(task: &Task) -> Run {
    let stub = Stub::start(task.api).await;
    let tables = tables(task);
    let session = ToolSession::with_options(
        tables.iter().map(|t| Source::Table(t)).collect(),
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Code)
            .with_http(executor(&tables, &stub.base)),
    )
    .unwrap();
    let ctx = CallContext::new();
    let mut tally = Tally {
        list: listed(&session),
        ..Tally::default()
    };
    let mut read = search(&session, &ctx, task.searches, &mut tally).await;
    let called = called_in(&session, task.program);
    let undeclared: Vec<&str> = called
        .iter()
        .filter(|name| !declares(&read, name))
        .map(String::as_str)
        .collect();
    if !undeclared.is_empty() {
        let select = format!("select:{}", undeclared.join(","));
        read.extend(search(&session, &ctx, &[select.as_str()], &mut tally).await);
    }
    for name in &called {
        assert!(
            declares(&read, name),
            "{}: the program calls {name}, which no answer the model read declares",
            task.name
        );
    }
    let call = ToolCall {
        id: "run".into(),
        name: "RunCode".into(),
        arguments: json!({ "code": task.program }),
    };
    tally.turns += 1;
    tally.calls += 1;
    tally.arguments += call.arguments.to_string().len();
    let result = session
        .execute_tool_calls(std::slice::from_ref(&call), &ctx, 4)
        .await
        .remove(0);
    assert!(!result.is_error, "{}: {}", task.name, result.content);
    tally.results += result.content.len();
    let answer = serde_json::from_str(&result.content).unwrap_or(Value::String(result.content));
    let log = stub.take();
    tally.requests = log.len();
    let mut least = Tally::default();
    let exactly = format!("select:{}", called.join(","));
    search(&session, &ctx, &[exactly.as_str()], &mut least).await;
    Run {
        answer,
        floor: tally.list + least.search + tally.arguments + tally.results,
        tally,
        writes: writes(&log),
        called,
        found: found_names(&session, task.searches),
    }
}
