//! The `shopify` pack on the wire: each call goes through a `ToolSession` and the shared
//! `HttpExecutor` to a real axum server on 127.0.0.1 that records it. Checked: the exact GraphQL
//! document and variables, the bare `X-Shopify-Access-Token` header, cursor pagination through
//! `pageInfo`, GraphQL `errors` and mutation `userErrors` as API errors, and the errors for a
//! missing token or shop.

#![cfg(feature = "pack-shopify")]

use crate::wire::wire_stub as stub;

use charter::CharterError;
use charter::http::next_page;
use serde_json::{Value, json};
use stub::{Stub, call, check_curated, route, session};

const TOKEN: &str = "shpat_0123456789abcdef0123456789abcdef";
const TABLE: &charter::table::Table = &charter::packs::shopify::TOOLS;
const PATH: &str = "/admin/api/2026-10/graphql.json";

fn shopify(stub: &Stub) -> charter::ToolSession {
    session(
        TABLE,
        &format!("{}{PATH}", stub.base),
        &[("SHOPIFY_ACCESS_TOKEN", TOKEN)],
    )
}

/// The document a tool sends, as compiled from the pack.
fn document(tool: &str) -> &'static str {
    route(TABLE, tool).graphql.expect("a GraphQL tool")
}

#[tokio::test]
async fn orders_list_posts_the_document_with_the_bare_token_and_walks_pages() {
    let stub = Stub::start(|r| {
        let after = r.json()["variables"]["after"].as_str().map(str::to_owned);
        let (nodes, next) = match after.as_deref() {
            None => (json!([{"id": "gid://shopify/Order/1", "name": "#1001"}]), json!({"hasNextPage": true, "endCursor": "c1"})),
            _ => (json!([{"id": "gid://shopify/Order/2", "name": "#1002"}]), json!({"hasNextPage": false, "endCursor": "c2"})),
        };
        (200, json!({"data": {"orders": {"nodes": nodes, "pageInfo": next}}, "extensions": {"cost": {"requestedQueryCost": 12}}}))
    })
    .await;
    let s = shopify(&stub);
    let args = json!({"first": 1, "query": "fulfillment_status:unshipped", "sort_key": "CREATED_AT", "reverse": true});
    let out = call(&s, "shopify_orders_list", args.clone()).await.unwrap();
    assert_eq!(out["data"]["orders"]["nodes"][0]["name"], "#1001");
    // The projection keeps nodes and pageInfo only.
    assert!(out.get("extensions").is_none(), "{out}");

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", PATH, None)
    );
    assert_eq!(r.header("x-shopify-access-token"), Some(TOKEN));
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json(),
        json!({
            "query": document("shopify_orders_list"),
            "variables": {"first": 1, "query": "fulfillment_status:unshipped", "sortKey": "CREATED_AT", "reverse": true}
        })
    );
    assert!(document("shopify_orders_list").contains(
        "orders(first: $first, after: $after, query: $query, sortKey: $sortKey, reverse: $reverse)"
    ));

    // The next page: `after` from `pageInfo.endCursor`; `hasNextPage: false` ends the walk.
    let next = next_page(route(TABLE, "shopify_orders_list"), &args, &out).expect("a next page");
    assert_eq!(next["after"], "c1");
    let last = call(&s, "shopify_orders_list", next.clone()).await.unwrap();
    assert_eq!(stub.take()[1].json()["variables"]["after"], "c1");
    assert_eq!(
        next_page(route(TABLE, "shopify_orders_list"), &next, &last),
        None
    );
}

#[tokio::test]
async fn inventory_set_quantities_sends_the_idempotency_key_and_an_explicit_null() {
    let stub = Stub::start(|_| {
        (200, json!({"data": {"inventorySetQuantities": {"inventoryAdjustmentGroup": {"id": "gid://shopify/InventoryAdjustmentGroup/5"}, "userErrors": []}}}))
    })
    .await;
    let s = shopify(&stub);
    let key = "0b6f3f3e-2f43-4c3e-9d55-7d1c2a9e0f11";
    call(
        &s,
        "shopify_inventory_set_quantities",
        json!({
            "idempotency_key": key,
            "input": {
                "reason": "correction",
                "name": "available",
                "quantities": [
                    {"inventory_item_id": "gid://shopify/InventoryItem/1", "location_id": "gid://shopify/Location/2", "quantity": 40, "change_from_quantity": 38},
                    {"inventory_item_id": "gid://shopify/InventoryItem/3", "location_id": "gid://shopify/Location/2", "quantity": 0, "change_from_quantity": null}
                ]
            }
        }),
    )
    .await
    .unwrap();
    let r = stub.only();
    assert_eq!(
        r.json(),
        json!({
            "query": document("shopify_inventory_set_quantities"),
            "variables": {
                "idempotencyKey": key,
                "input": {
                    "reason": "correction",
                    "name": "available",
                    "quantities": [
                        {"inventoryItemId": "gid://shopify/InventoryItem/1", "locationId": "gid://shopify/Location/2", "quantity": 40, "changeFromQuantity": 38},
                        // 2026-10 requires the field, even as null: null skips the compare check.
                        {"inventoryItemId": "gid://shopify/InventoryItem/3", "locationId": "gid://shopify/Location/2", "quantity": 0, "changeFromQuantity": null}
                    ]
                }
            }
        })
    );
    assert!(
        document("shopify_inventory_set_quantities")
            .contains("inventorySetQuantities(input: $input) @idempotent(key: $idempotencyKey)")
    );

    // Without a key, or without the expected count, nothing is sent.
    for (args, path) in [
        (
            json!({"input": {"reason": "correction", "name": "available", "quantities": [{"inventory_item_id": "i", "location_id": "l", "quantity": 1, "change_from_quantity": null}]}}),
            "idempotency_key",
        ),
        (
            json!({"idempotency_key": " ", "input": {"reason": "correction", "name": "available", "quantities": [{"inventory_item_id": "i", "location_id": "l", "quantity": 1, "change_from_quantity": null}]}}),
            "idempotency_key",
        ),
        (
            json!({"idempotency_key": key, "input": {"reason": "correction", "name": "available", "quantities": [{"inventory_item_id": "i", "location_id": "l", "quantity": 1}]}}),
            "change_from_quantity",
        ),
    ] {
        let err = call(&s, "shopify_inventory_set_quantities", args)
            .await
            .unwrap_err();
        assert!(err.to_string().contains(path), "{err}");
    }
    assert_eq!(stub.take().len(), 1, "only the valid call went out");
}

