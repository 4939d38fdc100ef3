//! Grading: from a dataset's FAIL_TO_PASS / PASS_TO_PASS lists and one parsed test run to a
//! resolution, plus deriving those lists from validation runs ([`derive`](mod@derive)), the
//! integrity checks of a parsed run ([`integrity`]), and the decide stage that turns what a run
//! did ([`facts`]) into an outcome ([`decide`], [`outcome`]).
//!
//! # Rules
//! - A listed test passes when its status is PASSED or XFAIL. SKIPPED is never a pass, and a
//!   test missing from the run counts as failed (it is listed under `missing` too).
//! - XPASS (marked as expected to fail, and passed) follows [`XpassRule`]: by default it is a
//!   pass of a PASS_TO_PASS test (not a regression: pytest exits 0 on a non-strict XPASS and
//!   reports a strict one as FAILED) and not a pass of a FAIL_TO_PASS test; with
//!   [`XpassRule::Fail`] it is never a pass.
//! - FULL: every FAIL_TO_PASS and every PASS_TO_PASS id passes. PARTIAL: at least one
//!   FAIL_TO_PASS id passes, not all, and every PASS_TO_PASS id passes. Otherwise NO.
//! - An instance with an empty FAIL_TO_PASS list grades NO, with a note: nothing in the run
//!   can show the issue resolved. (SWE-bench treats an empty list as all passed; an instance
//!   like that is invalid, and `verdict validate` rejects it.)
//!
//! # Granularity
//! An expected id that equals a test id is graded per test. Otherwise it is matched at a
//! coarser level ([`granularity`]): a test file (JS/TS paths, pytest `path.py`) or a class
//! (Java `com.x.FooTest`, with or without OmniGIRL's spurious leading `org.`, including nested
//! `FooTest$Inner`; pytest `path.py::Class`). A coarse id passes only when every test in it
//! ran and passed: at least one test matched it, none failed, errored or (under the rules
//! above) XPASSed, and none was skipped, since a skipped test leaves the file or class unproven.
//! Each list records the level it was graded at, and every coarse match is listed with its
//! counts (tests, passing, skipped, and the failing ones by name).

pub mod decide;
pub mod derive;
pub mod facts;
pub mod granularity;
pub mod integrity;
pub mod outcome;
pub mod suspicious;

pub use derive::{derive_lists, derive_lists_with, Derived, FlakyTest};
pub use facts::{
    ApplyStep, Execution, Guard, GuardKind, JobFacts, RawOutcome, RunLimits, ScriptFacts, ToolchainRecord,
};
pub use granularity::{CoarseMatch, Granularity};
pub use integrity::check_exit_code;
pub use outcome::{Drift, Outcome, ValidationStatus};
pub use suspicious::Suspicion;

use serde::{Deserialize, Serialize};

use crate::parse::{ParsedTests, TestStatus};
use granularity::{match_id, Index, Match};

/// How an XPASS (a test marked as expected to fail that passed) grades.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum XpassRule {
    /// An XPASS of a PASS_TO_PASS test is a pass: it broke nothing (pytest exits 0 on a
    /// non-strict XPASS, and reports a strict one as FAILED). In FAIL_TO_PASS it is not a pass.
    #[default]
    NotRegression,
    /// An XPASS is never a pass, in either list (verdict's rule before `not-regression`; for
    /// datasets whose PASS_TO_PASS lists were made expecting it).
    Fail,
}

impl XpassRule {
    pub fn name(self) -> &'static str {
        match self {
            XpassRule::NotRegression => "not-regression",
            XpassRule::Fail => "fail",
        }
    }
}

impl std::str::FromStr for XpassRule {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        [XpassRule::NotRegression, XpassRule::Fail]
            .into_iter()
            .find(|rule| rule.name() == s)
            .ok_or_else(|| format!("unknown XPASS rule {s:?}: expected `not-regression` or `fail`"))
    }
}

/// The grading rules a run is graded under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    pub xpass: XpassRule,
}

impl Rules {
    /// Whether a test of `list` with `status` passes.
    pub fn passes(&self, list: ListName, status: TestStatus) -> bool {
        status.is_pass()
            || (status == TestStatus::Xpass && list == ListName::PassToPass && self.xpass == XpassRule::NotRegression)
    }
}

/// SWE-bench's three resolution levels, with its spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Resolution {
    #[serde(rename = "RESOLVED_FULL")]
    Full,
    #[serde(rename = "RESOLVED_PARTIAL")]
    Partial,
    #[serde(rename = "RESOLVED_NO")]
    No,
}

/// Which expected list an id comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ListName {
    #[serde(rename = "FAIL_TO_PASS")]
    FailToPass,
    #[serde(rename = "PASS_TO_PASS")]
    PassToPass,
}

impl std::fmt::Display for ListName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ListName::FailToPass => "FAIL_TO_PASS",
            ListName::PassToPass => "PASS_TO_PASS",
        })
    }
}

