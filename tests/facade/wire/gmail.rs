//! The `gmail` pack on the wire: each call goes through a `ToolSession` (validation, dispatch)
//! and the shared `HttpExecutor` to a recording axum server on 127.0.0.1, which checks the
//! method, path, query, bearer token and body Gmail would receive.

#![cfg(feature = "pack-gmail")]

use crate::wire::google_stub;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use charter::CharterError;
use charter::http::next_page;
use google_stub::{
    Reply, Stub, TOKEN, assert_curated, assert_google_auth, assert_unauthenticated, call,
    call_text, route, session,
};
use serde_json::json;

const GMAIL: &charter::table::Table = &charter::packs::gmail::TOOLS;

/// A reply in an existing thread, as the `raw` description tells a model to build it.
fn reply_rfc2822() -> String {
    [
        "To: ann@example.com",
        "Cc: bob@example.com",
        "Subject: Re: Q3 report",
        "In-Reply-To: <CAF=abc123@mail.gmail.com>",
        "References: <CAF=abc123@mail.gmail.com>",
        "Content-Type: text/plain; charset=\"UTF-8\"",
        "",
        "Hi Ann, the figures are in. Ünïcödé is fine too.",
    ]
    .join("\r\n")
}

#[tokio::test]
async fn messages_send_posts_the_raw_message_and_thread_as_json() {
    let stub = Stub::start(|_| {
        Reply::json(
            200,
            json!({"id": "18c0f1", "threadId": "18b9aa", "labelIds": ["SENT"], "historyId": "991"}),
        )
    })
    .await;
    let s = session(GMAIL, &stub.base);
    let raw = URL_SAFE_NO_PAD.encode(reply_rfc2822());
    let out = call(
        &s,
        "gmail_messages_send",
        json!({"user_id": "me", "raw": raw, "thread_id": "18b9aa"}),
    )
    .await
    .unwrap();
    // The projection keeps what the model needs to refer to the sent message.
    assert_eq!(
        out,
        json!({"id": "18c0f1", "threadId": "18b9aa", "labelIds": ["SENT"]})
    );

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", "/gmail/v1/users/me/messages/send", None)
    );
    assert_google_auth(&r);
    // The body is Gmail's JSON Message form, camelCase on the wire, nothing else.
    assert_eq!(
        r.text(),
        format!(r#"{{"raw":"{raw}","threadId":"18b9aa"}}"#)
    );
    let sent = URL_SAFE_NO_PAD
        .decode(r.json()["raw"].as_str().unwrap())
        .unwrap();
    assert_eq!(String::from_utf8(sent).unwrap(), reply_rfc2822());
    assert!(!r.text().contains(TOKEN), "the token is only in the header");
}

