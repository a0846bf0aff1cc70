//! The `notion` pack's 2026-03-11 surface on the wire: databases as containers and data sources
//! as their tables, page moves and Markdown content, `in_trash` and block `position`, comments
//! by id, file uploads, views, custom emojis and background tasks. Every tool's exact request
//! (method, path, query, headers, body) against a recording axum server on 127.0.0.1, cursor
//! pagination over the new lists, and requests refused before they are sent.

#![cfg(feature = "pack-notion")]

use crate::wire::wire_stub as stub;

use charter::http::next_page;
use serde_json::{Value, json};
use stub::{Expect, Stub, call, expect_refused, expect_requests, route, session};

const TOKEN: &str = "ntn_0123456789abcdefABCDEF";
const TABLE: &charter::table::Table = &charter::packs::notion::TOOLS;
const PAGE: &str = "59833787-2cf9-4fdf-8782-e53db20768a5";
const DATABASE: &str = "248104cd477e80fdb757e945d38000bd";
const DATA_SOURCE: &str = "248104cd-477e-80af-bc30-000bd28de8f9";
const VERSION: &str = "2026-03-11";

fn notion(stub: &Stub) -> charter::ToolSession {
    session(TABLE, &stub.base, &[("NOTION_TOKEN", TOKEN)])
}

fn get(tool: &'static str, args: Value, path: String, query: Option<&'static str>) -> Expect {
    Expect {
        tool,
        args,
        method: "GET",
        path,
        query,
        body: None,
    }
}

/// Every case's exact request, each with the bearer token and the pinned version.
async fn expect_notion_requests(stub: &Stub, s: &charter::ToolSession, cases: Vec<Expect>) {
    let bearer = format!("Bearer {TOKEN}");
    let headers = [
        ("authorization", bearer.as_str()),
        ("notion-version", VERSION),
    ];
    expect_requests(stub, s, &headers, cases).await;
}

/// A write: its arguments are the body plus the path arguments.
fn write(
    tool: &'static str,
    method: &'static str,
    path: String,
    path_args: Value,
    body: Value,
) -> Expect {
    let mut args = body.clone();
    let map = args.as_object_mut().unwrap();
    map.extend(path_args.as_object().unwrap().clone());
    Expect {
        tool,
        args,
        method,
        path,
        query: None,
        body: Some(body),
    }
}

