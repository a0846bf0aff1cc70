//! Test support: a scripted model server on 127.0.0.1 and a table of Rust tools.
//!
//! The server speaks the real wire formats. It answers each request with the next scripted
//! reply, records the request (headers, raw body, parsed body) for the test to assert turn by
//! turn, and refuses requests the real APIs would refuse (a `tool_calls` message left
//! unanswered, a `tool_result` for an unknown id, a `tool_reference` to a tool that is not in
//! the request, every tool deferred...) with a 400 in the provider's error format.

#![allow(dead_code)]

mod checks;
mod gemini;
// Not every module asserts with them.
#[allow(unused_imports)]
pub use checks::*;
pub use gemini::*;

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use charter_runtime::error::CharterError;
use charter_runtime::table::*;
use charter_runtime::tokens::text_tokens;
use charter_runtime::{CallContext, Dialect};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The scripted server.

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with this JSON body.
    Json(Value),
    /// This status with this body.
    Status(u16, String),
    /// 200 with this (not necessarily JSON) body.
    Raw(String),
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: HeaderMap,
    pub raw: String,
    pub body: Value,
}

impl Recorded {
    /// The names in the request's `tools`, in order (OpenAI, Anthropic or Gemini shape).
    pub fn tool_names(&self) -> Vec<String> {
        if let Some(declarations) = self.body["tools"][0]["functionDeclarations"].as_array() {
            return declarations
                .iter()
                .map(|d| d["name"].as_str().unwrap_or("?").to_owned())
                .collect();
        }
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| {
                        t["function"]["name"]
                            .as_str()
                            .or(t["name"].as_str())
                            .unwrap_or("?")
                            .to_owned()
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The raw JSON text of the `tools` array, exactly as sent.
    pub fn raw_tools(&self) -> String {
        let start = self.raw.find("\"tools\":[").expect("no tools in request") + "\"tools\":".len();
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for (i, c) in self.raw[start..].char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '[' | '{' if !in_string => depth += 1,
                ']' | '}' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        return self.raw[start..start + i + 1].to_owned();
                    }
                }
                _ => {}
            }
        }
        panic!("unterminated tools array");
    }

    /// The raw JSON text of each tool entry.
    pub fn raw_tool_entries(&self) -> Vec<String> {
        let tools = self.raw_tools();
        let inner = &tools[1..tools.len() - 1];
        let mut out = Vec::new();
        let (mut depth, mut in_string, mut escaped, mut begin) = (0usize, false, false, 0usize);
        for (i, c) in inner.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' | '[' if !in_string => depth += 1,
                '}' | ']' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(inner[begin..=i].to_owned());
                    }
                }
                ',' if !in_string && depth == 0 => begin = i + 1,
                _ => {}
            }
        }
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
}

struct Shared {
    wire: Wire,
    api_key: Option<String>,
    replies: Mutex<Vec<Reply>>,
    requests: Mutex<Vec<Recorded>>,
}

