//! The `gcalendar` pack on the wire: each call goes through a `ToolSession` and the shared
//! `HttpExecutor` to a recording axum server on 127.0.0.1, which checks the method, path,
//! query, bearer token and body the Calendar API would receive.

#![cfg(feature = "pack-gcalendar")]

use crate::wire::google_stub;

use charter::CharterError;
use charter::http::next_page;
use google_stub::{
    Reply, Stub, assert_curated, assert_google_auth, assert_unauthenticated, call, call_text,
    route, session,
};
use serde_json::json;

const CAL: &charter::table::Table = &charter::packs::gcalendar::TOOLS;

fn event(id: &str, summary: &str) -> serde_json::Value {
    json!({
        "kind": "calendar#event", "etag": "\"3390\"", "id": id, "status": "confirmed",
        "htmlLink": format!("https://www.google.com/calendar/event?eid={id}"),
        "created": "2025-03-01T10:00:00.000Z", "updated": "2025-03-02T10:00:00.000Z",
        "summary": summary, "description": "Agenda: numbers", "location": "Room 4",
        "creator": {"email": "ann@example.com", "self": true},
        "organizer": {"email": "ann@example.com", "self": true},
        "start": {"dateTime": "2025-03-14T15:00:00+01:00", "timeZone": "Europe/Zurich"},
        "end": {"dateTime": "2025-03-14T16:00:00+01:00", "timeZone": "Europe/Zurich"},
        "iCalUID": format!("{id}@google.com"), "sequence": 0,
        "attendees": [
            {"email": "ann@example.com", "organizer": true, "self": true, "responseStatus": "accepted"},
            {"email": "bob@example.com", "responseStatus": "needsAction"}
        ],
        "reminders": {"useDefault": true}, "eventType": "default"
    })
}

