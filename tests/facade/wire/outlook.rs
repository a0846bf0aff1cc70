//! The `outlook` pack (Microsoft Graph v1.0) on the wire: OData query options under their `$`
//! names, camelCase JSON bodies (with `@odata.type`), an open extension's values spread beside
//! its name, the `Prefer` header of the reading tools,
//! pages walked through `@odata.nextLink`, and Graph's `{"error": {"code", "message"}}`
//! failures, through a `ToolSession` to a real axum server on 127.0.0.1.

#![cfg(feature = "pack-outlook")]

use crate::wire::wire_stub::{assert_api_error, call, check_curated, route, session, tool};
use charter_testkit::stub::{Recorded, Reply, Stub};

use charter::CharterError;
use charter::http::next_page;
use serde_json::{Value, json};

const TOKEN: &str = "eyJ0eXAiOiJKV1QiLCJub25jZSI6InRlc3QifQ.graph-test-token";
const TABLE: &charter::table::Table = &charter::packs::outlook::TOOLS;
const GRAPH: &str = "https://graph.microsoft.com/v1.0";

fn outlook(stub: &Stub) -> charter::ToolSession {
    session(
        TABLE,
        &format!("{}/v1.0", stub.base),
        &[("MICROSOFT_ACCESS_TOKEN", TOKEN)],
    )
}

/// Calls a tool whose answer may be empty (Graph's 202 for a send or a reply).
async fn send(s: &charter::ToolSession, name: &str, args: Value) {
    s.dispatch(name, args, &charter::CallContext::new())
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn assert_graph(r: &Recorded) {
    assert_eq!(r.header("authorization"), Some(&*format!("Bearer {TOKEN}")));
    if !r.body.is_empty() {
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
}

/// The one request the stub received, checked for its method, path and Graph headers.
fn graph_request(stub: &Stub, method: &str, path: &str) -> Recorded {
    let r = stub.only();
    assert_eq!((r.method.as_str(), r.path.as_str()), (method, path));
    assert_graph(&r);
    r
}

fn message(id: &str) -> Value {
    json!({
        "@odata.etag": "W/\"CQAAABYAAAA\"", "id": id, "subject": "Q3 budget",
        "from": {"emailAddress": {"name": "Ann Lee", "address": "ann@contoso.com"}},
        "toRecipients": [{"emailAddress": {"name": "Me", "address": "me@contoso.com"}}],
        "receivedDateTime": "2026-03-02T09:15:00Z", "bodyPreview": "Figures attached",
        "body": {"contentType": "text", "content": "A long body the list leaves out"},
        "isRead": false, "hasAttachments": true, "importance": "high",
        "flag": {"flagStatus": "notFlagged"}, "categories": [], "conversationId": "AAQk",
        "parentFolderId": "AAMk-inbox", "isDraft": false, "changeKey": "CQAAAB"
    })
}

#[tokio::test]
async fn messages_list_sends_odata_options_projects_and_walks_the_next_link() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or("").contains("%24skip=");
        let mut page = json!({
            "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users('me')/messages",
            "value": [message(if second { "m2" } else { "m1" })]
        });
        if !second {
            page["@odata.nextLink"] = json!(format!(
                "{GRAPH}/me/messages?%24filter=isRead+eq+false&%24top=1&%24skip=1"
            ));
        }
        Reply::json(200, page)
    })
    .await;
    let s = outlook(&stub);
    let args = json!({"filter": "isRead eq false", "top": 1});
    let first = call(&s, "outlook_messages_list", args.clone())
        .await
        .unwrap();
    // Previews, senders and flags; not bodies, recipients, etags or change keys.
    assert_eq!(
        first,
        json!({
            "value": [{
                "id": "m1", "subject": "Q3 budget",
                "from": {"emailAddress": {"name": "Ann Lee", "address": "ann@contoso.com"}},
                "receivedDateTime": "2026-03-02T09:15:00Z", "bodyPreview": "Figures attached",
                "isRead": false, "hasAttachments": true, "importance": "high",
                "flag": {"flagStatus": "notFlagged"}, "categories": [], "conversationId": "AAQk",
                "parentFolderId": "AAMk-inbox", "isDraft": false
            }],
            "@odata.nextLink": format!("{GRAPH}/me/messages?%24filter=isRead+eq+false&%24top=1&%24skip=1")
        })
    );
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "GET",
            "/v1.0/me/messages",
            Some("%24filter=isRead%20eq%20false&%24top=1")
        )
    );
    assert_graph(&r);
    // Bodies come back as text, not HTML: a constant the model neither sees nor sets.
    assert_eq!(
        r.header("prefer"),
        Some("outlook.body-content-type=\"text\"")
    );
    assert!(r.body.is_empty());

    // The declared walk reads `$skip` out of the next link.
    let list = route(TABLE, "outlook_messages_list");
    let next = next_page(list, &args, &first).expect("a second page");
    assert_eq!(
        next,
        json!({"filter": "isRead eq false", "top": 1, "skip": 1})
    );
    let last = call(&s, "outlook_messages_list", next.clone())
        .await
        .unwrap();
    assert_eq!(
        stub.take()[0].query.as_deref(),
        Some("%24filter=isRead%20eq%20false&%24top=1&%24skip=1")
    );
    assert_eq!(
        next_page(list, &next, &last),
        None,
        "no next link, no next page"
    );

    // $top is bounded as Graph documents (1-1000).
    let err = call(&s, "outlook_messages_list", json!({"top": 1001}))
        .await
        .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty());
}

