//! The `notion` pack on the wire: JSON bodies with the bearer token and the static
//! `Notion-Version` header (which the model can neither see nor set), read-only POSTs, cursor
//! pagination, projections and Notion's HTTP errors, through a `ToolSession` to a real axum
//! server on 127.0.0.1.

#![cfg(feature = "pack-notion")]

use crate::wire::wire_stub as stub;

use charter::CharterError;
use charter::http::next_page;
use serde_json::{Value, json};
use stub::{Stub, call, check_curated, route, session, tool};

const TOKEN: &str = "ntn_0123456789abcdefABCDEF";
const TABLE: &charter::table::Table = &charter::packs::notion::TOOLS;
const PAGE: &str = "59833787-2cf9-4fdf-8782-e53db20768a5";
const DATA_SOURCE: &str = "d9824bdc84454327be8b5b47500af6ce";
/// The API version the pack pins (data sources, `in_trash`, block `position`).
const VERSION: &str = "2026-03-11";

fn notion(stub: &Stub) -> charter::ToolSession {
    session(TABLE, &stub.base, &[("NOTION_TOKEN", TOKEN)])
}

fn page(id: &str, title: &str, extra: Value) -> Value {
    let mut page = json!({
        "object": "page", "id": id, "url": format!("https://www.notion.so/{id}"),
        "created_time": "2024-05-01T10:00:00.000Z", "last_edited_time": "2024-05-02T10:00:00.000Z",
        "created_by": {"object": "user", "id": "u1"}, "archived": false, "in_trash": false,
        "parent": {"type": "workspace", "workspace": true},
        "properties": {"title": {"id": "title", "type": "title", "title": [{"plain_text": title}]}}
    });
    page.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    page
}

#[tokio::test]
async fn search_is_a_read_only_post_with_the_version_header_and_a_cursor() {
    let stub = Stub::start(|r| {
        let second = r.json().get("start_cursor").is_some();
        let (id, more, next) = if second {
            ("p2", false, Value::Null)
        } else {
            ("p1", true, json!("cursor-2"))
        };
        (
            200,
            json!({"object": "list", "results": [page(id, "Roadmap", json!({"icon": {"emoji": "🗺"}}))],
                   "next_cursor": next, "has_more": more, "type": "page_or_database",
                   "page_or_database": {}, "request_id": "r1"}),
        )
    })
    .await;
    let s = notion(&stub);
    let args = json!({
        "query": "roadmap",
        "filter": {"property": "object", "value": "page"},
        "sort": {"timestamp": "last_edited_time", "direction": "descending"},
        "page_size": 1
    });
    let first = call(&s, "notion_search", args.clone()).await.unwrap();
    // The projection: ids, URLs, parents, titles, timestamps; not icons, creators or request ids.
    assert_eq!(
        first,
        json!({
            "object": "list",
            "results": [{
                "object": "page", "id": "p1", "url": "https://www.notion.so/p1",
                "last_edited_time": "2024-05-02T10:00:00.000Z", "in_trash": false,
                "parent": {"type": "workspace", "workspace": true},
                "properties": {"title": {"id": "title", "type": "title", "title": [{"plain_text": "Roadmap"}]}}
            }],
            "next_cursor": "cursor-2",
            "has_more": true
        })
    );
    let search = route(TABLE, "notion_search");
    let next = next_page(search, &args, &first).expect("a second page");
    assert_eq!(next["start_cursor"], "cursor-2");
    let last = call(&s, "notion_search", next.clone()).await.unwrap();
    assert_eq!(next_page(search, &next, &last), None);

    let log = stub.take();
    for r in &log {
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
            ("POST", "/v1/search", None)
        );
        assert_eq!(
            r.header("authorization").unwrap(),
            format!("Bearer {TOKEN}")
        );
        assert_eq!(r.header("notion-version"), Some(VERSION));
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
    assert_eq!(
        log[0].text(),
        r#"{"query":"roadmap","filter":{"property":"object","value":"page"},"sort":{"timestamp":"last_edited_time","direction":"descending"},"page_size":1}"#
    );
    assert_eq!(log[1].json()["start_cursor"], "cursor-2");

    // A POST that only reads: read-only and idempotent, so a scheduler may run it in parallel.
    let a = tool(TABLE, "notion_search").annotations;
    assert!(a.read_only && a.idempotent && !a.destructive);
    assert!(charter::scheduler::concurrency_safe_annotations(&a));
}

