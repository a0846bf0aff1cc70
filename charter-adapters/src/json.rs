//! A request-body writer that splices precomputed schema text in place.
//!
//! Schemas are compile-time JSON text (docs/design.md §1: nothing at run time serialises a schema), so the
//! body is written member by member: ordinary values through serde, schemas copied as bytes.

use serde::Serialize;

/// A JSON object being written.
pub(crate) struct ObjectWriter {
    buf: Vec<u8>,
    empty: bool,
}

impl ObjectWriter {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let mut buf = Vec::with_capacity(capacity);
        buf.push(b'{');
        Self { buf, empty: true }
    }

    /// Starts member `key`, leaving the buffer ready for its value.
    pub(crate) fn key(&mut self, key: &str) -> &mut Vec<u8> {
        if !self.empty {
            self.buf.push(b',');
        }
        self.empty = false;
        string(&mut self.buf, key);
        self.buf.push(b':');
        &mut self.buf
    }

    /// Member `key` with a serialisable value.
    pub(crate) fn value<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        let buf = self.key(key);
        // Writing to a Vec cannot fail; a value that cannot be serialised (a map with non-string
        // keys) cannot be built from the types the loops write.
        let _ = serde_json::to_writer(buf, value);
    }

    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.buf.push(b'}');
        self.buf
    }
}

/// Writes `text` as a JSON string.
pub(crate) fn string(buf: &mut Vec<u8>, text: &str) {
    let _ = serde_json::to_writer(buf, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_members_and_raw_text() {
        let mut w = ObjectWriter::with_capacity(16);
        w.value("model", "m\"1");
        w.key("raw").extend_from_slice(br#"{"type":"object"}"#);
        w.value("n", &3);
        let text = String::from_utf8(w.finish()).unwrap();
        assert_eq!(text, r#"{"model":"m\"1","raw":{"type":"object"},"n":3}"#);
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["raw"]["type"], "object");
    }

    #[test]
    fn empty_object() {
        assert_eq!(ObjectWriter::with_capacity(2).finish(), b"{}");
    }
}
