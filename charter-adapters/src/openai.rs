//! The OpenAI-compatible chat-completions tool loop (docs/design.md §9).
//!
//! [`run`] sends `POST {base_url}/chat/completions` turn after turn. Each request carries the
//! session's [`visible`](ToolSession::visible) tools as `{"type":"function","function":{name,
//! description, parameters}}` entries whose `parameters` is the precomputed schema text copied
//! into the body (omitted entirely when nothing is visible). The assistant message is appended;
//! its `tool_calls` run as one batch through the session ([`ToolSession::execute_tool_calls`]),
//! and one `{"role":"tool","tool_call_id":...}` message per call follows, in the model's order.
//!
//! A session built in OpenAI's strict dialect
//! (`SessionOptions::new().with_dialect(Dialect::OpenAiStrict)`, docs/dialects.md) gives each
//! compiled tool's strict definition, which goes with `"strict": true` (turn it off with
//! [`Options::with_strict`]); the session's own tools (ToolSearch, `CallTool`, `RunCode`) and a
//! toolkit's go without. Arguments the model writes in the strict shape (`null` for absent) are
//! read back before validation. A session in another portable dialect sends the portable form
//! without `strict`.
//!
//! Chat completions has no deferred loading of its own: a progressive session either grows the
//! list as ToolSearch loads tools, or (built with `SessionOptions::search_and_call`) sends the
//! same two tools every turn, `ToolSearch` and `CallTool`, so the request prefix never changes.
//!
//! OpenAI's API refuses a request with more than [`OPENAI_MAX_TOOLS`] tools in it
//! (`array_above_max_length`), so [`run`] refuses to send one and says how to show fewer: an
//! eager session of a few packs holds hundreds. A server without that limit takes
//! [`Options::with_max_tools`]`(None)`.
//!
//! ```no_run
//! # async fn demo(session: &charter_runtime::ToolSession) -> Result<(), charter_adapters::Error> {
//! use charter_adapters::openai::{self, ChatMessage, OpenAiClient, Options};
//!
//! let client = OpenAiClient::from_env()?; // OPENAI_BASE_URL, OPENAI_API_KEY
//! let messages = [ChatMessage::user("What is on my calendar tomorrow?")];
//! let ctx = charter_runtime::CallContext::new();
//! let result = openai::run(&client, "gpt-4.1-mini", &messages, session, &ctx, &Options::default()).await?;
//! println!("{} ({} turns, {})", result.content, result.turns, result.stop);
//! # Ok(()) }
//! ```

use charter_runtime::CallContext;
use charter_runtime::Dialect;
use charter_runtime::session::{ToolEntry, ToolSession};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::bridge::{self, Pending};
use crate::json::{self, ObjectWriter};
use crate::transport::{self, Endpoint};
use crate::{DEFAULT_CONCURRENCY, DEFAULT_MAX_TURNS, Error, RunResult, Stop};

/// The base URL used when none is given and `OPENAI_BASE_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions from the application.
    System,
    /// Instructions from the application (newer models' name for `system`).
    Developer,
    /// The end user.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// A message's content: plain text, or content parts kept as JSON (images, audio, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Content parts, as the wire has them.
    Parts(Vec<Value>),
}

/// One chat message, as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who wrote it.
    pub role: Role,
    /// The content; `None` for an assistant message that only calls tools.
    #[serde(default)]
    pub content: Option<Content>,
    /// The tool calls of an assistant message.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub tool_calls: Vec<ToolCall>,
    /// The call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// An optional participant name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Any other member (a provider's `reasoning_content`, `refusal`, ...), kept and sent back.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ChatMessage {
    fn with(role: Role, content: Option<Content>) -> Self {
        Self {
            role,
            content,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            extra: Map::new(),
        }
    }

    /// A `system` message.
    pub fn system(text: impl Into<String>) -> Self {
        Self::with(Role::System, Some(Content::Text(text.into())))
    }

    /// A `developer` message.
    pub fn developer(text: impl Into<String>) -> Self {
        Self::with(Role::Developer, Some(Content::Text(text.into())))
    }

    /// A `user` message.
    pub fn user(text: impl Into<String>) -> Self {
        Self::with(Role::User, Some(Content::Text(text.into())))
    }

    /// An `assistant` message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::with(Role::Assistant, Some(Content::Text(text.into())))
    }

    /// A `tool` message answering call `id`.
    pub fn tool(id: impl Into<String>, content: impl Into<String>) -> Self {
        let mut message = Self::with(Role::Tool, Some(Content::Text(content.into())));
        message.tool_call_id = Some(id.into());
        message
    }

    /// The text of the message: the string content, or its `text` parts joined.
    pub fn text(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(Content::Text(text)) => text.clone(),
            Some(Content::Parts(parts)) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        }
    }
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id the `tool` message answers.
    #[serde(default)]
    pub id: String,
    /// Always `function` for the tools this loop sends.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// What to call.
    pub function: FunctionCall,
    /// Any other member, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The function part of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool name.
    pub name: String,
    /// The arguments as JSON text, exactly as the model wrote them (possibly not valid JSON).
    /// A server that sends an object instead of a string is accepted; the object is rendered.
    #[serde(default, deserialize_with = "string_or_json")]
    pub arguments: String,
}