#[tokio::test]
async fn fulfillment_create_sends_nested_input_in_camel_case() {
    let stub = Stub::start(|_| {
        (200, json!({"data": {"fulfillmentCreate": {"fulfillment": {"id": "gid://shopify/Fulfillment/9", "status": "SUCCESS"}, "userErrors": []}}}))
    })
    .await;
    let s = shopify(&stub);
    let out = call(
        &s,
        "shopify_fulfillment_create",
        json!({
            "fulfillment": {
                "line_items_by_fulfillment_order": [{
                    "fulfillment_order_id": "gid://shopify/FulfillmentOrder/7",
                    "fulfillment_order_line_items": [{"id": "gid://shopify/FulfillmentOrderLineItem/70", "quantity": 2}]
                }],
                "tracking_info": {"number": "1Z999", "company": "UPS"},
                "notify_customer": true
            },
            "message": "Packed by Ana"
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        out["data"]["fulfillmentCreate"]["fulfillment"]["status"],
        "SUCCESS"
    );
    let r = stub.only();
    assert_eq!(
        r.json(),
        json!({
            "query": document("shopify_fulfillment_create"),
            "variables": {
                "fulfillment": {
                    "lineItemsByFulfillmentOrder": [{
                        "fulfillmentOrderId": "gid://shopify/FulfillmentOrder/7",
                        "fulfillmentOrderLineItems": [{"id": "gid://shopify/FulfillmentOrderLineItem/70", "quantity": 2}]
                    }],
                    "trackingInfo": {"number": "1Z999", "company": "UPS"},
                    "notifyCustomer": true
                },
                "message": "Packed by Ana"
            }
        })
    );
}

#[tokio::test]
async fn user_errors_in_a_mutation_payload_are_api_errors() {
    let stub = Stub::start(|r| {
        let body: Value = r.json();
        if body["query"].as_str().unwrap().contains("orderCancel") {
            (200, json!({"data": {"orderCancel": {"job": null, "orderCancelUserErrors": [{"field": ["orderId"], "message": "Order has already been cancelled", "code": "INVALID"}]}}}))
        } else {
            (200, json!({"data": {"productCreate": {"product": null, "userErrors": [{"field": ["product", "handle"], "message": "Handle has already been taken"}]}}}))
        }
    })
    .await;
    let s = shopify(&stub);
    let err = call(
        &s,
        "shopify_product_create",
        json!({"product": {"title": "Blue shirt", "handle": "shirt"}}),
    )
    .await
    .unwrap_err();
    let CharterError::Api(e) = &err else {
        panic!("an API error: {err:?}")
    };
    assert_eq!(e.status, 200);
    assert!(
        e.body
            .contains("productCreate: Handle has already been taken (at product.handle)"),
        "{}",
        e.body
    );

    let err = call(
        &s,
        "shopify_order_cancel",
        json!({"order_id": "gid://shopify/Order/1", "reason": "CUSTOMER", "refund": true, "restock": true}),
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("orderCancel: Order has already been cancelled (at orderId)"),
        "{err}"
    );
}

#[tokio::test]
async fn an_empty_user_errors_list_and_a_query_are_successes() {
    let stub = Stub::start(|_| {
        (200, json!({"data": {"tagsAdd": {"node": {"id": "gid://shopify/Order/1"}, "userErrors": []}}}))
    })
    .await;
    let s = shopify(&stub);
    let out = call(
        &s,
        "shopify_tags_add",
        json!({"id": "gid://shopify/Order/1", "tags": ["vip"]}),
    )
    .await
    .unwrap();
    assert_eq!(
        out["data"]["tagsAdd"]["node"]["id"],
        "gid://shopify/Order/1"
    );
    assert_eq!(
        stub.only().json()["variables"],
        json!({"id": "gid://shopify/Order/1", "tags": ["vip"]})
    );
}

#[tokio::test]
async fn graphql_errors_are_api_errors() {
    let stub = Stub::start(|_| {
        (
            200,
            json!({"errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}]}),
        )
    })
    .await;
    let s = shopify(&stub);
    let err = call(&s, "shopify_shop_get", json!({})).await.unwrap_err();
    assert!(
        err.to_string().contains("GraphQL errors: Throttled"),
        "{err}"
    );
}

#[tokio::test]
async fn bad_arguments_are_refused_before_any_request() {
    let stub = Stub::start(|_| (200, json!({}))).await;
    let s = shopify(&stub);
    // An enum value Shopify does not have, and a missing required input field.
    let err = call(
        &s,
        "shopify_orders_list",
        json!({"first": 5, "sort_key": "PRICE"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    let err = call(&s, "shopify_order_close", json!({"input": {}}))
        .await
        .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty());
}

#[tokio::test]
async fn a_missing_token_is_a_credential_error_and_nothing_is_sent() {
    let stub = Stub::start(|_| (200, json!({}))).await;
    let s = session(TABLE, &format!("{}{PATH}", stub.base), &[]);
    let err = call(&s, "shopify_shop_get", json!({})).await.unwrap_err();
    let CharterError::Credential(msg) = &err else {
        panic!("a credential error: {err:?}")
    };
    assert!(msg.contains("SHOPIFY_ACCESS_TOKEN"), "{msg}");
    assert!(msg.contains("SHOPIFY_CLIENT_ID"), "{msg}");
    assert!(stub.take().is_empty());
}

#[tokio::test]
async fn a_missing_shop_names_its_variable_and_nothing_is_sent() {
    // The declared URL keeps its `{shop}`; this test's process never sets CHARTER_SHOPIFY_SHOP.
    assert!(std::env::var_os("CHARTER_SHOPIFY_SHOP").is_none());
    let stub = Stub::start(|_| (200, json!({}))).await;
    let s = session(
        TABLE,
        &format!("{}/{{shop}}{PATH}", stub.base),
        &[("SHOPIFY_ACCESS_TOKEN", TOKEN)],
    );
    let err = call(&s, "shopify_shop_get", json!({})).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("CHARTER_SHOPIFY_SHOP"), "{text}");
    assert!(text.contains("is not set"), "{text}");
    assert!(stub.take().is_empty());
    assert_eq!(
        route(TABLE, "shopify_shop_get").pack.base_url,
        "https://{shop}.myshopify.com/admin/api/2026-10/graphql.json"
    );
}

#[test]
fn the_pack_is_curated_and_queries_are_read_only() {
    check_curated(TABLE, 45, 900, &["access_token", "client_secret"]);
    for def in TABLE.tools {
        let doc = route(TABLE, def.name).graphql.unwrap();
        let query = doc.trim_start().starts_with("query");
        assert_eq!(def.annotations.read_only, query, "{}", def.name);
    }
}

#[tokio::test]
async fn client_credentials_obtain_the_token_sent_in_the_shopify_header() {
    use charter::http::{HttpExecutor, StaticCredentials};
    use charter::{SessionOptions, Source, ToolSession};
    let stub = Stub::start(|r| {
        if r.path == "/admin/oauth/access_token" {
            (200, json!({"access_token": "shpat_granted", "scope": "read_products", "expires_in": 86399}))
        } else {
            (200, json!({"data": {"shop": {"name": "Acme"}}}))
        }
    })
    .await;
    let creds = StaticCredentials::new()
        .with("SHOPIFY_CLIENT_ID", "client-1")
        .with("SHOPIFY_CLIENT_SECRET", "secret-1");
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(creds)
        .base_url("shopify", format!("{}{PATH}", stub.base))
        .token_url("shopify", format!("{}/admin/oauth/access_token", stub.base))
        .build()
        .unwrap();
    let s = ToolSession::with_options(
        vec![Source::Table(TABLE)],
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(std::sync::Arc::new(http)),
    )
    .unwrap();
    for _ in 0..2 {
        let out = call(&s, "shopify_shop_get", json!({})).await.unwrap();
        assert_eq!(out["data"]["shop"]["name"], "Acme");
    }
    let log = stub.take();
    // One token request (cached for the second call), then the two API calls.
    assert_eq!(log.len(), 3, "{log:#?}");
    let token = &log[0];
    assert_eq!(
        (token.method.as_str(), token.path.as_str()),
        ("POST", "/admin/oauth/access_token")
    );
    let mut form: Vec<&str> = token.text().split('&').collect();
    form.sort_unstable();
    assert_eq!(
        form,
        [
            "client_id=client-1",
            "client_secret=secret-1",
            "grant_type=client_credentials"
        ]
    );
    for call in &log[1..] {
        assert_eq!(call.path, PATH);
        assert_eq!(call.header("x-shopify-access-token"), Some("shpat_granted"));
    }
}
