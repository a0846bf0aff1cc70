//! Alternatives (`one_of`, and the `anyOf` of Rust's untagged enums) and lists of distinct
//! items: checks that try a value against several shapes or compare items with each other.

use serde_json::Value;

use super::text::{describe, got};
use super::{MAX_VALIDATION_STEPS, Walk, nodes};
use crate::table::Shape;

impl<'a> Walk<'a> {
    /// A walk over a copy of the value at the same place, charged to the same budget: each
    /// trial works on a copy, so a big value under alternatives spends the budget as fast as
    /// the work it causes. `None` once the budget is spent.
    fn trial(&self, value: &Value) -> Option<(Walk<'a>, Value)> {
        self.steps
            .set(self.steps.get().saturating_add(nodes(value)));
        if self.steps.get() > MAX_VALIDATION_STEPS {
            return None;
        }
        let walk = Walk {
            steps: self.steps,
            active: self.active,
            widest: self.widest,
            patterns: self.patterns,
            ctx: self.ctx,
            path: self.path.clone(),
            issues: Vec::new(),
            missing_context: Vec::new(),
            bad_patterns: Vec::new(),
        };
        Some((walk, value.clone()))
    }

    /// `oneOf`: exactly one alternative must fit.
    pub(super) fn one_of(
        &mut self,
        shape: &Shape,
        shapes: &'static [Shape],
        value: &mut Value,
        depth: usize,
    ) {
        let mut matched: Vec<(Value, Vec<String>)> = Vec::new();
        for alternative in shapes {
            let Some((mut trial, mut candidate)) = self.trial(value) else {
                return;
            };
            trial.value(alternative, &mut candidate, depth);
            let (issues, missing, mut bad) =
                (trial.issues, trial.missing_context, trial.bad_patterns);
            self.bad_patterns.append(&mut bad);
            if issues.is_empty() {
                matched.push((candidate, missing));
            }
        }
        match matched.len() {
            1 => {
                let (candidate, mut missing) = matched.pop().expect("one match");
                *value = candidate;
                self.missing_context.append(&mut missing);
            }
            0 => self.issue(describe(shape), got(value)),
            n => self.issue(
                format!("a value matching exactly one of {}", describe(shape)),
                format!("{} (matches {n} of them)", got(value)),
            ),
        }
    }

    /// `anyOf`: the first alternative the value fits wins, as serde's untagged enums decide.
    pub(super) fn any_of(
        &mut self,
        shape: &Shape,
        shapes: &'static [Shape],
        value: &mut Value,
        depth: usize,
    ) {
        for alternative in shapes {
            let Some((mut trial, mut candidate)) = self.trial(value) else {
                return;
            };
            trial.value(alternative, &mut candidate, depth);
            let (issues, mut missing, mut bad) =
                (trial.issues, trial.missing_context, trial.bad_patterns);
            self.bad_patterns.append(&mut bad);
            if issues.is_empty() {
                *value = candidate;
                self.missing_context.append(&mut missing);
                return;
            }
        }
        self.issue(describe(shape), got(value));
    }
}

/// The first pair of equal items `(i, j)`, `i < j`, of a list whose items must all differ
/// (JSON Schema's `uniqueItems`, Rust's sets).
pub(super) fn first_repeat(items: &[Value]) -> Option<(usize, usize)> {
    (1..items.len()).find_map(|j| (0..j).find(|&i| items[i] == items[j]).map(|i| (i, j)))
}
