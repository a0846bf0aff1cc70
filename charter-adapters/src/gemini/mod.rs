//! The Gemini API function-calling loop (docs/design.md §9).
//!
//! [`run`] sends `POST {base_url}/v1beta/models/{model}:generateContent` turn after turn, the API
//! key in the `x-goog-api-key` header (never in the URL). The session must be built in Gemini's
//! dialect (`SessionOptions::new().with_dialect(Dialect::Gemini)`, docs/dialects.md): every schema
//! it gives, declarations and ToolSearch answers alike, is then in the `Schema` subset the API
//! takes, and arguments in that dialect's shape are read back before validation. Tools go as one
//! `{"functionDeclarations": [{name, description, parameters}, ...]}` entry whose `parameters` is
//! the precomputed schema text copied into the body; a tool without parameters is declared without
//! `parameters` (the API refuses an `OBJECT` with no properties); `tools` is left out when nothing
//! is visible. The model's `functionCall` parts of one turn run as one batch through the session
//! ([`ToolSession::execute_tool_calls`]), and one `user` content follows with a `functionResponse`
//! part per call, in the model's order, carrying the call's `id` when it had one: `{"output": ...}`
//! on success, `{"error": "..."}` for a charter error (the keys the API reads as a function's
//! output and its error details).
//!
//! The same session forms work as in the other loops: a progressive session grows the list as
//! ToolSearch loads tools; search-and-call and code mode send the same two tools every turn.
//! The model's content goes back exactly as it came, `thoughtSignature` and all (thinking models
//! refuse a conversation whose function-call parts lost their signatures).
//!
//! An answer with no candidate (the prompt was blocked), or whose finish reason is not `STOP` or
//! `MAX_TOKENS` (`SAFETY`, `RECITATION`, `MALFORMED_FUNCTION_CALL`, ...), is an
//! [`Error::Refused`] naming the reason; a non-2xx is an [`Error::Status`] with the API's own
//! message (`INVALID_ARGUMENT: ...`).
//!
//! Wire shapes follow the Gemini API reference (`models.generateContent`: `Content`, `Part`,
//! `FunctionCall`, `FunctionResponse`, `FunctionDeclaration`, `Candidate.finishReason`,
//! `PromptFeedback.blockReason`).
//!
//! ```no_run
//! # async fn demo(session: &charter_runtime::ToolSession) -> Result<(), charter_adapters::Error> {
//! use charter_adapters::gemini::{self, Content, GeminiClient, Options};
//!
//! let client = GeminiClient::from_env()?; // GEMINI_API_KEY, GEMINI_BASE_URL
//! let contents = [Content::user("What is on my calendar tomorrow?")];
//! let ctx = charter_runtime::CallContext::new();
//! let result = gemini::run(&client, "gemini-2.5-flash", &contents, session, &ctx, &Options::default()).await?;
//! println!("{} ({} turns, {})", result.content, result.turns, result.stop);
//! # Ok(()) }
//! ```

use charter_runtime::CallContext;
use charter_runtime::Dialect;
use charter_runtime::scheduler::{CallResult, ToolCall as BatchCall};
use charter_runtime::session::{ToolEntry, ToolSession};
use serde_json::{Map, Value, json};

use crate::bridge::{self, Pending};
use crate::json::{self, ObjectWriter};
use crate::transport::{self, Endpoint};
use crate::{DEFAULT_CONCURRENCY, DEFAULT_MAX_TURNS, Error, RunResult, Stop};

mod contents;

pub use contents::{
    Candidate, CandidateContent, Content, FunctionCall, FunctionResponse, GenerateContentResponse,
    Part, Role,
};

/// The base URL used when none is given and `GEMINI_BASE_URL` is unset.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// The API version in the request path.
pub const API_VERSION: &str = "v1beta";

/// A client for the Gemini API (or a server speaking it).
#[derive(Debug, Clone)]
pub struct GeminiClient {
    /// `{base}/v1beta/models`: a run appends `{model}:generateContent`.
    models: Endpoint,
}

impl GeminiClient {
    /// A client for `base_url` (without the version; default [`DEFAULT_BASE_URL`]) sending the
    /// key as `x-goog-api-key`.
    pub fn new(base_url: &str, api_key: Option<&str>) -> Result<Self, Error> {
        Self::with_http_client(transport::default_http_client()?, base_url, api_key)
    }

    /// Like [`new`](Self::new) over your own reqwest client.
    pub fn with_http_client(
        http: reqwest::Client,
        base_url: &str,
        api_key: Option<&str>,
    ) -> Result<Self, Error> {
        let mut models = Endpoint::new(http, base_url, &format!("{API_VERSION}/models"))?;
        models.api_key("x-goog-api-key", "", api_key)?;
        Ok(Self { models })
    }

