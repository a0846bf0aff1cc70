//! What the three loops' tests assert alike: the scheduler's and the session's contract is one,
//! whatever the wire, so it is checked by one piece of code. Also scripted answers by wire, for
//! tests that run every loop.

use charter_runtime::session::TOOL_SEARCH;
use serde_json::Value;

use super::{
    Recorded, Reply, Wire, activity, anthropic_calls, anthropic_text, gemini_calls, gemini_text,
    openai_calls, openai_text,
};

/// Every request offered exactly `names`, in one list text that never changed.
pub fn assert_one_list(requests: &[Recorded], names: &[&str]) {
    for request in requests {
        assert_eq!(request.tool_names(), names);
        assert_eq!(request.raw_tools(), requests[0].raw_tools(), "one list");
    }
}

/// A progressive run's first two requests: ToolSearch alone, then ToolSearch and the two tools
/// it loaded (`demo_weather`, `demo_time`) in load order, the first list a prefix of the second,
/// byte for byte (the cached prefix survives). Returns the second list's text.
pub fn assert_list_extends(requests: &[Recorded]) -> String {
    assert_eq!(requests[0].tool_names(), [TOOL_SEARCH]);
    assert_eq!(
        requests[1].tool_names(),
        [TOOL_SEARCH, "demo_weather", "demo_time"]
    );
    let (turn1, turn2) = (requests[0].raw_tools(), requests[1].raw_tools());
    // What closes the list after its last entry: `]`, or `]}]` around Gemini's declarations.
    let closing = if requests[0].path.ends_with(":generateContent") {
        3
    } else {
        1
    };
    assert!(
        turn2.starts_with(&turn1[..turn1.len() - closing]),
        "turn 2's tool list must extend turn 1's:\n{turn1}\n{turn2}"
    );
    turn2
}

/// A batch of read-only, idempotent calls under `run` ran concurrently, `executed` executions
/// in all (identical calls execute once).
pub fn assert_concurrent(run: &str, executed: usize) {
    let activity = activity(run);
    assert_eq!(
        activity.calls.len(),
        executed,
        "identical calls execute once: {:?}",
        activity.calls
    );
    assert!(
        activity.max_in_flight >= 2,
        "a safe batch runs concurrently (max in flight {})",
        activity.max_in_flight
    );
}

/// The tools executed under `run`, in start order.
pub fn ran(run: &str) -> Vec<String> {
    activity(run)
        .calls
        .into_iter()
        .map(|(tool, _)| tool)
        .collect()
}

/// A batch with a writing tool under `run` ran serially: every call, in the model's order.
pub fn assert_serial(run: &str, order: &[&str]) {
    assert_eq!(ran(run), order, "serial: every call runs, in order");
    assert_eq!(activity(run).max_in_flight, 1);
}

/// The answer of code mode's demo program (the weather in Paris and the time in UTC, fetched
/// with `Promise.all`) under `run`: both values, and the two calls one concurrent batch.
pub fn assert_program_answer(answer: &Value, run: &str) {
    assert_eq!(answer["forecast"], "sunny in Paris", "{answer}");
    assert_eq!(answer["time"], "12:00 in UTC", "{answer}");
    let activity = activity(run);
    assert_eq!(activity.calls.len(), 2, "{:?}", activity.calls);
    assert_eq!(activity.max_in_flight, 2, "read-only calls ran together");
}

/// A scripted answer calling tools, in `wire`'s format: `(id, name, arguments)`.
pub fn calls_in(wire: Wire, calls: &[(&str, &str, Value)]) -> Reply {
    match wire {
        Wire::OpenAi => {
            let texts: Vec<String> = calls.iter().map(|(_, _, args)| args.to_string()).collect();
            let calls: Vec<(&str, &str, &str)> = calls
                .iter()
                .zip(&texts)
                .map(|((id, name, _), args)| (*id, *name, args.as_str()))
                .collect();
            openai_calls(&calls)
        }
        Wire::Anthropic => anthropic_calls(calls),
        Wire::Gemini => {
            let calls: Vec<(Option<&str>, &str, Value)> = calls
                .iter()
                .map(|(id, name, args)| (Some(*id), *name, args.clone()))
                .collect();
            gemini_calls(&calls)
        }
    }
}

/// A scripted answer with text, in `wire`'s format.
pub fn text_in(wire: Wire, text: &str) -> Reply {
    match wire {
        Wire::OpenAi => openai_text(text),
        Wire::Anthropic => anthropic_text(text),
        Wire::Gemini => gemini_text(text),
    }
}
