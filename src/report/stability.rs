//! How many repeats show that a test is stable, and the tests a spec keeps out of
//! PASS_TO_PASS (`pass_to_pass_exclude`), for `verdict validate`.
//!
//! A test that flips with probability `p` on each run shows the same status in `n` runs in a
//! row with probability `(1 − p)^n`. So when it never flipped in `n` runs, `p < 1 − (1 − c)^(1/n)`
//! with confidence `c`; and showing `p < p₀` with confidence `c` takes
//! `n = ⌈ln(1 − c) / ln(1 − p₀)⌉` runs without a flip (59 runs for c = 0.95 and p₀ = 0.05; the
//! "rule of three", n ≈ 3 / p₀, at c = 0.95). Each phase of `validate` runs `--repeat` times, so
//! the bound applies per phase.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// What the repeats of one validation run say about the stability of its tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stability {
    /// The confidence asked for (`--confidence`).
    pub confidence: f64,
    /// The flip rate to rule out (`--flip-rate`).
    pub flip_rate: f64,
    /// Runs per phase without a flip that show a flip rate below `flip_rate` with `confidence`.
    pub repeats_needed: u64,
    /// Runs per phase made.
    pub repeats_made: usize,
    /// With `repeats_made` runs and no flip, the flip rate is below this, with `confidence`.
    pub flip_rate_bound: f64,
    /// How the figures are computed.
    pub formula: String,
}

/// `⌈ln(1 − c) / ln(1 − p)⌉` (at least 1); `c` and `p` in (0, 1).
pub fn repeats_needed(confidence: f64, flip_rate: f64) -> u64 {
    ((1.0 - confidence).ln() / (1.0 - flip_rate).ln()).ceil().max(1.0) as u64
}

/// `1 − (1 − c)^(1/n)`: the flip rate below which `n` unflipped runs put a test, with
/// confidence `c` (1 for no runs).
pub fn flip_rate_bound(confidence: f64, runs: usize) -> f64 {
    if runs == 0 {
        return 1.0;
    }
    1.0 - (1.0 - confidence).powf(1.0 / runs as f64)
}

/// The stability figures of a validation with `runs` repeats per phase.
pub fn stability(confidence: f64, flip_rate: f64, runs: usize) -> Stability {
    Stability {
        confidence,
        flip_rate,
        repeats_needed: repeats_needed(confidence, flip_rate),
        repeats_made: runs,
        flip_rate_bound: flip_rate_bound(confidence, runs),
        formula: "a test that never flips in n runs flips with probability below 1 - (1 - c)^(1/n) at confidence c; \
                  ruling out a flip rate p takes n = ceil(ln(1 - c) / ln(1 - p)) runs"
            .into(),
    }
}

/// Test-id globs of `pass_to_pass_exclude`: `*` matches any run of characters, `/` and `::`
/// included; `[...]` is a character class, so a literal bracket of a parameterized id is `\[`.
/// A glob that does not parse is an error naming it.
pub fn exclusion_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        let glob = GlobBuilder::new(g)
            .literal_separator(false)
            .build()
            .map_err(|e| format!("pass_to_pass_exclude glob {g:?} is not a glob: {e}"))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Removes the ids `set` matches from `pass_to_pass`, returning them.
pub fn exclude(pass_to_pass: &mut Vec<String>, set: &GlobSet) -> Vec<String> {
    let (out, keep): (Vec<String>, Vec<String>) = pass_to_pass.drain(..).partition(|id| set.is_match(id.as_str()));
    *pass_to_pass = keep;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_for_a_confidence() {
        assert_eq!(repeats_needed(0.95, 0.05), 59);
        assert_eq!(repeats_needed(0.99, 0.01), 459);
        assert_eq!(repeats_needed(0.95, 0.5), 5);
        assert_eq!(repeats_needed(0.5, 0.9), 1);
        // Two unflipped runs only rule out flip rates above about 78 % at 95 %.
        assert!((flip_rate_bound(0.95, 2) - 0.7764).abs() < 1e-3);
        assert!((flip_rate_bound(0.95, 59) - 0.0495).abs() < 1e-3);
        assert_eq!(flip_rate_bound(0.95, 0), 1.0);
        let s = stability(0.95, 0.05, 2);
        assert_eq!((s.repeats_needed, s.repeats_made), (59, 2));
    }

    #[test]
    fn excluded_tests_leave_pass_to_pass() {
        let set = exclusion_set(&["tests/tests_perf.py::*".into(), r"*::test_timing\[*\]".into()]).unwrap();
        let mut p2p: Vec<String> = [
            "tests/tests_perf.py::test_iter_overhead",
            "tests/tests_tqdm.py::test_format",
            "tests/x.py::TestA::test_timing[fast]",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let out = exclude(&mut p2p, &set);
        assert_eq!(out, ["tests/tests_perf.py::test_iter_overhead", "tests/x.py::TestA::test_timing[fast]"]);
        assert_eq!(p2p, ["tests/tests_tqdm.py::test_format"]);
        assert!(exclusion_set(&["a[".into()]).unwrap_err().contains("a["));
    }
}
