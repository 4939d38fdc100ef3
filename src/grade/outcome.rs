//! What a decision can say: an evaluation's [`Outcome`], a validation's [`ValidationStatus`],
//! and a check-envs [`Drift`]. The decide stage ([`decide`](super::decide)) makes them; the
//! reports ([`crate::report`]) carry them.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{ListName, Resolution};

/// How one instance's evaluation ended. Exactly one per instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    ResolvedFull,
    /// Every FAIL_TO_PASS and PASS_TO_PASS test passes, but the candidate carries suspicions
    /// (the report's `suspicious`): not counted as resolved until someone has looked
    /// ([`flagged`](super::decide::flagged)).
    ResolvedFlagged,
    ResolvedPartial,
    Unresolved,
    PatchApplyFailed,
    EmptyPatch,
    Timeout,
    BuildFailed,
    InfraError,
}

impl Outcome {
    pub const ALL: [Outcome; 9] = [
        Outcome::ResolvedFull,
        Outcome::ResolvedFlagged,
        Outcome::ResolvedPartial,
        Outcome::Unresolved,
        Outcome::PatchApplyFailed,
        Outcome::EmptyPatch,
        Outcome::Timeout,
        Outcome::BuildFailed,
        Outcome::InfraError,
    ];

    /// A test run produced gradable output (SWE-bench's "completed").
    pub fn is_completed(self) -> bool {
        matches!(
            self,
            Outcome::ResolvedFull | Outcome::ResolvedFlagged | Outcome::ResolvedPartial | Outcome::Unresolved
        )
    }

    /// Counted among SWE-bench's `error_instances` (it counts apply failures as errors too).
    pub fn is_error(self) -> bool {
        matches!(self, Outcome::PatchApplyFailed | Outcome::Timeout | Outcome::BuildFailed | Outcome::InfraError)
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::ResolvedFull => "resolved_full",
            Outcome::ResolvedFlagged => "resolved_flagged",
            Outcome::ResolvedPartial => "resolved_partial",
            Outcome::Unresolved => "unresolved",
            Outcome::PatchApplyFailed => "patch_apply_failed",
            Outcome::EmptyPatch => "empty_patch",
            Outcome::Timeout => "timeout",
            Outcome::BuildFailed => "build_failed",
            Outcome::InfraError => "infra_error",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Resolution> for Outcome {
    fn from(resolution: Resolution) -> Self {
        match resolution {
            Resolution::Full => Outcome::ResolvedFull,
            Resolution::Partial => Outcome::ResolvedPartial,
            Resolution::No => Outcome::Unresolved,
        }
    }
}

/// The verdict on one new task instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidationStatus {
    Valid,
    /// No test goes from failing to passing with the gold patch.
    NoFailToPass,
    /// Tests still fail with the gold patch and none goes from failing to passing.
    GoldFails,
    /// No run reported any test, before or with the gold patch: the test arguments, the test
    /// command or a runner plugin is wrong, not the instance.
    NoTestsRan,
    TestPatchDoesNotApply,
    GoldDoesNotApply,
    BuildFailed,
    /// verdict's own steps failed (the engine, the eval script, or verdict itself), so the
    /// runs say nothing about the instance.
    InfraError,
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
