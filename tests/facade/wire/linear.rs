//! The linear pack's newer families on the wire (initiatives, customers and their requests,
//! notifications, favorites, saved views, webhooks, team memberships, milestones, updates,
//! reactions, batch edits...): each call goes through a `ToolSession` to the recording stub on
//! 127.0.0.1, which checks the exact GraphQL document and the camelCase variables that arrive,
//! every paginated tool's cursor walk, and GraphQL `errors` in a 200. `requests.rs` covers the
//! pack's first tools (issues, filters, annotations).

#![cfg(feature = "pack-linear")]

use charter::CharterError;
use charter::http::next_page;
use charter::table::{Exec, Pagination, Table};
use serde_json::{Map, Value, json};

use crate::wire::wire_stub::{Stub, call, check_curated, route, session};

const KEY: &str = "lin_api_fedcba9876543210";
const TABLE: &Table = &charter::packs::linear::TOOLS;

fn linear(base: &str) -> charter::ToolSession {
    session(TABLE, base, &[("LINEAR_API_KEY", KEY)])
}

/// Calls `tool` with `args` and checks the one request the stub saw: a POST of the tool's own
/// document with exactly `variables`, the key sent bare in `Authorization`.
async fn sends(tool: &str, args: Value, variables: Value) {
    let stub = Stub::start(|_| (200, json!({"data": {}}))).await;
    let s = linear(&stub.base);
    call(&s, tool, args)
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/"),
        "{tool}"
    );
    assert_eq!(r.header("authorization"), Some(KEY), "{tool}");
    let document = route(TABLE, tool).graphql.expect("a GraphQL tool");
    assert_eq!(
        r.json(),
        json!({"query": document, "variables": variables}),
        "{tool}"
    );
}

#[tokio::test]
async fn linear_new_mutations_put_flat_arguments_into_camel_case_variables() {
    let cases = [
        (
            "linear_initiatives_create",
            json!({"name": "Enterprise readiness", "owner_id": "u1", "status": "Active", "target_date": "2026-06-30"}),
            json!({"name": "Enterprise readiness", "ownerId": "u1", "status": "Active", "targetDate": "2026-06-30"}),
        ),
        (
            "linear_initiatives_add_project",
            json!({"initiative_id": "ini1", "project_id": "p1"}),
            json!({"initiativeId": "ini1", "projectId": "p1"}),
        ),
        (
            "linear_initiative_updates_create",
            json!({"initiative_id": "ini1", "body": "On track.", "health": "onTrack"}),
            json!({"initiativeId": "ini1", "body": "On track.", "health": "onTrack"}),
        ),
        (
            "linear_customers_create",
            json!({"name": "Acme", "domains": ["acme.com"], "tier_id": "t1", "revenue": 120000}),
            json!({"name": "Acme", "domains": ["acme.com"], "tierId": "t1", "revenue": 120000}),
        ),
        (
            "linear_customer_needs_create",
            json!({"customer_external_id": "crm-42", "issue_id": "i1", "body": "Needs SSO", "priority": 1}),
            json!({"customerExternalId": "crm-42", "issueId": "i1", "body": "Needs SSO", "priority": 1}),
        ),
        (
            "linear_customer_needs_delete",
            json!({"id": "n1", "keep_attachment": true}),
            json!({"id": "n1", "keepAttachment": true}),
        ),
        (
            "linear_notifications_mark_read",
            json!({"read_at": "2026-12-01T09:00:00Z", "issue_id": "i1"}),
            json!({"readAt": "2026-12-01T09:00:00Z", "issueId": "i1"}),
        ),
        (
            "linear_notifications_update",
            json!({"id": "no1", "read_at": null}),
            json!({"id": "no1", "readAt": null}),
        ),
        (
            "linear_favorites_create",
            json!({"project_id": "p1", "parent_id": "f0"}),
            json!({"projectId": "p1", "parentId": "f0"}),
        ),
        (
            "linear_views_create",
            json!({"name": "My open bugs", "shared": false,
                   "filter_data": {"assignee": {"is_me": {"eq": true}}, "labels": {"some": {"name": {"eq": "Bug"}}}}}),
            json!({"name": "My open bugs", "filterData": {"assignee": {"isMe": {"eq": true}}, "labels": {"some": {"name": {"eq": "Bug"}}}}, "shared": false}),
        ),
        (
            "linear_webhooks_create",
            json!({"url": "https://hooks.example.com/linear", "resource_types": ["Issue", "Comment"], "all_public_teams": true}),
            json!({"url": "https://hooks.example.com/linear", "resourceTypes": ["Issue", "Comment"], "allPublicTeams": true}),
        ),
        (
            "linear_webhooks_update",
            json!({"id": "w1", "enabled": false}),
            json!({"id": "w1", "enabled": false}),
        ),
        (
            "linear_team_memberships_create",
            json!({"team_id": "t1", "user_id": "u1"}),
            json!({"teamId": "t1", "userId": "u1"}),
        ),
        (
            "linear_team_memberships_delete",
            json!({"id": "m1", "also_leave_parent_teams": false}),
            json!({"id": "m1", "alsoLeaveParentTeams": false}),
        ),
        (
            "linear_workflow_states_create",
            json!({"team_id": "t1", "name": "In Review", "type": "started", "color": "#f2c94c"}),
            json!({"teamId": "t1", "name": "In Review", "type": "started", "color": "#f2c94c"}),
        ),
        (
            "linear_comments_resolve",
            json!({"id": "c1", "resolving_comment_id": "c2"}),
            json!({"id": "c1", "resolvingCommentId": "c2"}),
        ),
        (
            "linear_reactions_create",
            json!({"emoji": "+1", "comment_id": "c1"}),
            json!({"emoji": "+1", "commentId": "c1"}),
        ),
        (
            "linear_project_milestones_update",
            json!({"id": "ms1", "target_date": null}),
            json!({"id": "ms1", "targetDate": null}),
        ),
        (
            "linear_project_updates_update",
            json!({"id": "pu1", "health": "atRisk"}),
            json!({"id": "pu1", "health": "atRisk"}),
        ),
        (
            "linear_cycles_update",
            json!({"id": "cy1", "ends_at": "2026-12-12"}),
            json!({"id": "cy1", "endsAt": "2026-12-12"}),
        ),
        (
            "linear_labels_update",
            json!({"id": "l1", "name": "Regression", "parent_id": null}),
            json!({"id": "l1", "name": "Regression", "parentId": null}),
        ),
        (
            "linear_attachments_update",
            json!({"id": "a1", "title": "PR #12", "metadata": {"state": "merged"}}),
            json!({"id": "a1", "title": "PR #12", "metadata": {"state": "merged"}}),
        ),
        (
            "linear_issue_relations_update",
            json!({"id": "r1", "type": "blocks"}),
            json!({"id": "r1", "type": "blocks"}),
        ),
        (
            "linear_issues_subscribe",
            json!({"id": "ENG-7", "user_email": "ada@example.com"}),
            json!({"id": "ENG-7", "userEmail": "ada@example.com"}),
        ),
        (
            "linear_documents_create",
            json!({"title": "RFC: search", "content": "# Why", "initiative_id": "ini1"}),
            json!({"title": "RFC: search", "content": "# Why", "initiativeId": "ini1"}),
        ),
    ];
    for (tool, args, variables) in cases {
        sends(tool, args, variables).await;
    }
}

