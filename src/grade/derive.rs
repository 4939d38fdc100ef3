//! Deriving FAIL_TO_PASS and PASS_TO_PASS from validation runs (`verdict validate`): the
//! tests run with the test patch alone ("before") and with the test patch plus the gold patch
//! ("after"), each repeated.
//!
//! - A test whose status differs between repeats of the same phase (a test present in one
//!   repeat and absent from another counts as differing) is flaky: it goes in neither list and
//!   is listed with every status it had.
//! - FAIL_TO_PASS: passes in every "after" run, and does not pass (fails, errors, is skipped
//!   or is missing) in the "before" runs. A skipped-then-passing test counts, as
//!   Multi-SWE-bench's skip-to-pass and none-to-pass tests do.
//! - PASS_TO_PASS: passes before and after.
//! - PASS_TO_FAIL (reported, not part of the dataset): passes before and not after; the gold
//!   patch breaks it.
//!
//! "Passes" is PASSED or XFAIL; an XPASS passes where [`Rules::passes`] says so (by default
//! for PASS_TO_PASS: a test that passed before, as XFAIL or XPASS, and XPASSes after stays in
//! PASS_TO_PASS), and is then not in `failing_after` either. Every list is sorted.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{ListName, Rules};
use crate::parse::{ParsedTests, TestStatus};

/// A test whose status changed between repeats of a phase. `None` means the test was absent
/// from that repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlakyTest {
    pub test: String,
    pub before: Vec<Option<TestStatus>>,
    pub after: Vec<Option<TestStatus>>,
}

/// The lists derived from validation runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Derived {
    #[serde(rename = "FAIL_TO_PASS")]
    pub fail_to_pass: Vec<String>,
    #[serde(rename = "PASS_TO_PASS")]
    pub pass_to_pass: Vec<String>,
    /// Tests the gold patch breaks (pass before, not after).
    #[serde(rename = "PASS_TO_FAIL")]
    pub pass_to_fail: Vec<String>,
    /// Tests that fail, error or XPASS in every "after" run (steady, not flaky).
    pub failing_after: Vec<String>,
    pub flaky: Vec<FlakyTest>,
    /// How many runs of each phase the lists come from.
    pub before_runs: usize,
    pub after_runs: usize,
}

/// Derives the lists under the default [`Rules`].
pub fn derive_lists(before_runs: &[ParsedTests], after_runs: &[ParsedTests]) -> Derived {
    derive_lists_with(before_runs, after_runs, &Rules::default())
}

/// Derives the lists; see the module doc for the rules. Deterministic for any run order of
/// the tests inside a run; the order of the repeats only shows in `flaky`.
pub fn derive_lists_with(before_runs: &[ParsedTests], after_runs: &[ParsedTests], rules: &Rules) -> Derived {
    let ids: BTreeSet<&str> =
        before_runs.iter().chain(after_runs).flat_map(|run| run.tests.keys().map(String::as_str)).collect();
    let mut derived = Derived { before_runs: before_runs.len(), after_runs: after_runs.len(), ..Derived::default() };
    for id in ids {
        let statuses = |runs: &[ParsedTests]| -> Vec<Option<TestStatus>> {
            runs.iter().map(|run| run.tests.get(id).map(|t| t.status)).collect()
        };
        let before = statuses(before_runs);
        let after = statuses(after_runs);
        let (Some(before_status), Some(after_status)) = (steady(&before), steady(&after)) else {
            derived.flaky.push(FlakyTest { test: id.to_string(), before, after });
            continue;
        };
        // What passing means depends on the list the test would go to (an XPASS may be a pass of
        // a PASS_TO_PASS test and never of a FAIL_TO_PASS one).
        let p2p_pass = |status: Option<TestStatus>| status.is_some_and(|s| rules.passes(ListName::PassToPass, s));
        let passed_before = p2p_pass(before_status);
        if passed_before {
            if p2p_pass(after_status) {
                derived.pass_to_pass.push(id.to_string());
            } else {
                derived.pass_to_fail.push(id.to_string());
            }
        } else if after_status.is_some_and(|s| rules.passes(ListName::FailToPass, s)) {
            derived.fail_to_pass.push(id.to_string());
        }
        if after_status.is_some_and(|s| s.is_failure() && !rules.passes(ListName::PassToPass, s)) {
            derived.failing_after.push(id.to_string());
        }
    }
    derived
}

/// The one status every repeat agrees on (`Some(None)` when absent from all, or when there
/// are no repeats), or `None` when the repeats disagree.
fn steady(statuses: &[Option<TestStatus>]) -> Option<Option<TestStatus>> {
    match statuses.split_first() {
        None => Some(None),
        Some((first, rest)) => rest.iter().all(|s| s == first).then_some(*first),
    }
}
