//! The static token table of ToolSearch's semantic layer (docs/search.md, "Semantic layer"):
//! one vector per WordPiece token, distilled once, offline, from the sentence-embedding model
//! all-MiniLM-L6-v2 (Apache-2.0) by `scripts/semantic/distill.py`, and vendored as
//! `data/semantic.bin` with the model's licence (`data/SEMANTIC-LICENSE`).
//!
//! A text's vector is the mean of its tokens' rows: no model and no network at run time. The
//! table is one byte blob read in place (offsets, not pointers: nothing for the loader to
//! relocate), so a process that never embeds a text never touches its pages.
//!
//! Each tool's vectors are compiled with it ([`TokenTable::tool_vectors`]); a query's vector is
//! the mean of its tokens' ([`TokenTable::query`]), scored against them by integer dot products.

mod kernel;

/// The vendored table: a header, `count + 1` token offsets, `count` row scales, the int8 rows,
/// then the tokens' text, sorted by bytes.
static SHIPPED: &[u8] = include_bytes!("../data/semantic.bin");

const MAGIC: &[u8; 8] = b"CHSEM1\0\0";

/// How many dimensions a vector has.
pub const DIMS: usize = 128;

/// A word longer than this is one unknown token (the model's tokenizer does the same).
const MAX_WORD: usize = 100;

/// A token table read in place from its bytes.
///
/// ```
/// let table = charter_terms::semantic::TokenTable::shipped();
/// let pr = table.embed("open a pull request").unwrap();
/// let near = table.embed("create a pull request").unwrap();
/// let far = table.embed("refund a payment").unwrap();
/// assert!(charter_terms::semantic::cosine(&pr, &near) > charter_terms::semantic::cosine(&pr, &far));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TokenTable {
    count: usize,
    offsets: &'static [u8],
    scales: &'static [u8],
    rows: &'static [u8],
    text: &'static [u8],
}

impl TokenTable {
    /// The table vendored with this crate.
    pub fn shipped() -> TokenTable {
        TokenTable::read(SHIPPED).expect("the vendored table is well formed (a unit test reads it)")
    }

    /// Reads a table, `None` when the bytes are not one (wrong magic, dimensions or length).
    fn read(bytes: &'static [u8]) -> Option<TokenTable> {
        let rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let u32_at = |b: &[u8], i: usize| -> Option<usize> {
            Some(u32::from_le_bytes(b.get(i * 4..i * 4 + 4)?.try_into().ok()?) as usize)
        };
        let (count, dims, text_len) = (u32_at(rest, 0)?, u32_at(rest, 1)?, u32_at(rest, 2)?);
        if dims != DIMS {
            return None;
        }
        let body = rest.get(12..)?;
        let (offsets, body) = body.split_at_checked((count + 1) * 4)?;
        let (scales, body) = body.split_at_checked(count * 4)?;
        let (rows, text) = body.split_at_checked(count * DIMS)?;
        (text.len() == text_len && u32_at(offsets, count)? == text_len).then_some(TokenTable {
            count,
            offsets,
            scales,
            rows,
            text,
        })
    }

    /// How many tokens the table holds.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the table holds no token.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn offset(&self, i: usize) -> usize {
        let b = &self.offsets[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    }

