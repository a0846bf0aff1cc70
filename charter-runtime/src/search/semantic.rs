//! The semantic layer of [`Ranking::Hybrid`](super::Ranking::Hybrid) (docs/search.md, "Semantic
//! layer"): each tool's vectors, compiled with it, scored against the query's, and the fusion of
//! that order with the keyword ranking's.
//!
//! The fusion is reciprocal rank fusion: a tool's score is the sum over the two orders of
//! `weight / (K + rank)`, the semantic order weighing `SEMANTIC_WEIGHT` of the keyword order.
//! Both constants were fixed on the tuning set (`search-eval/queries.yaml`) alone. Only the
//! tools the keywords found are ranked: the semantic order reorders them (the light weight
//! makes it a tie-break among near scores) and never adds a tool, so a query loads what it
//! named and no neighbour the keywords did not match.

use std::borrow::Cow;

use charter_terms::semantic::{QueryVector, TokenTable};

use super::Candidate;

/// How many tools of each order the fusion reads.
pub(super) const DEPTH: usize = 30;

/// Reciprocal rank fusion's constant: how flat the score falls with the rank.
const K: f32 = 10.0;

/// What the semantic order counts against the keyword order.
const SEMANTIC_WEIGHT: f32 = 0.2;

/// Every candidate's vectors, in order: borrowed from the tables where they were compiled,
/// derived once here for a hand-built tool.
#[derive(Debug)]
pub(super) struct Vectors {
    table: TokenTable,
    vectors: Vec<Cow<'static, [u8]>>,
}

impl Vectors {
    pub(super) fn build<'a>(count: usize, candidate: &impl Fn(usize) -> Candidate<'a>) -> Self {
        let table = TokenTable::shipped();
        let vectors = (0..count)
            .map(|k| {
                let c = candidate(k);
                if c.vectors.is_empty() {
                    Cow::Owned(table.tool_vectors(c.name, c.description, c.hints))
                } else {
                    Cow::Borrowed(c.vectors)
                }
            })
            .collect();
        Vectors { table, vectors }
    }

    /// The query's vector: the terms as the model sent them, lowercased.
    pub(super) fn query(&self, terms: &[String]) -> Option<QueryVector> {
        self.table.query(&terms.join(" "))
    }

    /// The best `depth` candidates passing the filter, nearest first.
    pub(super) fn nearest(
        &self,
        query: &QueryVector,
        passes: Option<&[bool]>,
        depth: usize,
    ) -> Vec<usize> {
        let mut scored: Vec<(f32, usize)> = self
            .vectors
            .iter()
            .enumerate()
            .filter(|(k, _)| passes.is_none_or(|p| p[*k]))
            .filter_map(|(k, v)| Some((query.score(v)?, k)))
            .collect();
        let by_score = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if scored.len() > depth {
            scored.select_nth_unstable_by(depth, by_score);
            scored.truncate(depth);
        }
        scored.sort_unstable_by(by_score);
        scored.into_iter().map(|(_, k)| k).collect()
    }
}

/// Reciprocal rank fusion of the keyword order and the semantic order over the keyword order's
/// tools, best `limit` first; ties keep the keyword order.
pub(super) fn fuse(keyword: &[usize], semantic: &[usize], limit: usize) -> Vec<usize> {
    let mut scores: Vec<(f32, usize, usize)> = keyword
        .iter()
        .enumerate()
        .map(|(rank, &k)| (1.0 / (K + rank as f32 + 1.0), rank, k))
        .collect();
    for (rank, &k) in semantic.iter().enumerate() {
        if let Some(s) = scores.iter_mut().find(|s| s.2 == k) {
            s.0 += SEMANTIC_WEIGHT / (K + rank as f32 + 1.0);
        }
    }
    scores.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scores.truncate(limit);
    scores.into_iter().map(|(_, _, k)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_reorders_near_ties_and_adds_nothing() {
        // The semantic first choice, second by keywords, overtakes the keyword first.
        assert_eq!(fuse(&[1, 2, 3], &[2, 9], 3), vec![2, 1, 3]);
        // Far down the keyword order, it does not.
        let keyword: Vec<usize> = (0..10).collect();
        assert_eq!(fuse(&keyword, &[9], 2), vec![0, 1]);
        // A tool only the semantic order holds is not added, however near.
        assert_eq!(fuse(&[4], &[7, 4], 5), vec![4]);
        assert_eq!(fuse(&[], &[], 5), Vec::<usize>::new());
        assert_eq!(fuse(&[1, 2], &[], 0), Vec::<usize>::new());
    }
}
