//! ToolSearch (docs/design.md §4): the query forms, the `max_results` rules and the keyword rankings.
//!
//! Three rankings read text prepared at build time:
//! - [`Ranking::Relevance`] ([`relevance`]): stemmed whole terms with field
//!   weights, inverse document frequency over the session's catalogue, query-side synonyms and
//!   tie-breaks that prefer the plain tool of a resource.
//! - [`Ranking::Hybrid`] (the default): the relevance ranking fused with the semantic layer (the private `semantic` module):
//!   vectors compiled with each tool, a query's the mean of its tokens'.
//! - [`Ranking::Classic`]: the docs/design.md §4 scoring (substrings of the lowercased name and
//!   description), kept for strict compatibility and comparison.

use serde_json::Value;

use crate::table::SearchTerms;

pub mod relevance;
mod semantic;

pub use charter_terms as terms;

/// The name of the search tool offered while anything is deferred.
pub const TOOL_SEARCH: &str = "ToolSearch";

/// The parameter schema of ToolSearch, constant text.
pub const TOOL_SEARCH_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"query":{"type":"string","description":"#,
    r#""select:name_a,name_b loads exactly those tools; keywords load the best matches; +term requires the name to contain term.""#,
    r#"},"max_results":{"type":"integer","description":"How many keyword matches to load (default 5). Ignored by select:.""#,
    r#"}},"required":["query"],"additionalProperties":false}"#
);

/// [`TOOL_SEARCH_SCHEMA`] in Gemini's dialect: its `Schema` has no `additionalProperties`.
pub const TOOL_SEARCH_SCHEMA_GEMINI: &str = concat!(
    r#"{"type":"object","properties":{"query":{"type":"string","description":"#,
    r#""select:name_a,name_b loads exactly those tools; keywords load the best matches; +term requires the name to contain term.""#,
    r#"},"max_results":{"type":"integer","description":"How many keyword matches to load (default 5). Ignored by select:.""#,
    r#"}},"required":["query"]}"#
);

/// The usage text that opens the ToolSearch description; the sorted list of deferred tool names
/// follows it.
pub const TOOL_SEARCH_USAGE: &str = "Loads tools so they can be called. Every tool listed below \
can be loaded; a tool is callable, with its full schema, only once loaded. Query forms: `select:name_a,name_b` loads exactly \
those tools; keywords (`calendar event`) load the best matches by name and description, up to \
max_results (default 5); `+term` keeps only tools whose name contains term and ranks them by the \
other keywords (`+stripe refund`). The pack is part of every name, so `+pack` lists a pack's tools.";

/// How many keyword matches load when `max_results` is absent, null or 0.
pub const DEFAULT_MAX_RESULTS: usize = 5;

/// The most keywords (plain and `+required` together) one query may hold (64): ranking reads
/// every term against every deferred tool, so a query is refused past this instead of costing
/// time in proportion to its length. `select:` lists are not limited by this (only by the
/// argument size limit): they are looked up by name.
pub const MAX_QUERY_TERMS: usize = 64;

/// How ToolSearch ranks keyword queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ranking {
    /// Whole-term relevance: the query's words are split, stemmed and expanded
    /// with the shipped synonym table exactly as tool text was at build time; each term found
    /// counts its inverse document frequency over the catalogue times the weight of the best
    /// field it occurs in (name parts, the pack label included > hints > description > parameter
    /// names).
    /// A tool matching more of the query's words ranks higher; the query's first word also
    /// counts when the description opens with it. Score 0 is dropped; ties go to the plain
    /// list/get/create of a resource over its variants, then to a list when the query says a
    /// plural (one item otherwise), then to the shorter name, then the alphabet.
    Relevance,
    /// [`Ranking::Relevance`] fused with the semantic layer: the query's vector (the mean of its
    /// words' distilled token vectors, docs/search.md) scored against each tool's compiled
    /// vectors, that order fused with the relevance order by reciprocal rank fusion. It reorders
    /// the tools the keywords found and adds none: the same query loads the same set of tools
    /// whenever the keywords find no more than `max_results`. The default: it ranks better than
    /// [`Ranking::Relevance`] on every retrieval set (docs/search.md), at about 30 µs a query
    /// over 1,120 tools instead of 5.
    #[default]
    Hybrid,
    /// docs/design.md §4 scoring: two points per term found in the name, one per term found in the
    /// description (or the tool's declared search hints), as substrings; score 0 dropped, ties
    /// alphabetical.
    Classic,
}

