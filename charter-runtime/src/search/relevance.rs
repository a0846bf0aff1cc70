//! The relevance ranking: whole-term matching over stemmed, field-weighted terms, weighted by
//! inverse document frequency over the catalogue, with query-side synonyms and tie-breaks that
//! prefer the tool an agent most often means.
//!
//! Every tool's terms were split, stemmed and tagged with their fields at build time
//! ([`SearchData::terms`](crate::table::SearchData)); the session only lays them out as an
//! inverted index (once, on the first keyword query) and counts document frequencies. A query
//! goes through the same pipeline ([`charter_terms`]), is expanded with the shipped synonym
//! table, and is scored by walking the postings of its few terms.
//!
//! The score of a tool is built from the query's *slots* (a word, or a phrase the synonym table
//! knows, such as `pull request`):
//! - a term found counts its inverse document frequency times the weight of the best field
//!   holding it (`WEIGHTS`); a synonym counts a little less than the word typed, and never more
//!   information than it;
//! - the query's first word also counts when it is the first word of the description (the
//!   imperative verb a description opens with: "Comment on an issue", "Share a calendar");
//! - the slots' scores add up, times the number of slots matched (coordination: a tool
//!   matching both words of `payment history` beats one matching `history` alone);
//! - a tool whose resource (the words of its own name up to the first plural) the query names
//!   whole gains a little (`RESOURCE`), and a list or search tool gains when the query holds
//!   a plural (`PLURAL_LIST`); a tool one of whose multi-word hints the query holds whole
//!   gains too (`HINT_PHRASE`);
//! - a tool that does what the query asks, read or change ([`charter_terms::intent`]), gains
//!   over the tools that share its words and do the other (`READ_INTENT`, `WRITE_INTENT`).
//!
//! Before scoring, values the query passes on (`jane@acme.com`, `$45`, `3pm`) are dropped, a
//! reference adds what it names (`#general` a channel, `ENG-340` an issue), and pronouns
//! (`me`, `my`) count less (`PRONOUN`).
//!
//! Ties go, in order, to the plain list/get/create of a resource over its variants (then the
//! plain update/delete of one item), to the kind of tool the query asks for (a plural asks for a
//! list, `open pull requests`; none asks for one item, `open a PR`), to the shorter name, and
//! only then to the alphabet.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use charter_terms::intent::Intent;
use charter_terms::{Fields, field};

use super::Candidate;

/// Words that say whose (`who emailed me`, `my open PRs`), not which tool: few tools hold them
/// (`users_get_me`, `issues_list_mine`), so their rarity would make them outweigh the words that
/// do say which.
const PRONOUNS: &[&str] = &["me", "mine", "my", "myself"];

/// What a pronoun's match counts, relative to another word's. It still counts as a matched
/// word for coordination.
const PRONOUN: f32 = 0.3;

/// The shipped synonym table (see the file for its format).
pub const SYNONYMS: &str = include_str!("synonyms.txt");

/// How much a field counts: name parts (the pack label is the first part of every qualified
/// name) above hints above the description above parameter names. A term in several fields counts
/// its best field only: counting the name and the description twice would reward wordy
/// descriptions.
const WEIGHTS: [(Fields, f32); 5] = [
    (field::NAME, 3.0),
    (field::PACK, 3.0),
    (field::HINT, 2.5),
    (field::DESCRIPTION, 1.0),
    (field::PARAM, 0.5),
];

/// What the query's first word adds, per unit of idf, when it opens the tool's description.
const LEAD: f32 = 1.0;

/// What a term reached through a two-way synonym (`PR` for `pull request`) counts, relative to
/// the word typed.
const SYNONYM: f32 = 0.9;

/// What a term reached through a one-way entry (`new` read as `create`) counts.
const BROADER: f32 = 0.8;

/// What a tool gains (a factor) when the query names its resource whole, the words of its own
/// name up to the first plural (`pulls` in `pulls_submit_review` for `approve the PR`): the
/// query says what it acts on, and a tool about something else that merely shares the verb
/// (`runs_approve`) answers less. The whole of it: `rename a project` names the resource of
/// `projects_update`, not that of `project_updates_create` or `project_milestones_update`.
const RESOURCE: f32 = 1.05;