    /// A client from the environment: `GEMINI_API_KEY` (or `GOOGLE_API_KEY`; required for the
    /// default base URL) and `GEMINI_BASE_URL` (default [`DEFAULT_BASE_URL`]).
    pub fn from_env() -> Result<Self, Error> {
        let base_url = transport::env_var("GEMINI_BASE_URL");
        let api_key =
            transport::env_var("GEMINI_API_KEY").or_else(|| transport::env_var("GOOGLE_API_KEY"));
        if base_url.is_none() && api_key.is_none() {
            return Err(Error::Config(format!(
                "GEMINI_API_KEY is not set (needed for {DEFAULT_BASE_URL})"
            )));
        }
        Self::new(
            base_url.as_deref().unwrap_or(DEFAULT_BASE_URL),
            api_key.as_deref(),
        )
    }

    crate::client_builders!(models, "`x-goog-user-project`, a gateway's routing key");

    /// The endpoint `model`'s requests go to, without query string or user info.
    pub fn url(&self, model: &str) -> Result<String, Error> {
        Ok(self.endpoint(model)?.shown)
    }

    /// `{base}/v1beta/models/{model}:generateContent`; `model` may carry the API's `models/`
    /// prefix, and must otherwise be a plain name (a path, query or space in it is refused rather
    /// than sent somewhere else).
    fn endpoint(&self, model: &str) -> Result<Endpoint, Error> {
        let name = model.trim();
        let name = name.strip_prefix("models/").unwrap_or(name);
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !plain {
            return Err(Error::Config(format!(
                "`{model}` is not a Gemini model name (letters, digits, `-`, `_` and `.`, e.g. `gemini-2.5-flash`)"
            )));
        }
        self.models.join(&format!("{name}:generateContent"))
    }

    /// Sends one `generateContent` request body (JSON text) for `model`.
    pub async fn generate(
        &self,
        model: &str,
        body: Vec<u8>,
    ) -> Result<GenerateContentResponse, Error> {
        exchange(&self.endpoint(model)?, body).await
    }
}

async fn exchange(endpoint: &Endpoint, body: Vec<u8>) -> Result<GenerateContentResponse, Error> {
    endpoint
        .exchange(body, "a generateContent response", api_error)
        .await
}

/// The API's error object, `{"error": {"code", "message", "status"}}`, as `STATUS: message`.
fn api_error(value: &Value) -> Option<String> {
    let error = value.get("error")?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    Some(match error.get("status").and_then(Value::as_str) {
        Some(status) => format!("{status}: {message}"),
        None => message,
    })
}

/// How a [`run`] behaves. Build with [`Options::default`] and the `with_*` methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The most model requests the loop makes (default [`DEFAULT_MAX_TURNS`]).
    pub max_turns: usize,
    /// Workers for a batch of concurrency-safe calls (default [`DEFAULT_CONCURRENCY`]).
    pub concurrency: usize,
    /// The `systemInstruction`, sent as one text part.
    pub system: Option<String>,
    /// Extra request members passed through unchanged (`generationConfig`, `toolConfig`,
    /// `safetySettings`, `cachedContent`, ...). `toolConfig` is left out of a request without
    /// tools (the API refuses it there).
    pub extra: Map<String, Value>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_turns: DEFAULT_MAX_TURNS,
            concurrency: DEFAULT_CONCURRENCY,
            system: None,
            extra: Map::new(),
        }
    }
}

impl Options {
    crate::loop_option_builders!();

    /// The `systemInstruction`.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// `generationConfig` (`temperature`, `maxOutputTokens`, `thinkingConfig`, ...).
    pub fn with_generation_config(self, config: Value) -> Self {
        self.with_extra("generationConfig", config)
    }

    /// `toolConfig` (`{"functionCallingConfig": {"mode": "ANY"}}`, ...).
    pub fn with_tool_config(self, config: Value) -> Self {
        self.with_extra("toolConfig", config)
    }

    fn check(&self) -> Result<(), Error> {
        transport::check_loop_options(
            self.max_turns,
            &self.extra,
            &[
                ("contents", Some("the contents argument")),
                ("tools", Some("the session")),
                ("systemInstruction", Some("Options::with_system")),
            ],
        )
    }
}

