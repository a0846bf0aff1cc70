//! Runs the OpenAI-compatible tool loop against a real endpoint and prints the transcript.
//!
//! ```sh
//! OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:4b \
//!     cargo run -p charter-adapters --example openai_loop -- "What is 17.5 plus 24.25, and what time is it?"
//! ```
//!
//! Environment: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`
//! (required for the default base URL), `OPENAI_MODEL` (required), `MAX_TURNS` (default 10).
//! The tools are a small `example` pack of Rust tools defined below, served progressively: the
//! model starts with ToolSearch only and loads what it needs.

use std::time::{SystemTime, UNIX_EPOCH};

use charter_adapters::openai::{self, ChatMessage, Content, OpenAiClient, Options, Role};
use charter_runtime::error::CharterError;
use charter_runtime::table::*;
use charter_runtime::tokens::text_tokens;
use charter_runtime::{CallContext, ToolSession};
use serde_json::{Value, json};

fn add<'a>(args: Value, _ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        let (a, b) = (
            args["a"].as_f64().unwrap_or_default(),
            args["b"].as_f64().unwrap_or_default(),
        );
        Ok(ToolOutput::json(json!({"sum": a + b})))
    })
}

fn now<'a>(_args: Value, _ctx: &'a CallContext) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| CharterError::Tool(format!("the system clock is before 1970: {e}")))?
            .as_secs();
        Ok(ToolOutput::json(
            json!({"unix_seconds": secs, "utc_time_of_day": format!("{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60)}),
        ))
    })
}

const NUMBER: Shape = Shape::Number(NumberRules {
    minimum: None,
    maximum: None,
    enum_values: &[],
});

const fn number(name: &'static str, description: &'static str) -> Field {
    Field {
        name,
        wire: name,
        description,
        shape: &NUMBER,
        required: true,
        modes: &[],
        default: None,
        location: Location::Arg,
        style: ListStyle::Repeat,
        allow_slash: false,
        from_context: None,
    }
}

const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"number","description":"The first addend."},"b":{"type":"number","description":"The second addend."}},"required":["a","b"],"additionalProperties":false}"#;
const NOW_SCHEMA: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;

static EXAMPLE: Table = Table {
    pack: "example",
    description: "arithmetic and the clock",
    tools: &[
        ToolDef {
            name: "example_add",
            pack: "example",
            tool: "add",
            description: "Add two numbers exactly.",
            annotations: Annotations {
                read_only: true,
                idempotent: true,
                destructive: false,
                open_world: false,
            },
            mode: None,
            input: &ObjectShape {
                fields: &[
                    number("a", "The first addend."),
                    number("b", "The second addend."),
                ],
                require_one_of: &[],
                require_exactly_one_of: &[],
            },
            require_one_of: &[],
            require_exactly_one_of: &[],
            views: &[
                View {
                    key: ViewKey::Default,
                    schema: ADD_SCHEMA,
                    tokens: text_tokens(ADD_SCHEMA),
                    active: &[],
                    widest: true,
                    paths: &[],
                    spans: &[],
                },
                View {
                    key: ViewKey::Unmatched,
                    schema: ADD_SCHEMA,
                    tokens: text_tokens(ADD_SCHEMA),
                    active: &[],
                    widest: false,
                    paths: &[],
                    spans: &[],
                },
            ],
            search: SearchData {
                description_lc: "add two numbers exactly.",
                hints: &["sum", "plus", "math"],
                ..SearchData::EMPTY
            },
            exec: Exec::Rust(add),
        },
        ToolDef {
            name: "example_now",
            pack: "example",
            tool: "now",
            description: "The current time (UTC).",
            annotations: Annotations {
                read_only: true,
                idempotent: false,
                destructive: false,
                open_world: false,
            },
            mode: None,
            input: &ObjectShape {
                fields: &[],
                require_one_of: &[],
                require_exactly_one_of: &[],
            },
            require_one_of: &[],
            require_exactly_one_of: &[],
            views: &[
                View {
                    key: ViewKey::Default,
                    schema: NOW_SCHEMA,
                    tokens: text_tokens(NOW_SCHEMA),
                    active: &[],
                    widest: true,
                    paths: &[],
                    spans: &[],
                },
                View {
                    key: ViewKey::Unmatched,
                    schema: NOW_SCHEMA,
                    tokens: text_tokens(NOW_SCHEMA),
                    active: &[],
                    widest: false,
                    paths: &[],
                    spans: &[],
                },
            ],
            search: SearchData {
                description_lc: "the current time (utc).",
                hints: &["clock", "date"],
                ..SearchData::EMPTY
            },
            exec: Exec::Rust(now),
        },
    ],
};

fn print_message(message: &ChatMessage) {
    let role = match message.role {
        Role::System => "system",
        Role::Developer => "developer",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    match (&message.content, &message.tool_call_id) {
        (_, Some(id)) => println!("[{role} {id}] {}", message.text()),
        (Some(Content::Text(text)), None) if !text.is_empty() => println!("[{role}] {text}"),
        (Some(Content::Parts(_)), None) => println!("[{role}] {}", message.text()),
        _ => {}
    }
    for call in &message.tool_calls {
        println!(
            "[{role} calls {}] {}({})",
            call.id, call.function.name, call.function.arguments
        );
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model =
        std::env::var("OPENAI_MODEL").map_err(|_| "set OPENAI_MODEL to the model to use")?;
    let max_turns = match std::env::var("MAX_TURNS") {
        Ok(text) => text.parse().map_err(|e| format!("MAX_TURNS={text}: {e}"))?,
        Err(_) => charter_adapters::DEFAULT_MAX_TURNS,
    };
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = if prompt.is_empty() {
        "What is 17.5 plus 24.25, and what time is it now (UTC)?".to_owned()
    } else {
        prompt
    };

    let client = OpenAiClient::from_env()?;
    let session = ToolSession::new(&[&EXAMPLE])?;
    let messages = [
        ChatMessage::system(
            "Use the tools. Search for the ones you need with ToolSearch first, then call them.",
        ),
        ChatMessage::user(prompt),
    ];
    eprintln!(
        "{} via {} ({} tools, progressive)",
        model,
        client.url(),
        session.all().len()
    );
    let result = openai::run(
        &client,
        &model,
        &messages,
        &session,
        &CallContext::new(),
        &Options::default().with_max_turns(max_turns),
    )
    .await?;
    for message in &result.messages {
        print_message(message);
    }
    println!("-- {} turn(s), stop: {}", result.turns, result.stop);
    Ok(())
}