#[tokio::test]
async fn mail_send_posts_the_message_in_camel_case_with_a_file() {
    let stub = Stub::start(|_| Reply::status(202)).await;
    let s = outlook(&stub);
    send(
        &s,
        "outlook_mail_send",
        json!({
            "message": {
                "subject": "Q3 report",
                "body": {"content_type": "html", "content": "<p>Figures attached.</p>"},
                "to_recipients": [{"email_address": {"address": "ann@contoso.com", "name": "Ann Lee"}}],
                "cc_recipients": [{"email_address": {"address": "bob@contoso.com"}}],
                "attachments": [{"odata_type": "#microsoft.graph.fileAttachment", "name": "q3.csv",
                                 "content_type": "text/csv", "content_bytes": "YSxiCjEsMgo="}]
            },
            "save_to_sent_items": false
        }),
    )
    .await;
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", "/v1.0/me/sendMail", None)
    );
    assert_graph(&r);
    assert_eq!(
        r.header("prefer"),
        None,
        "only the reading tools ask for text bodies"
    );
    assert_eq!(
        r.text(),
        concat!(
            r#"{"message":{"subject":"Q3 report","body":{"contentType":"html","content":"<p>Figures attached.</p>"},"#,
            r#""toRecipients":[{"emailAddress":{"address":"ann@contoso.com","name":"Ann Lee"}}],"#,
            r#""ccRecipients":[{"emailAddress":{"address":"bob@contoso.com"}}],"#,
            r##""attachments":[{"@odata.type":"#microsoft.graph.fileAttachment","name":"q3.csv","contentType":"text/csv","contentBytes":"YSxiCjEsMgo="}]},"##,
            r#""saveToSentItems":false}"#
        )
    );
    assert!(!r.text().contains(TOKEN));

    // A message without a body, or a file that is not base64, is refused before sending.
    for bad in [
        json!({"message": {"subject": "x", "body": {"content_type": "text"}}}),
        json!({"message": {"attachments": [{"odata_type": "#microsoft.graph.fileAttachment", "name": "a", "content_bytes": "not base64!"}]}}),
    ] {
        let err = call(&s, "outlook_mail_send", bad).await.unwrap_err();
        assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    }
    assert!(stub.take().is_empty());
}

