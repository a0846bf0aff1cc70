//! What the request check (tests/facade/request_check) found, each kept fixed on the wire: a call the
//! API would refuse is refused before it leaves (a validation error naming the field, nothing
//! sent), and the corrected shapes go out as the API documents them.

#![cfg(all(
    feature = "pack-github",
    feature = "pack-stripe",
    feature = "pack-gmail",
    feature = "pack-gcalendar",
    feature = "pack-gdrive"
))]

use charter::CharterError;
use charter::table::Table;
use serde_json::{Value, json};

use crate::wire::wire_stub::{Stub, call, session, tool};

const GITHUB: &Table = &charter::packs::github::TOOLS;
const STRIPE: &Table = &charter::packs::stripe::TOOLS;

async fn stub() -> Stub {
    Stub::start(|_| (200, json!({"id": "x"}))).await
}

/// The validation message of a refused call, checking that nothing was sent.
async fn refused(table: &'static Table, env: &str, name: &str, args: Value) -> String {
    let stub = stub().await;
    let s = session(table, &stub.base, &[(env, "test-secret")]);
    let err = call(&s, name, args).await.unwrap_err();
    assert!(
        stub.take().is_empty(),
        "{name}: a refused call sent a request"
    );
    match err {
        CharterError::Validation(m) => m,
        other => panic!("{name}: expected a validation error, got {other:?}"),
    }
}

/// The one request an accepted call sent.
async fn sent(
    table: &'static Table,
    env: &str,
    name: &str,
    args: Value,
) -> crate::wire::wire_stub::Recorded {
    let stub = stub().await;
    let s = session(table, &stub.base, &[(env, "test-secret")]);
    call(&s, name, args).await.unwrap();
    stub.only()
}

fn schema(table: &'static Table, name: &str) -> Value {
    serde_json::from_str(tool(table, name).views[0].schema).unwrap()
}

