//! The `gdocs` and `gforms` packs on the wire: snake_case arguments sent as Google's camelCase
//! JSON, free-form batchUpdate requests passed through untouched, typed Forms requests renamed
//! at every depth, projections, `nextPageToken` pagination and Google's HTTP errors, through a
//! `ToolSession` to a real axum server on 127.0.0.1.

#![cfg(all(feature = "pack-gdocs", feature = "pack-gforms"))]

use crate::wire::wire_stub as stub;

use charter::CharterError;
use charter::http::next_page;
use serde_json::json;
use stub::{Stub, call, check_curated, route, session, tool};

const TOKEN: &str = "ya29.a0AfB_byC-0123456789";
const DOCS: &charter::table::Table = &charter::packs::gdocs::TOOLS;
const FORMS: &charter::table::Table = &charter::packs::gforms::TOOLS;
const DOC_ID: &str = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms";
const FORM_ID: &str = "1FAIpQLSd-form";

/// Google's standard parameters that no tool exposes (credentials and response shaping).
const GOOGLE_NOISE: &[&str] = &[
    "xgafv",
    "$.xgafv",
    "access_token",
    "alt",
    "callback",
    "fields",
    "key",
    "oauth_token",
    "prettyPrint",
    "pretty_print",
    "quotaUser",
    "quota_user",
    "upload_protocol",
    "uploadType",
    "upload_type",
];

fn google(table: &'static charter::table::Table, stub: &Stub) -> charter::ToolSession {
    session(table, &stub.base, &[("GOOGLE_ACCESS_TOKEN", TOKEN)])
}

#[tokio::test]
async fn docs_batch_update_passes_requests_through_and_camel_cases_the_rest() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"documentId": DOC_ID, "replies": [{}, {"replaceAllText": {"occurrencesChanged": 2}}],
                   "writeControl": {"requiredRevisionId": "r2"}}),
        )
    })
    .await;
    let s = google(DOCS, &stub);
    let requests = json!([
        {"insertText": {"location": {"index": 1}, "text": "Minutes\n"}},
        {"replaceAllText": {"containsText": {"text": "{{date}}", "matchCase": true}, "replaceText": "2024-05-01"}},
        {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 9},
            "paragraphStyle": {"namedStyleType": "HEADING_1"}, "fields": "namedStyleType"}}
    ]);
    let out = call(
        &s,
        "gdocs_documents_batch_update",
        json!({"document_id": DOC_ID, "requests": requests, "write_control": {"required_revision_id": "r1"}}),
    )
    .await
    .unwrap();
    assert_eq!(out["replies"][1]["replaceAllText"]["occurrencesChanged"], 2);

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "POST",
            format!("/v1/documents/{DOC_ID}:batchUpdate").as_str(),
            None
        )
    );
    assert_eq!(
        r.header("authorization").unwrap(),
        format!("Bearer {TOKEN}")
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    // The requests are free-form (Google's own camelCase, untouched); the declared
    // `write_control` is renamed to the wire's camelCase at every depth.
    assert_eq!(
        r.json(),
        json!({"requests": requests, "writeControl": {"requiredRevisionId": "r1"}})
    );
    assert!(
        tool(DOCS, "gdocs_documents_batch_update")
            .annotations
            .destructive
    );

    // At least one request, each an object.
    for bad in [
        json!({"document_id": DOC_ID, "requests": []}),
        json!({"document_id": DOC_ID, "requests": ["insertText"]}),
    ] {
        assert!(
            call(&s, "gdocs_documents_batch_update", bad)
                .await
                .unwrap_err()
                .is_validation()
        );
    }
    assert_eq!(stub.take().len(), 1);
}