    fn token(&self, i: usize) -> &'static [u8] {
        &self.text[self.offset(i)..self.offset(i + 1)]
    }

    /// The row of a token (`##` opens a piece that continues a word), by binary search.
    fn find(&self, token: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.token(mid).cmp(token) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The WordPiece tokens of a text, as the model's tokenizer splits it: lowercased, split at
    /// whitespace and around punctuation, each word cut into the longest pieces the vocabulary
    /// knows. A word with no such split (non-ASCII, say) gives nothing.
    pub fn tokens(&self, text: &str) -> Vec<&'static str> {
        self.ids(text)
            .into_iter()
            .map(|i| std::str::from_utf8(self.token(i)).unwrap_or(""))
            .collect()
    }

    /// The rows of a text's tokens, in order.
    fn ids(&self, text: &str) -> Vec<usize> {
        let mut ids = Vec::new();
        let lower = text.to_lowercase();
        for word in pre_split(&lower) {
            self.word_pieces(word, &mut ids);
        }
        ids
    }

    fn word_pieces(&self, word: &str, out: &mut Vec<usize>) {
        if word.len() > MAX_WORD || !word.is_ascii() {
            return;
        }
        let mark = out.len();
        let mut piece = Vec::with_capacity(word.len() + 2);
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                if end == start {
                    break None;
                }
                piece.clear();
                if start > 0 {
                    piece.extend_from_slice(b"##");
                }
                piece.extend_from_slice(&word.as_bytes()[start..end]);
                if let Some(i) = self.find(&piece) {
                    break Some(i);
                }
                end -= 1;
            };
            match found {
                Some(i) => out.push(i),
                None => {
                    // No split: the whole word is unknown, as in the model's tokenizer.
                    out.truncate(mark);
                    return;
                }
            }
            start = end;
        }
    }

    /// The vector of a text, the mean of its tokens' rows, of length one; `None` when no token
    /// of it is known.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let ids = self.ids(text);
        let mut sum = vec![0f32; DIMS];
        for &i in &ids {
            let b = &self.scales[i * 4..i * 4 + 4];
            let scale = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            for (s, q) in sum.iter_mut().zip(&self.rows[i * DIMS..(i + 1) * DIMS]) {
                *s += scale * f32::from(*q as i8);
            }
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        (!ids.is_empty() && norm > 0.0).then(|| sum.into_iter().map(|x| x / norm).collect())
    }

    /// A query's vector, ready to score tools with ([`QueryVector::score`]); `None` when no
    /// token of the text is known.
    pub fn query(&self, text: &str) -> Option<QueryVector> {
        Quantized::from_unit(&self.embed(text)?).map(QueryVector::new)
    }

    /// A tool's compiled vectors, the bytes the pack compiler and `#[charter::tool]` emit as a
    /// constant (and a session derives for a hand-built tool): [`RECORD`] bytes per vector,
    /// first the vector of all its text (the name's words, the description, the hints), then one
    /// per part a query may say alone: the name's words, the description's first sentence,
    /// each hint. Empty when no token of the text is known.
    ///
    /// ```
    /// use charter_terms::semantic::{RECORD, TokenTable};
    /// let table = TokenTable::shipped();
    /// let vectors = table.tool_vectors("github_pulls_create", "Open a pull request. Needs a head branch.", &["open pr"]);
    /// assert_eq!(vectors.len(), 4 * RECORD); // all, name, first sentence, one hint
    /// let query = table.query("create a PR").unwrap();
    /// let near = query.score(&vectors).unwrap();
    /// let far = query.score(&table.tool_vectors("stripe_refunds_create", "Refund a charge.", &[])).unwrap();
    /// assert!(near > far);
    /// ```
    pub fn tool_vectors(&self, name: &str, description: &str, hints: &[&str]) -> Vec<u8> {
        let words = name.replace('_', " ");
        let mut all = format!("{words} {description}");
        for hint in hints {
            all.push(' ');
            all.push_str(hint);
        }
        let mut out = Vec::new();
        let Some(whole) = self.embed(&all).as_deref().and_then(Quantized::from_unit) else {
            return out;
        };
        whole.write(&mut out);
        let first_sentence = description.split(". ").next().unwrap_or(description);
        let parts = [words.as_str(), first_sentence]
            .into_iter()
            .chain(hints.iter().copied());
        for part in parts {
            if let Some(q) = self.embed(part).as_deref().and_then(Quantized::from_unit) {
                q.write(&mut out);
            }
        }
        out
    }
}

/// The bytes of one compiled vector: its inverse length (`f32`, little-endian), then [`DIMS`]
/// int8 components.
pub const RECORD: usize = 4 + DIMS;

/// How much the best part of a tool (its name, first sentence or a hint) counts against all of
/// its text: a query often says one part alone (`open pr`), and all the text dilutes it.
const BEST_PART: f32 = 0.5;

/// A vector as int8 components scaled to the widest, with the inverse of their length: the dot
/// product of two is integer arithmetic, and their cosine that times both inverses.
#[derive(Debug, Clone, Copy)]
struct Quantized {
    values: [i8; DIMS],
    inv_norm: f32,
}

impl Quantized {
    fn from_unit(v: &[f32]) -> Option<Quantized> {
        let widest = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        if v.len() != DIMS || widest.is_nan() || widest <= 0.0 || !widest.is_finite() {
            return None;
        }
        let mut values = [0i8; DIMS];
        for (q, x) in values.iter_mut().zip(v) {
            *q = (x * 127.0 / widest).round().clamp(-127.0, 127.0) as i8;
        }
        let norm = values
            .iter()
            .map(|q| f32::from(*q).powi(2))
            .sum::<f32>()
            .sqrt();
        Some(Quantized {
            values,
            inv_norm: 1.0 / norm,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.inv_norm.to_le_bytes());
        out.extend(self.values.iter().map(|q| *q as u8));
    }
}

/// A query's vector ([`TokenTable::query`]), widened for the multiply-adds of the scan.
#[derive(Clone, Copy)]
pub struct QueryVector {
    values: [i16; DIMS],
    inv_norm: f32,
    kernel: kernel::Kernel,
}

impl std::fmt::Debug for QueryVector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryVector")
            .field("values", &self.values)
            .finish_non_exhaustive()
    }
}

