//! Tasks over the workspace packs: Google Calendar with Notion, Gmail, Drive with Sheets.

use serde_json::{Value, json};

use crate::code_tasks::harness::{Direct, Task};
use crate::code_tasks::payloads::*;
use crate::code_tasks::{not_found, query};
use charter_testkit::stub::Recorded;

pub const TASKS: &[Task] = &[
    Task {
        name: "week_events_to_notion",
        question: "Put this week's calendar events on a new page under my Weekly notes page in Notion.",
        packs: &["gcalendar", "notion"],
        searches: &[
            "calendar events this week",
            "notion find page",
            "notion create page",
        ],
        api: calendar_notion,
        direct: |m| Box::pin(week_events(m)),
        program: include_str!("../programs/week_events_to_notion.js"),
        answer: || {
            json!(format!(
                "https://www.notion.so/Week-of-9-March-2026-{}",
                NEW_PAGE.replace('-', "")
            ))
        },
    },
    Task {
        name: "unread_mail_senders",
        question: "Who sent me unread mail in the last day, and about what?",
        packs: &["gmail"],
        searches: &["search unread email", "read an email"],
        api: mail,
        direct: |m| Box::pin(unread_mail(m)),
        program: include_str!("../programs/unread_mail_senders.js"),
        answer: || {
            Value::Array(
                MAIL.iter()
                    .map(|(_, from, subject)| json!({"from": from, "subject": subject}))
                    .collect(),
            )
        },
    },
    Task {
        name: "sheets_changed_this_week",
        question: "Which spreadsheets did I change this week, and how many rows does each tab have?",
        packs: &["gdrive", "gsheets"],
        searches: &["find spreadsheets in drive", "spreadsheet tabs"],
        api: drive,
        direct: |m| Box::pin(sheets_changed(m)),
        program: include_str!("../programs/sheets_changed_this_week.js"),
        answer: || {
            let books = BOOKS.iter().map(|(_, name, _, sheets)| {
                let tabs: Vec<Value> = sheets
                    .iter()
                    .map(|(title, rows, _)| json!({"title": title, "rows": rows}))
                    .collect();
                json!({"name": name, "tabs": tabs})
            });
            Value::Array(books.collect())
        },
    },
];

// --------------------------------------------------------------------------------------------

const WEEKLY_NOTES: &str = "1a2b3c4d-0000-4e5f-8a9b-0c1d2e3f4a5b";
const NEW_PAGE: &str = "9f8e7d6c-1111-4b2a-9c8d-7e6f5a4b3c2d";

const EVENTS: &[(&str, &str, &str, &str)] = &[
    (
        "ev01standup",
        "Standup",
        "2026-03-09T09:30:00Z",
        "2026-03-09T09:45:00Z",
    ),
    (
        "ev02planning",
        "Sprint planning",
        "2026-03-09T13:00:00Z",
        "2026-03-09T14:30:00Z",
    ),
    (
        "ev03hiring",
        "Interview: backend engineer",
        "2026-03-09T16:00:00Z",
        "2026-03-09T17:00:00Z",
    ),
    (
        "ev04standup",
        "Standup",
        "2026-03-10T09:30:00Z",
        "2026-03-10T09:45:00Z",
    ),
    (
        "ev05design",
        "Design review: search v2",
        "2026-03-10T10:00:00Z",
        "2026-03-10T11:00:00Z",
    ),
    (
        "ev06lunch",
        "Lunch with Margaret",
        "2026-03-10T12:30:00Z",
        "2026-03-10T13:30:00Z",
    ),
    (
        "ev07standup",
        "Standup",
        "2026-03-11T09:30:00Z",
        "2026-03-11T09:45:00Z",
    ),
    (
        "ev08one",
        "1:1 with Grace",
        "2026-03-11T15:00:00Z",
        "2026-03-11T15:30:00Z",
    ),
    (
        "ev09incident",
        "Incident review: EU outage",
        "2026-03-11T16:00:00Z",
        "2026-03-11T17:00:00Z",
    ),
    (
        "ev10standup",
        "Standup",
        "2026-03-12T09:30:00Z",
        "2026-03-12T09:45:00Z",
    ),
    (
        "ev11customer",
        "Globex renewal call",
        "2026-03-12T16:00:00Z",
        "2026-03-12T16:45:00Z",
    ),
    (
        "ev12allhands",
        "All-hands",
        "2026-03-12T16:00:00Z",
        "2026-03-12T17:00:00Z",
    ),
    (
        "ev13standup",
        "Standup",
        "2026-03-13T09:30:00Z",
        "2026-03-13T09:45:00Z",
    ),
    (
        "ev14retro",
        "Retro",
        "2026-03-13T14:00:00Z",
        "2026-03-13T15:00:00Z",
    ),
    (
        "ev15demo",
        "Sprint demo",
        "2026-03-13T15:30:00Z",
        "2026-03-13T16:30:00Z",
    ),
    (
        "ev16drinks",
        "Team drinks",
        "2026-03-13T17:30:00Z",
        "2026-03-13T19:00:00Z",
    ),
];

