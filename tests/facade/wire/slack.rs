//! The `slack` pack on the wire: form-encoded writes and query-string reads through a
//! `ToolSession` to a real axum server on 127.0.0.1, the `ok: false` envelope as an API error,
//! cursor pagination, and the pack's curation rules.

#![cfg(feature = "pack-slack")]

use crate::wire::wire_stub as stub;

use charter::CharterError;
use charter::http::next_page;
use charter::table::BodyEncoding;
use serde_json::json;
use stub::{Stub, call, check_curated, route, session, tool};

const TOKEN: &str = "xoxb-1111-2222-abcdefABCDEF";
const TABLE: &charter::table::Table = &charter::packs::slack::TOOLS;

fn slack(stub: &Stub) -> charter::ToolSession {
    session(
        TABLE,
        &format!("{}/api", stub.base),
        &[("SLACK_BOT_TOKEN", TOKEN)],
    )
}

#[tokio::test]
async fn chat_post_message_is_a_form_post_with_the_bot_token() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"ok": true, "channel": "C024BE91L", "ts": "1712345678.000200",
                   "message": {"type": "message", "text": "Deploy done", "ts": "1712345678.000200"}}),
        )
    })
    .await;
    let s = slack(&stub);
    let out = call(
        &s,
        "slack_chat_post_message",
        json!({
            "channel": "C024BE91L",
            "text": "Deploy *done* <@U123> & 100%",
            "thread_ts": "1712345000.000100",
            "reply_broadcast": true,
            "blocks": "[{\"type\":\"divider\"}]"
        }),
    )
    .await
    .unwrap();
    assert_eq!(out["ts"], "1712345678.000200");

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", "/api/chat.postMessage", None)
    );
    assert_eq!(
        r.header("authorization").unwrap(),
        format!("Bearer {TOKEN}")
    );
    assert_eq!(
        r.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    // Declaration order; the JSON string of `blocks` travels as one encoded form value.
    let fields: Vec<(String, String)> = form(r.text());
    assert_eq!(
        fields,
        [
            ("channel", "C024BE91L"),
            ("text", "Deploy *done* <@U123> & 100%"),
            ("blocks", "[{\"type\":\"divider\"}]"),
            ("thread_ts", "1712345000.000100"),
            ("reply_broadcast", "true"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    assert!(!r.text().contains(TOKEN), "the token is never in the body");
}

/// Decodes `application/x-www-form-urlencoded` text (the stub checks what the server would read).
fn form(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .map(|pair| {
            let (k, v) = pair.split_once('=').expect("key=value");
            let decode = |s: &str| {
                let s = s.replace('+', " ");
                charter_testkit::stub::percent_decode(&s)
            };
            (decode(k), decode(v))
        })
        .collect()
}

#[tokio::test]
async fn ok_false_is_an_api_error_with_slacks_error_code() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"ok": false, "error": "channel_not_found", "warning": "missing_charset"}),
        )
    })
    .await;
    let s = slack(&stub);
    let err = call(
        &s,
        "slack_chat_post_message",
        json!({"channel": "C0NOPE", "text": "hi"}),
    )
    .await
    .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((api.status, api.method), (200, "POST"));
    assert_eq!(api.url_template, "/chat.postMessage");
    assert_eq!(api.body, "channel_not_found");
    assert!(!err.to_string().contains(TOKEN), "no secret in errors");

    // Reads go through the same envelope.
    let err = call(
        &s,
        "slack_conversations_history",
        json!({"channel": "C0NOPE"}),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, CharterError::Api(api) if api.body == "channel_not_found" && api.method == "GET"),
        "{err:?}"
    );
    assert_eq!(stub.take().len(), 2);
}

