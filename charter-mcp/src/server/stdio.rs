//! The stdio transport: rmcp's line transport, writing `tools/list` answers from the catalog's
//! serialised tools instead of from parsed ones.
//!
//! rmcp's `Tool` holds its parameter schema as a parsed `serde_json::Map`: 815 tools parsed take
//! about 6 MiB of heap, a third of the whole server. The tables already hold every schema as text,
//! so over stdio the handler answers `tools/list` with an empty list whose `_meta` names the
//! catalog entries to show ([`RAW_LIST`]); rmcp runs its usual bookkeeping on that small answer
//! and writes it as one line to a [`ListWriter`], which writes the real line in its place:
//! rmcp's own line with the marker removed and the tools' serialised texts spliced into its
//! `"tools":[]`. Every other line passes through untouched.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use serde_json::Value;
use tokio::io::AsyncWrite;

use super::Shared;

/// The `_meta` key of a `tools/list` answer that [`ListWriter`] writes from serialised tools:
/// the catalog indices, in list order. Never reaches the client.
pub(crate) const RAW_LIST: &str = "charter/raw-list";

/// The marker as it appears in a line (a key, so never escaped).
const MARKER: &[u8] = b"\"charter/raw-list\":[";

/// How many marked answers the handler has made that the pipe has not yet written: lines are
/// only looked at while one is outstanding, so tool results (up to megabytes) pass unread.
pub(crate) type Marks = Arc<AtomicUsize>;

/// The pipe rmcp writes lines to, expanding marked `tools/list` answers.
///
/// It does not rely on how rmcp splits its output into writes: while a marked answer is
/// outstanding, each line is gathered whole (whatever the chunks) before it is looked at, and a
/// write holding several lines is taken one line at a time. Outside that window bytes pass
/// straight through. Tests pin this (`tests` below, and the stdio server's tests over a real
/// client): the marker rides in `ListToolsResult::meta`, MCP's `_meta`, which rmcp serialises
/// as given.
pub(crate) struct ListWriter<W> {
    write: W,
    shared: Arc<Shared>,
    marks: Marks,
    /// Whether the next byte rmcp writes starts a line.
    line_start: bool,
    /// The line being gathered while a marked answer is outstanding (`None`: passing through).
    line: Option<Vec<u8>>,
    /// Bytes still to write (a gathered line, or the next piece of an expanded one), and how
    /// much of them is written.
    pending: Vec<u8>,
    written: usize,
    /// The rest of an expanded answer, written a piece at a time into `pending`.
    expansion: Option<Expansion>,
}

/// A marked answer being written: the tools still to write, then the end of rmcp's line.
///
/// All packs listed take over a megabyte of text; written in pieces of about
/// [`PIECE_BYTES`], neither this writer nor the pipe below it ever holds the whole line.
struct Expansion {
    indices: std::vec::IntoIter<usize>,
    /// Whether a tool was written already (the next one needs a comma).
    started: bool,
    /// rmcp's line after `"tools":[`, with the `\n`.
    tail: Vec<u8>,
}

/// About how many bytes of an expanded answer are handed to the pipe at a time.
const PIECE_BYTES: usize = 64 * 1024;

impl<W: AsyncWrite + Unpin> ListWriter<W> {
    pub(crate) fn new(write: W, shared: Arc<Shared>, marks: Marks) -> Self {
        Self {
            write,
            shared,
            marks,
            line_start: true,
            line: None,
            pending: Vec::new(),
            written: 0,
            expansion: None,
        }
    }

