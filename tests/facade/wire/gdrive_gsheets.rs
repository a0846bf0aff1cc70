//! The `gdrive` and `gsheets` packs on the wire: each call goes through a `ToolSession` and the
//! shared `HttpExecutor` to a recording axum server on 127.0.0.1, which checks the method,
//! path, query, bearer token and body the Drive and Sheets APIs would receive.

#![cfg(all(feature = "pack-gdrive", feature = "pack-gsheets"))]

use crate::wire::google_stub;

use charter::CharterError;
use charter::http::next_page;
use google_stub::{
    Reply, Stub, assert_curated, assert_google_auth, assert_unauthenticated, call, call_text,
    route, session,
};
use serde_json::json;

const DRIVE: &charter::table::Table = &charter::packs::gdrive::TOOLS;
const SHEETS: &charter::table::Table = &charter::packs::gsheets::TOOLS;

// ---------------------------------------------------------------------------------------------
// gsheets

#[tokio::test]
async fn values_append_sends_the_input_option_as_query_and_rows_as_json() {
    let stub = Stub::start(|_| {
        Reply::json(
            200,
            json!({
                "spreadsheetId": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
                "tableRange": "Log!A1:C41",
                "updates": {
                    "spreadsheetId": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
                    "updatedRange": "Log!A42:C43", "updatedRows": 2, "updatedColumns": 3, "updatedCells": 6
                }
            }),
        )
    })
    .await;
    let s = session(SHEETS, &stub.base);
    let out = call(
        &s,
        "gsheets_values_append",
        json!({
            "spreadsheet_id": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
            "range": "Log!A1",
            "values": [["2025-03-14", "deploy", 3], ["2025-03-15", "=A42+1", null]],
            "value_input_option": "USER_ENTERED",
            "insert_data_option": "INSERT_ROWS"
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        json!({"tableRange": "Log!A1:C41", "updates": {"updatedRange": "Log!A42:C43", "updatedRows": 2, "updatedColumns": 3, "updatedCells": 6}})
    );

    let r = stub.only();
    assert_eq!(r.method, "POST");
    // The range is one percent-encoded path segment before the literal `:append`.
    assert_eq!(
        r.path,
        "/v4/spreadsheets/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/values/Log%21A1:append"
    );
    assert_eq!(
        r.decoded_path(),
        "/v4/spreadsheets/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/values/Log!A1:append"
    );
    assert_eq!(
        r.query.as_deref(),
        Some("valueInputOption=USER_ENTERED&insertDataOption=INSERT_ROWS")
    );
    assert_google_auth(&r);
    assert_eq!(
        r.text(),
        r#"{"values":[["2025-03-14","deploy",3],["2025-03-15","=A42+1",null]]}"#
    );

    // valueInputOption is required by the API, and a cell is a scalar.
    let err = call(
        &s,
        "gsheets_values_append",
        json!({"spreadsheet_id": "x", "range": "A1", "values": [[{"formula": "=1"}]]}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("value_input_option"), "{message}");
    assert!(message.contains("values"), "{message}");
    assert_eq!(stub.take().len(), 1, "the invalid call sent nothing");
}

#[tokio::test]
async fn values_get_and_batch_update_routes() {
    let stub = Stub::start(|r| {
        if r.method == "GET" {
            Reply::json(
                200,
                json!({"range": "'Q3 sales'!A1:B2", "majorDimension": "ROWS", "values": [["Name", "Score"], ["Ann", "91"]]}),
            )
        } else {
            Reply::json(
                200,
                json!({"spreadsheetId": "s1", "totalUpdatedRows": 2, "totalUpdatedColumns": 2, "totalUpdatedCells": 3, "totalUpdatedSheets": 2,
                       "responses": [{"spreadsheetId": "s1", "updatedRange": "Sheet1!A1:B1", "updatedCells": 2}, {"spreadsheetId": "s1", "updatedRange": "Totals!B2", "updatedCells": 1}]}),
            )
        }
    })
    .await;
    let s = session(SHEETS, &stub.base);
    let read = call(
        &s,
        "gsheets_values_get",
        json!({"spreadsheet_id": "s1", "range": "'Q3 sales'!A1:B2", "value_render_option": "UNFORMATTED_VALUE"}),
    )
    .await
    .unwrap();
    assert_eq!(read["values"][1], json!(["Ann", "91"]));
    call(
        &s,
        "gsheets_values_batch_update",
        json!({"spreadsheet_id": "s1", "value_input_option": "RAW",
               "data": [{"range": "Sheet1!A1:B1", "values": [["a", true]]},
                        {"range": "Totals!B2", "values": [[1.5]], "major_dimension": "COLUMNS"}]}),
    )
    .await
    .unwrap();
    let log = stub.take();
    assert_eq!(
        log[0].path,
        "/v4/spreadsheets/s1/values/%27Q3%20sales%27%21A1%3AB2"
    );
    assert_eq!(
        log[0].query.as_deref(),
        Some("valueRenderOption=UNFORMATTED_VALUE")
    );
    assert_eq!(
        (
            log[1].method.as_str(),
            log[1].path.as_str(),
            log[1].query.as_deref()
        ),
        ("POST", "/v4/spreadsheets/s1/values:batchUpdate", None)
    );
    assert_eq!(
        log[1].text(),
        r#"{"data":[{"range":"Sheet1!A1:B1","values":[["a",true]]},{"range":"Totals!B2","values":[[1.5]],"majorDimension":"COLUMNS"}],"valueInputOption":"RAW"}"#
    );
    for r in &log {
        assert_google_auth(r);
    }
}

#[tokio::test]
async fn batch_update_sends_requests_verbatim() {
    let stub = Stub::start(|_| {
        Reply::json(
            200,
            json!({"spreadsheetId": "s1", "replies": [{"addSheet": {"properties": {"sheetId": 77, "title": "Q4"}}}, {}]}),
        )
    })
    .await;
    let s = session(SHEETS, &stub.base);
    let requests = json!([
        {"addSheet": {"properties": {"title": "Q4", "gridProperties": {"rowCount": 100, "columnCount": 8}}}},
        {"repeatCell": {"range": {"sheetId": 0, "startRowIndex": 0, "endRowIndex": 1},
                        "cell": {"userEnteredFormat": {"textFormat": {"bold": true}}},
                        "fields": "userEnteredFormat.textFormat.bold"}}
    ]);
    let out = call(
        &s,
        "gsheets_spreadsheets_batch_update",
        json!({"spreadsheet_id": "s1", "requests": requests}),
    )
    .await
    .unwrap();
    assert_eq!(out["replies"][0]["addSheet"]["properties"]["sheetId"], 77);
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v4/spreadsheets/s1:batchUpdate")
    );
    // Free-form request objects keep the API's own keys: no re-casing inside them.
    assert_eq!(r.json(), json!({"requests": requests}));

    // A request is an object, not prose.
    let err = call(
        &s,
        "gsheets_spreadsheets_batch_update",
        json!({"spreadsheet_id": "s1", "requests": ["delete the first sheet"]}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}

#[tokio::test]
async fn sheets_rejected_token_is_an_api_error() {
    let stub = Stub::start(|_| google_stub::unauthenticated()).await;
    let s = session(SHEETS, &stub.base);
    let err = call(
        &s,
        "gsheets_values_update",
        json!({"spreadsheet_id": "s1", "range": "A1", "values": [[1]], "value_input_option": "RAW"}),
    )
    .await
    .unwrap_err();
    assert_unauthenticated(
        &err,
        "PUT",
        "/v4/spreadsheets/{spreadsheet_id}/values/{range}",
    );
    assert_eq!(stub.only().json(), json!({"values": [[1]]}));
}

// ---------------------------------------------------------------------------------------------
// gdrive

fn drive_file(id: &str, name: &str) -> serde_json::Value {
    json!({
        "kind": "drive#file", "id": id, "name": name,
        "mimeType": "application/vnd.google-apps.document", "parents": ["0AFolder"],
        "modifiedTime": "2025-03-01T10:00:00.000Z", "createdTime": "2025-02-01T10:00:00.000Z",
        "webViewLink": format!("https://docs.google.com/document/d/{id}/edit"),
        "owners": [{"kind": "drive#user", "displayName": "Ann", "emailAddress": "ann@example.com", "me": true, "permissionId": "0123"}],
        "capabilities": {"canEdit": true, "canComment": true, "canShare": true, "canDownload": true, "canTrash": true},
        "exportLinks": {"application/pdf": "https://docs.google.com/feeds/download/pdf"},
        "thumbnailLink": "https://lh3.googleusercontent.com/x", "iconLink": "https://drive-thirdparty.googleusercontent.com/x",
        "shared": false, "starred": false, "trashed": false, "version": "12", "spaces": ["drive"]
    })
}

#[tokio::test]
async fn files_list_searches_with_q_and_asks_for_every_field() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or("").contains("pageToken=");
        let mut body = json!({"kind": "drive#fileList", "incompleteSearch": false,
            "files": [drive_file(if second { "f2" } else { "f1" }, "Budget 2025")]});
        if !second {
            body["nextPageToken"] = json!("tok-2");
        }
        Reply::json(200, body)
    })
    .await;
    let s = session(DRIVE, &stub.base);
    let args = json!({
        "q": "name contains 'budget' and '0AFolder' in parents and trashed = false",
        "page_size": 20,
        "order_by": "modifiedTime desc"
    });
    let out = call(&s, "gdrive_files_list", args.clone()).await.unwrap();
    let r = stub.take().remove(0);
    assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/files"));
    assert_google_auth(&r);
    // The pack's constant `fields=*` comes after the arguments.
    assert_eq!(
        r.query_pairs(),
        [
            (
                "q",
                "name contains 'budget' and '0AFolder' in parents and trashed = false"
            ),
            ("pageSize", "20"),
            ("orderBy", "modifiedTime desc"),
            ("fields", "*"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    // Capabilities, links and icons are projected away; owners keep their address.
    let f = &out["files"][0];
    assert_eq!(f["id"], "f1");
    assert_eq!(f["owners"], json!([{"emailAddress": "ann@example.com"}]));
    for dropped in [
        "kind",
        "capabilities",
        "exportLinks",
        "thumbnailLink",
        "version",
    ] {
        assert!(f.get(dropped).is_none(), "{dropped} is projected away");
    }
    assert!(out.get("kind").is_none());
    let route = route(DRIVE, "gdrive_files_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["page_token"], "tok-2");
    let last = call(&s, "gdrive_files_list", next.clone()).await.unwrap();
    assert_eq!(next_page(route, &next, &last), None);
}

#[tokio::test]
async fn files_create_update_share_and_export() {
    let stub = Stub::start(|r| match (r.method.as_str(), r.path.as_str()) {
        ("GET", p) if p.ends_with("/export") => {
            Reply::text(200, "Budget 2025\r\nTotal: 42\r\n").content_type("text/plain; charset=utf-8")
        }
        ("POST", p) if p.ends_with("/permissions") => Reply::json(
            200,
            json!({"kind": "drive#permission", "id": "0456", "type": "user", "role": "writer", "emailAddress": "bob@example.com"}),
        ),
        _ => Reply::json(200, drive_file("fold1", "Reports")),
    })
    .await;
    let s = session(DRIVE, &stub.base);
    call(
        &s,
        "gdrive_files_create",
        json!({"name": "Reports", "mime_type": "application/vnd.google-apps.folder", "parents": ["0AFolder"],
               "folder_color_rgb": "#16a766"}),
    )
    .await
    .unwrap();
    call(
        &s,
        "gdrive_files_update",
        json!({"file_id": "f1", "name": "Budget 2025 (final)", "add_parents": "fold1", "remove_parents": "0AFolder",
               "supports_all_drives": true}),
    )
    .await
    .unwrap();
    let perm = call(
        &s,
        "gdrive_permissions_create",
        json!({"file_id": "f1", "role": "writer", "type": "user", "email_address": "bob@example.com",
               "email_message": "Please review"}),
    )
    .await
    .unwrap();
    assert_eq!(
        perm,
        json!({"id": "0456", "type": "user", "role": "writer", "emailAddress": "bob@example.com"})
    );
    let text = call_text(
        &s,
        "gdrive_files_export",
        json!({"file_id": "f1", "mime_type": "text/plain"}),
    )
    .await
    .unwrap();
    assert_eq!(text, "Budget 2025\r\nTotal: 42\r\n");

    let log = stub.take();
    let seen: Vec<(&str, &str, Option<&str>)> = log
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str(), r.query.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            ("POST", "/files", Some("fields=%2A")),
            (
                "PATCH",
                "/files/f1",
                Some("addParents=fold1&removeParents=0AFolder&supportsAllDrives=true&fields=%2A")
            ),
            (
                "POST",
                "/files/f1/permissions",
                Some("emailMessage=Please%20review&fields=%2A")
            ),
            (
                "GET",
                "/files/f1/export",
                Some("mimeType=text%2Fplain&fields=%2A")
            ),
        ]
    );
    for r in &log {
        assert_google_auth(r);
    }
    assert_eq!(
        log[0].text(),
        r##"{"name":"Reports","mimeType":"application/vnd.google-apps.folder","parents":["0AFolder"],"folderColorRgb":"#16a766"}"##
    );
    assert_eq!(log[1].text(), r#"{"name":"Budget 2025 (final)"}"#);
    assert_eq!(
        log[2].text(),
        r#"{"role":"writer","type":"user","emailAddress":"bob@example.com"}"#
    );
    assert!(log[3].body.is_empty());

    // Roles and grantee types are the API's enums.
    let err = call(
        &s,
        "gdrive_permissions_create",
        json!({"file_id": "f1", "role": "editor", "type": "person"}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(
        message.contains("role") && message.contains("type"),
        "{message}"
    );
}

#[tokio::test]
async fn drive_rejected_token_is_an_api_error() {
    let stub = Stub::start(|_| google_stub::unauthenticated()).await;
    let s = session(DRIVE, &stub.base);
    let err = call(&s, "gdrive_about_get", json!({})).await.unwrap_err();
    assert_unauthenticated(&err, "GET", "/about");
    assert_eq!(stub.only().query.as_deref(), Some("fields=%2A"));
}

/// A `DataFilter` selects by exactly one of its three keys (`require_exactly_one_of` on the
/// type): two, or none, is refused at the filter's path; one is sent as given.
#[tokio::test]
async fn data_filters_select_by_exactly_one_key() {
    let stub = Stub::start(|_| Reply::json(200, json!({"valueRanges": []}))).await;
    let s = session(SHEETS, &stub.base);
    let args = |filter: serde_json::Value| json!({"spreadsheet_id": "sheet1", "data_filters": [{"a1_range": "Log!A1:C9"}, filter]});
    for (filter, got) in [
        (json!({}), "none of them"),
        (
            json!({"a1_range": "Log!A1", "grid_range": {"sheet_id": 0}}),
            "2 of them: `a1_range`, `grid_range`",
        ),
    ] {
        let err = call(&s, "gsheets_values_batch_get_by_data_filter", args(filter))
            .await
            .unwrap_err();
        let CharterError::Validation(m) = err else {
            panic!("expected a validation error, got {err:?}");
        };
        assert!(
            m.contains("/data_filters/1: expected exactly one of: `a1_range`, or `grid_range`, or `developer_metadata_lookup`"),
            "{m}"
        );
        assert!(m.contains(got) && !m.contains("/data_filters/0"), "{m}");
    }
    assert!(stub.take().is_empty(), "a refused call sent a request");
    call(
        &s,
        "gsheets_values_batch_get_by_data_filter",
        args(json!({"developer_metadata_lookup": {"metadata_key": "region"}})),
    )
    .await
    .unwrap();
    assert_eq!(
        stub.only().json(),
        json!({"dataFilters": [{"a1Range": "Log!A1:C9"}, {"developerMetadataLookup": {"metadataKey": "region"}}]})
    );
}

#[test]
fn the_packs_are_curated() {
    assert_curated(DRIVE, 40);
    assert_curated(SHEETS, 15);
    let drive = session(DRIVE, "http://127.0.0.1:9");
    let sheets = session(SHEETS, "http://127.0.0.1:9");
    let safe = |s: &charter::ToolSession, name: &str| {
        charter::scheduler::concurrency_safe_annotations(&s.annotations(name).unwrap())
    };
    // POSTs that only read are read-only and idempotent.
    for name in [
        "gsheets_values_batch_get_by_data_filter",
        "gsheets_spreadsheets_get_by_data_filter",
        "gsheets_developer_metadata_search",
        "gsheets_values_get",
    ] {
        assert!(safe(&sheets, name), "{name}");
    }
    assert!(safe(&drive, "gdrive_files_list") && safe(&drive, "gdrive_files_export"));
    let a = |s: &charter::ToolSession, name: &str| s.annotations(name).unwrap();
    assert!(a(&sheets, "gsheets_values_clear").destructive);
    assert!(a(&sheets, "gsheets_spreadsheets_batch_update").destructive);
    assert!(!a(&sheets, "gsheets_values_append").idempotent);
    assert!(a(&drive, "gdrive_files_empty_trash").destructive);
    assert!(
        a(&drive, "gdrive_drives_create").idempotent,
        "request_id makes it safe to retry"
    );
    // batchUpdate was about 240k tokens as imported.
    let bu = SHEETS
        .tools
        .iter()
        .find(|t| t.name == "gsheets_spreadsheets_batch_update")
        .unwrap();
    assert!(charter::schema_tokens(bu) < 1_500);
    for (table, tool, words) in [
        (DRIVE, "gdrive_files_list", &["document", "folder"][..]),
        (DRIVE, "gdrive_permissions_create", &["share"][..]),
        (
            SHEETS,
            "gsheets_values_get",
            &["spreadsheet", "sheet", "cells", "rows"][..],
        ),
    ] {
        let def = table.tools.iter().find(|t| t.name == tool).unwrap();
        for w in words {
            assert!(def.search.hints.contains(w), "{tool}: {w}");
        }
    }
}
