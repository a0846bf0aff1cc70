//! Fixture tables shared by the session tests, built with `charter_testkit`.
#![allow(dead_code)]

use std::sync::OnceLock;

use charter_runtime::session::{SessionOptions, Source, ToolSession};
use charter_runtime::{CallContext, CharterError, Table, ToolOutput};
use charter_testkit as testing;
use serde_json::{Value, json};

/// An issue tracker: tools of very different sizes, mode labels, formats, nesting.
pub fn tracker() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "tracker",
            "description": "An issue tracker.",
            "tools": [
                {
                    "name": "issues_list",
                    "description": "List the issues of a project, newest first.",
                    "hints": ["tickets", "bugs"],
                    "annotations": {"read_only": true, "idempotent": true},
                    "params": {
                        "project": {"type": "string", "required": true, "description": "The project key."},
                        "state": {"type": "string", "enum": ["open", "closed", "all"], "description": "Which issues."},
                        "per_page": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Page size."},
                        "internal_score": {"type": "number", "modes": ["pro"], "description": "Minimum triage score."},
                        "region": {"type": "string", "modes": ["eu"], "description": "Data region."}
                    }
                },
                {
                    "name": "issues_create",
                    "description": "Open an issue in a project.",
                    "params": {
                        "project": {"type": "string", "required": true, "description": "The project key."},
                        "title": {"type": "string", "required": true, "min_length": 1, "max_length": 20, "description": "Summary."},
                        "due_on": {"type": "string", "format": "date", "description": "Due date."},
                        "labels": {"type": "array", "max_items": 3, "items": {"type": "string", "max_length": 5}, "description": "Labels."},
                        "assignee": {"type": "object", "description": "Who.", "properties": {
                            "login": {"type": "string", "required": true, "description": "Login."},
                            "notify": {"type": "boolean", "description": "Notify them."},
                            "legacy_flag": {"type": "boolean", "modes": ["disabled"], "description": "Old."}
                        }},
                        "customer_id": {"type": "string", "from_context": "customer_id", "description": "The customer."},
                        "priority": {"type": "integer", "minimum": 0, "maximum": 4, "modes": ["pro"], "description": "Priority."},
                        "meta": {"type": "map", "values": {"type": "integer"}, "description": "Counters."},
                        "parent": {"type": "integer", "nullable": true, "description": "Parent issue."},
                        "target": {"one_of": [{"type": "string", "min_length": 3}, {"type": "integer"}], "description": "Target."},
                        "email": {"type": "string", "format": "email", "description": "Reporter e-mail."},
                        "website": {"type": "string", "format": "uri", "description": "Link."},
                        "ticket": {"type": "string", "format": "uuid", "description": "Ticket id."},
                        "started": {"type": "string", "format": "date-time", "description": "Start."},
                        "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$", "description": "Code."},
                        "server_id": {"type": "string", "modes": ["response_only"], "description": "Assigned id."}
                    }
                },
                {
                    "name": "issues_delete",
                    "description": "Delete an issue for good.",
                    "annotations": {"destructive": true, "idempotent": true},
                    "params": {
                        "project": {"type": "string", "required": true, "description": "P."},
                        "number": {"type": "integer", "required": true, "description": "N."}
                    }
                },
                {
                    "name": "comments_add",
                    "description": "Add a comment to an issue; the calendar event of the comment is logged.",
                    "params": {
                        "project": {"type": "string", "required": true, "description": "The project key."},
                        "number": {"type": "integer", "required": true, "description": "The issue number."},
                        "body": {"type": "string", "required": true, "description": "The comment text."}
                    }
                },
                {"name": "ping", "description": "Check that the tracker answers."}
            ]
        }))
    })
}

/// A billing API, to search by pack.
pub fn billing() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "billing",
            "description": "A billing API.",
            "tools": [
                {"name": "refunds_create", "description": "Refund a charge, fully or in part.",
                 "params": {"charge": {"type": "string", "required": true, "description": "The charge."}}},
                {"name": "refunds_list", "description": "List refunds, newest first."},
                {"name": "customers_get", "description": "Get one customer, with refund history."},
                {"name": "charges_list", "description": "List charges."}
            ]
        }))
    })
}

/// A calendar API whose names and descriptions exercise the ranking.
pub fn calendar() -> &'static Table {
    static T: OnceLock<&'static Table> = OnceLock::new();
    T.get_or_init(|| {
        testing::table(json!({
            "pack": "calendar",
            "description": "A calendar API.",
            "tools": [
                {"name": "event_create", "description": "Create a calendar event."},
                {"name": "events_list", "description": "List events in a calendar."},
                {"name": "calendars_list", "description": "List calendars."},
                {"name": "free_busy", "description": "When attendees are free; reads every calendar event."},
                {"name": "settings_get", "description": "Read the account settings."}
            ]
        }))
    })
}

pub fn options(progressive: bool, threshold: u32, mode: Option<&str>) -> SessionOptions {
    let mut options = SessionOptions::new()
        .with_disclosure(if progressive {
            charter_runtime::Disclosure::ListChanged
        } else {
            charter_runtime::Disclosure::Eager
        })
        .with_threshold(threshold);
    if let Some(mode) = mode {
        options = options.with_mode(mode);
    }
    options
}

/// Options pinned to the docs/design.md §4 classic ranking, for tests of its exact scores and ties.
pub fn classic(progressive: bool, threshold: u32, mode: Option<&str>) -> SessionOptions {
    options(progressive, threshold, mode).with_ranking(charter_runtime::session::Ranking::Classic)
}

pub fn session(tables: &[&'static Table], options: SessionOptions) -> ToolSession {
    ToolSession::with_options(tables.iter().map(|t| Source::Table(t)).collect(), options)
        .expect("session builds")
}

pub fn names(entries: &[charter_runtime::session::ToolEntry<'_>]) -> Vec<String> {
    entries.iter().map(|e| e.name.to_owned()).collect()
}

/// Dispatches one call on a fresh current-thread runtime.
pub fn call(
    session: &ToolSession,
    name: &str,
    arguments: Value,
) -> Result<ToolOutput, CharterError> {
    call_with(session, name, arguments, &CallContext::new())
}

pub fn call_with(
    session: &ToolSession,
    name: &str,
    arguments: Value,
    ctx: &CallContext,
) -> Result<ToolOutput, CharterError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(session.dispatch(name, arguments, ctx))
}

/// Runs ToolSearch and returns its JSON answer.
pub fn search(session: &ToolSession, arguments: Value) -> Value {
    let out = call(session, "ToolSearch", arguments).expect("ToolSearch answers");
    out.structured.expect("ToolSearch answers JSON")
}

pub fn loaded(answer: &Value) -> Vec<String> {
    answer["loaded"]
        .as_array()
        .expect("loaded list")
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

pub fn validation_message(result: Result<ToolOutput, CharterError>) -> String {
    match result {
        Err(CharterError::Validation(message)) => message,
        other => panic!("expected a validation error, got {other:?}"),
    }
}
