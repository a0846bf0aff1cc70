//! The Messages API's message and content-block shapes, read leniently and written back with
//! every member the loop does not know kept as it came.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The end user (and tool results).
    User,
    /// The model.
    Assistant,
}

/// A message's content: a string, or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

/// One message, as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub content: MessageContent,
}

impl Message {
    /// A `user` message with text.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: MessageContent::Text(text.into()),
        }
    }

    /// An `assistant` message with text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: MessageContent::Text(text.into()),
        }
    }

    /// The text of the message: the string content, or its text blocks joined.
    pub fn text(&self) -> String {
        match &self.content {
            MessageContent::Text(text) => text.clone(),
            MessageContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect(),
        }
    }
}

/// A content block. Blocks the loop does not read (`thinking`, `image`, server tool blocks, ...)
/// are kept verbatim as [`ContentBlock::Other`] and sent back unchanged.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `{"type":"text","text":...}`.
    Text {
        /// The text.
        text: String,
        /// Other members (`citations`, `cache_control`), kept.
        extra: Map<String, Value>,
    },
    /// `{"type":"tool_use","id","name","input"}`: the model calls a tool.
    ToolUse {
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The arguments.
        input: Value,
        /// Other members, kept.
        extra: Map<String, Value>,
    },
    /// `{"type":"tool_result","tool_use_id","content","is_error"}`: a call's answer.
    ToolResult {
        /// The call it answers.
        tool_use_id: String,
        /// The answer's blocks.
        content: Vec<ResultBlock>,
        /// Whether the call failed.
        is_error: bool,
    },
    /// Any other block, verbatim.
    Other(Value),
}

/// A block inside a `tool_result`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResultBlock {
    /// `{"type":"text","text":...}`.
    Text(String),
    /// `{"type":"tool_reference","tool_name":...}`: in deferred mode, a tool the API should
    /// expand from its `defer_loading` definition.
    ToolReference(String),
    /// Any other block (`image`, `search_result`, ...), verbatim.
    Other(Value),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            extra: Map::new(),
        }
    }

    fn to_value(&self) -> Value {
        match self {
            ContentBlock::Text { text, extra } => {
                let mut object = Map::with_capacity(extra.len() + 2);
                object.insert("type".into(), "text".into());
                object.insert("text".into(), text.clone().into());
                object.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
                Value::Object(object)
            }
            ContentBlock::ToolUse {
                id,
                name,
                input,
                extra,
            } => {
                let mut object = Map::with_capacity(extra.len() + 4);
                object.insert("type".into(), "tool_use".into());
                object.insert("id".into(), id.clone().into());
                object.insert("name".into(), name.clone().into());
                object.insert("input".into(), input.clone());
                object.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
                Value::Object(object)
            }
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let mut object = Map::with_capacity(4);
                object.insert("type".into(), "tool_result".into());
                object.insert("tool_use_id".into(), tool_use_id.clone().into());
                object.insert(
                    "content".into(),
                    Value::Array(content.iter().map(ResultBlock::to_value).collect()),
                );
                if *is_error {
                    object.insert("is_error".into(), true.into());
                }
                Value::Object(object)
            }
            ContentBlock::Other(value) => value.clone(),
        }
    }

    fn from_value(value: Value) -> Result<Self, String> {
        let Value::Object(mut object) = value else {
            return Err(format!("a content block must be an object, not {value}"));
        };
        let kind = object
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let take_str = |object: &mut Map<String, Value>, key: &str| match object.remove(key) {
            Some(Value::String(s)) => Ok(s),
            other => Err(format!(
                "a `{kind}` block needs a string `{key}`, found {}",
                other.unwrap_or(Value::Null)
            )),
        };
        Ok(match kind.as_str() {
            "text" => {
                let text = take_str(&mut object, "text")?;
                object.remove("type");
                ContentBlock::Text {
                    text,
                    extra: object,
                }
            }
            "tool_use" => {
                let id = take_str(&mut object, "id")?;
                let name = take_str(&mut object, "name")?;
                let input = object.remove("input").unwrap_or(Value::Object(Map::new()));
                object.remove("type");
                ContentBlock::ToolUse {
                    id,
                    name,
                    input,
                    extra: object,
                }
            }
            "tool_result"
                if object.keys().all(|k| {
                    matches!(k.as_str(), "type" | "tool_use_id" | "content" | "is_error")
                }) =>
            {
                let tool_use_id = take_str(&mut object, "tool_use_id")?;
                let content = match object.remove("content") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::String(text)) => vec![ResultBlock::Text(text)],
                    Some(Value::Array(blocks)) => {
                        blocks.into_iter().map(ResultBlock::from_value).collect()
                    }
                    Some(other) => {
                        return Err(format!(
                            "a `tool_result` block's content must be a string or an array, not {other}"
                        ));
                    }
                };
                let is_error = object
                    .get("is_error")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                }
            }
            _ => ContentBlock::Other(Value::Object(object)),
        })
    }
}

impl ResultBlock {
    fn to_value(&self) -> Value {
        match self {
            ResultBlock::Text(text) => json!({"type": "text", "text": text}),
            ResultBlock::ToolReference(name) => {
                json!({"type": "tool_reference", "tool_name": name})
            }
            ResultBlock::Other(value) => value.clone(),
        }
    }

    fn from_value(value: Value) -> Self {
        let kind = value.get("type").and_then(Value::as_str);
        let only = |keys: &[&str]| {
            value
                .as_object()
                .is_some_and(|o| o.keys().all(|k| keys.contains(&k.as_str())))
        };
        match kind {
            Some("text") if only(&["type", "text"]) => {
                match value.get("text").and_then(Value::as_str) {
                    Some(text) => ResultBlock::Text(text.to_owned()),
                    None => ResultBlock::Other(value),
                }
            }
            Some("tool_reference") if only(&["type", "tool_name"]) => {
                match value.get("tool_name").and_then(Value::as_str) {
                    Some(name) => ResultBlock::ToolReference(name.to_owned()),
                    None => ResultBlock::Other(value),
                }
            }
            _ => ResultBlock::Other(value),
        }
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ContentBlock::from_value(Value::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}

/// A Messages API response (the members the loop reads; the rest kept in `extra`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct MessagesResponse {
    /// The message id.
    #[serde(default)]
    pub id: Option<String>,
    /// The assistant's content blocks.
    pub content: Vec<ContentBlock>,
    /// `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, ...
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Token usage, as reported.
    #[serde(default)]
    pub usage: Option<Value>,
    /// Any other member.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
