//! The Anthropic Messages tool loop (docs/design.md §9), with an optional deferred mode.
//!
//! [`run`] sends `POST {base_url}/v1/messages` with `x-api-key` and `anthropic-version`
//! headers. Tools go as `{"name","description","input_schema"}` with `input_schema` copied from
//! the precomputed schema text. An assistant answer's `tool_use` blocks run as one batch through
//! the session ([`ToolSession::execute_tool_calls`]); their results go back in one `user`
//! message of `tool_result` blocks, in the model's order, `is_error: true` on failures.
//!
//! ## Strict tool use ([`Options::with_strict`])
//!
//! Off by default. A session built in Anthropic's strict dialect
//! (`SessionOptions::new().with_dialect(Dialect::AnthropicStrict)`, docs/dialects.md) gives each
//! compiled tool's `anthropic-strict` definition where its view can go strict (decided at build
//! time: a view that reaches a recursive type is given in the portable form); with
//! `with_strict(true)` those go with `"strict": true`, so the API samples their `input` under its
//! grammar. The session's own tools, a toolkit's and the views that cannot go strict go without.
//! Arguments in the dialect's shape (a map as `{key, value}` entries, JSON text for a value of
//! any type) are read back before validation, so the request is the portable form's. The API
//! compiles every strict tool of a request into one grammar and refuses one past a size it does
//! not publish: send few tools strict (a progressive session, or a small table).
//!
//! ## Deferred mode ([`Options::with_deferred`])
//!
//! Progressive disclosure through the API's own deferred loading, so the request prefix (the
//! tool list) never changes and stays cached:
//! - Every tool of the session is sent every turn, in declaration order, with
//!   `"defer_loading": true` — except the tools resident when the run starts and `ToolSearch`,
//!   which are sent as usual (the API refuses a request whose every tool is deferred). The
//!   list is built once per run.
//! - Our `ToolSearch` still runs locally (and loads the tools in the session, so dispatch
//!   accepts their calls), but its `tool_result` content is one
//!   `{"type":"tool_reference","tool_name":...}` block per tool it loaded, which the API expands
//!   into the tool's definition. A search that loaded nothing answers with its text as usual.
//!
//! ## Search-and-call
//!
//! Where the API's deferral is not wanted, a session built with
//! `SessionOptions::search_and_call` works here as in every loop: the tools sent each turn are
//! `ToolSearch` and `CallTool` (one list, so the prefix stays cached), ToolSearch answers with the
//! found tools' schemas and `CallTool` runs them by name through the scheduler. Deferred mode
//! and search-and-call are two answers to one need; asking for both is a configuration error.
//!
//! Wire shapes follow the Messages API reference: the tool parameter's `defer_loading` ("If true,
//! tool will not be included in initial system prompt. Only loaded when returned via
//! tool_reference from tool search.") and the `tool_reference` block (`ToolReferenceBlockParam`:
//! `type: "tool_reference"`, `tool_name`) allowed in `tool_result` content, as used by a custom
//! client-side tool search
//! (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>, "Custom
//! tool search implementation"; `anthropic-sdk-python`,
//! `src/anthropic/types/tool_reference_block_param.py`).

use std::collections::HashSet;

use charter_runtime::CallContext;
use charter_runtime::Dialect;
use charter_runtime::scheduler::{CallResult, ToolCall as BatchCall};
use charter_runtime::session::{TOOL_SEARCH, ToolEntry, ToolSession};
use serde_json::{Map, Value};

use crate::bridge::{self, Pending};
use crate::json::{self, ObjectWriter};
use crate::transport::{self, Endpoint};
use crate::{DEFAULT_CONCURRENCY, DEFAULT_MAX_TURNS, Error, RunResult, Stop};

mod messages;

pub use messages::{ContentBlock, Message, MessageContent, MessagesResponse, ResultBlock, Role};

/// The base URL used when none is given and `ANTHROPIC_BASE_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The `anthropic-version` header sent unless the client says otherwise.
pub const DEFAULT_VERSION: &str = "2023-06-01";

