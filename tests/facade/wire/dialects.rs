//! A call in each dialect's argument shape sends exactly the request the portable form's does
//! (docs/dialects.md): the arguments a model writes against OpenAI strict's schema (every
//! property present, `null` for absent, maps as `{key, value}` lists), Anthropic strict's (maps
//! as lists, optional properties left out) and Gemini's (maps as lists, `null` only where the
//! value is nullable) go through `Dialect::restore_args`, then the
//! session, to the recording stub on 127.0.0.1; method, path, query, headers and body must equal
//! the portable call's, byte for byte.

#![cfg(all(feature = "pack-stripe", feature = "pack-github", feature = "http"))]

use charter::Dialect;
use charter::table::Table;
use charter_testkit::stub::{Recorded, Reply, Stub};
use serde_json::{Value, json};

use super::wire_stub::{call, session, tool};

/// Method, raw path, raw query, headers in order (without `host`) and body.
type Request = (
    String,
    String,
    Option<String>,
    Vec<(String, String)>,
    Vec<u8>,
);

/// What arrived.
fn request(r: &Recorded) -> Request {
    (
        r.method.clone(),
        r.path.clone(),
        r.query.clone(),
        r.headers
            .iter()
            .filter(|(n, _)| n != "host")
            .cloned()
            .collect(),
        r.body.clone(),
    )
}

/// Every property of `schema` (a dialect's text, parsed) that `args` leaves out, as `null`, at
/// every depth: what a model in OpenAI's strict mode must write.
fn with_nulls(schema: &Value, args: &mut Value) {
    let schema = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|alts| alts.iter().find(|a| a.get("type") != Some(&json!("null"))))
        .unwrap_or(schema);
    match args {
        Value::Object(obj) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (name, sub) in props {
                match obj.get_mut(name) {
                    Some(v) => with_nulls(sub, v),
                    None => {
                        obj.insert(name.clone(), Value::Null);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for item in items {
                    with_nulls(sub, item);
                }
            }
        }
        _ => {}
    }
}

/// Calls `name` once with `portable` and once per dialect with its arguments (restored), and
/// checks that every request equals the portable one.
async fn same_request(
    table: &'static Table,
    credentials: &[(&str, &str)],
    name: &str,
    portable: Value,
    dialects: &[(Dialect, Value)],
) {
    let stub = Stub::start(|_| Reply::json(200, json!({"id": "x"}))).await;
    let s = session(table, &stub.base, credentials);
    let def = tool(table, name);
    let view = &def.views[0];
    call(&s, name, portable.clone()).await.unwrap();
    for (d, args) in dialects {
        let mut args = args.clone();
        if *d == Dialect::OpenAiStrict {
            let schema: Value = serde_json::from_str(view.schema_in(*d)).unwrap();
            with_nulls(&schema, &mut args);
        }
        let restored = d.restore_args(def, view, args.clone());
        call(&s, name, restored)
            .await
            .unwrap_or_else(|e| panic!("{name} in {d}: {e}\n{args:#}"));
    }
    let sent = stub.take();
    assert_eq!(sent.len(), 1 + dialects.len());
    for (r, (d, _)) in sent[1..].iter().zip(dialects) {
        assert_eq!(
            request(r),
            request(&sent[0]),
            "{name}: the {d} call's request differs from the portable one"
        );
    }
}

fn entries(map: &[(&str, &str)]) -> Value {
    Value::Array(
        map.iter()
            .map(|(k, v)| json!({"key": k, "value": v}))
            .collect(),
    )
}

#[tokio::test]
async fn a_form_body_with_a_map_and_a_nested_object_in_every_dialect() {
    let creds = [("STRIPE_API_KEY", "sk_test_51HxQ0123456789abcdef")];
    let table = &charter::packs::stripe::TOOLS;
    let base = json!({
        "email": "ada@example.com",
        "address": {"line1": "12 Byron St", "city": "London"},
        "preferred_locales": ["en", "fr"],
        "balance": -500,
    });
    let with = |metadata: Value| {
        let mut v = base.clone();
        v["metadata"] = metadata;
        v
    };
    let pairs = [("user_id", "42"), ("tier", "gold")];
    let portable = with(json!({"user_id": "42", "tier": "gold"}));
    let dialects = [
        (Dialect::Mcp, portable.clone()),
        (Dialect::OpenAi, portable.clone()),
        (Dialect::Anthropic, portable.clone()),
        (Dialect::OpenAiStrict, with(entries(&pairs))),
        (Dialect::AnthropicStrict, with(entries(&pairs))),
        (Dialect::Gemini, with(entries(&pairs))),
        (Dialect::AnthropicStrict, portable.clone()),
        // A model that writes the portable shape in a dialect's session is not refused.
        (Dialect::Gemini, portable.clone()),
    ];
    same_request(
        table,
        &creds,
        "stripe_customers_create",
        portable,
        &dialects,
    )
    .await;
}

#[tokio::test]
async fn nulls_mean_absent_in_strict_mode_and_null_in_gemini() {
    let creds = [("GITHUB_TOKEN", "ghp_0123456789abcdef")];
    let table = &charter::packs::github::TOOLS;
    let name = "github_issues_update";
    let close = json!({"owner": "o", "repo": "r", "issue_number": 7, "state": "closed"});
    // Strict mode: every other property is `null`, meaning absent.
    same_request(
        table,
        &creds,
        name,
        close.clone(),
        &[
            (Dialect::OpenAiStrict, close.clone()),
            (Dialect::AnthropicStrict, close.clone()),
            (Dialect::Gemini, close.clone()),
        ],
    )
    .await;
    // Gemini and Anthropic's strict dialect keep an explicit `null` where the value is nullable
    // (`"nullable":true`, `anyOf` with `null`): the issue's text cleared, as in the portable form.
    let mut clear = close.clone();
    clear["body"] = Value::Null;
    same_request(
        table,
        &creds,
        name,
        clear.clone(),
        &[
            (Dialect::Gemini, clear.clone()),
            (Dialect::AnthropicStrict, clear),
        ],
    )
    .await;
}

#[test]
fn restore_args_turns_each_dialect_shape_back() {
    let def = tool(&charter::packs::stripe::TOOLS, "stripe_customers_create");
    let view = &def.views[0];
    let mut strict = json!({"metadata": entries(&[("a", "1")]), "email": null, "name": "Ada"});
    with_nulls(
        &serde_json::from_str(view.schema_in(Dialect::OpenAiStrict)).unwrap(),
        &mut strict,
    );
    let restored = Dialect::OpenAiStrict.restore_args(def, view, strict);
    assert_eq!(restored, json!({"metadata": {"a": "1"}, "name": "Ada"}));
    // The portable dialects leave arguments as they are, nulls included.
    let raw = json!({"email": null, "metadata": entries(&[("a", "1")])});
    for d in [Dialect::Mcp, Dialect::OpenAi, Dialect::Anthropic] {
        assert_eq!(d.restore_args(def, view, raw.clone()), raw);
    }
    let gemini = Dialect::Gemini.restore_args(def, view, raw.clone());
    assert_eq!(gemini, json!({"email": null, "metadata": {"a": "1"}}));
    let anthropic = Dialect::AnthropicStrict.restore_args(def, view, raw.clone());
    assert_eq!(anthropic, json!({"email": null, "metadata": {"a": "1"}}));
}
