//! One candidate patch through the apply chain only (`verdict evaluate --apply-only`): build (or
//! reuse) the instance image, run the eval script's own chain in a container from it, record the
//! step, and write `apply.json`. No test patch is applied and no test runs. A rerun reuses a
//! finished `apply.json` whose patch and environment are unchanged.

use std::path::Path;

use super::{execute_apply_only, prepare, Context};
use crate::dataset::{Instance, Prediction};
use crate::grade::{ApplyStep, Execution};
use crate::report::apply::{ApplyOutcome, ApplyReport};
use crate::report::{patch_sha256, ApplyInfo, LogFiles, Timing};

/// Checks one prediction and writes `dir/apply.json`.
pub async fn apply_one(ctx: &Context, instance: &Instance, prediction: &Prediction, dir: &Path) -> ApplyReport {
    let patch = prediction.model_patch.clone().unwrap_or_default();
    let path = dir.join("apply.json");
    let prepared = prepare(ctx, instance);
    let environment = prepared.as_ref().map(|p| p.images.instance.tag.clone()).unwrap_or_default();
    let mut report = ApplyReport {
        instance_id: instance.instance_id.clone(),
        model: prediction.model_name_or_path.clone(),
        method: prediction.method.clone(),
        repo: instance.repo.clone(),
        language: prepared.as_ref().map(|p| p.entry.language.clone()).unwrap_or_else(|_| "unknown".into()),
        outcome: ApplyOutcome::InfraError,
        reason: None,
        patch_sha256: patch_sha256(&patch),
        environment,
        apply: ApplyInfo::default(),
        timing: Timing::default(),
        logs: LogFiles { patch: Some("patch.diff".into()), ..Default::default() },
    };
    if let Some(previous) = read(&path) {
        let finished = !matches!(previous.outcome, ApplyOutcome::BuildFailed | ApplyOutcome::InfraError);
        if finished && previous.patch_sha256 == report.patch_sha256 && previous.environment == report.environment {
            return previous;
        }
    }
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join("patch.diff"), &patch);
    if patch.trim().is_empty() {
        report.outcome = ApplyOutcome::EmptyPatch;
        report.reason = Some("the prediction has no patch".into());
        return write(report, &path);
    }
    let prepared = match prepared {
        Ok(p) => p,
        Err(reason) => {
            report.reason = Some(reason);
            return write(report, &path);
        }
    };
    let raw = execute_apply_only(ctx, &prepared, instance, &patch, dir).await;
    report.timing = Timing { wall_secs: raw.wall_secs(), cpu_secs: None };
    if raw.files.iter().any(|f| f == "eval.sh") {
        report.logs.eval_script = Some("eval.sh".into());
    }
    let step = raw.applied_step();
    report.apply = ApplyInfo { strict: step.is_some_and(ApplyStep::strict), lenient: step.is_some(), step };
    match &raw.execution {
        Execution::Ran { script, job } => match script.apply {
            Some(step) if step.applied() && script.finished => report.outcome = ApplyOutcome::Applied,
            Some(ApplyStep::NotApplied) => {
                report.outcome = ApplyOutcome::NotApplied;
                report.reason = Some(
                    "no step of the apply chain (git apply, git apply --3way, patch --fuzz=5) applied the patch; see output.txt"
                        .into(),
                );
            }
            _ => {
                report.reason = Some(format!(
                    "the eval script stopped before it said how the patch applied (container exit code {:?}{}); see output.txt",
                    job.container_exit_code,
                    if job.oom_killed { ", out of memory" } else { "" }
                ))
            }
        },
        Execution::BuildFailed { reason, log } => {
            report.outcome = ApplyOutcome::BuildFailed;
            report.logs.build_log = log.clone();
            report.reason = Some(reason.clone());
        }
        Execution::EngineFailed { reason } => report.reason = Some(reason.clone()),
    }
    write(report, &path)
}

fn read(path: &Path) -> Option<ApplyReport> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Writes the report beside its final name, then renames it: an interrupted run never leaves
/// half a file that a rerun would have to throw away.
fn write(report: ApplyReport, path: &Path) -> ApplyReport {
    let attempt = || -> std::io::Result<()> {
        use std::io::Write as _;
        let text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other)?;
        let mut file = tempfile::NamedTempFile::new_in(path.parent().unwrap_or(Path::new(".")))?;
        file.write_all((text + "\n").as_bytes())?;
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    };
    if let Err(e) = attempt() {
        tracing::error!("cannot write {}: {e}", path.display());
    }
    report
}
