//! The relevance ranking: whole-term matching over stemmed, field-weighted terms, weighted by
//! inverse document frequency over the catalogue, with query-side synonyms and tie-breaks that
//! prefer the plain tool of a resource.
//!
//! Every tool's terms were tokenised, stemmed and tagged with their fields at build time
//! ([`SearchData::terms`](crate::table::SearchData)); the session only lays them out as an
//! inverted index (once, on the first keyword query) and counts document frequencies. A query
//! is tokenised with the same pipeline ([`charter_terms`]), expanded with the shipped synonym
//! table, and scored by walking the postings of its few terms.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use charter_terms::{Fields, field};

use super::Candidate;

/// The shipped synonym table (see the file for its format).
pub const SYNONYMS: &str = include_str!("synonyms.txt");

/// How much a field counts: name parts above hints above the pack label above the description
/// above parameter names.
const WEIGHTS: [(Fields, f32); 5] = [
    (field::NAME, 3.0),
    (field::HINT, 2.0),
    (field::PACK, 1.5),
    (field::DESCRIPTION, 1.0),
    (field::PARAM, 0.5),
];

/// What a term found in several fields adds beyond its best field, per other field's weight.
const EXTRA_FIELD: f32 = 0.25;

/// What a term reached only through a synonym counts, relative to the word typed.
const SYNONYM: f32 = 0.8;

/// The weight of a term occurring in `fields`.
fn weight(fields: Fields) -> f32 {
    let mut best = 0.0f32;
    let mut sum = 0.0f32;
    for (bit, w) in WEIGHTS {
        if fields & bit != 0 {
            best = best.max(w);
            sum += w;
        }
    }
    best + EXTRA_FIELD * (sum - best)
}

/// A fast hasher for short term strings (FNV-1a): the index hashes every term of the catalogue
/// once, and a query hashes a handful.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// One posting: a candidate holding a term, and where.
#[derive(Debug, Clone, Copy)]
struct Posting {
    candidate: u32,
    weight: f32,
}

/// The synonym table, stemmed: for a phrase (as stems), the phrases it also means.
#[derive(Debug, Default)]
struct Synonyms {
    alternatives: Map<Vec<String>, Vec<Vec<String>>>,
    longest: usize,
}

impl Synonyms {
    fn parse(text: &str) -> Self {
        let mut out = Synonyms::default();
        let phrase = |p: &str| -> Vec<String> { charter_terms::terms(p).collect() };
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (from, to): (Vec<Vec<String>>, Vec<Vec<String>>) = match line.split_once('>') {
                Some((left, right)) => (
                    vec![phrase(left)],
                    right.split('|').map(phrase).collect(),
                ),
                None => {
                    let all: Vec<Vec<String>> = line.split('|').map(phrase).collect();
                    (all.clone(), all)
                }
            };
            for f in from.into_iter().filter(|f| !f.is_empty()) {
                out.longest = out.longest.max(f.len());
                let alts = out.alternatives.entry(f.clone()).or_default();
                for t in &to {
                    if !t.is_empty() && *t != f && !alts.contains(t) {
                        alts.push(t.clone());
                    }
                }
            }
        }
        out
    }
}

/// The catalogue's terms as an inverted index with document frequencies.
#[derive(Debug, Default)]
pub(super) struct TermIndex {
    /// Term -> its id.
    ids: Map<Cow<'static, str>, u32>,
    /// Postings of term `id`: `postings[starts[id]..starts[id + 1]]`, by candidate.
    starts: Vec<u32>,
    postings: Vec<Posting>,
    /// Inverse document frequency of each term.
    idf: Vec<f32>,
    /// Per candidate: 0 for the plain list/get/create of a resource, 1 for a variant.
    variant: Vec<u8>,
    /// Per candidate: the length of the tool's own name (shorter first on ties).
    name_len: Vec<u16>,
    synonyms: Synonyms,
}

