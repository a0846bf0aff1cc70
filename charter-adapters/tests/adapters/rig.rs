//! The rig export: visible tools (and ToolSearch) as rig dynamic tools dispatching through the
//! session. Run with `--features rig`.
#![cfg(feature = "rig")]

use crate::support;

use std::sync::Arc;

use charter_adapters::rig;
use charter_runtime::session::{TOOL_SEARCH, ToolSession};
use rig_core::tool::ToolErrorKind;
use serde_json::json;
use support::*;

#[tokio::test]
async fn exports_visible_tools_and_dispatches_through_the_session() {
    let session = Arc::new(ToolSession::new(&[&DEMO]).unwrap());
    let ctx = context("rig-export");

    let tools = rig::tools(&session, &ctx).unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    assert_eq!(names, [TOOL_SEARCH]);

    // ToolSearch runs through the session and loads the tool.
    let search = &tools[0];
    let loaded = search
        .execute(json!({"query": "select:demo_weather"}))
        .await
        .unwrap();
    assert!(
        loaded.render().contains("demo_weather"),
        "{}",
        loaded.render()
    );

    // Export again: the loaded tool is there, after ToolSearch, with the table's schema.
    let tools = rig::tools(&session, &ctx).unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    assert_eq!(names, [TOOL_SEARCH, "demo_weather"]);
    let definition = tools[1].definition();
    assert_eq!(definition.description, "weather forecast for a city");
    assert_eq!(
        definition.parameters,
        serde_json::from_str::<serde_json::Value>(schema_of("demo_weather")).unwrap()
    );

    let answer = tools[1].execute(json!({"city": "Kyiv"})).await.unwrap();
    assert_eq!(
        answer.as_json(),
        Some(&json!({"city": "Kyiv", "forecast": "sunny in Kyiv"}))
    );
    assert_eq!(activity("rig-export").calls.len(), 1);

    // Validation errors reach rig as invalid_args whose model output is charter's message.
    let err = tools[1].execute(json!({"town": "Kyiv"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArgs);
    let feedback = err.model_feedback().unwrap_or_default().to_owned();
    assert!(
        feedback.starts_with("Invalid arguments for `demo_weather`") && feedback.contains("/town"),
        "{feedback}"
    );
    assert_eq!(
        activity("rig-export").calls.len(),
        1,
        "refused before the tool ran"
    );
}

#[tokio::test]
async fn a_tool_error_keeps_its_message_for_the_model() {
    let session = Arc::new(ToolSession::new(&[&DEMO]).unwrap());
    let ctx = context("rig-fail");
    let search = rig::tools(&session, &ctx).unwrap().remove(0);
    search
        .execute(json!({"query": "select:demo_fail"}))
        .await
        .unwrap();
    let fail = rig::tools(&session, &ctx).unwrap().remove(1);
    let err = fail.execute(json!({"why": "x"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Other);
    assert!(
        err.model_feedback()
            .unwrap_or_default()
            .contains("the backend said boom")
    );
}
