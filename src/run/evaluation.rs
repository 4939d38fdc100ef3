//! One candidate patch, start to finish: reuse a finished report when the patch is unchanged,
//! else run it, decide its outcome, grade it, and write `report.json` as soon as it is known.
//! Every path ends in a report: a broken instance is an outcome, never a crashed run.

use std::path::Path;

use super::{execute, prepare, Context};
use crate::dataset::repo::{GitSnapshot, RepoStore};
use crate::dataset::{Instance, Prediction};
use crate::grade::decide::{self, Expected};
use crate::grade::{self, Guard, GuardKind, Suspicion};
use crate::localize::{Candidate, InstanceLocalization, LocalizeItem, Localizer};
use crate::report::{patch_sha256, ApplyInfo, InstanceReport, LogFiles, Outcome, Timing};

/// Outcomes worth keeping across reruns; the others (the environment or the engine failed) are
/// tried again.
fn reusable(outcome: Outcome) -> bool {
    !matches!(outcome, Outcome::BuildFailed | Outcome::InfraError)
}

/// Whether a finished report answers this evaluation again: same patch, environment, clock
/// and grading rules, and an outcome worth keeping.
fn still_holds(
    previous: &InstanceReport,
    sha: &str,
    env_key: &str,
    clock: &crate::dataset::clock::Clock,
    rules: crate::grade::Rules,
) -> bool {
    previous.patch_sha256 == sha
        && previous.environment == env_key
        && previous.clock == *clock
        && previous.rules == rules
        && reusable(previous.outcome)
}

/// Evaluates one prediction and writes `dir/report.json`.
pub async fn evaluate_one(
    ctx: &Context,
    repos: &RepoStore,
    instance: &Instance,
    prediction: &Prediction,
    dir: &Path,
) -> InstanceReport {
    let patch = prediction.model_patch.clone().unwrap_or_default();
    let report_path = dir.join("report.json");
    let sha = patch_sha256(&patch);
    let prepared = prepare(ctx, instance);
    let env_key = prepared.as_ref().map(|p| p.images.instance.tag.clone()).unwrap_or_default();
    let clock = ctx.clock.for_instance(instance).unwrap_or_default();
    if let Ok(previous) = InstanceReport::read(&report_path) {
        if still_holds(&previous, &sha, &env_key, &clock, ctx.rules) {
            return previous;
        }
    }
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join("patch.diff"), &patch);

    let mut report = blank_report(instance, prediction);
    report.clock = clock;
    report.rules = ctx.rules;
    report.language = prepared.as_ref().map(|p| p.entry.language.clone()).unwrap_or_else(|_| "unknown".into());
    report.environment = env_key;
    // Reading the snapshot runs git: keep it off the async workers' toes.
    report.localization = tokio::task::block_in_place(|| localization(repos, instance, &patch, &report.language));

    if patch.trim().is_empty() {
        report.outcome = Outcome::EmptyPatch;
        report.reason = Some("the prediction has no patch".into());
        return finish(report, &report_path);
    }
    let prepared = match prepared {
        Ok(p) => p,
        Err(reason) => {
            report.reason = Some(reason);
            return finish(report, &report_path);
        }
    };
    let globs = super::script::test_globs(&prepared.entry, &prepared.language);
    let touched = super::script::touched_test_files(&patch, &globs, &instance.test_patch);
    if !touched.is_empty() {
        report.flags.push(format!(
            "the candidate patch touches test files or test configuration (restored before the tests ran): {}",
            touched.join(", ")
        ));
    }
    let allowed = &prepared.entry.allowed_suspicions;
    flag_suspicious(&mut report, grade::suspicious::scan_allowing(&patch, &touched, allowed));

    if let Some(warning) =
        super::script::no_test_argument_warning(&prepared.entry, &prepared.language, &instance.test_patch)
    {
        report.flags.push(warning);
    }
    let raw = execute(ctx, &prepared, instance, Some(&patch), dir).await;
    flag_guards(&mut report, &raw.guards);
    let decided = decide::flagged(decide::evaluation(expected(instance), &raw, &ctx.rules), &report.suspicious);
    report.record(raw, decided);
    finish(report, &report_path)
}

/// Records the detector's suspicions, with one flag that names them.
fn flag_suspicious(report: &mut InstanceReport, found: Vec<Suspicion>) {
    if found.is_empty() {
        return;
    }
    const SHOWN: usize = 5;
    let mut text: Vec<String> = found.iter().take(SHOWN).map(|s| s.to_string()).collect();
    if found.len() > SHOWN {
        text.push(format!("and {} more", found.len() - SHOWN));
    }
    report.flags.push(format!("the patch's code reaches into the test framework: {}", text.join("; ")));
    report.suspicious.extend(found);
}