/// What a list or search tool gains (a factor) when the query holds a plural (`open pull
/// requests`, `saved cards`): a plural asks for a collection.
const PLURAL_LIST: f32 = 1.15;

/// What a tool gains (a factor) when the query holds one of its multi-word hints whole
/// (`thread replies`, `share calendar`): the pack author wrote the words users say for it.
const HINT_PHRASE: f32 = 1.1;

/// What a tool that changes nothing gains (a factor) when the query asks to read
/// ([`charter_terms::intent::Intent::Read`]: a question, `when does the sprint end`, `is the PR
/// merged`; a reading verb; or a bare noun phrase, `customer's invoices`): the tools that share
/// its words and write (`cycles_update` for `end`, `pulls_merge` for `merged`,
/// `invoices_create` for `invoices`) answer it less.
const READ_INTENT: f32 = 1.4;

/// What a tool that changes something gains (a factor) when the query opens with an action
/// verb ([`charter_terms::intent::Intent::Write`]: `share my calendar`, `charge a card`): the
/// tools that share its words and only read (`calendar_list_list`, `charges_list`) answer it
/// less.
const WRITE_INTENT: f32 = 1.2;

/// Inverse document frequency (the BM25 form, always positive) of a term `df` of `n` tools hold.
fn idf(n: f32, df: u32) -> f32 {
    let d = df as f32;
    ((n - d + 0.5) / (d + 0.5) + 1.0).ln()
}

/// The weight of a term occurring in `fields`: that of the best of them.
fn weight(fields: Fields) -> f32 {
    WEIGHTS
        .iter()
        .filter(|(bit, _)| fields & bit != 0)
        .map(|(_, w)| *w)
        .fold(0.0, f32::max)
}

/// A fast hasher for short term strings (the Fx hash rustc uses, eight bytes a step): the index
/// hashes every term of the catalogue once, and a query hashes a handful.
#[derive(Default)]
struct Fx(u64);

impl Fx {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.mix(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.mix(u64::from(byte));
    }
}

type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// One posting: a candidate holding a term, and how strongly.
#[derive(Debug, Clone, Copy)]
struct Posting {
    candidate: u32,
    /// The weight of the best field holding the term.
    weight: f32,
    /// Whether the term is the first word of the tool's description.
    lead: bool,
}

/// A multi-word hint, filed under its first term: the candidate declaring it, and the ids of
/// the hint's other terms.
type HintPhrase = (u32, Box<[u32]>);

/// The synonym table, stemmed: for a phrase (as stems), the phrases it also means, each with
/// what a match through it counts.
#[derive(Debug, Default)]
struct Synonyms {
    alternatives: Map<Vec<String>, Vec<(Vec<String>, f32)>>,
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
            let (from, to, discount): (Vec<Vec<String>>, Vec<Vec<String>>, f32) =
                match line.split_once('>') {
                    // `a | b > c`: each of `a` and `b` also finds `c`.
                    Some((left, right)) => (
                        left.split('|').map(phrase).collect(),
                        right.split('|').map(phrase).collect(),
                        BROADER,
                    ),
                    None => {
                        let all: Vec<Vec<String>> = line.split('|').map(phrase).collect();
                        (all.clone(), all, SYNONYM)
                    }
                };
            for f in from.into_iter().filter(|f| !f.is_empty()) {
                out.longest = out.longest.max(f.len());
                let alts = out.alternatives.entry(f.clone()).or_default();
                for t in &to {
                    if !t.is_empty() && *t != f && !alts.iter().any(|(a, _)| a == t) {
                        alts.push((t.clone(), discount));
                    }
                }
            }
        }
        out
    }
}