/// The `max_tokens` sent unless the options say otherwise (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A client for the Anthropic Messages API (or a server speaking it).
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    endpoint: Endpoint,
}

impl AnthropicClient {
    /// A client for `base_url` (without `/v1`; default [`DEFAULT_BASE_URL`]) authenticating with
    /// `x-api-key`, sending `anthropic-version: 2023-06-01`.
    pub fn new(base_url: &str, api_key: Option<&str>) -> Result<Self, Error> {
        Self::with_http_client(transport::default_http_client()?, base_url, api_key)
    }

    /// Like [`new`](Self::new) over your own reqwest client.
    pub fn with_http_client(
        http: reqwest::Client,
        base_url: &str,
        api_key: Option<&str>,
    ) -> Result<Self, Error> {
        let mut endpoint = Endpoint::new(http, base_url, "v1/messages")?;
        endpoint.api_key("x-api-key", "", api_key)?;
        endpoint.header("anthropic-version", DEFAULT_VERSION, false)?;
        Ok(Self { endpoint })
    }

    /// A client from the environment: `ANTHROPIC_API_KEY` (required for the default base URL)
    /// and `ANTHROPIC_BASE_URL` (default [`DEFAULT_BASE_URL`]).
    pub fn from_env() -> Result<Self, Error> {
        let base_url = transport::env_var("ANTHROPIC_BASE_URL");
        let api_key = transport::env_var("ANTHROPIC_API_KEY");
        if base_url.is_none() && api_key.is_none() {
            return Err(Error::Config(format!(
                "ANTHROPIC_API_KEY is not set (needed for {DEFAULT_BASE_URL})"
            )));
        }
        Self::new(
            base_url.as_deref().unwrap_or(DEFAULT_BASE_URL),
            api_key.as_deref(),
        )
    }

    /// Sends `anthropic-version: version` instead of [`DEFAULT_VERSION`].
    pub fn with_version(self, version: &str) -> Result<Self, Error> {
        self.with_header("anthropic-version", version)
    }

    crate::client_builders!(endpoint, "`anthropic-beta`, a gateway's routing key");

    /// The endpoint requests go to, without query string or user info.
    pub fn url(&self) -> &str {
        &self.endpoint.shown
    }

    /// Sends one Messages request body (JSON text).
    pub async fn send(&self, body: Vec<u8>) -> Result<MessagesResponse, Error> {
        self.endpoint
            .exchange(body, "a Messages response", |v| {
                (v.get("type").and_then(Value::as_str) == Some("error")).then(|| {
                    v.pointer("/error/message")
                        .and_then(Value::as_str)
                        .map_or(v.to_string(), str::to_owned)
                })
            })
            .await
    }
}

/// How a [`run`] behaves. Build with [`Options::default`] and the `with_*` methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The most model requests the loop makes (default [`DEFAULT_MAX_TURNS`]).
    pub max_turns: usize,
    /// Workers for a batch of concurrency-safe calls (default [`DEFAULT_CONCURRENCY`]).
    pub concurrency: usize,
    /// `max_tokens` per request (default [`DEFAULT_MAX_TOKENS`]).
    pub max_tokens: u32,
    /// The `system` prompt.
    pub system: Option<String>,
    /// Use the API's deferred loading (see the [module documentation](self)).
    pub deferred: bool,
    /// Extra request members passed through unchanged (`temperature`, `tool_choice`,
    /// `metadata`, `thinking`, ...). `tool_choice` is left out of a request without tools.
    pub extra: Map<String, Value>,
    /// Send `"strict": true` with each definition written in Anthropic's strict dialect
    /// (default `false`; only a session built in [`Dialect::AnthropicStrict`] gives them).
    pub strict: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_turns: DEFAULT_MAX_TURNS,
            concurrency: DEFAULT_CONCURRENCY,
            max_tokens: DEFAULT_MAX_TOKENS,
            system: None,
            deferred: false,
            extra: Map::new(),
            strict: false,
        }
    }
}