#[tokio::test]
async fn events_list_sends_the_time_window_and_expands_recurrences() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or("").contains("pageToken=");
        let mut body = json!({
            "kind": "calendar#events", "etag": "\"p3\"", "summary": "ann@example.com",
            "updated": "2025-03-02T10:00:00.000Z", "timeZone": "Europe/Zurich", "accessRole": "owner",
            "defaultReminders": [{"method": "popup", "minutes": 10}],
            "items": [event(if second { "ev2" } else { "ev1" }, "Q3 review")]
        });
        if second {
            body["nextSyncToken"] = json!("sync-1");
        } else {
            body["nextPageToken"] = json!("page-2");
        }
        Reply::json(200, body)
    })
    .await;
    let s = session(CAL, &stub.base);
    let args = json!({
        "calendar_id": "primary",
        "time_min": "2025-03-10T00:00:00Z",
        "time_max": "2025-03-17T00:00:00Z",
        "single_events": true,
        "order_by": "startTime",
        "max_results": 50
    });
    let out = call(&s, "gcalendar_events_list", args.clone())
        .await
        .unwrap();

    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/calendars/primary/events")
    );
    assert_google_auth(&r);
    assert!(r.body.is_empty());
    assert_eq!(
        r.query.as_deref(),
        Some(
            "timeMin=2025-03-10T00%3A00%3A00Z&timeMax=2025-03-17T00%3A00%3A00Z&singleEvents=true&orderBy=startTime&maxResults=50"
        )
    );
    // The projection keeps what a schedule needs, drops etags, kinds, creators, reminders.
    let item = &out["items"][0];
    assert_eq!(item["id"], "ev1");
    assert_eq!(item["summary"], "Q3 review");
    assert_eq!(item["start"]["dateTime"], "2025-03-14T15:00:00+01:00");
    assert_eq!(item["organizer"], json!({"email": "ann@example.com"}));
    assert_eq!(
        item["attendees"][1],
        json!({"email": "bob@example.com", "responseStatus": "needsAction"})
    );
    for dropped in ["etag", "kind", "creator", "reminders", "iCalUID", "created"] {
        assert!(item.get(dropped).is_none(), "{dropped} is projected away");
    }
    assert!(out.get("defaultReminders").is_none() && out.get("etag").is_none());
    assert_eq!(out["timeZone"], "Europe/Zurich");

    // Walk to the second page with the declared cursor; the last page ends the walk.
    let route = route(CAL, "gcalendar_events_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["page_token"], "page-2");
    let last = call(&s, "gcalendar_events_list", next.clone())
        .await
        .unwrap();
    assert!(
        stub.take()[0]
            .query_pairs()
            .ends_with(&[("pageToken".into(), "page-2".into())])
    );
    assert_eq!(last["nextSyncToken"], "sync-1");
    assert_eq!(next_page(route, &next, &last), None);

    // A calendar id with `@` and `#` is one encoded path segment; times must be RFC 3339.
    call(
        &s,
        "gcalendar_events_list",
        json!({"calendar_id": "en.usa#holiday@group.v.calendar.google.com", "q": "Independence"}),
    )
    .await
    .unwrap();
    let r = stub.take().remove(0);
    assert_eq!(
        r.path,
        "/calendars/en.usa%23holiday%40group.v.calendar.google.com/events"
    );
    assert_eq!(r.query.as_deref(), Some("q=Independence"));
    let err = call(
        &s,
        "gcalendar_events_list",
        json!({"calendar_id": "primary", "time_min": "next monday"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty());
}

#[tokio::test]
async fn events_create_invites_guests_with_a_meet_link() {
    let stub = Stub::start(|_| {
        let mut e = event("newev1", "Design sync");
        e["hangoutLink"] = json!("https://meet.google.com/abc-defg-hij");
        e["conferenceData"] = json!({"entryPoints": [{"entryPointType": "video", "uri": "https://meet.google.com/abc-defg-hij"}], "conferenceId": "abc-defg-hij"});
        Reply::json(200, e)
    })
    .await;
    let s = session(CAL, &stub.base);
    let out = call(
        &s,
        "gcalendar_events_create",
        json!({
            "calendar_id": "primary",
            "summary": "Design sync",
            "start": {"date_time": "2025-03-14T15:00:00+01:00", "time_zone": "Europe/Zurich"},
            "end": {"date_time": "2025-03-14T16:00:00+01:00", "time_zone": "Europe/Zurich"},
            "attendees": [{"email": "bob@example.com"}, {"email": "cy@example.com", "optional": true}],
            "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=4"],
            "reminders": {"use_default": false, "overrides": [{"method": "popup", "minutes": 10}]},
            "conference_data": {"create_request": {"request_id": "req-7", "conference_solution_key": {"type": "hangoutsMeet"}}},
            "send_updates": "all",
            "conference_data_version": 1
        }),
    )
    .await
    .unwrap();
    assert_eq!(out["hangoutLink"], "https://meet.google.com/abc-defg-hij");
    assert!(out.get("etag").is_none());

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "POST",
            "/calendars/primary/events",
            Some("sendUpdates=all&conferenceDataVersion=1")
        )
    );
    assert_google_auth(&r);
    assert_eq!(
        r.text(),
        concat!(
            r#"{"summary":"Design sync","#,
            r#""start":{"dateTime":"2025-03-14T15:00:00+01:00","timeZone":"Europe/Zurich"},"#,
            r#""end":{"dateTime":"2025-03-14T16:00:00+01:00","timeZone":"Europe/Zurich"},"#,
            r#""attendees":[{"email":"bob@example.com"},{"email":"cy@example.com","optional":true}],"#,
            r#""recurrence":["RRULE:FREQ=WEEKLY;COUNT=4"],"#,
            r#""reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]},"#,
            r#""conferenceData":{"createRequest":{"requestId":"req-7","conferenceSolutionKey":{"type":"hangoutsMeet"}}}}"#
        )
    );

    // start and end are required; an attendee needs an email address.
    let err = call(
        &s,
        "gcalendar_events_create",
        json!({"calendar_id": "primary", "summary": "x", "start": {"date": "2025-03-14"},
               "attendees": [{"display_name": "Bob"}]}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("end"), "{message}");
    assert!(message.contains("email"), "{message}");

    // Reschedule: a local time with a named zone is valid (Google needs no offset then); prose
    // is not.
    call(
        &s,
        "gcalendar_events_patch",
        json!({"calendar_id": "primary", "event_id": "newev1",
               "start": {"date_time": "2025-03-21T15:00:00", "time_zone": "Europe/Zurich"},
               "end": {"date_time": "2025-03-21T16:00:00", "time_zone": "Europe/Zurich"}}),
    )
    .await
    .unwrap();
    let log = stub.take();
    let r = log.last().unwrap();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("PATCH", "/calendars/primary/events/newev1", None)
    );
    assert_eq!(
        r.text(),
        r#"{"start":{"dateTime":"2025-03-21T15:00:00","timeZone":"Europe/Zurich"},"end":{"dateTime":"2025-03-21T16:00:00","timeZone":"Europe/Zurich"}}"#
    );
    let err = call(
        &s,
        "gcalendar_events_patch",
        json!({"calendar_id": "primary", "event_id": "newev1", "start": {"date_time": "Friday 3pm"}}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty());
}

