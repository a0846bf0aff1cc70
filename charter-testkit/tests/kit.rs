//! The test kit's own parts, checked: the recording stub records what arrived byte for byte and
//! answers as told, and the fixture binary serves the counting kit over MCP.

use std::time::{Duration, Instant};

use charter_mcp::{McpToolkit, ToolkitOptions, Upstream};
use charter_testkit::stub::{Reply, Stub};
use charter_testkit::{npm, providers};
use serde_json::json;

fn client() -> reqwest::Client {
    charter_testkit::oauth::test_client()
}

#[tokio::test]
async fn the_stub_records_the_raw_request_and_answers_what_it_is_told() {
    let stub = Stub::start(|r| match r.path.as_str() {
        "/items/a%2Fb" => Reply::json(201, json!({"ok": true})).header("x-seen", "1"),
        _ => Reply::status(404),
    })
    .await;
    let answer = client()
        .post(format!("{}/items/a%2Fb?q=a%20b&tag=x+y&tag=z", stub.base))
        .header("x-one", "1")
        .json(&json!({"title": "t"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 201);
    assert_eq!(answer.headers()["x-seen"], "1");
    assert_eq!(answer.headers()["content-type"], "application/json");
    assert_eq!(answer.text().await.unwrap(), r#"{"ok":true}"#);

    let r = stub.only();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/items/a%2Fb")
    );
    assert_eq!(r.decoded_path(), "/items/a/b");
    assert_eq!(r.query.as_deref(), Some("q=a%20b&tag=x+y&tag=z"));
    assert_eq!(
        r.query_pairs(),
        [("q", "a b"), ("tag", "x+y"), ("tag", "z")].map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    assert_eq!(r.header("x-one"), Some("1"));
    assert_eq!(r.header("x-absent"), None);
    assert_eq!(r.json(), json!({"title": "t"}));
    assert!(r.headers_sorted().iter().all(|(n, _)| *n != "host"));

    client()
        .get(format!("{}/nothing", stub.base))
        .send()
        .await
        .unwrap();
    assert_eq!(stub.count(), 2);
    assert_eq!(stub.take().len(), 2);
    assert_eq!(stub.count(), 0, "take empties the log");
}

#[tokio::test]
async fn a_reply_may_be_a_tuple_delayed_chunked_or_a_redirect() {
    let stub = Stub::start(|r| match r.path.as_str() {
        "/tuple" => Reply::from((202, json!([1]))),
        "/slow" => Reply::text(200, "late").delay(Duration::from_millis(300)),
        "/chunked" => Reply::text(200, &"x".repeat(2000)).chunked(),
        _ => Reply::redirect("/tuple"),
    })
    .await;
    let http = client();
    let tuple = http
        .get(format!("{}/tuple", stub.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (tuple.status().as_u16(), tuple.text().await.unwrap()),
        (202, "[1]".to_owned())
    );

    let started = Instant::now();
    let slow = http
        .get(format!("{}/slow", stub.base))
        .send()
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(slow.text().await.unwrap(), "late");

    let chunked = http
        .get(format!("{}/chunked", stub.base))
        .send()
        .await
        .unwrap();
    assert!(chunked.headers().get("content-length").is_none());
    assert_eq!(chunked.headers()["transfer-encoding"], "chunked");
    assert_eq!(chunked.text().await.unwrap().len(), 2000);

    let followed = http
        .get(format!("{}/elsewhere", stub.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        followed.status(),
        202,
        "the redirect was followed to /tuple"
    );
    let paths: Vec<String> = stub.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        ["/tuple", "/slow", "/chunked", "/elsewhere", "/tuple"]
    );
}

#[tokio::test]
async fn the_fixture_binary_serves_the_counting_kit() {
    assert_eq!(
        charter_testkit::mcp::fixture(),
        env!("CARGO_BIN_EXE_charter-mcp-fixture")
    );
    let kit = McpToolkit::connect(
        "up",
        Upstream::command(charter_testkit::mcp::fixture(), std::iter::empty::<&str>()),
        ToolkitOptions::default(),
    )
    .await
    .expect("the fixture answers initialize over stdio");
    let names: Vec<String> = kit
        .dynamic_tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let expected: Vec<String> = charter_testkit::kit::KIT
        .tools
        .iter()
        .map(|t| format!("up_{}", t.name))
        .collect();
    assert_eq!(names, expected);
}

// The kit's own helpers (unit tests once: the library's test target is off, see Cargo.toml).

#[test]
fn each_rule_is_caught() {
    let ok = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
    assert!(providers::problems("pack_tool", &ok).is_empty());
    let root_any_of = json!({"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}]});
    assert_eq!(
        providers::problems("pack_tool", &root_any_of),
        ["`anyOf` at the root"]
    );
    assert_eq!(
        providers::problems("p_t", &json!({"type": "string"})).len(),
        1
    );
    let no_items = json!({"type": "object", "properties": {"a": {"type": "array"}}});
    assert_eq!(
        providers::problems("p_t", &no_items),
        ["an array without `items` at `/properties/a`"]
    );
    let long = "a".repeat(51);
    assert_eq!(
        providers::problems(&long, &ok).len(),
        1,
        "the prefixed name is over 64"
    );
    assert_eq!(providers::problems("a.b", &ok).len(), 2);
}

#[test]
fn a_package_is_found_by_its_name_without_the_version() {
    let dir = std::env::temp_dir().join(format!("charter-npm-{}", std::process::id()));
    let pkg = dir.join("node_modules/@scope/tool");
    std::fs::create_dir_all(&pkg).unwrap();
    assert!(!npm::installed(&dir, "@scope/tool@1.2.3"));
    std::fs::write(pkg.join("package.json"), "{}").unwrap();
    assert!(npm::installed(&dir, "@scope/tool@1.2.3"));
    assert!(!npm::installed(&dir, "other@1.0.0"));
    std::fs::remove_dir_all(&dir).unwrap();
}