/// Records what the eval script did to keep the candidate away from the runner: resets and
/// kept files are flags; a configuration that could not be reset is also a suspicion
/// (`runner_config_not_reset`).
fn flag_guards(report: &mut InstanceReport, guards: &[Guard]) {
    for guard in guards {
        match guard.kind {
            GuardKind::ConfigReset => report
                .flags
                .push(format!("the patch changes the test runner's configuration in {}: {}", guard.path, guard.detail)),
            GuardKind::ConfigFallback => {
                report.flags.push(format!(
                    "the patch changes the test runner's configuration in {}: {}",
                    guard.path, guard.detail
                ));
                report.suspicious.push(Suspicion {
                    name: "runner_config_not_reset".into(),
                    path: guard.path.clone(),
                    line: None,
                    excerpt: guard.detail.clone(),
                });
            }
            GuardKind::Kept => {
                report.flags.push(format!("the patch edits {}, which git does not track: {}", guard.path, guard.detail))
            }
        }
    }
}

/// The candidate's localization scores against the gold patch, computed on the host from the
/// repository at the base commit (no container needed).
fn localization(repos: &RepoStore, instance: &Instance, patch: &str, language: &str) -> Option<InstanceLocalization> {
    let snapshot = GitSnapshot { store: repos, repo: instance.repo.clone(), commit: instance.base_commit.clone() };
    let candidate = if patch.trim().is_empty() { Candidate::Missing } else { Candidate::Patch(patch.to_string()) };
    let item = LocalizeItem {
        instance_id: instance.instance_id.clone(),
        language: (language != "unknown").then(|| language.to_string()),
        gold_patch: instance.patch.clone(),
        candidate,
        snapshot: Box::new(snapshot),
    };
    Some(Localizer::like_the_container().score(item))
}

/// A report that says nothing yet: `infra_error` until something better is known.
fn blank_report(instance: &Instance, prediction: &Prediction) -> InstanceReport {
    let patch = prediction.model_patch.as_deref().unwrap_or_default();
    InstanceReport {
        instance_id: instance.instance_id.clone(),
        model: prediction.model_name_or_path.clone(),
        method: prediction.method.clone(),
        repo: instance.repo.clone(),
        language: "unknown".into(),
        outcome: Outcome::InfraError,
        reason: None,
        patch_sha256: patch_sha256(patch),
        environment: String::new(),
        apply: ApplyInfo::default(),
        flags: Vec::new(),
        suspicious: Vec::new(),
        exit_code: None,
        parse: None,
        tests: None,
        grade: None,
        integrity: Vec::new(),
        cost: prediction.cost.clone(),
        timing: Timing::default(),
        clock: Default::default(),
        rules: Default::default(),
        image_bytes: None,
        image_layers: Vec::new(),
        toolchains: Vec::new(),
        localization: None,
        logs: LogFiles { patch: Some("patch.diff".into()), ..Default::default() },
        run: None,
    }
}

/// The report of an evaluation that verdict itself could not finish, written to `dir`.
pub fn infra_error_report(instance: &Instance, prediction: &Prediction, dir: &Path, reason: String) -> InstanceReport {
    let mut report = blank_report(instance, prediction);
    report.reason = Some(reason);
    let _ = std::fs::create_dir_all(dir);
    finish(report, &dir.join("report.json"))
}

/// An instance's expected lists, for the decide stage.
pub fn expected(instance: &Instance) -> Expected<'_> {
    Expected { fail_to_pass: &instance.fail_to_pass, pass_to_pass: &instance.pass_to_pass }
}

fn finish(report: InstanceReport, path: &Path) -> InstanceReport {
    if let Err(e) = report.write(path) {
        tracing::error!("{e}");
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{Rules, XpassRule};

    fn finished(outcome: Outcome) -> InstanceReport {
        let instance: Instance = serde_json::from_value(serde_json::json!({
            "instance_id": "o__r-1", "repo": "o/r", "base_commit": "abc", "patch": "", "test_patch": ""
        }))
        .unwrap();
        let prediction = Prediction {
            instance_id: "o__r-1".into(),
            model_name_or_path: "m".into(),
            model_patch: None,
            cost: None,
            method: None,
        };
        let mut report = blank_report(&instance, &prediction);
        report.outcome = outcome;
        report.patch_sha256 = "p".into();
        report.environment = "e".into();
        report
    }

    #[test]
    fn a_report_is_reused_only_under_the_same_patch_environment_clock_and_rules() {
        let report = finished(Outcome::ResolvedFull);
        let rules = Rules::default();
        let clock = &report.clock.clone();
        assert!(still_holds(&report, "p", "e", clock, rules));
        assert!(!still_holds(&report, "q", "e", clock, rules), "another patch");
        assert!(!still_holds(&report, "p", "f", clock, rules), "another environment");
        assert!(!still_holds(&report, "p", "e", clock, Rules { xpass: XpassRule::Fail }), "other --xpass rules");
        assert!(!still_holds(&finished(Outcome::BuildFailed), "p", "e", clock, rules), "a failed build is retried");
        // A report written before rules were recorded was graded under the default rules.
        let mut json = serde_json::to_value(&report).unwrap();
        json.as_object_mut().unwrap().remove("rules");
        let old: InstanceReport = serde_json::from_value(json).unwrap();
        assert!(still_holds(&old, "p", "e", clock, rules));
    }
}