/// A model server on 127.0.0.1 answering from a script.
pub struct ScriptedServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl ScriptedServer {
    /// Starts a server speaking `wire`, expecting `api_key` (checked like the real APIs: a wrong or
    /// missing key is a 401), answering with `replies` in order.
    pub async fn start(wire: Wire, api_key: Option<&str>, replies: Vec<Reply>) -> Self {
        let shared = Arc::new(Shared {
            wire,
            api_key: api_key.map(str::to_owned),
            replies: Mutex::new(replies.into_iter().rev().collect()),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(handle))
            .route("/v1/messages", post(handle))
            .route("/v1beta/models/{action}", post(handle))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { addr, shared, task }
    }

    /// The base URL a client takes: `http://127.0.0.1:PORT/v1` for OpenAI,
    /// `http://127.0.0.1:PORT` for Anthropic and Gemini.
    pub fn base_url(&self) -> String {
        match self.shared.wire {
            Wire::OpenAi => format!("http://{}/v1", self.addr),
            Wire::Anthropic | Wire::Gemini => format!("http://{}", self.addr),
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// How many scripted replies were not used.
    pub fn unused(&self) -> usize {
        self.shared.replies.lock().unwrap().len()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let raw = String::from_utf8_lossy(&body).into_owned();
    let parsed: Value = match serde_json::from_str(&raw) {
        Ok(v) => v,
        Err(e) => return refuse(shared.wire, 400, &format!("body is not JSON: {e}")),
    };
    shared.requests.lock().unwrap().push(Recorded {
        path: uri.path().to_owned(),
        headers: headers.clone(),
        raw: raw.clone(),
        body: parsed.clone(),
    });
    if let Err(message) = check_auth(&shared, &headers) {
        return refuse(shared.wire, 401, &message);
    }
    let checked = match shared.wire {
        Wire::OpenAi => check_openai(&headers, &parsed),
        Wire::Anthropic => check_anthropic(&headers, &parsed),
        Wire::Gemini => check_gemini(&uri, &headers, &parsed),
    };
    if let Err(message) = checked {
        return refuse(shared.wire, 400, &message);
    }
    let reply = shared.replies.lock().unwrap().pop();
    match reply {
        Some(Reply::Json(v)) => (StatusCode::OK, axum::Json(v)).into_response(),
        Some(Reply::Raw(text)) => (StatusCode::OK, text).into_response(),
        Some(Reply::Status(code, text)) => {
            (StatusCode::from_u16(code).unwrap(), text).into_response()
        }
        None => refuse(
            shared.wire,
            500,
            "script exhausted: the loop sent more requests than scripted",
        ),
    }
}

fn refuse(wire: Wire, status: u16, message: &str) -> Response {
    let body = match wire {
        Wire::OpenAi => json!({"error": {"message": message, "type": "invalid_request_error"}}),
        Wire::Anthropic => {
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        }
        Wire::Gemini => gemini_error(status, message),
    };
    (StatusCode::from_u16(status).unwrap(), axum::Json(body)).into_response()
}

fn check_auth(shared: &Shared, headers: &HeaderMap) -> Result<(), String> {
    let Some(key) = &shared.api_key else {
        return Ok(());
    };
    let sent = match shared.wire {
        Wire::OpenAi => headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_owned),
        Wire::Anthropic | Wire::Gemini => headers
            .get(if shared.wire == Wire::Gemini {
                "x-goog-api-key"
            } else {
                "x-api-key"
            })
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    };
    match sent {
        Some(sent) if &sent == key => Ok(()),
        Some(sent) => Err(format!("Incorrect API key provided: {sent}")),
        None => Err("missing API key".into()),
    }
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check_schema(schema: &Value, at: &str) -> Result<(), String> {
    if schema.get("type") != Some(&json!("object")) {
        return Err(format!(
            "{at}: the schema must be a JSON Schema object with type object"
        ));
    }
    Ok(())
}

/// What the chat-completions API refuses.
fn check_openai(headers: &HeaderMap, body: &Value) -> Result<(), String> {
    if headers.get("content-type").and_then(|v| v.to_str().ok()) != Some("application/json") {
        return Err("content-type must be application/json".into());
    }
    body["model"].as_str().ok_or("model must be a string")?;
    let messages = body["messages"]
        .as_array()
        .ok_or("messages must be an array")?;
    let tools = match body.get("tools") {
        None => Vec::new(),
        Some(Value::Array(tools)) if !tools.is_empty() => tools.clone(),
        Some(_) => return Err("tools must be a non-empty array when present".into()),
    };
    if body.get("tool_choice").is_some() && tools.is_empty() {
        return Err("tool_choice is only allowed when tools are specified".into());
    }
    let mut names = HashSet::new();
    for (i, tool) in tools.iter().enumerate() {
        if tool["type"] != "function" {
            return Err(format!("tools[{i}].type must be function"));
        }
        let name = tool["function"]["name"]
            .as_str()
            .ok_or(format!("tools[{i}].function.name missing"))?;
        if !valid_tool_name(name) || !names.insert(name.to_owned()) {
            return Err(format!(
                "tools[{i}].function.name `{name}` is invalid or duplicated"
            ));
        }
        tool["function"]["description"]
            .as_str()
            .ok_or(format!("tools[{i}].function.description missing"))?;
        check_schema(
            &tool["function"]["parameters"],
            &format!("tools[{i}].function.parameters"),
        )?;
    }
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"]
            .as_str()
            .ok_or(format!("messages[{i}].role missing"))?;
        if role != "tool" && !open.is_empty() {
            return Err(format!(
                "messages[{i}]: tool_calls {open:?} were not answered by tool messages"
            ));
        }
        match role {
            "system" | "developer" | "user" => {
                if !(m["content"].is_string() || m["content"].is_array()) {
                    return Err(format!(
                        "messages[{i}].content must be a string or an array"
                    ));
                }
            }
            "assistant" => {
                for (j, call) in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let id = call["id"]
                        .as_str()
                        .ok_or(format!("messages[{i}].tool_calls[{j}].id missing"))?;
                    call["function"]["arguments"].as_str().ok_or(format!(
                        "messages[{i}].tool_calls[{j}].function.arguments must be a string"
                    ))?;
                    open.push(id.to_owned());
                }
                if m.get("annotations").is_some() || m.get("refusal") == Some(&Value::Null) {
                    return Err(format!("messages[{i}]: unexpected response-only member"));
                }
            }
            "tool" => {
                let id = m["tool_call_id"]
                    .as_str()
                    .ok_or(format!("messages[{i}].tool_call_id missing"))?;
                m["content"]
                    .as_str()
                    .ok_or(format!("messages[{i}].content must be a string"))?;
                if open.first().map(String::as_str) != Some(id) {
                    return Err(format!(
                        "messages[{i}]: tool message for `{id}` does not answer the next open call {open:?}"
                    ));
                }
                open.remove(0);
            }
            other => return Err(format!("messages[{i}].role `{other}` is not a role")),
        }
    }
    Ok(())
}

/// What the Messages API refuses.
fn check_anthropic(headers: &HeaderMap, body: &Value) -> Result<(), String> {
    if headers.get("anthropic-version").is_none() {
        return Err("anthropic-version header is required".into());
    }
    if headers.get("content-type").and_then(|v| v.to_str().ok()) != Some("application/json") {
        return Err("content-type must be application/json".into());
    }
    body["model"].as_str().ok_or("model: Field required")?;
    body["max_tokens"]
        .as_u64()
        .ok_or("max_tokens: Field required")?;
    let messages = body["messages"]
        .as_array()
        .ok_or("messages: Field required")?;
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut names = HashSet::new();
    let mut deferred = HashSet::new();
    for (i, tool) in tools.iter().enumerate() {
        let name = tool["name"]
            .as_str()
            .ok_or(format!("tools.{i}.name: Field required"))?;
        if !valid_tool_name(name) || !names.insert(name.to_owned()) {
            return Err(format!("tools.{i}.name `{name}` is invalid or duplicated"));
        }
        check_schema(&tool["input_schema"], &format!("tools.{i}.input_schema"))?;
        match tool.get("defer_loading") {
            None => {}
            Some(Value::Bool(true)) => {
                deferred.insert(name.to_owned());
            }
            Some(Value::Bool(false)) => {}
            Some(_) => return Err(format!("tools.{i}.defer_loading must be a boolean")),
        }
    }
    if !tools.is_empty() && deferred.len() == tools.len() {
        return Err("at least one tool must not be deferred".into());
    }
    let mut expected_role = "user";
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"]
            .as_str()
            .ok_or(format!("messages.{i}.role: Field required"))?;
        if role != expected_role {
            return Err(format!(
                "messages.{i}: roles must alternate, expected {expected_role}"
            ));
        }
        let blocks: Vec<Value> = match &m["content"] {
            Value::String(_) => Vec::new(),
            Value::Array(blocks) => blocks.clone(),
            _ => return Err(format!("messages.{i}.content must be a string or an array")),
        };
        if role == "user" {
            let answered: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap_or(""))
                .collect();
            if answered != open {
                return Err(format!(
                    "messages.{i}: tool_use ids {open:?} must be answered by tool_result blocks in order, found {answered:?}"
                ));
            }
            for b in blocks.iter().filter(|b| b["type"] == "tool_result") {
                for c in b["content"].as_array().into_iter().flatten() {
                    if c["type"] == "tool_reference" {
                        let name = c["tool_name"]
                            .as_str()
                            .ok_or("tool_reference.tool_name required")?;
                        if !deferred.contains(name) {
                            return Err(format!(
                                "tool_reference `{name}` does not name a deferred tool of the request"
                            ));
                        }
                    }
                }
            }
            open.clear();
        } else {
            open = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .map(|b| b["id"].as_str().unwrap_or("").to_owned())
                .collect();
        }
        expected_role = if role == "user" { "assistant" } else { "user" };
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scripted replies in each wire format.

/// An OpenAI assistant reply with text.
pub fn openai_text(text: &str) -> Reply {
    Reply::Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": null, "annotations": []},
                     "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    }))
}

/// An OpenAI assistant reply calling tools: `(id, name, arguments text)`.
pub fn openai_calls(calls: &[(&str, &str, &str)]) -> Reply {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    Reply::Json(json!({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls, "refusal": null},
                     "logprobs": null, "finish_reason": "tool_calls"}]
    }))
}