#[tokio::test]
async fn the_model_can_neither_see_nor_set_the_notion_version() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"object": "list", "results": [], "has_more": false, "next_cursor": null}),
        )
    })
    .await;
    let s = notion(&stub);
    for def in TABLE.tools {
        for view in def.views {
            assert!(
                !view.schema.to_ascii_lowercase().contains("notion-version"),
                "{}: the version header is not model-visible",
                def.name
            );
        }
    }
    let err = call(
        &s,
        "notion_blocks_children_list",
        json!({"block_id": PAGE, "Notion-Version": "2021-05-13"}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = &err else {
        panic!("{err:?}")
    };
    assert!(message.contains("Notion-Version"), "{message}");
    assert!(stub.take().is_empty(), "nothing was sent");

    // Every request carries it, GETs and DELETEs included.
    call(
        &s,
        "notion_blocks_children_list",
        json!({"block_id": PAGE, "page_size": 50, "start_cursor": "c1"}),
    )
    .await
    .unwrap();
    call(&s, "notion_blocks_delete", json!({"block_id": PAGE}))
        .await
        .unwrap();
    call(&s, "notion_users_me", json!({})).await.unwrap();
    let log = stub.take();
    assert_eq!(
        log.iter()
            .map(|r| (r.method.as_str(), r.path.as_str(), r.query.as_deref()))
            .collect::<Vec<_>>(),
        [
            (
                "GET",
                format!("/v1/blocks/{PAGE}/children").as_str(),
                Some("start_cursor=c1&page_size=50")
            ),
            ("DELETE", format!("/v1/blocks/{PAGE}").as_str(), None),
            ("GET", "/v1/users/me", None),
        ]
    );
    for r in &log {
        assert_eq!(r.header("notion-version"), Some(VERSION), "{}", r.path);
        assert!(r.body.is_empty(), "{}", r.path);
    }
}

#[tokio::test]
async fn pages_create_sends_parent_properties_and_blocks_as_json() {
    let stub = Stub::start(|_| (200, page("new-page", "Fix login", json!({})))).await;
    let s = notion(&stub);
    let properties = json!({
        "Name": {"title": [{"text": {"content": "Fix login"}}]},
        "Status": {"status": {"name": "In progress"}},
        "Due": {"date": {"start": "2024-06-01"}}
    });
    let children = json!([
        {"type": "heading_2", "heading_2": {"rich_text": [{"text": {"content": "Steps"}}]}},
        {"type": "to_do", "to_do": {"rich_text": [{"text": {"content": "Reproduce"}}], "checked": false}}
    ]);
    let out = call(
        &s,
        "notion_pages_create",
        json!({
            "parent": {"data_source_id": DATA_SOURCE},
            "properties": properties,
            "children": children,
            "icon": {"type": "emoji", "emoji": "🐛"}
        }),
    )
    .await
    .unwrap();
    assert_eq!(out["id"], "new-page", "a write answers whole");
    let r = stub.only();
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/pages"));
    assert_eq!(r.header("notion-version"), Some(VERSION));
    assert_eq!(
        r.json(),
        json!({
            "parent": {"data_source_id": DATA_SOURCE},
            "properties": properties,
            "children": children,
            "icon": {"type": "emoji", "emoji": "🐛"}
        })
    );
    // Free-form property values pass through untouched, in the caller's key order.
    assert!(r.text().starts_with(&format!(
        r#"{{"parent":{{"data_source_id":"{DATA_SOURCE}"}},"properties":{{"Name":{{"title":[{{"text":{{"content":"Fix login"}}}}]}},"Status""#
    )));

    // The parent is exactly one of data_source_id / page_id; an icon has a known type.
    for bad in [
        json!({"parent": {}, "properties": {}}),
        json!({"parent": {"data_source_id": DATA_SOURCE}, "properties": {}, "icon": {"type": "sticker"}}),
        json!({"properties": {}}),
    ] {
        let err = call(&s, "notion_pages_create", bad.clone())
            .await
            .unwrap_err();
        assert!(err.is_validation(), "{bad}: {err:?}");
    }
    assert_eq!(stub.take().len(), 1, "only the valid call was sent");
}

#[tokio::test]
async fn data_sources_query_posts_the_filter_and_projects_rows() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"object": "list", "results": [page("row-1", "Fix login", json!({"public_url": null, "cover": null}))],
                   "next_cursor": null, "has_more": false, "type": "page_or_database"}),
        )
    })
    .await;
    let s = notion(&stub);
    let filter = json!({"and": [
        {"property": "Status", "status": {"equals": "Done"}},
        {"timestamp": "last_edited_time", "last_edited_time": {"past_week": {}}}
    ]});
    let out = call(
        &s,
        "notion_data_sources_query",
        json!({
            "data_source_id": DATA_SOURCE,
            "filter": filter,
            "sorts": [{"property": "Due", "direction": "ascending"}],
            "filter_properties": ["title", ":UPp"]
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        out["results"][0]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        [
            "object",
            "id",
            "url",
            "created_time",
            "last_edited_time",
            "in_trash",
            "properties"
        ]
    );
    assert_eq!(out["has_more"], false);
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        (
            "POST",
            format!("/v1/data_sources/{DATA_SOURCE}/query").as_str()
        )
    );
    assert_eq!(
        r.query.as_deref(),
        Some("filter_properties=title&filter_properties=%3AUPp")
    );
    assert_eq!(
        r.json(),
        json!({"filter": filter, "sorts": [{"property": "Due", "direction": "ascending"}]})
    );
    let a = tool(TABLE, "notion_data_sources_query").annotations;
    assert!(a.read_only && a.idempotent);
}

