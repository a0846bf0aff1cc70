//! Size estimates (docs/design.md §3): characters of JSON text divided by four.
//!
//! An estimate that ranks two tools, not a tokenizer. Tables store `schema_tokens` of every
//! view as a constant; [`json_tokens`] stays available for arbitrary values at run time.

/// `json_tokens` of already-rendered JSON text: its character count divided by 4 (the rule is
/// `charter_terms::tokens`, shared with the pack compiler).
pub use charter_terms::tokens::text_tokens;

/// `json_tokens(value)`: the character count of the value's compact JSON text divided by 4.
pub fn json_tokens(value: &serde_json::Value) -> u32 {
    text_tokens(&value.to_string())
}

/// `schema_tokens(tool)` for the default view: the size of the exact schema text on the wire.
pub fn schema_tokens(tool: &crate::table::ToolDef) -> u32 {
    tool.views[0].tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(text_tokens("{}"), 0);
        assert_eq!(text_tokens("{\"a\":1}"), 1); // 7 chars
        assert_eq!(text_tokens("\"ééé\""), 1); // 5 chars, 8 bytes
        assert_eq!(json_tokens(&serde_json::json!({"abc": "defgh"})), 15 / 4);
    }
}