/// An Anthropic reply with text.
pub fn anthropic_text(text: &str) -> Reply {
    Reply::Json(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}
    }))
}

/// An Anthropic reply calling tools: `(id, name, input)`, after a line of text.
pub fn anthropic_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let mut content = vec![json!({"type": "text", "text": "Let me check."})];
    content.extend(calls.iter().map(
        |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
    ));
    Reply::Json(json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "scripted",
        "content": content, "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}
    }))
}

// ---------------------------------------------------------------------------------------------
// The tools: a `demo` pack of Rust tools, written the way generated code writes them.

/// What the demo tools did, per test run (keyed by `CallContext::values["run"]`).
#[derive(Debug, Default, Clone)]
pub struct Activity {
    /// `(tool, arguments)` of every execution, in start order.
    pub calls: Vec<(String, Value)>,
    pub in_flight: usize,
    pub max_in_flight: usize,
}

static ACTIVITY: Mutex<BTreeMap<String, Activity>> = Mutex::new(BTreeMap::new());

/// A context tagged with a fresh run key.
pub fn context(run: &str) -> CallContext {
    ACTIVITY.lock().unwrap().remove(run);
    CallContext::new().with_value("run", json!(run))
}

/// What the tools did under `run`.
pub fn activity(run: &str) -> Activity {
    ACTIVITY
        .lock()
        .unwrap()
        .get(run)
        .cloned()
        .unwrap_or_default()
}