#[tokio::test]
async fn pages_data_sources_and_databases_send_the_2026_requests() {
    let stub = Stub::start(|_| (200, json!({"object": "page", "id": "x"}))).await;
    let s = notion(&stub);
    let title = json!([{"text": {"content": "Bugs"}}]);
    let schema = json!({"Name": {"title": {}}, "Severity": {"select": {"options": [{"name": "High", "color": "red"}]}}});
    let cases = vec![
        get(
            "notion_pages_get",
            json!({"page_id": PAGE, "filter_properties": ["title", ":UPp"]}),
            format!("/v1/pages/{PAGE}"),
            Some("filter_properties=title&filter_properties=%3AUPp"),
        ),
        write(
            "notion_pages_create",
            "POST",
            "/v1/pages".into(),
            json!({}),
            json!({"parent": {"page_id": PAGE}, "markdown": "# Plan\n\n- ship", "allow_async": true}),
        ),
        write(
            "notion_pages_update",
            "PATCH",
            format!("/v1/pages/{PAGE}"),
            json!({"page_id": PAGE}),
            json!({"in_trash": true, "is_locked": false}),
        ),
        write(
            "notion_pages_move",
            "POST",
            format!("/v1/pages/{PAGE}/move"),
            json!({"page_id": PAGE}),
            json!({"parent": {"type": "data_source_id", "data_source_id": DATA_SOURCE}}),
        ),
        get(
            "notion_pages_markdown_get",
            json!({"page_id": PAGE, "include_transcript": true}),
            format!("/v1/pages/{PAGE}/markdown"),
            Some("include_transcript=true"),
        ),
        write(
            "notion_pages_markdown_update",
            "PATCH",
            format!("/v1/pages/{PAGE}/markdown"),
            json!({"page_id": PAGE}),
            json!({"type": "update_content", "update_content": {"content_updates": [
                {"old_str": "Q3", "new_str": "Q4", "replace_all_matches": true}
            ]}}),
        ),
        write(
            "notion_blocks_children_append",
            "PATCH",
            format!("/v1/blocks/{PAGE}/children"),
            json!({"block_id": PAGE}),
            json!({
                "children": [{"type": "divider", "divider": {}}],
                "position": {"type": "after_block", "after_block": {"id": "b7"}}
            }),
        ),
        write(
            "notion_blocks_update",
            "PATCH",
            "/v1/blocks/b7".into(),
            json!({"block_id": "b7"}),
            json!({"in_trash": true}),
        ),
        get(
            "notion_data_sources_get",
            json!({"data_source_id": DATA_SOURCE}),
            format!("/v1/data_sources/{DATA_SOURCE}"),
            None,
        ),
        write(
            "notion_data_sources_create",
            "POST",
            "/v1/data_sources".into(),
            json!({}),
            json!({"parent": {"database_id": DATABASE}, "properties": schema, "title": title}),
        ),
        write(
            "notion_data_sources_update",
            "PATCH",
            format!("/v1/data_sources/{DATA_SOURCE}"),
            json!({"data_source_id": DATA_SOURCE}),
            json!({"properties": {"Old": {"name": "New"}, "Unused": null}, "in_trash": false}),
        ),
        get(
            "notion_data_sources_templates_list",
            json!({"data_source_id": DATA_SOURCE, "name": "Bug", "page_size": 10}),
            format!("/v1/data_sources/{DATA_SOURCE}/templates"),
            Some("name=Bug&page_size=10"),
        ),
        get(
            "notion_databases_get",
            json!({"database_id": DATABASE}),
            format!("/v1/databases/{DATABASE}"),
            None,
        ),
        write(
            "notion_databases_create",
            "POST",
            "/v1/databases".into(),
            json!({}),
            json!({
                "parent": {"type": "page_id", "page_id": PAGE},
                "title": title,
                "initial_data_source": {"properties": schema},
                "is_inline": true
            }),
        ),
        write(
            "notion_databases_update",
            "PATCH",
            format!("/v1/databases/{DATABASE}"),
            json!({"database_id": DATABASE}),
            json!({"parent": {"type": "workspace", "workspace": true}, "in_trash": false, "is_locked": true}),
        ),
        get(
            "notion_views_list",
            json!({"page_size": 5, "database_id": DATABASE}),
            "/v1/views".into(),
            Some("database_id=248104cd477e80fdb757e945d38000bd&page_size=5"),
        ),
        get(
            "notion_views_get",
            json!({"view_id": "v1"}),
            "/v1/views/v1".into(),
            None,
        ),
    ];
    expect_notion_requests(&stub, &s, cases).await;
}

#[tokio::test]
async fn comments_uploads_emojis_and_tasks_send_exact_requests() {
    let stub = Stub::start(|_| (200, json!({"object": "comment", "id": "c1"}))).await;
    let s = notion(&stub);
    let cases = vec![
        write(
            "notion_comments_create",
            "POST",
            "/v1/comments".into(),
            json!({}),
            json!({
                "parent": {"block_id": "b7"},
                "markdown": "Looks **good**",
                "attachments": [{"file_upload_id": "f1"}],
                "display_name": {"type": "custom", "custom": {"name": "Release bot"}}
            }),
        ),
        get(
            "notion_comments_get",
            json!({"comment_id": "c1"}),
            "/v1/comments/c1".into(),
            None,
        ),
        write(
            "notion_comments_update",
            "PATCH",
            "/v1/comments/c1".into(),
            json!({"comment_id": "c1"}),
            json!({"rich_text": [{"text": {"content": "Fixed"}}]}),
        ),
        Expect {
            tool: "notion_comments_delete",
            args: json!({"comment_id": "c1"}),
            method: "DELETE",
            path: "/v1/comments/c1".into(),
            query: None,
            body: None,
        },
        write(
            "notion_file_uploads_create",
            "POST",
            "/v1/file_uploads".into(),
            json!({}),
            json!({"mode": "external_url", "external_url": "https://example.com/q3.pdf", "filename": "q3.pdf"}),
        ),
        Expect {
            tool: "notion_file_uploads_complete",
            args: json!({"file_upload_id": "f1"}),
            method: "POST",
            path: "/v1/file_uploads/f1/complete".into(),
            query: None,
            body: None,
        },
        get(
            "notion_file_uploads_get",
            json!({"file_upload_id": "f1"}),
            "/v1/file_uploads/f1".into(),
            None,
        ),
        get(
            "notion_file_uploads_list",
            json!({"status": "uploaded", "page_size": 20}),
            "/v1/file_uploads".into(),
            Some("status=uploaded&page_size=20"),
        ),
        get(
            "notion_custom_emojis_list",
            json!({"name": "shipit"}),
            "/v1/custom_emojis".into(),
            Some("name=shipit"),
        ),
        get(
            "notion_async_tasks_get",
            json!({"task_id": "t1"}),
            "/v1/async_tasks/t1".into(),
            None,
        ),
    ];
    expect_notion_requests(&stub, &s, cases).await;
}