#[tokio::test]
async fn out_of_office_is_a_patch_of_the_mailbox_settings() {
    let stub = Stub::start(|r| {
        Reply::json(200, json!({"@odata.context": "x", "automaticRepliesSetting": r.json()["automaticRepliesSetting"].clone(), "timeZone": "UTC"}))
    })
    .await;
    let s = outlook(&stub);
    let out = call(
        &s,
        "outlook_automatic_replies_update",
        json!({"automatic_replies_setting": {
            "status": "scheduled",
            "external_audience": "contactsOnly",
            "internal_reply_message": "Away until Monday.",
            "external_reply_message": "I am out of office until Monday.",
            "scheduled_start_date_time": {"date_time": "2026-03-06T17:00:00", "time_zone": "W. Europe Standard Time"},
            "scheduled_end_date_time": {"date_time": "2026-03-09T08:00:00", "time_zone": "W. Europe Standard Time"}
        }}),
    )
    .await
    .unwrap();
    let r = graph_request(&stub, "PATCH", "/v1.0/me/mailboxSettings");
    assert_eq!(
        r.text(),
        concat!(
            r#"{"automaticRepliesSetting":{"status":"scheduled","internalReplyMessage":"Away until Monday.","#,
            r#""externalReplyMessage":"I am out of office until Monday.","externalAudience":"contactsOnly","#,
            r#""scheduledStartDateTime":{"dateTime":"2026-03-06T17:00:00","timeZone":"W. Europe Standard Time"},"#,
            r#""scheduledEndDateTime":{"dateTime":"2026-03-09T08:00:00","timeZone":"W. Europe Standard Time"}}}"#
        )
    );
    assert_eq!(out["automaticRepliesSetting"]["status"], "scheduled");
    assert!(
        out.get("timeZone").is_none(),
        "the projection keeps the replies only"
    );
    let a = tool(TABLE, "outlook_automatic_replies_update").annotations;
    assert!(a.idempotent && !a.destructive);
}