impl Ranking {
    /// The ranking's name (`relevance`, `classic`), as a CLI flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Ranking::Relevance => "relevance",
            Ranking::Hybrid => "hybrid",
            Ranking::Classic => "classic",
        }
    }
}

impl std::str::FromStr for Ranking {
    type Err = String;

    /// `hybrid` (or `best`), `relevance` and `classic`, case-insensitive.
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "relevance" => Ok(Ranking::Relevance),
            "hybrid" | "best" => Ok(Ranking::Hybrid),
            "classic" => Ok(Ranking::Classic),
            other => Err(format!(
                "unknown ranking `{other}`: use `hybrid` (the default), `relevance` or `classic`"
            )),
        }
    }
}

/// A parsed ToolSearch query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `select:a,b,c`: exactly these names, in this order, duplicates removed.
    Select(Vec<String>),
    /// Keywords, lowercased; `required` are the `+term`s the name must contain.
    Keywords {
        /// Terms every matching name must contain.
        required: Vec<String>,
        /// Terms that rank the rest.
        terms: Vec<String>,
    },
    /// No terms at all: matches nothing.
    Empty,
}

impl Query {
    /// Parses a query: a case-insensitive `select:` prefix, otherwise whitespace-separated
    /// keywords where a leading `+` makes a term required.
    pub fn parse(query: &str) -> Query {
        let query = query.trim();
        let is_select = query.len() >= 7 && query.as_bytes()[..7].eq_ignore_ascii_case(b"select:");
        if is_select {
            // A set, not a scan of the names so far: ten thousand names stay linear.
            let mut seen = std::collections::HashSet::new();
            let mut names: Vec<String> = Vec::new();
            for name in query[7..]
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
            {
                if seen.insert(name.to_ascii_lowercase()) {
                    names.push(name.to_owned());
                }
            }
            return if names.is_empty() {
                Query::Empty
            } else {
                Query::Select(names)
            };
        }
        let mut required = Vec::new();
        let mut terms = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for word in query.split_whitespace() {
            let (list, word, required) = match word.strip_prefix('+') {
                Some(rest) => (&mut required, rest, true),
                None => (&mut terms, word, false),
            };
            let word = word.to_lowercase();
            if !word.is_empty() && seen.insert((required, word.clone())) {
                list.push(word);
            }
        }
        if required.is_empty() && terms.is_empty() {
            Query::Empty
        } else {
            Query::Keywords { required, terms }
        }
    }
}

/// Reads `max_results`: absent, null or 0 mean the default (5); a whole number (also written as
/// a float, `3.0`) is taken; anything else is refused with a message telling the model to omit it.
pub fn max_results(value: Option<&Value>) -> Result<usize, String> {
    let refuse = |got: &str| {
        Err(format!(
            "max_results must be a positive whole number (got {got}); omit it to load up to {DEFAULT_MAX_RESULTS} matches"
        ))
    };
    let n = match value {
        None | Some(Value::Null) => return Ok(DEFAULT_MAX_RESULTS),
        Some(Value::Number(n)) => n,
        Some(Value::Bool(b)) => return refuse(&format!("the boolean {b}")),
        Some(Value::String(s)) => {
            return refuse(&format!("the string {}", Value::String(s.clone())));
        }
        Some(Value::Array(_)) => return refuse("an array"),
        Some(Value::Object(_)) => return refuse("an object"),
    };
    if let Some(u) = n.as_u64() {
        return Ok(if u == 0 {
            DEFAULT_MAX_RESULTS
        } else {
            usize::try_from(u).unwrap_or(usize::MAX)
        });
    }
    match n.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 && f >= 0.0 => {
            // Whole-number float: `as` saturates at usize::MAX, which is what a huge limit means.
            let u = f as usize;
            Ok(if u == 0 { DEFAULT_MAX_RESULTS } else { u })
        }
        _ => refuse(&n.to_string()),
    }
}

