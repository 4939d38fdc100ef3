//! Localization scores derived from patches: which files, classes and functions a patch
//! touches, and how well a candidate's locations match the gold patch's.
//!
//! Both patches go through the same procedure ([`locate`]):
//! 1. read the patch ([`crate::patch`]) and apply it to the base snapshot (`sections`) the way
//!    verdict's apply chain does: as `git apply` reads and applies it (`apply`), else as
//!    `patch --fuzz=N` does (`lenient`; N is [`DEFAULT_MAX_FUZZ`] unless the caller sets
//!    [`Localizer::with_max_fuzz`]). [`PatchLocations::applied_with`] and the notes record
//!    whether hunks needed offsets or fuzz; a patch applied leniently counts as applied;
//! 2. diff each file's pre-image against its post-image with fixed settings (`linediff`);
//! 3. map removed lines to the definitions enclosing them in the pre-image and added lines to
//!    those enclosing them in the post-image, with tree-sitter (`outline`, `rules`).
//!
//! Candidates that give no patch but ranked lists of locations ([`RankedLocations`]) are scored
//! with the same metrics (`metrics`); `score` runs whole datasets and aggregates per level,
//! over all instances and over applied-only ones, and per language. Pure functions over text:
//! no Docker, no async. The definitions are written up in the README (Localization scores).

mod apply;
mod lang;
mod lenient;
mod linediff;
mod locate;
mod metrics;
mod outline;
mod parse;
mod ranked;
mod rules;
mod score;
mod sections;
mod snapshot;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use lang::{infer_language, Language};
pub use lenient::DEFAULT_MAX_FUZZ;
pub use locate::{apply_patch, locate, AppliedFile, Localizer, SnapshotCache};
pub use metrics::{LevelAggregate, LevelScores, KS};
pub use ranked::RankedLocations;
pub use score::{
    score_instances, summarize, Candidate, CandidateOutcome, GoldOutcome, InstanceLocalization, InvalidInstance,
    LanguageAggregate, LevelAggregates, LevelResults, LocalizationAggregate, LocalizationSummary, LocalizeItem,
};
pub use snapshot::{DirSnapshot, MemorySnapshot, Snapshot};

/// How the entities of a patch are ordered, for reports: a patch carries no ranking.
pub const PATCH_ORDER: &str = "entities of a patch are ranked by first appearance in the \
normalized diff: files in patch order, then within each file the change blocks top to bottom, \
removed lines before added lines";

/// The locations a patch touches.
///
/// Every list keeps first-appearance order (see [`PATCH_ORDER`]) and holds no duplicates.
/// Entity names are `path:Name` for classes and `path:Outer.Inner.method` for functions, with
/// the file's pre-image path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatchLocations {
    /// Files modified, deleted or renamed (pre-image paths) with a net change. Scored.
    pub files: Vec<String>,
    /// Files the patch creates (post-image paths). Listed, not scored.
    pub created_files: Vec<String>,
    /// Class-like definitions (innermost class, qualified by its enclosing classes) that
    /// enclose a removed line in the pre-image, or an added line in the post-image when the
    /// class already existed. Scored.
    pub classes: Vec<String>,
    /// Classes that exist only after the patch. Listed, not scored.
    pub added_classes: Vec<String>,
    /// Functions that enclose a changed line and exist in the pre-image. Scored.
    pub functions: Vec<String>,
    /// Functions that exist only after the patch. Listed, not scored.
    pub added_functions: Vec<String>,
    /// Files whose pre- or post-image has a syntax error, with the first error's line. Changed
    /// lines inside a definition with an error count at file level only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parse_errors: Vec<FileNote>,
    /// Everything else that limited a file to file level or was worth recording, including
    /// how hunks that did not apply exactly at their stated lines were placed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<FileNote>,
    /// How the patch applied to the base snapshot (reports written before this field read as
    /// `exact`).
    #[serde(default)]
    pub applied_with: AppliedWith,
}

/// How a patch applied to the base snapshot: the most lenient placement any hunk needed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppliedWith {
    /// As `git apply` without options, every hunk at the line its header states.
    #[default]
    Exact,
    /// Every context line matched, but a hunk sat away from its stated line, or only
    /// `patch`'s placement rules accepted the patch (for example a hunk whose context overlaps
    /// the previous hunk's changes).
    Offset,
    /// Only `patch --fuzz` applied it: some hunk matched with leading or trailing context
    /// lines ignored.
    Fuzz,
}

impl AppliedWith {
    pub fn as_str(self) -> &'static str {
        match self {
            AppliedWith::Exact => "exact",
            AppliedWith::Offset => "offset",
            AppliedWith::Fuzz => "fuzz",
        }
    }
}

impl std::fmt::Display for AppliedWith {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A note about one file of a patch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileNote {
    pub path: String,
    pub reason: String,
}

impl std::fmt::Display for FileNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

/// Why a patch could not be localized. For a gold patch this makes the instance invalid; for a
/// candidate it scores 0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocateError {
    #[error("the patch does not parse at line {line}: {reason}")]
    Parse { line: usize, reason: String },
    #[error("the patch contains no file changes (no `diff --git` or `---`/`+++` section)")]
    Empty,
    #[error("the patch touches `{path}`, which is outside the repository: {reason}")]
    UnsafePath { path: String, reason: String },
    #[error("the patch does not apply to `{path}`: {reason}")]
    DoesNotApply { path: String, reason: String },
    #[error("cannot read `{path}` from the base snapshot: {message}")]
    Snapshot { path: String, message: String },
}

impl From<crate::patch::PatchError> for LocateError {
    fn from(e: crate::patch::PatchError) -> Self {
        use crate::patch::PatchError;
        match e {
            PatchError::Parse { line, reason, .. } => LocateError::Parse { line, reason },
            PatchError::Empty => LocateError::Empty,
            PatchError::UnsafePath { path, reason } => LocateError::UnsafePath { path, reason },
        }
    }
}