#[tokio::test]
async fn conversations_history_reads_with_a_query_projects_and_walks_the_cursor() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or_default().contains("cursor=");
        let (ts, cursor) = if second {
            ("1712000000.000001", "")
        } else {
            ("1712000500.000002", "bmV4dF90czoxNzEy")
        };
        (
            200,
            json!({
                "ok": true,
                "messages": [{
                    "type": "message", "user": "U1", "text": "ship it", "ts": ts,
                    "team": "T1", "blocks": [{"type": "rich_text"}],
                    "reactions": [{"name": "rocket", "count": 2, "users": ["U2", "U3"]}]
                }],
                "has_more": !second,
                "pin_count": 0,
                "response_metadata": {"next_cursor": cursor}
            }),
        )
    })
    .await;
    let s = slack(&stub);
    let args = json!({"channel": "C024BE91L", "oldest": "1711000000", "limit": 1});
    let first = call(&s, "slack_conversations_history", args.clone())
        .await
        .unwrap();
    // The projection: no blocks, team, pin_count, reacting users; the envelope's `ok` is gone;
    // the cursor is kept so the walk can go on.
    assert_eq!(
        first,
        json!({
            "messages": [{
                "type": "message", "user": "U1", "text": "ship it", "ts": "1712000500.000002",
                "reactions": [{"name": "rocket", "count": 2}]
            }],
            "has_more": true,
            "response_metadata": {"next_cursor": "bmV4dF90czoxNzEy"}
        })
    );
    let history = route(TABLE, "slack_conversations_history");
    let next = next_page(history, &args, &first).expect("a second page");
    assert_eq!(next["cursor"], "bmV4dF90czoxNzEy");
    let last = call(&s, "slack_conversations_history", next.clone())
        .await
        .unwrap();
    assert_eq!(
        next_page(history, &next, &last),
        None,
        "has_more false ends it"
    );

    let log = stub.take();
    assert_eq!(
        log.iter()
            .map(|r| (
                r.method.as_str(),
                r.path.as_str(),
                r.query.as_deref().unwrap()
            ))
            .collect::<Vec<_>>(),
        [
            (
                "GET",
                "/api/conversations.history",
                "channel=C024BE91L&oldest=1711000000&limit=1"
            ),
            (
                "GET",
                "/api/conversations.history",
                "channel=C024BE91L&oldest=1711000000&limit=1&cursor=bmV4dF90czoxNzEy"
            ),
        ]
    );
    for r in &log {
        assert!(r.body.is_empty(), "a GET carries no body");
        assert_eq!(
            r.header("authorization").unwrap(),
            format!("Bearer {TOKEN}")
        );
    }

    // An empty next_cursor ends the walk too (Slack's way when has_more is absent).
    let ended = json!({"channels": [], "response_metadata": {"next_cursor": ""}});
    assert_eq!(
        next_page(route(TABLE, "slack_conversations_list"), &json!({}), &ended),
        None
    );
}

#[tokio::test]
async fn list_filters_dm_opening_and_reactions_on_the_wire() {
    let stub = Stub::start(|r| match r.path.as_str() {
        "/api/conversations.list" => (
            200,
            json!({"ok": true, "channels": [{"id": "C1", "name": "general", "is_private": false,
                   "creator": "U9", "shared_team_ids": ["T1"], "topic": {"value": "hi", "creator": "U9"}}],
                   "response_metadata": {"next_cursor": ""}}),
        ),
        "/api/conversations.open" => (200, json!({"ok": true, "channel": {"id": "D069C7QFK"}})),
        _ => (200, json!({"ok": true})),
    })
    .await;
    let s = slack(&stub);
    let channels = call(
        &s,
        "slack_conversations_list",
        json!({"types": ["public_channel", "private_channel"], "exclude_archived": true}),
    )
    .await
    .unwrap();
    assert_eq!(
        channels,
        json!({"channels": [{"id": "C1", "name": "general", "is_private": false, "topic": {"value": "hi"}}],
               "response_metadata": {"next_cursor": ""}})
    );
    let dm = call(&s, "slack_conversations_open", json!({"users": "U1"}))
        .await
        .unwrap();
    assert_eq!(dm["channel"]["id"], "D069C7QFK");
    call(
        &s,
        "slack_reactions_add",
        json!({"channel": "D069C7QFK", "timestamp": "1712000000.000100", "name": "white_check_mark"}),
    )
    .await
    .unwrap();
    call(
        &s,
        "slack_users_lookup_by_email",
        json!({"email": "ada@example.com"}),
    )
    .await
    .unwrap();
    call(&s, "slack_dnd_end_snooze", json!({})).await.unwrap();

    let log = stub.take();
    // Comma style: one `types` value, Slack's comma-separated list.
    assert_eq!(
        log[0].query.as_deref(),
        Some("types=public_channel,private_channel&exclude_archived=true")
    );
    assert_eq!(
        (log[1].method.as_str(), log[1].path.as_str(), log[1].text()),
        ("POST", "/api/conversations.open", "users=U1")
    );
    assert_eq!(
        (log[2].path.as_str(), log[2].text()),
        (
            "/api/reactions.add",
            "channel=D069C7QFK&timestamp=1712000000.000100&name=white_check_mark"
        )
    );
    assert_eq!(
        (
            log[3].method.as_str(),
            log[3].path.as_str(),
            log[3].query.as_deref()
        ),
        (
            "GET",
            "/api/users.lookupByEmail",
            Some("email=ada%40example.com")
        )
    );
    // A write without parameters is a bare POST.
    assert_eq!(
        (
            log[4].method.as_str(),
            log[4].path.as_str(),
            log[4].body.len()
        ),
        ("POST", "/api/dnd.endSnooze", 0)
    );
}