#[tokio::test]
async fn notion_errors_are_api_errors_without_the_token() {
    let stub = Stub::start(|_| {
        (
            404,
            json!({"object": "error", "status": 404, "code": "object_not_found",
                   "message": "Could not find page with ID: 59833787. Make sure the relevant pages and databases are shared with your integration."}),
        )
    })
    .await;
    let s = notion(&stub);
    let err = call(&s, "notion_pages_get", json!({"page_id": PAGE}))
        .await
        .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (api.status, api.method, api.url_template),
        (404, "GET", "/v1/pages/{page_id}")
    );
    assert!(api.body.contains("object_not_found"), "{}", api.body);
    assert!(!err.to_string().contains(TOKEN));
    assert_eq!(stub.only().path, format!("/v1/pages/{PAGE}"));
}

#[tokio::test]
async fn block_content_is_projected_to_text() {
    let stub = Stub::start(|_| {
        let rich = |t: &str| json!([{"type": "text", "text": {"content": t, "link": null},
            "annotations": {"bold": false, "italic": false, "code": false, "color": "default"},
            "plain_text": t, "href": null}]);
        (
            200,
            json!({"object": "list", "results": [
                {"object": "block", "id": "b1", "type": "heading_1", "has_children": false,
                 "created_time": "2024-05-01T10:00:00.000Z", "created_by": {"object": "user", "id": "u1"},
                 "heading_1": {"rich_text": rich("Plan"), "is_toggleable": false, "color": "default"}},
                {"object": "block", "id": "b2", "type": "to_do", "has_children": true,
                 "to_do": {"rich_text": rich("Ship"), "checked": true, "color": "default"}},
                {"object": "block", "id": "b3", "type": "table_row", "has_children": false,
                 "table_row": {"cells": [rich("a"), rich("b")]}}
            ], "next_cursor": null, "has_more": false, "block": {}, "type": "block"}),
        )
    })
    .await;
    let s = notion(&stub);
    let out = call(&s, "notion_blocks_children_list", json!({"block_id": PAGE}))
        .await
        .unwrap();
    assert_eq!(
        out,
        json!({"results": [
            {"id": "b1", "type": "heading_1", "has_children": false,
             "heading_1": {"rich_text": [{"plain_text": "Plan"}]}},
            {"id": "b2", "type": "to_do", "has_children": true,
             "to_do": {"rich_text": [{"plain_text": "Ship"}], "checked": true}},
            {"id": "b3", "type": "table_row", "has_children": false,
             "table_row": {"cells": [[{"plain_text": "a"}], [{"plain_text": "b"}]]}}
        ], "next_cursor": null, "has_more": false})
    );
}

#[test]
fn the_pack_is_curated() {
    // Every operation of the 2026-03-11 content API an agent needs (see docs/packs/notion.md).
    check_curated(TABLE, 37, 2500, &["Notion-Version", "id", "archived"]);
    for name in [
        "notion_search",
        "notion_pages_get",
        "notion_pages_create",
        "notion_pages_update",
        "notion_pages_move",
        "notion_pages_property_get",
        "notion_pages_markdown_get",
        "notion_pages_markdown_update",
        "notion_blocks_children_list",
        "notion_blocks_children_append",
        "notion_blocks_get",
        "notion_blocks_update",
        "notion_blocks_delete",
        "notion_data_sources_query",
        "notion_data_sources_get",
        "notion_data_sources_create",
        "notion_data_sources_update",
        "notion_data_sources_templates_list",
        "notion_databases_get",
        "notion_databases_create",
        "notion_databases_update",
        "notion_views_list",
        "notion_views_get",
        "notion_users_list",
        "notion_users_get",
        "notion_users_me",
        "notion_comments_list",
        "notion_comments_create",
        "notion_comments_get",
        "notion_comments_update",
        "notion_comments_delete",
        "notion_file_uploads_create",
        "notion_file_uploads_complete",
        "notion_file_uploads_get",
        "notion_file_uploads_list",
        "notion_custom_emojis_list",
        "notion_async_tasks_get",
    ] {
        tool(TABLE, name);
    }
    assert_eq!(TABLE.tools.len(), 37);
    for def in TABLE.tools {
        let charter::table::Exec::Http(route) = def.exec else {
            unreachable!()
        };
        if let Some(p) = route.pagination {
            assert_eq!(
                p,
                charter::table::Pagination::Cursor {
                    next: "next_cursor",
                    param: "start_cursor"
                },
                "{}",
                def.name
            );
        }
        let method = route.method.as_str();
        let a = def.annotations;
        assert_eq!(
            a.read_only,
            method == "GET"
                || def.name == "notion_search"
                || def.name == "notion_data_sources_query",
            "{}",
            def.name
        );
    }
    assert!(tool(TABLE, "notion_blocks_delete").annotations.destructive);
    assert!(
        tool(TABLE, "notion_comments_delete")
            .annotations
            .destructive
    );
    assert!(
        tool(TABLE, "notion_pages_markdown_update")
            .annotations
            .destructive
    );
    assert!(
        !tool(TABLE, "notion_blocks_children_append")
            .annotations
            .idempotent
    );
}
