//! The MCP server in process, over real byte pipes (tokio duplex) with rmcp's client, on tables
//! built by `charter_runtime::testing` (Rust-handler tools, no HTTP): the handler's logic apart
//! from any pack.

use std::sync::OnceLock;
use std::time::Duration;

use charter_mcp::{McpServer, ServerOptions, Transport};
use charter_runtime::table::{BoxFuture, Table, ToolOutput};
use charter_runtime::{CallContext, CharterError};
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion, Tool};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

fn boom<'a>(_: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async { panic!("a bug in host code") })
}

fn refuse<'a>(_: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async { Err(CharterError::Tool("the printer is on fire".into())) })
}

fn titles<'a>(_: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async { Ok(ToolOutput::json(json!(["milk", "eggs"]))) })
}

fn shelved<'a>(_: Value, _: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    let books: Vec<String> = (0..500).map(|i| format!("book number {i:03}")).collect();
    Box::pin(async move { Ok(ToolOutput::json(json!(books))) })
}

/// Tools with declared results (docs/results.md): a list answer and an object answer.
fn shelf() -> &'static Table {
    static TABLE: OnceLock<&'static Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        charter_testkit::table_with(
            json!({"pack": "shelf", "tools": [
                {"name": "titles", "description": "Every title.", "handler": "titles",
                 "result": {"type": "array", "items": {"type": "string"}}},
                {"name": "put", "description": "Shelve a book.",
                 "params": {"title": {"type": "string", "required": true, "description": "The title."}},
                 "result": {"type": "object", "properties": {"title": {"type": "string", "required": true}}}},
                {"name": "plain", "description": "No declared result."},
                {"name": "all", "description": "Every book shelved.", "handler": "shelved",
                 "result": {"type": "array", "items": {"type": "string"}}}
            ]}),
            &[("titles", titles), ("shelved", shelved)],
        )
    })
}

fn notes() -> &'static Table {
    static TABLE: OnceLock<&'static Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        charter_testkit::table_with(
            json!({"pack": "notes", "tools": [
                {"name": "add", "description": "Add a note.",
                 "params": {"text": {"type": "string", "required": true, "description": "The note."},
                            "tier": {"type": "string", "modes": ["pro"], "description": "Pro only."}}},
                {"name": "list", "description": "List notes.", "annotations": {"read_only": true, "idempotent": true},
                 "params": {"limit": {"type": "integer", "minimum": 1, "description": "How many."}}},
                {"name": "crash", "description": "Always panics.", "handler": "boom"},
                {"name": "refuse", "description": "Always fails.", "handler": "refuse"}
            ]}),
            &[("boom", boom), ("refuse", refuse)],
        )
    })
}

struct Watcher {
    config: ClientConfig,
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }
}

type Client = RunningService<RoleClient, Watcher>;

/// Serves `server` on one end of a duplex pipe and connects rmcp's client to the other.
async fn connect(server: &McpServer) -> (Client, mpsc::UnboundedReceiver<()>) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let server = server.clone();
    tokio::spawn(async move { server.serve_io(read, write).await });
    let (tx, rx) = mpsc::unbounded_channel();
    let config = ClientConfig::default().with_protocol_version(ProtocolVersion::V_2025_11_25);
    let client = Watcher {
        config,
        changed: tx,
    }
    .serve(client_io)
    .await
    .unwrap();
    (client, rx)
}

fn names(tools: Vec<Tool>) -> Vec<String> {
    tools.into_iter().map(|t| t.name.into_owned()).collect()
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        panic!()
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(map)
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn eager_lists_every_tool_with_explicit_annotations() {
    let server = McpServer::new(&[notes()], ServerOptions::default()).unwrap();
    assert_eq!(server.tool_count(), 4);
    let (client, _) = connect(&server).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        names(tools.clone()),
        ["notes_add", "notes_list", "notes_crash", "notes_refuse"]
    );
    let list = &tools[1];
    let a = list.annotations.as_ref().unwrap();
    assert_eq!(
        (
            a.read_only_hint,
            a.idempotent_hint,
            a.destructive_hint,
            a.open_world_hint
        ),
        (Some(true), Some(true), Some(false), Some(false))
    );
    let schema = Value::Object((*tools[0].input_schema).clone());
    assert_eq!(
        schema,
        serde_json::from_str::<Value>(notes().tools[0].views[0].schema).unwrap()
    );
    // The same prebuilt schema object serves every list.
    let again = client.list_all_tools().await.unwrap();
    assert_eq!(again, tools);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn declared_results_are_output_schemas_and_structured_content_conforms() {
    let server = McpServer::new(&[shelf()], ServerOptions::default()).unwrap();
    let (client, _) = connect(&server).await;
    let tools = client.list_all_tools().await.unwrap();
    let output = |i: usize| {
        tools[i]
            .output_schema
            .as_ref()
            .map(|o| Value::Object((**o).clone()))
    };
    // A list answer is carried under `items`: MCP's structuredContent is an object.
    assert_eq!(
        output(0),
        Some(
            json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}, "required": ["items"]})
        )
    );
    assert_eq!(
        output(1),
        Some(
            json!({"type": "object", "properties": {"title": {"type": "string", "description": "The title."}}, "required": ["title"]})
        )
    );
    assert_eq!(output(2), None);

    let listed = client
        .call_tool(call("shelf_titles", json!({})))
        .await
        .unwrap();
    assert_eq!(
        listed.structured_content,
        Some(json!({"items": ["milk", "eggs"]}))
    );
    // The text is the answer itself.
    assert_eq!(text(&listed), r#"["milk","eggs"]"#);
    let put = client
        .call_tool(call("shelf_put", json!({"title": "Dune"})))
        .await
        .unwrap();
    assert_eq!(put.structured_content, Some(json!({"title": "Dune"})));
    client.cancel().await.unwrap();
}