fn function_type() -> String {
    "function".to_owned()
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn string_or_json<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(text) => text,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// A chat-completions response (the members the loop reads; the rest kept in `extra`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ChatCompletion {
    /// The completion id.
    #[serde(default)]
    pub id: Option<String>,
    /// The choices; the loop reads the first.
    pub choices: Vec<Choice>,
    /// Token usage, as the server reports it.
    #[serde(default)]
    pub usage: Option<Value>,
    /// Any other member.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One choice of a [`ChatCompletion`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Choice {
    /// The assistant message.
    pub message: ChatMessage,
    /// Why the model stopped (`stop`, `tool_calls`, `length`, ...).
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// A client for one OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    endpoint: Endpoint,
}

impl OpenAiClient {
    /// A client for `base_url` (`https://api.openai.com/v1`, `http://localhost:11434/v1`, ...),
    /// sending `Authorization: Bearer <api_key>` when a key is given.
    pub fn new(base_url: &str, api_key: Option<&str>) -> Result<Self, Error> {
        Self::with_http_client(transport::default_http_client()?, base_url, api_key)
    }

    /// Like [`new`](Self::new) over your own reqwest client (proxies, timeouts, TLS roots).
    pub fn with_http_client(
        http: reqwest::Client,
        base_url: &str,
        api_key: Option<&str>,
    ) -> Result<Self, Error> {
        let mut endpoint = Endpoint::new(http, base_url, "chat/completions")?;
        endpoint.api_key("authorization", "Bearer ", api_key)?;
        Ok(Self { endpoint })
    }

    /// A client from the environment: `OPENAI_BASE_URL` (default [`DEFAULT_BASE_URL`]) and
    /// `OPENAI_API_KEY` (required only for the default base URL; local servers rarely want one).
    pub fn from_env() -> Result<Self, Error> {
        let base_url = transport::env_var("OPENAI_BASE_URL");
        let api_key = transport::env_var("OPENAI_API_KEY");
        if base_url.is_none() && api_key.is_none() {
            return Err(Error::Config(format!(
                "OPENAI_API_KEY is not set (needed for {DEFAULT_BASE_URL}); set it, or set OPENAI_BASE_URL to \
                 another OpenAI-compatible server"
            )));
        }
        Self::new(
            base_url.as_deref().unwrap_or(DEFAULT_BASE_URL),
            api_key.as_deref(),
        )
    }

    crate::client_builders!(endpoint, "`OpenAI-Organization`, a gateway's routing key");

    /// The endpoint requests go to, without query string or user info.
    pub fn url(&self) -> &str {
        &self.endpoint.shown
    }

    /// Sends one chat-completions request body (JSON text, e.g. from [`request_body`]).
    pub async fn complete(&self, body: Vec<u8>) -> Result<ChatCompletion, Error> {
        // A 200 carrying `{"error": ...}` is common among compatible servers: say so.
        self.endpoint
            .exchange(body, "a chat completion", |v| {
                v.get("error").map(|err| {
                    err.get("message")
                        .and_then(Value::as_str)
                        .map_or(err.to_string(), str::to_owned)
                })
            })
            .await
    }
}

/// The most tools OpenAI's chat completions take in one request: a longer `tools` array is
/// refused with `array_above_max_length`, whatever the tools' size.
pub const OPENAI_MAX_TOOLS: usize = 128;

