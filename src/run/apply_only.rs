//! One candidate patch through the apply chain only (`verdict evaluate --apply-only`): build (or
//! reuse) the instance image, run the eval script's own chain in a container from it, record the
//! step, and write `apply.json`. No test patch is applied and no test runs. A rerun reuses a
//! finished `apply.json` whose patch and environment are unchanged.

use std::path::Path;

use super::{execute_apply_only, prepare, Context, RunStatus};
use crate::dataset::{Instance, Prediction};
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
    let record = execute_apply_only(ctx, &prepared, instance, &patch, dir).await;
    report.timing = Timing { wall_secs: record.wall_secs, cpu_secs: None };
    if record.files.iter().any(|f| f == "eval.sh") {
        report.logs.eval_script = Some("eval.sh".into());
    }
    let step = record.apply_step.clone();
    report.apply = ApplyInfo { strict: step.as_deref() == Some("git_apply"), lenient: step.is_some(), step };
    match record.status {
        RunStatus::Ran => report.outcome = ApplyOutcome::Applied,
        RunStatus::ApplyFailed => {
            report.outcome = ApplyOutcome::NotApplied;
            report.reason = Some(
                "no step of the apply chain (git apply, git apply --3way, patch --fuzz=5) applied the patch; see output.txt"
                    .into(),
            );
        }
        RunStatus::BuildFailed { failure } => {
            report.outcome = ApplyOutcome::BuildFailed;
            report.logs.build_log = failure.log.as_ref().map(|p| p.display().to_string());
            report.reason = Some(failure.to_string());
        }
        RunStatus::Crashed { reason } => report.reason = Some(reason),
        other => report.reason = Some(format!("unexpected end of an apply-only run: {other:?}")),
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