impl Options {
    crate::loop_option_builders!();

    /// `max_tokens` per request.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// The `system` prompt.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Progressive disclosure through the API's deferred loading.
    pub fn with_deferred(mut self, deferred: bool) -> Self {
        self.deferred = deferred;
        self
    }

    /// Strict tool use: definitions in Anthropic's strict dialect go with `"strict": true`
    /// (default `false`; the session must be built in [`Dialect::AnthropicStrict`]).
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    fn check(&self) -> Result<(), Error> {
        transport::check_loop_options(
            self.max_turns,
            &self.extra,
            &[
                ("model", Some("the model argument")),
                ("messages", Some("the messages argument")),
                ("tools", Some("the session")),
                ("max_tokens", Some("Options::with_max_tokens")),
                ("system", Some("Options::with_system")),
            ],
        )
    }
}

/// One tool as the loop sends it.
#[derive(Debug, Clone)]
struct WireTool<'s> {
    entry: ToolEntry<'s>,
    deferred: bool,
}

/// `strict`: definitions in [`Dialect::AnthropicStrict`] go with `"strict": true`.
fn write_tools(buf: &mut Vec<u8>, tools: &[WireTool<'_>], strict: bool) {
    buf.push(b'[');
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(br#"{"name":"#);
        json::string(buf, tool.entry.name);
        buf.extend_from_slice(br#","description":"#);
        json::string(buf, tool.entry.description);
        buf.extend_from_slice(br#","input_schema":"#);
        buf.extend_from_slice(tool.entry.schema.as_bytes());
        if strict && tool.entry.dialect == Dialect::AnthropicStrict {
            buf.extend_from_slice(br#","strict":true"#);
        }
        if tool.deferred {
            buf.extend_from_slice(br#","defer_loading":true"#);
        }
        buf.push(b'}');
    }
    buf.push(b']');
}

/// The `tools` array for these entries (none deferred), as JSON text, schemas copied from their
/// precomputed text; an entry in [`Dialect::AnthropicStrict`] goes with `"strict": true`.
pub fn tools_json(tools: &[ToolEntry<'_>]) -> String {
    let wire: Vec<WireTool<'_>> = tools
        .iter()
        .map(|entry| WireTool {
            entry: entry.clone(),
            deferred: false,
        })
        .collect();
    let mut buf = Vec::new();
    write_tools(&mut buf, &wire, true);
    String::from_utf8(buf).unwrap_or_default()
}

/// The deferred mode's fixed tool list and the names sent with `defer_loading`.
struct Deferred<'s> {
    tools: Vec<WireTool<'s>>,
    names: HashSet<&'s str>,
}

/// The deferred-mode tool list: resident tools and ToolSearch as usual, every deferred tool of
/// the session with `defer_loading`, in declaration order. `None` when the session offers no
/// ToolSearch (nothing to defer): the loop then sends the visible tools as usual.
fn deferred_tools(session: &ToolSession) -> Option<Deferred<'_>> {
    let search = session.tool_search()?;
    let names: HashSet<&str> = session.deferred().into_iter().collect();
    let all = session.all();
    let mut tools: Vec<WireTool<'_>> = Vec::with_capacity(all.len() + 1);
    tools.extend(
        all.iter()
            .filter(|t| !names.contains(t.name))
            .map(|entry| WireTool {
                entry: entry.clone(),
                deferred: false,
            }),
    );
    tools.push(WireTool {
        entry: search,
        deferred: false,
    });
    tools.extend(
        all.iter()
            .filter(|t| names.contains(t.name))
            .map(|entry| WireTool {
                entry: entry.clone(),
                deferred: true,
            }),
    );
    Some(Deferred { tools, names })
}

fn request_body(
    model: &str,
    messages: &[Message],
    tools: &[WireTool<'_>],
    options: &Options,
) -> Vec<u8> {
    let tools_len: usize = tools
        .iter()
        .map(|t| t.entry.schema.len() + t.entry.description.len() + 64)
        .sum();
    let mut body = ObjectWriter::with_capacity(tools_len + 256 * messages.len() + 128);
    body.value("model", model);
    body.value("max_tokens", &options.max_tokens);
    if let Some(system) = &options.system {
        body.value("system", system);
    }
    body.value("messages", messages);
    if !tools.is_empty() {
        write_tools(body.key("tools"), tools, options.strict);
    }
    for (key, value) in &options.extra {
        if tools.is_empty() && key == "tool_choice" {
            continue;
        }
        body.value(key, value);
    }
    body.finish()
}

/// The names a ToolSearch answer loaded, read from its JSON.
fn loaded_names(result: &CallResult) -> Vec<String> {
    let parsed;
    let value = match &result.structured {
        Some(value) => value,
        None => match serde_json::from_str::<Value>(&result.content) {
            Ok(value) => {
                parsed = value;
                &parsed
            }
            Err(_) => return Vec::new(),
        },
    };
    value
        .get("loaded")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The `tool_result` block for one answer. In deferred mode a ToolSearch answer becomes one
/// `tool_reference` per tool it loaded that the request sends deferred (resident tools are in
/// the prompt already); an answer that references nothing keeps its text.
fn result_block(
    call: &BatchCall,
    result: CallResult,
    deferred: Option<&Deferred<'_>>,
) -> ContentBlock {
    if let Some(deferred) = deferred
        && call.name == TOOL_SEARCH
        && !result.is_error
    {
        let names: Vec<String> = loaded_names(&result)
            .into_iter()
            .filter(|n| deferred.names.contains(n.as_str()))
            .collect();
        if !names.is_empty() {
            return ContentBlock::ToolResult {
                tool_use_id: result.id,
                content: names.into_iter().map(ResultBlock::ToolReference).collect(),
                is_error: false,
            };
        }
    }
    ContentBlock::ToolResult {
        tool_use_id: result.id,
        content: vec![ResultBlock::Text(result.content)],
        is_error: result.is_error,
    }
}

/// Runs the tool loop: see the [module documentation](self).
///
/// `messages` is copied into the transcript, never modified. Charter errors of a call become its
/// `tool_result` (`is_error: true`); an [`Error`] means the model server failed.
pub async fn run(
    client: &AnthropicClient,
    model: &str,
    messages: &[Message],
    session: &ToolSession,
    ctx: &CallContext,
    options: &Options,
) -> Result<RunResult<Message>, Error> {
    options.check()?;
    let dialect = session.dialect();
    if !dialect.is_portable() && dialect != Dialect::AnthropicStrict {
        return Err(Error::Config(format!(
            "the session gives its schemas in the `{dialect}` dialect; the Messages API takes \
             the portable form or its strict dialect (build the session in `anthropic`, \
             `anthropic-strict`, `openai` or `mcp`)"
        )));
    }
    if options.strict && dialect != Dialect::AnthropicStrict {
        return Err(Error::Config(format!(
            "strict tool use needs the definitions in Anthropic's strict dialect, but the \
             session gives them in `{dialect}`: build it with \
             `SessionOptions::new().with_dialect(Dialect::AnthropicStrict)`"
        )));
    }
    if options.deferred && session.disclosure().calls_any() {
        return Err(Error::Config(
            "deferred mode and a search-and-call or code-mode session answer the same need \
             twice: the API expands deferred tools itself, so build the session in another \
             form, or run without deferred"
                .into(),
        ));
    }
    let fixed = if options.deferred {
        deferred_tools(session)
    } else {
        None
    };
    let mut transcript = messages.to_vec();
    let mut content = String::new();
    for turn in 1..=options.max_turns {
        let body = match &fixed {
            Some(deferred) => request_body(model, &transcript, &deferred.tools, options),
            None => {
                let visible = session.visible();
                let tools: Vec<WireTool<'_>> = visible
                    .into_iter()
                    .map(|entry| WireTool {
                        entry,
                        deferred: false,
                    })
                    .collect();
                request_body(model, &transcript, &tools, options)
            }
        };
        tracing::debug!(turn, deferred = fixed.is_some(), "messages request");
        let response = client.send(body).await?;
        let calls: Vec<BatchCall> = response
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse {
                    id, name, input, ..
                } => Some(BatchCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: input.clone(),
                }),
                _ => None,
            })
            .collect();
        let message = Message {
            role: Role::Assistant,
            content: MessageContent::Blocks(response.content),
        };
        content = message.text();
        transcript.push(message);
        if calls.is_empty() {
            return Ok(RunResult {
                messages: transcript,
                content,
                turns: turn,
                stop: Stop::End,
            });
        }
        tracing::debug!(turn, calls = calls.len(), stop_reason = ?response.stop_reason, "running tool calls");
        let pending = calls.iter().cloned().map(Pending::Call).collect();
        let results = bridge::run_batch(session, ctx, pending, options.concurrency).await;
        let blocks = calls
            .iter()
            .zip(results)
            .map(|(call, result)| result_block(call, result, fixed.as_ref()))
            .collect();
        transcript.push(Message {
            role: Role::User,
            content: MessageContent::Blocks(blocks),
        });
    }
    Ok(RunResult {
        messages: transcript,
        content,
        turns: options.max_turns,
        stop: Stop::MaxTurns,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn blocks_round_trip_and_keep_unknown_members() {
        let wire = json!([
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "text", "text": "hi", "citations": []},
            {"type": "tool_use", "id": "t1", "name": "demo_x", "input": {"a": 1}, "caller": {"type": "direct"}},
            {"type": "tool_result", "tool_use_id": "t1", "content": "plain", "is_error": true},
            {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "tool_reference", "tool_name": "demo_x"}]}
        ]);
        let blocks: Vec<ContentBlock> = serde_json::from_value(wire.clone()).unwrap();
        assert!(matches!(&blocks[0], ContentBlock::Other(_)));
        assert!(matches!(&blocks[2], ContentBlock::ToolUse { name, .. } if name == "demo_x"));
        assert!(
            matches!(&blocks[3], ContentBlock::ToolResult { is_error: true, content, .. } if content == &[ResultBlock::Text("plain".into())])
        );
        assert!(
            matches!(&blocks[4], ContentBlock::ToolResult { content, .. } if content == &[ResultBlock::ToolReference("demo_x".into())])
        );
        let back = serde_json::to_value(&blocks).unwrap();
        assert_eq!(back[0], wire[0]);
        assert_eq!(back[1], wire[1]);
        assert_eq!(back[2], wire[2]);
        assert_eq!(
            back[3],
            json!({"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "plain"}], "is_error": true})
        );
        assert_eq!(back[4], wire[4]);
    }

    #[test]
    fn malformed_blocks_are_refused_with_the_reason() {
        let err = serde_json::from_value::<ContentBlock>(json!({"type": "tool_use", "id": 3}))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("`tool_use` block needs a string `id`"),
            "{err}"
        );
    }

    #[test]
    fn loaded_names_reads_structured_or_text() {
        let mut r = CallResult {
            id: "c".into(),
            content: r#"{"loaded":["a_b"]}"#.into(),
            structured: None,
            is_error: false,
        };
        assert_eq!(loaded_names(&r), ["a_b"]);
        r.structured = Some(json!({"loaded": ["x_y", "x_z"]}));
        assert_eq!(loaded_names(&r), ["x_y", "x_z"]);
        r.structured = None;
        r.content = "no json".into();
        assert!(loaded_names(&r).is_empty());
    }

    #[test]
    fn options_refuse_members_the_loop_owns() {
        assert!(Options::default().check().is_ok());
        assert!(matches!(
            Options::default().with_extra("system", json!("x")).check(),
            Err(Error::Config(_))
        ));
        assert!(matches!(
            Options::default()
                .with_extra("max_tokens", json!(1))
                .check(),
            Err(Error::Config(_))
        ));
    }
}