fn run_key(ctx: &CallContext) -> String {
    ctx.values
        .get("run")
        .and_then(Value::as_str)
        .unwrap_or("-")
        .to_owned()
}

async fn tracked(tool: &str, args: &Value, ctx: &CallContext, pause: Duration) {
    let key = run_key(ctx);
    {
        let mut all = ACTIVITY.lock().unwrap();
        let a = all.entry(key.clone()).or_default();
        a.calls.push((tool.to_owned(), args.clone()));
        a.in_flight += 1;
        a.max_in_flight = a.max_in_flight.max(a.in_flight);
    }
    tokio::time::sleep(pause).await;
    ACTIVITY.lock().unwrap().get_mut(&key).unwrap().in_flight -= 1;
}

fn weather<'a>(
    args: Value,
    ctx: &'a CallContext,
) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        tracked("demo_weather", &args, ctx, Duration::from_millis(150)).await;
        let city = args["city"].as_str().unwrap_or_default().to_owned();
        Ok(ToolOutput::json(
            json!({"city": city, "forecast": format!("sunny in {city}")}),
        ))
    })
}

fn time<'a>(args: Value, ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        tracked("demo_time", &args, ctx, Duration::from_millis(150)).await;
        Ok(ToolOutput::text(format!(
            "12:00 in {}",
            args["zone"].as_str().unwrap_or_default()
        )))
    })
}

fn note<'a>(args: Value, ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        tracked("demo_note", &args, ctx, Duration::from_millis(50)).await;
        Ok(ToolOutput::text(format!(
            "saved: {}",
            args["text"].as_str().unwrap_or_default()
        )))
    })
}

fn fail<'a>(args: Value, ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        tracked("demo_fail", &args, ctx, Duration::from_millis(1)).await;
        Err(CharterError::Tool("the backend said boom".into()))
    })
}

const fn string_field(name: &'static str, description: &'static str) -> Field {
    Field::new(name, description, &Shape::String(StringRules::NONE)).with_required(true)
}