/// What ranking reads about one searchable tool.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The qualified name, lowercase.
    pub name: &'a str,
    /// The pack label.
    pub pack: &'a str,
    /// The tool's own name inside its pack (the qualified name without `<pack>_`).
    pub tool: &'a str,
    /// The description, lowercase.
    pub description: &'a str,
    /// Declared search hints, lowercase.
    pub hints: &'a [&'a str],
    /// The stemmed terms prepared at build time; `None` (a toolkit tool, a hand-built
    /// definition) makes the relevance index derive them from the text above.
    pub terms: Option<SearchTerms>,
    /// The compiled semantic vectors ([`SearchData::vectors`](crate::table::SearchData)); empty
    /// makes the hybrid index derive them from the text above.
    pub vectors: &'static [u8],
}

/// The catalogue's searchable text laid end to end: every name in one buffer, every description
/// (with its hints) in another, each tool's text ending in a newline. A query term holds no
/// whitespace, so a match never spans two tools, and one SIMD substring scan per term over each
/// buffer finds every tool containing it, instead of one search call per tool.
///
/// Built once per session, on the first keyword query: it copies every description, which
/// building a session must not do.
#[derive(Debug, Default)]
pub struct SearchIndex {
    names: Buffer,
    texts: Buffer,
    /// The relevance ranking's inverted index (absent from an index built for `Classic`).
    terms: Option<relevance::TermIndex>,
    /// The semantic layer's vectors (only in an index built for `Hybrid`).
    vectors: Option<semantic::Vectors>,
}

#[derive(Debug, Clone, Default)]
struct Buffer {
    text: Vec<u8>,
    /// Where each candidate's text starts, plus the end of the buffer.
    starts: Vec<u32>,
}

impl Buffer {
    fn with_capacity(count: usize, bytes: usize) -> Self {
        Buffer {
            text: Vec::with_capacity(bytes),
            starts: Vec::with_capacity(count + 1),
        }
    }

    fn start(&mut self) {
        self.starts.push(self.text.len() as u32);
    }

    fn push(&mut self, text: &str) {
        // Whitespace separates terms, so a newline never occurs inside one.
        self.text.extend_from_slice(text.as_bytes());
        self.text.push(b'\n');
    }

    fn finish(&mut self) {
        self.starts.push(self.text.len() as u32);
    }

    /// Calls `hit` once for every candidate whose text contains the finder's needle, in order.
    fn each_match(&self, finder: &memchr::memmem::Finder<'_>, mut hit: impl FnMut(usize)) {
        let count = self.starts.len() - 1;
        let mut k = 0usize;
        let mut at = 0usize;
        while let Some(found) = finder.find(&self.text[at..]) {
            let offset = (at + found) as u32;
            // Hits come in order: walk forward instead of searching (one step per candidate
            // per scan at most, all well predicted).
            while self.starts[k + 1] <= offset {
                k += 1;
            }
            hit(k);
            k += 1;
            if k >= count {
                break;
            }
            at = self.starts[k] as usize;
        }
    }
}

