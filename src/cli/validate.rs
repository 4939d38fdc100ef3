//! `verdict validate`: check new task instances and derive their test lists.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use super::common::{self, fail};
use super::{exit, DatasetArgs, RunArgs};
use crate::dataset::{write_instances_jsonl, Instance};
use crate::grade::derive_lists;
use crate::parse::{ParsedTests, ResultSource};
use crate::report::{validation_status, Timing, ValidationReport, ValidationStatus};
use crate::run::{self, execute, prepare, Context, RunStatus};

#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Runs of each phase (test patch alone; test patch plus gold patch). A test whose status
    /// changes between runs of a phase is flaky and kept out of both lists.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub repeat: usize,
    /// Where to write the completed dataset (valid instances, with derived FAIL_TO_PASS and
    /// PASS_TO_PASS). Default: <logs>/<run-id>/validated.jsonl.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

pub async fn run(args: ValidateArgs) -> anyhow::Result<i32> {
    if args.repeat == 0 {
        return Err(fail(exit::BAD_INPUT, "--repeat must be at least 1"));
    }
    let logs = args.run.images.logs.clone();
    let loaded = common::load_dataset(&args.dataset, &logs)?;
    let run_id = common::run_id(args.run.run_id.as_deref(), &loaded);
    let ctx = Arc::new(common::context(&loaded, &args.run, &run_id, false).await?);
    let docker = ctx.backend.docker().clone();
    let root = logs.join(run::safe_component(&run_id)).join("validation");

    let repeat = args.repeat;
    let job_root = root.clone();
    let validate = move |instance: Instance| {
        let ctx = ctx.clone();
        let dir = job_root.join(run::safe_component(&instance.instance_id));
        async move {
            let report = validate_one(&ctx, &instance, repeat, &dir).await;
            let _ = common::write_json(&dir.join("validation.json"), &report);
            (format!("{:<40} {:?}", instance.instance_id, report.status), report)
        }
    };
    let lost = |instance: &Instance, reason: String| ValidationReport {
        instance_id: instance.instance_id.clone(),
        status: ValidationStatus::BuildFailed,
        reason: Some(reason),
        derived: None,
        logs: Vec::new(),
        timing: Timing::default(),
    };
    let workers = common::workers(&args.run);
    let Some(mut reports) =
        common::run_all(&docker, loaded.instances.clone(), workers, "validating", validate, lost).await
    else {
        return Ok(exit::INTERRUPTED);
    };
    reports.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));

    let completed: Vec<Instance> = loaded
        .instances
        .iter()
        .filter_map(|instance| {
            let report = reports.iter().find(|r| r.instance_id == instance.instance_id)?;
            let derived = report.derived.as_ref().filter(|_| report.status == ValidationStatus::Valid)?;
            let mut done = instance.clone();
            done.fail_to_pass = derived.fail_to_pass.clone();
            done.pass_to_pass = derived.pass_to_pass.clone();
            Some(done)
        })
        .collect();
    let output = args.output.clone().unwrap_or_else(|| logs.join(run::safe_component(&run_id)).join("validated.jsonl"));
    write_instances_jsonl(&output, &completed).map_err(|e| fail(exit::INTERNAL, e.to_string()))?;
    common::write_json(&root.join("summary.json"), &reports)?;

    println!("{:<40} {:<28} reason", "instance", "status");
    for r in &reports {
        println!("{:<40} {:<28} {}", r.instance_id, format!("{:?}", r.status), r.reason.as_deref().unwrap_or(""));
    }
    println!("\n{} of {} instance(s) valid; completed dataset: {}", completed.len(), reports.len(), output.display());
    println!("per-instance reports: {}", root.display());
    Ok(if completed.len() == reports.len() { exit::OK } else { exit::SOME_FAILED })
}

async fn validate_one(ctx: &Context, instance: &Instance, repeat: usize, dir: &Path) -> ValidationReport {
    let started = Instant::now();
    let mut report = ValidationReport {
        instance_id: instance.instance_id.clone(),
        status: ValidationStatus::BuildFailed,
        reason: None,
        derived: None,
        logs: Vec::new(),
        timing: Timing::default(),
    };
    let prepared = match prepare(ctx, instance) {
        Ok(p) => p,
        Err(reason) => {
            report.reason = Some(reason);
            return report;
        }
    };
    let mut before = Vec::new();
    let mut after = Vec::new();
    for (phase, candidate, runs) in [("before", None, &mut before), ("gold", Some(instance.patch.as_str()), &mut after)]
    {
        for k in 1..=repeat {
            let run_dir = dir.join(format!("{phase}-{k}"));
            report.logs.push(run_dir.display().to_string());
            let record = execute(ctx, &prepared, instance, candidate, &run_dir).await;
            if let Some(cpu) = record.cpu_secs {
                *report.timing.cpu_secs.get_or_insert(0.0) += cpu;
            }
            let failed = |status: ValidationStatus, reason: String| (status, reason);
            let stop = match &record.status {
                RunStatus::BuildFailed { failure } => Some(failed(ValidationStatus::BuildFailed, failure.to_string())),
                RunStatus::TestPatchFailed => Some(failed(
                    ValidationStatus::TestPatchDoesNotApply,
                    format!("the test patch does not apply at the base commit; see {}/output.txt", run_dir.display()),
                )),
                RunStatus::ApplyFailed => Some(failed(
                    ValidationStatus::GoldDoesNotApply,
                    format!("the gold patch does not apply; see {}/output.txt", run_dir.display()),
                )),
                RunStatus::Timeout { secs } if candidate.is_some() => Some(failed(
                    ValidationStatus::GoldFails,
                    format!("the tests with the gold patch did not finish within {secs} s"),
                )),
                RunStatus::Crashed { reason } if candidate.is_some() => {
                    Some(failed(ValidationStatus::GoldFails, reason.clone()))
                }
                _ => None,
            };
            if let Some((status, reason)) = stop {
                report.status = status;
                report.reason = Some(reason);
                report.timing.wall_secs = started.elapsed().as_secs_f64();
                return report;
            }
            let parsed = match record.parsed {
                Some(Ok(parsed)) => parsed,
                Some(Err(reason)) if candidate.is_some() => {
                    report.status = ValidationStatus::GoldFails;
                    report.reason = Some(format!("the test output with the gold patch could not be read: {reason}"));
                    return report;
                }
                // Before the fix, tests that cannot even run are simply failing.
                other => empty_run(match other {
                    Some(Err(reason)) => reason,
                    _ => format!("{:?}", record.status),
                }),
            };
            runs.push(parsed);
        }
    }
    let derived = derive_lists(&before, &after);
    let (status, reason) = validation_status(&derived);
    report.status = status;
    report.reason = Some(reason);
    report.derived = Some(derived);
    report.timing.wall_secs = started.elapsed().as_secs_f64();
    report
}

fn empty_run(note: String) -> ParsedTests {
    ParsedTests {
        tests: Default::default(),
        source: ResultSource::Console,
        disagreements: Vec::new(),
        notes: vec![note],
    }
}
