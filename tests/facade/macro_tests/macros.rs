//! `#[charter::tool]`, `#[derive(charter::Schema)]` and `charter::pack!` end to end: the table
//! entries they produce, read and called through their `Handler` as any adapter would.

use std::collections::BTreeMap;
use std::fmt;

use charter::table::{Exec, Shape, ToolDef, View, ViewKey};
use charter::{CallContext, CharterError, Schema, Table, ToolOutput, json_tokens, text_tokens};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The tools under test.

/// Add two numbers.
#[charter::tool(read_only, idempotent)]
fn add(
    #[charter(desc = "The first term.")] a: f64,
    #[charter(desc = "The second term.")] b: f64,
) -> f64 {
    a + b
}

#[derive(Debug)]
struct DivisionByZero;

impl fmt::Display for DivisionByZero {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot divide by zero")
    }
}

/// Divide one number by another.
///
/// # Arguments
///
/// * `dividend` - The number to divide.
/// * `divisor` - What to divide it by; not zero.
#[charter::tool(read_only, idempotent, name = "div")]
async fn divide(dividend: f64, divisor: f64) -> Result<f64, DivisionByZero> {
    if divisor == 0.0 {
        Err(DivisionByZero)
    } else {
        Ok(dividend / divisor)
    }
}

#[derive(Debug, Deserialize, Serialize, Schema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Order {
    Newest,
    Oldest,
}

#[derive(Debug, Deserialize, Schema)]
#[allow(dead_code)]
struct Filter {
    /// Only items carrying all of these tags.
    tags: Vec<String>,
    /// Only items whose title contains this text.
    #[serde(rename = "titleContains")]
    title_contains: Option<String>,
    /// The date range.
    range: Option<Range>,
}

#[derive(Debug, Deserialize, Schema)]
#[allow(dead_code)]
struct Range {
    /// First day, `YYYY-MM-DD`.
    from: String,
    /// Last day, `YYYY-MM-DD`.
    to: String,
}

#[derive(Debug, Serialize)]
struct Found {
    query: String,
    tags: Vec<String>,
    order: Option<Order>,
    limit: u32,
    user: Option<String>,
    workspace: String,
    fuzzy: bool,
}

/// Search the items of a workspace.
///
/// Matches titles and bodies.
///
/// # Arguments
/// * `query` - Words to look for.
/// * `filter` - Narrows the search.
///   Every condition must hold.
/// - order: How to sort the results.
#[charter::tool(read_only, idempotent, hints = ["Find", "lookup"])]
async fn search(
    query: &str,
    filter: Filter,
    order: Option<Order>,
    #[charter(default, desc = "At most this many results.")] limit: u32,
    #[charter(mode = "pro", desc = "Fuzzy matching.")] fuzzy: Option<bool>,
    #[charter(from_context = "workspace")] workspace: String,
    ctx: &CallContext,
) -> Found {
    Found {
        query: query.to_owned(),
        tags: filter.tags,
        order,
        limit,
        user: ctx.user.clone(),
        workspace,
        fuzzy: fuzzy.unwrap_or(false),
    }
}

/// Create an item.
#[charter::tool(mode = "create")]
fn create_item(
    #[charter(desc = "The title.")] title: String,
    #[charter(desc = "Private notes.", mode = "create")] notes: Option<String>,
    #[charter(desc = "Internal priority.", mode = "pro", mode = "admin")] priority: Option<u8>,
    #[charter(desc = "Legacy flag.", mode = "disabled")] legacy: Option<bool>,
    #[charter(desc = "Labels.")] labels: Option<&[String]>,
) -> String {
    format!(
        "created {title} notes={notes:?} priority={priority:?} legacy={legacy:?} labels={labels:?}"
    )
}

/// Delete everything.
#[charter::tool(destructive, idempotent, open_world)]
fn purge() -> BTreeMap<String, bool> {
    BTreeMap::from([("purged".to_owned(), true)])
}

mod calc {
    /// Multiply two integers.
    #[charter::tool(read_only, idempotent)]
    pub(crate) fn mul(
        #[charter(desc = "The first factor.")] a: i64,
        #[charter(desc = "The second factor.")] b: i64,
    ) -> i64 {
        a * b
    }
}

charter::pack!(
    /// Tools reached by path, in a second pack.
    pub(crate) static CALC = "calc", "Arithmetic.", [calc::mul, add]
);