fn calendar_notion(r: &Recorded) -> (u16, Value) {
    match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/calendars/primary/events")
            if query(r, "timeMin").as_deref() == Some("2026-03-09T00:00:00Z")
                && query(r, "singleEvents").as_deref() == Some("true") =>
        {
            let attendees = ["ada@example.com", "grace@example.com", "alan@example.com"];
            let items = EVENTS
                .iter()
                .map(|(id, summary, start, end)| gcal_event(id, summary, start, end, &attendees));
            (200, gcal_events(items.collect()))
        }
        ("POST", "/v1/search") => {
            let workspace = json!({"type": "workspace", "workspace": true});
            let under = json!({"type": "page_id", "page_id": WEEKLY_NOTES});
            let results = vec![
                notion_page(WEEKLY_NOTES, "Weekly notes", workspace),
                notion_page(
                    "2c3d4e5f-2222-4a1b-8c9d-0e1f2a3b4c5d",
                    "Weekly notes template",
                    under,
                ),
            ];
            (
                200,
                json!({"object": "list", "results": results, "next_cursor": null,
                       "has_more": false, "type": "page_or_data_source", "page_or_data_source": {},
                       "request_id": "0f7f5c1e-6a8f-4a5e-9d64-4a3f1b2c3d4e"}),
            )
        }
        ("POST", "/v1/pages") => {
            let parent = json!({"type": "page_id", "page_id": WEEKLY_NOTES});
            (200, notion_page(NEW_PAGE, "Week of 9 March 2026", parent))
        }
        _ => not_found(r),
    }
}

async fn week_events(m: &mut Direct) -> Value {
    let found = m
        .turn(vec![
            (
                "gcalendar_events_list",
                json!({"calendar_id": "primary", "time_min": "2026-03-09T00:00:00Z",
                       "time_max": "2026-03-16T00:00:00Z", "single_events": true, "order_by": "startTime"}),
            ),
            (
                "notion_search",
                json!({"query": "Weekly notes", "filter": {"property": "object", "value": "page"}}),
            ),
        ])
        .await;
    let lines: Vec<String> = found[0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let start = e["start"]["dateTime"].as_str().unwrap();
            let end = e["end"]["dateTime"].as_str().unwrap();
            format!(
                "- {} {}–{} {}",
                &start[..10],
                &start[11..16],
                &end[11..16],
                e["summary"].as_str().unwrap()
            )
        })
        .collect();
    let page = m
        .call(
            "notion_pages_create",
            json!({
                "parent": {"page_id": found[1]["results"][0]["id"]},
                "properties": {"title": {"title": [{"text": {"content": "Week of 9 March 2026"}}]}},
                "markdown": lines.join("\n"),
            }),
        )
        .await;
    page["url"].clone()
}

// --------------------------------------------------------------------------------------------

const MAIL: &[(&str, &str, &str)] = &[
    (
        "18e2a1f0c3d4b5a6",
        "Grace Hopper <grace@example.com>",
        "Re: compiler talk on Thursday",
    ),
    (
        "18e2a0d9b8c7e6f5",
        "GitHub <noreply@github.com>",
        "[octo-org/hello-world] Run failed: CI - main (30434377)",
    ),
    (
        "18e29fc8a7b6d5e4",
        "Alan Turing <alan@example.com>",
        "Draft of the paper, section 3",
    ),
    (
        "18e29eb7f6e5c4d3",
        "Stripe <notifications@stripe.com>",
        "Payment failed for Hooli",
    ),
    (
        "18e29da6e5d4c3b2",
        "Margaret Hamilton <margaret@example.com>",
        "Lunch next week?",
    ),
    (
        "18e29c95d4c3b2a1",
        "Notion Team <team@makenotion.com>",
        "Your weekly Notion digest",
    ),
    (
        "18e29b84c3b2a190",
        "Linear <notifications@linear.app>",
        "ENG-431 was assigned to you",
    ),
    (
        "18e29a73b2a1908f",
        "Katherine Johnson <katherine@example.com>",
        "Numbers for the board deck",
    ),
    (
        "18e29962a1908f7e",
        "Google Calendar <calendar-notification@google.com>",
        "Invitation: Incident review: EU outage",
    ),
    (
        "18e29851908f7e6d",
        "Barbara Liskov <barbara@example.com>",
        "Re: substitutability in the plugin API",
    ),
    (
        "18e297408f7e6d5c",
        "Slack <no-reply@slack.com>",
        "3 new messages in #incidents",
    ),
    (
        "18e2962f7e6d5c4b",
        "Globex Procurement <procurement@globex.example>",
        "Renewal terms, v2",
    ),
    (
        "18e2951e6d5c4b3a",
        "Donald Knuth <donald@example.com>",
        "A small error on page 212",
    ),
    (
        "18e2940d5c4b3a29",
        "Recruiting <jobs@example.com>",
        "Interview feedback due today",
    ),
];

