//! Report types of `verdict validate` (is a new task instance sound?) and `verdict
//! check-envs` (does an environment still build, and does the gold patch still grade as the
//! dataset says?).

use serde::{Deserialize, Serialize};

use super::{Outcome, Timing};
use crate::grade::Derived;
use crate::grade::ToolchainRecord;

pub use crate::grade::decide::{drift_from_grade, validation_status};
pub use crate::grade::{Drift, ValidationStatus};

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
    pub clock: crate::dataset::clock::Clock,
    /// Things a reader must know (a test patch that yields no test argument, say).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The base image's toolchain: each tool's provider, requested and installed version.
    #[serde(default)]
    pub toolchains: Vec<ToolchainRecord>,
    /// Tests that passed before and after but match the spec's `pass_to_pass_exclude`, so are
    /// not in PASS_TO_PASS.
    #[serde(default)]
    pub excluded_from_pass_to_pass: Vec<String>,
    /// What the repeats say about the tests' stability, and how many would be needed.
    #[serde(default)]
    pub stability: Option<super::stability::Stability>,
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
    /// Integrity warnings of the gold run (its exit code against its parsed statuses, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub integrity: Vec<String>,
    pub timing: Timing,
}