/// The catalogue's terms as an inverted index with document frequencies, and what the
/// tie-breaks read about each candidate.
#[derive(Debug, Default)]
pub(super) struct TermIndex {
    /// Term -> its id.
    ids: Map<Cow<'static, str>, u32>,
    /// Postings of term `id`: `postings[starts[id]..starts[id + 1]]`, by candidate.
    starts: Vec<u32>,
    postings: Vec<Posting>,
    /// Inverse document frequency of each term.
    idf: Vec<f32>,
    /// Per candidate: how far it is from the plain operation on its resource
    /// ([`charter_terms::variant_tier`]).
    variant: Vec<u8>,
    /// Per candidate: the length of the tool's own name.
    name_len: Vec<u16>,
    /// Per candidate: whether it lists or searches a collection (`_list` in its name, or a
    /// trailing `_search`).
    lister: Vec<bool>,
    /// Per candidate: whether its name holds a verb that changes something.
    writer: Vec<bool>,
    /// Per candidate: the term ids of its resource ([`resource_terms`]).
    resource: Vec<Box<[u32]>>,
    /// Multi-word hints by their first term.
    hint_phrases: Map<u32, Vec<HintPhrase>>,
    synonyms: Synonyms,
}

/// The postings of `flat` grouped by term (`starts[id]..starts[id + 1]`), and each term's
/// document frequency.
///
/// Document frequency counts the tools whose name, hints, pack or description hold the term:
/// parameter names (`owner`, `repo`, `page` on hundreds of tools) would make a word look common
/// that few tools are about.
fn invert(flat: Vec<(u32, u32, Fields)>, terms: usize) -> (Vec<u32>, Vec<Posting>, Vec<u32>) {
    let mut postings_of = vec![0u32; terms];
    let mut df = vec![0u32; terms];
    for (id, _, fields) in &flat {
        postings_of[*id as usize] += 1;
        if fields & !field::PARAM != 0 {
            df[*id as usize] += 1;
        }
    }
    let mut starts = Vec::with_capacity(terms + 1);
    let mut at = 0u32;
    for n in &postings_of {
        starts.push(at);
        at += n;
    }
    starts.push(at);
    let mut fill = starts.clone();
    let empty = Posting {
        candidate: 0,
        weight: 0.0,
        lead: false,
    };
    let mut postings = vec![empty; flat.len()];
    for (id, k, fields) in flat {
        let slot = &mut fill[id as usize];
        postings[*slot as usize] = Posting {
            candidate: k,
            weight: weight(fields),
            lead: fields & field::LEAD != 0,
        };
        *slot += 1;
    }
    (starts, postings, df)
}

/// Whether a word is a value the query passes on rather than a word for a tool: an address
/// (`jane@acme.com`, `https://…`), an amount (`$45`, `20%`), a number or a time (`2025`, `3pm`,
/// `10:30`). Its parts (`acme`, `com`) would match tools by accident.
fn is_value(word: &str) -> bool {
    if word.contains('@') || word.contains("://") || word.starts_with("www.") {
        return true;
    }
    if word.starts_with(['$', '€', '£']) {
        return true;
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &word[digits.len()..];
    !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || ",.:%".contains(c))
        && (unit.is_empty()
            || ["am", "pm", "k", "h", "m", "st", "nd", "rd", "th"]
                .contains(&unit.to_ascii_lowercase().as_str()))
}

/// What a word written as a reference says it refers to: `#general` a channel, `ENG-340` or
/// `#123` an issue. The word itself names no tool; its form says what it is.
fn named_kind(word: &str) -> Option<&'static str> {
    let tail = |s: &str| !s.is_empty();
    if let Some(rest) = word.strip_prefix('#') {
        if tail(rest) && rest.bytes().all(|b| b.is_ascii_digit()) {
            return Some("issue");
        }
        if tail(rest)
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Some("channel");
        }
        return None;
    }
    let (key, number) = word.split_once('-')?;
    (key.len() >= 2
        && key.bytes().all(|b| b.is_ascii_alphabetic())
        && tail(number)
        && number.bytes().all(|b| b.is_ascii_digit()))
    .then_some("issue")
}