#[tokio::test]
async fn docs_get_keeps_text_and_indexes_only() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({
                "documentId": DOC_ID, "title": "Minutes", "revisionId": "r7",
                "suggestionsViewMode": "SUGGESTIONS_INLINE",
                "documentStyle": {"pageSize": {"height": {"magnitude": 792, "unit": "PT"}}},
                "namedStyles": {"styles": [{"namedStyleType": "NORMAL_TEXT"}]},
                "body": {"content": [
                    {"endIndex": 1, "sectionBreak": {"sectionStyle": {"columnSeparatorStyle": "NONE"}}},
                    {"startIndex": 1, "endIndex": 9, "paragraph": {
                        "elements": [{"startIndex": 1, "endIndex": 9, "textRun": {"content": "Minutes\n",
                            "textStyle": {"bold": true}}}],
                        "paragraphStyle": {"namedStyleType": "HEADING_1", "direction": "LEFT_TO_RIGHT"}}}
                ]}
            }),
        )
    })
    .await;
    let s = google(DOCS, &stub);
    let out = call(
        &s,
        "gdocs_documents_get",
        json!({"document_id": DOC_ID, "suggestions_view_mode": "SUGGESTIONS_INLINE"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        json!({
            "documentId": DOC_ID, "title": "Minutes", "revisionId": "r7",
            "body": {"content": [
                {"endIndex": 1},
                {"startIndex": 1, "endIndex": 9, "paragraph": {
                    "elements": [{"startIndex": 1, "endIndex": 9, "textRun": {"content": "Minutes\n"}}],
                    "paragraphStyle": {"namedStyleType": "HEADING_1"}}}
            ]}
        })
    );
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        (
            "GET",
            format!("/v1/documents/{DOC_ID}").as_str(),
            Some("suggestionsViewMode=SUGGESTIONS_INLINE")
        )
    );
    assert!(r.body.is_empty());
}

#[tokio::test]
async fn forms_batch_update_renames_typed_requests_at_every_depth() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"replies": [{"createItem": {"itemId": "i1", "questionId": ["q1"]}}]}),
        )
    })
    .await;
    let s = google(FORMS, &stub);
    call(
        &s,
        "gforms_forms_batch_update",
        json!({
            "form_id": FORM_ID,
            "requests": [
                {"create_item": {
                    "item": {"title": "Favourite colour?", "question_item": {"question": {
                        "required": true,
                        "choice_question": {"type": "RADIO", "options": [{"value": "Red"}, {"is_other": true}]}
                    }}},
                    "location": {"index": 0}
                }},
                {"update_form_info": {"info": {"description": "Team survey"}, "update_mask": "description"}},
                {"update_settings": {"settings": {"quiz_settings": {"is_quiz": false}}, "update_mask": "quizSettings.isQuiz"}}
            ],
            "include_form_in_response": false
        }),
    )
    .await
    .unwrap();
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", format!("/v1/forms/{FORM_ID}:batchUpdate").as_str())
    );
    assert_eq!(
        r.header("authorization").unwrap(),
        format!("Bearer {TOKEN}")
    );
    assert_eq!(
        r.text(),
        concat!(
            r#"{"requests":["#,
            r#"{"createItem":{"item":{"title":"Favourite colour?","questionItem":{"question":{"required":true,"choiceQuestion":{"type":"RADIO","options":[{"value":"Red"},{"isOther":true}]}}}},"location":{"index":0}}},"#,
            r#"{"updateFormInfo":{"info":{"description":"Team survey"},"updateMask":"description"}},"#,
            r#"{"updateSettings":{"settings":{"quizSettings":{"isQuiz":false}},"updateMask":"quizSettings.isQuiz"}}"#,
            r#"],"includeFormInResponse":false}"#
        )
    );

    // Typed: an unknown choice type or a missing location is refused before sending.
    for bad in [
        json!({"form_id": FORM_ID, "requests": [{"create_item": {"item": {"question_item": {"question": {"choice_question": {"type": "SLIDER", "options": [{"value": "a"}]}}}}, "location": {"index": 0}}}]}),
        json!({"form_id": FORM_ID, "requests": [{"delete_item": {}}]}),
    ] {
        let err = call(&s, "gforms_forms_batch_update", bad)
            .await
            .unwrap_err();
        assert!(err.is_validation(), "{err:?}");
    }
    assert_eq!(stub.take().len(), 1);
}

