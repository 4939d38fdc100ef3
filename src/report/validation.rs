//! Report types of `verdict validate` (is a new task instance sound?) and `verdict
//! check-envs` (does an environment still build, and does the gold patch still grade as the
//! dataset says?).

use serde::{Deserialize, Serialize};

use super::{Outcome, Timing};
use crate::grade::{Derived, Grade, ListName};
use crate::parse::ParsedTests;

/// The verdict on one new task instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidationStatus {
    Valid,
    /// No test goes from failing to passing with the gold patch.
    NoFailToPass,
    /// Tests still fail with the gold patch and none goes from failing to passing.
    GoldFails,
    TestPatchDoesNotApply,
    GoldDoesNotApply,
    BuildFailed,
}

/// `verdict validate`'s report for one instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationReport {
    pub instance_id: String,
    pub status: ValidationStatus,
    pub reason: Option<String>,
    /// The lists derived from the runs, when the runs happened.
    pub derived: Option<Derived>,
    /// Log files, relative to the instance folder.
    #[serde(default)]
    pub logs: Vec<String>,
    pub timing: Timing,
    /// The clock the tests saw (`--clock`).
    #[serde(default)]
    pub clock: crate::run::clock::Clock,
}

/// The status that the derived lists alone decide (the pipeline decides the apply and build
/// statuses before any test runs), with its reason.
pub fn validation_status(derived: &Derived) -> (ValidationStatus, String) {
    let flaky = match derived.flaky.len() {
        0 => String::new(),
        n => format!("; {n} flaky test(s) left out of both lists"),
    };
    if !derived.fail_to_pass.is_empty() {
        let broken = match derived.pass_to_fail.len() {
            0 => String::new(),
            n => format!("; the gold patch breaks {n} test(s) that passed before: {}", some(&derived.pass_to_fail)),
        };
        return (
            ValidationStatus::Valid,
            format!(
                "{} FAIL_TO_PASS and {} PASS_TO_PASS test(s) over {} run(s) before and {} after{flaky}{broken}",
                derived.fail_to_pass.len(),
                derived.pass_to_pass.len(),
                derived.before_runs,
                derived.after_runs
            ),
        );
    }
    if !derived.failing_after.is_empty() {
        return (
            ValidationStatus::GoldFails,
            format!(
                "no test goes from failing to passing, and {} test(s) still fail with the gold \
                 patch: {}{flaky}",
                derived.failing_after.len(),
                some(&derived.failing_after)
            ),
        );
    }
    let reason = if derived.pass_to_pass.is_empty() && derived.flaky.is_empty() {
        "no test result was parsed from the runs with the gold patch".to_string()
    } else {
        format!("no test fails before the gold patch and passes after it{flaky}")
    };
    (ValidationStatus::NoFailToPass, reason)
}

/// An expected test that no longer grades as the dataset says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drift {
    pub list: ListName,
    pub id: String,
    /// What it is now: a status (`FAILED`, `SKIPPED`, …), `missing`, or for a file or class
    /// the tests in it that did not pass.
    pub now: String,
}

/// Every FAIL_TO_PASS and PASS_TO_PASS id that did not pass under the gold patch.
pub fn drift_from_grade(grade: &Grade, parsed: &ParsedTests) -> Vec<Drift> {
    let mut drift = Vec::new();
    for (list, status) in [
        (ListName::FailToPass, &grade.tests_status.fail_to_pass),
        (ListName::PassToPass, &grade.tests_status.pass_to_pass),
    ] {
        for id in &status.failure {
            let coarse = grade.coarse.iter().find(|c| c.list == list && &c.id == id);
            let now = if let Some(c) = coarse {
                if c.failing.is_empty() {
                    format!("{} level: no test in it passed ({} skipped)", c.level, c.skipped)
                } else {
                    format!("{} level: {}", c.level, c.failing.join(", "))
                }
            } else {
                match parsed.tests.get(id) {
                    Some(result) => crate::grade::granularity::status_name(result.status).to_string(),
                    None => "missing".to_string(),
                }
            };
            drift.push(Drift { list, id: id.clone(), now });
        }
    }
    drift
}

/// `verdict check-envs`' report for one instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckEnvReport {
    pub instance_id: String,
    /// The environment (every image layer) still builds.
    pub builds: bool,
    pub build_log: Option<String>,
    /// The gold patch's outcome, when the image built.
    pub outcome: Option<Outcome>,
    /// Expected tests that no longer grade as the dataset says; empty when nothing drifted.
    #[serde(default)]
    pub drift: Vec<Drift>,
    pub reason: Option<String>,
    pub timing: Timing,
}

fn some(ids: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = ids.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    text
}
