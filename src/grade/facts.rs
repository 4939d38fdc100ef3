//! What one run did, as facts and nothing decided: the raw outcome that `run::execute` returns
//! and the decide stage ([`decide`](super::decide)) reads. The eval script's marker lines
//! ([`ScriptFacts`]), what the backend saw of the job ([`JobFacts`]), the limits the run had
//! ([`RunLimits`]) and the parse of the test output travel together in a [`RawOutcome`].
//!
//! A `RawOutcome` (without the parse, which is redone from the saved logs) is stored in
//! `report.json` under `run`, so `verdict report` decides again from the same facts.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::parse::ParsedTests;

/// A step of the eval script's apply chain: which one applied the candidate patch, or
/// [`ApplyStep::NotApplied`] when none did. Serialized as the script's own words (`none`,
/// `git_apply`, `git_apply_3way`, `patch_fuzz`), so reports written before this type read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ApplyStep {
    #[serde(rename = "none")]
    NotApplied,
    #[serde(rename = "git_apply")]
    GitApply,
    #[serde(rename = "git_apply_3way")]
    GitApply3way,
    #[serde(rename = "patch_fuzz")]
    PatchFuzz,
}

impl ApplyStep {
    /// Every word the eval script prints after `APPLY`.
    pub const ALL: [ApplyStep; 4] =
        [ApplyStep::NotApplied, ApplyStep::GitApply, ApplyStep::GitApply3way, ApplyStep::PatchFuzz];

    /// The script's word for this step.
    pub fn name(self) -> &'static str {
        match self {
            ApplyStep::NotApplied => "none",
            ApplyStep::GitApply => "git_apply",
            ApplyStep::GitApply3way => "git_apply_3way",
            ApplyStep::PatchFuzz => "patch_fuzz",
        }
    }

    /// The step a script word names (`None` for a word the script never prints).
    pub fn from_name(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|step| step.name() == word)
    }

    /// Some step applied the patch.
    pub fn applied(self) -> bool {
        self != ApplyStep::NotApplied
    }

    /// Applied strictly: plain `git apply`, no 3-way merge, no fuzz.
    pub fn strict(self) -> bool {
        self == ApplyStep::GitApply
    }
}

impl fmt::Display for ApplyStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the eval script's marker lines said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptFacts {
    /// The `APPLY` line: the step that applied the candidate, [`ApplyStep::NotApplied`], or
    /// `None` when the line is missing (no candidate, or the script stopped before it).
    pub apply: Option<ApplyStep>,
    /// `Some(true)` when the test patch applied (or was empty), `Some(false)` when it did not,
    /// `None` when the line is missing.
    pub test_patch_applied: Option<bool>,
    /// The `TESTS START` line was seen.
    pub tests_started: bool,
    /// The test command's exit code, from the `TESTS EXIT` line.
    pub exit_code: Option<i64>,
    /// The script's last line (`END`) was seen.
    pub finished: bool,
    /// A pinned clock was asked for and the image has no libfaketime (`CLOCK unavailable`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clock_unavailable: bool,
}

/// What the eval script did to keep the candidate away from the runner, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    pub path: String,
    pub kind: GuardKind,
    /// What was done and why, in words.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardKind {
    /// The runner's parts of the file went back to the base commit.
    ConfigReset,
    /// They could not: the runner was started with its base configuration instead.
    ConfigFallback,
    /// A path git does not track (an installed file) was put back as the image had it.
    Kept,
}

/// What the execution backend saw of the job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobFacts {
    /// The container's own exit status (`None` when it was killed at the deadline).
    pub container_exit_code: Option<i64>,
    /// verdict killed the container at its deadline.
    pub killed_at_deadline: bool,
    /// The kernel's out-of-memory killer stopped a process of the container.
    pub oom_killed: bool,
    pub wall_secs: f64,
}

/// The limits a run had, which the decision names in its reasons.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunLimits {
    /// The test command's timeout.
    pub timeout_secs: u64,
    /// The container's memory limit.
    pub memory_gib: f64,
}

/// How far the run got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Execution {
    /// An image layer did not build; nothing ran.
    BuildFailed {
        reason: String,
        /// The build log, for the report.
        log: Option<String>,
    },
    /// The backend could not run the job (the engine failed, or a copy in or out did).
    EngineFailed { reason: String },
    /// The container ran; what the script and the backend said.
    Ran { script: ScriptFacts, job: JobFacts },
}

/// Everything one run produced, before any decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawOutcome {
    /// A candidate patch was part of the run (validation's "before" runs have none).
    pub candidate: bool,
    pub execution: Execution,
    pub limits: RunLimits,
    /// The test command's arguments, made from the test patch's files.
    #[serde(default)]
    pub test_args: Vec<String>,
    /// User + system CPU seconds of the test command.
    pub cpu_secs: Option<f64>,
    /// Size of the instance image the run used.
    pub image_bytes: Option<u64>,
    /// Its layers with their own sizes (kept in the report's `image_layers`, not here).
    #[serde(skip)]
    pub image_layers: Vec<crate::images::layers::LayerSize>,
    /// Files written to the run's folder, relative to it.
    #[serde(default)]
    pub files: Vec<String>,
    /// The test output parsed, when the tests started: `Err` says why nothing could be read.
    #[serde(skip)]
    pub parsed: Option<Result<ParsedTests, String>>,
    /// The cluster node the job ran on (Swarm backend).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// What the eval script did to keep the candidate away from the runner (runner
    /// configuration reset or fallen back, untracked paths put back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guards: Vec<Guard>,
    /// What the execution backend noticed (output left out past `--max-output`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The base image's toolchain: provider, requested and installed version of each tool.
    /// Reports keep it in their own `toolchains` field, so it is not written twice.
    #[serde(skip)]
    pub toolchains: Vec<ToolchainRecord>,
}

/// One tool of an instance's toolchain, as reports record it: which provider, which version was
/// asked for, and which the image has (`None` when the image did not build).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolchainRecord {
    pub tool: String,
    pub provider: String,
    pub requested: Option<String>,
    pub installed: Option<String>,
}

impl RawOutcome {
    /// A run that has not got anywhere yet (the caller fills in `execution`).
    pub fn new(candidate: bool, limits: RunLimits) -> Self {
        RawOutcome {
            candidate,
            execution: Execution::EngineFailed { reason: "the run did not start".into() },
            limits,
            test_args: Vec::new(),
            cpu_secs: None,
            image_bytes: None,
            image_layers: Vec::new(),
            files: Vec::new(),
            node: None,
            guards: Vec::new(),
            notes: Vec::new(),
            toolchains: Vec::new(),
            parsed: None,
        }
    }

    /// The apply step the script reported, when some step applied the candidate.
    pub fn applied_step(&self) -> Option<ApplyStep> {
        match &self.execution {
            Execution::Ran { script, .. } => script.apply.filter(|step| step.applied()),
            _ => None,
        }
    }

    /// The test command's exit code, when the script recorded one.
    pub fn exit_code(&self) -> Option<i64> {
        match &self.execution {
            Execution::Ran { script, .. } => script.exit_code,
            _ => None,
        }
    }

    /// Wall-clock seconds of the job (0 when no container ran).
    pub fn wall_secs(&self) -> f64 {
        match &self.execution {
            Execution::Ran { job, .. } => job.wall_secs,
            _ => 0.0,
        }
    }
}