charter::pack!(
    /// Tools of this test.
    pub static TOOLS = "test-pack", "Tools exercising the macros.", [add, divide, search, create_item, purge]
);

// ---------------------------------------------------------------------------------------------
// Helpers.

fn tool(name: &str) -> &'static ToolDef {
    TOOLS
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

async fn call(def: &ToolDef, args: Value, ctx: &CallContext) -> Result<ToolOutput, CharterError> {
    match def.exec {
        Exec::Rust(handler) => handler(args, ctx).await,
        Exec::Http(_) => panic!("not a Rust tool"),
    }
}

fn props(view: &View) -> Vec<String> {
    let v: Value = serde_json::from_str(view.schema).unwrap();
    v["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

fn required(view: &View) -> Vec<String> {
    let v: Value = serde_json::from_str(view.schema).unwrap();
    v.get("required")
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn keys(def: &ToolDef) -> Vec<ViewKey> {
    def.views.iter().map(|v| v.key).collect()
}

// ---------------------------------------------------------------------------------------------
// The table.

#[test]
fn pack_lists_tools_under_qualified_names() {
    let t: &'static Table = &TOOLS;
    assert_eq!(t.pack, "test-pack");
    assert_eq!(t.description, "Tools exercising the macros.");
    let names: Vec<_> = t.tools.iter().map(|t| (t.name, t.pack, t.tool)).collect();
    assert_eq!(
        names,
        [
            ("test-pack_add", "test-pack", "add"),
            ("test-pack_div", "test-pack", "div"),
            ("test-pack_search", "test-pack", "search"),
            ("test-pack_create_item", "test-pack", "create_item"),
            ("test-pack_purge", "test-pack", "purge"),
        ]
    );
}

#[test]
fn descriptions_annotations_and_search_data() {
    let div = tool("test-pack_div");
    assert_eq!(div.description, "Divide one number by another.");
    let s = tool("test-pack_search");
    assert_eq!(
        s.description,
        "Search the items of a workspace.\n\nMatches titles and bodies."
    );
    assert_eq!(
        s.search.description_lc,
        "search the items of a workspace.\n\nmatches titles and bodies."
    );
    assert_eq!(s.search.hints, ["find", "lookup"]);
    let a = |n| tool(n).annotations;
    assert!(a("test-pack_add").read_only && a("test-pack_add").idempotent);
    assert!(!a("test-pack_add").destructive && !a("test-pack_add").open_world);
    let p = a("test-pack_purge");
    assert!(p.destructive && p.idempotent && p.open_world && !p.read_only);
    let c = a("test-pack_create_item");
    assert!(!c.read_only && !c.idempotent && !c.destructive && !c.open_world);
    assert_eq!(tool("test-pack_create_item").mode, Some("create"));
    assert_eq!(s.mode, None);
}

#[test]
fn parameter_descriptions_from_attributes_and_arguments_section() {
    let s = tool("test-pack_search");
    let d: BTreeMap<_, _> = s
        .input
        .fields
        .iter()
        .map(|f| (f.name, f.description))
        .collect();
    assert_eq!(d["query"], "Words to look for.");
    assert_eq!(
        d["filter"],
        "Narrows the search. Every condition must hold."
    );
    assert_eq!(d["order"], "How to sort the results.");
    assert_eq!(d["limit"], "At most this many results.");
    let div = tool("test-pack_div");
    assert_eq!(
        div.input.fields[1].description,
        "What to divide it by; not zero."
    );
}

#[test]
fn schema_of_a_plain_tool() {
    let add = tool("test-pack_add");
    assert_eq!(keys(add), [ViewKey::Default, ViewKey::Unmatched]);
    let expected = r#"{"type":"object","properties":{"a":{"type":"number","description":"The first term."},"b":{"type":"number","description":"The second term."}},"required":["a","b"],"additionalProperties":false}"#;
    for v in add.views {
        assert_eq!(v.schema, expected);
    }
    assert!(add.views[0].widest && !add.views[1].widest);
    assert!(add.views[0].active.is_empty());
    let purge = tool("test-pack_purge");
    assert_eq!(
        purge.views[0].schema,
        r#"{"type":"object","properties":{},"additionalProperties":false}"#
    );
    assert!(purge.views[0].spans.is_empty() && purge.views[0].paths.is_empty());
}

#[test]
fn nested_types_are_inlined() {
    let s = tool("test-pack_search");
    let v: Value = serde_json::from_str(s.views[0].schema).unwrap();
    assert_eq!(
        v["properties"]["filter"],
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Only items carrying all of these tags."},
                "titleContains": {"type": "string", "description": "Only items whose title contains this text."},
                "range": {
                    "type": "object",
                    "properties": {
                        "from": {"type": "string", "description": "First day, `YYYY-MM-DD`."},
                        "to": {"type": "string", "description": "Last day, `YYYY-MM-DD`."}
                    },
                    "required": ["from", "to"],
                    "additionalProperties": false,
                    "description": "The date range."
                }
            },
            "required": ["tags"],
            "additionalProperties": false,
            "description": "Narrows the search. Every condition must hold."
        })
    );
    assert_eq!(
        v["properties"]["order"],
        json!({"type": "string", "enum": ["newest", "oldest"], "description": "How to sort the results."})
    );
    assert_eq!(v["required"], json!(["query", "filter"]));
    assert!(
        v["properties"].get("workspace").is_none(),
        "from-context parameters are never in the schema"
    );
}

