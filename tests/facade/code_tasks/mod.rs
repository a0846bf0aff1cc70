//! The code-mode task benchmark (docs/code-mode.md), written before code mode itself.
//!
//! Twelve multi-step tasks over the shipped packs, each against an API stub on 127.0.0.1 serving
//! realistic payloads (`payloads.rs`), each run two ways (`harness.rs`): as the direct
//! ToolSearch / CallTool calls a model would make, turn by turn, and as one `RunCode` program
//! written as a model would write it (`programs/*.js`). Both must give the task's answer and make
//! the same writes; the benchmark counts the bytes that pass through the model's context and the
//! model's turns. The target: on tasks of three or more calls, at least 80 % fewer
//! context bytes and one turn of calls. Asserted today: the same answers and writes, one
//! `RunCode` turn after the searches (and a `select:` of a tool they only listed), never more
//! turns than the direct path, at least 80 % fewer bytes of arguments and results, and at least
//! 50 % fewer bytes in all; whether the total reaches 80 % (ToolSearch's answers included: the
//! best match's TypeScript declaration, the others' names) is reported.
//!
//! `cargo test --test facade code_tasks -- --nocapture` prints the figures.

// The tasks use the shipped packs; this crate's own dev-dependency turns `all-packs` on.
#![cfg(feature = "all-packs")]

mod harness;
mod payloads;
mod tasks {
    pub mod chat;
    pub mod github;
    pub mod stripe;
    pub mod workspace;
}

use serde_json::{Value, json};

use charter_testkit::stub::Recorded;
use harness::{Run, Task};

/// Every task, in the order the report lists them.
fn all() -> impl Iterator<Item = &'static Task> {
    tasks::github::TASKS
        .iter()
        .chain(tasks::stripe::TASKS)
        .chain(tasks::workspace::TASKS)
        .chain(tasks::chat::TASKS)
}

/// The first value of a query parameter, percent-decoded.
pub fn query(r: &Recorded, key: &str) -> Option<String> {
    r.query.as_deref()?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = percent_encoding::percent_decode_str(k).decode_utf8_lossy();
        (k == key).then(|| {
            percent_encoding::percent_decode_str(v)
                .decode_utf8_lossy()
                .into_owned()
        })
    })
}

/// The stub's answer to a request no task expects: a 404 naming it, which fails the task.
pub fn not_found(r: &Recorded) -> (u16, Value) {
    let query = r.query.as_deref().unwrap_or_default();
    (
        404,
        json!({"message": format!("the stub has no answer for {} {}?{query}", r.method, r.path)}),
    )
}

/// Whether two answers are the same JSON, numbers compared by value (`1519` equals `1519.0`: a
/// JavaScript number has no integer type).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

#[tokio::test]
async fn every_task_is_answered_on_the_direct_path() {
    println!(
        "\n{:<30} {:>5} {:>5} {:>6} {:>7} {:>6} {:>8} {:>8} {:>5}",
        "direct path", "calls", "reqs", "list", "search", "args", "results", "total", "turns"
    );
    for task in all() {
        let run = harness::direct(task).await;
        assert!(
            same(&run.answer, &(task.answer)()),
            "{} ({}): answered {:#}",
            task.name,
            task.question,
            run.answer
        );
        let t = &run.tally;
        println!(
            "{:<30} {:>5} {:>5} {:>6} {:>7} {:>6} {:>8} {:>8} {:>5}",
            task.name,
            t.calls - task.searches.len() as u32,
            t.requests,
            t.list,
            t.search,
            t.arguments,
            t.results,
            t.total(),
            t.turns + 1
        );
        for tool in &run.called {
            assert!(
                run.found.contains(tool),
                "{}: {tool} was called but none of the searches {:?} found it (found {:?})",
                task.name,
                task.searches,
                run.found
            );
        }
        assert!(run.tally.requests > 0, "{}", task.name);
    }
}

