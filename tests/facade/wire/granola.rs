//! The `granola` pack on the wire: the bearer API key, snake_case queries and bodies, cursor
//! pages ended by a null cursor, id patterns checked before sending, and Granola's HTTP errors,
//! through a `ToolSession` to a real axum server on 127.0.0.1.

#![cfg(feature = "pack-granola")]

use crate::wire::wire_stub as stub;

use charter::CharterError;
use charter::http::next_page;
use serde_json::{Value, json};
use stub::{Stub, call, check_curated, route, session, tool};

const KEY: &str = "grn_TestKey0123456789abcdef";
const TABLE: &charter::table::Table = &charter::packs::granola::TOOLS;
const NOTE: &str = "not_1d3tmYTlCICgjy";
const FOLDER: &str = "fol_4y6LduVdwSKC27";
const ENDPOINT: &str = "whe_8Qa2mLkWz0PbX1";

fn granola(stub: &Stub) -> charter::ToolSession {
    session(TABLE, &stub.base, &[("GRANOLA_API_KEY", KEY)])
}

fn assert_key(r: &stub::Recorded) {
    assert_eq!(r.header("authorization"), Some(&*format!("Bearer {KEY}")));
}

#[tokio::test]
async fn notes_list_filters_by_date_and_folder_projects_and_walks_the_cursor() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or("").contains("cursor=");
        let note = |id: &str| {
            json!({"id": id, "object": "note", "title": "Quarterly budget review",
                   "owner": {"name": "Oat Benson", "email": "oat@example.com"},
                   "created_at": "2026-01-27T15:30:00Z", "updated_at": "2026-01-27T16:45:00Z",
                   "web_url": "https://notes.granola.ai/d/x"})
        };
        if second {
            (
                200,
                json!({"notes": [note("not_2d3tmYTlCICgjy")], "hasMore": false, "cursor": null}),
            )
        } else {
            (
                200,
                json!({"notes": [note(NOTE)], "hasMore": true, "cursor": "eyJwIjoyfQ=="}),
            )
        }
    })
    .await;
    let s = granola(&stub);
    let args = json!({"created_after": "2026-01-01", "folder_id": FOLDER, "page_size": 1});
    let first = call(&s, "granola_notes_list", args.clone()).await.unwrap();
    assert_eq!(
        first,
        json!({
            "notes": [{"id": NOTE, "title": "Quarterly budget review",
                       "owner": {"name": "Oat Benson", "email": "oat@example.com"},
                       "created_at": "2026-01-27T15:30:00Z", "updated_at": "2026-01-27T16:45:00Z"}],
            "hasMore": true,
            "cursor": "eyJwIjoyfQ=="
        })
    );
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "GET",
            "/v1/notes",
            Some(&*format!(
                "created_after=2026-01-01&folder_id={FOLDER}&page_size=1"
            ))
        )
    );
    assert_key(&r);
    assert!(r.body.is_empty());

    let notes = route(TABLE, "granola_notes_list");
    let next = next_page(notes, &args, &first).expect("a second page");
    assert_eq!(next["cursor"], "eyJwIjoyfQ==");
    let last = call(&s, "granola_notes_list", next.clone()).await.unwrap();
    let r = stub.take().remove(0);
    assert_eq!(
        r.query.as_deref(),
        Some(&*format!(
            "created_after=2026-01-01&folder_id={FOLDER}&cursor=eyJwIjoyfQ%3D%3D&page_size=1"
        ))
    );
    assert_eq!(last["hasMore"], false);
    assert_eq!(
        next_page(notes, &next, &last),
        None,
        "a null cursor ends the walk"
    );
}

#[tokio::test]
async fn notes_get_and_the_transcript_pages() {
    let stub = Stub::start(|r| {
        if r.path.ends_with("/transcript") {
            (200, json!({"transcript": [{"speaker": {"source": "microphone", "attribution": "me"},
                "text": "Let's start with the budget.", "start_time": "2026-01-27T15:30:01Z",
                "end_time": "2026-01-27T15:30:04Z"}], "hasMore": true, "cursor": "c2"}))
        } else {
            (200, json!({"id": NOTE, "object": "note", "title": "Budget", "summary_markdown": "## Decisions"}))
        }
    })
    .await;
    let s = granola(&stub);
    let note = call(
        &s,
        "granola_notes_get",
        json!({"note_id": NOTE, "include": "transcript"}),
    )
    .await
    .unwrap();
    assert_eq!(note["summary_markdown"], "## Decisions", "returned whole");
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "GET",
            &*format!("/v1/notes/{NOTE}"),
            Some("include=transcript")
        )
    );
    assert_key(&r);

    let args = json!({"note_id": NOTE, "page_size": 100});
    let page = call(&s, "granola_notes_transcript_get", args.clone())
        .await
        .unwrap();
    let r = stub.take().remove(0);
    assert_eq!(
        (r.path.as_str(), r.query.as_deref()),
        (
            &*format!("/v1/notes/{NOTE}/transcript"),
            Some("page_size=100")
        )
    );
    let next = next_page(route(TABLE, "granola_notes_transcript_get"), &args, &page).unwrap();
    assert_eq!(
        next,
        json!({"note_id": NOTE, "page_size": 100, "cursor": "c2"})
    );
}