#[test]
fn views_follow_mode_labels() {
    // No author mode: Default is widest, Unmatched hides labelled parameters, one view per label.
    let s = tool("test-pack_search");
    assert_eq!(
        keys(s),
        [ViewKey::Default, ViewKey::Unmatched, ViewKey::Label("pro")]
    );
    assert_eq!(
        props(&s.views[0]),
        ["query", "filter", "order", "limit", "fuzzy"]
    );
    assert_eq!(props(&s.views[1]), ["query", "filter", "order", "limit"]);
    assert_eq!(
        props(&s.views[2]),
        ["query", "filter", "order", "limit", "fuzzy"]
    );
    assert_eq!(s.views[2].active, ["pro"]);

    // Author mode `create`: in force in every view; labels sorted; `disabled` never shown.
    let c = tool("test-pack_create_item");
    assert_eq!(
        keys(c),
        [
            ViewKey::Default,
            ViewKey::Unmatched,
            ViewKey::Label("admin"),
            ViewKey::Label("create"),
            ViewKey::Label("pro")
        ]
    );
    assert_eq!(props(&c.views[0]), ["title", "notes", "labels"]);
    assert!(!c.views[0].widest);
    assert_eq!(c.views[0].active, ["create"]);
    assert_eq!(props(&c.views[1]), ["title", "notes", "labels"]);
    assert_eq!(props(&c.views[2]), ["title", "notes", "priority", "labels"]);
    assert_eq!(c.views[2].active, ["create", "admin"]);
    assert_eq!(c.views[3].active, ["create"]);
    assert_eq!(props(&c.views[4]), ["title", "notes", "priority", "labels"]);
    for v in c.views {
        assert_eq!(required(v), ["title"]);
    }
}

#[test]
fn views_agree_with_field_visibility() {
    for def in TOOLS.tools {
        for view in def.views {
            let visible: Vec<_> = def
                .input
                .fields
                .iter()
                .filter(|f| f.visible_in(view.active, view.widest))
                .map(|f| f.name.to_owned())
                .collect();
            assert_eq!(props(view), visible, "{} {:?}", def.name, view.key);
        }
    }
}

#[test]
fn input_shape_holds_every_parameter() {
    let s = tool("test-pack_search");
    let fields: Vec<_> = s
        .input
        .fields
        .iter()
        .map(|f| (f.name, f.required, f.modes, f.from_context))
        .collect();
    assert_eq!(
        fields,
        [
            ("query", true, &[][..], None),
            ("filter", true, &[][..], None),
            ("order", false, &[][..], None),
            ("limit", false, &[][..], None),
            ("fuzzy", false, &["pro"][..], None),
            ("workspace", false, &[][..], Some("workspace")),
        ]
    );
    let Shape::Object(filter) = s.input.fields[1].shape else {
        panic!("filter is an object")
    };
    assert_eq!(
        filter
            .fields
            .iter()
            .map(|f| (f.name, f.required))
            .collect::<Vec<_>>(),
        [("tags", true), ("titleContains", false), ("range", false)]
    );
    let Shape::String(order) = s.input.fields[2].shape else {
        panic!("order is a string")
    };
    assert_eq!(order.enum_values, ["newest", "oldest"]);
    assert!(
        matches!(s.input.fields[3].shape, Shape::Integer(r) if r.minimum.map(|n| n.value) == Some(0.0))
    );
}

