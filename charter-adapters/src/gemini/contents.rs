//! The Gemini API's `Content` and `Part` shapes and its `generateContent` response, read
//! leniently and written back with every member the loop does not know kept as it came (a
//! thinking model's `thoughtSignature` must return with its part, unchanged).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who wrote a content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The end user, and the function responses.
    User,
    /// The model.
    Model,
}

/// One turn of the conversation (`contents[]` of a request, `candidates[].content` of a
/// response).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content {
    /// Who wrote it.
    pub role: Role,
    /// What it says, in order.
    pub parts: Vec<Part>,
}

impl Content {
    /// A `user` content with one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            parts: vec![Part::text(text)],
        }
    }

    /// A `model` content with one text part.
    pub fn model(text: impl Into<String>) -> Self {
        Self {
            role: Role::Model,
            parts: vec![Part::text(text)],
        }
    }

    /// The text of the content: its text parts joined, thoughts (`"thought": true`) left out.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter(|p| !p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .collect()
    }

    /// The function calls among the parts, in order.
    pub fn function_calls(&self) -> impl Iterator<Item = &FunctionCall> {
        self.parts.iter().filter_map(|p| p.function_call.as_ref())
    }
}

/// One part of a [`Content`]: text, a function call, a function response, or anything else the
/// API sends (`inlineData`, `executableCode`, ...), kept in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// Text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The model calls a function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    /// A function's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse>,
    /// Any other member (`thought`, `thoughtSignature`, `inlineData`, ...), kept and sent back.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// Whether the part is a thought summary (`"thought": true`), not the answer.
    pub fn is_thought(&self) -> bool {
        self.extra.get("thought").and_then(Value::as_bool) == Some(true)
    }
}

/// `functionCall`: the model asks for a function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The call id, when the API gives one; its response carries it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function (tool) name.
    pub name: String,
    /// The arguments, a JSON object (absent for a call without arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// Any other member, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `functionResponse`: a function's answer, sent in a `user` content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The id of the call it answers, when the call had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function (tool) name.
    pub name: String,
    /// The answer, a JSON object: `{"output": ...}` on success, `{"error": ...}` on failure (the
    /// keys the API reads as output and error details).
    pub response: Value,
}

/// A `generateContent` response (the members the loop reads; the rest kept in `extra`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GenerateContentResponse {
    /// The candidates; the loop reads the first. None when the prompt was blocked.
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// Why the prompt was blocked (`blockReason`), if it was.
    #[serde(default)]
    pub prompt_feedback: Option<Value>,
    /// Token usage, as the server reports it.
    #[serde(default)]
    pub usage_metadata: Option<Value>,
    /// Any other member (`modelVersion`, `responseId`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One candidate answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Candidate {
    /// The model's content; absent when the answer was blocked.
    #[serde(default)]
    pub content: Option<CandidateContent>,
    /// `STOP`, `MAX_TOKENS`, `SAFETY`, `MALFORMED_FUNCTION_CALL`, ...
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// The API's explanation of the finish reason, when it gives one.
    #[serde(default)]
    pub finish_message: Option<String>,
    /// Any other member (`safetyRatings`, `citationMetadata`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A candidate's content: its parts (the role is always `model`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct CandidateContent {
    /// The parts, in order.
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// The finish reasons after which the candidate is the model's answer: a natural stop, or the
/// token limit (the text so far is still the answer). Every other reason (`SAFETY`,
/// `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `MALFORMED_FUNCTION_CALL`,
/// `UNEXPECTED_TOOL_CALL`, `OTHER`, ...) means there is nothing to go on with.
pub(super) fn usable_finish(reason: Option<&str>) -> bool {
    matches!(
        reason,
        None | Some("STOP" | "MAX_TOKENS" | "FINISH_REASON_UNSPECIFIED")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parts_round_trip_and_keep_unknown_members() {
        let wire = json!({"role": "model", "parts": [
            {"text": "thinking...", "thought": true},
            {"text": "Let me look."},
            {"functionCall": {"name": "demo_x", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
            {"functionCall": {"id": "c2", "name": "demo_y"}},
            {"inlineData": {"mimeType": "image/png", "data": "AA=="}}
        ]});
        let content: Content = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(content.text(), "Let me look.");
        let calls: Vec<&FunctionCall> = content.function_calls().collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].args, Some(json!({"a": 1})));
        assert_eq!(calls[1].id.as_deref(), Some("c2"));
        assert_eq!(calls[1].args, None);
        assert_eq!(serde_json::to_value(&content).unwrap(), wire);
    }

    #[test]
    fn a_function_call_without_a_name_is_refused() {
        let err =
            serde_json::from_value::<Part>(json!({"functionCall": {"args": {}}})).unwrap_err();
        assert!(err.to_string().contains("missing field `name`"), "{err}");
    }

    #[test]
    fn finish_reasons() {
        assert!(usable_finish(None));
        assert!(usable_finish(Some("STOP")));
        assert!(usable_finish(Some("MAX_TOKENS")));
        for blocked in ["SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL", "OTHER"] {
            assert!(!usable_finish(Some(blocked)), "{blocked}");
        }
    }
}