#[tokio::test]
async fn bad_ids_and_bounds_are_refused_before_sending() {
    let stub = Stub::start(|_| (200, json!({}))).await;
    let s = granola(&stub);
    for (name, args) in [
        // The UUID of a Granola web link is not a note id.
        (
            "granola_notes_get",
            json!({"note_id": "3f2b8a5e-1c4d-4e6f-9a7b-0c1d2e3f4a5b"}),
        ),
        ("granola_notes_list", json!({"page_size": 31})),
        (
            "granola_notes_transcript_get",
            json!({"note_id": NOTE, "page_size": 101}),
        ),
        (
            "granola_notes_get",
            json!({"note_id": NOTE, "include": "summary"}),
        ),
        (
            "granola_webhook_endpoints_create",
            json!({"url": "https://hooks.example.com/g", "scopes": []}),
        ),
        (
            "granola_webhook_endpoints_create",
            json!({"url": "https://hooks.example.com/g", "scopes": ["personal"], "events": ["note.deleted"]}),
        ),
        (
            "granola_webhook_endpoints_update",
            json!({"webhook_endpoint_id": "wh_1", "enabled": false}),
        ),
        ("granola_audit_list", json!({"action": "Workspace"})),
    ] {
        let err = call(&s, name, args.clone()).await.unwrap_err();
        assert!(
            matches!(err, CharterError::Validation(_)),
            "{name} {args}: {err:?}"
        );
    }
    assert!(stub.take().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn webhook_endpoints_are_created_updated_listed_and_deleted() {
    let stub = Stub::start(|r| match r.method.as_str() {
        "POST" => (201, json!({"id": ENDPOINT, "object": "webhook_endpoint", "url": "https://hooks.example.com/granola",
                               "signing_secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "enabled": true})),
        "PATCH" => (200, json!({"id": ENDPOINT, "enabled": false})),
        "DELETE" => (200, json!({"id": ENDPOINT, "object": "webhook_endpoint", "deleted": true})),
        _ => (200, json!({"webhook_endpoints": [{"id": ENDPOINT, "enabled": true}]})),
    })
    .await;
    let s = granola(&stub);
    let created = call(
        &s,
        "granola_webhook_endpoints_create",
        json!({"url": "https://hooks.example.com/granola", "scopes": ["personal", "public"],
               "events": ["note.generated"], "folder_ids": [FOLDER]}),
    )
    .await
    .unwrap();
    assert!(
        created["signing_secret"]
            .as_str()
            .unwrap()
            .starts_with("whsec_"),
        "the secret reaches the caller"
    );
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/webhook-endpoints")
    );
    assert_key(&r);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.text(),
        format!(
            r#"{{"url":"https://hooks.example.com/granola","scopes":["personal","public"],"events":["note.generated"],"folder_ids":["{FOLDER}"]}}"#
        )
    );

    call(
        &s,
        "granola_webhook_endpoints_update",
        json!({"webhook_endpoint_id": ENDPOINT, "enabled": false, "folder_ids": []}),
    )
    .await
    .unwrap();
    let r = stub.take().remove(0);
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("PATCH", &*format!("/v1/webhook-endpoints/{ENDPOINT}"))
    );
    assert_eq!(r.json(), json!({"folder_ids": [], "enabled": false}));

    call(&s, "granola_webhook_endpoints_list", json!({}))
        .await
        .unwrap();
    call(
        &s,
        "granola_webhook_endpoints_delete",
        json!({"webhook_endpoint_id": ENDPOINT}),
    )
    .await
    .unwrap();
    let log = stub.take();
    assert_eq!(
        log.iter()
            .map(|r| (r.method.as_str(), r.path.as_str(), r.body.is_empty()))
            .collect::<Vec<_>>(),
        [
            ("GET", "/v1/webhook-endpoints", true),
            (
                "DELETE",
                &*format!("/v1/webhook-endpoints/{ENDPOINT}"),
                true
            )
        ]
    );
    let a = tool(TABLE, "granola_webhook_endpoints_delete").annotations;
    assert!(a.destructive && a.idempotent && !a.read_only);
    assert!(tool(TABLE, "granola_notes_list").annotations.read_only);
}

#[tokio::test]
async fn granola_errors_are_api_errors_without_the_key() {
    let stub = Stub::start(|_| {
        (
            413,
            json!({"error": "TRANSCRIPT_TOO_LARGE", "message": "The transcript is too large to include; use the transcript endpoint."}),
        )
    })
    .await;
    let s = granola(&stub);
    let err = call(
        &s,
        "granola_notes_get",
        json!({"note_id": NOTE, "include": "transcript"}),
    )
    .await
    .unwrap_err();
    stub::assert_api_error(
        &err,
        (413, "GET", "/v1/notes/{note_id}"),
        "TRANSCRIPT_TOO_LARGE",
        KEY,
    );
}

#[test]
fn the_pack_is_curated() {
    check_curated(TABLE, 9, 1500, &["api_key", "Authorization"]);
    let names: Vec<&str> = TABLE.tools.iter().map(|t| t.name).collect();
    let value: Value = json!(names);
    assert_eq!(value.as_array().unwrap().len(), 9);
}
