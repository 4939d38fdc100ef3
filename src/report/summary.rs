//! The run summary: SWE-bench's summary fields, so existing tooling keeps working, plus
//! verdict's outcomes, rates with their counts, cost, and breakdowns by language, repository,
//! patch scope and images.
//!
//! # Counting
//! `summarize` takes one model's reports, one per submitted prediction (the pipeline writes
//! a report for every outcome, an empty patch and an infrastructure error included).
//! - total: the dataset's instance ids (plus any report id missing from them).
//! - submitted: instances with a report. incomplete: instances without one (no prediction),
//!   as SWE-bench's `incomplete_ids`.
//! - completed: a test run produced gradable output (`resolved_full`, `resolved_partial`,
//!   `unresolved`).
//! - resolved: `resolved_full` only, as SWE-bench's `resolved`. unresolved: the other
//!   completed ones, so `resolved_partial` ids are in `unresolved_ids` and also listed in
//!   `resolved_partial_ids`.
//! - resolved_flagged: every listed test passed, but the candidate is suspicious (its code
//!   reaches into the test framework, or its runner configuration could not be reset). Never in
//!   `resolved_ids` or the resolve rate; counted among SWE-bench's unresolved and listed in
//!   `resolved_flagged_ids`, so a reader sees them and nobody publishes them as resolutions
//!   without a look.
//! - empty_patch: `empty_patch`.
//! - error: `patch_apply_failed`, `timeout`, `build_failed` and `infra_error` (SWE-bench
//!   writes no report when a patch does not apply, so it counts those as errors too); each
//!   also has its own id list.
//!
//! # Rates
//! Every rate is over all instances of the dataset (or of the breakdown group), as in
//! OmniGIRL's tables (`8.6% (82/959)`): resolve rate = resolved_full / total; strict apply
//! rate = applied by plain `git apply` / total; lenient apply rate = applied by any step of
//! the chain, fuzz included / total. Not submitted and empty patches count as not applied.
//!
//! # Cost
//! `cost` sums the predictions' dollar figures; its mean is over the instances that have one.
//! `verdict_cost` sums the reports' wall and CPU seconds, and the bytes of the instance images
//! the reports ran on with each layer counted once, as `docker system df` does (a base shared
//! by 86 images counts once); a report without layer facts (written by an older verdict) adds
//! its image's whole size, once per distinct image. The pipeline overwrites `wall_secs` with
//! the model's own elapsed time.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

use serde::{Deserialize, Serialize};

use super::{InstanceReport, Outcome};
use crate::dataset::Instance;

/// A rate with its counts. `value` is a fraction in 0..=1 (0 when the denominator is 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub value: f64,
    pub numerator: usize,
    pub denominator: usize,
}

impl Rate {
    pub fn new(numerator: usize, denominator: usize) -> Self {
        let value = if denominator == 0 { 0.0 } else { numerator as f64 / denominator as f64 };
        Rate { value, numerator, denominator }
    }
}

/// `8.6% (82/959)`.
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1}% ({}/{})", self.value * 100.0, self.numerator, self.denominator)
    }
}

/// Facts about an instance that its report does not carry, for the breakdowns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceFacts {
    pub repo: String,
    pub language: Option<String>,
    /// The gold patch edits more than one file.
    pub cross_file: bool,
    /// The problem statement carries images.
    pub visual: bool,
}

impl InstanceFacts {
    /// Reads the facts off an instance: files of the gold patch, and images in the problem
    /// statement (markdown or HTML images, image links) or in an `image_urls` / `images`
    /// field.
    pub fn from_instance(instance: &Instance, language: Option<&str>) -> Self {
        InstanceFacts {
            repo: instance.repo.clone(),
            language: language.map(str::to_string),
            cross_file: patch_files(&instance.patch).len() > 1,
            visual: has_images(instance),
        }
    }
}

/// The files a unified diff touches (post-image paths; pre-image paths for deletions).
pub fn patch_files(patch: &str) -> BTreeSet<String> {
    crate::patch::changed_files(patch).iter().map(|c| c.path().to_string()).collect()
}

/// Images in an issue: a markdown or HTML image, a link to an image file or to GitHub's
/// attachment hosts. A bare file name such as `plot.png` in prose is not an image.
static IMAGE_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)!\[[^\]]*\]\(|<img\s|https?://\S+\.(png|jpe?g|gif|webp|svg|bmp)\b|user-images\.githubusercontent\.com/|github\.com/user-attachments/",
    )
    .expect("the image pattern is a valid regex")
});

fn has_images(instance: &Instance) -> bool {
    let field = ["image_urls", "images", "image_assets"].iter().any(|k| match instance.extra.get(*k) {
        Some(serde_json::Value::Array(items)) => !items.is_empty(),
        Some(serde_json::Value::String(s)) => !s.trim().is_empty() && s.trim() != "[]",
        Some(serde_json::Value::Object(map)) => !map.is_empty(),
        _ => false,
    });
    field || IMAGE_IN_TEXT.is_match(&instance.problem_statement)
}