/// The ids of one expected list that passed and that did not, in list order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListStatus {
    pub success: Vec<String>,
    pub failure: Vec<String>,
    /// The ids in `failure` that matched no test at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// SWE-bench's `tests_status` shape.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestsStatus {
    #[serde(rename = "FAIL_TO_PASS")]
    pub fail_to_pass: ListStatus,
    #[serde(rename = "PASS_TO_PASS")]
    pub pass_to_pass: ListStatus,
}

/// The level each list was graded at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListGranularity {
    #[serde(rename = "FAIL_TO_PASS")]
    pub fail_to_pass: Granularity,
    #[serde(rename = "PASS_TO_PASS")]
    pub pass_to_pass: Granularity,
}

/// The grade of one test run against an instance's expected lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grade {
    pub resolution: Resolution,
    pub tests_status: TestsStatus,
    pub granularity: ListGranularity,
    /// Every expected id graded at file or class level, with what it matched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coarse: Vec<CoarseMatch>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Grade {
    pub fn resolved(&self) -> bool {
        self.resolution == Resolution::Full
    }
}

/// Grades one parsed run against the expected lists under the default [`Rules`].
pub fn grade(fail_to_pass: &[String], pass_to_pass: &[String], parsed: &ParsedTests) -> Grade {
    grade_with(fail_to_pass, pass_to_pass, parsed, &Rules::default())
}

/// Grades one parsed run against the expected lists (see the module doc for the rules).
pub fn grade_with(fail_to_pass: &[String], pass_to_pass: &[String], parsed: &ParsedTests, rules: &Rules) -> Grade {
    let index = Index::new(&parsed.tests, parsed.nesting);
    let mut coarse = Vec::new();
    let mut notes = Vec::new();
    let (f2p, f2p_level) = grade_list(ListName::FailToPass, fail_to_pass, parsed, &index, rules, &mut coarse);
    let (p2p, p2p_level) = grade_list(ListName::PassToPass, pass_to_pass, parsed, &index, rules, &mut coarse);

    let p2p_ok = p2p.failure.is_empty();
    let resolution = if fail_to_pass.is_empty() {
        notes.push("the instance has no FAIL_TO_PASS tests, so no test can show the issue resolved".to_string());
        Resolution::No
    } else if f2p.failure.is_empty() && p2p_ok {
        Resolution::Full
    } else if !f2p.success.is_empty() && p2p_ok {
        Resolution::Partial
    } else {
        Resolution::No
    };
    for (list, level, ids) in
        [(ListName::FailToPass, f2p_level, fail_to_pass.len()), (ListName::PassToPass, p2p_level, pass_to_pass.len())]
    {
        if level != Granularity::Test {
            let n = coarse.iter().filter(|c: &&CoarseMatch| c.list == list).count();
            notes.push(format!(
                "{list} graded at {level} level: {n} of its {ids} ids name a file or class, \
                 each passing only when none of its tests failed and at least one passed"
            ));
        }
    }
    if rules.xpass == XpassRule::NotRegression {
        let xpassed: Vec<&str> = pass_to_pass
            .iter()
            .filter(|id| parsed.tests.get(id.as_str()).is_some_and(|r| r.status == TestStatus::Xpass))
            .map(String::as_str)
            .collect();
        if !xpassed.is_empty() {
            notes.push(format!(
                "{} PASS_TO_PASS test(s) XPASSed (marked as expected to fail, and passed) and count as passing, not as \
                 a regression (`--xpass not-regression`): {}",
                xpassed.len(),
                xpassed.join(", ")
            ));
        }
    }
    for c in &coarse {
        if let Some(stripped) = &c.matched_as {
            let dropped = c.id.strip_suffix(stripped.as_str()).unwrap_or_default();
            notes.push(format!("{} id {:?} matched as {:?} (leading `{dropped}` dropped)", c.list, c.id, stripped));
        }
    }
    Grade {
        resolution,
        tests_status: TestsStatus { fail_to_pass: f2p, pass_to_pass: p2p },
        granularity: ListGranularity { fail_to_pass: f2p_level, pass_to_pass: p2p_level },
        coarse,
        notes,
    }
}

fn grade_list(
    list: ListName,
    ids: &[String],
    parsed: &ParsedTests,
    index: &Index<'_>,
    rules: &Rules,
    coarse: &mut Vec<CoarseMatch>,
) -> (ListStatus, Granularity) {
    let mut status = ListStatus::default();
    let mut levels: Vec<Granularity> = Vec::new();
    for id in ids {
        let passed = match match_id(id, &parsed.tests, index) {
            Match::Test(result) => {
                levels.push(Granularity::Test);
                rules.passes(list, result.status)
            }
            Match::Coarse(found) => {
                levels.push(found.level);
                let m = found.into_report(list, id, rules);
                let passed = m.passed;
                coarse.push(m);
                passed
            }
            Match::Missing => {
                status.missing.push(id.clone());
                false
            }
        };
        if passed {
            status.success.push(id.clone());
        } else {
            status.failure.push(id.clone());
        }
    }
    levels.sort();
    levels.dedup();
    let level = match levels.as_slice() {
        [] => Granularity::Test,
        [one] => *one,
        _ => Granularity::Mixed,
    };
    (status, level)
}

#[cfg(test)]
mod tests;
