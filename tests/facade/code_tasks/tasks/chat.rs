//! Tasks over Slack and Linear.

use serde_json::{Value, json};

use crate::code_tasks::harness::{Direct, Task};
use crate::code_tasks::payloads::*;
use crate::code_tasks::{not_found, query};
use charter_testkit::stub::Recorded;

pub const TASKS: &[Task] = &[
    Task {
        name: "slack_outage_mentions",
        question: "Which Slack channels mentioned an outage today, and what was said?",
        packs: &["slack"],
        searches: &["list slack channels", "channel message history"],
        api: slack,
        direct: |m| Box::pin(outage_mentions(m)),
        program: include_str!("../programs/slack_outage_mentions.js"),
        answer: || {
            json!([
                {"channel": "incidents", "text": "EU outage mitigated at 10:42, monitoring."},
                {"channel": "incidents", "text": "SEV2 declared: partial outage of the EU API, error rate 12 %. Incident channel is #inc-0309."},
                {"channel": "support", "text": "Three customers in Germany report timeouts, is this the outage?"},
                {"channel": "ops", "text": "Postmortem for the Outage of 9 March is due Friday."}
            ])
        },
    },
    Task {
        name: "linear_unassigned_in_sprint",
        question: "In the Engineering team's current sprint, which issues have no assignee, by state?",
        packs: &["linear"],
        searches: &["linear teams", "current sprint issues"],
        api: linear,
        direct: |m| Box::pin(unassigned_in_sprint(m)),
        program: include_str!("../programs/linear_unassigned_in_sprint.js"),
        answer: || {
            let mut by_state = serde_json::Map::new();
            for n in 0..62u32 {
                let (state, assignee) = sprint_issue(n);
                if assignee.is_none() {
                    let list = by_state.entry(state).or_insert_with(|| json!([]));
                    list.as_array_mut()
                        .unwrap()
                        .push(json!(format!("ENG-{}", 400 + n)));
                }
            }
            Value::Object(by_state)
        },
    },
];

// --------------------------------------------------------------------------------------------

const CHANNELS: &[(&str, &str, &str, u32)] = &[
    ("C061EG9SL", "general", "Company-wide announcements", 412),
    (
        "C0612INCD",
        "incidents",
        "Production incidents, one thread each",
        96,
    ),
    (
        "C0613SUPP",
        "support",
        "Customer questions that need engineering",
        58,
    ),
    ("C0614ENGR", "engineering", "Engineering chatter", 143),
    ("C0615RAND", "random", "Everything else", 388),
    ("C0616SALE", "sales", "Deals and renewals", 41),
    (
        "C0617DEPL",
        "deploys",
        "Every production deploy, posted by the pipeline",
        77,
    ),
    ("C0618DSGN", "design", "Design reviews and critique", 35),
    ("C0619OPSX", "ops", "Infrastructure and on-call", 52),
];

const CHATTER: &[&str] = &[
    "Can someone review #1409 today?",
    "The flaky macOS test is back, looking.",
    "Standup notes are in the doc.",
    "Who owns the billing webhooks now?",
    "Deploy 2026.03.09-4 to production finished.",
    "RFC for the search index cache is up for review.",
    "Lunch order closes at 11:30.",
    "Moved the retro to Friday 14:00.",
    "The new laptop images are ready.",
    "Thanks all for the quick turnaround!",
];

/// What was said in channel `c` today, newest first (`conversations.history` order).
fn history(c: usize) -> Vec<Value> {
    let said: Vec<(String, &str)> = match CHANNELS[c].1 {
        "incidents" => vec![
            ("EU outage mitigated at 10:42, monitoring.".into(), "U04MARG"),
            ("Error rate back under 1 %.".into(), "U03ALAN"),
            ("SEV2 declared: partial outage of the EU API, error rate 12 %. Incident channel is #inc-0309.".into(), "U04MARG"),
        ],
        "support" => vec![
            ("Three customers in Germany report timeouts, is this the outage?".into(), "U05LIN"),
            ("Globex asks for an invoice copy.".into(), "U05LIN"),
        ],
        "ops" => vec![("Postmortem for the Outage of 9 March is due Friday.".into(), "U06ADA")],
        _ => Vec::new(),
    };
    let chatter = (0..4 + (c * 5) % 9).map(|k| {
        (
            CHATTER[(c * 3 + k) % CHATTER.len()].to_owned(),
            ["U02GRACE", "U03ALAN", "U06ADA"][k % 3],
        )
    });
    said.into_iter()
        .chain(chatter)
        .enumerate()
        .map(|(k, (text, user))| {
            let ts = format!(
                "{}.{:06}",
                1773060000 - 900 * k as u64 - 37 * c as u64,
                100 + k
            );
            slack_message(&ts, user, &text)
        })
        .collect()
}

fn slack(r: &Recorded) -> (u16, Value) {
    match r.path.as_str() {
        "/conversations.list" => {
            let channels = CHANNELS
                .iter()
                .map(|(id, name, purpose, n)| slack_channel(id, name, purpose, *n));
            (
                200,
                json!({"ok": true, "channels": channels.collect::<Vec<_>>(),
                       "response_metadata": {"next_cursor": ""}}),
            )
        }
        "/conversations.history" if query(r, "oldest").as_deref() == Some("1773014400") => {
            let channel = query(r, "channel").unwrap_or_default();
            let Some(c) = CHANNELS.iter().position(|c| c.0 == channel) else {
                return not_found(r);
            };
            (
                200,
                json!({"ok": true, "messages": history(c), "has_more": false,
                       "pin_count": 0, "channel_actions_ts": null, "channel_actions_count": 0,
                       "response_metadata": {"next_cursor": ""}}),
            )
        }
        _ => not_found(r),
    }
}

