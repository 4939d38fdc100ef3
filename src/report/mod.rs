//! Reports: the per-instance `report.json` ([`InstanceReport`]), the run summary
//! ([`summary`]), the terminal table ([`table`]) and the `verdict validate` / `check-envs`
//! report types ([`validation`]). Plain data the pipeline fills, plus pure functions over it.

pub mod apply;
pub mod compare;
pub mod html;
pub mod junit;
pub mod localization;
pub mod stability;
pub mod summary;
pub mod table;
pub mod validation;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use localization::render_localization;
pub use summary::{summarize, Breakdown, CostSummary, InstanceFacts, OwnCost, Rate, Summary};
pub use table::render_table;
pub use validation::{drift_from_grade, validation_status, CheckEnvReport, Drift, ValidationReport, ValidationStatus};

pub use crate::grade::Outcome;

use crate::dataset::clock::Clock;
use crate::dataset::Cost;
use crate::grade::decide::Evaluation;
use crate::grade::Suspicion;
use crate::grade::ToolchainRecord;
use crate::grade::{ApplyStep, Grade, RawOutcome};
use crate::parse::{Disagreement, ParsedTests, ResultSource, SummaryCounts, TestStatus};

/// How the candidate patch was applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyInfo {
    /// The step of the apply chain that succeeded (`git_apply`, `git_apply_3way`,
    /// `patch_fuzz`), or `None` when none did or none was tried.
    pub step: Option<ApplyStep>,
    /// Applied without fuzz (plain `git apply`).
    pub strict: bool,
    /// Applied by any step of the chain, fuzz included.
    pub lenient: bool,
}

/// What the log parser said about its own work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseInfo {
    pub source: ResultSource,
    #[serde(default)]
    pub disagreements: Vec<Disagreement>,
    #[serde(default)]
    pub notes: Vec<String>,
    /// The counts of the console's closing summary, when it printed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console_summary: Option<SummaryCounts>,
    /// Why the parser thinks the run stopped part-way, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

impl From<&ParsedTests> for ParseInfo {
    fn from(parsed: &ParsedTests) -> Self {
        ParseInfo {
            source: parsed.source,
            disagreements: parsed.disagreements.clone(),
            notes: parsed.notes.clone(),
            console_summary: parsed.console_summary.clone(),
            incomplete: parsed.incomplete.clone(),
        }
    }
}

/// verdict's own time for one instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub wall_secs: f64,
    pub cpu_secs: Option<f64>,
}

/// Log files of one instance, as paths relative to the instance folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogFiles {
    pub patch: Option<String>,
    pub eval_script: Option<String>,
    pub test_output: Option<String>,
    /// Structured reports collected from the run (JUnit XML, jest/mocha JSON, surefire XML).
    #[serde(default)]
    pub reports: Vec<String>,
    /// The image build log, for `build_failed` (may point outside the instance folder).
    pub build_log: Option<String>,
}

/// `logs/<run_id>/<model>/<instance_id>/report.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceReport {
    pub instance_id: String,
    pub model: String,
    /// The method that produced the patch, when the predictions said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub repo: String,
    pub language: String,
    pub outcome: Outcome,
    /// Why: for a graded outcome, how many tests of each list pass and which do not.
    pub reason: Option<String>,
    /// The cache key of the candidate patch ([`patch_sha256`]).
    pub patch_sha256: String,
    /// The instance image the run used (its tag hashes every input of the environment). A
    /// rerun reuses this report only when both the patch and the environment are unchanged.
    #[serde(default)]
    pub environment: String,
    pub apply: ApplyInfo,
    /// Things a reader must know, e.g. `touches test files: tests/test_x.py, conftest.py`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// Named reasons to look at the candidate before calling it resolved (its code reaches into
    /// the test framework, or its runner configuration could not be reset); a candidate that
    /// would be `resolved_full` with any of them is `resolved_flagged`.
    #[serde(default)]
    pub suspicious: Vec<Suspicion>,
    pub exit_code: Option<i64>,
    pub parse: Option<ParseInfo>,
    pub tests: Option<BTreeMap<String, TestStatus>>,
    pub grade: Option<Grade>,
    /// Integrity warnings (exit code against statuses, and the like).
    #[serde(default)]
    pub integrity: Vec<String>,
    pub cost: Option<Cost>,
    pub timing: Timing,
    /// The clock the tests saw (`--clock`).
    #[serde(default)]
    pub clock: Clock,
    /// The grading rules the outcome was decided under (`--xpass`). A rerun under other rules
    /// does not reuse the report; `verdict report` regrades under the rules it is given.
    #[serde(default)]
    pub rules: crate::grade::Rules,
    pub image_bytes: Option<u64>,
    /// The instance image's layers with their own sizes; the summary counts each layer once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_layers: Vec<crate::images::layers::LayerSize>,
    /// The base image's toolchain: each tool's provider, requested and installed version.
    #[serde(default)]
    pub toolchains: Vec<ToolchainRecord>,
    /// The candidate's localization scores against the gold patch.
    pub localization: Option<crate::localize::InstanceLocalization>,
    pub logs: LogFiles,
    /// What the run did, as the decide stage read it (`verdict report` decides again from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RawOutcome>,
}