/// Each batch request sets exactly one of its keys (`require_exactly_one_of` on the list's
/// items): none, or two, is refused at the item's path before anything is sent; the items'
/// schema carries the groups as a `oneOf`.
#[tokio::test]
async fn forms_batch_requests_set_exactly_one_key_each() {
    let stub = Stub::start(|_| (200, json!({"replies": [{}]}))).await;
    let s = google(FORMS, &stub);
    let delete = json!({"location": {"index": 2}});
    let info = json!({"info": {"title": "T"}, "update_mask": "title"});
    for (request, got) in [
        (json!({}), "none of them"),
        (
            json!({"delete_item": delete, "update_form_info": info}),
            "2 of them: `delete_item`, `update_form_info`",
        ),
    ] {
        let args = json!({"form_id": FORM_ID, "requests": [{"delete_item": delete}, request]});
        let err = call(&s, "gforms_forms_batch_update", args)
            .await
            .unwrap_err();
        let CharterError::Validation(m) = err else {
            panic!("expected a validation error, got {err:?}");
        };
        assert!(m.contains("/requests/1"), "{m}");
        assert!(
            m.contains("exactly one of: `create_item`, or `update_item`, or `move_item`, or `delete_item`, or `update_form_info`, or `update_settings`"),
            "{m}"
        );
        assert!(m.contains(got), "{m}");
        assert!(
            !m.contains("/requests/0"),
            "the valid item is not named: {m}"
        );
    }
    assert!(stub.take().is_empty(), "a refused call sent a request");
    call(
        &s,
        "gforms_forms_batch_update",
        json!({"form_id": FORM_ID, "requests": [{"delete_item": delete}, {"update_form_info": info}]}),
    )
    .await
    .unwrap();
    assert_eq!(
        stub.only().text(),
        format!(
            "{}{}",
            r#"{"requests":[{"deleteItem":{"location":{"index":2}}},"#,
            r#"{"updateFormInfo":{"info":{"title":"T"},"updateMask":"title"}}]}"#
        )
    );
    let schema: serde_json::Value =
        serde_json::from_str(tool(FORMS, "gforms_forms_batch_update").views[0].schema).unwrap();
    let groups: Vec<serde_json::Value> = [
        "create_item",
        "update_item",
        "move_item",
        "delete_item",
        "update_form_info",
        "update_settings",
    ]
    .iter()
    .map(|k| json!({"required": [k]}))
    .collect();
    assert_eq!(
        schema["properties"]["requests"]["items"]["oneOf"],
        serde_json::Value::Array(groups)
    );
}

#[tokio::test]
async fn forms_responses_walk_next_page_tokens() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or_default().contains("pageToken=");
        let answers = json!({"q1": {"questionId": "q1", "textAnswers": {"answers": [{"value": "Red"}]}}});
        if second {
            (200, json!({"responses": [{"responseId": "r2", "lastSubmittedTime": "2024-05-02T00:00:00Z", "answers": answers}]}))
        } else {
            (200, json!({"responses": [{"responseId": "r1", "createTime": "2024-05-01T00:00:00Z",
                "lastSubmittedTime": "2024-05-01T00:00:00Z", "answers": answers, "formId": "ignored-by-keep"}],
                "nextPageToken": "tok-2"}))
        }
    })
    .await;
    let s = google(FORMS, &stub);
    let args =
        json!({"form_id": FORM_ID, "filter": "timestamp >= 2024-05-01T00:00:00Z", "page_size": 1});
    let first = call(&s, "gforms_forms_responses_list", args.clone())
        .await
        .unwrap();
    assert_eq!(first["responses"][0].get("formId"), None, "projected");
    assert_eq!(
        first["responses"][0]["answers"]["q1"]["textAnswers"]["answers"][0]["value"],
        "Red"
    );
    let responses = route(FORMS, "gforms_forms_responses_list");
    let next = next_page(responses, &args, &first).expect("a second page");
    assert_eq!(next["page_token"], "tok-2");
    let last = call(&s, "gforms_forms_responses_list", next.clone())
        .await
        .unwrap();
    assert_eq!(next_page(responses, &next, &last), None);

    let log = stub.take();
    assert_eq!(log[0].path, format!("/v1/forms/{FORM_ID}/responses"));
    assert_eq!(
        log[0].query.as_deref(),
        Some("filter=timestamp%20%3E%3D%202024-05-01T00%3A00%3A00Z&pageSize=1")
    );
    assert!(
        log[1]
            .query
            .as_deref()
            .unwrap()
            .ends_with("&pageSize=1&pageToken=tok-2")
    );
}