/// Counts and rates for one group of instances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    pub instances: usize,
    pub submitted: usize,
    pub resolved: usize,
    pub resolved_partial: usize,
    /// Would be resolved, but flagged as suspicious (not in `resolved` or the resolve rate).
    #[serde(default)]
    pub resolved_flagged: usize,
    pub empty_patch: usize,
    pub errors: usize,
    pub resolve_rate: Rate,
    pub apply_rate_strict: Rate,
    pub apply_rate_lenient: Rate,
    pub mean_cost_dollars: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CostSummary {
    pub total_dollars: f64,
    pub mean_dollars_per_instance: Option<f64>,
    pub instances_with_cost: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// verdict's own cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnCost {
    pub wall_secs: f64,
    pub cpu_secs: f64,
    pub image_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The run, model and method these figures are of (set by the command that wrote them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub total_instances: usize,
    pub submitted_instances: usize,
    pub completed_instances: usize,
    pub resolved_instances: usize,
    pub unresolved_instances: usize,
    pub empty_patch_instances: usize,
    pub error_instances: usize,
    pub completed_ids: Vec<String>,
    pub incomplete_ids: Vec<String>,
    pub empty_patch_ids: Vec<String>,
    pub submitted_ids: Vec<String>,
    pub resolved_ids: Vec<String>,
    pub unresolved_ids: Vec<String>,
    pub error_ids: Vec<String>,
    pub resolved_partial_ids: Vec<String>,
    /// Every listed test passed but the candidate is flagged as suspicious: not resolved.
    #[serde(default)]
    pub resolved_flagged_ids: Vec<String>,
    pub patch_apply_failed_ids: Vec<String>,
    pub timeout_ids: Vec<String>,
    pub build_failed_ids: Vec<String>,
    pub infra_error_ids: Vec<String>,
    /// Instances whose report carries flags (e.g. the candidate touches test files).
    pub flagged_ids: Vec<String>,
    /// Instances whose report carries integrity warnings.
    pub integrity_warning_ids: Vec<String>,
    /// How many instances ended in each outcome (every outcome is present).
    pub outcomes: BTreeMap<Outcome, usize>,
    pub resolve_rate: Rate,
    pub apply_rate_strict: Rate,
    pub apply_rate_lenient: Rate,
    pub cost: CostSummary,
    pub verdict_cost: OwnCost,
    pub by_language: BTreeMap<String, Breakdown>,
    pub by_repo: BTreeMap<String, Breakdown>,
    /// `single_file` / `cross_file`, by the gold patch (instances with facts only).
    pub by_patch_scope: BTreeMap<String, Breakdown>,
    /// `with_images` / `without_images` (instances with facts only).
    pub by_images: BTreeMap<String, Breakdown>,
    /// The localization aggregate over the reports that carry scores.
    pub localization: Option<crate::localize::LocalizationAggregate>,
    /// SWE-bench's summary schema version these fields follow.
    pub schema_version: u32,
}

/// Builds the summary (see the module doc for how each figure is counted).
pub fn summarize(
    total_instance_ids: &[String],
    reports: &[InstanceReport],
    facts: &BTreeMap<String, InstanceFacts>,
) -> Summary {
    let by_id: BTreeMap<&str, &InstanceReport> = reports.iter().map(|r| (r.instance_id.as_str(), r)).collect();
    let all: BTreeSet<&str> = total_instance_ids.iter().map(String::as_str).chain(by_id.keys().copied()).collect();

    let ids_where = |pred: &dyn Fn(&InstanceReport) -> bool| -> Vec<String> {
        by_id.values().filter(|r| pred(r)).map(|r| r.instance_id.clone()).collect()
    };
    let with = |o: Outcome| ids_where(&|r: &InstanceReport| r.outcome == o);
    let completed_ids = ids_where(&|r| r.outcome.is_completed());
    let resolved_ids = with(Outcome::ResolvedFull);
    let unresolved_ids = ids_where(&|r| r.outcome.is_completed() && r.outcome != Outcome::ResolvedFull);
    let empty_patch_ids = with(Outcome::EmptyPatch);
    let error_ids = ids_where(&|r| r.outcome.is_error());
    let incomplete_ids: Vec<String> =
        all.iter().filter(|id| !by_id.contains_key(*id)).map(|id| id.to_string()).collect();

    let mut outcomes: BTreeMap<Outcome, usize> = Outcome::ALL.iter().map(|o| (*o, 0)).collect();
    for report in by_id.values() {
        *outcomes.entry(report.outcome).or_default() += 1;
    }

    let mut groups: [BTreeMap<String, Vec<&str>>; 4] = Default::default();
    for id in &all {
        let report = by_id.get(id);
        let fact = facts.get(*id);
        let language = fact
            .and_then(|f| f.language.clone())
            .or_else(|| report.map(|r| r.language.clone()))
            .unwrap_or_else(|| "unknown".to_string());
        let repo = fact
            .map(|f| f.repo.clone())
            .or_else(|| report.map(|r| r.repo.clone()))
            .unwrap_or_else(|| "unknown".to_string());
        groups[0].entry(language).or_default().push(id);
        groups[1].entry(repo).or_default().push(id);
        if let Some(f) = fact {
            let scope = if f.cross_file { "cross_file" } else { "single_file" };
            groups[2].entry(scope.to_string()).or_default().push(id);
            let images = if f.visual { "with_images" } else { "without_images" };
            groups[3].entry(images.to_string()).or_default().push(id);
        }
    }
    let [by_language, by_repo, by_patch_scope, by_images] =
        groups.map(|g| g.into_iter().map(|(name, ids)| (name, breakdown(&ids, &by_id))).collect::<BTreeMap<_, _>>());
    let overall = breakdown(&all.iter().copied().collect::<Vec<_>>(), &by_id);

    let mut cost = CostSummary::default();
    let mut own = OwnCost::default();
    let mut images_seen: BTreeSet<&str> = BTreeSet::new();
    let mut layers: Vec<&[crate::images::layers::LayerSize]> = Vec::new();
    for report in by_id.values() {
        if let Some(c) = &report.cost {
            if let Some(dollars) = c.dollars {
                cost.total_dollars += dollars;
                cost.instances_with_cost += 1;
            }
            cost.input_tokens += c.input_tokens.unwrap_or(0);
            cost.output_tokens += c.output_tokens.unwrap_or(0);
        }
        own.wall_secs += report.timing.wall_secs;
        own.cpu_secs += report.timing.cpu_secs.unwrap_or(0.0);
        if !report.image_layers.is_empty() {
            layers.push(&report.image_layers);
        } else if images_seen.insert(report.environment.as_str()) {
            own.image_bytes += report.image_bytes.unwrap_or(0);
        }
    }
    own.image_bytes += crate::images::layers::unique_bytes(layers);
    cost.mean_dollars_per_instance =
        (cost.instances_with_cost > 0).then(|| cost.total_dollars / cost.instances_with_cost as f64);

    Summary {
        run_id: None,
        model: by_id.values().next().map(|r| r.model.clone()),
        method: by_id.values().next().and_then(|r| r.method.clone()),
        total_instances: all.len(),
        submitted_instances: by_id.len(),
        completed_instances: completed_ids.len(),
        resolved_instances: resolved_ids.len(),
        unresolved_instances: unresolved_ids.len(),
        empty_patch_instances: empty_patch_ids.len(),
        error_instances: error_ids.len(),
        submitted_ids: by_id.keys().map(|id| id.to_string()).collect(),
        completed_ids,
        incomplete_ids,
        empty_patch_ids,
        resolved_ids,
        unresolved_ids,
        error_ids,
        resolved_partial_ids: with(Outcome::ResolvedPartial),
        resolved_flagged_ids: with(Outcome::ResolvedFlagged),
        patch_apply_failed_ids: with(Outcome::PatchApplyFailed),
        timeout_ids: with(Outcome::Timeout),
        build_failed_ids: with(Outcome::BuildFailed),
        infra_error_ids: with(Outcome::InfraError),
        flagged_ids: ids_where(&|r| !r.flags.is_empty()),
        integrity_warning_ids: ids_where(&|r| !r.integrity.is_empty()),
        outcomes,
        resolve_rate: overall.resolve_rate,
        apply_rate_strict: overall.apply_rate_strict,
        apply_rate_lenient: overall.apply_rate_lenient,
        cost,
        verdict_cost: own,
        by_language,
        by_repo,
        by_patch_scope,
        by_images,
        localization: None,
        schema_version: 2,
    }
}

fn breakdown(ids: &[&str], by_id: &BTreeMap<&str, &InstanceReport>) -> Breakdown {
    let reports: Vec<&InstanceReport> = ids.iter().filter_map(|id| by_id.get(id).copied()).collect();
    let count = |pred: &dyn Fn(&InstanceReport) -> bool| reports.iter().filter(|r| pred(r)).count();
    let resolved = count(&|r| r.outcome == Outcome::ResolvedFull);
    let costs: Vec<f64> = reports.iter().filter_map(|r| r.cost.as_ref()?.dollars).collect();
    Breakdown {
        instances: ids.len(),
        submitted: reports.len(),
        resolved,
        resolved_partial: count(&|r| r.outcome == Outcome::ResolvedPartial),
        resolved_flagged: count(&|r| r.outcome == Outcome::ResolvedFlagged),
        empty_patch: count(&|r| r.outcome == Outcome::EmptyPatch),
        errors: count(&|r| r.outcome.is_error()),
        resolve_rate: Rate::new(resolved, ids.len()),
        apply_rate_strict: Rate::new(count(&|r| r.apply.strict), ids.len()),
        apply_rate_lenient: Rate::new(count(&|r| r.apply.lenient || r.apply.strict), ids.len()),
        mean_cost_dollars: (!costs.is_empty()).then(|| costs.iter().sum::<f64>() / costs.len() as f64),
    }
}