async fn outage_mentions(m: &mut Direct) -> Value {
    let list = m
        .call(
            "slack_conversations_list",
            json!({"types": ["public_channel"], "exclude_archived": true}),
        )
        .await;
    let channels = list["channels"].as_array().unwrap().clone();
    let calls = channels
        .iter()
        .map(|c| {
            let args = json!({"channel": c["id"], "oldest": "1773014400"});
            ("slack_conversations_history", args)
        })
        .collect();
    let histories = m.turn(calls).await;
    let mut answer = Vec::new();
    for (c, history) in channels.iter().zip(&histories) {
        for msg in history["messages"].as_array().unwrap() {
            let text = msg["text"].as_str().unwrap();
            if text.to_lowercase().contains("outage") {
                answer.push(json!({"channel": c["name"], "text": text}));
            }
        }
    }
    Value::Array(answer)
}

// --------------------------------------------------------------------------------------------

const ENGINEERING: &str = "9cfb482a-81e3-4154-b5b9-2c805e70a02d";

/// Issue `n` of the sprint (ENG-400 + n): its state and assignee.
fn sprint_issue(n: u32) -> (&'static str, Option<&'static str>) {
    let states = ["Todo", "In Progress", "In Review", "Done", "Backlog"];
    let people = ["Grace Hopper", "Alan Turing", "Ada Lovelace"];
    let assignee = (n % 4 != 1 && n % 7 != 3).then(|| people[n as usize % 3]);
    (states[(n as usize * 3) % 5], assignee)
}

const TITLES: &[&str] = &[
    "Cache the schema index across sessions",
    "Flaky macOS test in the scheduler suite",
    "Search: synonyms for sprint and cycle",
    "Retry idempotent requests once",
    "Document the egress map",
    "EU API error budget alert",
    "Upgrade tokio",
    "Paginate the cycle view",
];

fn linear(r: &Recorded) -> (u16, Value) {
    if r.method != "POST" || r.path != "/" {
        return not_found(r);
    }
    let body: Value = serde_json::from_slice(&r.body).unwrap_or_default();
    let document = body["query"].as_str().unwrap_or_default();
    let variables = &body["variables"];
    if document.contains("teams(") {
        let team = |id: &str, key: &str, name: &str| {
            json!({"id": id, "key": key, "name": name, "description": format!("The {name} team."),
                   "visibility": "public", "cyclesEnabled": true})
        };
        let nodes = vec![
            team("5f2a9c1e-0b7d-4e3f-8a6c-1d2e3f4a5b6c", "DES", "Design"),
            team(ENGINEERING, "ENG", "Engineering"),
            team("7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d", "OPS", "Operations"),
        ];
        return (
            200,
            json!({"data": {"teams": {"nodes": nodes, "pageInfo": {"hasNextPage": false, "endCursor": null}}}}),
        );
    }
    if document.contains("activeCycle") && variables["teamId"] == ENGINEERING {
        let start = if variables["after"] == "cursor-50" {
            50
        } else {
            0
        };
        let end = (start + 50).min(62);
        let nodes: Vec<Value> = (start..end)
            .map(|n| {
                let (state, assignee) = sprint_issue(n);
                linear_issue(400 + n, TITLES[n as usize % TITLES.len()], state, assignee)
            })
            .collect();
        let more = end < 62;
        return (
            200,
            json!({"data": {"team": {"key": "ENG", "activeCycle": {
                "id": "c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e0f", "number": 42, "name": "Sprint 42",
                "startsAt": "2026-03-09T00:00:00.000Z", "endsAt": "2026-03-23T00:00:00.000Z",
                "progress": 0.31,
                "issues": {"nodes": nodes, "pageInfo": {"hasNextPage": more,
                    "endCursor": if more { json!("cursor-50") } else { json!("cursor-62") }}}}}}}),
        );
    }
    not_found(r)
}

async fn unassigned_in_sprint(m: &mut Direct) -> Value {
    let teams = m.call("linear_teams_list", json!({})).await;
    let team = teams["data"]["teams"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Engineering")
        .unwrap()["id"]
        .clone();
    let mut by_state = serde_json::Map::new();
    let mut after: Option<Value> = None;
    loop {
        let mut args = json!({"team_id": team, "first": 50});
        if let Some(cursor) = &after {
            args["after"] = cursor.clone();
        }
        let page = m.call("linear_cycles_current", args).await;
        let issues = &page["data"]["team"]["activeCycle"]["issues"];
        for issue in issues["nodes"].as_array().unwrap() {
            if issue["assignee"].is_null() {
                let list = by_state
                    .entry(issue["state"]["name"].as_str().unwrap())
                    .or_insert_with(|| json!([]));
                list.as_array_mut()
                    .unwrap()
                    .push(issue["identifier"].clone());
            }
        }
        if issues["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = Some(issues["pageInfo"]["endCursor"].clone());
    }
    Value::Object(by_state)
}