/// The stems of a query's words (stop words and single letters dropped), whether any word is a
/// plural (which asks for a list), and whether the first word can be an imperative verb: typed
/// bare, neither a plural nor an `-ed` form. `scheduled messages` and `archived channels` name
/// things; only `schedule a message` asks for the tool whose description opens "Schedule".
fn query_stems(words: &[String]) -> (Vec<String>, bool, bool) {
    let mut stems: Vec<String> = Vec::new();
    let mut plural = false;
    let mut verb = false;
    for word in words.iter().filter(|w| !is_value(w)) {
        for w in charter_terms::words(word) {
            let lower = w.to_lowercase();
            if lower.chars().count() < 2 || charter_terms::is_stop_word(&lower) {
                continue;
            }
            let is_plural = charter_terms::is_plural(&lower);
            if stems.is_empty() {
                verb = !is_plural && !lower.ends_with("ed");
            }
            plural |= is_plural;
            stems.push(charter_terms::stem(&lower));
        }
        if let Some(kind) = named_kind(word) {
            stems.push(charter_terms::stem(kind));
        }
    }
    (stems, plural, verb)
}

/// The terms of the words of a tool's name that say what it acts on: up to its first plural
/// (`project_updates_list` acts on project updates, not on projects; `pulls_submit_review` on
/// pulls), else its first word (`order_get`, `dnd_set_snooze`).
///
/// Each word is stemmed once: a word ending in `s` that its stem shortens is a plural
/// (`updates`, `pulls`; not `status` or `news`), which is what [`charter_terms::is_plural`]
/// says at a third of the cost, for the index is built on a session's first query.
fn resource_terms(tool: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut first = true;
    for word in tool.split('_') {
        let term = charter_terms::terms(word).next();
        if first && term.is_none() {
            // A first word that is no term (`about_get`) names no resource.
            return out;
        }
        first = false;
        let Some(term) = term else { continue };
        let plural = word.ends_with('s') && term.len() < word.len();
        out.push(term);
        if plural {
            return out;
        }
    }
    out.truncate(1);
    out
}

