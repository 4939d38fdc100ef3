//! Scoring instances: locate the gold patch and the candidate against the instance's snapshot,
//! score each level, and aggregate over a dataset — over all valid instances, over those whose
//! candidate applied, and per language.
//!
//! Rules (see the README, Localization scores):
//! - an instance whose gold patch cannot be localized is invalid: listed, not scored;
//! - at each level, an instance whose gold is empty there is left out of that level (each
//!   aggregate gives its `n`);
//! - a candidate patch that does not parse or apply, and a missing candidate, score 0 and stay
//!   in the "all" aggregate; "applied only" keeps candidates whose patch applied (exactly, with
//!   offsets, or with fuzz: see [`super::AppliedWith`]) and ranked candidates.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::lang::infer_language;
use super::locate::{Localizer, SnapshotCache};
use super::metrics::{LevelAggregate, LevelScores};
use super::ranked::RankedLocations;
use super::{AppliedWith, PatchLocations, Snapshot, PATCH_ORDER};

/// What a system submitted for an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// A patch, localized like the gold patch.
    Patch(String),
    /// Ranked locations without a patch.
    Ranked(RankedLocations),
    /// Nothing was submitted.
    Missing,
}

/// One instance to score.
pub struct LocalizeItem<'a> {
    pub instance_id: String,
    /// The report language; inferred from the gold files' extensions when `None`.
    pub language: Option<String>,
    pub gold_patch: String,
    pub candidate: Candidate,
    /// The repository at the instance's base commit.
    pub snapshot: Box<dyn Snapshot + 'a>,
}

/// The gold patch's locations, or why it has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum GoldOutcome {
    Located {
        locations: PatchLocations,
    },
    /// The gold patch does not parse or apply: the instance is invalid.
    Invalid {
        error: String,
    },
}

/// The candidate's locations, or why it has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CandidateOutcome {
    /// The candidate patch applied (`locations.applied_with` says how); its entities are
    /// ranked by first appearance.
    Applied { locations: PatchLocations },
    /// The candidate patch does not parse or apply: it scores 0.
    NotApplied { error: String },
    /// Ranked locations, normalized.
    Ranked { locations: RankedLocations },
    /// No candidate: it scores 0.
    Missing,
}

impl CandidateOutcome {
    /// Whether the instance counts in the applied-only aggregates.
    pub fn counts_as_applied(&self) -> bool {
        matches!(self, CandidateOutcome::Applied { .. } | CandidateOutcome::Ranked { .. })
    }
}

/// Scores per level; `None` where the gold is empty at that level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelResults {
    pub file: Option<LevelScores>,
    pub class: Option<LevelScores>,
    pub function: Option<LevelScores>,
}

/// One instance's localization result, as it goes into its report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceLocalization {
    pub instance_id: String,
    pub language: String,
    pub gold: GoldOutcome,
    pub candidate: CandidateOutcome,
    /// `None` when the instance is invalid.
    pub scores: Option<LevelResults>,
}

/// Means per level.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelAggregates {
    pub file: LevelAggregate,
    pub class: LevelAggregate,
    pub function: LevelAggregate,
}

/// The aggregates of one language.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LanguageAggregate {
    /// Valid instances of this language.
    pub instances: usize,
    pub all: LevelAggregates,
    pub applied_only: LevelAggregates,
}

/// An instance left out because its gold patch cannot be localized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidInstance {
    pub instance_id: String,
    pub error: String,
}

/// Dataset-level localization scores, for the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalizationAggregate {
    /// How patch entities are ranked ([`PATCH_ORDER`]).
    pub ordering: String,
    /// Every instance given, valid or not.
    pub instances: usize,
    /// Instances whose gold patch was localized.
    pub valid: usize,
    pub invalid: Vec<InvalidInstance>,
    /// Among valid instances: candidate patches that applied.
    pub candidates_applied: usize,
    /// Among `candidates_applied`: those that applied only with fuzz, as `patch --fuzz` does.
    #[serde(default)]
    pub candidates_applied_with_fuzz: usize,
    /// Among valid instances: candidate patches that did not parse or apply.
    pub candidates_not_applied: usize,
    /// Among valid instances: ranked candidates.
    pub candidates_ranked: usize,
    /// Among valid instances: no candidate.
    pub candidates_missing: usize,
    /// Over every valid instance (failed and missing candidates score 0).
    pub all: LevelAggregates,
    /// Over valid instances whose candidate applied or was ranked.
    pub applied_only: LevelAggregates,
    pub by_language: BTreeMap<String, LanguageAggregate>,
}

/// Per-instance results and their aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalizationSummary {
    pub aggregate: LocalizationAggregate,
    pub instances: Vec<InstanceLocalization>,
}