#[tokio::test]
async fn calendar_view_and_event_creation_on_the_wire() {
    let stub = Stub::start(|r| match r.method.as_str() {
        "GET" => Reply::json(200, json!({"value": [{"id": "e1", "subject": "1:1", "start": {"dateTime": "2026-03-02T10:00:00.0000000", "timeZone": "UTC"},
                   "end": {"dateTime": "2026-03-02T10:30:00.0000000", "timeZone": "UTC"}, "bodyPreview": "dropped", "iCalUId": "dropped"}]})),
        _ => Reply::json(201, json!({"id": "e9", "subject": "Design review", "webLink": "https://outlook.office365.com/owa/?itemid=e9",
                   "onlineMeeting": {"joinUrl": "https://teams.microsoft.com/l/meetup-join/x"}, "iCalUId": "dropped"})),
    })
    .await;
    let s = outlook(&stub);
    let view = call(
        &s,
        "outlook_calendar_view_list",
        json!({"start_date_time": "2026-03-02T00:00:00Z", "end_date_time": "2026-03-03T00:00:00Z", "order_by": "start/dateTime", "top": 50}),
    )
    .await
    .unwrap();
    assert_eq!(view["value"][0].get("iCalUId"), None);
    assert_eq!(view["value"][0]["subject"], "1:1");
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "GET",
            "/v1.0/me/calendarView",
            Some(
                "startDateTime=2026-03-02T00%3A00%3A00Z&endDateTime=2026-03-03T00%3A00%3A00Z&%24orderby=start%2FdateTime&%24top=50"
            )
        )
    );
    // The window is required.
    let err = call(
        &s,
        "outlook_calendar_view_list",
        json!({"start_date_time": "2026-03-02T00:00:00Z"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");

    let created = call(
        &s,
        "outlook_events_create",
        json!({
            "subject": "Design review",
            "start": {"date_time": "2026-03-04T14:00:00", "time_zone": "Pacific Standard Time"},
            "end": {"date_time": "2026-03-04T15:00:00", "time_zone": "Pacific Standard Time"},
            "attendees": [{"email_address": {"address": "ann@contoso.com"}, "type": "required"}],
            "is_online_meeting": true,
            "recurrence": {"pattern": {"type": "weekly", "interval": 1, "days_of_week": ["wednesday"]},
                           "range": {"type": "numbered", "start_date": "2026-03-04", "number_of_occurrences": 4}}
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        created,
        json!({"id": "e9", "subject": "Design review", "webLink": "https://outlook.office365.com/owa/?itemid=e9",
               "onlineMeeting": {"joinUrl": "https://teams.microsoft.com/l/meetup-join/x"}})
    );
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1.0/me/events")
    );
    assert_graph(&r);
    assert_eq!(
        r.text(),
        concat!(
            r#"{"subject":"Design review","start":{"dateTime":"2026-03-04T14:00:00","timeZone":"Pacific Standard Time"},"#,
            r#""end":{"dateTime":"2026-03-04T15:00:00","timeZone":"Pacific Standard Time"},"#,
            r#""attendees":[{"emailAddress":{"address":"ann@contoso.com"},"type":"required"}],"isOnlineMeeting":true,"#,
            r#""recurrence":{"pattern":{"type":"weekly","interval":1,"daysOfWeek":["wednesday"]},"#,
            r#""range":{"type":"numbered","startDate":"2026-03-04","numberOfOccurrences":4}}}"#
        )
    );
}

#[tokio::test]
async fn a_delta_round_walks_skip_tokens_and_keeps_the_delta_link() {
    let stub = Stub::start(|r| {
        if r.query.as_deref().unwrap_or("").contains("skiptoken") {
            Reply::json(200, json!({"value": [{"id": "m2", "@removed": {"reason": "deleted"}}],
                "@odata.deltaLink": format!("{GRAPH}/me/mailFolders('inbox')/messages/delta?%24deltatoken=DT-9")}))
        } else {
            Reply::json(200, json!({"value": [message("m1")],
                "@odata.nextLink": format!("{GRAPH}/me/mailFolders('inbox')/messages/delta?%24skiptoken=ST%2B1")}))
        }
    })
    .await;
    let s = outlook(&stub);
    let args = json!({"folder_id": "inbox"});
    let first = call(&s, "outlook_messages_delta", args.clone())
        .await
        .unwrap();
    let delta = route(TABLE, "outlook_messages_delta");
    let next = next_page(delta, &args, &first).expect("a second page");
    assert_eq!(next, json!({"folder_id": "inbox", "skip_token": "ST+1"}));
    let last = call(&s, "outlook_messages_delta", next).await.unwrap();
    assert_eq!(
        last,
        json!({"value": [{"id": "m2", "@removed": {"reason": "deleted"}}],
               "@odata.deltaLink": format!("{GRAPH}/me/mailFolders('inbox')/messages/delta?%24deltatoken=DT-9")})
    );
    assert_eq!(
        next_page(delta, &json!({}), &last),
        None,
        "a delta link ends the round"
    );
    let log = stub.take();
    assert_eq!(
        log.iter()
            .map(|r| (r.path.as_str(), r.query.as_deref()))
            .collect::<Vec<_>>(),
        [
            ("/v1.0/me/mailFolders/inbox/messages/delta", None),
            (
                "/v1.0/me/mailFolders/inbox/messages/delta",
                Some("%24skiptoken=ST%2B1")
            )
        ]
    );
}

#[tokio::test]
async fn reply_move_and_the_mime_source() {
    let stub = Stub::start(|r| {
        if r.path.ends_with("/$value") || r.path.ends_with("/%24value") {
            Reply::text(
                200,
                "Received: from mail.contoso.com\r\nSubject: Q3 budget\r\n\r\nFigures.",
            )
        } else if r.path.ends_with("/move") {
            Reply::json(201, message("m1-moved"))
        } else {
            Reply::status(202)
        }
    })
    .await;
    let s = outlook(&stub);
    send(
        &s,
        "outlook_messages_reply",
        json!({"message_id": "AAMk=1", "comment": "Thanks, looks good."}),
    )
    .await;
    let moved = call(
        &s,
        "outlook_messages_move",
        json!({"message_id": "AAMk=1", "destination_id": "archive"}),
    )
    .await
    .unwrap();
    assert_eq!(
        moved,
        json!({"id": "m1-moved", "subject": "Q3 budget", "parentFolderId": "AAMk-inbox"})
    );
    let source = s
        .dispatch(
            "outlook_messages_content_get",
            json!({"message_id": "AAMk=1"}),
            &charter::CallContext::new(),
        )
        .await
        .unwrap();
    assert!(
        format!("{source:?}").contains("Subject: Q3 budget"),
        "{source:?}"
    );
    let log = stub.take();
    assert_eq!(
        log.iter()
            .map(|r| (r.method.as_str(), r.path.as_str(), r.text()))
            .collect::<Vec<_>>(),
        [
            (
                "POST",
                "/v1.0/me/messages/AAMk%3D1/reply",
                r#"{"comment":"Thanks, looks good."}"#
            ),
            (
                "POST",
                "/v1.0/me/messages/AAMk%3D1/move",
                r#"{"destinationId":"archive"}"#
            ),
            ("GET", "/v1.0/me/messages/AAMk%3D1/$value", ""),
        ]
    );
}

#[tokio::test]
async fn an_open_extension_sends_its_values_beside_its_name() {
    let stub = Stub::start(|r| Reply::json(201, r.json())).await;
    let s = outlook(&stub);
    let create = |data: Value| {
        let args = json!({
            "message_id": "AAMk-1",
            "odata_type": "microsoft.graph.openTypeExtension",
            "extension_name": "Com.Contoso.Referral",
            "data": data
        });
        call(&s, "outlook_message_extensions_create", args)
    };
    let out = create(json!({"companyName": "Wingtip Toys", "dealValue": 500050, "expired": false}))
        .await
        .unwrap();
    let r = graph_request(&stub, "POST", "/v1.0/me/messages/AAMk-1/extensions");
    assert_eq!(
        r.text(),
        concat!(
            r#"{"@odata.type":"microsoft.graph.openTypeExtension","extensionName":"Com.Contoso.Referral","#,
            r#""companyName":"Wingtip Toys","dealValue":500050,"expired":false}"#
        )
    );
    assert_eq!(out["dealValue"], 500050);
    stub.take();

    // A value key that a declared field sends, or a value that is not a scalar, is refused at
    // its path before anything is sent.
    let err = create(json!({"extensionName": "Com.Other", "@odata.type": "x", "tags": ["a"]}))
        .await
        .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    for expected in [
        "/data/extensionName: expected no `extensionName` here: the field `extension_name` sends it",
        "/data/@odata.type: expected no `@odata.type` here: the field `odata_type` sends it",
        "/data/tags: expected",
    ] {
        assert!(message.contains(expected), "{expected} in {message}");
    }
    assert!(stub.take().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn graph_errors_are_api_errors_with_their_code_and_without_the_token() {
    let stub = Stub::start(|_| {
        Reply::json(
            404,
            json!({"error": {"code": "ErrorItemNotFound", "message": "The specified object was not found in the store.",
                             "innerError": {"request-id": "5b7b-1", "date": "2026-03-02T10:00:00"}}}),
        )
    })
    .await;
    let s = outlook(&stub);
    let err = call(&s, "outlook_messages_get", json!({"message_id": "gone"}))
        .await
        .unwrap_err();
    assert_api_error(
        &err,
        (404, "GET", "/me/messages/{message_id}"),
        "ErrorItemNotFound",
        TOKEN,
    );
}

#[test]
fn the_pack_is_curated_and_annotated() {
    check_curated(
        TABLE,
        90,
        3000,
        &["access_token", "Authorization", "Prefer"],
    );
    let a = |name| tool(TABLE, name).annotations;
    assert!(a("outlook_messages_permanent_delete").destructive);
    assert!(
        a("outlook_schedule_get").read_only,
        "a POST that only reads"
    );
    assert!(a("outlook_mail_tips_get").read_only);
    assert!(a("outlook_events_cancel").destructive);
    assert!(!a("outlook_mail_send").idempotent);
    assert!(a("outlook_messages_update").idempotent);
}

#[tokio::test]
async fn without_a_ready_token_the_refresh_token_is_exchanged_at_the_token_endpoint() {
    use charter::http::{HttpExecutor, StaticCredentials};
    use charter::{SessionOptions, Source, ToolSession};
    use std::sync::Arc;

    let stub = Stub::start(|r| {
        if r.path.ends_with("/oauth2/v2.0/token") {
            Reply::json(
                200,
                json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "at-from-refresh",
                       "scope": "Mail.ReadWrite Mail.Send"}),
            )
        } else {
            Reply::json(200, json!({"value": []}))
        }
    })
    .await;
    let creds = StaticCredentials::new()
        .with(
            "MICROSOFT_CLIENT_ID",
            "11111111-2222-3333-4444-555555555555",
        )
        .with("MICROSOFT_CLIENT_SECRET", "client-secret-value")
        .with("MICROSOFT_REFRESH_TOKEN", "refresh-token-value");
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(creds)
        .base_url("outlook", format!("{}/v1.0", stub.base))
        .token_url("outlook", format!("{}/common/oauth2/v2.0/token", stub.base))
        .build()
        .unwrap();
    let s = ToolSession::with_options(
        vec![Source::Table(TABLE)],
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(Arc::new(http)),
    )
    .unwrap();
    call(&s, "outlook_contacts_list", json!({"top": 5}))
        .await
        .unwrap();
    let log = stub.take();
    assert_eq!(log.len(), 2, "{log:#?}");
    let token = &log[0];
    assert_eq!(
        (token.method.as_str(), token.path.as_str()),
        ("POST", "/common/oauth2/v2.0/token")
    );
    let mut form: Vec<(String, String)> = token
        .text()
        .split('&')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect();
    form.sort();
    assert_eq!(
        form.iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        [
            ("client_id", "11111111-2222-3333-4444-555555555555"),
            ("client_secret", "client-secret-value"),
            ("grant_type", "refresh_token"),
            ("refresh_token", "refresh-token-value"),
        ]
    );
    let api = &log[1];
    assert_eq!(
        (api.path.as_str(), api.query.as_deref()),
        ("/v1.0/me/contacts", Some("%24top=5"))
    );
    assert_eq!(api.header("authorization"), Some("Bearer at-from-refresh"));

    // The pack's own endpoints: Microsoft's, with the tenant from MICROSOFT_TENANT_ID or `common`.
    let charter::table::Exec::Http(route) = TABLE.tools[0].exec else {
        panic!("an HTTP tool")
    };
    let charter::table::Auth::OAuth2(o) = route.pack.auth else {
        panic!("OAuth 2")
    };
    assert_eq!(
        (o.token_url, o.authorization_url, o.access_token_env),
        (
            "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
            "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
            "MICROSOFT_ACCESS_TOKEN"
        )
    );
    assert_eq!(
        o.url_vars
            .iter()
            .map(|v| (v.name, v.env, v.default))
            .collect::<Vec<_>>(),
        [("tenant", "MICROSOFT_TENANT_ID", "common")]
    );
    assert!(
        o.scopes.contains(&"offline_access") && o.scopes.contains(&"MailboxSettings.ReadWrite")
    );
}