#[tokio::test]
async fn linear_batch_update_sends_the_ids_and_clears_with_null() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"data": {"issueBatchUpdate": {"success": true, "issues": [
                {"id": "i1", "identifier": "ENG-1", "title": "One", "state": {"name": "Done"}, "assignee": null}
            ]}}}),
        )
    })
    .await;
    let s = linear(&stub.base);
    let out = call(
        &s,
        "linear_issues_batch_update",
        json!({"ids": ["i1", "i2"], "state_id": "s-done", "assignee_id": null, "added_label_ids": ["l1"]}),
    )
    .await
    .unwrap();
    assert_eq!(
        out["data"]["issueBatchUpdate"]["issues"][0]["identifier"],
        "ENG-1"
    );
    let r = stub.only();
    let document = route(TABLE, "linear_issues_batch_update").graphql.unwrap();
    assert!(document.starts_with("mutation IssueBatchUpdate($ids: [UUID!]!"));
    assert_eq!(
        r.json()["variables"],
        json!({"ids": ["i1", "i2"], "stateId": "s-done", "assigneeId": null, "addedLabelIds": ["l1"]})
    );

    // More than 50 ids, or none, is refused before any request.
    let many: Vec<String> = (0..51).map(|i| format!("i{i}")).collect();
    for ids in [json!([]), json!(many)] {
        let err = call(&s, "linear_issues_batch_update", json!({"ids": ids}))
            .await
            .unwrap_err();
        assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    }
    assert_eq!(stub.take().len(), 1, "only the valid call was sent");
}

