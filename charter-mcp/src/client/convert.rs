//! From rmcp's wire types to charter's: a listed tool to a [`DynamicTool`], a call result to a
//! [`ToolOutput`].

use std::sync::Arc;

use charter_runtime::session::DynamicTool;
use charter_runtime::table::{Annotations, ToolOutput};
use charter_runtime::text_tokens;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool, ToolAnnotations};
use serde_json::Value;

/// One remote tool as the toolkit keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    /// What a session reads: the qualified name, the schema text and its size.
    pub(crate) tool: DynamicTool,
    /// The server's own name, sent on `tools/call`.
    pub(crate) remote: Arc<str>,
    /// The annotations as the server sent them (`{}` when it sent none), for
    /// [`concurrency_safe`](charter_runtime::concurrency_safe).
    pub(crate) hints: Value,
}

/// Builds the kept form of a listed tool. The schema is rendered to compact JSON text and sized
/// once, here; `previous` (the same tool from the last listing) lends its text when unchanged, so
/// a re-list that changes nothing allocates no new schema.
pub(crate) fn remote(local: Arc<str>, tool: &Tool, previous: Option<&Remote>) -> Remote {
    let text = serde_json::to_string(tool.input_schema.as_ref())
        .unwrap_or_else(|_| r#"{"type":"object"}"#.to_owned());
    let (schema, tokens) = match previous {
        Some(p) if *p.tool.schema == *text => (p.tool.schema.clone(), p.tool.tokens),
        _ => {
            let tokens = text_tokens(&text);
            (Arc::<str>::from(text), tokens)
        }
    };
    let description: Arc<str> = match (previous, tool.description.as_deref()) {
        (Some(p), Some(d)) if *p.tool.description == *d => p.tool.description.clone(),
        (_, Some(d)) => d.into(),
        (_, None) => tool.title.as_deref().unwrap_or_default().into(),
    };
    Remote {
        tool: DynamicTool {
            name: local,
            description,
            schema,
            tokens,
            annotations: annotations(tool.annotations.as_ref()),
        },
        remote: tool.name.as_ref().into(),
        hints: tool
            .annotations
            .as_ref()
            .and_then(|a| serde_json::to_value(a).ok())
            .unwrap_or_else(|| Value::Object(Default::default())),
    }
}

/// The MCP hints as charter's four booleans: only an explicit `true` is true (a missing hint is
/// false, whatever the MCP default), because concurrency and trust are opted into, never inferred.
pub(crate) fn annotations(hints: Option<&ToolAnnotations>) -> Annotations {
    let Some(h) = hints else {
        return Annotations::default();
    };
    Annotations::new()
        .with_read_only(h.read_only_hint == Some(true))
        .with_idempotent(h.idempotent_hint == Some(true))
        .with_destructive(h.destructive_hint == Some(true))
        .with_open_world(h.open_world_hint == Some(true))
}

/// The text a model reads for a call result: text blocks as they are, joined by newlines; other
/// blocks described in a line each (an image is no use to a text channel, and its base64 is
/// thousands of tokens); `structuredContent` alone when there is no content at all.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    if result.content.is_empty() {
        return match &result.structured_content {
            Some(value) => value.to_string(),
            None => String::new(),
        };
    }
    let mut parts: Vec<String> = Vec::with_capacity(result.content.len());
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!(
                "[image {}, {} bytes of base64 not shown]",
                image.mime_type,
                image.data.len()
            ),
            ContentBlock::Audio(audio) => format!(
                "[audio {}, {} bytes of base64 not shown]",
                audio.mime_type,
                audio.data.len()
            ),
            ContentBlock::Resource(resource) => match &resource.resource {
                ResourceContents::TextResourceContents { text, .. } => text.clone(),
                ResourceContents::BlobResourceContents { uri, .. } => {
                    format!("[binary resource {uri} not shown]")
                }
                other => serde_json::to_string(other).unwrap_or_default(),
            },
            ContentBlock::ResourceLink(link) => serde_json::json!({
                "resource_link": link.uri, "name": link.name, "description": link.description,
            })
            .to_string(),
            other => serde_json::to_string(other).unwrap_or_default(),
        });
    }
    parts.join("\n")
}

/// A successful call result as a [`ToolOutput`]: its text, and `structuredContent` as the JSON
/// form when the server sent one.
pub(crate) fn output(result: CallToolResult) -> ToolOutput {
    let text = text_of(&result);
    ToolOutput {
        text,
        structured: result.structured_content,
    }
}