impl SearchIndex {
    /// The index of `count` candidates for the classic ranking.
    pub fn build<'a>(count: usize, candidate: impl Fn(usize) -> Candidate<'a>) -> Self {
        Self::for_ranking(Ranking::Classic, count, candidate)
    }

    /// The index of `count` candidates (in alphabetical order) for `ranking`: the names (for
    /// `+term` filters) and what that ranking reads.
    pub fn for_ranking<'a>(
        ranking: Ranking,
        count: usize,
        candidate: impl Fn(usize) -> Candidate<'a>,
    ) -> Self {
        match ranking {
            Ranking::Classic => Self::classic(count, candidate),
            Ranking::Relevance | Ranking::Hybrid => {
                let mut names = Buffer::with_capacity(
                    count,
                    (0..count).map(|i| candidate(i).name.len() + 1).sum(),
                );
                for i in 0..count {
                    names.start();
                    names.push(candidate(i).name);
                }
                names.finish();
                SearchIndex {
                    names,
                    texts: Buffer::default(),
                    terms: Some(relevance::TermIndex::build(count, &candidate)),
                    vectors: (ranking == Ranking::Hybrid)
                        .then(|| semantic::Vectors::build(count, &candidate)),
                }
            }
        }
    }

    fn classic<'a>(count: usize, candidate: impl Fn(usize) -> Candidate<'a>) -> Self {
        let (mut name_bytes, mut text_bytes) = (0, 0);
        for i in 0..count {
            let c = candidate(i);
            name_bytes += c.name.len() + 1;
            text_bytes +=
                c.description.len() + 1 + c.hints.iter().map(|h| h.len() + 1).sum::<usize>();
        }
        let mut names = Buffer::with_capacity(count, name_bytes);
        let mut texts = Buffer::with_capacity(count, text_bytes);
        for i in 0..count {
            let c = candidate(i);
            names.start();
            names.push(c.name);
            texts.start();
            texts.push(c.description);
            for hint in c.hints {
                texts.push(hint);
            }
        }
        names.finish();
        texts.finish();
        SearchIndex {
            names,
            texts,
            terms: None,
            vectors: None,
        }
    }

    /// How many candidates it covers.
    pub fn len(&self) -> usize {
        self.names.starts.len().saturating_sub(1)
    }

    /// Whether it covers no candidate.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Ranking {
    /// Ranks the candidates an index was built from (in alphabetical order) and returns the
    /// positions of the best `limit`, best first.
    ///
    /// A candidate must contain every `required` term in its name (as a substring, in every
    /// ranking). With only required terms, every candidate passing the filter matches. Classic:
    /// the score is the sum over `terms` of 2 (found in the name) plus 1 (found in the
    /// description or a hint), score 0 dropped, ties alphabetical. Relevance: see
    /// [`Ranking::Relevance`]; a query whose words leave no term (only stop words) matches
    /// nothing unless it has required terms. Hybrid: the relevance matches, reordered by
    /// [`Ranking::Hybrid`]'s fusion (a query none of whose tokens the table knows keeps the
    /// relevance order).
    ///
    /// An index built for another ranking ranks nothing, except that a hybrid index serves
    /// relevance too (it holds the keyword index as well).
    pub fn rank(
        self,
        index: &SearchIndex,
        required: &[String],
        terms: &[String],
        limit: usize,
    ) -> Vec<usize> {
        match self {
            Ranking::Classic => classic(index, required, terms, limit),
            Ranking::Relevance | Ranking::Hybrid => {
                let count = index.len();
                let Some(term_index) = &index.terms else {
                    return Vec::new();
                };
                if (required.is_empty() && terms.is_empty()) || limit == 0 || count == 0 {
                    return Vec::new();
                }
                let passes = (!required.is_empty()).then(|| required_filter(index, required));
                let query = match (self, &index.vectors) {
                    (Ranking::Hybrid, Some(vectors)) => vectors.query(terms).map(|q| (vectors, q)),
                    (Ranking::Hybrid, None) => return Vec::new(),
                    _ => None,
                };
                let Some((vectors, query)) = query else {
                    return term_index.rank(terms, passes.as_deref(), limit);
                };
                let keyword = term_index.rank(terms, passes.as_deref(), limit.max(semantic::DEPTH));
                if keyword.is_empty() {
                    return keyword;
                }
                let near = vectors.nearest(&query, passes.as_deref(), semantic::DEPTH);
                semantic::fuse(&keyword, &near, limit)
            }
        }
    }
}

/// Which candidates hold every required term in their name.
fn required_filter(index: &SearchIndex, required: &[String]) -> Vec<bool> {
    let count = index.len();
    let mut found = vec![0u16; count];
    for term in required {
        let finder = memchr::memmem::Finder::new(term.as_bytes());
        index.names.each_match(&finder, |k| found[k] += 1);
    }
    let needed = required.len() as u16;
    found.into_iter().map(|n| n == needed).collect()
}