impl TermIndex {
    pub(super) fn build<'a>(count: usize, candidate: &impl Fn(usize) -> Candidate<'a>) -> Self {
        let mut ids: Map<Cow<'static, str>, u32> = Map::default();
        // (term id, candidate, fields) in candidate order.
        let mut flat: Vec<(u32, u32, Fields)> = Vec::with_capacity(count * 32);
        let mut df: Vec<u32> = Vec::new();
        let mut variant = Vec::with_capacity(count);
        let mut name_len = Vec::with_capacity(count);
        let mut id_of = |term: Cow<'static, str>, ids: &mut Map<Cow<'static, str>, u32>| -> u32 {
            if let Some(id) = ids.get(term.as_ref()) {
                return *id;
            }
            let id = ids.len() as u32;
            ids.insert(term, id);
            df.push(0);
            id
        };
        let mut packs: Vec<(&str, Vec<String>)> = Vec::new();
        for k in 0..count {
            let c = candidate(k);
            let k32 = k as u32;
            let first = flat.len();
            match c.terms {
                Some(terms) => {
                    for (term, fields) in terms.iter() {
                        let id = id_of(Cow::Borrowed(term), &mut ids);
                        flat.push((id, k32, fields));
                    }
                }
                None => {
                    // A toolkit tool arrived at run time: its text is tokenised here, once.
                    let terms = charter_terms::ToolTerms::new(
                        c.tool,
                        c.hints.iter().copied(),
                        c.description,
                        std::iter::empty(),
                    );
                    for (term, fields) in terms.iter() {
                        let id = id_of(Cow::Owned(term.to_owned()), &mut ids);
                        flat.push((id, k32, fields));
                    }
                }
            }
            // The pack label: a `#[charter::tool]` does not know its pack at build time.
            let pack_terms = match packs.iter().find(|(p, _)| *p == c.pack) {
                Some((_, t)) => t.clone(),
                None => {
                    let t: Vec<String> = charter_terms::terms(c.pack).collect();
                    packs.push((c.pack, t.clone()));
                    t
                }
            };
            for term in pack_terms {
                let id = id_of(Cow::Owned(term), &mut ids);
                match flat[first..].iter_mut().find(|(i, _, _)| *i == id) {
                    Some(entry) => entry.2 |= field::PACK,
                    None => flat.push((id, k32, field::PACK)),
                }
            }
            variant.push(u8::from(!charter_terms::is_plain(c.tool)));
            name_len.push(c.tool.len().min(u16::MAX as usize) as u16);
        }
        for (id, _, _) in &flat {
            df[*id as usize] += 1;
        }
        let mut starts = Vec::with_capacity(df.len() + 1);
        let mut at = 0u32;
        for d in &df {
            starts.push(at);
            at += d;
        }
        starts.push(at);
        let mut fill = starts.clone();
        let mut postings = vec![
            Posting {
                candidate: 0,
                weight: 0.0
            };
            flat.len()
        ];
        for (id, k, fields) in flat {
            let slot = &mut fill[id as usize];
            postings[*slot as usize] = Posting {
                candidate: k,
                weight: weight(fields),
            };
            *slot += 1;
        }
        let n = count as f32;
        let idf = df
            .iter()
            .map(|d| {
                let d = *d as f32;
                ((n - d + 0.5) / (d + 0.5) + 1.0).ln()
            })
            .collect();
        TermIndex {
            ids,
            starts,
            postings,
            idf,
            variant,
            name_len,
            synonyms: Synonyms::parse(SYNONYMS),
        }
    }

    fn postings(&self, term: &str) -> Option<(f32, &[Posting])> {
        let id = *self.ids.get(term)? as usize;
        let range = self.starts[id] as usize..self.starts[id + 1] as usize;
        Some((self.idf[id], &self.postings[range]))
    }

    /// Adds `scale` times the score of `phrase` (the sum over its terms of idf times field
    /// weight) to `into`, recording candidates seen for the first time in `touched`.
    fn score_phrase(
        &self,
        phrase: &[String],
        scale: f32,
        into: &mut [f32],
        touched: &mut Vec<u32>,
    ) {
        for term in phrase {
            if let Some((idf, postings)) = self.postings(term) {
                for p in postings {
                    let slot = &mut into[p.candidate as usize];
                    if *slot == 0.0 {
                        touched.push(p.candidate);
                    }
                    *slot += scale * idf * p.weight;
                }
            }
        }
    }

    /// Ranks the candidates (given in alphabetical order) for a query, best first: positions of
    /// at most `limit` candidates. `passes` says whether a candidate passes the `+term` filter.
    pub(super) fn rank(
        &self,
        words: &[String],
        passes: Option<&[bool]>,
        limit: usize,
    ) -> Vec<usize> {
        let count = self.variant.len();
        let stems: Vec<String> = words.iter().flat_map(|w| charter_terms::terms(w)).collect();
        let passes_k = |k: usize| passes.is_none_or(|p| p[k]);
        if stems.is_empty() {
            // Only `+term`s (or nothing usable): the filter alone, plain tools first.
            if passes.is_none() {
                return Vec::new();
            }
            let mut hits: Vec<usize> = (0..count).filter(|k| passes_k(*k)).collect();
            hits.sort_by_key(|k| (self.variant[*k], self.name_len[*k], *k));
            hits.truncate(limit);
            return hits;
        }
        let mut total = vec![0.0f32; count];
        let mut best = vec![0.0f32; count];
        let mut phrase = vec![0.0f32; count];
        let mut hit: Vec<u32> = Vec::new();
        let mut slot_touched: Vec<u32> = Vec::new();
        let mut phrase_touched: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < stems.len() {
            // The longest phrase at `i` the synonym table knows, else the single stem.
            let mut len = self.synonyms.longest.min(stems.len() - i);
            let alternatives = loop {
                if len == 0 {
                    len = 1;
                    break None;
                }
                if let Some(alts) = self.synonyms.alternatives.get(&stems[i..i + len]) {
                    break Some(alts);
                }
                len -= 1;
            };
            let literal = &stems[i..i + len];
            // The slot's score for a candidate: its best reading (the words typed, or one of
            // their synonyms, scaled to the same number of words).
            self.score_phrase(literal, 1.0, &mut best, &mut slot_touched);
            for alt in alternatives.into_iter().flatten() {
                let scale = SYNONYM * literal.len() as f32 / alt.len() as f32;
                self.score_phrase(alt, scale, &mut phrase, &mut phrase_touched);
                for k in phrase_touched.drain(..) {
                    let k = k as usize;
                    if best[k] == 0.0 {
                        slot_touched.push(k as u32);
                    }
                    best[k] = best[k].max(phrase[k]);
                    phrase[k] = 0.0;
                }
            }
            for k in slot_touched.drain(..) {
                let k = k as usize;
                if total[k] == 0.0 {
                    hit.push(k as u32);
                }
                total[k] += best[k];
                best[k] = 0.0;
            }
            i += len;
        }
        let mut hits: Vec<usize> = hit
            .into_iter()
            .map(|k| k as usize)
            .filter(|k| passes_k(*k) && total[*k] > 0.0)
            .collect();
        let order = |a: &usize, b: &usize| {
            total[*b]
                .total_cmp(&total[*a])
                .then(self.variant[*a].cmp(&self.variant[*b]))
                .then(self.name_len[*a].cmp(&self.name_len[*b]))
                .then(a.cmp(b))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_synonym_table_parses_into_stemmed_phrases() {
        let s = Synonyms::parse(SYNONYMS);
        let get = |p: &str| s.alternatives.get(&charter_terms::terms(p).collect::<Vec<_>>());
        let pr = get("PRs").expect("pr is in the table");
        assert!(pr.contains(&vec!["pull".to_owned(), "request".to_owned()]));
        assert!(get("pull requests").unwrap().contains(&vec!["pr".to_owned()]));
        // One-way entries do not reverse.
        assert!(get("new").unwrap().contains(&vec!["creat".to_owned()]));
        assert!(get("create").is_none_or(|alts| !alts.contains(&vec!["new".to_owned()])));
        assert!(s.longest >= 2);
        // Every phrase of the table keeps at least one term.
        for line in SYNONYMS.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            for p in line.split(['|', '>']) {
                assert!(
                    charter_terms::terms(p).next().is_some(),
                    "`{p}` in `{line}` has no usable term"
                );
            }
        }
    }

    #[test]
    fn weights_order_fields() {
        assert!(weight(field::NAME) > weight(field::HINT));
        assert!(weight(field::HINT) > weight(field::PACK));
        assert!(weight(field::PACK) > weight(field::DESCRIPTION));
        assert!(weight(field::DESCRIPTION) > weight(field::PARAM));
        assert!(weight(field::NAME | field::DESCRIPTION) > weight(field::NAME));
        assert!(weight(field::NAME | field::DESCRIPTION) < weight(field::NAME) + 1.0);
    }
}