#[tokio::test]
async fn code_mode_answers_alike_with_far_less_context() {
    let mut rows = Vec::new();
    for task in all() {
        let direct = harness::direct(task).await;
        let code = harness::code(task).await;
        for tool in &code.called {
            assert!(
                code.found.contains(tool),
                "{}: the program calls {tool}, which none of the searches {:?} found",
                task.name,
                task.searches
            );
        }
        assert!(
            same(&code.answer, &direct.answer),
            "{}: the program answered {:#}, the direct path {:#}",
            task.name,
            code.answer,
            direct.answer
        );
        assert_eq!(code.writes, direct.writes, "{}: the same writes", task.name);
        rows.push((task, direct, code));
    }
    report(&rows);
    let mut short = Vec::new();
    let (mut all_direct, mut all_code) = (0, 0);
    for (task, direct, code) in &rows {
        let calls = direct.tally.calls - task.searches.len() as u32;
        if calls < 3 {
            continue;
        }
        // The searches (and a `select:` of a tool they only listed), then one program: never
        // more turns than the direct path.
        assert!(
            code.tally.turns <= 3 && code.tally.turns <= direct.tally.turns,
            "{}: {} turns of calls against {} on the direct path",
            task.name,
            code.tally.turns,
            direct.tally.turns
        );
        // What a program keeps out of the context: the calls' arguments and results (the
        // program's text and its answer instead).
        let (d, c) = (kept_out(&direct.tally), kept_out(&code.tally));
        let saved = 1.0 - c as f64 / d as f64;
        assert!(
            saved >= 0.80,
            "{}: arguments and results {:.1} % fewer ({c} against {d})",
            task.name,
            saved * 100.0,
        );
        let (d, c) = (direct.tally.total(), code.tally.total());
        // Every byte: ToolSearch's answers (TypeScript signatures in code mode, JSON schemas
        // on the direct path) included.
        assert!(
            (c as f64) < 0.5 * d as f64,
            "{}: {c} bytes in all against {d}: less than 50 % fewer",
            task.name
        );
        all_direct += d;
        all_code += c;
        if c as f64 > 0.2 * d as f64 {
            short.push(task.name);
            // Whether any search could have reached it: the fixed list, exactly the called
            // tools' declarations, the program and its answer.
            println!(
                "{}: {c} bytes, 80 % fewer needs at most {:.0}; the floor (only the called \
                 tools declared) is {} ({:.1} % fewer)",
                task.name,
                0.2 * d as f64,
                code.floor,
                percent_saved(code.floor, d)
            );
        }
    }
    // The target, 80 % fewer bytes in all, is reported, not asserted: what is left is
    // mostly the declarations ToolSearch answers with (docs/code-mode.md).
    println!(
        "tasks of three or more calls: {all_code} bytes in all against {all_direct} ({:.1} % \
         fewer); 80 % fewer not reached on {} of them ({})",
        100.0 * (1.0 - all_code as f64 / all_direct as f64),
        short.len(),
        short.join(", ")
    );
}

/// Bytes of the calls' arguments and results.
fn kept_out(t: &harness::Tally) -> usize {
    t.arguments + t.results
}

/// The figures, as docs/code-mode.md shows them.
fn report(rows: &[(&Task, Run, Run)]) {
    if rows.is_empty() {
        return;
    }
    println!(
        "\n{:<30} {:>5} | {:>6} {:>7} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>6} | {:>6} {:>6} {:>6} | {:>5} {:>5}",
        "code path",
        "calls",
        "list",
        "search",
        "args",
        "results",
        "total",
        "args+res",
        "direct",
        "saved",
        "direct",
        "total",
        "saved",
        "turns",
        "code"
    );
    let (mut d_total, mut c_total, mut d_kept, mut c_kept) = (0, 0, 0, 0);
    for (task, direct, code) in rows {
        let calls = direct.tally.calls - task.searches.len() as u32;
        let (d, c) = (&direct.tally, &code.tally);
        d_total += d.total();
        c_total += c.total();
        d_kept += kept_out(d);
        c_kept += kept_out(c);
        println!(
            "{:<30} {:>5} | {:>6} {:>7} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>5.1}% | {:>6} {:>6} {:>5.1}% | {:>5} {:>5}",
            task.name,
            calls,
            c.list,
            c.search,
            c.arguments,
            c.results,
            c.total(),
            kept_out(c),
            kept_out(d),
            percent_saved(kept_out(c), kept_out(d)),
            d.total(),
            c.total(),
            percent_saved(c.total(), d.total()),
            d.turns + 1,
            c.turns + 1
        );
    }
    println!(
        "{:<30} {:>5} | {:>6} {:>7} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>5.1}% | {:>6} {:>6} {:>5.1}% |",
        "all",
        "",
        "",
        "",
        "",
        "",
        c_total,
        c_kept,
        d_kept,
        percent_saved(c_kept, d_kept),
        d_total,
        c_total,
        percent_saved(c_total, d_total)
    );
}

/// How much smaller `code` is than `direct`, in percent.
fn percent_saved(code: usize, direct: usize) -> f64 {
    100.0 * (1.0 - code as f64 / direct as f64)
}