#[tokio::test]
async fn at_least_one_of_groups_are_checked_before_the_call_and_shown_in_the_schema() {
    let base = json!({"owner": "o", "repo": "r", "pull_number": 7});
    let m = refused(
        GITHUB,
        "GITHUB_TOKEN",
        "github_pulls_request_reviewers",
        base.clone(),
    )
    .await;
    assert!(
        m.contains("at least one of: `reviewers`, or `team_reviewers`"),
        "{m}"
    );
    let mut with = base.clone();
    with["team_reviewers"] = json!(["core"]);
    let r = sent(
        GITHUB,
        "GITHUB_TOKEN",
        "github_pulls_request_reviewers",
        with,
    )
    .await;
    assert_eq!(r.json(), json!({"team_reviewers": ["core"]}));
    // Told in the root's description, not as a root `anyOf` (docs/design.md §3).
    let shown = schema(GITHUB, "github_pulls_request_reviewers");
    assert!(shown.get("anyOf").is_none());
    assert_eq!(
        shown["description"],
        "Give at least one of: `reviewers`, or `team_reviewers`."
    );
    for (name, args) in [
        ("github_pages_create", json!({"owner": "o", "repo": "r"})),
        ("github_pages_update", json!({"owner": "o", "repo": "r"})),
        ("github_gists_update", json!({"gist_id": "g"})),
    ] {
        let m = refused(GITHUB, "GITHUB_TOKEN", name, args).await;
        assert!(m.contains("at least one of"), "{name}: {m}");
        let shown = schema(GITHUB, name);
        assert!(shown.get("anyOf").is_none(), "{name}");
        assert!(
            shown["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("Give at least one of: ")),
            "{name}"
        );
    }
    // `null` counts as given, as in the schema: it removes the custom domain.
    let r = sent(
        GITHUB,
        "GITHUB_TOKEN",
        "github_pages_update",
        json!({"owner": "o", "repo": "r", "cname": null}),
    )
    .await;
    assert_eq!(r.json(), json!({"cname": null}));
}

#[tokio::test]
async fn workflow_dispatch_inputs_are_strings() {
    let args = json!({"owner": "o", "repo": "r", "workflow_id": "deploy.yml", "ref": "main",
                      "inputs": {"dry_run": true}});
    let m = refused(GITHUB, "GITHUB_TOKEN", "github_workflows_dispatch", args).await;
    assert!(m.contains("/inputs/dry_run"), "{m}");
    let d = tool(GITHUB, "github_workflows_dispatch").views[0].schema;
    assert!(d.contains(r#"\"dry_run\": \"true\""#), "{d}");
    let args = json!({"owner": "o", "repo": "r", "workflow_id": "deploy.yml", "ref": "main",
                      "inputs": {"dry_run": "true"}});
    let r = sent(GITHUB, "GITHUB_TOKEN", "github_workflows_dispatch", args).await;
    assert_eq!(r.json()["inputs"], json!({"dry_run": "true"}));
}

#[tokio::test]
async fn stripe_quotes_and_invoices_take_their_own_line_item_and_discount_shapes() {
    let key = "STRIPE_API_KEY";
    let m = refused(
        STRIPE,
        key,
        "stripe_quotes_create",
        json!({"line_items": [{"price_data": {"currency": "usd", "product_data": {"name": "X"}}}]}),
    )
    .await;
    assert!(m.contains("/line_items/0/price_data/product_data"), "{m}");
    assert!(m.contains("/line_items/0/price_data/product"), "{m}");
    let r = sent(
        STRIPE,
        key,
        "stripe_quotes_create",
        json!({"line_items": [{"price_data": {"currency": "usd", "product": "prod_1", "unit_amount": 500}}]}),
    )
    .await;
    assert_eq!(
        r.text(),
        "line_items[0][price_data][currency]=usd&line_items[0][price_data][product]=prod_1\
         &line_items[0][price_data][unit_amount]=500"
    );
    let m = refused(
        STRIPE,
        key,
        "stripe_invoices_update",
        json!({"invoice": "in_1", "discounts": [{"promotion_code": "promo_1"}]}),
    )
    .await;
    assert!(m.contains("/discounts/0/promotion_code"), "{m}");
    let r = sent(
        STRIPE,
        key,
        "stripe_invoices_update",
        json!({"invoice": "in_1", "discounts": [{"discount": "di_1"}]}),
    )
    .await;
    assert_eq!(r.text(), "discounts[0][discount]=di_1");
    // Checkout still takes promotion codes and product_data.
    assert!(
        tool(STRIPE, "stripe_checkout_sessions_create").views[0]
            .schema
            .contains("promotion_code")
    );
}

#[tokio::test]
async fn integers_beyond_64_bits_are_refused_at_their_path() {
    let args: Value =
        serde_json::from_str(r#"{"owner": "o", "repo": "r", "page": 9.98e37}"#).unwrap();
    let m = refused(GITHUB, "GITHUB_TOKEN", "github_issues_list", args).await;
    assert!(
        m.contains("/page: expected an integer from -9223372036854775808"),
        "{m}"
    );
    // A whole float inside the range goes out as an integer.
    let args: Value = serde_json::from_str(r#"{"owner": "o", "repo": "r", "page": 3.0}"#).unwrap();
    let r = sent(GITHUB, "GITHUB_TOKEN", "github_issues_list", args).await;
    assert!(
        r.query.as_deref().unwrap().contains("page=3"),
        "{:?}",
        r.query
    );
    assert!(
        !r.query.as_deref().unwrap().contains("page=3.0"),
        "{:?}",
        r.query
    );
}

#[tokio::test]
async fn a_plus_in_a_form_value_is_percent_encoded() {
    let r = sent(
        STRIPE,
        "STRIPE_API_KEY",
        "stripe_customers_create",
        json!({"email": "ada+test@example.com", "description": "1e+3 & more"}),
    )
    .await;
    assert!(
        r.text().contains("email=ada%2Btest%40example.com"),
        "{}",
        r.text()
    );
    assert!(
        r.text().contains("description=1e%2B3%20%26%20more"),
        "{}",
        r.text()
    );
}

#[tokio::test]
async fn required_query_strings_and_path_segments_are_not_empty() {
    let m = refused(
        STRIPE,
        "STRIPE_API_KEY",
        "stripe_customers_search",
        json!({"query": ""}),
    )
    .await;
    assert!(m.contains("/query: expected at least 1 character"), "{m}");
    let m = refused(
        &charter::packs::gdrive::TOOLS,
        "GOOGLE_ACCESS_TOKEN",
        "gdrive_files_export",
        json!({"file_id": "f1", "mime_type": ""}),
    )
    .await;
    assert!(
        m.contains("/mime_type: expected at least 1 character"),
        "{m}"
    );
    let s = schema(STRIPE, "stripe_customers_search");
    assert_eq!(s["properties"]["query"]["minLength"], 1);
}

#[tokio::test]
async fn calendar_times_and_gmail_raw_are_checked_for_real_values() {
    let m = refused(
        &charter::packs::gcalendar::TOOLS,
        "GOOGLE_ACCESS_TOKEN",
        "gcalendar_events_create",
        json!({"calendar_id": "primary", "summary": "x",
               "start": {"date_time": "0747-81-15T67:97:00"},
               "end": {"date_time": "2025-03-14T16:00:00Z"}}),
    )
    .await;
    assert!(m.contains("/start/date_time"), "{m}");
    for raw in ["A", "A===", "SGVsbG8+/w=="] {
        let m = refused(
            &charter::packs::gmail::TOOLS,
            "GOOGLE_ACCESS_TOKEN",
            "gmail_messages_send",
            json!({"user_id": "me", "raw": raw}),
        )
        .await;
        assert!(m.contains("/raw: expected base64url text"), "{raw}: {m}");
    }
}

#[tokio::test]
async fn stripe_form_bodies_never_send_an_empty_list_or_object() {
    let key = "STRIPE_API_KEY";
    // A form has no empty list: every list a form tool sends holds an item (`minItems: 1`), so
    // `[]` is refused at its path before the call, on an update too (it used to go out as
    // `images=`, which unsets the field: not what "an empty list" says).
    for (name, args, at) in [
        (
            "stripe_products_create",
            json!({"name": "Mug", "images": []}),
            "/images",
        ),
        (
            "stripe_products_update",
            json!({"id": "prod_1", "images": []}),
            "/images",
        ),
        (
            "stripe_customers_update",
            json!({"customer": "cus_1", "preferred_locales": []}),
            "/preferred_locales",
        ),
        (
            "stripe_webhook_endpoints_update",
            json!({"webhook_endpoint": "we_1", "enabled_events": []}),
            "/enabled_events",
        ),
        (
            "stripe_subscription_schedules_create",
            json!({"customer": "cus_1", "phases": [{"items": []}]}),
            "/phases/0/items",
        ),
    ] {
        let m = refused(STRIPE, key, name, args).await;
        assert!(
            m.contains(&format!("{at}: expected at least 1 item")),
            "{name}: {m}"
        );
    }
    let s = schema(STRIPE, "stripe_products_update");
    // A nullable list is portable as `anyOf: [list, null]` (docs/design.md §3): the list branch.
    assert_eq!(s["properties"]["images"]["anyOf"][0]["minItems"], 1, "{s}");
    // Where Stripe documents `""` as "unset" (an `anyOf` with `enum: [""]`), the list is
    // `nullable` and `null` goes out as that empty value.
    for (name, args, body) in [
        (
            "stripe_products_update",
            json!({"id": "prod_1", "images": null}),
            "images=",
        ),
        (
            "stripe_invoices_update",
            json!({"invoice": "in_1", "custom_fields": null, "discounts": null}),
            "custom_fields=&discounts=",
        ),
    ] {
        assert_eq!(sent(STRIPE, key, name, args).await.text(), body, "{name}");
    }
    // An empty object names no member to set: nothing is sent for it, as Stripe's clients
    // encode it (`metadata=` would delete every key, `address=` the whole address).
    let r = sent(
        STRIPE,
        key,
        "stripe_customers_update",
        json!({"customer": "cus_1", "name": "Ada", "metadata": {}, "address": {}}),
    )
    .await;
    assert_eq!(r.text(), "name=Ada");
    let r = sent(
        STRIPE,
        key,
        "stripe_customers_update",
        json!({"customer": "cus_1", "metadata": {"plan": ""}, "address": {"city": "Paris"}}),
    )
    .await;
    assert_eq!(r.text(), "address[city]=Paris&metadata[plan]=");
}

#[tokio::test]
async fn stripe_webhook_events_are_the_documents_enum() {
    let key = "STRIPE_API_KEY";
    // The 223 event types of the vendored description, for both tools that take them.
    let document: Value =
        serde_json::from_str(&charter_testkit::openapi::read("stripe.json")).unwrap();
    for (name, path) in [
        ("stripe_webhook_endpoints_create", "/v1/webhook_endpoints"),
        (
            "stripe_webhook_endpoints_update",
            "/v1/webhook_endpoints/{webhook_endpoint}",
        ),
    ] {
        let events = &document["paths"][path]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
            ["schema"]["properties"]["enabled_events"]["items"]["enum"];
        assert_eq!(events.as_array().map(Vec::len), Some(223), "{path}");
        let s = schema(STRIPE, name);
        assert_eq!(
            &s["properties"]["enabled_events"]["items"]["enum"], events,
            "{name}"
        );
    }
    let m = refused(
        STRIPE,
        key,
        "stripe_webhook_endpoints_create",
        json!({"url": "https://example.com/hook", "enabled_events": ["invoice.paid", "invoice.payed"]}),
    )
    .await;
    assert!(m.contains("/enabled_events/1"), "{m}");
    let r = sent(
        STRIPE,
        key,
        "stripe_webhook_endpoints_create",
        json!({"url": "https://example.com/hook", "enabled_events": ["checkout.session.completed", "invoice.paid"]}),
    )
    .await;
    assert_eq!(
        r.text(),
        "url=https%3A%2F%2Fexample.com%2Fhook&enabled_events[0]=checkout.session.completed\
         &enabled_events[1]=invoice.paid"
    );
    let r = sent(
        STRIPE,
        key,
        "stripe_webhook_endpoints_update",
        json!({"webhook_endpoint": "we_1", "enabled_events": ["*"]}),
    )
    .await;
    assert_eq!(
        (r.path.as_str(), r.text()),
        ("/v1/webhook_endpoints/we_1", "enabled_events[0]=%2A")
    );
}

#[tokio::test]
async fn a_stripe_subscription_item_names_its_price() {
    // An item needs `price` or `price_data`: `{}` (sent as `items[0]=`) is refused.
    let key = "STRIPE_API_KEY";
    let m = refused(
        STRIPE,
        key,
        "stripe_subscriptions_create",
        json!({"customer": "cus_1", "items": [{}]}),
    )
    .await;
    assert!(m.contains("/items/0"), "{m}");
    let r = sent(
        STRIPE,
        key,
        "stripe_subscriptions_create",
        json!({"customer": "cus_1", "items": [
            {"price": "price_1", "quantity": 2},
            {"price_data": {"currency": "usd", "product": "prod_1", "recurring": {"interval": "month"}}}
        ]}),
    )
    .await;
    assert_eq!(
        r.text(),
        "customer=cus_1&items[0][price]=price_1&items[0][quantity]=2\
         &items[1][price_data][currency]=usd&items[1][price_data][product]=prod_1\
         &items[1][price_data][recurring][interval]=month"
    );
}