#[tokio::test]
async fn messages_send_refuses_a_message_that_is_not_base64url() {
    let stub = Stub::start(|_| Reply::json(200, json!({}))).await;
    let s = session(GMAIL, &stub.base);
    // Plain RFC 2822 text, and standard base64 with `+` and `/`: both refused before sending.
    for raw in [
        reply_rfc2822(),
        "VG86IGFubkBleGFtcGxlLmNvbQ0K+/8=".to_owned(),
    ] {
        let err = call(
            &s,
            "gmail_messages_send",
            json!({"user_id": "me", "raw": raw}),
        )
        .await
        .unwrap_err();
        let CharterError::Validation(message) = err else {
            panic!("{err:?}")
        };
        assert!(message.contains("raw"), "{message}");
    }
    // `user_id` is required (the schema says `me`), so a call without it is corrected too.
    let err = call(&s, "gmail_messages_send", json!({"raw": "VG8"}))
        .await
        .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn messages_list_sends_the_search_as_query_and_projects_ids() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or("").contains("pageToken=");
        Reply::json(
            200,
            json!({
                "messages": [{"id": if second { "m3" } else { "m1" }, "threadId": "t1"}],
                "nextPageToken": if second { serde_json::Value::Null } else { json!("p2") },
                "resultSizeEstimate": 3
            }),
        )
    })
    .await;
    let s = session(GMAIL, &stub.base);
    let args = json!({
        "user_id": "me",
        "q": "from:ann@example.com is:unread newer_than:7d",
        "label_ids": ["INBOX", "UNREAD"],
        "max_results": 10
    });
    let out = call(&s, "gmail_messages_list", args.clone()).await.unwrap();
    assert_eq!(
        out,
        json!({"messages": [{"id": "m1", "threadId": "t1"}], "nextPageToken": "p2", "resultSizeEstimate": 3})
    );
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/gmail/v1/users/me/messages")
    );
    assert_google_auth(&r);
    assert!(r.body.is_empty(), "a GET carries no body");
    // Lists repeat their key; names are camelCase; the search text is percent-encoded.
    assert_eq!(
        r.query_pairs(),
        [
            ("q", "from:ann@example.com is:unread newer_than:7d"),
            ("labelIds", "INBOX"),
            ("labelIds", "UNREAD"),
            ("maxResults", "10"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    assert!(
        r.query
            .as_deref()
            .unwrap()
            .starts_with("q=from%3Aann%40example.com%20is%3Aunread")
    );

    // The declared cursor: nextPageToken becomes page_token (pageToken on the wire).
    let route = route(GMAIL, "gmail_messages_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["page_token"], "p2");
    let last = call(&s, "gmail_messages_list", next.clone()).await.unwrap();
    assert!(
        stub.take()[0]
            .query_pairs()
            .contains(&("pageToken".into(), "p2".into()))
    );
    assert_eq!(next_page(route, &next, &last), None);

    // max_results is bounded as Gmail documents (1-500).
    let err = call(
        &s,
        "gmail_messages_list",
        json!({"user_id": "me", "max_results": 501}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}

#[tokio::test]
async fn modify_drafts_and_mailbox_addresses_on_the_wire() {
    let stub = Stub::start(|r| match (r.method.as_str(), r.path.as_str()) {
        ("DELETE", _) => Reply::status(204),
        (_, p) if p.ends_with("/drafts") => Reply::json(
            200,
            json!({"id": "r-42", "message": {"id": "m9", "threadId": "t9", "labelIds": ["DRAFT"]}}),
        ),
        _ => Reply::json(
            200,
            json!({"id": "m1", "threadId": "t1", "labelIds": ["STARRED"], "snippet": "x"}),
        ),
    })
    .await;
    let s = session(GMAIL, &stub.base);

    // Mark read and star: label ids, camelCase keys.
    let out = call(
        &s,
        "gmail_messages_modify",
        json!({"user_id": "me", "id": "m1", "remove_label_ids": ["UNREAD"], "add_label_ids": ["STARRED"]}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        json!({"id": "m1", "threadId": "t1", "labelIds": ["STARRED"]})
    );

    // A draft nests the raw message under `message`.
    let raw = URL_SAFE_NO_PAD.encode("To: ann@example.com\r\nSubject: Hi\r\n\r\nDraft");
    call(
        &s,
        "gmail_drafts_create",
        json!({"user_id": "me", "message": {"raw": raw, "thread_id": "t9"}}),
    )
    .await
    .unwrap();

    // Another mailbox by address, and a filter with nested criteria and actions.
    call(
        &s,
        "gmail_filters_create",
        json!({"user_id": "ops@example.com",
               "criteria": {"from": "alerts@example.com", "has_attachment": true},
               "action": {"add_label_ids": ["Label_7"], "remove_label_ids": ["INBOX"]}}),
    )
    .await
    .unwrap();
    let deleted = call_text(
        &s,
        "gmail_labels_delete",
        json!({"user_id": "me", "id": "Label_7"}),
    )
    .await
    .unwrap();
    assert_eq!(deleted, "HTTP 204: the API answered with an empty body.");

    let log = stub.take();
    let seen: Vec<(&str, &str)> = log
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("POST", "/gmail/v1/users/me/messages/m1/modify"),
            ("POST", "/gmail/v1/users/me/drafts"),
            ("POST", "/gmail/v1/users/ops%40example.com/settings/filters"),
            ("DELETE", "/gmail/v1/users/me/labels/Label_7"),
        ]
    );
    for r in &log {
        assert_google_auth(r);
        assert_eq!(r.query, None);
    }
    assert_eq!(
        log[0].text(),
        r#"{"addLabelIds":["STARRED"],"removeLabelIds":["UNREAD"]}"#
    );
    assert_eq!(
        log[1].json(),
        json!({"message": {"raw": raw, "threadId": "t9"}})
    );
    assert_eq!(
        log[2].json(),
        json!({"criteria": {"from": "alerts@example.com", "hasAttachment": true},
               "action": {"addLabelIds": ["Label_7"], "removeLabelIds": ["INBOX"]}})
    );
    assert!(log[3].body.is_empty());
}

#[tokio::test]
async fn a_host_can_pin_user_id_to_me_on_every_tool() {
    let stub =
        Stub::start(|_| Reply::json(200, json!({"messages": [], "resultSizeEstimate": 0}))).await;
    let mut s = session(GMAIL, &stub.base);
    // Every Gmail tool takes `user_id`, so one loop removes it from the model's view.
    for def in GMAIL.tools {
        s.pin(def.name, "user_id", json!("me")).unwrap();
    }
    call(&s, "gmail_messages_list", json!({"q": "is:unread"}))
        .await
        .unwrap();
    let r = stub.only();
    assert_eq!(r.path, "/gmail/v1/users/me/messages");
    assert_eq!(r.query.as_deref(), Some("q=is%3Aunread"));
    // A pinned field is not the model's to set.
    let err = call(
        &s,
        "gmail_messages_list",
        json!({"user_id": "boss@example.com"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}

#[tokio::test]
async fn a_rejected_token_is_an_api_error_without_the_token() {
    let stub = Stub::start(|_| google_stub::unauthenticated()).await;
    let s = session(GMAIL, &stub.base);
    let err = call(
        &s,
        "gmail_messages_get",
        json!({"user_id": "me", "id": "m1", "format": "metadata", "metadata_headers": ["From", "Subject"]}),
    )
    .await
    .unwrap_err();
    assert_unauthenticated(&err, "GET", "/gmail/v1/users/{user_id}/messages/{id}");
    let r = stub.only();
    assert_eq!(
        r.query.as_deref(),
        Some("format=metadata&metadataHeaders=From&metadataHeaders=Subject")
    );
}

#[test]
fn the_pack_is_curated() {
    assert_curated(GMAIL, 50);
    let s = session(GMAIL, "http://127.0.0.1:9");
    let a = |name: &str| s.annotations(name).unwrap();
    // Reads are concurrency-safe; sending is neither read-only nor idempotent.
    for read in [
        "gmail_messages_list",
        "gmail_messages_get",
        "gmail_threads_get",
        "gmail_history_list",
    ] {
        assert!(
            charter::scheduler::concurrency_safe_annotations(&a(read)),
            "{read}"
        );
    }
    assert!(!a("gmail_messages_send").read_only && !a("gmail_messages_send").idempotent);
    // POSTs whose effect does not repeat are idempotent; permanent deletion is destructive.
    assert!(a("gmail_messages_modify").idempotent && !a("gmail_messages_modify").destructive);
    assert!(a("gmail_messages_trash").idempotent && !a("gmail_messages_trash").destructive);
    assert!(a("gmail_messages_batch_delete").destructive);
    assert!(a("gmail_messages_delete").destructive);
    // The hand-declared operations the importer could not take are all here.
    for name in [
        "gmail_messages_send",
        "gmail_messages_import",
        "gmail_messages_insert",
        "gmail_drafts_create",
        "gmail_drafts_update",
        "gmail_drafts_send",
    ] {
        assert!(s.annotations(name).is_some(), "{name}");
    }
    // Search hints reach the words users say.
    let list = GMAIL
        .tools
        .iter()
        .find(|t| t.name == "gmail_messages_list")
        .unwrap();
    for word in ["email", "mail", "inbox", "unread"] {
        assert!(list.search.hints.contains(&word), "{word}");
    }
}
