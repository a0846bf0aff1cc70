//! How a program ended, and what the model reads of it.
//!
//! A program that returns answers with its value as JSON (`{"console": [...], "result": ...}`
//! when it also logged lines), cut at the output limit with a notice. Every other end is an
//! error result: an uncaught exception with its message and where it was thrown (the program's
//! own line numbers: the wrapper's line is taken off), a syntax error at `line:col`, or the
//! limit the program went over, each with the `console` lines printed before.

use std::fmt::Write as _;

use rquickjs::{Ctx, Value};

use super::CodeLimits;
use super::JS_STACK_BYTES;
use crate::error::CharterError;
use crate::table::ToolOutput;

/// A limit a program went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    /// [`CodeLimits::cpu_time`].
    CpuTime,
    /// [`CodeLimits::memory_bytes`].
    Memory,
    /// [`CodeLimits::max_calls`].
    Calls,
    /// [`CodeLimits::max_output_bytes`].
    Output,
    /// Not a limit of the program's: the call running it ended (timed out, or its client left).
    Cancelled,
}

/// How a program ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// It returned: the value as JSON text (`None`: `undefined`), and its `console` lines.
    Returned(Option<String>, Vec<String>),
    /// An exception nobody caught, as the model reads it, and the `console` lines.
    Threw(String, Vec<String>),
    /// The program does not compile: the message with its `line:col`.
    Syntax(String),
    /// It went over a limit.
    Limit(Limit, Vec<String>),
    /// Nothing is left to run and its promise is still pending.
    Waiting(Vec<String>),
    /// The interpreter could not run it.
    Failed(String),
}

impl Outcome {
    /// The program returned `value`.
    pub(super) fn returned<'js>(ctx: &Ctx<'js>, value: Value<'js>, logs: Vec<String>) -> Self {
        match ctx.json_stringify(value) {
            Ok(json) => Outcome::Returned(json.and_then(|j| j.to_string().ok()), logs),
            Err(_) => {
                let thrown = ctx.catch();
                let why = show(ctx, thrown);
                Outcome::Threw(
                    format!("The returned value cannot be written as JSON: {why}"),
                    logs,
                )
            }
        }
    }

    /// The program threw `value` and nothing caught it; out of memory is the memory limit.
    pub(super) fn threw<'js>(ctx: &Ctx<'js>, value: Value<'js>, logs: Vec<String>) -> Self {
        let (name, message, stack) = parts(ctx, value);
        if name == "InternalError" && message == "out of memory" {
            return Outcome::Limit(Limit::Memory, logs);
        }
        let mut text = format!("Uncaught {name}");
        if !message.is_empty() {
            let _ = write!(text, ": {message}");
        }
        if name == "RangeError" && message.contains("call stack") {
            let _ = write!(
                text,
                " (a program's stack is {} KiB: recurse less deeply)",
                JS_STACK_BYTES / 1024
            );
        }
        for frame in stack.lines().filter(|l| !l.trim().is_empty()).take(8) {
            text.push('\n');
            text.push_str(&renumber(frame));
        }
        Outcome::Threw(text, logs)
    }

    /// The program did not compile.
    pub(super) fn syntax<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> Self {
        let (name, message, stack) = parts(ctx, value);
        let at = stack
            .lines()
            .find_map(|l| l.find(&format!("{FILE}:")).map(|k| renumber(&l[k..])))
            .map(|at| format!(" at {}", at.trim_end_matches(')')))
            .unwrap_or_default();
        Outcome::Syntax(format!("{name}{at}: {message}"))
    }

    /// What the model reads: the answer, or an error result.
    pub(crate) fn into_output(self, limits: &CodeLimits) -> Result<ToolOutput, CharterError> {
        let (text, logs) = match self {
            Outcome::Returned(json, logs) => return Ok(answer(json, logs, limits)),
            Outcome::Threw(text, logs) => (text, logs),
            Outcome::Syntax(text) => (text, Vec::new()),
            Outcome::Limit(limit, logs) => (stopped(limit, limits), logs),
            Outcome::Waiting(logs) => (
                "The program ended waiting for a promise that nothing will settle (no tool call \
                 or other work was left to run): await tool calls, not promises of your own."
                    .to_owned(),
                logs,
            ),
            Outcome::Failed(why) => (
                format!("RunCode could not run the program: {why}"),
                Vec::new(),
            ),
        };
        let mut text = text;
        if !logs.is_empty() {
            text.push_str("\n\nconsole output before that:\n");
            text.push_str(&logs.join("\n"));
        }
        Err(CharterError::Tool(cut(text, limits.max_output_bytes)))
    }
}