impl InstanceReport {
    /// Resolved in SWE-bench's sense: every FAIL_TO_PASS and PASS_TO_PASS test passes.
    pub fn resolved(&self) -> bool {
        self.outcome == Outcome::ResolvedFull
    }

    /// Records a run and the decision on it: the run's facts, timing, apply step and log
    /// files, then the outcome, reason, grade, integrity warnings and parsed statuses.
    pub fn record(&mut self, raw: RawOutcome, decided: Evaluation) {
        self.exit_code = raw.exit_code();
        self.timing = Timing { wall_secs: raw.wall_secs(), cpu_secs: raw.cpu_secs };
        self.image_bytes = raw.image_bytes;
        self.image_layers = raw.image_layers.clone();
        self.toolchains = raw.toolchains.clone();
        let step = raw.applied_step();
        self.apply = ApplyInfo { strict: step.is_some_and(ApplyStep::strict), lenient: step.is_some(), step };
        for file in &raw.files {
            let file = file.clone();
            match file.as_str() {
                "eval.sh" => self.logs.eval_script = Some(file),
                "test_output.txt" => self.logs.test_output = Some(file),
                f if f.starts_with("reports/") && !self.logs.reports.contains(&file) => self.logs.reports.push(file),
                _ => {}
            }
        }
        self.decided(decided);
        self.run = Some(raw);
    }

    /// Records a decision (as [`InstanceReport::record`] does, without the run's facts).
    pub fn decided(&mut self, decided: Evaluation) {
        self.outcome = decided.outcome;
        self.reason = decided.reason;
        if decided.build_log.is_some() {
            self.logs.build_log = decided.build_log;
        }
        self.tests = decided.parsed.as_ref().map(tests_map);
        self.parse = decided.parsed.as_ref().map(ParseInfo::from);
        self.grade = decided.grade;
        self.integrity = decided.integrity;
    }

    /// Writes the report as pretty JSON, atomically (a killed process never leaves half a report).
    pub fn write(&self, path: &Path) -> Result<(), ReportError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| ReportError::Write { path: path.to_path_buf(), source: std::io::Error::other(e) })?;
        crate::atomic::write(path, (text + "\n").as_bytes())
            .map_err(|source| ReportError::Write { path: path.to_path_buf(), source })
    }

    /// Reads a report written by [`InstanceReport::write`].
    pub fn read(path: &Path) -> Result<Self, ReportError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ReportError::Read { path: path.to_path_buf(), source })?;
        serde_json::from_str(&text)
            .map_err(|e| ReportError::Invalid { path: path.to_path_buf(), message: e.to_string() })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot read report {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("report {path} is not a verdict report ({message}); delete it to rerun the instance")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot write report {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// The folder name of a model's results in a run: the model, or `model@method` when the
/// predictions name a method.
pub fn model_key(model: &str, method: Option<&str>) -> String {
    match method {
        Some(method) => format!("{model}@{method}"),
        None => model.to_string(),
    }
}

/// Hex SHA-256 of a candidate patch (an absent patch hashes as the empty string).
pub fn patch_sha256(patch: &str) -> String {
    hex::encode(Sha256::digest(patch.as_bytes()))
}

/// The test id → status map stored in a report.
pub fn tests_map(parsed: &ParsedTests) -> BTreeMap<String, TestStatus> {
    parsed.tests.iter().map(|(id, r)| (id.clone(), r.status)).collect()
}

#[cfg(test)]
mod tests;
