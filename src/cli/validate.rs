//! `verdict validate`: check new task instances and derive their test lists.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use super::common;
use super::error::{Error, Result};
use super::{exit, DatasetArgs, RunArgs};
use crate::dataset::{write_instances_jsonl, Instance};
use crate::grade::decide::{self, validation_status, Phase, PhaseRun};
use crate::report::{Timing, ValidationReport, ValidationStatus};
use crate::run::{self, execute, prepare, Context};

#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Runs of each phase (test patch alone; test patch plus gold patch). A test whose status
    /// changes between runs of a phase is flaky and kept out of both lists.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub repeat: usize,
    /// Confidence for the stability figures: how many repeats show, with this confidence, that a
    /// test that never flipped flips less often than --flip-rate.
    #[arg(long, default_value_t = 0.95, value_name = "C")]
    pub confidence: f64,
    /// The per-run flip rate the stability figures rule out.
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub flip_rate: f64,
    /// Where to write the completed dataset (valid instances, with derived FAIL_TO_PASS and
    /// PASS_TO_PASS). Default: <logs>/<run-id>/validated.jsonl.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

pub async fn run(args: ValidateArgs) -> Result<i32> {
    if args.repeat == 0 {
        return Err(Error::bad_input("--repeat must be at least 1"));
    }
    for (flag, value) in [("--confidence", args.confidence), ("--flip-rate", args.flip_rate)] {
        if !(value > 0.0 && value < 1.0) {
            return Err(Error::bad_input(format!("{flag} must be between 0 and 1 (exclusive), not {value}")));
        }
    }
    let stability = crate::report::stability::stability(args.confidence, args.flip_rate, args.repeat);
    let logs = args.run.images.logs.clone();
    let loaded = common::load_dataset(&args.dataset, &logs)?;
    let run_id = common::run_id(args.run.run_id.as_deref(), &loaded);
    let opened = common::open(&loaded, &args.run, &run_id, false).await?;
    let ctx = opened.ctx.clone();
    let root = logs.join(run::safe_component(&run_id)).join("validation");

    let repeat = args.repeat;
    let job_root = root.clone();
    let validate = move |instance: Instance| {
        let ctx = ctx.clone();
        let stability = stability.clone();
        let dir = job_root.join(run::safe_component(&instance.instance_id));
        async move {
            let mut report = validate_one(&ctx, &instance, repeat, &dir).await;
            report.stability = report.derived.is_some().then(|| stability.clone());
            let _ = common::write_json(&dir.join("validation.json"), &report);
            (format!("{:<40} {:?}", instance.instance_id, report.status), report)
        }
    };
    let lost = |instance: &Instance, reason: String| ValidationReport {
        instance_id: instance.instance_id.clone(),
        status: ValidationStatus::InfraError,
        reason: Some(reason),
        derived: None,
        logs: Vec::new(),
        timing: Timing::default(),
        clock: Default::default(),
        warnings: Vec::new(),
        toolchains: Vec::new(),
        excluded_from_pass_to_pass: Vec::new(),
        stability: None,
    };
    let mut reports = match opened.scheduler.run_all(loaded.instances.clone(), "validating", validate, lost).await {
        Ok(reports) => reports,
        Err(stop) => return common::stopped(stop),
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
    write_instances_jsonl(&output, &completed)?;
    common::write_json(&root.join("summary.json"), &reports)?;

    println!("{:<40} {:<28} reason", "instance", "status");
    for r in &reports {
        println!("{:<40} {:<28} {}", r.instance_id, format!("{:?}", r.status), r.reason.as_deref().unwrap_or(""));
    }
    println!("\n{} of {} instance(s) valid; completed dataset: {}", completed.len(), reports.len(), output.display());
    println!("per-instance reports: {}", root.display());
    let s = crate::report::stability::stability(args.confidence, args.flip_rate, args.repeat);
    println!(
        "stability: {} run(s) per phase show, with {:.0}% confidence, that a test that never flipped flips in under {:.1}% of runs; ruling out {:.1}% takes {} runs per phase (n = ceil(ln(1 - c) / ln(1 - p)))",
        s.repeats_made,
        s.confidence * 100.0,
        s.flip_rate_bound * 100.0,
        s.flip_rate * 100.0,
        s.repeats_needed
    );
    Ok(if completed.len() == reports.len() { exit::OK } else { exit::SOME_FAILED })
}

async fn validate_one(ctx: &Context, instance: &Instance, repeat: usize, dir: &Path) -> ValidationReport {
    let started = Instant::now();
    let mut report = ValidationReport {
        instance_id: instance.instance_id.clone(),
        status: ValidationStatus::InfraError,
        reason: None,
        derived: None,
        logs: Vec::new(),
        timing: Timing::default(),
        clock: ctx.clock.for_instance(instance).unwrap_or_default(),
        warnings: Vec::new(),
        toolchains: Vec::new(),
        excluded_from_pass_to_pass: Vec::new(),
        stability: None,
    };
    let prepared = match prepare(ctx, instance) {
        Ok(p) => p,
        Err(reason) => {
            report.reason = Some(reason);
            return report;
        }
    };
    report.warnings.extend(run::script::no_test_argument_warning(
        &prepared.entry,
        &prepared.language,
        &instance.test_patch,
    ));
    let mut before = Vec::new();
    let mut after = Vec::new();
    for (phase, candidate, runs) in
        [(Phase::Before, None, &mut before), (Phase::Gold, Some(instance.patch.as_str()), &mut after)]
    {
        let name = if phase == Phase::Before { "before" } else { "gold" };
        for k in 1..=repeat {
            let run_dir = dir.join(format!("{name}-{k}"));
            report.logs.push(run_dir.display().to_string());
            let raw = execute(ctx, &prepared, instance, candidate, &run_dir).await;
            if let Some(cpu) = raw.cpu_secs {
                *report.timing.cpu_secs.get_or_insert(0.0) += cpu;
            }
            report.toolchains = raw.toolchains.clone();
            let run = decide::validation_run(phase, &raw, &format!("{}/output.txt", run_dir.display()));
            let stopped = matches!(run, PhaseRun::Stop { .. });
            runs.push(run);
            if stopped {
                break;
            }
        }
        if runs.iter().any(|r| matches!(r, PhaseRun::Stop { .. })) {
            break;
        }
    }
    let decided = decide::validation(&before, &after, &ctx.rules);
    report.status = decided.status;
    report.reason = Some(decided.reason);
    if let Some(mut derived) = decided.derived {
        match crate::report::stability::exclusion_set(&prepared.entry.pass_to_pass_exclude) {
            Ok(set) => {
                report.excluded_from_pass_to_pass = crate::report::stability::exclude(&mut derived.pass_to_pass, &set)
            }
            Err(e) => report.warnings.push(e),
        }
        if !report.excluded_from_pass_to_pass.is_empty() {
            let (status, mut reason) = validation_status(&derived);
            reason.push_str(&format!(
                "; {} test(s) kept out of PASS_TO_PASS by the spec's pass_to_pass_exclude",
                report.excluded_from_pass_to_pass.len()
            ));
            report.status = status;
            report.reason = Some(reason);
        }
        report.derived = Some(derived);
    }
    report.timing.wall_secs = started.elapsed().as_secs_f64();
    report
}