macro_rules! demo_tool {
    ($tool:literal, $description:literal, safe = $safe:expr, field = $field:literal, $field_description:literal, $handler:expr) => {{
        const SCHEMA: &str = concat!(
            r#"{"type":"object","properties":{""#,
            $field,
            r#"":{"type":"string","description":""#,
            $field_description,
            r#""}},"required":[""#,
            $field,
            r#""],"additionalProperties":false}"#
        );
        // Gemini's `Schema` takes no `additionalProperties`; the portable text is strict already
        // in OpenAI's and Anthropic's sense (one property, required, the object closed).
        const GEMINI: &str = concat!(
            r#"{"type":"object","properties":{""#,
            $field,
            r#"":{"type":"string","description":""#,
            $field_description,
            r#""}},"required":[""#,
            $field,
            r#""]}"#
        );
        const DIALECTS: DialectSchemas = DialectSchemas::new(
            DialectSchema::new(SCHEMA, text_tokens(SCHEMA), &[]),
            DialectSchema::new(GEMINI, text_tokens(GEMINI), &[]),
        )
        .with_anthropic_strict(Some(DialectSchema::new(SCHEMA, text_tokens(SCHEMA), &[])));
        ToolDef::new(
            concat!("demo_", $tool),
            "demo",
            $tool,
            $description,
            Exec::Rust($handler),
        )
        .with_annotations(
            Annotations::new()
                .with_read_only($safe)
                .with_idempotent($safe),
        )
        .with_input(&ObjectShape::of(&[string_field(
            $field,
            $field_description,
        )]))
        .with_views(&[
            View::new(ViewKey::Default, SCHEMA, text_tokens(SCHEMA))
                .with_widest(true)
                .with_dialects(&DIALECTS),
            View::new(ViewKey::Unmatched, SCHEMA, text_tokens(SCHEMA)).with_dialects(&DIALECTS),
        ])
        .with_search(SearchData::new($description, &[]))
    }};
}

/// The demo pack: two read-only idempotent tools, one that writes, one that fails.
pub static DEMO: Table = Table::new(
    "demo",
    "demo tools for adapter tests",
    &[
        demo_tool!(
            "weather",
            "weather forecast for a city",
            safe = true,
            field = "city",
            "the city name",
            weather
        ),
        demo_tool!(
            "time",
            "current time in a time zone",
            safe = true,
            field = "zone",
            "an iana time zone",
            time
        ),
        demo_tool!(
            "note",
            "save a note",
            safe = false,
            field = "text",
            "the note text",
            note
        ),
        demo_tool!(
            "fail",
            "a tool whose backend always fails",
            safe = true,
            field = "why",
            "anything",
            fail
        ),
    ],
);

/// A session over the demo pack in `disclosure`, its schemas in `dialect`.
pub fn demo_session(
    disclosure: charter_runtime::Disclosure,
    dialect: Dialect,
) -> charter_runtime::session::ToolSession {
    use charter_runtime::session::{SessionOptions, Source, ToolSession};
    ToolSession::with_options(
        vec![Source::Table(&DEMO)],
        SessionOptions::new()
            .with_disclosure(disclosure)
            .with_dialect(dialect),
    )
    .unwrap()
}

/// A search-and-call session over the demo pack: ToolSearch and CallTool on every turn.
pub fn search_and_call() -> charter_runtime::session::ToolSession {
    demo_session(charter_runtime::Disclosure::SearchAndCall, Dialect::Mcp)
}

/// A code-mode session over the demo pack: ToolSearch and RunCode.
pub fn code_mode() -> charter_runtime::session::ToolSession {
    demo_session(charter_runtime::Disclosure::Code, Dialect::Mcp)
}

/// The schema text of a demo tool, as the table holds it.
pub fn schema_of(name: &str) -> &'static str {
    schema_in(name, Dialect::Mcp)
}

/// The schema text of a demo tool in `dialect`.
pub fn schema_in(name: &str, dialect: Dialect) -> &'static str {
    DEMO.tools.iter().find(|t| t.name == name).unwrap().views[0].schema_in(dialect)
}

/// An empty pack: a session over it has nothing to show.
pub static EMPTY: Table = Table::new("empty", "no tools", &[]);