/// Whether the schema declares no parameter at all (the emitter's canonical text for an empty
/// object): the declaration then has no `parameters`.
fn no_parameters(schema: &str) -> bool {
    schema.starts_with(r#"{"type":"object","properties":{}"#)
}

fn write_tools(buf: &mut Vec<u8>, tools: &[ToolEntry<'_>]) {
    buf.extend_from_slice(br#"[{"functionDeclarations":["#);
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(br#"{"name":"#);
        json::string(buf, tool.name);
        buf.extend_from_slice(br#","description":"#);
        json::string(buf, tool.description);
        let schema = tool.schema;
        if !no_parameters(schema) {
            buf.extend_from_slice(br#","parameters":"#);
            buf.extend_from_slice(schema.as_bytes());
        }
        buf.push(b'}');
    }
    buf.extend_from_slice(b"]}]");
}

/// The `tools` array for these entries, as JSON text, schemas copied from their precomputed text.
pub fn tools_json(tools: &[ToolEntry<'_>]) -> String {
    let mut buf = Vec::new();
    write_tools(&mut buf, tools);
    String::from_utf8(buf).unwrap_or_default()
}

/// The request body for one turn: `contents`, `systemInstruction`, `tools` (when any), `extra`.
pub fn request_body(
    contents: &[Content],
    tools: &[ToolEntry<'_>],
    system: Option<&str>,
    extra: &Map<String, Value>,
) -> Vec<u8> {
    let tools_len: usize = tools
        .iter()
        .map(|t| t.schema.len() + t.description.len() + 48)
        .sum();
    let mut body = ObjectWriter::with_capacity(tools_len + 256 * contents.len() + 128);
    body.value("contents", contents);
    if let Some(system) = system {
        body.value("systemInstruction", &json!({"parts": [{"text": system}]}));
    }
    if !tools.is_empty() {
        write_tools(body.key("tools"), tools);
    }
    for (key, value) in extra {
        if tools.is_empty() && key == "toolConfig" {
            continue;
        }
        body.value(key, value);
    }
    body.finish()
}

/// The model's content of one answer, or why there is none to go on with.
fn answer(endpoint: &Endpoint, response: GenerateContentResponse) -> Result<Vec<Part>, Error> {
    let Some(candidate) = response.candidates.into_iter().next() else {
        let reason = response
            .prompt_feedback
            .as_ref()
            .and_then(|f| f.get("blockReason"))
            .and_then(Value::as_str);
        return Err(match reason {
            Some(reason) => Error::Refused {
                url: endpoint.shown.clone(),
                reason: reason.to_owned(),
                detail: "the prompt was blocked".into(),
            },
            None => endpoint.decode("the response has no candidates"),
        });
    };
    let reason = candidate.finish_reason.as_deref();
    let parts = candidate.content.map(|c| c.parts).unwrap_or_default();
    if !contents::usable_finish(reason) || parts.is_empty() {
        return Err(Error::Refused {
            url: endpoint.shown.clone(),
            reason: reason.unwrap_or("no finish reason").to_owned(),
            detail: candidate
                .finish_message
                .unwrap_or_else(|| "the candidate has no content".into()),
        });
    }
    Ok(parts)
}

/// The batch for the model's function calls: its own ids, or `call_{turn}_{n}` where it gave none.
fn batch_calls(turn: usize, parts: &[Part]) -> Vec<BatchCall> {
    parts
        .iter()
        .filter_map(|p| p.function_call.as_ref())
        .enumerate()
        .map(|(n, call)| BatchCall {
            id: call
                .id
                .clone()
                .unwrap_or_else(|| format!("call_{turn}_{n}")),
            name: call.name.clone(),
            arguments: call.args.clone().unwrap_or_else(|| json!({})),
        })
        .collect()
}

/// The `functionResponse` part answering one call.
fn response_part(call: &FunctionCall, result: CallResult) -> Part {
    let response = if result.is_error {
        json!({ "error": result.content })
    } else {
        json!({ "output": result.structured.unwrap_or(Value::String(result.content)) })
    };
    Part {
        function_response: Some(FunctionResponse {
            id: call.id.clone(),
            name: call.name.clone(),
            response,
        }),
        ..Part::default()
    }
}

/// Runs the tool loop: see the [module documentation](self).
///
/// `contents` is copied into the transcript, never modified. Charter errors of a call become its
/// `functionResponse` (`{"error": ...}`); an [`Error`] means the model server failed or gave no
/// usable answer.
pub async fn run(
    client: &GeminiClient,
    model: &str,
    contents: &[Content],
    session: &ToolSession,
    ctx: &CallContext,
    options: &Options,
) -> Result<RunResult<Content>, Error> {
    options.check()?;
    if session.dialect() != Dialect::Gemini {
        return Err(Error::Config(format!(
            "the session gives its schemas in the `{}` dialect; build it with \
             `SessionOptions::new().with_dialect(Dialect::Gemini)` so that every declaration \
             and ToolSearch answer is in the subset the Gemini API takes",
            session.dialect()
        )));
    }
    let endpoint = client.endpoint(model)?;
    let mut transcript = contents.to_vec();
    let mut content = String::new();
    for turn in 1..=options.max_turns {
        let body = {
            let tools = session.visible();
            tracing::debug!(turn, tools = tools.len(), "generateContent request");
            request_body(
                &transcript,
                &tools,
                options.system.as_deref(),
                &options.extra,
            )
        };
        let parts = answer(&endpoint, exchange(&endpoint, body).await?)?;
        let message = Content {
            role: Role::Model,
            parts,
        };
        content = message.text();
        let calls = batch_calls(turn, &message.parts);
        if calls.is_empty() {
            transcript.push(message);
            return Ok(RunResult {
                messages: transcript,
                content,
                turns: turn,
                stop: Stop::End,
            });
        }
        tracing::debug!(turn, calls = calls.len(), "running function calls");
        let pending = calls.into_iter().map(Pending::Call).collect();
        let results = bridge::run_batch(session, ctx, pending, options.concurrency).await;
        let parts = message
            .function_calls()
            .zip(results)
            .map(|(call, result)| response_part(call, result))
            .collect();
        transcript.push(message);
        transcript.push(Content {
            role: Role::User,
            parts,
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
    use super::*;
    use charter_runtime::Annotations;

    fn entry<'a>(name: &'a str, schema: &'a str) -> ToolEntry<'a> {
        ToolEntry {
            name,
            description: "say \"hi\"",
            schema,
            tokens: 0,
            annotations: Annotations::default(),
            dialect: Dialect::Gemini,
            output: None,
        }
    }

    #[test]
    fn body_splices_schema_text_and_leaves_out_empty_parameters() {
        let schema = r#"{"type":"object","properties":{"z":{"type":"string","description":"z"}},"required":["z"],"additionalProperties":false}"#;
        let empty = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
        let tools = [entry("demo_x", schema), entry("demo_now", empty)];
        let extra: Map<String, Value> = serde_json::from_str(
            r#"{"generationConfig":{"temperature":0.5},"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}"#,
        )
        .unwrap();
        let body = String::from_utf8(request_body(
            &[Content::user("hi")],
            &tools,
            Some("be brief"),
            &extra,
        ))
        .unwrap();
        assert!(
            body.contains(&format!(r#""parameters":{schema}}}"#)),
            "{body}"
        );
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v["contents"],
            json!([{"role": "user", "parts": [{"text": "hi"}]}])
        );
        assert_eq!(
            v["systemInstruction"],
            json!({"parts": [{"text": "be brief"}]})
        );
        let declarations = &v["tools"][0]["functionDeclarations"];
        assert_eq!(declarations[0]["name"], "demo_x");
        assert_eq!(
            declarations[1],
            json!({"name": "demo_now", "description": "say \"hi\""})
        );
        assert_eq!(v["generationConfig"]["temperature"], 0.5);
        assert_eq!(v["toolConfig"]["functionCallingConfig"]["mode"], "AUTO");

        let v: Value = serde_json::from_slice(&request_body(&[], &[], None, &extra)).unwrap();
        assert_eq!(
            v,
            json!({"contents": [], "generationConfig": {"temperature": 0.5}}),
            "no tools, so no toolConfig"
        );
    }

    #[test]
    fn model_names_are_checked_and_the_key_stays_hidden() {
        let client = GeminiClient::new("http://127.0.0.1:9/", Some("AIza-secret-123")).unwrap();
        assert_eq!(
            client.url("models/gemini-2.5-flash").unwrap(),
            "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:generateContent"
        );
        for bad in ["", "a/b", "x?key=1", "gemini flash", "../v1/other"] {
            assert!(
                matches!(client.url(bad), Err(Error::Config(_))),
                "{bad:?} accepted"
            );
        }
        assert!(!format!("{client:?}").contains("AIza-secret-123"));
    }

    #[test]
    fn api_errors_read_status_and_message() {
        let v = json!({"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}});
        assert_eq!(
            api_error(&v).unwrap(),
            "INVALID_ARGUMENT: API key not valid."
        );
        assert_eq!(api_error(&json!({"error": "x"})).unwrap(), "\"x\"");
        assert_eq!(api_error(&json!({"candidates": []})), None);
    }

    #[test]
    fn calls_without_ids_get_ids_of_their_own() {
        let parts: Vec<Part> = serde_json::from_value(json!([
            {"text": "ok"},
            {"functionCall": {"name": "a", "args": {"x": 1}}},
            {"functionCall": {"id": "given", "name": "b"}}
        ]))
        .unwrap();
        let calls = batch_calls(3, &parts);
        assert_eq!(calls[0].id, "call_3_0");
        assert_eq!(calls[0].arguments, json!({"x": 1}));
        assert_eq!(calls[1].id, "given");
        assert_eq!(calls[1].arguments, json!({}));
    }

    #[test]
    fn options_refuse_members_the_loop_owns() {
        assert!(Options::default().check().is_ok());
        for key in ["contents", "tools", "systemInstruction"] {
            assert!(matches!(
                Options::default().with_extra(key, json!(1)).check(),
                Err(Error::Config(_))
            ));
        }
    }
}