#[tokio::test]
async fn bad_calls_are_refused_before_any_request() {
    let stub = Stub::start(|_| (200, json!({"ok": true}))).await;
    let s = slack(&stub);
    for (name, args, needle) in [
        // A message ts is seconds.micros, never a bare number or a name.
        (
            "slack_chat_delete",
            json!({"channel": "C1", "ts": "yesterday"}),
            "ts",
        ),
        // The credential is the pack's: the model cannot pass a token.
        (
            "slack_chat_post_message",
            json!({"channel": "C1", "text": "x", "token": "xoxp-stolen"}),
            "token",
        ),
        ("slack_conversations_history", json!({}), "channel"),
        (
            "slack_conversations_list",
            json!({"types": ["public_channel", "dm"]}),
            "types",
        ),
        (
            "slack_search_messages",
            json!({"query": "x", "count": 101}),
            "count",
        ),
        (
            "slack_users_set_presence",
            json!({"presence": "busy"}),
            "presence",
        ),
    ] {
        let err = call(&s, name, args).await.unwrap_err();
        let CharterError::Validation(message) = &err else {
            panic!("{name}: {err:?}")
        };
        assert!(message.contains(needle), "{name}: {message}");
    }
    assert!(stub.take().is_empty(), "nothing was sent");
}

#[test]
fn the_pack_is_curated() {
    check_curated(TABLE, 70, 2500, &["token", "as_user"]);
    // Reads are read-only and idempotent, writes are not read-only; deletions are destructive.
    for def in TABLE.tools {
        let a = def.annotations;
        let charter::table::Exec::Http(route) = def.exec else {
            unreachable!()
        };
        if route.method.as_str() == "GET" {
            assert!(
                a.read_only && a.idempotent && !a.destructive,
                "{}",
                def.name
            );
        } else {
            assert!(!a.read_only, "{}: a POST write", def.name);
            assert!(
                matches!(route.body, BodyEncoding::Form | BodyEncoding::None),
                "{}: Slack writes are form-encoded",
                def.name
            );
        }
    }
    for name in [
        "slack_chat_delete",
        "slack_files_delete",
        "slack_reminders_delete",
        "slack_chat_delete_scheduled_message",
    ] {
        let a = tool(TABLE, name).annotations;
        assert!(a.destructive && a.idempotent, "{name}");
    }
    for name in [
        "slack_chat_post_message",
        "slack_chat_schedule_message",
        "slack_conversations_create",
    ] {
        let a = tool(TABLE, name).annotations;
        assert!(!a.idempotent && !a.destructive, "{name}");
    }
    // Every cursor-paginated tool names Slack's cursor.
    let mut cursors = 0;
    for def in TABLE.tools {
        let charter::table::Exec::Http(route) = def.exec else {
            unreachable!()
        };
        if let Some(charter::table::Pagination::Cursor { next, param }) = route.pagination {
            assert_eq!((next, param), ("response_metadata.next_cursor", "cursor"));
            cursors += 1;
        }
    }
    assert!(cursors >= 10, "{cursors} cursor-paginated tools");
    // The hints a user's words need.
    let open = tool(TABLE, "slack_conversations_open");
    assert!(open.search.hints.contains(&"dm"), "{:?}", open.search.hints);
}
