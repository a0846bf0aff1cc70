//! Texts kept apart from what listing tools reads.
//!
//! A server that lists its tools reads every tool's name, description and portable schema; it
//! never reads code mode's TypeScript signatures or the provider dialects' schemas unless a
//! session asks for them. When those texts lie among the listed ones, listing maps the pages of
//! both (the kernel maps file pages 64 KiB around each one read), so generated tables keep them
//! in statics of their own: a string literal's bytes go wherever the compiler puts its
//! constants, a static's bytes go in the section the static names (docs/mcp.md, "Memory").

/// A text that is a static's own bytes, so the static's `#[link_section]` places the text.
///
/// Built from a string literal of exactly `N` bytes in `const` context (the compiler checks the
/// length), read back as the `&'static str` a table holds with [`ColdText::as_str`].
#[repr(transparent)]
pub struct ColdText<const N: usize>([u8; N]);

impl<const N: usize> ColdText<N> {
    /// The bytes of `text`, which must be exactly `N` bytes long (a compile-time error in a
    /// `static` initializer otherwise).
    pub const fn new(text: &str) -> ColdText<N> {
        match text.as_bytes().first_chunk::<N>() {
            Some(bytes) if text.len() == N => ColdText(*bytes),
            _ => panic!("a ColdText's length is not its text's"),
        }
    }

    /// The text, borrowed for as long as the static holding it.
    pub const fn as_str(&'static self) -> &'static str {
        // SAFETY: the bytes are those of a `&str` (`new` is the only constructor), so UTF-8.
        unsafe { core::str::from_utf8_unchecked(&self.0) }
    }
}

impl<const N: usize> std::fmt::Debug for ColdText<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: as in `as_str`.
        std::fmt::Debug::fmt(unsafe { core::str::from_utf8_unchecked(&self.0) }, f)
    }
}

#[cfg(test)]
mod tests {
    use super::ColdText;

    static TEXT: ColdText<11> = ColdText::new("é \"quoted\"");

    #[test]
    fn reads_back_the_text() {
        assert_eq!(TEXT.as_str(), "é \"quoted\"");
        assert_eq!(format!("{TEXT:?}"), format!("{:?}", "é \"quoted\""));
    }
}
