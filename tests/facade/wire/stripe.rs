//! The `stripe` pack on the wire: representative calls of the tools added in the expansion
//! (catalog, Checkout, payment methods, usage, search, balance, Connect, events) go through a
//! `ToolSession` and the shared `HttpExecutor` to a real axum server on 127.0.0.1 that records
//! what it received - method, path, query, headers with basic auth, and the form body with
//! Stripe's bracketed keys, checked byte for byte - and answers like Stripe.
//! Plus the pack's size and the invariants every tool holds.

#![cfg(all(feature = "pack-stripe", feature = "http"))]

use std::sync::Arc;

use charter::http::{HttpExecutor, StaticCredentials, next_page};
use charter::table::{Exec, Pagination, Route, Table, ToolOutput};
use charter::{CallContext, CharterError, SessionOptions, Source, ToolSession};
use serde_json::{Value, json};

use charter_testkit::stub::{Reply, Stub};

// ---------------------------------------------------------------------------------------------
// Sessions over the compiled pack.

const KEY: &str = "sk_test_51HxQ0123456789abcdef";
/// `Basic base64("sk_test_51HxQ0123456789abcdef:")`: the key as user name, no password.
const BASIC: &str = "Basic c2tfdGVzdF81MUh4UTAxMjM0NTY3ODlhYmNkZWY6";
const TABLE: &Table = &charter::packs::stripe::TOOLS;
const FORM: &str = "application/x-www-form-urlencoded";

/// A non-progressive session over the stripe pack, sent to `base`.
fn session(base: &str) -> ToolSession {
    let http = HttpExecutor::builder()
        .no_proxy()
        .credentials(StaticCredentials::new().with("STRIPE_API_KEY", KEY))
        .base_url("stripe", base)
        .build()
        .unwrap();
    ToolSession::with_options(
        vec![Source::Table(TABLE)],
        SessionOptions::new()
            .with_disclosure(charter::Disclosure::Eager)
            .with_http(Arc::new(http)),
    )
    .unwrap()
}

fn route(name: &str) -> &'static Route {
    let def = TABLE
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the stripe pack"));
    let Exec::Http(route) = def.exec else {
        panic!("{name} is not an HTTP tool")
    };
    route
}

async fn dispatch(s: &ToolSession, name: &str, args: Value) -> Result<ToolOutput, CharterError> {
    s.dispatch(name, args, &CallContext::new()).await
}

async fn call(s: &ToolSession, name: &str, args: Value) -> Result<Value, CharterError> {
    Ok(dispatch(s, name, args)
        .await?
        .structured
        .expect("a JSON answer"))
}

// ---------------------------------------------------------------------------------------------
// Catalog