/// How a [`run`] behaves. Build with [`Options::default`] and the `with_*` methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The most model requests the loop makes (default [`DEFAULT_MAX_TURNS`]).
    pub max_turns: usize,
    /// Workers for a batch of concurrency-safe calls (default [`DEFAULT_CONCURRENCY`]).
    pub concurrency: usize,
    /// Extra request members passed through unchanged (`temperature`, `tool_choice`,
    /// `parallel_tool_calls`, `max_completion_tokens`, ...). `tool_choice` and
    /// `parallel_tool_calls` are left out of a request that has no tools (servers refuse them).
    pub extra: Map<String, Value>,
    /// Send `"strict": true` with each definition written in the strict dialect (default
    /// `true`; only a session built in [`Dialect::OpenAiStrict`] gives such definitions).
    pub strict: bool,
    /// The most tools one request may carry (default [`OPENAI_MAX_TOOLS`]); `None` for a server
    /// without a limit.
    pub max_tools: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_turns: DEFAULT_MAX_TURNS,
            concurrency: DEFAULT_CONCURRENCY,
            extra: Map::new(),
            strict: true,
            max_tools: Some(OPENAI_MAX_TOOLS),
        }
    }
}

impl Options {
    crate::loop_option_builders!();

    /// Whether definitions in the strict dialect go with `"strict": true` (default `true`).
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The most tools one request may carry (default `Some(`[`OPENAI_MAX_TOOLS`]`)`): a turn
    /// whose session shows more fails with [`Error::Config`] before anything is sent. `None`
    /// for an OpenAI-compatible server that takes any number.
    ///
    /// ```
    /// use charter_adapters::openai::Options;
    ///
    /// let local = Options::default().with_max_tools(None);
    /// assert_eq!(local.max_tools, None);
    /// assert_eq!(Options::default().max_tools, Some(128));
    /// ```
    pub fn with_max_tools(mut self, max_tools: Option<usize>) -> Self {
        self.max_tools = max_tools;
        self
    }

    /// `temperature`.
    pub fn with_temperature(self, temperature: f64) -> Self {
        self.with_extra("temperature", Value::from(temperature))
    }

    /// `tool_choice` (`"auto"`, `"required"`, `"none"`, or a function object).
    pub fn with_tool_choice(self, tool_choice: Value) -> Self {
        self.with_extra("tool_choice", tool_choice)
    }

    fn check(&self) -> Result<(), Error> {
        transport::check_loop_options(
            self.max_turns,
            &self.extra,
            &[("model", None), ("messages", None), ("tools", None)],
        )
    }
}

