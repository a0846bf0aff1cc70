//! Runs the OpenAI-compatible tool loop against a real endpoint and prints the transcript.
//!
//! ```sh
//! OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:4b \
//!     cargo run -p charter-adapters --example openai_loop -- "What is 17.5 plus 24.25, and what time is it?"
//! ```
//!
//! Environment: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`
//! (required for the default base URL), `OPENAI_MODEL` (required), `MAX_TURNS` (default 10).
//! The tools are a small `example` pack of Rust tools (`examples/common`), served progressively: the
//! model starts with ToolSearch only and loads what it needs.

mod common;

use charter_adapters::openai::{self, ChatMessage, Content, OpenAiClient, Options, Role};
use charter_runtime::{CallContext, ToolSession};
use common::EXAMPLE;

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
    let max_turns = common::max_turns()?;
    let prompt = common::prompt();

    let client = OpenAiClient::from_env()?;
    let session = ToolSession::new(&[&EXAMPLE])?;
    let messages = [
        ChatMessage::system(common::INSTRUCTIONS),
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
