//! MCP session ids kept out of logs. The id of a session over HTTP is what grants it (with a
//! shared store, on every instance), and rmcp logs it when a session starts, is restored or
//! fails (`session_id=…`, and inside some messages). A log writer wrapped in
//! [`MaskSessionIds`] writes a digest in its place, the same 16 hex digits telemetry records
//! (`mcp.session.id`), so the lines of one session can still be followed.

use std::borrow::Cow;
use std::io;

/// A writer that replaces every session id (rmcp's ids are UUIDs) in what it is given with
/// `session-<digest>`. tracing's formatter writes each event in one call, so an id is never
/// split across two writes.
#[derive(Debug)]
pub struct MaskSessionIds<W>(pub W);

impl<W: io::Write> io::Write for MaskSessionIds<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(mask_session_ids(text).as_bytes())?,
            Err(_) => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// `text` with every UUID-shaped word replaced by `session-` and 16 hex digits of its SHA-256.
pub fn mask_session_ids(text: &str) -> Cow<'_, str> {
    const LEN: usize = 36;
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i + LEN <= bytes.len() {
        if is_uuid(&bytes[i..i + LEN])
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && bytes
                .get(i + LEN)
                .is_none_or(|b| !b.is_ascii_alphanumeric())
        {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..i]);
            out.push_str("session-");
            out.push_str(&digest(&text[i..i + LEN]));
            i += LEN;
            copied = i;
        } else {
            i += 1;
        }
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    }
}

fn is_uuid(candidate: &[u8]) -> bool {
    candidate.iter().enumerate().all(|(n, b)| match n {
        8 | 13 | 18 | 23 => *b == b'-',
        _ => b.is_ascii_hexdigit(),
    })
}

/// 16 hex digits of SHA-256.
pub(crate) fn digest(id: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, id.as_bytes());
    digest.as_ref()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_in_fields_and_messages_become_digests() {
        let id = "0f8e7d6c-5b4a-4321-9876-abcdef012345";
        let line = format!(
            "INFO create new session session_id=\"{id}\"\nWARN Failed to close session {id}: x"
        );
        let masked = mask_session_ids(&line);
        assert!(!masked.contains(id), "{masked}");
        assert_eq!(
            masked.matches(&format!("session-{}", digest(id))).count(),
            2
        );
        // Nothing else changes; text without an id is not copied.
        assert!(matches!(
            mask_session_ids("GET /repos/octo/hello 200"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            mask_session_ids("x0f8e7d6c-5b4a-4321-9876-abcdef012345"),
            "x0f8e7d6c-5b4a-4321-9876-abcdef012345"
        );
    }
}
