//! OpenTelemetry traces and metrics of every MCP request a server answers, after the
//! OpenTelemetry semantic conventions for MCP and GenAI tools.
//!
//! One SERVER span per request, named `{mcp.method.name} {target}` (`tools/call github_issues_get`,
//! `tools/list`), a child of the trace context the client sent in `params._meta`
//! (`traceparent`, `tracestate`) when it sent one, with `mcp.method.name`, `jsonrpc.request.id`,
//! `mcp.session.id` (a digest of it: the id grants the session), `mcp.protocol.version`,
//! `network.transport`, and for tool calls `gen_ai.tool.name`, `gen_ai.operation.name =
//! execute_tool` and `error.type` (`tool_error` for a result with `isError`, the JSON-RPC code
//! otherwise); the duration goes to the histogram `mcp.server.operation.duration` (seconds), the
//! sizes of arguments and answers to `charter.mcp.request.size` / `charter.mcp.response.size`
//! (bytes, charter's own names: the conventions have none yet).
//!
//! Arguments and results are recorded (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`)
//! only with [`TelemetryOptions::record_content`]. Credentials never reach a span: they are
//! resolved inside the call, from the environment, and are not part of a request or an answer.
//!
//! Without [`enable`] (no OTLP endpoint configured), nothing is measured, built or sent: the
//! wrapper hands each request straight to the handler. The exporter itself (SDK, OTLP over
//! HTTP) is set up by the program, which installs the global tracer and meter providers and the
//! W3C trace-context propagator before calling [`enable`].

use std::borrow::Cow;
use std::sync::OnceLock;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::global::{self, BoxedSpan, BoxedTracer};
use opentelemetry::metrics::Histogram;
use opentelemetry::propagation::Extractor;
use opentelemetry::trace::{Span, SpanKind, Status, Tracer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, DiscoverResult, InitializeRequestParams,
    InitializeResult, JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProtocolVersion, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

/// What telemetry records beyond the defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct TelemetryOptions {
    /// Record tool arguments and results on the spans (off by default: they may hold personal
    /// data the API returned).
    pub record_content: bool,
}

struct Instruments {
    tracer: BoxedTracer,
    duration: Histogram<f64>,
    request_size: Histogram<u64>,
    response_size: Histogram<u64>,
    options: TelemetryOptions,
}

static ENABLED: OnceLock<Instruments> = OnceLock::new();

/// Turns telemetry on for every server of this process, with the global providers installed
/// now. Call once, before serving; later calls are ignored.
pub fn enable(options: TelemetryOptions) {
    let meter = global::meter("charter-mcp");
    let _ = ENABLED.set(Instruments {
        tracer: global::tracer("charter-mcp"),
        duration: meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("MCP request duration as observed on the server")
            .build(),
        request_size: meter
            .u64_histogram("charter.mcp.request.size")
            .with_unit("By")
            .with_description("size of a tool call's arguments, as JSON")
            .build(),
        response_size: meter
            .u64_histogram("charter.mcp.response.size")
            .with_unit("By")
            .with_description("size of an MCP answer, as JSON")
            .build(),
        options,
    });
}

/// A connection's handler with a span and measurements around each request it answers
/// (`initialize`, `server/discover`, `ping`, `tools/list`, `tools/call`: what charter serves).
pub(crate) struct Traced<H> {
    inner: H,
    transport: &'static str,
}

impl<H> Traced<H> {
    /// `transport` is the `network.transport` value: `tcp` (HTTP) or `pipe` (stdio).
    pub(crate) fn new(inner: H, transport: &'static str) -> Self {
        Self { inner, transport }
    }
}

/// Reads `traceparent` / `tracestate` from a request's `_meta`.
struct MetaCarrier<'a>(&'a MetaObject);

impl Extractor for MetaCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.as_str())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// The session id's digest: enough to group a session's spans, useless to take it over (the
/// same digest the logs carry, `redact.rs`).
fn session_digest(id: &str) -> String {
    super::redact::digest(id)
}

fn json_len<T: serde::Serialize>(value: &T) -> u64 {
    serde_json::to_vec(value).map_or(0, |v| v.len() as u64)
}

/// One request being measured.
struct Measure {
    tel: &'static Instruments,
    span: BoxedSpan,
    started: Instant,
    metric_attributes: Vec<KeyValue>,
}