/// The target-id tools state "exactly one of" their ids (`require_exactly_one_of`): none, or two,
/// is refused before the request naming the groups; one goes out as its variable alone; the
/// schema's root `description` tells the groups in the words of the error.
#[tokio::test]
async fn linear_target_ids_are_exactly_one_of() {
    let tools: [(&str, Value, &[&str]); 5] = [
        (
            "linear_reactions_create",
            json!({"emoji": "eyes"}),
            &[
                "comment_id",
                "issue_id",
                "project_update_id",
                "initiative_update_id",
            ],
        ),
        (
            "linear_favorites_create",
            json!({"parent_id": "f0"}),
            &[
                "issue_id",
                "project_id",
                "document_id",
                "custom_view_id",
                "cycle_id",
                "initiative_id",
                "label_id",
                "team_id",
                "folder_name",
            ],
        ),
        (
            "linear_notifications_mark_read",
            json!({"read_at": "2026-12-01T09:00:00Z"}),
            &["issue_id", "project_id", "initiative_id", "id"],
        ),
        (
            "linear_notifications_mark_unread",
            json!({}),
            &["issue_id", "project_id", "initiative_id", "id"],
        ),
        (
            "linear_customer_needs_create",
            json!({"customer_id": "cu1", "body": "Needs SSO"}),
            &["issue_id", "project_id"],
        ),
    ];
    let stub = Stub::start(|_| (200, json!({"data": {}}))).await;
    let s = linear(&stub.base);
    for (tool, base, ids) in tools {
        let named: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
        let expected = format!("exactly one of: {}", named.join(", or "));
        let mut two = base.clone();
        two[ids[0]] = json!("a1");
        two[ids[ids.len() - 1]] = json!("a2");
        for (args, got) in [
            (base.clone(), "none of them".to_owned()),
            (
                two,
                format!("2 of them: `{}`, `{}`", ids[0], ids[ids.len() - 1]),
            ),
        ] {
            let err = call(&s, tool, args).await.unwrap_err();
            let CharterError::Validation(m) = err else {
                panic!("{tool}: expected a validation error, got {err:?}");
            };
            assert!(m.contains(&expected) && m.contains(&got), "{tool}: {m}");
        }
        assert!(
            stub.take().is_empty(),
            "{tool}: a refused call sent a request"
        );
        let def = TABLE.tools.iter().find(|t| t.name == tool).unwrap();
        let schema: Value = serde_json::from_str(def.views[0].schema).unwrap();
        // Told in the root's description (no combinator at the root: docs/design.md §3).
        assert!(schema.get("oneOf").is_none(), "{tool}");
        assert_eq!(schema["description"], format!("Give {expected}."), "{tool}");
    }
    // One id of each goes out as its camelCase variable, the rest left out.
    sends(
        "linear_reactions_create",
        json!({"emoji": "eyes", "project_update_id": "pu1"}),
        json!({"emoji": "eyes", "projectUpdateId": "pu1"}),
    )
    .await;
    sends(
        "linear_favorites_create",
        json!({"folder_name": "Launch", "parent_id": "f0"}),
        json!({"folderName": "Launch", "parentId": "f0"}),
    )
    .await;
    sends(
        "linear_notifications_mark_unread",
        json!({"id": "n1"}),
        json!({"id": "n1"}),
    )
    .await;
    sends(
        "linear_customer_needs_create",
        json!({"customer_id": "cu1", "project_id": "p1", "body": "Needs SSO"}),
        json!({"customerId": "cu1", "projectId": "p1", "body": "Needs SSO"}),
    )
    .await;
}

#[tokio::test]
async fn linear_new_filters_reach_the_wire_in_camel_case() {
    let cases = [
        (
            "linear_customers_list",
            json!({"filter": {"tier": {"display_name": {"eq": "Enterprise"}}, "owner": {"is_me": {"eq": true}}}, "first": 10}),
            json!({"filter": {"tier": {"displayName": {"eq": "Enterprise"}}, "owner": {"isMe": {"eq": true}}}, "first": 10}),
        ),
        (
            "linear_comments_find",
            json!({"filter": {"user": {"is_me": {"eq": true}}, "created_at": {"gte": "-P1W"}}}),
            json!({"filter": {"user": {"isMe": {"eq": true}}, "createdAt": {"gte": "-P1W"}}}),
        ),
        (
            "linear_initiatives_list",
            json!({"filter": {"status": {"eq": "Active"}}, "order_by": "updatedAt"}),
            json!({"filter": {"status": {"eq": "Active"}}, "orderBy": "updatedAt"}),
        ),
        (
            "linear_customer_needs_list",
            json!({"filter": {"issue": {"id": {"eq": "i1"}}}}),
            json!({"filter": {"issue": {"id": {"eq": "i1"}}}}),
        ),
        (
            "linear_project_milestones_list",
            json!({"filter": {"project": {"id": {"eq": "p1"}}, "target_date": {"lt": "P2W"}}}),
            json!({"filter": {"project": {"id": {"eq": "p1"}}, "targetDate": {"lt": "P2W"}}}),
        ),
        (
            "linear_documents_list",
            json!({"filter": {"project": {"name": {"eq": "Search"}}}}),
            json!({"filter": {"project": {"name": {"eq": "Search"}}}}),
        ),
        (
            "linear_notifications_list",
            json!({"filter": {"type": {"eq": "issueMention"}}, "include_archived": true}),
            json!({"filter": {"type": {"eq": "issueMention"}}, "includeArchived": true}),
        ),
    ];
    for (tool, args, variables) in cases {
        sends(tool, args, variables).await;
    }

    // An operator the filter does not offer is refused before any request.
    let stub = Stub::start(|_| (200, json!({"data": {}}))).await;
    let s = linear(&stub.base);
    let err = call(
        &s,
        "linear_customers_list",
        json!({"filter": {"tier": {"name": {"eq": "Enterprise"}}}}),
    )
    .await
    .unwrap_err();
    let CharterError::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(message.contains("name"), "{message}");
    assert!(stub.take().is_empty());
}