/// The error text for a program stopped at `limit`.
fn stopped(limit: Limit, limits: &CodeLimits) -> String {
    let what = match limit {
        Limit::CpuTime => format!(
            "it ran JavaScript for more than {} ms of CPU time (the CPU-time limit); do less in \
             one program, or let the tools filter",
            limits.cpu_time.as_millis()
        ),
        Limit::Memory => format!(
            "it needed more than {} MiB of memory (the memory limit); keep fewer or smaller \
             values",
            limits.memory_bytes / (1024 * 1024)
        ),
        Limit::Calls => format!(
            "it made more than {} tool calls (the tool-call limit); make fewer calls, or ask \
             the tools for more per call",
            limits.max_calls
        ),
        Limit::Output => format!(
            "its console output passed {} bytes (the output limit); print less",
            limits.max_output_bytes
        ),
        Limit::Cancelled => {
            "its call ended before it did (timed out, or the client went away)".to_owned()
        }
    };
    format!("RunCode stopped the program: {what}.")
}

/// A program's answer: its value as JSON, with its `console` lines when there are any.
fn answer(json: Option<String>, logs: Vec<String>, limits: &CodeLimits) -> ToolOutput {
    let text = if logs.is_empty() {
        json.unwrap_or_else(|| "null".to_owned())
    } else {
        let mut text = String::from("{\"console\":");
        text.push_str(&serde_json::Value::from(logs).to_string());
        if let Some(json) = json {
            text.push_str(",\"result\":");
            text.push_str(&json);
        }
        text.push('}');
        text
    };
    if text.len() > limits.max_output_bytes {
        return ToolOutput::text(cut(text, limits.max_output_bytes));
    }
    match serde_json::from_str(&text) {
        Ok(value) => ToolOutput {
            text,
            structured: Some(value),
        },
        Err(_) => ToolOutput::text(text),
    }
}

/// `text` within `max` bytes: cut at a character boundary, ending with a notice.
fn cut(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let notice = format!(
        "\n[cut: the program's answer is {} bytes, over the output limit of {max} bytes; the \
         rest is not shown. Return less: filter, count or summarise in the program]",
        text.len()
    );
    let mut end = max.saturating_sub(notice.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{notice}", &text[..end])
}

/// An exception's name, message and stack (empty when it is not an `Error`).
fn parts<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> (String, String, String) {
    match value.as_exception() {
        Some(error) => {
            let object = error.as_object();
            let name: Option<String> = object.get("name").ok();
            let message = error.message().unwrap_or_default();
            let stack = error.stack().unwrap_or_default();
            (name.unwrap_or_else(|| "Error".to_owned()), message, stack)
        }
        None => (show(ctx, value), String::new(), String::new()),
    }
}

/// A stack frame with the script's `program:L:C` as the program's own `line L-1:C`.
fn renumber(frame: &str) -> String {
    let mut out = String::with_capacity(frame.len());
    let mut rest = frame;
    let marker = format!("{FILE}:");
    while let Some(k) = rest.find(&marker) {
        out.push_str(&rest[..k]);
        let after = &rest[k + marker.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<u64>() {
            Ok(line) => {
                let _ = write!(out, "line {}", line.saturating_sub(1).max(1));
                rest = &after[digits..];
            }
            Err(_) => {
                out.push_str(&marker);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The file name errors give for the program (its lines renumbered by `outcome`).
pub(super) const FILE: &str = "program";

/// How `console.log` shows one value.
pub(super) fn show<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> String {
    if let Some(text) = value.as_string() {
        return text.to_string().unwrap_or_default();
    }
    if let Some(error) = value.as_exception() {
        let message = error.message().unwrap_or_default();
        let name: Option<String> = error.as_object().get("name").ok();
        return format!("{}: {message}", name.as_deref().unwrap_or("Error"));
    }
    match ctx.json_stringify(value.clone()) {
        Ok(Some(text)) => text.to_string().unwrap_or_default(),
        Ok(None) => "undefined".to_owned(),
        Err(_) => {
            let _ = ctx.catch();
            value
                .get::<rquickjs::Coerced<String>>()
                .map(|c| c.0)
                .unwrap_or_else(|_| {
                    let _ = ctx.catch();
                    "[value]".to_owned()
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_give_the_programs_own_lines() {
        assert_eq!(
            renumber("    at <anonymous> (program:4:11)"),
            "    at <anonymous> (line 3:11)"
        );
        assert_eq!(renumber("    at f (native)"), "    at f (native)");
    }

    #[test]
    fn a_long_answer_is_cut_with_a_notice() {
        let limits = CodeLimits {
            max_output_bytes: 300,
            ..CodeLimits::default()
        };
        let out = answer(
            Some(format!("\"{}\"", "é".repeat(400))),
            Vec::new(),
            &limits,
        );
        assert!(out.text.len() <= 300, "{}", out.text.len());
        assert!(out.text.contains("[cut: the program's answer is 802 bytes"));
        assert!(out.structured.is_none());
    }
}
