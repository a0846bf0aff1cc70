//! Where the emitter writes: a byte buffer, or nowhere (the length pass), counting bytes and
//! characters either way, so both passes run the same code and cannot disagree.

/// The output of one pass.
pub(crate) struct Out<'b> {
    /// The text buffer; empty in the length pass.
    buf: &'b mut [u8],
    /// Bytes written (or counted) so far.
    pub(crate) len: usize,
    /// Characters written (or counted) so far: what sizes count (docs/design.md §3).
    pub(crate) chars: usize,
}

impl<'b> Out<'b> {
    pub(crate) const fn new(buf: &'b mut [u8]) -> Out<'b> {
        Out {
            buf,
            len: 0,
            chars: 0,
        }
    }

    pub(crate) const fn byte(&mut self, b: u8) {
        if !self.buf.is_empty() {
            self.buf[self.len] = b;
        }
        self.len += 1;
        // UTF-8 continuation bytes are 0b10xx_xxxx: every other byte starts a character.
        if b & 0xC0 != 0x80 {
            self.chars += 1;
        }
    }

    /// Text already in JSON form.
    pub(crate) const fn raw(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            self.byte(b[i]);
            i += 1;
        }
    }

    /// `s` as a JSON string, quotes included.
    pub(crate) const fn string(&mut self, s: &str) {
        self.byte(b'"');
        self.escaped(s);
        self.byte(b'"');
    }

    /// The inside of a JSON string, escaped exactly as `serde_json` escapes it (compact): `"`,
    /// `\` and control characters; everything else, non-ASCII included, as is.
    pub(crate) const fn escaped(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            match c {
                b'"' => self.raw("\\\""),
                b'\\' => self.raw("\\\\"),
                b'\n' => self.raw("\\n"),
                b'\r' => self.raw("\\r"),
                b'\t' => self.raw("\\t"),
                0x08 => self.raw("\\b"),
                0x0C => self.raw("\\f"),
                0..=0x1F => {
                    self.raw("\\u00");
                    self.byte(HEX[(c >> 4) as usize]);
                    self.byte(HEX[(c & 0xF) as usize]);
                }
                _ => self.byte(c),
            }
            i += 1;
        }
    }

    /// An unsigned number in decimal.
    pub(crate) const fn uint(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        let mut k = 0;
        let mut n = n;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 {
            k -= 1;
            self.byte(digits[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(f: impl Fn(&mut Out<'_>)) -> (String, usize) {
        let mut counter = Out::new(&mut []);
        f(&mut counter);
        let mut buf = vec![0u8; counter.len];
        let mut out = Out::new(&mut buf);
        f(&mut out);
        let (len, chars) = (out.len, out.chars);
        assert_eq!((len, chars), (counter.len, counter.chars));
        (String::from_utf8(buf).unwrap(), chars)
    }

    #[test]
    fn strings_escape_as_serde_json_does() {
        for s in [
            "plain",
            "quote \" and \\ backslash",
            "line\nbreak\ttab\r\u{8}\u{c}",
            "\u{1}\u{1f}\u{7f}",
            "é ü 日本 🦀",
            "</script>",
        ] {
            let (text, chars) = written(|o| o.string(s));
            let expected = serde_json_like(s);
            assert_eq!(text, expected, "{s:?}");
            assert_eq!(chars, expected.chars().count());
        }
    }

    /// serde_json's compact escaping, spelled out (this crate has no dependencies).
    fn serde_json_like(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn numbers() {
        for n in [0u64, 7, 10, 255, 4_294_967_295, u64::MAX] {
            assert_eq!(written(|o| o.uint(n)).0, n.to_string());
        }
    }
}