#[test]
fn tokens_are_exact() {
    for def in TOOLS.tools {
        for view in def.views {
            let v: Value = serde_json::from_str(view.schema).unwrap();
            assert_eq!(v.to_string(), view.schema, "compact JSON");
            assert_eq!(view.tokens, json_tokens(&v));
            assert_eq!(view.tokens, text_tokens(view.schema));
        }
    }
    assert_eq!(
        charter::schema_tokens(tool("test-pack_add")),
        tool("test-pack_add").views[0].tokens
    );
}

/// Removes a dotted path from a schema value (descending through array items).
fn drop_path(schema: &mut Value, path: &str) {
    let parts: Vec<_> = path.split('.').collect();
    let mut obj = schema;
    for part in &parts[..parts.len() - 1] {
        obj = &mut obj["properties"][*part];
        while obj.get("properties").is_none() {
            obj = &mut obj["items"];
        }
    }
    let last = parts[parts.len() - 1];
    assert!(
        obj["properties"]
            .as_object_mut()
            .unwrap()
            .remove(last)
            .is_some(),
        "{path}"
    );
    let o = obj.as_object_mut().unwrap();
    if let Some(req) = o.get_mut("required").and_then(Value::as_array_mut) {
        req.retain(|r| r != last);
        if req.is_empty() {
            o.remove("required");
        }
    }
}

/// Every property path of a schema, parents before their fields, in declaration order.
fn preorder(schema: &Value, prefix: &str) -> Vec<String> {
    let mut node = schema;
    while node.get("properties").is_none() {
        match node.get("items") {
            Some(items) => node = items,
            None => return Vec::new(),
        }
    }
    let mut out = Vec::new();
    for (name, prop) in node["properties"].as_object().unwrap() {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        out.push(path.clone());
        out.extend(preorder(prop, &path));
    }
    out
}

#[test]
fn paths_are_exact_and_sorted() {
    let s = tool("test-pack_search");
    let view = &s.views[0];
    let mut got: Vec<_> = view.paths.iter().map(|p| (p.path, p.depth)).collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("filter", 1),
            ("filter.range", 2),
            ("filter.range.from", 3),
            ("filter.range.to", 3),
            ("filter.tags", 2),
            ("filter.titleContains", 2),
            ("fuzzy", 1),
            ("limit", 1),
            ("order", 1),
            ("query", 1),
        ]
    );
    for def in TOOLS.tools {
        for view in def.views {
            let full: Value = serde_json::from_str(view.schema).unwrap();
            for p in view.paths {
                let mut without = full.clone();
                drop_path(&mut without, p.path);
                assert_eq!(
                    p.saves,
                    json_tokens(&full) - json_tokens(&without),
                    "{} {}",
                    def.name,
                    p.path
                );
            }
            // Most expensive first; ties in declaration order (pre-order over the schema).
            let order = preorder(&full, "");
            assert_eq!(order.len(), view.paths.len());
            let pos = |p: &str| order.iter().position(|o| o == p).unwrap();
            for w in view.paths.windows(2) {
                assert!(
                    w[0].saves > w[1].saves
                        || (w[0].saves == w[1].saves && pos(w[0].path) < pos(w[1].path)),
                    "{} {:?}",
                    def.name,
                    view.paths
                );
            }
        }
    }
}