impl Localizer {
    /// Scores one instance. The gold and candidate patches share one snapshot cache, so each
    /// pre-image is read and parsed once.
    pub fn score(&mut self, item: LocalizeItem<'_>) -> InstanceLocalization {
        let mut cache = SnapshotCache::default();
        let snapshot = &*item.snapshot;
        let gold = match self.locate(&item.gold_patch, snapshot, &mut cache) {
            Ok(locations) => GoldOutcome::Located { locations },
            Err(e) => GoldOutcome::Invalid { error: e.to_string() },
        };
        let candidate = match item.candidate {
            Candidate::Patch(patch) => match self.locate(&patch, snapshot, &mut cache) {
                Ok(locations) => CandidateOutcome::Applied { locations },
                Err(e) => CandidateOutcome::NotApplied { error: e.to_string() },
            },
            Candidate::Ranked(ranked) => CandidateOutcome::Ranked { locations: ranked.normalized() },
            Candidate::Missing => CandidateOutcome::Missing,
        };
        let language = item
            .language
            .map(|l| l.trim().to_ascii_lowercase())
            .filter(|l| !l.is_empty())
            .or_else(|| match &gold {
                GoldOutcome::Located { locations } => {
                    infer_language(locations.files.iter().chain(&locations.created_files).map(String::as_str))
                }
                GoldOutcome::Invalid { .. } => None,
            })
            .unwrap_or_else(|| "unknown".to_string());
        let scores = match &gold {
            GoldOutcome::Located { locations } => Some(level_results(locations, &candidate)),
            GoldOutcome::Invalid { .. } => None,
        };
        InstanceLocalization { instance_id: item.instance_id, language, gold, candidate, scores }
    }
}

fn level_results(gold: &PatchLocations, candidate: &CandidateOutcome) -> LevelResults {
    let empty: &[String] = &[];
    let (files, classes, functions) = match candidate {
        CandidateOutcome::Applied { locations } => {
            (&locations.files[..], &locations.classes[..], &locations.functions[..])
        }
        CandidateOutcome::Ranked { locations } => {
            (&locations.files[..], &locations.classes[..], &locations.functions[..])
        }
        CandidateOutcome::NotApplied { .. } | CandidateOutcome::Missing => (empty, empty, empty),
    };
    let level =
        |gold: &[String], predicted: &[String]| (!gold.is_empty()).then(|| LevelScores::compute(gold, predicted));
    LevelResults {
        file: level(&gold.files, files),
        class: level(&gold.classes, classes),
        function: level(&gold.functions, functions),
    }
}

/// Scores every item with one default [`Localizer`] and aggregates the results.
pub fn score_instances<'a>(items: impl IntoIterator<Item = LocalizeItem<'a>>) -> LocalizationSummary {
    Localizer::new().score_all(items)
}

impl Localizer {
    /// Scores every item with this localizer (and its fuzz setting) and aggregates the results.
    pub fn score_all<'a>(&mut self, items: impl IntoIterator<Item = LocalizeItem<'a>>) -> LocalizationSummary {
        let instances: Vec<InstanceLocalization> = items.into_iter().map(|i| self.score(i)).collect();
        LocalizationSummary { aggregate: summarize(&instances), instances }
    }
}

fn aggregates<'a>(results: impl Iterator<Item = &'a LevelResults> + Clone) -> LevelAggregates {
    LevelAggregates {
        file: LevelAggregate::mean(results.clone().filter_map(|r| r.file.as_ref())),
        class: LevelAggregate::mean(results.clone().filter_map(|r| r.class.as_ref())),
        function: LevelAggregate::mean(results.filter_map(|r| r.function.as_ref())),
    }
}

/// Aggregates per-instance results (for example ones read back from reports).
pub fn summarize(results: &[InstanceLocalization]) -> LocalizationAggregate {
    let valid: Vec<&InstanceLocalization> = results.iter().filter(|r| r.scores.is_some()).collect();
    let invalid = results
        .iter()
        .filter_map(|r| match &r.gold {
            GoldOutcome::Invalid { error } => {
                Some(InvalidInstance { instance_id: r.instance_id.clone(), error: error.clone() })
            }
            GoldOutcome::Located { .. } => None,
        })
        .collect();
    let count = |f: fn(&CandidateOutcome) -> bool| valid.iter().filter(|r| f(&r.candidate)).count();
    let scores_of = |rs: &[&'_ InstanceLocalization], applied_only: bool| -> LevelAggregates {
        let it = rs
            .iter()
            .filter(move |r| !applied_only || r.candidate.counts_as_applied())
            .filter_map(|r| r.scores.as_ref());
        aggregates(it)
    };
    let mut by_language: BTreeMap<String, Vec<&InstanceLocalization>> = BTreeMap::new();
    for r in &valid {
        by_language.entry(r.language.clone()).or_default().push(r);
    }
    LocalizationAggregate {
        ordering: PATCH_ORDER.to_string(),
        instances: results.len(),
        valid: valid.len(),
        invalid,
        candidates_applied: count(|c| matches!(c, CandidateOutcome::Applied { .. })),
        candidates_applied_with_fuzz: count(|c| {
            matches!(c, CandidateOutcome::Applied { locations }
                if locations.applied_with == AppliedWith::Fuzz)
        }),
        candidates_not_applied: count(|c| matches!(c, CandidateOutcome::NotApplied { .. })),
        candidates_ranked: count(|c| matches!(c, CandidateOutcome::Ranked { .. })),
        candidates_missing: count(|c| matches!(c, CandidateOutcome::Missing)),
        all: scores_of(&valid, false),
        applied_only: scores_of(&valid, true),
        by_language: by_language
            .into_iter()
            .map(|(lang, rs)| {
                let agg = LanguageAggregate {
                    instances: rs.len(),
                    all: scores_of(&rs, false),
                    applied_only: scores_of(&rs, true),
                };
                (lang, agg)
            })
            .collect(),
    }
}