    /// Writes what is left of a pending line (every piece of an expanded answer).
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            while self.written < self.pending.len() {
                let n = ready!(
                    Pin::new(&mut self.write).poll_write(cx, &self.pending[self.written..])
                )?;
                if n == 0 {
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                self.written += n;
            }
            self.pending.clear();
            self.written = 0;
            if !self.next_piece() {
                // Done: let the buffer go (an expanded answer's pieces are large).
                self.pending = Vec::new();
                return Poll::Ready(Ok(()));
            }
        }
    }

    /// Fills `pending` with the next piece of an expanded answer; `false` when none is left.
    fn next_piece(&mut self) -> bool {
        let Some(expansion) = self.expansion.as_mut() else {
            return false;
        };
        while self.pending.len() < PIECE_BYTES {
            let Some(i) = expansion.indices.next() else {
                self.pending.append(&mut expansion.tail);
                self.expansion = None;
                return true;
            };
            if expansion.started {
                self.pending.push(b',');
            }
            expansion.started = true;
            // Checked before the answer was marked (`Catalog::serialised`), so this cannot fail
            // now; were it to, leaving the tool out keeps the line valid JSON.
            if let Err(error) = self.shared.catalog.write_entry(i, &mut self.pending) {
                tracing::error!(%error, "a listed tool could not be written");
            }
        }
        true
    }

    /// Takes bytes of a line being gathered; a complete line is expanded if it is a marked
    /// answer and queued. Answers how many bytes of `buf` were taken.
    fn gather(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> io::Result<usize> {
        let line = self.line.get_or_insert_with(Vec::new);
        let Some(end) = buf.iter().position(|b| *b == b'\n') else {
            line.extend_from_slice(buf);
            return Ok(buf.len());
        };
        line.extend_from_slice(&buf[..end]);
        let line = self.line.take().unwrap_or_default();
        let expanded = if contains(&line, MARKER) {
            expand(&line, &self.shared)
        } else {
            None
        };
        self.pending = match expanded {
            Some((head, expansion)) => {
                self.marks.fetch_sub(1, Ordering::AcqRel);
                self.expansion = Some(expansion);
                head
            }
            None => {
                let mut line = line;
                line.push(b'\n');
                line
            }
        };
        self.written = 0;
        self.line_start = true;
        // The line is taken whole; it goes out before anything else (or on the next poll).
        let _ = self.poll_pending(cx)?;
        Ok(end + 1)
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for ListWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.poll_pending(cx))?;
        if this.line.is_some() || (this.line_start && this.marks.load(Ordering::Acquire) > 0) {
            return Poll::Ready(this.gather(cx, buf));
        }
        let n = ready!(Pin::new(&mut this.write).poll_write(cx, buf))?;
        if n > 0 {
            this.line_start = buf[n - 1] == b'\n';
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.write).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        if let Some(line) = self.line.take() {
            // A last line without its newline: write it as it came.
            self.pending = line;
            self.written = 0;
            ready!(self.poll_pending(cx))?;
        }
        Pin::new(&mut self.write).poll_shutdown(cx)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The real line for a marked `tools/list` answer, as its start (up to `"tools":[`) and the
/// tools and end still to write, or `None` when `line` is not one: the marker must be in the
/// result's `_meta` and the result's `tools` empty, so a tool result that merely holds such a key
/// passes through untouched.
fn expand(line: &[u8], shared: &Shared) -> Option<(Vec<u8>, Expansion)> {
    let mut message: Value = serde_json::from_slice(line).ok()?;
    let result = message.get_mut("result")?.as_object_mut()?;
    if !result.get("tools")?.as_array()?.is_empty() {
        return None;
    }
    let meta = result.get_mut("_meta")?.as_object_mut()?;
    let indices: Vec<usize> = serde_json::from_value(meta.remove(RAW_LIST)?).ok()?;
    if meta.is_empty() {
        result.remove("_meta");
    }
    let text = serde_json::to_string(&message).ok()?;
    // The only `"tools":[]` of the line is the result's own: a string cannot hold an unescaped
    // quote, and the result's other members are rmcp's own.
    const TOOLS: &str = "\"tools\":[]";
    let cut = text.find(TOOLS)? + TOOLS.len() - 1;
    if !shared.catalog.writable(&indices) {
        return None;
    }
    let mut head = Vec::with_capacity(PIECE_BYTES.min(cut + shared.catalog.text_size(&indices)));
    head.extend_from_slice(&text.as_bytes()[..cut]);
    let mut tail = text.as_bytes()[cut..].to_vec();
    tail.push(b'\n');
    let expansion = Expansion {
        indices: indices.into_iter(),
        started: false,
        tail,
    };
    Some((head, expansion))
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ListToolsResult, MetaObject, RequestId, ServerJsonRpcMessage, ServerResult};
    use tokio::io::AsyncWriteExt;

    use super::*;
    use crate::{McpServer, ServerOptions};

    fn server() -> McpServer {
        let table = charter_testkit::table(serde_json::json!({"pack": "pin", "tools": [
            {"name": "one", "description": "First.",
             "params": {"a": {"type": "string", "description": "A."}}},
            {"name": "two", "description": "Second.",
             "params": {"b": {"type": "integer", "description": "B."}}}
        ]}));
        McpServer::new(&[table], ServerOptions::default()).unwrap()
    }

    /// A marked `tools/list` answer exactly as rmcp serialises it.
    fn rmcp_line(indices: &[usize]) -> Vec<u8> {
        let mut result = ListToolsResult::with_all_items(Vec::new());
        let mut meta = MetaObject::default();
        meta.insert(RAW_LIST.to_owned(), Value::from(indices.to_vec()));
        result.meta = Some(meta);
        let message = ServerJsonRpcMessage::response(
            ServerResult::ListToolsResult(result),
            RequestId::Number(7),
        );
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        line
    }

    /// Writes `chunks` through a ListWriter with one marked answer outstanding.
    async fn through(server: &McpServer, chunks: &[&[u8]]) -> String {
        let marks = Marks::default();
        marks.fetch_add(1, Ordering::AcqRel);
        let mut out = Vec::new();
        {
            let mut writer = ListWriter::new(&mut out, server.shared.clone(), marks.clone());
            for chunk in chunks {
                writer.write_all(chunk).await.unwrap();
            }
            writer.flush().await.unwrap();
        }
        assert_eq!(marks.load(Ordering::Acquire), 0, "the mark was consumed");
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rmcp_writes_the_marker_where_the_writer_looks_for_it() {
        // Pinned to rmcp's serialisation: the key in the result's `_meta`, an empty `tools`.
        let line = String::from_utf8(rmcp_line(&[0, 1])).unwrap();
        assert!(line.contains(r#""charter/raw-list":[0,1]"#), "{line}");
        assert!(line.contains(r#""tools":[]"#), "{line}");
        assert_eq!(line.matches('\n').count(), 1);
    }

    #[tokio::test]
    async fn a_marked_answer_is_expanded_however_rmcp_chunks_its_writes() {
        let server = server();
        server.shared.catalog.check_json().unwrap();
        let marked = rmcp_line(&[1, 0]);
        let other = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n".to_vec();
        let whole = through(&server, &[&marked]).await;
        let parsed: Value = serde_json::from_str(whole.trim_end()).unwrap();
        let names: Vec<&str> = parsed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["pin_two", "pin_one"]);
        assert!(parsed["result"].get("_meta").is_none(), "{whole}");
        assert_eq!(parsed["id"], 7);

        let bytes: Vec<&[u8]> = marked.chunks(1).collect();
        assert_eq!(through(&server, &bytes).await, whole, "byte by byte");
        let (a, b) = marked.split_at(marked.len() / 2);
        assert_eq!(through(&server, &[a, b]).await, whole, "in two writes");
        let before = [other.clone(), marked.clone()].concat();
        let expected = format!("{}{whole}", String::from_utf8_lossy(&other));
        assert_eq!(through(&server, &[&before]).await, expected, "second line");
        let after = [marked.clone(), other.clone()].concat();
        let expected = format!("{whole}{}", String::from_utf8_lossy(&other));
        assert_eq!(through(&server, &[&after]).await, expected, "first line");
    }

    /// A pipe that takes every write whole and remembers its size.
    #[derive(Default)]
    struct Recording {
        bytes: Vec<u8>,
        writes: Vec<usize>,
    }

    impl AsyncWrite for Recording {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.bytes.extend_from_slice(buf);
            self.writes.push(buf.len());
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_large_answer_goes_to_the_pipe_in_pieces() {
        let tools: Vec<Value> = (0..400)
            .map(|i| serde_json::json!({"name": format!("t{i}"), "description": "x".repeat(600)}))
            .collect();
        let table = charter_testkit::table(serde_json::json!({"pack": "big", "tools": tools}));
        let server = McpServer::new(&[table], ServerOptions::default()).unwrap();
        let indices: Vec<usize> = (0..400).collect();
        let marks = Marks::default();
        marks.fetch_add(1, Ordering::AcqRel);
        let mut pipe = Recording::default();
        {
            let mut writer = ListWriter::new(&mut pipe, server.shared.clone(), marks.clone());
            writer.write_all(&rmcp_line(&indices)).await.unwrap();
            writer.flush().await.unwrap();
        }
        // About 300 kB of tools: never held whole, each piece a little over PIECE_BYTES at most.
        assert!(
            pipe.bytes.len() > 4 * PIECE_BYTES,
            "{} bytes",
            pipe.bytes.len()
        );
        assert!(pipe.writes.len() >= 4, "{:?}", pipe.writes);
        assert!(
            pipe.writes.iter().all(|n| *n <= PIECE_BYTES + 1024),
            "{:?}",
            pipe.writes
        );
        let parsed: Value = serde_json::from_slice(&pipe.bytes).unwrap();
        let names: Vec<&str> = parsed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let expected: Vec<String> = (0..400).map(|i| format!("big_t{i}")).collect();
        assert_eq!(names, expected);
        assert_eq!(pipe.bytes.last(), Some(&b'\n'));
        assert_eq!(marks.load(Ordering::Acquire), 0);
    }

    #[tokio::test]
    async fn lines_without_the_marker_pass_untouched() {
        let server = server();
        // A tool result that holds the marker as a key of its own is not a list answer.
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"charter/raw-list":[0]}}}
"#;
        let marks = Marks::default();
        marks.fetch_add(1, Ordering::AcqRel);
        let mut out = Vec::new();
        {
            let mut writer = ListWriter::new(&mut out, server.shared.clone(), marks.clone());
            writer.write_all(line).await.unwrap();
            writer.flush().await.unwrap();
        }
        assert_eq!(out, line);
        assert_eq!(marks.load(Ordering::Acquire), 1, "still outstanding");
    }
}