#[test]
fn spans_splice_out_properties() {
    for def in TOOLS.tools {
        for view in def.views {
            let full: Value = serde_json::from_str(view.schema).unwrap();
            assert_eq!(
                view.spans
                    .iter()
                    .map(|s| s.name.to_owned())
                    .collect::<Vec<_>>(),
                props(view)
            );
            for span in view.spans {
                let mut text = view.schema.to_owned();
                let mut ranges = vec![span.property];
                ranges.extend(span.required);
                ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
                for (a, b) in ranges {
                    text.replace_range(a as usize..b as usize, "");
                }
                let got: Value =
                    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
                let mut expected = full.clone();
                drop_path(&mut expected, span.name);
                assert_eq!(got, expected, "{} {}", def.name, span.name);
                assert_eq!(
                    span.required.is_some(),
                    required(view).contains(&span.name.to_owned())
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Calls.

#[tokio::test]
async fn plain_values_answer_as_json_or_text() {
    let out = call(
        tool("test-pack_add"),
        json!({"a": 1.5, "b": 2}),
        &CallContext::new(),
    )
    .await
    .unwrap();
    assert_eq!(out, ToolOutput::json(json!(3.5)));
    let out = call(
        tool("test-pack_create_item"),
        json!({"title": "x", "labels": ["a", "b"]}),
        &CallContext::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        ToolOutput::text(
            r#"created x notes=None priority=None legacy=None labels=Some(["a", "b"])"#
        )
    );
    let out = call(tool("test-pack_purge"), Value::Null, &CallContext::new())
        .await
        .unwrap();
    assert_eq!(out.structured, Some(json!({"purged": true})));
}

#[tokio::test]
async fn tool_errors_reach_the_model() {
    let div = tool("test-pack_div");
    let out = call(
        div,
        json!({"dividend": 1, "divisor": 4}),
        &CallContext::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.text, "0.25");
    let err = call(
        div,
        json!({"dividend": 1, "divisor": 0}),
        &CallContext::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(err, CharterError::Tool("cannot divide by zero".into()));
}

#[tokio::test]
async fn context_and_from_context_values_come_from_the_host() {
    let ctx = CallContext::new()
        .for_user("ada")
        .with_value("workspace", json!("ws-1"));
    let out = call(
        tool("test-pack_search"),
        json!({"query": "q", "filter": {"tags": ["a"]}, "order": "oldest", "fuzzy": true}),
        &ctx,
    )
    .await
    .unwrap();
    assert_eq!(
        out.structured.unwrap(),
        json!({"query": "q", "tags": ["a"], "order": "oldest", "limit": 0, "user": "ada", "workspace": "ws-1", "fuzzy": true})
    );
    // Without the context value the host is at fault, not the model.
    let err = call(
        tool("test-pack_search"),
        json!({"query": "q", "filter": {"tags": []}}),
        &CallContext::new(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, CharterError::Declaration(d) if d.message.contains("`workspace`")),
        "{err}"
    );
}

#[tokio::test]
async fn bad_arguments_are_validation_errors_with_paths() {
    let ctx = CallContext::new().with_value("workspace", json!("ws"));
    let err = call(
        tool("test-pack_search"),
        json!({"query": 3, "filter": {"tags": ["ok", 7], "range": {"from": "2026-01-01"}}, "order": "sideways", "extra": 1}),
        &ctx,
    )
    .await
    .unwrap_err();
    assert!(err.is_validation(), "{err}");
    let msg = err.to_string();
    for part in [
        "`query`: invalid type: integer `3`, expected a string",
        "`filter.tags[1]`: invalid type: integer `7`, expected a string",
        "`order`: unknown variant `sideways`, expected `newest` or `oldest`",
        "`extra`: unexpected argument",
    ] {
        assert!(msg.contains(part), "missing {part:?} in {msg}");
    }
    let err = call(tool("test-pack_add"), json!({"a": 1}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments: `b`: missing required argument"
    );
    let err = call(tool("test-pack_add"), json!([1, 2]), &ctx)
        .await
        .unwrap_err();
    assert!(err.is_validation());
}

#[tokio::test]
async fn tools_by_path_and_in_several_packs() {
    let names: Vec<_> = CALC.tools.iter().map(|t| t.name).collect();
    assert_eq!(names, ["calc_mul", "calc_add"]);
    let out = call(
        &CALC.tools[0],
        json!({"a": 6, "b": -7}),
        &CallContext::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.text, "-42");
    // The same function in two packs: one definition, two qualified names.
    assert_eq!(
        CALC.tools[1].views[0].schema,
        tool("test-pack_add").views[0].schema
    );
    // And it stays an ordinary function.
    assert_eq!(calc::mul(2, 3), 6);
    assert_eq!(add(1.0, 2.0), 3.0);
}

#[test]
fn rust_tools_sit_beside_any_table() {
    // The same `&'static Table` type a YAML pack compiles to.
    let tables: [&'static Table; 1] = [&TOOLS];
    assert!(
        tables
            .iter()
            .all(|t| t.tools.iter().all(|d| matches!(d.exec, Exec::Rust(_))))
    );
    assert!(format!("{:?}", tables[0].tools[0]).contains("Rust(..)"));
}