#[tokio::test]
async fn prices_create_sends_nested_recurring_and_metadata_form_keys() {
    let stub = Stub::start(|_| {
        Reply::json(
            200,
            json!({"id": "price_1", "object": "price", "product": "prod_1", "active": true,
                   "nickname": "Pro quarterly", "lookup_key": "pro_q", "type": "recurring",
                   "unit_amount": 4500, "currency": "usd", "livemode": false,
                   "recurring": {"interval": "month", "interval_count": 3, "usage_type": "licensed"},
                   "created": 1700000000, "tiers_mode": null}),
        )
    })
    .await;
    let s = session(&stub.base);
    let out = call(
        &s,
        "stripe_prices_create",
        json!({
            "currency": "usd",
            "unit_amount": 4500,
            "product": "prod_1",
            "recurring": {"interval": "month", "interval_count": 3},
            "nickname": "Pro quarterly",
            "lookup_key": "pro_q",
            "metadata": {"plan": "pro", "tier": "2"}
        }),
    )
    .await
    .unwrap();
    assert_eq!(out["id"], "price_1");
    assert!(out.get("livemode").is_none(), "projected");

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", "/v1/prices", None)
    );
    assert_eq!(r.header("authorization"), Some(BASIC));
    assert_eq!(r.header("content-type"), Some(FORM));
    // Declaration order; nested objects and maps in bracket notation, values percent-encoded.
    assert_eq!(
        r.text(),
        "currency=usd&unit_amount=4500&product=prod_1&recurring[interval]=month&recurring[interval_count]=3\
         &nickname=Pro%20quarterly&lookup_key=pro_q&metadata[plan]=pro&metadata[tier]=2"
    );
    assert!(!r.text().contains(KEY));

    // Tiers take an integer or "inf" for up_to, nothing else.
    call(
        &s,
        "stripe_prices_create",
        json!({"currency": "eur", "product": "prod_1", "billing_scheme": "tiered", "tiers_mode": "graduated",
               "recurring": {"interval": "month", "usage_type": "metered"},
               "tiers": [{"up_to": 1000, "unit_amount": 2}, {"up_to": "inf", "unit_amount": 1}]}),
    )
    .await
    .unwrap();
    assert_eq!(
        stub.take()[1].text(),
        "currency=eur&product=prod_1&recurring[interval]=month&recurring[usage_type]=metered\
         &billing_scheme=tiered&tiers_mode=graduated\
         &tiers[0][up_to]=1000&tiers[0][unit_amount]=2&tiers[1][up_to]=inf&tiers[1][unit_amount]=1"
    );
    let err = call(
        &s,
        "stripe_prices_create",
        json!({"currency": "eur", "tiers": [{"up_to": "all"}]}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    // A recurring price needs its interval, from the enum.
    let err = call(
        &s,
        "stripe_prices_create",
        json!({"currency": "usd", "recurring": {"interval": "fortnight"}}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
    assert!(stub.take().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn prices_list_sends_bracketed_filters_and_walks_the_cursor() {
    let stub = Stub::start(|r| {
        let second = r.query.as_deref().unwrap_or("").contains("starting_after=");
        let data = if second {
            json!([{"id": "price_3", "product": "prod_1", "unit_amount": 100, "currency": "usd"}])
        } else {
            json!([
                {"id": "price_1", "product": {"id": "prod_1", "name": "Pro"}, "active": true, "unit_amount": 900, "currency": "usd",
                 "recurring": {"interval": "month", "interval_count": 1, "trial_period_days": null}, "livemode": false, "type": "recurring"},
                {"id": "price_2", "product": "prod_1", "active": true, "unit_amount": 9000, "currency": "usd",
                 "recurring": {"interval": "year", "interval_count": 1}, "type": "recurring"}
            ])
        };
        Reply::json(200, json!({"object": "list", "url": "/v1/prices", "has_more": !second, "data": data}))
    })
    .await;
    let s = session(&stub.base);
    let args = json!({
        "product": "prod_1", "active": true, "recurring_interval": "month",
        "lookup_keys": ["pro_m", "pro_y"], "created_gte": 1700000000, "limit": 2,
        "expand": ["data.product"]
    });
    let out = call(&s, "stripe_prices_list", args.clone()).await.unwrap();
    let r = stub.take().remove(0);
    assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/v1/prices"));
    assert_eq!(r.header("authorization"), Some(BASIC));
    assert!(r.body.is_empty());
    assert_eq!(
        r.query.as_deref(),
        Some(
            "product=prod_1&active=true&recurring[interval]=month&lookup_keys[]=pro_m&lookup_keys[]=pro_y\
             &created[gte]=1700000000&limit=2&expand[]=data.product"
        )
    );
    // An expanded field stays whole when its top-level name is kept.
    assert_eq!(
        out["data"][0],
        json!({"id": "price_1", "product": {"id": "prod_1", "name": "Pro"}, "active": true, "type": "recurring",
               "unit_amount": 900, "currency": "usd", "recurring": {"interval": "month", "interval_count": 1}})
    );
    assert!(out.get("url").is_none());

    // The cursor is the id of the last item; has_more false ends the walk.
    let route = route("stripe_prices_list");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["starting_after"], "price_2");
    let last = call(&s, "stripe_prices_list", next.clone()).await.unwrap();
    let second = stub.take().remove(0);
    assert!(
        second
            .query
            .as_deref()
            .unwrap()
            .ends_with("&limit=2&starting_after=price_2&expand[]=data.product"),
        "{:?}",
        second.query
    );
    assert_eq!(next_page(route, &next, &last), None);
}

// ---------------------------------------------------------------------------------------------
// Checkout and payment methods

#[tokio::test]
async fn checkout_sessions_create_flattens_line_items_and_encodes_urls() {
    let stub = Stub::start(|_| {
        Reply::json(
            200,
            json!({"id": "cs_test_a1", "object": "checkout.session", "url": "https://checkout.stripe.com/c/pay/cs_test_a1",
                   "mode": "subscription", "status": "open", "payment_status": "unpaid", "amount_total": 2000,
                   "currency": "usd", "customer": null, "expires_at": 1700086400, "payment_method_options": {}}),
        )
    })
    .await;
    let s = session(&stub.base);
    let out = call(
        &s,
        "stripe_checkout_sessions_create",
        json!({
            "mode": "subscription",
            "success_url": "https://example.com/ok?session={CHECKOUT_SESSION_ID}",
            "cancel_url": "https://example.com/cart",
            "line_items": [
                {"price": "price_1", "quantity": 1},
                {"price_data": {"currency": "usd", "unit_amount": 1000,
                                "product_data": {"name": "Extra seat"},
                                "recurring": {"interval": "month"}},
                 "quantity": 2}
            ],
            "allow_promotion_codes": true,
            "subscription_data": {"trial_period_days": 14, "metadata": {"source": "agent"}},
            "metadata": {"cart": "c-42"}
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        json!({"id": "cs_test_a1", "url": "https://checkout.stripe.com/c/pay/cs_test_a1", "mode": "subscription",
               "status": "open", "payment_status": "unpaid", "amount_total": 2000, "currency": "usd",
               "customer": null, "expires_at": 1700086400})
    );
    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/checkout/sessions")
    );
    assert_eq!(r.header("authorization"), Some(BASIC));
    assert_eq!(r.header("content-type"), Some(FORM));
    assert_eq!(
        r.text(),
        "mode=subscription\
         &success_url=https%3A%2F%2Fexample.com%2Fok%3Fsession%3D%7BCHECKOUT_SESSION_ID%7D\
         &cancel_url=https%3A%2F%2Fexample.com%2Fcart\
         &line_items[0][price]=price_1&line_items[0][quantity]=1\
         &line_items[1][price_data][currency]=usd&line_items[1][price_data][product_data][name]=Extra%20seat\
         &line_items[1][price_data][unit_amount]=1000&line_items[1][price_data][recurring][interval]=month\
         &line_items[1][quantity]=2\
         &allow_promotion_codes=true\
         &subscription_data[trial_period_days]=14&subscription_data[metadata][source]=agent\
         &metadata[cart]=c-42"
    );
}

#[tokio::test]
async fn payment_method_attach_and_detach_carry_the_right_annotations() {
    let stub = Stub::start(|r| {
        let customer = if r.path.ends_with("/attach") { json!("cus_1") } else { Value::Null };
        Reply::json(
            200,
            json!({"id": "pm_1", "object": "payment_method", "type": "card", "customer": customer,
                   "card": {"brand": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030, "fingerprint": "f"}}),
        )
    })
    .await;
    let s = session(&stub.base);
    let attached = call(
        &s,
        "stripe_payment_methods_attach",
        json!({"payment_method": "pm_1", "customer": "cus_1"}),
    )
    .await
    .unwrap();
    assert_eq!(
        attached,
        json!({"id": "pm_1", "type": "card", "customer": "cus_1", "card": {"brand": "visa", "last4": "4242"}})
    );
    call(
        &s,
        "stripe_payment_methods_detach",
        json!({"payment_method": "pm_1"}),
    )
    .await
    .unwrap();
    let log = stub.take();
    assert_eq!(log[0].path, "/v1/payment_methods/pm_1/attach");
    assert_eq!(log[0].text(), "customer=cus_1");
    assert_eq!(
        (log[1].method.as_str(), log[1].path.as_str()),
        ("POST", "/v1/payment_methods/pm_1/detach")
    );
    assert!(log[1].body.is_empty(), "no body fields, no body");
    assert!(
        s.annotations("stripe_payment_methods_detach")
            .unwrap()
            .destructive
    );
    assert!(
        s.annotations("stripe_payment_methods_attach")
            .unwrap()
            .idempotent
    );
    assert!(
        !s.annotations("stripe_payment_methods_attach")
            .unwrap()
            .read_only
    );
}

// ---------------------------------------------------------------------------------------------
// Billing: usage, search, credit

#[tokio::test]
async fn usage_records_take_now_or_a_timestamp() {
    let stub = Stub::start(|_| {
        Reply::json(200, json!({"id": "mbur_1", "quantity": 5, "timestamp": 1700000000, "subscription_item": "si_1", "livemode": false}))
    })
    .await;
    let s = session(&stub.base);
    for timestamp in [json!("now"), json!(1700000000)] {
        call(
            &s,
            "stripe_usage_records_create",
            json!({"subscription_item": "si_1", "quantity": 5, "action": "set", "timestamp": timestamp}),
        )
        .await
        .unwrap();
    }
    let bodies: Vec<String> = stub.take().iter().map(|r| r.text().to_owned()).collect();
    assert_eq!(
        bodies,
        [
            "quantity=5&action=set&timestamp=now",
            "quantity=5&action=set&timestamp=1700000000"
        ]
    );
    let err = call(
        &s,
        "stripe_usage_records_create",
        json!({"subscription_item": "si_1", "quantity": 5, "timestamp": "yesterday"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CharterError::Validation(_)), "{err:?}");
}

#[tokio::test]
async fn invoices_search_pages_with_next_page() {
    let stub = Stub::start(|r| {
        let first = !r.query.as_deref().unwrap_or("").contains("page=");
        Reply::json(
            200,
            json!({"object": "search_result", "url": "/v1/invoices/search", "has_more": first,
                   "next_page": if first { json!("WzE3MDAwMDAwMDBd") } else { Value::Null },
                   "data": [{"id": if first { "in_1" } else { "in_2" }, "number": "INV-1", "status": "open",
                             "total": 12000, "amount_due": 12000, "currency": "usd", "lines": {"data": []}}]}),
        )
    })
    .await;
    let s = session(&stub.base);
    let args = json!({"query": "status:'open' AND total>10000", "limit": 1});
    let out = call(&s, "stripe_invoices_search", args.clone())
        .await
        .unwrap();
    assert_eq!(out["data"][0].get("lines"), None);
    let route = route("stripe_invoices_search");
    let next = next_page(route, &args, &out).expect("a second page");
    assert_eq!(next["page"], "WzE3MDAwMDAwMDBd");
    let last = call(&s, "stripe_invoices_search", next.clone())
        .await
        .unwrap();
    assert_eq!(next_page(route, &next, &last), None);
    let log = stub.take();
    assert_eq!(log[0].path, "/v1/invoices/search");
    assert_eq!(
        log[0].query.as_deref(),
        Some("query=status%3A%27open%27%20AND%20total%3E10000&limit=1")
    );
    assert!(
        log[1]
            .query
            .as_deref()
            .unwrap()
            .ends_with("&page=WzE3MDAwMDAwMDBd")
    );
}

#[tokio::test]
async fn customer_balance_credit_and_a_card_error() {
    let stub = Stub::start(|r| {
        if r.path.ends_with("/pay") {
            Reply::json(
                402,
                json!({"error": {"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds",
                                 "message": "Your card has insufficient funds.", "request_log_url": "https://dashboard.stripe.com/logs/req_1"}}),
            )
        } else {
            Reply::json(200, json!({"id": "cbtxn_1", "type": "adjustment", "amount": -500, "currency": "usd",
                                    "ending_balance": -500, "description": "Goodwill credit", "created": 1700000000, "livemode": false}))
        }
    })
    .await;
    let s = session(&stub.base);
    let out = call(
        &s,
        "stripe_customer_balance_transactions_create",
        json!({"customer": "cus_1", "amount": -500, "currency": "usd", "description": "Goodwill credit", "metadata": {"ticket": "SUP-12"}}),
    )
    .await
    .unwrap();
    assert_eq!(out["ending_balance"], -500);
    assert!(out.get("livemode").is_none());
    let err = call(&s, "stripe_invoices_pay", json!({"invoice": "in_1"}))
        .await
        .unwrap_err();
    let CharterError::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (api.status, api.method, api.url_template),
        (402, "POST", "/v1/invoices/{invoice}/pay")
    );
    assert!(api.body.contains("insufficient funds"), "{}", api.body);
    assert!(!err.to_string().contains(KEY), "no secret in errors");
    let log = stub.take();
    assert_eq!(log[0].path, "/v1/customers/cus_1/balance_transactions");
    assert_eq!(
        log[0].text(),
        "amount=-500&currency=usd&description=Goodwill%20credit&metadata[ticket]=SUP-12"
    );
}

// ---------------------------------------------------------------------------------------------
// Connect and events

#[tokio::test]
async fn accounts_create_sends_capability_maps_and_events_list_bracketed_types() {
    let stub = Stub::start(|r| match r.method.as_str() {
        "POST" => Reply::json(
            200,
            json!({"id": "acct_1", "type": "express", "email": "s@example.com", "country": "US",
                   "charges_enabled": false, "payouts_enabled": false,
                   "requirements": {"currently_due": ["external_account"], "eventually_due": []}}),
        ),
        _ => Reply::json(
            200,
            json!({"object": "list", "has_more": false, "data": [{"id": "evt_1", "type": "invoice.paid", "created": 1700000000,
                   "data": {"object": {"id": "in_1", "object": "invoice", "total": 100}}, "pending_webhooks": 0,
                   "request": {"id": "req_1", "idempotency_key": "k"}, "api_version": "2023-10-16"}]}),
        ),
    })
    .await;
    let s = session(&stub.base);
    let account = call(
        &s,
        "stripe_accounts_create",
        json!({"type": "express", "country": "US", "email": "s@example.com",
               "capabilities": {"card_payments": {"requested": true}, "transfers": {"requested": true}}}),
    )
    .await
    .unwrap();
    assert_eq!(
        account["requirements"],
        json!({"currently_due": ["external_account"]})
    );
    let events = call(
        &s,
        "stripe_events_list",
        json!({"types": ["invoice.paid", "invoice.payment_failed"], "limit": 5}),
    )
    .await
    .unwrap();
    assert_eq!(
        events["data"][0],
        json!({"id": "evt_1", "type": "invoice.paid", "created": 1700000000,
               "data": {"object": {"id": "in_1", "object": "invoice"}}, "pending_webhooks": 0,
               "request": {"id": "req_1"}})
    );
    let log = stub.take();
    assert_eq!(
        log[0].text(),
        "type=express&country=US&email=s%40example.com\
         &capabilities[card_payments][requested]=true&capabilities[transfers][requested]=true"
    );
    assert_eq!(log[1].path, "/v1/events");
    assert_eq!(
        log[1].query.as_deref(),
        Some("types[]=invoice.paid&types[]=invoice.payment_failed&limit=5")
    );
}

// ---------------------------------------------------------------------------------------------
// The pack as a whole

/// The 29 tools the pack shipped before the expansion: tests, docs and hosts refer to them.
const ORIGINAL: [&str; 29] = [
    "customers_list",
    "customers_search",
    "customers_get",
    "customers_create",
    "customers_update",
    "customers_delete",
    "payment_intents_list",
    "payment_intents_get",
    "payment_intents_create",
    "payment_intents_confirm",
    "payment_intents_cancel",
    "charges_list",
    "charges_get",
    "refunds_list",
    "refunds_create",
    "refunds_get",
    "invoices_list",
    "invoices_get",
    "invoices_create",
    "invoice_items_create",
    "invoices_finalize",
    "invoices_pay",
    "invoices_send",
    "invoices_void",
    "subscriptions_list",
    "subscriptions_get",
    "subscriptions_create",
    "subscriptions_update",
    "subscriptions_cancel",
];

#[test]
fn the_pack_has_150_tools_keeps_the_original_ones_and_every_tool_holds_the_rules() {
    let tools = TABLE.tools;
    assert!(tools.len() >= 150, "{} tools", tools.len());
    let kept: Vec<&str> = tools
        .iter()
        .map(|t| t.tool)
        .filter(|t| ORIGINAL.contains(t))
        .collect();
    assert_eq!(kept, ORIGINAL, "every original tool, in its original order");

    let mut lists = 0;
    for def in tools {
        assert!(def.description.len() >= 25, "{}", def.name);
        for field in def.input.fields {
            assert!(!field.description.is_empty(), "{}.{}", def.name, field.name);
        }
        let Exec::Http(route) = def.exec else {
            panic!("{} is not an HTTP tool", def.name)
        };
        assert!(route.path.starts_with("/v1/"), "{}", def.name);
        let has_body = def
            .input
            .fields
            .iter()
            .any(|f| f.location == charter::table::Location::Body);
        if has_body {
            assert_eq!(
                route.body,
                charter::table::BodyEncoding::Form,
                "{}: Stripe takes form bodies",
                def.name
            );
        }
        if def.tool.contains("_list") || def.tool.ends_with("_search") {
            lists += 1;
            assert!(!route.projection.is_empty(), "{}: a projection", def.name);
            let expected = if def.tool.ends_with("_search") {
                Pagination::Cursor {
                    next: "next_page",
                    param: "page",
                }
            } else {
                Pagination::Cursor {
                    next: "data.-1.id",
                    param: "starting_after",
                }
            };
            assert_eq!(
                format!("{:?}", route.pagination),
                format!("{:?}", Some(expected)),
                "{}",
                def.name
            );
            assert!(route.projection.contains(&"has_more"), "{}", def.name);
        }
        // Every `expand` is a bracketed list.
        if let Some(expand) = def.input.fields.iter().find(|f| f.name == "expand") {
            assert_eq!(
                expand.style,
                charter::table::ListStyle::Brackets,
                "{}",
                def.name
            );
        }
        assert_eq!(
            def.annotations.read_only,
            route.method.as_str() == "GET",
            "{}",
            def.name
        );
    }
    assert!(lists >= 45, "{lists} list tools");
    let search = tools.iter().filter(|t| t.tool.ends_with("_search")).count();
    assert!(search >= 7, "{search} search tools");
}