/// The `tools` array for these entries, as JSON text, schemas copied from their precomputed text;
/// an entry in [`Dialect::OpenAiStrict`] goes with `"strict": true`.
pub fn tools_json(tools: &[ToolEntry<'_>]) -> String {
    let mut buf = Vec::with_capacity(tools_capacity(tools));
    write_tools(&mut buf, tools, true);
    // Every piece written is JSON: the names and descriptions through serde, the schemas as the
    // compact JSON text the tables hold.
    String::from_utf8(buf).unwrap_or_default()
}

fn tools_capacity(tools: &[ToolEntry<'_>]) -> usize {
    tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.schema.len() + 64)
        .sum::<usize>()
        + 2
}

fn write_tools(buf: &mut Vec<u8>, tools: &[ToolEntry<'_>], strict: bool) {
    buf.push(b'[');
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(br#"{"type":"function","function":{"name":"#);
        json::string(buf, tool.name);
        buf.extend_from_slice(br#","description":"#);
        json::string(buf, tool.description);
        buf.extend_from_slice(br#","parameters":"#);
        buf.extend_from_slice(tool.schema.as_bytes());
        if strict && tool.dialect == Dialect::OpenAiStrict {
            buf.extend_from_slice(br#","strict":true"#);
        }
        buf.extend_from_slice(b"}}");
    }
    buf.push(b']');
}

/// The request body for one turn: `model`, `messages`, `tools` (when any; `"strict": true` on
/// strict-dialect definitions), then `extra`.
pub fn request_body(
    model: &str,
    messages: &[ChatMessage],
    tools: &[ToolEntry<'_>],
    extra: &Map<String, Value>,
) -> Vec<u8> {
    write_body(model, messages, tools, true, extra)
}

/// [`request_body`], `"strict": true` only when `strict`.
fn write_body(
    model: &str,
    messages: &[ChatMessage],
    tools: &[ToolEntry<'_>],
    strict: bool,
    extra: &Map<String, Value>,
) -> Vec<u8> {
    let mut body = ObjectWriter::with_capacity(tools_capacity(tools) + 256 * messages.len() + 64);
    body.value("model", model);
    body.value("messages", messages);
    if !tools.is_empty() {
        write_tools(body.key("tools"), tools, strict);
    }
    for (key, value) in extra {
        if tools.is_empty() && (key == "tool_choice" || key == "parallel_tool_calls") {
            continue;
        }
        body.value(key, value);
    }
    body.finish()
}

/// Runs the tool loop: see the [module documentation](self).
///
/// `messages` is copied into the transcript, never modified. Charter errors of a call become its
/// tool result; an [`Error`] means the model server failed (unreachable, non-2xx, not a chat
/// completion) and the run is abandoned.
pub async fn run(
    client: &OpenAiClient,
    model: &str,
    messages: &[ChatMessage],
    session: &ToolSession,
    ctx: &CallContext,
    options: &Options,
) -> Result<RunResult<ChatMessage>, Error> {
    options.check()?;
    if matches!(
        session.dialect(),
        Dialect::Gemini | Dialect::AnthropicStrict
    ) {
        return Err(Error::Config(format!(
            "the session gives its schemas in the `{}` dialect; build it in `openai-strict` \
             (strict definitions) or the portable form for chat completions",
            session.dialect()
        )));
    }
    let mut transcript = messages.to_vec();
    let mut content = String::new();
    for turn in 1..=options.max_turns {
        let body = {
            let tools = session.visible();
            tracing::debug!(turn, tools = tools.len(), "chat-completions request");
            check_tool_count(tools.len(), options.max_tools)?;
            write_body(model, &transcript, &tools, options.strict, &options.extra)
        };
        let completion = client.complete(body).await?;
        let Some(choice) = completion.choices.into_iter().next() else {
            return Err(client.endpoint.decode("the response has no choices"));
        };
        let message = assistant_message(choice.message);
        content = message.text();
        let pending: Vec<Pending> = message
            .tool_calls
            .iter()
            .map(|c| Pending::parse(c.id.clone(), c.function.name.clone(), &c.function.arguments))
            .collect();
        transcript.push(message);
        if pending.is_empty() {
            return Ok(RunResult {
                messages: transcript,
                content,
                turns: turn,
                stop: Stop::End,
            });
        }
        tracing::debug!(turn, calls = pending.len(), "running tool calls");
        for result in bridge::run_batch(session, ctx, pending, options.concurrency).await {
            transcript.push(ChatMessage::tool(result.id, result.content));
        }
    }
    Ok(RunResult {
        messages: transcript,
        content,
        turns: options.max_turns,
        stop: Stop::MaxTurns,
    })
}

/// A request with more tools than the server takes is refused by it after the whole body went
/// out; this says so before, with what would show fewer.
fn check_tool_count(tools: usize, max: Option<usize>) -> Result<(), Error> {
    match max {
        Some(max) if tools > max => Err(Error::Config(format!(
            "the session shows {tools} tools and chat completions take at most {max} in one \
             request: serve them progressively (`SessionOptions::search_and_call` sends two), \
             choose fewer packs or a narrower mode, or lift the limit for a server without it \
             (`Options::with_max_tools(None)`)"
        ))),
        _ => Ok(()),
    }
}

/// The response's message as it goes back on the wire: role `assistant`, without members that
/// are null or only ever part of a response (`annotations`), which some servers refuse in a
/// request.
fn assistant_message(mut message: ChatMessage) -> ChatMessage {
    message.role = Role::Assistant;
    message
        .extra
        .retain(|key, value| !value.is_null() && key != "annotations");
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use charter_runtime::Annotations;

    fn entry<'a>(name: &'a str, schema: &'a str) -> ToolEntry<'a> {
        ToolEntry {
            name,
            description: "say \"hi\"",
            schema,
            tokens: 0,
            annotations: Annotations::default(),
            dialect: Dialect::Mcp,
            output: None,
        }
    }

    #[test]
    fn body_splices_schema_text_verbatim() {
        // Key order and spacing of the schema survive: it is copied, not re-serialised.
        let schema = r#"{"type":"object","properties":{"z":{"type":"string","description":"z"},"a":{"type":"integer","description":"a"}},"required":["z"],"additionalProperties":false}"#;
        let tools = [entry("demo_x", schema)];
        let extra: Map<String, Value> =
            serde_json::from_str(r#"{"temperature":0.5,"tool_choice":"auto"}"#).unwrap();
        let body = String::from_utf8(request_body(
            "m",
            &[ChatMessage::user("hi")],
            &tools,
            &extra,
        ))
        .unwrap();
        assert!(
            body.contains(&format!(r#""parameters":{schema}}}"#)),
            "{body}"
        );
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["model"], "m");
        assert_eq!(
            v["messages"][0],
            serde_json::json!({"role": "user", "content": "hi"})
        );
        assert_eq!(v["tools"][0]["type"], "function");
        assert_eq!(v["tools"][0]["function"]["name"], "demo_x");
        assert_eq!(v["tools"][0]["function"]["description"], "say \"hi\"");
        assert_eq!(v["temperature"], 0.5);
        assert_eq!(v["tool_choice"], "auto");
    }

    #[test]
    fn body_omits_tools_and_tool_choice_when_nothing_is_visible() {
        let extra: Map<String, Value> =
            serde_json::from_str(r#"{"tool_choice":"auto","parallel_tool_calls":true,"seed":1}"#)
                .unwrap();
        let v: Value = serde_json::from_slice(&request_body("m", &[], &[], &extra)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"model": "m", "messages": [], "seed": 1})
        );
    }

    #[test]
    fn reads_assistant_messages_leniently() {
        let m: ChatMessage = serde_json::from_str(
            r#"{"role":"assistant","content":null,"refusal":null,"annotations":[],"reasoning_content":"hmm",
                "tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":{"a":1}}},
                              {"id":"c2","function":{"name":"u","arguments":"{\"b\":2}"}}]}"#,
        )
        .unwrap();
        assert_eq!(m.tool_calls[0].function.arguments, r#"{"a":1}"#);
        assert_eq!(m.tool_calls[1].kind, "function");
        let m = assistant_message(m);
        assert_eq!(m.extra.keys().collect::<Vec<_>>(), ["reasoning_content"]);
        let back = serde_json::to_value(&m).unwrap();
        assert_eq!(back["content"], Value::Null);
        assert_eq!(back["reasoning_content"], "hmm");
        let none: ChatMessage =
            serde_json::from_str(r#"{"role":"assistant","content":"x","tool_calls":null}"#)
                .unwrap();
        assert!(none.tool_calls.is_empty());
        assert_eq!(none.text(), "x");
    }

    #[test]
    fn text_joins_text_parts() {
        let m: ChatMessage = serde_json::from_str(
            r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}"#,
        )
        .unwrap();
        assert_eq!(m.text(), "ab");
    }

    #[test]
    fn options_refuse_members_the_loop_owns() {
        assert!(Options::default().check().is_ok());
        assert!(matches!(
            Options::default().with_max_turns(0).check(),
            Err(Error::Config(_))
        ));
        assert!(matches!(
            Options::default().with_extra("tools", Value::Null).check(),
            Err(Error::Config(_))
        ));
        assert!(matches!(
            Options::default()
                .with_extra("stream", Value::Bool(true))
                .check(),
            Err(Error::Config(_))
        ));
        assert!(
            Options::default()
                .with_extra("stream", Value::Bool(false))
                .check()
                .is_ok()
        );
    }

    #[test]
    fn more_tools_than_the_limit_is_a_configuration_error_naming_both() {
        assert!(check_tool_count(128, Some(OPENAI_MAX_TOOLS)).is_ok());
        assert!(check_tool_count(5000, None).is_ok());
        match check_tool_count(481, Some(OPENAI_MAX_TOOLS)) {
            Err(Error::Config(m)) => {
                assert!(m.contains("481 tools") && m.contains("at most 128"), "{m}");
                assert!(m.contains("search_and_call"), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn client_debug_hides_the_key() {
        let client = OpenAiClient::new("http://127.0.0.1:9/v1", Some("sk-secret-123")).unwrap();
        let debug = format!("{client:?}");
        assert!(!debug.contains("sk-secret-123"), "{debug}");
        assert_eq!(client.url(), "http://127.0.0.1:9/v1/chat/completions");
    }
}
