//! Argument validation on arbitrary JSON, per tool view, over every tool of the shipped packs and the compiler's fixture pack;
//! then, for arguments validation accepted, the HTTP request they become.
//!
//! Input: byte 0 picks the tool, byte 1 the view (the session mode), byte 2 whether a
//! from-context value is supplied; the rest is the model's argument text. Properties checked:
//! validation never panics; a request built from accepted arguments stays on the base URL's
//! host and port, carries no dot segment a server could resolve (the URL parser changes
//! nothing when it normalises it), and no header value holds a control character.
#![no_main]

use charter_runtime::table::{Exec, ToolDef};
use charter_runtime::validate::{PatternCache, prepare_arguments};
use charter_runtime::{CallContext, CharterError};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::OnceLock;

/// The fixture pack of the compiler's tests: modes, from-context fields, `one_of`, maps,
/// patterns and formats, which the shipped packs use little.
mod fixture {
    include!("../../tests/golden/fixture_pack.rs");
}

fn tools() -> &'static [&'static ToolDef] {
    static TOOLS: OnceLock<Vec<&'static ToolDef>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        charter::packs::ALL
            .iter()
            .chain(fixture::ALL)
            .flat_map(|t| t.tools.iter())
            .collect()
    })
}

fn patterns() -> &'static PatternCache {
    static PATTERNS: OnceLock<PatternCache> = OnceLock::new();
    PATTERNS.get_or_init(PatternCache::new)
}

const BASE: &str = "http://127.0.0.1:9/api";

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let tools = tools();
    let tool = tools[data[0] as usize % tools.len()];
    let view = &tool.views[data[1] as usize % tool.views.len()];
    let mut ctx = CallContext::new();
    if data[2] & 1 == 1 {
        ctx = ctx.with_value("customer_id", Value::String("cus_fuzz".into()));
    }
    let text = &data[3..];
    // The model's text as an adapter reads it; if it is not JSON, it arrives as a JSON string.
    let arguments = serde_json::from_slice::<Value>(text)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into_owned()));
    let prepared = match prepare_arguments(tool, view, &[], arguments, &ctx, patterns()) {
        Ok(args) => args,
        Err(CharterError::Validation(message)) => {
            assert!(message.starts_with("Invalid arguments for"), "{message}");
            return;
        }
        Err(CharterError::Declaration(_)) => return, // a required from-context value is missing
        Err(other) => panic!("validation answered a non-validation error: {other}"),
    };
    let Exec::Http(route) = tool.exec else { return };
    let request = match charter_runtime::http::build_request(tool, route, BASE, &prepared, &ctx) {
        Ok(request) => request,
        Err(CharterError::Validation(_)) => return,
        Err(other) => panic!("building a validated call's request failed: {other}"),
    };
    let url = reqwest::Url::parse(&request.url)
        .unwrap_or_else(|e| panic!("unparseable request URL {:?}: {e}", request.url));
    assert_eq!(
        url.host_str(),
        Some("127.0.0.1"),
        "host escaped: {}",
        request.url
    );
    assert_eq!(url.port(), Some(9), "port escaped: {}", request.url);
    assert!(
        url.path().starts_with("/api/"),
        "path escaped the base: {}",
        request.url
    );
    assert_eq!(
        url.as_str(),
        request.url,
        "the URL parser rewrote the request URL"
    );
    for (name, value) in &request.headers {
        assert!(
            !value
                .as_bytes()
                .iter()
                .any(|b| *b == b'\r' || *b == b'\n' || *b == 0),
            "control character in header {name}"
        );
    }
});