impl<H> Traced<H> {
    /// Starts the span of a request (`None` when telemetry is off); `tool` is a call's name and
    /// arguments.
    fn start(
        &self,
        method: &str,
        tool: Option<(&str, Option<&JsonObject>)>,
        context: &RequestContext<RoleServer>,
    ) -> Option<Measure> {
        let tel = ENABLED.get()?;
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", method.to_owned()),
            KeyValue::new("network.transport", self.transport),
        ];
        let mut name = method.to_owned();
        let mut request_bytes = None;
        if let Some((tool, arguments)) = tool {
            name = format!("{method} {tool}");
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            request_bytes = Some(arguments.map_or(0, json_len));
            if tel.options.record_content {
                let text = serde_json::to_string(&arguments).unwrap_or_default();
                attributes.push(KeyValue::new("gen_ai.tool.call.arguments", text));
            }
        }
        // Metric attributes stay low in cardinality: no ids.
        let metric_attributes = attributes.clone();
        if let Some(bytes) = request_bytes {
            tel.request_size.record(bytes, &metric_attributes);
            attributes.push(KeyValue::new("charter.mcp.request.size", bytes as i64));
        }
        attributes.push(KeyValue::new("jsonrpc.request.id", context.id.to_string()));
        if let Some(version) = context.protocol_version() {
            attributes.push(KeyValue::new(
                "mcp.protocol.version",
                version.as_str().to_owned(),
            ));
        }
        let session = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok());
        if let Some(session) = session {
            attributes.push(KeyValue::new("mcp.session.id", session_digest(session)));
        }
        let parent = global::get_text_map_propagator(|p| p.extract(&MetaCarrier(&context.meta)));
        let span = tel
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(attributes)
            .start_with_context(&tel.tracer, &parent);
        Some(Measure {
            tel,
            span,
            started: Instant::now(),
            metric_attributes,
        })
    }
}

impl Measure {
    /// Ends the span with the answer's outcome and size, and records the duration.
    fn finish<T>(
        mut self,
        answer: &Result<T, McpError>,
        describe: impl FnOnce(&T, bool) -> Outcome,
    ) {
        let record = self.tel.options.record_content;
        let outcome = answer.as_ref().ok().map(|result| describe(result, record));
        let error = match (&outcome, answer) {
            (Some(outcome), _) if outcome.failed => Some("tool_error".to_owned()),
            (_, Err(e)) => Some(e.code.0.to_string()),
            _ => None,
        };
        if let Some(error) = error {
            self.span
                .set_attribute(KeyValue::new("error.type", error.clone()));
            self.span.set_status(Status::error(error.clone()));
            self.metric_attributes
                .push(KeyValue::new("error.type", error));
        }
        if let Some(outcome) = outcome {
            let bytes = outcome.bytes;
            self.span
                .set_attribute(KeyValue::new("charter.mcp.response.size", bytes as i64));
            self.tel
                .response_size
                .record(bytes, &self.metric_attributes);
            if let Some(text) = outcome.content {
                self.span
                    .set_attribute(KeyValue::new("gen_ai.tool.call.result", text));
            }
        }
        self.tel.duration.record(
            self.started.elapsed().as_secs_f64(),
            &self.metric_attributes,
        );
        self.span.end();
    }
}

/// What an answer says about its request.
struct Outcome {
    /// A tool result with `isError`.
    failed: bool,
    /// Its size as JSON.
    bytes: u64,
    /// The result as recorded, when results are recorded.
    content: Option<String>,
}

/// Any answer that is not a tool result.
fn plain<T: serde::Serialize>(answer: &T, _record: bool) -> Outcome {
    Outcome {
        failed: false,
        bytes: json_len(answer),
        content: None,
    }
}

/// Runs `answer` measured as `method` (and `tool`), when telemetry is on.
async fn measured<H, T>(
    traced: &Traced<H>,
    method: &str,
    tool: Option<(&str, Option<&JsonObject>)>,
    context: &RequestContext<RoleServer>,
    answer: impl Future<Output = Result<T, McpError>>,
    describe: impl FnOnce(&T, bool) -> Outcome,
) -> Result<T, McpError> {
    let measure = traced.start(method, tool, context);
    let answer = answer.await;
    if let Some(measure) = measure {
        measure.finish(&answer, describe);
    }
    answer
}

impl<H: ServerHandler> ServerHandler for Traced<H> {
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), McpError> {
        let inner = self.inner.ping(context.clone());
        measured(self, "ping", None, &context, inner, plain).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        let inner = self.inner.initialize(request, context.clone());
        measured(self, "initialize", None, &context, inner, plain).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.inner.on_initialized(context).await
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        let inner = self.inner.discover(context.clone());
        measured(self, "server/discover", None, &context, inner, plain).await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let inner = self.inner.list_tools(request, context.clone());
        measured(self, "tools/list", None, &context, inner, plain).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let arguments = request.arguments.clone();
        let tool = Some((name.as_str(), arguments.as_ref()));
        let inner = self.inner.call_tool(request, context.clone());
        let describe = |answer: &CallToolResponse, record: bool| match answer {
            CallToolResponse::Complete(result) => Outcome {
                failed: result.is_error == Some(true),
                bytes: json_len(result),
                content: record
                    .then(|| serde_json::to_string(&result.content).ok())
                    .flatten(),
            },
            CallToolResponse::InputRequired(other) => plain(other, record),
            CallToolResponse::Task(other) => plain(other, record),
            _ => Outcome {
                failed: false,
                bytes: 0,
                content: None,
            },
        };
        measured(self, "tools/call", tool, &context, inner, describe).await
    }
}