#[tokio::test]
async fn templates_views_and_uploads_page_by_cursor_and_are_projected() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().is_some_and(|q| q.contains("start_cursor"));
        let (more, next) = if second { (false, Value::Null) } else { (true, json!("c2")) };
        let body = match r.path.as_str() {
            p if p.ends_with("/templates") => json!({
                "templates": [{"id": "t1", "name": "Bug report", "is_default": true, "icon": null}],
                "has_more": more, "next_cursor": next}),
            "/v1/views" => json!({"object": "list", "type": "view", "view": {},
                "results": [{"object": "view", "id": "v1"}], "has_more": more, "next_cursor": next}),
            _ => json!({"object": "list", "type": "file_upload", "file_upload": {},
                "results": [{"object": "file_upload", "id": "f1", "status": "uploaded", "filename": "q3.pdf",
                    "content_type": "application/pdf", "content_length": 1024, "upload_url": "https://x",
                    "created_time": "2026-05-01T10:00:00.000Z", "expiry_time": null, "created_by": {"id": "u1"}}],
                "has_more": more, "next_cursor": next}),
        };
        (200, body)
    })
    .await;
    let s = notion(&stub);
    for (tool, args) in [
        (
            "notion_data_sources_templates_list",
            json!({"data_source_id": DATA_SOURCE}),
        ),
        ("notion_views_list", json!({"data_source_id": DATA_SOURCE})),
        ("notion_file_uploads_list", json!({})),
    ] {
        let first = call(&s, tool, args.clone()).await.unwrap();
        let next = next_page(route(TABLE, tool), &args, &first).expect(tool);
        assert_eq!(next["start_cursor"], "c2", "{tool}");
        let last = call(&s, tool, next.clone()).await.unwrap();
        assert_eq!(next_page(route(TABLE, tool), &next, &last), None, "{tool}");
        let log = stub.take();
        assert_eq!(log.len(), 2);
        assert!(
            log[1].query.as_deref().unwrap().contains("start_cursor=c2"),
            "{tool}"
        );
        match tool {
            "notion_data_sources_templates_list" => assert_eq!(
                first,
                json!({"templates": [{"id": "t1", "name": "Bug report", "is_default": true}],
                       "has_more": true, "next_cursor": "c2"})
            ),
            "notion_file_uploads_list" => assert_eq!(
                first["results"][0],
                json!({"id": "f1", "status": "uploaded", "filename": "q3.pdf", "content_type": "application/pdf",
                       "content_length": 1024, "created_time": "2026-05-01T10:00:00.000Z", "expiry_time": null})
            ),
            _ => assert_eq!(first["results"], json!([{"id": "v1"}])),
        }
    }
}

#[tokio::test]
async fn malformed_edits_are_refused_before_sending() {
    let stub = Stub::start(|_| (200, json!({}))).await;
    let s = notion(&stub);
    expect_refused(
        &stub,
        &s,
        vec![
            // The edit kind is required and named.
            (
                "notion_pages_markdown_update",
                json!({"page_id": PAGE, "replace_content": {"new_str": "x"}}),
            ),
            (
                "notion_pages_markdown_update",
                json!({"page_id": PAGE, "type": "rewrite"}),
            ),
            // Block position has three kinds.
            (
                "notion_blocks_children_append",
                json!({"block_id": PAGE, "children": [], "position": {"type": "middle"}}),
            ),
            // The 2022 spelling is gone.
            (
                "notion_pages_update",
                json!({"page_id": PAGE, "archived": true}),
            ),
            // A data source belongs to a database.
            (
                "notion_data_sources_create",
                json!({"parent": {"page_id": PAGE}, "properties": {}}),
            ),
            ("notion_file_uploads_list", json!({"status": "done"})),
            (
                "notion_pages_move",
                json!({"page_id": PAGE, "parent": {"database_id": DATABASE}}),
            ),
            // A move names the parent's kind, as Notion's move-page body does.
            (
                "notion_pages_move",
                json!({"page_id": PAGE, "parent": {"page_id": PAGE}}),
            ),
            // A comment needs a place (parent or thread) and a text (rich_text or markdown).
            ("notion_comments_create", json!({})),
            (
                "notion_comments_create",
                json!({"parent": {"page_id": PAGE}}),
            ),
            ("notion_comments_create", json!({"markdown": "hi"})),
        ],
    )
    .await;
}