impl TermIndex {
    pub(super) fn build<'a>(count: usize, candidate: &impl Fn(usize) -> Candidate<'a>) -> Self {
        // A catalogue's vocabulary is a few distinct stems per tool (1,336 over the 815 shipped
        // tools): sized once, rarely rehashed.
        let mut ids: Map<Cow<'static, str>, u32> =
            Map::with_capacity_and_hasher(count * 2, Default::default());
        // (term id, candidate, fields), candidates in order.
        let mut flat: Vec<(u32, u32, Fields)> = Vec::with_capacity(count * 32);
        let mut variant = Vec::with_capacity(count);
        let mut name_len = Vec::with_capacity(count);
        let mut lister = Vec::with_capacity(count);
        let mut writer = Vec::with_capacity(count);
        let mut resource = Vec::with_capacity(count);
        let mut hint_phrases: Map<u32, Vec<HintPhrase>> = Map::default();
        let id_of = |term: Cow<'static, str>, ids: &mut Map<Cow<'static, str>, u32>| -> u32 {
            if let Some(id) = ids.get(term.as_ref()) {
                return *id;
            }
            let id = ids.len() as u32;
            ids.insert(term, id);
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
                    // A toolkit tool arrived at run time, or a definition was written by hand:
                    // its text goes through the build-time pipeline here, once.
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
            let pack_terms = match packs.iter().position(|(p, _)| *p == c.pack) {
                Some(i) => i,
                None => {
                    packs.push((c.pack, charter_terms::terms(c.pack).collect()));
                    packs.len() - 1
                }
            };
            for term in &packs[pack_terms].1 {
                let id = match ids.get(term.as_str()) {
                    Some(id) => *id,
                    None => id_of(Cow::Owned(term.clone()), &mut ids),
                };
                match flat[first..].iter_mut().find(|(i, _, _)| *i == id) {
                    Some(entry) => entry.2 |= field::PACK,
                    None => flat.push((id, k32, field::PACK)),
                }
            }
            variant.push(charter_terms::variant_tier(c.tool));
            name_len.push(c.tool.len().min(u16::MAX as usize) as u16);
            lister.push(c.tool.split('_').any(|p| p == "list") || c.tool.ends_with("_search"));
            writer.push(charter_terms::writes(c.tool));
            for hint in c.hints {
                let ids_of: Vec<u32> = charter_terms::terms(hint)
                    .map(|t| id_of(Cow::Owned(t), &mut ids))
                    .collect();
                if let [head, rest @ ..] = ids_of.as_slice()
                    && !rest.is_empty()
                {
                    hint_phrases
                        .entry(*head)
                        .or_default()
                        .push((k32, rest.into()));
                }
            }
            resource.push(
                resource_terms(c.tool)
                    .into_iter()
                    .map(|t| id_of(Cow::Owned(t), &mut ids))
                    .collect(),
            );
        }
        let (starts, postings, df) = invert(flat, ids.len());
        let n = count as f32;
        TermIndex {
            ids,
            starts,
            postings,
            idf: df.iter().map(|d| idf(n, *d)).collect(),
            variant,
            name_len,
            lister,
            writer,
            resource,
            hint_phrases,
            synonyms: Synonyms::parse(SYNONYMS),
        }
    }

    /// The summed idf of a phrase's terms; a term no tool holds counts as the rarest.
    fn information(&self, phrase: &[String]) -> f32 {
        let n = self.variant.len() as f32;
        phrase
            .iter()
            .map(|t| match self.ids.get(t.as_str()) {
                Some(id) => self.idf[*id as usize],
                None => idf(n, 0),
            })
            .sum()
    }

    fn postings(&self, term: &str) -> Option<(f32, &[Posting])> {
        let id = *self.ids.get(term)? as usize;
        let range = self.starts[id] as usize..self.starts[id + 1] as usize;
        Some((self.idf[id], &self.postings[range]))
    }

    /// Adds `scale` times the score of `phrase` (the sum over its terms of idf times field
    /// weight, plus `lead` per unit of idf where the term opens the description) to `into`,
    /// recording candidates seen for the first time in `touched`.
    fn score_phrase(
        &self,
        phrase: &[String],
        scale: f32,
        lead: f32,
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
                    let bonus = if p.lead { lead } else { 0.0 };
                    *slot += scale * idf * (p.weight + bonus);
                }
            }
        }
    }

    /// The candidates one of whose multi-word hints the query holds whole (in any order).
    fn hinted_whole(&self, stems: &[String]) -> Vec<u32> {
        let typed: Vec<u32> = stems
            .iter()
            .filter_map(|t| self.ids.get(t.as_str()).copied())
            .collect();
        let mut phrased: Vec<u32> = Vec::new();
        for head in &typed {
            for (k, rest) in self.hint_phrases.get(head).into_iter().flatten() {
                if rest.iter().all(|t| typed.contains(t)) && !phrased.contains(k) {
                    phrased.push(*k);
                }
            }
        }
        phrased
    }

    /// What multiplies a matched tool's score: coordination (a tool matching more of the
    /// query's slots answers more of it), its resource named whole, what the query asks (to read
    /// or to change) favouring the tools that do it, a plural favouring lists.
    fn factor(&self, k: usize, matched: u8, asked: &Asked<'_>) -> f32 {
        let mut factor = f32::from(matched);
        let resource = &self.resource[k];
        if !resource.is_empty() && resource.iter().all(|t| asked.named.contains(t)) {
            factor *= RESOURCE;
        }
        match asked.intent {
            Intent::Read if !self.writer[k] => factor *= READ_INTENT,
            Intent::Write if self.writer[k] => factor *= WRITE_INTENT,
            _ => {}
        }
        if asked.plural && self.lister[k] {
            factor *= PLURAL_LIST;
        }
        factor
    }

    /// What the query asks ([`charter_terms::intent`]), told that a word no tool holds, or a
    /// value, after an action word is what it acts on (`email sam the notes`).
    fn intent(&self, words: &[String]) -> Intent {
        let is_name = |w: &str| {
            is_value(w)
                || charter_terms::terms(w)
                    .next()
                    .is_some_and(|t| !self.ids.contains_key(t.as_str()))
        };
        charter_terms::intent::intent_with(words.iter().map(String::as_str), is_name)
    }

    /// A query of only `+term`s (or nothing usable): the filter alone, plain tools first.
    fn filtered(&self, passes: Option<&[bool]>, limit: usize) -> Vec<usize> {
        let Some(passes) = passes else {
            return Vec::new();
        };
        let mut hits: Vec<usize> = (0..self.variant.len()).filter(|k| passes[*k]).collect();
        hits.sort_by_key(|k| (self.variant[*k], self.name_len[*k], *k));
        hits.truncate(limit);
        hits
    }

    /// Ranks the candidates (given in alphabetical order) for a query's words, best first:
    /// positions of at most `limit` candidates. `passes` says whether a candidate passes the
    /// `+term` filter (`None`: no filter).
    pub(super) fn rank(
        &self,
        words: &[String],
        passes: Option<&[bool]>,
        limit: usize,
    ) -> Vec<usize> {
        let count = self.variant.len();
        let (stems, plural, verb) = query_stems(words);
        let passes_k = |k: usize| passes.is_none_or(|p| p[k]);
        if stems.is_empty() {
            return self.filtered(passes, limit);
        }
        let intent = self.intent(words);
        let mut total = vec![0.0f32; count];
        let mut matched = vec![0u8; count];
        let mut best = vec![0.0f32; count];
        let mut phrase = vec![0.0f32; count];
        let mut hit: Vec<u32> = Vec::new();
        let mut slot_touched: Vec<u32> = Vec::new();
        let mut phrase_touched: Vec<u32> = Vec::new();
        // The ids of every term the query names, typed or through a synonym.
        let mut named: Vec<u32> = Vec::new();
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
            named.extend(
                literal
                    .iter()
                    .filter_map(|t| self.ids.get(t.as_str()).copied()),
            );
            for (alt, _) in alternatives.into_iter().flatten() {
                named.extend(alt.iter().filter_map(|t| self.ids.get(t.as_str()).copied()));
            }
            let lead = if i == 0 && verb { LEAD } else { 0.0 };
            // The slot's score for a candidate: its best reading, the words typed or one of
            // their synonyms.
            self.score_phrase(literal, 1.0, lead, &mut best, &mut slot_touched);
            for (alt, discount) in alternatives.into_iter().flatten() {
                // Scaled to the words typed, and never worth more information than they are:
                // a rare synonym must not outweigh the word itself.
                let per_word = |p: &[String]| self.information(p) / p.len() as f32;
                let rarity = (per_word(literal) / per_word(alt)).min(1.0);
                let scale = discount * rarity * literal.len() as f32 / alt.len() as f32;
                self.score_phrase(alt, scale, 0.0, &mut phrase, &mut phrase_touched);
                for k in phrase_touched.drain(..) {
                    let k = k as usize;
                    if best[k] == 0.0 {
                        slot_touched.push(k as u32);
                    }
                    best[k] = best[k].max(phrase[k]);
                    phrase[k] = 0.0;
                }
            }
            let scale = if len == 1 && PRONOUNS.contains(&stems[i].as_str()) {
                PRONOUN
            } else {
                1.0
            };
            for k in slot_touched.drain(..) {
                let k = k as usize;
                if total[k] == 0.0 {
                    hit.push(k as u32);
                }
                total[k] += best[k] * scale;
                matched[k] = matched[k].saturating_add(1);
                best[k] = 0.0;
            }
            i += len;
        }
        // A multi-word hint the query holds whole names the tool the way its users do.
        for k in &self.hinted_whole(&stems) {
            total[*k as usize] *= HINT_PHRASE;
        }
        let asked = Asked {
            named: &named,
            intent,
            plural,
        };
        for k in &hit {
            let k = *k as usize;
            total[k] *= self.factor(k, matched[k], &asked);
        }
        let mut hits: Vec<usize> = hit
            .into_iter()
            .map(|k| k as usize)
            .filter(|k| passes_k(*k) && total[*k] > 0.0)
            .collect();
        // A plural in the query asks for a list; none asks for one item.
        let kind = |k: usize| u8::from(self.lister[k] != plural);
        let order = |a: &usize, b: &usize| {
            total[*b]
                .total_cmp(&total[*a])
                .then(self.variant[*a].cmp(&self.variant[*b]))
                .then(kind(*a).cmp(&kind(*b)))
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

/// What a query asks beyond its words, as the ranking factors read it.
struct Asked<'q> {
    /// The ids of every term the query names, typed or through a synonym.
    named: &'q [u32],
    /// Whether it asks to read or to change something.
    intent: Intent,
    /// It names something in the plural.
    plural: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_synonym_table_parses_into_stemmed_phrases() {
        let s = Synonyms::parse(SYNONYMS);
        let get = |p: &str| {
            s.alternatives
                .get(&charter_terms::terms(p).collect::<Vec<_>>())
        };
        let has = |alts: Option<&Vec<(Vec<String>, f32)>>, want: &[&str], discount: f32| {
            alts.is_some_and(|alts| {
                alts.iter().any(|(a, d)| {
                    a.iter().map(String::as_str).eq(want.iter().copied()) && *d == discount
                })
            })
        };
        assert!(has(get("PRs"), &["pull", "request"], SYNONYM));
        assert!(has(get("pull requests"), &["pr"], SYNONYM));
        // One-way entries do not reverse.
        assert!(has(get("new"), &["creat"], BROADER));
        // The left of a one-way entry may list several phrases.
        let s = Synonyms::parse("standup | stand up > meeting");
        let alts = |p: &str| {
            s.alternatives
                .get(&charter_terms::terms(p).collect::<Vec<_>>())
        };
        let meeting: Vec<String> = charter_terms::terms("meeting").collect();
        let meeting: Vec<&str> = meeting.iter().map(String::as_str).collect();
        assert!(has(alts("standup"), &meeting, BROADER));
        assert!(has(alts("stand up"), &meeting, BROADER));
        assert!(get("create").is_none_or(|alts| !alts.iter().any(|(a, _)| a[0] == "new")));
        assert!(s.longest >= 2);
        // Every phrase of the table keeps at least one term.
        for line in SYNONYMS
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
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
        assert_eq!(weight(field::PACK), weight(field::NAME));
        assert!(weight(field::HINT) > weight(field::DESCRIPTION));
        assert!(weight(field::DESCRIPTION) > weight(field::PARAM));
        assert_eq!(
            weight(field::NAME | field::DESCRIPTION),
            weight(field::NAME)
        );
        assert_eq!(
            weight(field::LEAD),
            0.0,
            "the lead word is a bonus, not a field"
        );
    }

    #[test]
    fn only_a_bare_first_word_is_a_lead_verb() {
        let verb = |q: &str| query_stems(&q.split(' ').map(str::to_owned).collect::<Vec<_>>()).2;
        assert!(verb("schedule a message"));
        assert!(verb("the refund"), "stop words are skipped");
        assert!(!verb("scheduled messages"));
        assert!(!verb("archived channel"));
        assert!(!verb("issues"));
    }

    #[test]
    fn a_resource_runs_to_the_first_plural() {
        assert_eq!(resource_terms("pulls_submit_review"), ["pull"]);
        assert_eq!(
            resource_terms("project_updates_create"),
            ["project", "updat"]
        );
        assert_eq!(resource_terms("order_get"), ["order"]);
        assert_eq!(resource_terms("commits_get_status"), ["commit"]);
        assert_eq!(resource_terms("status_get"), ["status"]);
        assert_eq!(resource_terms("search"), ["search"]);
        assert!(resource_terms("about_get").is_empty());
    }

    #[test]
    fn values_are_not_words_for_tools() {
        for value in [
            "jane@acme.com",
            "https://x.dev/a",
            "$45",
            "20%",
            "2025",
            "3pm",
            "10:30",
            "1st",
            "1:1",
        ] {
            assert!(is_value(value), "{value}");
        }
        for word in ["2fa", "oauth2", "v2", "eng-340", "s3", "general"] {
            assert!(!is_value(word), "{word}");
        }
    }

    #[test]
    fn references_say_what_they_name() {
        assert_eq!(named_kind("#general"), Some("channel"));
        assert_eq!(named_kind("#eng-alerts"), Some("channel"));
        assert_eq!(named_kind("#123"), Some("issue"));
        assert_eq!(named_kind("ENG-340"), Some("issue"));
        for plain in ["#", "e-mail", "1:1", "re-open", "general", "x-1"] {
            assert_eq!(named_kind(plain), None, "{plain}");
        }
    }

    #[test]
    fn idf_falls_with_document_frequency() {
        assert!(idf(800.0, 1) > idf(800.0, 10));
        assert!(idf(800.0, 10) > idf(800.0, 400));
        assert!(idf(800.0, 800) > 0.0);
    }
}