/// `{"a": {"b": ...}}` for the dotted path `a.b`, with `leaf` at the end.
fn nest(path: &str, leaf: Value) -> Value {
    path.rsplit('.').fold(leaf, |inner, key| {
        let mut map = Map::new();
        map.insert(key.to_owned(), inner);
        Value::Object(map)
    })
}

#[tokio::test]
async fn linear_every_paginated_tool_walks_its_cursor_to_the_last_page() {
    let mut walked = 0;
    for def in TABLE.tools {
        let Exec::Http(route) = def.exec else {
            unreachable!()
        };
        let Some(Pagination::Cursor { next, param }) = route.pagination else {
            continue;
        };
        assert_eq!(param, "after", "{}", def.name);
        let page_info = next.strip_suffix(".endCursor").expect("a pageInfo cursor");
        let page_info = page_info.to_owned();
        // The first page has more; the page after cursor `c1` is the last.
        let stub = Stub::start(move |r| {
            let last = r.json()["variables"]["after"] == "c1";
            let info = json!({"hasNextPage": !last, "endCursor": if last { "c2" } else { "c1" }});
            (200, nest(&page_info, info))
        })
        .await;
        let s = linear(&stub.base);
        let args = required_args(def.name);
        let first = call(&s, def.name, args.clone()).await.unwrap();
        let next_args = next_page(route, &args, &first)
            .unwrap_or_else(|| panic!("{}: a second page", def.name));
        assert_eq!(next_args["after"], "c1", "{}", def.name);
        let last = call(&s, def.name, next_args.clone()).await.unwrap();
        assert_eq!(next_page(route, &next_args, &last), None, "{}", def.name);
        let sent = stub.take();
        assert_eq!(sent.len(), 2, "{}", def.name);
        assert_eq!(sent[1].json()["variables"]["after"], "c1", "{}", def.name);
        walked += 1;
    }
    assert!(walked >= 36, "{walked} paginated tools");
}

/// The smallest valid arguments of a paginated tool: its required string parameters.
fn required_args(tool: &str) -> Value {
    let def = TABLE.tools.iter().find(|t| t.name == tool).unwrap();
    let schema: Value = serde_json::from_str(def.views[0].schema).unwrap();
    let mut args = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        let value = match name {
            "url" => json!("https://github.com/acme/app/pull/1"),
            _ => json!("x1"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

#[tokio::test]
async fn linear_graphql_errors_from_new_tools_are_api_errors() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"data": null, "errors": [{"message": "Entity not found: Webhook", "path": ["webhookDelete"]}]}),
        )
    })
    .await;
    let s = linear(&stub.base);
    let err = call(&s, "linear_webhooks_delete", json!({"id": "w404"}))
        .await
        .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        api.body,
        "GraphQL errors: Entity not found: Webhook (at webhookDelete)"
    );
    assert!(!err.to_string().contains(KEY), "no secret in errors");
}

#[test]
fn linear_pack_is_curated_and_its_deletes_are_destructive() {
    // The largest schemas are the saved-view tools, which carry both an issue and a project
    // filter (about 7,100 tokens each).
    check_curated(TABLE, 128, 7500, &["api_key", "authorization"]);
    for def in TABLE.tools {
        let document = route(TABLE, def.name).graphql.unwrap();
        let a = def.annotations;
        // Every `...Delete` mutation is flagged destructive; archive and unarchive are not.
        let deletes = document.contains("Delete(") && document.starts_with("mutation");
        assert_eq!(a.destructive, deletes, "{}", def.name);
        if deletes {
            assert!(a.idempotent, "{}", def.name);
        }
    }
}