#[tokio::test]
async fn quick_add_move_freebusy_and_delete_routes() {
    let stub = Stub::start(|r| match (r.method.as_str(), r.path.as_str()) {
        ("DELETE", _) => Reply::status(204),
        ("POST", "/freeBusy") => Reply::json(
            200,
            json!({"kind": "calendar#freeBusy", "timeMin": "2025-03-14T08:00:00.000Z", "timeMax": "2025-03-14T18:00:00.000Z",
                   "calendars": {"bob@example.com": {"busy": [{"start": "2025-03-14T09:00:00Z", "end": "2025-03-14T10:00:00Z"}]}}}),
        ),
        _ => Reply::json(200, event("ev9", "Dentist")),
    })
    .await;
    let s = session(CAL, &stub.base);
    call(
        &s,
        "gcalendar_events_quick_add",
        json!({"calendar_id": "primary", "text": "Dentist on Friday 3pm-4pm", "send_updates": "none"}),
    )
    .await
    .unwrap();
    call(
        &s,
        "gcalendar_events_move",
        json!({"calendar_id": "primary", "event_id": "ev9", "destination": "team@group.calendar.google.com"}),
    )
    .await
    .unwrap();
    let busy = call(
        &s,
        "gcalendar_freebusy_query",
        json!({"time_min": "2025-03-14T08:00:00Z", "time_max": "2025-03-14T18:00:00Z",
               "items": [{"id": "primary"}, {"id": "bob@example.com"}], "time_zone": "Europe/Zurich"}),
    )
    .await
    .unwrap();
    assert_eq!(
        busy["calendars"]["bob@example.com"]["busy"][0]["start"],
        "2025-03-14T09:00:00Z"
    );
    let deleted = call_text(
        &s,
        "gcalendar_events_delete",
        json!({"calendar_id": "primary", "event_id": "ev9", "send_updates": "all"}),
    )
    .await
    .unwrap();
    assert_eq!(deleted, "HTTP 204: the API answered with an empty body.");

    let log = stub.take();
    let seen: Vec<(&str, &str, Option<&str>)> = log
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str(), r.query.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (
                "POST",
                "/calendars/primary/events/quickAdd",
                Some("text=Dentist%20on%20Friday%203pm-4pm&sendUpdates=none")
            ),
            (
                "POST",
                "/calendars/primary/events/ev9/move",
                Some("destination=team%40group.calendar.google.com")
            ),
            ("POST", "/freeBusy", None),
            (
                "DELETE",
                "/calendars/primary/events/ev9",
                Some("sendUpdates=all")
            ),
        ]
    );
    for r in &log {
        assert_google_auth(r);
    }
    assert!(log[0].body.is_empty() && log[1].body.is_empty() && log[3].body.is_empty());
    assert_eq!(
        log[2].text(),
        r#"{"timeMin":"2025-03-14T08:00:00Z","timeMax":"2025-03-14T18:00:00Z","items":[{"id":"primary"},{"id":"bob@example.com"}],"timeZone":"Europe/Zurich"}"#
    );
}

#[tokio::test]
async fn a_rejected_token_is_an_api_error_without_the_token() {
    let stub = Stub::start(|_| google_stub::unauthenticated()).await;
    let s = session(CAL, &stub.base);
    let err = call(
        &s,
        "gcalendar_events_get",
        json!({"calendar_id": "primary", "event_id": "ev1"}),
    )
    .await
    .unwrap_err();
    assert_unauthenticated(&err, "GET", "/calendars/{calendar_id}/events/{event_id}");
    assert_eq!(stub.only().path, "/calendars/primary/events/ev1");
}

#[test]
fn the_pack_is_curated() {
    assert_curated(CAL, 30);
    let s = session(CAL, "http://127.0.0.1:9");
    let a = |name: &str| s.annotations(name).unwrap();
    // A POST that only reads is read-only and idempotent, so it may run beside other reads.
    assert!(charter::scheduler::concurrency_safe_annotations(&a(
        "gcalendar_freebusy_query"
    )));
    assert!(charter::scheduler::concurrency_safe_annotations(&a(
        "gcalendar_events_list"
    )));
    assert!(!a("gcalendar_events_create").read_only && !a("gcalendar_events_create").idempotent);
    assert!(a("gcalendar_events_patch").idempotent);
    assert!(
        a("gcalendar_calendars_clear").destructive && a("gcalendar_calendars_clear").idempotent
    );
    assert!(a("gcalendar_events_delete").destructive);
    let list = CAL
        .tools
        .iter()
        .find(|t| t.name == "gcalendar_events_list")
        .unwrap();
    for word in ["meeting", "appointment", "schedule"] {
        assert!(list.search.hints.contains(&word), "{word}");
    }
    let create = CAL
        .tools
        .iter()
        .find(|t| t.name == "gcalendar_events_create")
        .unwrap();
    assert!(create.search.hints.contains(&"invite"));
}
