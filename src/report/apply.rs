//! Reports of `verdict evaluate --apply-only`: per instance `apply.json` ([`ApplyReport`]: which
//! step of the apply chain took the candidate, in the instance's container, with no test patch
//! and no tests), and per model `apply_summary.json` ([`ApplySummary`]: strict and lenient apply
//! rates with counts, overall and by language and repository, counted exactly as
//! [`super::summary`] counts them, so an apply-only run and a full evaluation of the same
//! predictions give the same apply rates).
//!
//! These are separate files from `report.json` and `summary.json`: a full evaluation never
//! mistakes an apply-only result for a graded one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::summary::{InstanceFacts, Rate};
use super::{ApplyInfo, LogFiles, Timing};

/// How one apply-only check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyOutcome {
    /// A step of the chain applied the candidate (`apply.step` says which).
    Applied,
    /// No step applied it.
    NotApplied,
    EmptyPatch,
    BuildFailed,
    InfraError,
}

impl ApplyOutcome {
    pub fn name(self) -> &'static str {
        match self {
            ApplyOutcome::Applied => "applied",
            ApplyOutcome::NotApplied => "not_applied",
            ApplyOutcome::EmptyPatch => "empty_patch",
            ApplyOutcome::BuildFailed => "build_failed",
            ApplyOutcome::InfraError => "infra_error",
        }
    }
}

/// `logs/<run_id>/<model>/<instance_id>/apply.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyReport {
    pub instance_id: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub repo: String,
    pub language: String,
    pub outcome: ApplyOutcome,
    pub reason: Option<String>,
    pub patch_sha256: String,
    /// The instance image the check ran in.
    pub environment: String,
    pub apply: ApplyInfo,
    pub timing: Timing,
    pub logs: LogFiles,
}

/// Strict and lenient apply rates of one group of instances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyBreakdown {
    pub instances: usize,
    pub submitted: usize,
    pub apply_rate_strict: Rate,
    pub apply_rate_lenient: Rate,
}

/// `logs/<run_id>/<model>/apply_summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplySummary {
    pub run_id: Option<String>,
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub total_instances: usize,
    pub submitted_instances: usize,
    /// Over all instances, as in the evaluation summary: applied by plain `git apply` / total.
    pub apply_rate_strict: Rate,
    /// Applied by any step of the chain, fuzz included / total.
    pub apply_rate_lenient: Rate,
    /// How many candidates each step applied (`git_apply`, `git_apply_3way`, `patch_fuzz`).
    pub steps: BTreeMap<String, usize>,
    pub outcomes: BTreeMap<ApplyOutcome, usize>,
    pub not_applied_ids: Vec<String>,
    pub empty_patch_ids: Vec<String>,
    pub build_failed_ids: Vec<String>,
    pub infra_error_ids: Vec<String>,
    pub by_language: BTreeMap<String, ApplyBreakdown>,
    pub by_repo: BTreeMap<String, ApplyBreakdown>,
    /// The model's own part of the run (the command sets it; the sum of the checks' container
    /// times until then).
    pub wall_secs: f64,
}

/// Builds the apply summary over `total_instance_ids` (plus any report id missing from them).
pub fn summarize_apply(
    total_instance_ids: &[String],
    reports: &[ApplyReport],
    facts: &BTreeMap<String, InstanceFacts>,
) -> ApplySummary {
    let by_id: BTreeMap<&str, &ApplyReport> = reports.iter().map(|r| (r.instance_id.as_str(), r)).collect();
    let all: BTreeSet<&str> = total_instance_ids.iter().map(String::as_str).chain(by_id.keys().copied()).collect();
    let with = |o: ApplyOutcome| -> Vec<String> {
        by_id.values().filter(|r| r.outcome == o).map(|r| r.instance_id.clone()).collect()
    };
    let mut outcomes: BTreeMap<ApplyOutcome, usize> = BTreeMap::new();
    let mut steps: BTreeMap<String, usize> = BTreeMap::new();
    for r in by_id.values() {
        *outcomes.entry(r.outcome).or_default() += 1;
        if let Some(step) = &r.apply.step {
            *steps.entry(step.name().to_string()).or_default() += 1;
        }
    }
    let mut languages: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut repos: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for id in &all {
        let report = by_id.get(id);
        let fact = facts.get(*id);
        let language = fact
            .and_then(|f| f.language.clone())
            .or_else(|| report.map(|r| r.language.clone()))
            .unwrap_or_else(|| "unknown".into());
        let repo =
            fact.map(|f| f.repo.clone()).or_else(|| report.map(|r| r.repo.clone())).unwrap_or_else(|| "unknown".into());
        languages.entry(language).or_default().push(id);
        repos.entry(repo).or_default().push(id);
    }
    let group = |ids: &[&str]| -> ApplyBreakdown {
        let reports: Vec<&&ApplyReport> = ids.iter().filter_map(|id| by_id.get(id)).collect();
        ApplyBreakdown {
            instances: ids.len(),
            submitted: reports.len(),
            apply_rate_strict: Rate::new(reports.iter().filter(|r| r.apply.strict).count(), ids.len()),
            apply_rate_lenient: Rate::new(
                reports.iter().filter(|r| r.apply.lenient || r.apply.strict).count(),
                ids.len(),
            ),
        }
    };
    let overall = group(&all.iter().copied().collect::<Vec<_>>());
    ApplySummary {
        run_id: None,
        model: by_id.values().next().map(|r| r.model.clone()),
        method: by_id.values().next().and_then(|r| r.method.clone()),
        total_instances: all.len(),
        submitted_instances: by_id.len(),
        apply_rate_strict: overall.apply_rate_strict,
        apply_rate_lenient: overall.apply_rate_lenient,
        steps,
        outcomes,
        not_applied_ids: with(ApplyOutcome::NotApplied),
        empty_patch_ids: with(ApplyOutcome::EmptyPatch),
        build_failed_ids: with(ApplyOutcome::BuildFailed),
        infra_error_ids: with(ApplyOutcome::InfraError),
        by_language: languages.into_iter().map(|(k, ids)| (k, group(&ids))).collect(),
        by_repo: repos.into_iter().map(|(k, ids)| (k, group(&ids))).collect(),
        wall_secs: reports.iter().map(|r| r.timing.wall_secs).sum(),
    }
}

/// The apply-only table for the terminal.
pub fn render_apply_table(s: &ApplySummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} instances, {} submitted (apply only: no tests ran)",
        s.total_instances, s.submitted_instances
    );
    let _ = writeln!(out, "apply rate (strict)   {}", s.apply_rate_strict);
    let _ = writeln!(out, "apply rate (lenient)  {}", s.apply_rate_lenient);
    let steps: Vec<String> = s.steps.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "steps                 {}", if steps.is_empty() { "none".into() } else { steps.join(", ") });
    for (name, ids) in [
        ("not applied", &s.not_applied_ids),
        ("empty patch", &s.empty_patch_ids),
        ("build failed", &s.build_failed_ids),
        ("infra error", &s.infra_error_ids),
    ] {
        if !ids.is_empty() {
            let _ = writeln!(out, "{name:<22}{}: {}", ids.len(), crate::dataset::examples(ids));
        }
    }
    let _ = writeln!(out, "\n{:<12} {:>9} {:>16} {:>16}", "language", "instances", "apply (strict)", "apply (lenient)");
    for (language, b) in &s.by_language {
        let _ = writeln!(
            out,
            "{language:<12} {:>9} {:>16} {:>16}",
            b.instances,
            b.apply_rate_strict.to_string(),
            b.apply_rate_lenient.to_string()
        );
    }
    out
}