fn mail(r: &Recorded) -> (u16, Value) {
    match r.path.strip_prefix("/gmail/v1/users/me/messages") {
        Some("") if query(r, "q").as_deref() == Some("is:unread newer_than:1d") => {
            let ids: Vec<&str> = MAIL.iter().map(|m| m.0).collect();
            (200, gmail_list(&ids))
        }
        Some(rest) if query(r, "format").as_deref() == Some("metadata") => {
            let id = rest.trim_start_matches('/');
            match MAIL.iter().find(|m| m.0 == id) {
                Some((id, from, subject)) => (
                    200,
                    gmail_message(id, from, subject, "Mon, 9 Mar 2026 08:12:44 -0700"),
                ),
                None => not_found(r),
            }
        }
        _ => not_found(r),
    }
}

async fn unread_mail(m: &mut Direct) -> Value {
    let list = m
        .call(
            "gmail_messages_list",
            json!({"user_id": "me", "q": "is:unread newer_than:1d"}),
        )
        .await;
    let calls = list["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|msg| {
            let args = json!({"user_id": "me", "id": msg["id"], "format": "metadata", "metadata_headers": ["From", "Subject"]});
            ("gmail_messages_get", args)
        })
        .collect();
    let messages = m.turn(calls).await;
    let header = |m: &Value, name: &str| {
        m["payload"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == name)
            .map_or(Value::Null, |h| h["value"].clone())
    };
    let answer = messages
        .iter()
        .map(|m| json!({"from": header(m, "From"), "subject": header(m, "Subject")}));
    Value::Array(answer.collect())
}

// --------------------------------------------------------------------------------------------

/// A spreadsheet: id, name, when it changed, and its tabs (title, rows, columns).
type Book = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, u32, u32)],
);

const BOOKS: &[Book] = &[
    (
        "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
        "Q1 pipeline",
        "2026-03-11T17:02:00.000Z",
        &[("Deals", 412, 14), ("Summary", 40, 6)],
    ),
    (
        "1Hk3pQ9zR2sT4uV6wX8yZ0aB1cD2eF3gH4iJ5kL6mN7o",
        "Hiring plan 2026",
        "2026-03-10T11:45:00.000Z",
        &[("Roles", 86, 9)],
    ),
    (
        "1Zx9Cv8Bn7Mq6Wl5Ek4Rj3Th2Yg1Uf0Id9Os8Pa7Sd6F",
        "On-call rota",
        "2026-03-09T18:20:00.000Z",
        &[("March", 31, 5), ("April", 30, 5), ("Swaps", 14, 4)],
    ),
    (
        "1Qw2Er3Ty4Ui5Op6As7Df8Gh9Jk0LzXcVbNm1Qw2Er3T",
        "Team budget",
        "2026-03-09T09:05:00.000Z",
        &[("2026", 230, 18), ("2025", 218, 18), ("Notes", 12, 2)],
    ),
];

fn drive(r: &Recorded) -> (u16, Value) {
    if r.path == "/files"
        && query(r, "q").is_some_and(|q| q.contains("modifiedTime > '2026-03-09T00:00:00'"))
    {
        let files = BOOKS
            .iter()
            .map(|(id, name, modified, _)| drive_file(id, name, modified));
        return (
            200,
            json!({"kind": "drive#fileList", "incompleteSearch": false, "files": files.collect::<Vec<_>>()}),
        );
    }
    match r.path.strip_prefix("/v4/spreadsheets/") {
        Some(id) => match BOOKS.iter().find(|b| b.0 == id) {
            Some((id, title, _, sheets)) => (200, spreadsheet(id, title, sheets)),
            None => not_found(r),
        },
        None => not_found(r),
    }
}

async fn sheets_changed(m: &mut Direct) -> Value {
    let q = "mimeType = 'application/vnd.google-apps.spreadsheet' and modifiedTime > '2026-03-09T00:00:00' and trashed = false";
    let files = m
        .call(
            "gdrive_files_list",
            json!({"q": q, "order_by": "modifiedTime desc"}),
        )
        .await;
    let calls = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let args = json!({"spreadsheet_id": f["id"]});
            ("gsheets_spreadsheets_get", args)
        })
        .collect();
    let books = m.turn(calls).await;
    let answer = books.iter().map(|b| {
        let tabs: Vec<Value> = b["sheets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let p = &s["properties"];
                json!({"title": p["title"], "rows": p["gridProperties"]["rowCount"]})
            })
            .collect();
        json!({"name": b["properties"]["title"], "tabs": tabs})
    });
    Value::Array(answer.collect())
}