/// An answer over the result budget keeps what fits of its list, whole JSON that still
/// conforms to the tool's outputSchema, and says what was left out; every tool is listed with
/// the budget as `_meta["anthropic/maxResultSizeChars"]`.
#[tokio::test]
async fn an_answer_over_the_budget_is_fitted_not_cut() {
    let mut options = ServerOptions::default();
    options.call_limits.max_result_bytes = 2_000;
    let server = McpServer::new(&[shelf()], options).unwrap();
    let (client, _) = connect(&server).await;
    let tools = client.list_all_tools().await.unwrap();
    for tool in &tools {
        let meta = tool.meta.as_ref().map(|m| m.0.clone());
        assert_eq!(
            meta.and_then(|m| m.get("anthropic/maxResultSizeChars").cloned()),
            Some(json!(2_000)),
            "{}",
            tool.name
        );
    }
    let all = client
        .call_tool(call("shelf_all", json!({})))
        .await
        .unwrap();
    assert_ne!(all.is_error, Some(true));
    let text = text(&all);
    assert!(text.len() <= 2_000, "{}", text.len());
    let (answer, notice) = text
        .split_once("\n\n")
        .expect("the answer, then the notice");
    let kept: Vec<String> = serde_json::from_str(answer).expect("whole JSON");
    assert!(kept.len() > 10 && kept.len() < 500, "{}", kept.len());
    assert_eq!(
        kept[kept.len() - 1],
        format!("book number {:03}", kept.len() - 1)
    );
    assert_eq!(all.structured_content, Some(json!({ "items": kept })));
    assert!(
        notice.contains(&format!("shows its first {} of 500 items", kept.len())),
        "{notice}"
    );
    assert!(notice.contains("Narrow the call"), "{notice}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn results_errors_and_panics_are_told_apart() {
    let server = McpServer::new(&[notes()], ServerOptions::default()).unwrap();
    let (client, _) = connect(&server).await;
    let ok = client
        .call_tool(call("notes_add", json!({"text": "milk"})))
        .await
        .unwrap();
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(ok.structured_content, Some(json!({"text": "milk"})));
    assert_eq!(text(&ok), r#"{"text":"milk"}"#);

    let invalid = client
        .call_tool(call("notes_add", json!({"txt": "milk"})))
        .await
        .unwrap();
    assert_eq!(invalid.is_error, Some(true));
    assert!(
        text(&invalid).contains("text") && text(&invalid).contains("txt"),
        "{}",
        text(&invalid)
    );

    let refused = client
        .call_tool(call("notes_refuse", json!({})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), "the printer is on fire");

    let crash = client
        .call_tool(call("notes_crash", json!({})))
        .await
        .expect_err("a panic is not fed to the model");
    assert!(crash.to_string().contains("notes_crash"), "{crash}");
    let unknown = client
        .call_tool(call("notes_delete", json!({})))
        .await
        .expect_err("unknown tool");
    assert!(
        unknown.to_string().contains("notes_delete") && unknown.to_string().contains("notes_add"),
        "{unknown}"
    );

    // The connection survives all of it.
    assert_eq!(client.list_all_tools().await.unwrap().len(), 4);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_mode_narrows_the_served_schema_and_refuses_withheld_fields() {
    let server = McpServer::new(&[notes()], ServerOptions::new().with_mode("free")).unwrap();
    let (client, _) = connect(&server).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(
        !Value::Object((*tools[0].input_schema).clone())
            .to_string()
            .contains("tier")
    );
    let refused = client
        .call_tool(call("notes_add", json!({"text": "x", "tier": "gold"})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn progressive_grows_in_load_order_and_announces_each_load() {
    let server = McpServer::new(
        &[notes()],
        ServerOptions::new().with_disclosure(charter_mcp::Disclosure::ListChanged),
    )
    .unwrap();
    let (client, mut changed) = connect(&server).await;
    assert_eq!(
        client
            .peer_info()
            .unwrap()
            .capabilities
            .tools
            .as_ref()
            .unwrap()
            .list_changed,
        Some(true)
    );
    assert_eq!(
        names(client.list_all_tools().await.unwrap()),
        ["ToolSearch"]
    );

    let r = client
        .call_tool(call(
            "ToolSearch",
            json!({"query": "select:notes_list,notes_add"}),
        ))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    tokio::time::timeout(Duration::from_secs(5), changed.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        names(client.list_all_tools().await.unwrap()),
        ["ToolSearch", "notes_list", "notes_add"]
    );

    // A search that loads nothing new sends nothing.
    client
        .call_tool(call("ToolSearch", json!({"query": "select:notes_list"})))
        .await
        .unwrap();
    client
        .call_tool(call("ToolSearch", json!({"query": "zebra"})))
        .await
        .unwrap();
    assert!(changed.try_recv().is_err());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn progressive_connections_do_not_share_loads() {
    let server = McpServer::new(
        &[notes()],
        ServerOptions::new().with_disclosure(charter_mcp::Disclosure::ListChanged),
    )
    .unwrap();
    let (a, _) = connect(&server).await;
    let (b, _) = connect(&server).await;
    a.call_tool(call("ToolSearch", json!({"query": "select:notes_add"})))
        .await
        .unwrap();
    assert_eq!(a.list_all_tools().await.unwrap().len(), 2);
    assert_eq!(b.list_all_tools().await.unwrap().len(), 1);
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

#[tokio::test]
async fn protocol_2026_07_28_gets_search_and_call() {
    let server = McpServer::new(
        &[notes()],
        ServerOptions::new().with_disclosure(charter_mcp::Disclosure::ListChanged),
    )
    .unwrap();
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let s = server.clone();
    tokio::spawn(async move { s.serve_io(read, write).await });
    let client = ClientConfig::default()
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    assert_ne!(
        client
            .peer_info()
            .unwrap()
            .capabilities
            .tools
            .as_ref()
            .unwrap()
            .list_changed,
        Some(true)
    );
    let listed = names(client.list_all_tools().await.unwrap());
    assert_eq!(listed, ["ToolSearch", "CallTool"]);
    let found = client
        .call_tool(call("ToolSearch", json!({"query": "list notes"})))
        .await
        .unwrap();
    assert!(text(&found).contains("\"inputSchema\""), "{}", text(&found));
    let r = client
        .call_tool(call(
            "CallTool",
            json!({"name": "notes_list", "arguments": {"limit": 2}}),
        ))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    // Nothing loaded: the list is the same.
    assert_eq!(
        names(client.list_all_tools().await.unwrap()),
        ["ToolSearch", "CallTool"]
    );
    client.cancel().await.unwrap();
}

#[test]
fn the_start_line_says_what_is_served_and_how() {
    let eager = McpServer::new(&[notes()], ServerOptions::default()).unwrap();
    assert_eq!(
        eager.start_line(&Transport::Stdio),
        "charter: serving 4 tools from notes over MCP (stdio), eager (every schema listed)"
    );
    let progressive = McpServer::new(
        &[notes()],
        ServerOptions::new()
            .with_disclosure(charter_mcp::Disclosure::ListChanged)
            .with_mode("pro"),
    )
    .unwrap();
    let line = progressive.start_line(&Transport::Http("http://127.0.0.1:1/mcp".into()));
    assert!(line.starts_with("charter: serving 4 tools from notes over MCP (streamable HTTP at http://127.0.0.1:1/mcp), progressive: list-changed (ToolSearch listed"), "{line}");
    assert!(
        line.contains("search-and-call (ToolSearch and CallTool, a stable list) on 2026-07-28")
            && line.ends_with(", mode `pro`"),
        "{line}"
    );
    let search_and_call = McpServer::new(
        &[notes()],
        ServerOptions::new().with_disclosure(charter_mcp::Disclosure::SearchAndCall),
    )
    .unwrap();
    assert_eq!(
        search_and_call.start_line(&Transport::Stdio),
        "charter: serving 4 tools from notes over MCP (stdio), progressive: search-and-call \
         (ToolSearch and CallTool, a stable list) on every revision"
    );
}

#[test]
fn a_bad_deployment_fails_at_start() {
    let err = McpServer::new(&[notes()], ServerOptions::new().with_mode(""))
        .err()
        .expect("empty mode label");
    assert!(err.to_string().contains("mode"), "{err}");
    let err = McpServer::new(&[notes(), notes()], ServerOptions::default())
        .err()
        .expect("duplicate names");
    assert!(err.to_string().contains("notes_add"), "{err}");
}
