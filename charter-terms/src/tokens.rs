//! Size estimates (docs/design.md §3): the characters of JSON text divided by four (integer
//! division). An estimate that ranks two tools, not a tokenizer; the pack compiler, the
//! proc-macro and the runtime all size text with [`text_tokens`].

/// The largest parameter schema one view of a tool may have, in [`text_tokens`]: about
/// 200 KB of JSON, a quarter of a 200k-token context for the arguments of one tool. A schema
/// that size is no help to a model; the pack compiler refuses a tool with a larger view
/// (`charter_build::size`) and the OpenAPI importer cuts tools down to fit.
pub const MAX_VIEW_TOKENS: u32 = 50_000;

/// `json_tokens` of already-rendered JSON text: its character count divided by 4.
pub const fn text_tokens(json_text: &str) -> u32 {
    // Count characters (not bytes): UTF-8 continuation bytes are 0b10xx_xxxx.
    let bytes = json_text.as_bytes();
    let mut chars = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] & 0xC0 != 0x80 {
            chars += 1;
        }
        i += 1;
    }
    chars / 4
}

/// The estimate for a character count (what removing some characters from a text leaves).
pub const fn chars_tokens(chars: usize) -> u32 {
    let t = chars / 4;
    if t > u32::MAX as usize {
        u32::MAX
    } else {
        t as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(text_tokens("{}"), 0);
        assert_eq!(text_tokens("{\"a\":1}"), 1);
        assert_eq!(text_tokens("\"ééé\""), 1);
        assert_eq!(chars_tokens(15), 3);
    }
}
