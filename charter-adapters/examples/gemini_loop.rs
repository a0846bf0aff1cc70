//! Runs the Gemini function-calling loop and prints the transcript: against the Gemini API, or,
//! with `--stub`, against a scripted `generateContent` server on 127.0.0.1 started here (no key,
//! no network).
//!
//! ```sh
//! cargo run -p charter-adapters --example gemini_loop -- --stub
//! GEMINI_API_KEY=… cargo run -p charter-adapters --example gemini_loop -- "What is 17.5 plus 24.25?"
//! ```
//!
//! Environment: `GEMINI_API_KEY` (or `GOOGLE_API_KEY`; required for the real API),
//! `GEMINI_BASE_URL` (default `https://generativelanguage.googleapis.com`), `GEMINI_MODEL`
//! (default `gemini-2.5-flash`), `MAX_TURNS` (default 10). The tools are the `example` pack
//! (`examples/common`), served progressively: the model starts with ToolSearch only.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use charter_adapters::gemini::{self, Content, GeminiClient, Options};
use charter_runtime::session::{SessionOptions, Source};
use charter_runtime::{CallContext, Dialect, ToolSession};
use common::EXAMPLE;
use serde_json::{Value, json};

fn print_content(content: &Content) {
    let role = match content.role {
        gemini::Role::User => "user",
        gemini::Role::Model => "model",
    };
    for part in &content.parts {
        if let Some(text) = part.text.as_deref().filter(|_| !part.is_thought()) {
            println!("[{role}] {text}");
        }
        if let Some(call) = &part.function_call {
            let args = call.args.clone().unwrap_or_else(|| json!({}));
            println!("[{role} calls] {}({args})", call.name);
        }
        if let Some(response) = &part.function_response {
            println!("[{role} answers {}] {}", response.name, response.response);
        }
    }
}

/// A scripted model: ToolSearch, then both tools in one turn, then an answer made of what the
/// tools returned. Returns its base URL.
async fn start_stub() -> Result<String, Box<dyn std::error::Error>> {
    let turn = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().route(
        "/v1beta/models/{action}",
        axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
            let turn = turn.fetch_add(1, Ordering::SeqCst);
            async move {
                let parts = match turn {
                    0 => json!([{"functionCall": {"name": "ToolSearch",
                                 "args": {"query": "select:example_add,example_now"}}}]),
                    1 => json!([{"functionCall": {"name": "example_add", "args": {"a": 17.5, "b": 24.25}}},
                                {"functionCall": {"name": "example_now", "args": {}}}]),
                    _ => {
                        let answers = &body["contents"].as_array().and_then(|c| c.last()).cloned();
                        json!([{"text": format!("The tools said: {}", answers.clone().unwrap_or_default()["parts"])}])
                    }
                };
                axum::Json(json!({"candidates": [{"content": {"role": "model", "parts": parts},
                                                  "finishReason": "STOP"}]}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(base)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stub = std::env::args().nth(1).as_deref() == Some("--stub");
    let model = std::env::var("GEMINI_MODEL").unwrap_or_else(|_| "gemini-2.5-flash".into());
    let client = if stub {
        GeminiClient::new(&start_stub().await?, None)?
    } else {
        GeminiClient::from_env()?
    };
    let prompt = if stub {
        common::PROMPT.to_owned()
    } else {
        common::prompt()
    };
    // The Gemini loop takes a session in Gemini's dialect (docs/dialects.md).
    let session = ToolSession::with_options(
        vec![Source::Table(&EXAMPLE)],
        SessionOptions::new().with_dialect(Dialect::Gemini),
    )?;
    eprintln!(
        "{model} via {} ({} tools, progressive)",
        client.url(&model)?,
        session.all().len()
    );
    let options = Options::default()
        .with_system(common::INSTRUCTIONS)
        .with_max_turns(common::max_turns()?);
    let result = gemini::run(
        &client,
        &model,
        &[Content::user(prompt)],
        &session,
        &CallContext::new(),
        &options,
    )
    .await?;
    for content in &result.messages {
        print_content(content);
    }
    println!("-- {} turn(s), stop: {}", result.turns, result.stop);
    Ok(())
}