impl QueryVector {
    fn new(q: Quantized) -> QueryVector {
        QueryVector {
            values: q.values.map(i16::from),
            inv_norm: q.inv_norm,
            kernel: kernel::best(),
        }
    }

    /// How near a tool is, from its compiled vectors ([`TokenTable::tool_vectors`]): half the
    /// cosine with all of its text, half the best cosine with one of its parts. `None` when the
    /// bytes are not whole records.
    pub fn score(&self, vectors: &[u8]) -> Option<f32> {
        if vectors.is_empty() || !vectors.len().is_multiple_of(RECORD) {
            return None;
        }
        let (whole, best) = (self.kernel)(&self.values, vectors);
        let (whole, best) = (whole * self.inv_norm, best * self.inv_norm);
        Some(if best.is_finite() {
            (1.0 - BEST_PART) * whole + BEST_PART * best
        } else {
            whole
        })
    }
}

/// The cosine of two vectors of length one (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Whitespace-separated words with every ASCII punctuation character a word of its own
/// (`eng-340!` is `eng`, `-`, `340`, `!`), as BERT's basic tokenizer splits.
fn pre_split(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace().flat_map(|chunk| {
        let mut parts = Vec::new();
        let mut start = 0;
        for (i, c) in chunk.char_indices() {
            if c.is_ascii_punctuation() {
                if start < i {
                    parts.push(&chunk[start..i]);
                }
                parts.push(&chunk[i..i + 1]);
                start = i + 1;
            }
        }
        if start < chunk.len() {
            parts.push(&chunk[start..]);
        }
        parts
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendored_table_reads_and_splits_as_the_models_tokenizer() {
        let table = TokenTable::shipped();
        assert_eq!(table.len(), 27_623);
        // The pieces `transformers`' BertTokenizer gives for the same text.
        assert_eq!(
            table.tokens("Open a PR for emojis, ENG-340!"),
            [
                "open", "a", "pr", "for", "em", "##oj", "##is", ",", "eng", "-", "340", "!"
            ]
        );
        assert!(table.tokens("naïve ☃").is_empty());
        assert!(table.embed("").is_none());
    }

    #[test]
    fn near_meanings_are_nearer() {
        let t = TokenTable::shipped();
        let v = |s: &str| t.embed(s).unwrap();
        let pr = v("open a pull request");
        assert!(cosine(&pr, &v("create a pull request")) > cosine(&pr, &v("refund a payment")));
        // The distillation script's numpy port of the same mean gives 0.8332 and 0.1575.
        assert!((cosine(&pr, &v("create a pull request")) - 0.8332).abs() < 2e-3);
        assert!((cosine(&pr, &v("refund a payment")) - 0.1575).abs() < 2e-3);
        let meeting = v("schedule a meeting tomorrow");
        assert!(
            cosine(&meeting, &v("create calendar event"))
                > cosine(&meeting, &v("delete a repository"))
        );
        assert!((cosine(&pr, &pr) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn tools_score_from_their_compiled_vectors() {
        let t = TokenTable::shipped();
        let pr = t.tool_vectors(
            "github_pulls_create",
            "Open a pull request. Then review it.",
            &["open pr"],
        );
        assert_eq!(pr.len(), 4 * RECORD);
        let refund = t.tool_vectors("stripe_refunds_create", "Refund a charge", &[]);
        // The description is one sentence: its part is still its own record.
        assert_eq!(refund.len(), 3 * RECORD);
        let q = t.query("open a PR").unwrap();
        let (near, far) = (q.score(&pr).unwrap(), q.score(&refund).unwrap());
        assert!(near > far && near <= 1.0 + 1e-4, "{near} vs {far}");
        // The whole text alone scores as its cosine (quantized: to a hundredth).
        let whole = q.score(&pr[..RECORD]).unwrap();
        let exact = cosine(
            &t.embed("open a pr").unwrap(),
            &t.embed("github pulls create Open a pull request. Then review it. open pr")
                .unwrap(),
        );
        assert!((whole - exact).abs() < 1e-2, "{whole} vs {exact}");
        // Bytes that are not whole records score nothing; neither does text of no known token.
        assert!(q.score(&[]).is_none());
        assert!(q.score(&pr[..RECORD + 1]).is_none());
        assert!(t.query("☃").is_none());
        assert!(t.tool_vectors("☃", "", &[]).is_empty());
    }

    #[test]
    fn a_damaged_table_is_refused() {
        assert!(TokenTable::read(&SHIPPED[..SHIPPED.len() - 1]).is_none());
        assert!(TokenTable::read(&SHIPPED[8..]).is_none());
        assert!(TokenTable::read(b"CHSEM1\0\0").is_none());
    }
}