#[tokio::test]
async fn forms_watches_and_google_errors() {
    let stub = Stub::start(|r| match (r.method.as_str(), r.path.ends_with(":renew")) {
        ("POST", true) => (200, json!({"id": "w1", "state": "ACTIVE"})),
        ("POST", false) => (
            403,
            json!({"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED"}}),
        ),
        _ => (200, json!({})),
    })
    .await;
    let s = google(FORMS, &stub);
    let err = call(
        &s,
        "gforms_forms_watches_create",
        json!({"form_id": FORM_ID, "watch": {"event_type": "RESPONSES",
               "target": {"topic": {"topic_name": "projects/p/topics/forms"}}}, "watch_id": "new-responses"}),
    )
    .await
    .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((api.status, api.method), (403, "POST"));
    assert!(api.body.contains("PERMISSION_DENIED"), "{}", api.body);
    assert!(!err.to_string().contains(TOKEN));

    call(
        &s,
        "gforms_forms_watches_renew",
        json!({"form_id": FORM_ID, "watch_id": "w1"}),
    )
    .await
    .unwrap();
    call(
        &s,
        "gforms_forms_watches_delete",
        json!({"form_id": FORM_ID, "watch_id": "w1"}),
    )
    .await
    .unwrap();
    let log = stub.take();
    assert_eq!(
        log[0].json(),
        json!({"watch": {"eventType": "RESPONSES", "target": {"topic": {"topicName": "projects/p/topics/forms"}}},
               "watchId": "new-responses"})
    );
    assert_eq!(
        (
            log[1].method.as_str(),
            log[1].path.as_str(),
            log[1].body.len()
        ),
        (
            "POST",
            format!("/v1/forms/{FORM_ID}/watches/w1:renew").as_str(),
            0
        )
    );
    assert_eq!(
        (log[2].method.as_str(), log[2].path.as_str()),
        ("DELETE", format!("/v1/forms/{FORM_ID}/watches/w1").as_str())
    );
}

#[test]
fn the_packs_are_curated() {
    check_curated(DOCS, 3, 2500, GOOGLE_NOISE);
    // Forms' batch requests carry their "exactly one of" groups as a `oneOf` (51 tokens).
    check_curated(FORMS, 9, 2600, GOOGLE_NOISE);
    for def in DOCS.tools.iter().chain(FORMS.tools) {
        for view in def.views {
            for noise in [
                "prettyPrint",
                "quotaUser",
                "xgafv",
                "uploadType",
                "oauth_token",
            ] {
                assert!(!view.schema.contains(noise), "{}: {noise}", def.name);
            }
        }
        let charter::table::Exec::Http(route) = def.exec else {
            unreachable!()
        };
        assert_eq!(
            def.annotations.read_only,
            route.method.as_str() == "GET",
            "{}",
            def.name
        );
    }
    assert!(
        tool(FORMS, "gforms_forms_watches_renew")
            .annotations
            .idempotent
    );
    assert!(
        tool(FORMS, "gforms_forms_batch_update")
            .annotations
            .destructive
    );
}
