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
pub(crate) struct ListWriter<W> {
    write: W,
    shared: Arc<Shared>,
    marks: Marks,
    /// Whether the next byte rmcp writes starts a line.
    line_start: bool,
    /// An expanded line still to write, and how much of it is written.
    pending: Vec<u8>,
    written: usize,
}

impl<W: AsyncWrite + Unpin> ListWriter<W> {
    pub(crate) fn new(write: W, shared: Arc<Shared>, marks: Marks) -> Self {
        Self {
            write,
            shared,
            marks,
            line_start: true,
            pending: Vec::new(),
            written: 0,
        }
    }

    /// Writes what is left of an expanded line.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.write).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        if !self.pending.is_empty() {
            self.pending = Vec::new();
            self.written = 0;
        }
        Poll::Ready(Ok(()))
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
        if this.line_start
            && this.marks.load(Ordering::Acquire) > 0
            && let Some(end) = buf.iter().position(|b| *b == b'\n')
            && contains(&buf[..end], MARKER)
            && let Some(line) = expand(&buf[..end], &this.shared)
        {
            this.marks.fetch_sub(1, Ordering::AcqRel);
            this.pending = line;
            this.written = 0;
            // rmcp's line is taken whole; the expanded one goes out before anything else.
            let _ = this.poll_pending(cx)?;
            return Poll::Ready(Ok(end + 1));
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
        Pin::new(&mut self.write).poll_shutdown(cx)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The real line for a marked `tools/list` answer (without its `\n`), or `None` when `line` is
/// not one: the marker must be in the result's `_meta` and the result's `tools` empty, so a tool
/// result that merely holds such a key passes through untouched.
fn expand(line: &[u8], shared: &Shared) -> Option<Vec<u8>> {
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
    let texts = indices
        .iter()
        .map(|&i| shared.catalog.entry_json(i).ok())
        .collect::<Option<Vec<&str>>>()?;
    let text = serde_json::to_string(&message).ok()?;
    // The only `"tools":[]` of the line is the result's own: a string cannot hold an unescaped
    // quote, and the result's other members are rmcp's own.
    const TOOLS: &str = "\"tools\":[]";
    let cut = text.find(TOOLS)? + TOOLS.len() - 1;
    let size = text.len() + texts.iter().map(|t| t.len() + 1).sum::<usize>() + 1;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&text.as_bytes()[..cut]);
    for (n, t) in texts.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(t.as_bytes());
    }
    out.extend_from_slice(&text.as_bytes()[cut..]);
    out.push(b'\n');
    Some(out)
}
