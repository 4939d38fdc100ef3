//! Localization metrics at one level (file, class or function) for one instance, and their
//! means over instances.
//!
//! With G the gold set and P the predicted list (duplicates dropped, first occurrence kept):
//! - precision = |P ∩ G| / |P| (0 when P is empty), recall = |P ∩ G| / |G|,
//!   F1 = 2·precision·recall / (precision + recall) (0 when both are 0) — MULocBench;
//! - strict Acc@K = 1 when every gold entity is among the first K predicted — MM-IssueLoc,
//!   LocAgent's definition in their papers (so Acc@1 is 0 whenever |G| > 1);
//! - Hit@K = 1 when any gold entity is among the first K;
//! - Recall@K = |P[..K] ∩ G| / |G|;
//! - reciprocal rank = 1 / (rank of the first gold entity in P), 0 when none; its mean is MRR.
//!
//! Means are macro averages: per instance first, then over the instances a level counts.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

/// The cut-offs reported for Acc@K, Hit@K and Recall@K.
pub const KS: [usize; 3] = [1, 5, 10];

/// One instance's scores at one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelScores {
    /// Distinct gold entities.
    pub gold: usize,
    /// Distinct predicted entities.
    pub predicted: usize,
    /// Predicted entities that are gold.
    pub correct: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub acc_at_1: f64,
    pub acc_at_5: f64,
    pub acc_at_10: f64,
    pub hit_at_1: f64,
    pub hit_at_5: f64,
    pub hit_at_10: f64,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    /// 1-based rank of the first gold entity among the predictions.
    pub first_hit_rank: Option<usize>,
    /// 1 / `first_hit_rank`, or 0.
    pub reciprocal_rank: f64,
}

fn dedup(list: &[String]) -> Vec<&str> {
    let mut seen = HashSet::new();
    list.iter().map(String::as_str).filter(|s| seen.insert(*s)).collect()
}

impl LevelScores {
    /// Scores `predicted` (ranked, best first) against `gold`. Call only with non-empty gold:
    /// an instance without gold at a level is not scored at that level.
    pub fn compute(gold: &[String], predicted: &[String]) -> LevelScores {
        let gold_list = dedup(gold);
        let gold_set: HashSet<&str> = gold_list.iter().copied().collect();
        let predicted = dedup(predicted);
        let g = gold_set.len();
        let hits: Vec<bool> = predicted.iter().map(|p| gold_set.contains(p)).collect();
        let correct = hits.iter().filter(|&&h| h).count();
        let ratio = |num: usize, den: usize| {
            if den == 0 {
                0.0
            } else {
                num as f64 / den as f64
            }
        };
        let precision = ratio(correct, predicted.len());
        let recall = ratio(correct, g);
        let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
        let found_within = |k: usize| hits.iter().take(k).filter(|&&h| h).count();
        let acc = |k: usize| {
            if g > 0 && found_within(k) == g {
                1.0
            } else {
                0.0
            }
        };
        let hit = |k: usize| if found_within(k) > 0 { 1.0 } else { 0.0 };
        let recall_at = |k: usize| ratio(found_within(k), g);
        let first_hit_rank = hits.iter().position(|&h| h).map(|i| i + 1);
        LevelScores {
            gold: g,
            predicted: predicted.len(),
            correct,
            precision,
            recall,
            f1,
            acc_at_1: acc(1),
            acc_at_5: acc(5),
            acc_at_10: acc(10),
            hit_at_1: hit(1),
            hit_at_5: hit(5),
            hit_at_10: hit(10),
            recall_at_1: recall_at(1),
            recall_at_5: recall_at(5),
            recall_at_10: recall_at(10),
            first_hit_rank,
            reciprocal_rank: first_hit_rank.map_or(0.0, |r| 1.0 / r as f64),
        }
    }
}

/// Means of [`LevelScores`] over the `n` instances a level counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelAggregate {
    pub n: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub acc_at_1: f64,
    pub acc_at_5: f64,
    pub acc_at_10: f64,
    pub hit_at_1: f64,
    pub hit_at_5: f64,
    pub hit_at_10: f64,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
}

impl LevelAggregate {
    /// The means over `scores` (all zero when there are none).
    pub fn mean<'a>(scores: impl IntoIterator<Item = &'a LevelScores>) -> LevelAggregate {
        let mut sum = LevelAggregate::default();
        for s in scores {
            sum.n += 1;
            sum.precision += s.precision;
            sum.recall += s.recall;
            sum.f1 += s.f1;
            sum.acc_at_1 += s.acc_at_1;
            sum.acc_at_5 += s.acc_at_5;
            sum.acc_at_10 += s.acc_at_10;
            sum.hit_at_1 += s.hit_at_1;
            sum.hit_at_5 += s.hit_at_5;
            sum.hit_at_10 += s.hit_at_10;
            sum.recall_at_1 += s.recall_at_1;
            sum.recall_at_5 += s.recall_at_5;
            sum.recall_at_10 += s.recall_at_10;
            sum.mrr += s.reciprocal_rank;
        }
        if sum.n == 0 {
            return sum;
        }
        let n = sum.n as f64;
        for v in [
            &mut sum.precision,
            &mut sum.recall,
            &mut sum.f1,
            &mut sum.acc_at_1,
            &mut sum.acc_at_5,
            &mut sum.acc_at_10,
            &mut sum.hit_at_1,
            &mut sum.hit_at_5,
            &mut sum.hit_at_10,
            &mut sum.recall_at_1,
            &mut sum.recall_at_5,
            &mut sum.recall_at_10,
            &mut sum.mrr,
        ] {
            *v /= n;
        }
        sum
    }
}