fn classic(index: &SearchIndex, required: &[String], terms: &[String], limit: usize) -> Vec<usize> {
    let count = index.len();
    if (required.is_empty() && terms.is_empty()) || limit == 0 || count == 0 {
        return Vec::new();
    }
    // Per candidate: how many required terms its name holds, and its score.
    let mut passes = vec![0u16; if required.is_empty() { 0 } else { count }];
    for term in required {
        let finder = memchr::memmem::Finder::new(term.as_bytes());
        index.names.each_match(&finder, |k| passes[k] += 1);
    }
    let needed = required.len() as u16;
    let mut scores = vec![0u32; count];
    for term in terms {
        let finder = memchr::memmem::Finder::new(term.as_bytes());
        index.names.each_match(&finder, |k| scores[k] += 2);
        index.texts.each_match(&finder, |k| scores[k] += 1);
    }
    let mut hits: Vec<(u32, usize)> = (0..count)
        .filter(|k| required.is_empty() || passes[*k] == needed)
        .map(|k| (if terms.is_empty() { 1 } else { scores[k] }, k))
        .filter(|(score, _)| *score > 0)
        .collect();
    // Candidates come alphabetically, so ties stay alphabetical.
    hits.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    hits.truncate(limit);
    hits.into_iter().map(|(_, k)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_query_forms() {
        assert_eq!(
            Query::parse("  SeLeCt: a_b , c ,, a_B "),
            Query::Select(vec!["a_b".into(), "c".into()])
        );
        assert_eq!(Query::parse("select: , "), Query::Empty);
        assert_eq!(Query::parse("   "), Query::Empty);
        assert_eq!(Query::parse("+ +"), Query::Empty);
        assert_eq!(
            Query::parse("+Stripe Refund refund"),
            Query::Keywords {
                required: vec!["stripe".into()],
                terms: vec!["refund".into()]
            }
        );
    }

    #[test]
    fn max_results_coercions() {
        assert_eq!(max_results(None), Ok(5));
        assert_eq!(max_results(Some(&json!(null))), Ok(5));
        assert_eq!(max_results(Some(&json!(0))), Ok(5));
        assert_eq!(max_results(Some(&json!(3.0))), Ok(3));
        assert_eq!(max_results(Some(&json!(7))), Ok(7));
        assert!(
            max_results(Some(&json!(2.5)))
                .unwrap_err()
                .contains("omit it")
        );
        assert!(
            max_results(Some(&json!(-1)))
                .unwrap_err()
                .contains("omit it")
        );
        assert!(
            max_results(Some(&json!(true)))
                .unwrap_err()
                .contains("boolean true")
        );
        assert!(
            max_results(Some(&json!("ten")))
                .unwrap_err()
                .contains("\"ten\"")
        );
    }

    #[test]
    fn classic_scores_and_ties() {
        let tools = [
            ("a_calendar_list", "lists calendars", &[][..]),
            ("b_event_create", "creates a calendar event", &[][..]),
            ("c_calendar_event_get", "gets one event", &[][..]),
            ("d_other", "nothing here", &["calendar"][..]),
        ];
        let get = |i: usize| Candidate {
            name: tools[i].0,
            pack: tools[i].0.split_once('_').unwrap().0,
            tool: tools[i].0.split_once('_').unwrap().1,
            description: tools[i].1,
            hints: tools[i].2,
            terms: None,
            vectors: &[],
        };
        let index = SearchIndex::build(4, get);
        let rank = |required: &[&str], terms: &[&str], limit: usize| {
            let required: Vec<String> = required.iter().map(|s| s.to_string()).collect();
            let terms: Vec<String> = terms.iter().map(|s| s.to_string()).collect();
            Ranking::Classic.rank(&index, &required, &terms, limit)
        };
        // c: 2+1 + 2+1 = 6; b: 0+1 + 2+1 = 4; a: 2+1 = 3; d: 1 (hint).
        assert_eq!(rank(&[], &["calendar", "event"], 10), vec![2, 1, 0, 3]);
        assert_eq!(rank(&[], &["calendar", "event"], 2), vec![2, 1]);
        assert_eq!(rank(&["calendar"], &[], 10), vec![0, 2]);
        assert_eq!(
            rank(&["calendar"], &["event"], 10),
            vec![2],
            "a_calendar_list has no event"
        );
        assert_eq!(rank(&[], &["zzz"], 10), Vec::<usize>::new());
        // A term counts once per tool however often it occurs; one-letter terms work too.
        assert_eq!(rank(&[], &["v"], 10), vec![1, 2]);
        assert_eq!(rank(&[], &["a"], 10), vec![0, 1, 2, 3]);
        // A term never matches across two tools' texts.
        assert_eq!(rank(&[], &["listb_event"], 10), Vec::<usize>::new());
    }
}
